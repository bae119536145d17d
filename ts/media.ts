// Media eviction (`clearMedia`): screenshots and documents are the largest blocks a computer-use
// agent sends. This keeps the newest N of them (or the newest that fit a token budget) and replaces
// each older one by a short text block naming what was there, in the message's own format:
// LangChain (`image_url`, `image`, `file` blocks), OpenAI chat (`image_url`, `file`), Anthropic
// (`image`, `document`, also inside `tool_result` blocks) and the AI SDK (`image` and `file` parts,
// `media` in a tool result's content output). Messages are never mutated: changed messages are
// copies, the others are the caller's objects.
//
// Images are counted with each provider's documented formula when their size is known (read from
// the PNG, JPEG, GIF or WebP header of base64 data, or `width`/`height` on the block): OpenAI's tiles
// (`85 + 170` per 512-px tile after fitting in 2048 and scaling the short side to 768; `detail:
// "low"` is 85) and Anthropic's `width * height / 750` after fitting the long edge in 1568 px.
// Without a size, `UNKNOWN_IMAGE_TOKENS`.

import { partsOf } from './wire/shapes.js'
import { changed } from './wire/copy.js'
import { fingerprint, unchanged } from './wire/fingerprint.js'

/** Tokens of an image whose size is unknown (OpenAI's count for a 1024 × 1024 high-detail image). */
export const UNKNOWN_IMAGE_TOKENS = 765

/** How an image is counted. */
export type ImageTokenFormula = 'openai' | 'anthropic'

/** Tokens of a `width` × `height` image by `formula` (OpenAI tiles, or Anthropic's w·h/750). */
export function imageTokens(width: number, height: number, formula: ImageTokenFormula = 'openai', detail?: string): number {
  if (!(width > 0 && height > 0)) return UNKNOWN_IMAGE_TOKENS
  if (formula === 'anthropic') {
    const scale = Math.min(1, 1568 / Math.max(width, height))
    return Math.ceil((Math.round(width * scale) * Math.round(height * scale)) / 750)
  }
  if (detail === 'low') return 85
  let w = width
  let h = height
  const fit = Math.min(1, 2048 / Math.max(w, h))
  w *= fit
  h *= fit
  const short = Math.min(1, 768 / Math.min(w, h))
  w = Math.floor(w * short)
  h = Math.floor(h * short)
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512)
}

/** Base64 characters decoded to find a PNG, GIF or WebP header (30 bytes), or to tell a JPEG. */
const HEADER_CHARS = 44
/** Base64 characters decoded to find a JPEG's frame header, past its other segments (64 KiB). */
const JPEG_CHARS = 87_384

/**
 * The pixel size in the header of base64 PNG, GIF, JPEG or WebP data, if it can be read. Only a
 * JPEG is decoded past its first bytes (its size comes after its other segments, EXIF among them):
 * every image of a history is sized again on every call, and a screenshot is hundreds of KB.
 */
export function imageSize(base64: string): { width: number; height: number } | undefined {
  let bytes: Buffer
  try {
    bytes = Buffer.from(base64.slice(0, HEADER_CHARS), 'base64')
    if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xd8 && base64.length > HEADER_CHARS) bytes = Buffer.from(base64.slice(0, JPEG_CHARS), 'base64')
  } catch {
    return undefined
  }
  const u16 = (o: number) => bytes.readUInt16BE(o)
  try {
    if (bytes.length >= 24 && bytes.toString('latin1', 1, 4) === 'PNG') return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
    if (bytes.length >= 10 && bytes.toString('latin1', 0, 3) === 'GIF') return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) }
    if (bytes.length >= 30 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') {
      const kind = bytes.toString('latin1', 12, 16)
      if (kind === 'VP8X') return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) }
      if (kind === 'VP8 ') return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff }
      if (kind === 'VP8L') {
        const b = bytes.readUInt32LE(21)
        return { width: 1 + (b & 0x3fff), height: 1 + ((b >> 14) & 0x3fff) }
      }
    }
    if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
      let o = 2
      while (o + 9 < bytes.length && bytes[o] === 0xff) {
        const marker = bytes[o + 1]
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { width: u16(o + 7), height: u16(o + 5) }
        o += 2 + u16(o + 2)
      }
    }
  } catch {
    return undefined
  }
  return undefined
}

/** One media block found in a message. */
interface Media {
  /** `image` or `document`. */
  kind: 'image' | 'document'
  /** What it was, for the placeholder: `image/png 1280×800`, `report.pdf`, a URL. */
  what: string
  tokens: number
}

const dataOf = (s: unknown): string | undefined => (typeof s === 'string' ? (s.startsWith('data:') ? s.slice(s.indexOf(',') + 1) : s) : undefined)
const mimeOfUrl = (s: unknown): string | undefined => (typeof s === 'string' && s.startsWith('data:') ? s.slice(5, s.indexOf(';')) : undefined)

/**
 * An image block as `Media`. Its base64 data is `raw` (a field of the block), after its `data:`
 * prefix when `strip`.
 */
function describeImage(
  mime: string | undefined,
  raw: unknown,
  strip: boolean,
  url: string | undefined,
  block: any,
  formula: ImageTokenFormula,
  detail?: string,
): Media {
  const size =
    typeof block?.width === 'number' && typeof block?.height === 'number' ? { width: block.width, height: block.height } : sizeOfData(block, raw, strip)
  const parts = [mime ?? 'image', size ? `${size.width}×${size.height}` : undefined, url && !url.startsWith('data:') ? url.slice(0, 80) : undefined].filter(
    Boolean,
  )
  return {
    kind: 'image',
    what: parts.join(' '),
    tokens: size ? imageTokens(size.width, size.height, formula, detail) : detail === 'low' ? 85 : UNKNOWN_IMAGE_TOKENS,
  }
}

/** Sizes read from image blocks' data, by block, with the string they were read from and how it was cut. */
const sizes = new WeakMap<object, { raw: string; cut: (s: string) => unknown; size: { width: number; height: number } | undefined }>()

const whole = (s: string): string => s

/**
 * The size in the base64 data of image block `block`: `raw` (a string field of the block), cut by
 * `cut` (a data URL's payload). Remembered for `block` while `raw` is the same string: a history's
 * images are sized again on every call, and a JPEG's size can sit 64 KiB into its data. The
 * block's own string is what is compared (the same object, at no cost), never the data cut from
 * it (a new string each time, compared character by character). `clearMedia` and the wire's image
 * counts (wire/convert.ts) size images through it.
 */
export function sizeOf(block: object, raw: string, cut: (s: string) => unknown = whole): { width: number; height: number } | undefined {
  const hit = sizes.get(block)
  if (hit !== undefined && hit.raw === raw && hit.cut === cut) return hit.size
  const data = cut(raw)
  const size = typeof data === 'string' && data !== '' ? imageSize(data) : undefined
  sizes.set(block, { raw, cut, size })
  return size
}

/** The size `describeImage` reads: as `sizeOf`, and from data that is not a string as `imageSize` reads it. */
function sizeOfData(block: unknown, raw: unknown, strip: boolean): { width: number; height: number } | undefined {
  if (typeof raw !== 'string') return strip || !raw ? undefined : imageSize(raw as string)
  if (block === null || typeof block !== 'object') return strip ? sizeIn(dataOf(raw)) : sizeIn(raw)
  return sizeOf(block, raw, strip ? dataOf : whole)
}

function sizeIn(data: string | undefined): { width: number; height: number } | undefined {
  return data ? imageSize(data) : undefined
}

/** The media a content block is, if any (`undefined` for text, tool calls, ...). */
function mediaOf(block: any, formula: ImageTokenFormula): Media | undefined {
  if (block === null || typeof block !== 'object') return undefined
  switch (block.type) {
    case 'image_url': {
      const url = typeof block.image_url === 'string' ? block.image_url : block.image_url?.url
      return describeImage(mimeOfUrl(url), url, true, url, block, formula, block.image_url?.detail)
    }
    case 'image': {
      const src = block.source
      if (src && typeof src === 'object') return describeImage(src.media_type, src.type === 'base64' ? src.data : undefined, false, src.url, block, formula)
      const url = typeof block.url === 'string' ? block.url : typeof block.image === 'string' && /^(https?:|data:)/.test(block.image) ? block.image : undefined
      const [raw, strip] = typeof block.data === 'string' ? [block.data, false] : typeof block.image === 'string' && !url ? [block.image, false] : [url, true]
      return describeImage(block.mimeType ?? block.mime_type ?? block.mediaType ?? mimeOfUrl(url), raw, strip, url, block, formula)
    }
    case 'media':
      return String(block.mediaType ?? '').startsWith('image/')
        ? describeImage(block.mediaType, block.data, false, undefined, block, formula)
        : { kind: 'document', what: String(block.mediaType ?? 'file'), tokens: Math.ceil(String(block.data ?? '').length / 4) }
    case 'document':
    case 'file':
    case 'input_file': {
      const src = block.source ?? block.file ?? block
      const mime = src.media_type ?? src.mediaType ?? src.mimeType ?? block.mediaType ?? block.mimeType
      if (block.type === 'file' && typeof mime === 'string' && mime.startsWith('image/'))
        return describeImage(mime, block.data, true, undefined, block, formula)
      const name = block.title ?? block.filename ?? src.filename ?? src.name
      const size = String(src.data ?? src.file_data ?? block.data ?? '').length
      return { kind: 'document', what: [name, mime].filter(Boolean).join(' ') || 'document', tokens: Math.ceil(size / 4) }
    }
    default:
      return undefined
  }
}

/** Options of `clearMedia`. */
export interface ClearMediaOptions {
  /** Keep the newest `media` images and documents (default 3), or the newest that fit in `tokens`. */
  keep?: { media: number } | { tokens: number }
  /** The placeholder; `{kind}` and `{what}` are replaced. @default "[{kind} removed: {what}]" */
  placeholder?: string
  /** How images are counted. @default "openai" */
  formula?: ImageTokenFormula
  /** Messages whose media stay and do not count toward `keep` (pinned ones), by index. */
  skip?: (index: number) => boolean
}

/** What `clearMedia` did. */
export interface ClearMediaReport {
  /** Media blocks replaced, oldest first: message index, the block's path, what it was, its tokens. */
  cleared: Array<{ index: number; path: string; kind: 'image' | 'document'; what: string; tokens: number }>
  /** Media blocks kept. */
  kept: number
  /** Tokens the replaced blocks were counted as. */
  clearedTokens: number
}

/** A media block found in a message: where it sits inside the message's content, and what it is. */
interface Block extends Media {
  /** The keys from the message's `content` to the block. */
  path: Array<string | number>
  /** `content.` and the path, as the report gives it. */
  pathText: string
  /** The placeholder text last made for it, and the template it was made from. */
  text?: string
  template?: string
}

/** A media block of message `index`. */
interface Found {
  block: Block
  index: number
}

/** Every media block of `content` (arrays of blocks, `tool_result` / `tool-result` contents). */
function walk(content: unknown, at: Array<string | number>, formula: ImageTokenFormula, out: Block[]): void {
  if (!Array.isArray(content)) return
  content.forEach((block: any, k) => {
    const media = mediaOf(block, formula)
    if (media) {
      const path = [...at, k]
      return void out.push({ ...media, path, pathText: ['content', ...path].join('.') })
    }
    if (block && typeof block === 'object') {
      if (Array.isArray(block.content)) walk(block.content, [...at, k, 'content'], formula, out)
      if (Array.isArray(block.output?.value)) walk(block.output.value, [...at, k, 'output', 'value'], formula, out)
    }
  })
}

/**
 * The media blocks of message `m`: those found before while its fingerprint holds (`memo`), so
 * that a call does not read again every image of the history it read the call before. What the
 * fingerprint does not read (a block's other fields, a tool result's nested blocks, changed in
 * place) is not seen, as everywhere else: `ContextEditor.invalidate` drops what it remembers.
 */
function blocksOf(m: any, formula: ImageTokenFormula, memo: MediaMemo | undefined): Block[] {
  const content = m?.content
  if (!Array.isArray(content)) return NONE
  if (memo === undefined || m === null || typeof m !== 'object') return walked(content, formula)
  const hit = memo.walked.get(m)
  if (hit !== undefined && hit.formula === formula && unchanged(m, hit.print)) return hit.blocks
  const blocks = walked(content, formula)
  if (blocks.length > 0) {
    const print = fingerprint(m)
    if (print !== undefined) memo.walked.set(m, { print, formula, blocks })
  } else if (hit !== undefined) memo.walked.delete(m)
  return blocks
}

const NONE: Block[] = []

function walked(content: unknown[], formula: ImageTokenFormula): Block[] {
  const out: Block[] = []
  walk(content, [], formula, out)
  return out
}

/** A copy of `content` with the block at `path` replaced by `replacement` (copies along the path only). */
function replaced(content: any, path: Array<string | number>, replacement: unknown): any {
  const [head, ...rest] = path
  const copy = Array.isArray(content) ? [...content] : { ...content }
  copy[head] = rest.length === 0 ? replacement : replaced(content[head], rest, replacement)
  return copy
}

/**
 * Keeps the newest media blocks and replaces older ones by a text block naming what was there.
 * The input is never mutated; unchanged messages are the caller's objects.
 */
export function clearMedia<T>(messages: readonly T[], options: ClearMediaOptions = {}): { messages: T[]; report: ClearMediaReport } {
  return clearMediaKept(messages, options, undefined)
}

/**
 * What `clearMedia` remembers for an editor: the media blocks of each message (see `blocksOf`), and
 * the copies it made, by the message each was made from, given again while nothing it was made
 * from changed (see `copyOf`), so that a conversation's next call finds the same objects as its
 * previous one and continues its session (ts/sessions.ts) instead of reading everything after the
 * first cleared image again.
 */
export interface MediaMemo {
  walked: WeakMap<object, { print: unknown[]; formula: ImageTokenFormula; blocks: Block[] }>
  copies: WeakMap<object, MediaCopy>
}

/** A copy `clearMedia` made, and what it was made from. */
interface MediaCopy {
  /** The blocks replaced and their texts. */
  list: Array<[Array<string | number>, string]>
  copy: unknown
  /** What a fresh copy would be made from, as it was (see `sources`), and the copy as it was made. */
  from: unknown[] | undefined
  made: unknown[] | undefined
}

/** An empty `MediaMemo`. */
export function mediaMemo(): MediaMemo {
  return { walked: new WeakMap(), copies: new WeakMap() }
}

/** Forgets what `memo` holds of message `m`. */
export function forgetMedia(memo: MediaMemo, m: object): void {
  memo.walked.delete(m)
  memo.copies.delete(m)
}

/** `clearMedia`, with what `memo` remembers of the messages (see `MediaMemo`). */
export function clearMediaKept<T>(
  messages: readonly T[],
  options: ClearMediaOptions,
  memo: MediaMemo | undefined,
): { messages: T[]; report: ClearMediaReport } {
  const formula = options.formula ?? 'openai'
  const template = options.placeholder ?? '[{kind} removed: {what}]'
  const found: Found[] = []
  messages.forEach((m: any, index) => {
    if (!options.skip?.(index)) for (const block of blocksOf(m, formula, memo)) found.push({ block, index })
  })
  const keep = options.keep ?? { media: 3 }
  let kept = 0
  let used = 0
  const cut: boolean[] = new Array(found.length).fill(false)
  for (let k = found.length - 1; k >= 0; k--) {
    const tokens = found[k].block.tokens
    const fits = 'tokens' in keep ? used + tokens <= keep.tokens && kept === found.length - 1 - k : kept < keep.media
    if (fits) {
      kept++
      used += tokens
    } else cut[k] = true
  }
  const out = [...messages]
  const report: ClearMediaReport = { cleared: [], kept, clearedTokens: 0 }
  /** The blocks to replace in each message, with their texts. */
  const byMessage = new Map<number, Array<[Array<string | number>, string]>>()
  for (let k = 0; k < found.length; k++) {
    if (!cut[k]) continue
    const { block: f, index } = found[k]
    if (f.template !== template) {
      // Functions as replacements: a `$&` or `$'` in a file's name is text, not a pattern.
      f.text = template.replaceAll('{kind}', () => f.kind).replaceAll('{what}', () => f.what)
      f.template = template
    }
    let list = byMessage.get(index)
    if (list === undefined) byMessage.set(index, (list = []))
    list.push([f.path, f.text!])
    report.cleared.push({ index, path: f.pathText, kind: f.kind, what: f.what, tokens: f.tokens })
    report.clearedTokens += f.tokens
  }
  for (const [index, list] of byMessage) out[index] = copyOf(messages[index], index, list, memo?.copies) as T
  return { messages: out, report }
}

/**
 * The copy of `m` with the blocks at `list`'s paths (inside its content) replaced by text blocks:
 * the one made before when `copies` holds it, its key is the same, and neither what it was made
 * from nor the copy itself changed since; else made now (and kept).
 */
function copyOf(m: any, index: number, list: Array<[Array<string | number>, string]>, copies: MediaMemo['copies'] | undefined): unknown {
  const hit = copies?.get(m)
  if (hit !== undefined && sameReplacements(hit.list, list) && sameSources(hit.from, m, list) && sameSources(hit.made, hit.copy, list)) return hit.copy
  let content = m.content
  for (const [path, text] of list) content = replaced(content, path, { type: 'text', text })
  const copy = isPlain(m) ? { ...m, content } : changed(m, partsOf(m, index), { content }, (x) => x)
  copies?.set(m, { list, copy, from: sources(m, list), made: sources(copy, list) })
  return copy
}

/**
 * Everything a copy of `m` is made from, flat: the own fields of the message (of its `lc_kwargs`,
 * and of a stored message's `data`) and of every array and object along the replaced blocks'
 * paths, keys and values. Two lists the same value for value (`Object.is`) make the same copy:
 * the copy shares every value but those containers. `undefined` when a field cannot be read
 * (the copy is then made again, which reports it).
 */
function sources(m: any, list: Array<[Array<string | number>, string]>): unknown[] | undefined {
  const out: unknown[] = []
  return visit(m, list, (v) => out.push(v) > 0) ? out : undefined
}

/** Whether `sources(m, list)` would be `were`, without making it. */
function sameSources(were: readonly unknown[] | undefined, m: any, list: Array<[Array<string | number>, string]>): boolean {
  if (were === undefined) return false
  let i = 0
  return visit(m, list, (v) => i < were.length && Object.is(v, were[i++])) && i === were.length
}

/** Gives `each` what `sources` lists, in order, while it returns `true`; `false` when it stopped or a field could not be read. */
function visit(m: any, list: Array<[Array<string | number>, string]>, each: (v: unknown) => boolean): boolean {
  try {
    if (!fields(m, each)) return false
    if (m.lc_kwargs !== null && typeof m.lc_kwargs === 'object' && !fields(m.lc_kwargs, each)) return false
    if (m.data !== null && typeof m.data === 'object' && !fields(m.data, each)) return false
    for (const [path] of list) {
      let at: any = m.content
      for (const step of path) {
        if (at === null || typeof at !== 'object') break
        if (!fields(at, each)) return false
        at = at[step]
      }
    }
    return true
  } catch {
    return false
  }
}

/** The own fields of `o` to `each`: an array's length and elements, an object's key count, keys and values. */
function fields(o: any, each: (v: unknown) => boolean): boolean {
  if (Array.isArray(o)) {
    if (!each(o.length)) return false
    for (let i = 0; i < o.length; i++) if (!each(o[i])) return false
    return true
  }
  const keys = Object.keys(o)
  if (!each(keys.length)) return false
  for (const k of keys) if (!each(k) || !each(o[k])) return false
  return true
}

/** Whether two lists of replacements name the same paths and texts. */
function sameReplacements(a: Array<[Array<string | number>, string]>, b: Array<[Array<string | number>, string]>): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const [p, t] = a[i]
    const [q, u] = b[i]
    if (t !== u || p.length !== q.length) return false
    for (let k = 0; k < p.length; k++) if (p[k] !== q[k]) return false
  }
  return true
}

function isPlain(m: unknown): boolean {
  const proto = m !== null && typeof m === 'object' ? Object.getPrototypeOf(m) : undefined
  return proto === Object.prototype || proto === null
}
