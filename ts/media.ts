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

/** The pixel size in the header of base64 PNG, GIF, JPEG or WebP data, if it can be read. */
export function imageSize(base64: string): { width: number; height: number } | undefined {
  let bytes: Buffer
  try {
    bytes = Buffer.from(base64.slice(0, 87_384), 'base64')
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

function describeImage(
  mime: string | undefined,
  data: string | undefined,
  url: string | undefined,
  block: any,
  formula: ImageTokenFormula,
  detail?: string,
): Media {
  const size =
    typeof block?.width === 'number' && typeof block?.height === 'number' ? { width: block.width, height: block.height } : data ? imageSize(data) : undefined
  const parts = [mime ?? 'image', size ? `${size.width}×${size.height}` : undefined, url && !url.startsWith('data:') ? url.slice(0, 80) : undefined].filter(
    Boolean,
  )
  return {
    kind: 'image',
    what: parts.join(' '),
    tokens: size ? imageTokens(size.width, size.height, formula, detail) : detail === 'low' ? 85 : UNKNOWN_IMAGE_TOKENS,
  }
}

/** The media a content block is, if any (`undefined` for text, tool calls, ...). */
function mediaOf(block: any, formula: ImageTokenFormula): Media | undefined {
  if (block === null || typeof block !== 'object') return undefined
  switch (block.type) {
    case 'image_url': {
      const url = typeof block.image_url === 'string' ? block.image_url : block.image_url?.url
      return describeImage(mimeOfUrl(url), dataOf(url), url, block, formula, block.image_url?.detail)
    }
    case 'image': {
      const src = block.source
      if (src && typeof src === 'object') return describeImage(src.media_type, src.type === 'base64' ? src.data : undefined, src.url, block, formula)
      const url = typeof block.url === 'string' ? block.url : typeof block.image === 'string' && /^(https?:|data:)/.test(block.image) ? block.image : undefined
      const data = typeof block.data === 'string' ? block.data : typeof block.image === 'string' && !url ? block.image : dataOf(url)
      return describeImage(block.mimeType ?? block.mime_type ?? block.mediaType ?? mimeOfUrl(url), data, url, block, formula)
    }
    case 'media':
      return String(block.mediaType ?? '').startsWith('image/')
        ? describeImage(block.mediaType, block.data, undefined, block, formula)
        : { kind: 'document', what: String(block.mediaType ?? 'file'), tokens: Math.ceil(String(block.data ?? '').length / 4) }
    case 'document':
    case 'file':
    case 'input_file': {
      const src = block.source ?? block.file ?? block
      const mime = src.media_type ?? src.mediaType ?? src.mimeType ?? block.mediaType ?? block.mimeType
      if (block.type === 'file' && typeof mime === 'string' && mime.startsWith('image/'))
        return describeImage(mime, dataOf(block.data), undefined, block, formula)
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

/** Where a media block sits: message `index`, then the path of keys inside its content. */
interface Found extends Media {
  index: number
  path: Array<string | number>
}

/** Every media block of `content` (arrays of blocks, `tool_result` / `tool-result` contents). */
function walk(content: unknown, at: Array<string | number>, index: number, formula: ImageTokenFormula, out: Found[]): void {
  if (!Array.isArray(content)) return
  content.forEach((block: any, k) => {
    const media = mediaOf(block, formula)
    if (media) return void out.push({ ...media, index, path: [...at, k] })
    if (block && typeof block === 'object') {
      if (Array.isArray(block.content)) walk(block.content, [...at, k, 'content'], index, formula, out)
      if (Array.isArray(block.output?.value)) walk(block.output.value, [...at, k, 'output', 'value'], index, formula, out)
    }
  })
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
  const formula = options.formula ?? 'openai'
  const template = options.placeholder ?? '[{kind} removed: {what}]'
  const found: Found[] = []
  messages.forEach((m: any, index) => {
    if (!options.skip?.(index)) walk(m?.content, ['content'], index, formula, found)
  })
  const keep = options.keep ?? { media: 3 }
  let kept = 0
  let used = 0
  const cut = new Set<Found>()
  for (let k = found.length - 1; k >= 0; k--) {
    const fits = 'tokens' in keep ? used + found[k].tokens <= keep.tokens && kept === found.length - 1 - k : kept < keep.media
    if (fits) {
      kept++
      used += found[k].tokens
    } else cut.add(found[k])
  }
  const out = [...messages]
  const report: ClearMediaReport = { cleared: [], kept, clearedTokens: 0 }
  for (const f of found) {
    if (!cut.has(f)) continue
    // Functions as replacements: a `$&` or `$'` in a file's name is text, not a pattern.
    const text = template.replaceAll('{kind}', () => f.kind).replaceAll('{what}', () => f.what)
    const m: any = out[f.index]
    const content = replaced(m.content, f.path.slice(1), { type: 'text', text })
    out[f.index] = (isPlain(m) ? { ...m, content } : changed(m, partsOf(m, f.index), { content }, (x) => x)) as T
    report.cleared.push({ index: f.index, path: f.path.join('.'), kind: f.kind, what: f.what, tokens: f.tokens })
    report.clearedTokens += f.tokens
  }
  return { messages: out, report }
}

function isPlain(m: unknown): boolean {
  const proto = m !== null && typeof m === 'object' ? Object.getPrototypeOf(m) : undefined
  return proto === Object.prototype || proto === null
}
