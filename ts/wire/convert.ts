// Caller messages to wire form: one message read in named steps (`readWire`) into a record that
// becomes a wire object (`toWire`) or a row of columns (columns.ts). The memo of conversions and
// whole conversations are in memo.ts. Every read of the caller's objects goes through fields.ts.
//
// Validation is the core's (src/message.rs, crates/core), once, with paths. What is checked here is
// what the core cannot see, each for a reason:
// - the caller's shapes (LangChain, OpenAI, ...) never reach the core: a field of the wrong type
//   there (`tool_calls` not an array, `args` not an object, a role the shapes do not know) is only
//   visible here, and is named by its field in the caller's message, not in wire form;
// - strings are checked for lone UTF-16 surrogates before they cross: napi would replace them by
//   U+FFFD without a word (and emnapi, on WebAssembly, corrupt the text after them);
// - lists are length-checked before they are walked (shapes.ts `checkLength`): a sparse list of
//   length 2**32 - 1 costs nothing to make and minutes to walk;
// - `tokens` supplied by the caller are checked for being numbers here, because napi's own error
//   for a string or an object would name neither the message nor the field.

import { imageTokens, sizeOf, UNKNOWN_IMAGE_TOKENS, type ImageTokenFormula } from '../media.js'
import { ContextEditorError, invalidMessage, unreadable } from '../errors.js'
import type { WireMessage, WireToolCall } from '../native.js'
import { describe, entry, field, hasField, show } from './fields.js'
import { callsLength, jsonLength } from './json-length.js'
import {
  MAX_ITEMS,
  MAX_MESSAGES,
  REASONING_KWARGS,
  THINKING_BLOCKS,
  checkLength,
  checkString,
  isWellFormed,
  metadataOf,
  partsOf,
  stringify,
  textOf,
  type Parts,
} from './shapes.js'

/** What the converter needs to know about the call. */
export interface WireOptions {
  /** Send text (exact counting, summaries) or only lengths (approx counting). */
  sendText: boolean
  /** Send the text of tool results even when `sendText` is off (truncation needs surrogate-safe cuts). */
  sendToolText?: boolean
  /** Placeholders of the clearing edits: an OpenAI tool message whose content equals one is already cleared. */
  placeholders?: ReadonlySet<string>
  /** Memo of conversions for messages seen before (one per editor, whose options fix the rest). */
  cache?: WireCache
  /** Token counts supplied by the caller, per message index. */
  messageTokens?: ReadonlyArray<number | null | undefined>
  /** Send tool-call arguments even when `sendText` is off (`prefer` compares them). */
  sendArgs?: boolean
  /** Ids of the messages the `pin` option names (`pin.ids`): they are sent `pinned`. */
  pinIds?: ReadonlySet<string>
}

const IMAGE_BLOCKS = new Set(['image_url', 'image', 'input_image'])

/**
 * What a message crosses as: its wire fields, read by `readWire` before they are put into a wire
 * object (`toWire`) or into columns (columns.ts, which reuses one record from message to message).
 */
export interface WireParts {
  role: string
  /** The text (string content or text blocks) and the other blocks' JSON. */
  text: string
  other: string
  /** `text` and `other` cross as themselves (else as their lengths). */
  sendText: boolean
  thinkingLength: number
  images: number
  /** Tokens of the images by their provider's formula, when any image's size is known. */
  imageTokens: number | undefined
  calls: readonly CallView[]
  /** The calls' arguments cross as text (else as their lengths). */
  argsText: boolean
  /** `JSON.stringify(tool_calls).length`, when there are calls. */
  toolCallsLength: number
  toolCallId: string | undefined
  name: string | undefined
  cleared: boolean
  truncated: boolean
  clearedToolInputs: string[] | undefined
  pinned: boolean
  tokens: number | undefined
}

const NO_CALLS: readonly CallView[] = Object.freeze([])

/** A record for `readWire` to fill. */
export function newParts(): WireParts {
  return {
    role: '',
    text: '',
    other: '',
    sendText: false,
    thinkingLength: 0,
    images: 0,
    imageTokens: undefined,
    calls: NO_CALLS,
    argsText: false,
    toolCallsLength: 0,
    toolCallId: undefined,
    name: undefined,
    cleared: false,
    truncated: false,
    clearedToolInputs: undefined,
    pinned: false,
    tokens: undefined,
  }
}

/** The payload of a `data:` URL (base64), else `undefined`. */
function dataUrlPayload(url: unknown): unknown {
  return typeof url === 'string' && url.startsWith('data:') ? url.slice(url.indexOf(',') + 1) : undefined
}

/**
 * Tokens of an image block by its provider's formula when its size can be read (the header of
 * base64 data): Anthropic's `w * h / 750` for its `source` blocks, OpenAI's tiles otherwise (85 for
 * `detail: "low"`); `undefined` when the size is unknown. Own fields only, as every read here.
 */
function imageBlockTokens(block: object): number | undefined {
  const type = field(block, 'type')
  // The block's string that holds the data, and how the data is cut from it (see `sizeOf`).
  let raw: unknown
  let cut: ((s: string) => unknown) | undefined
  let detail: unknown
  let formula: ImageTokenFormula = 'openai'
  if (type === 'image_url') {
    const iu = field(block, 'image_url')
    const holder = iu !== null && typeof iu === 'object' ? iu : undefined
    raw = holder ? field(holder, 'url') : iu
    cut = dataUrlPayload
    detail = holder ? field(holder, 'detail') : undefined
  } else if (type === 'input_image') {
    raw = field(block, 'image_url')
    cut = dataUrlPayload
    detail = field(block, 'detail')
  } else {
    const src = field(block, 'source')
    if (src !== null && typeof src === 'object') {
      formula = 'anthropic'
      raw = field(src, 'type') === 'base64' ? field(src, 'data') : undefined
    } else {
      raw = field(block, 'data')
      if (raw == null) {
        raw = field(block, 'url')
        cut = dataUrlPayload
      }
    }
  }
  if (formula === 'openai' && detail === 'low') return 85
  const size = typeof raw === 'string' ? sizeOf(block, raw, cut) : undefined
  return size ? imageTokens(size.width, size.height, formula, typeof detail === 'string' ? detail : undefined) : undefined
}

/**
 * Splits content into text (counted as LangChain does) and everything else (counted by its JSON),
 * into `w`; returns the length of its reasoning blocks' JSON.
 */
function contentInto(content: unknown, i: number, w: WireParts): number {
  w.other = ''
  w.images = 0
  w.imageTokens = undefined
  if (content === undefined || content === null) {
    w.text = ''
    return 0
  }
  if (typeof content === 'string') {
    w.text = checkString(content, i, 'content')
    return 0
  }
  if (!Array.isArray(content)) {
    throw invalidMessage(i, 'content', `expected a string or an array of content blocks, got ${describe(content)}`)
  }
  checkLength(content, MAX_ITEMS, i, 'content', 'content blocks')
  let text = ''
  const other: unknown[] = []
  const thinking: unknown[] = []
  let images = 0
  let imageTokensSum = 0
  let sized = false
  for (let b = 0; b < content.length; b++) {
    const block = entry(content, b)
    if (typeof block === 'string') {
      text += checkItem(block, i, 'content', b)
      continue
    }
    if (block === null || typeof block !== 'object') {
      throw invalidMessage(i, `content[${b}]`, `expected a content block object, got ${describe(block)}`)
    }
    const type = field(block, 'type')
    if (type === 'text' && hasField(block, 'text')) {
      const value = field(block, 'text')
      if (typeof value === 'string') text += checkItem(value, i, 'content', b, '.text')
      continue
    }
    if (IMAGE_BLOCKS.has(type) || (type === 'file' && isImageType(field(block, 'mime_type')))) {
      images++
      const tokens = imageBlockTokens(block)
      sized ||= tokens !== undefined
      imageTokensSum += tokens ?? UNKNOWN_IMAGE_TOKENS
      continue
    }
    if (THINKING_BLOCKS.has(type)) {
      thinking.push(block)
      continue
    }
    // A `tool_use` block that mirrors a tool call is counted once, through `tool_calls`.
    const id = field(block, 'id')
    if (type === 'tool_use' && typeof id === 'string' && mirrors(w.calls, id)) continue
    other.push(block)
  }
  // JSON text needs no lone-surrogate check: `JSON.stringify` writes a lone surrogate as a `\udxxx`
  // escape, so its text is always well-formed (such values cross as JSON, escaped, and are accepted:
  // __test__/lone-surrogate-check.spec.mjs).
  const otherText = other.length ? stringify(other, i, 'content') : ''
  const thinkingText = thinking.length ? stringify(thinking, i, 'content') : ''
  w.text = text
  w.other = otherText
  w.images = images
  if (sized) w.imageTokens = imageTokensSum
  return thinkingText.length
}

/** A file block's MIME type names an image (read without converting it: it may be anything). */
function isImageType(mime: unknown): boolean {
  return typeof mime === 'string' && mime.startsWith('image/')
}

interface CallView {
  id: string
  name: string
  /** The arguments as JSON text, when they cross as text (`WireParts.argsText`); else `''`. */
  args: string
  /** UTF-16 length the arguments occupy inside `JSON.stringify(tool_calls)` (escaped for OpenAI's JSON-text `arguments`). */
  argsLength: number
  /** `args.length` when the call holds its arguments as an object (LangChain), for `callsLength`. */
  objectArgs: number | undefined
}

/** The tool calls of an assistant message, in either representation, into `w.calls`; returns the list as the message holds it. */
function callsInto(p: Parts, i: number, w: WireParts): unknown[] | undefined {
  w.calls = NO_CALLS
  const raw = field(p.fields, 'tool_calls')
  if (raw === undefined || raw === null) return undefined
  if (!Array.isArray(raw)) throw invalidMessage(i, 'tool_calls', `expected an array, got ${describe(raw)}`)
  if (raw.length && p.role !== 'assistant') {
    throw invalidMessage(i, 'tool_calls', `only assistant messages carry tool calls, this one is \`${p.role}\``)
  }
  checkLength(raw, MAX_ITEMS, i, 'tool_calls', 'tool calls')
  if (raw.length === 0) return raw
  // A plain loop, not `map`: a hole is an invalid call, not one to skip.
  const calls: CallView[] = []
  for (let k = 0; k < raw.length; k++) calls.push(callOf(entry(raw, k), i, k, w.argsText))
  w.calls = calls
  return raw
}

/** One tool call, in either representation; `text`: its arguments cross as text (see `CallView.args`). */
function callOf(c: any, i: number, k: number, text: boolean): CallView {
  if (c === null || typeof c !== 'object') throw invalidMessage(i, callAt(k), `expected a tool call object, got ${describe(c)}`)
  const id = field(c, 'id')
  if (typeof id !== 'string' || id === '') throw invalidMessage(i, `${callAt(k)}.id`, `expected a non-empty string, got ${describe(id)}`)
  const fn = field(c, 'function')
  if (fn !== undefined) {
    // OpenAI: { id, type: 'function', function: { name, arguments: '<json>' } }
    if (fn === null || typeof fn !== 'object') throw invalidMessage(i, `${callAt(k)}.function`, `expected an object, got ${describe(fn)}`)
    const fnName = field(fn, 'name')
    const fnArgs = field(fn, 'arguments')
    const name = fnName === undefined ? '' : checkItem(fnName, i, 'tool_calls', k, '.function.name')
    const args = fnArgs === undefined ? '{}' : checkItem(fnArgs, i, 'tool_calls', k, '.function.arguments')
    try {
      JSON.parse(args)
    } catch {
      throw invalidMessage(i, `${callAt(k)}.function.arguments`, 'not valid JSON')
    }
    // Inside `JSON.stringify(tool_calls)` the arguments text is a JSON string: quotes and
    // backslashes are escaped, so clearing it to `{}` frees the escaped length.
    return { id: checkItem(id, i, 'tool_calls', k, '.id'), name, args, argsLength: JSON.stringify(args).length - 2, objectArgs: undefined }
  }
  const given = field(c, 'name')
  const name = given === undefined ? '' : checkItem(given, i, 'tool_calls', k, '.name')
  const value = field(c, 'args')
  if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw invalidMessage(i, `${callAt(k)}.args`, `expected an object, got ${describe(value)}`)
  }
  if (value === undefined) return { id: checkItem(id, i, 'tool_calls', k, '.id'), name, args: '{}', argsLength: 2, objectArgs: undefined }
  // Where only their length crosses, plain arguments are measured, not written out (`jsonLength`:
  // about half the time of stringifying them, and no string to collect); anything else is stringified,
  // with its errors, as where their text crosses: well-formed JSON text whatever they hold (see
  // `contentInto`).
  const length = text ? -1 : jsonLength(value)
  const args = length >= 0 ? '' : stringify(value, i, `${callAt(k)}.args`)
  const n = length >= 0 ? length : args.length
  return { id: checkItem(id, i, 'tool_calls', k, '.id'), name, args, argsLength: n, objectArgs: n }
}

/** The path of tool call `k`, for an error. */
function callAt(k: number): string {
  return `tool_calls[${k}]`
}

/**
 * `checkString` of item `k` of list `list` (`suffix`: a field of it, `.id`…), its path written only
 * for the error: a message read without one makes no string.
 */
function checkItem(v: unknown, i: number, list: string, k: number, suffix = ''): string {
  return typeof v === 'string' && isWellFormed(v) ? v : checkString(v, i, `${list}[${k}]${suffix}`)
}

/**
 * Converts one message to wire form. This is the one place a message's fields become wire fields,
 * in named steps: `partsOf` (shapes.ts) tells the shape and role and where the fields are, then
 * each step reads one concern. A new message format extends `partsOf` (and `kindOf`); a new field
 * is a new step here, and the fields it reads are added to the fingerprint (fingerprint.ts), or a
 * change to them will not be seen on a message converted before, and to `MESSAGE_FIELDS`
 * (locate.ts), so that a getter that throws there is named.
 */
export function toWire(m: unknown, i: number, opts: WireOptions): WireMessage {
  return wireOf(readWire(m, i, opts, newParts()))
}

/**
 * Reads message `i` into `w` (every field of it set): the checks and errors of every wire form,
 * in one order (see `toWire`).
 */
export function readWire(m: unknown, i: number, opts: WireOptions, w: WireParts): WireParts {
  const p = partsOf(m, i)
  w.role = p.role
  w.sendText = opts.sendText || (p.role === 'tool' && opts.sendToolText === true)
  w.argsText = opts.sendText || opts.sendArgs === true
  const raw = callsInto(p, i, w)
  const content = field(p.fields, 'content')
  w.thinkingLength = contentInto(content, i, w) + reasoningLength(p, i)
  w.toolCallsLength = w.calls.length ? toolCallsLength(raw!, i, w.calls) : 0
  idsInto(p, i, w)
  markerInto(p, content, i, opts, w)
  w.tokens = tokensOf(i, opts)
  return w
}

/**
 * `JSON.stringify(tool_calls).length`: LangChain's approx counter stringifies the tool calls exactly
 * as the message holds them. Worked out without the text for plain data (json-length.ts); else, or
 * when reading them throws, stringified, with the errors of stringifying.
 */
function toolCallsLength(raw: unknown[], i: number, calls: readonly CallView[]): number {
  let n: number
  try {
    n = callsLength(raw, calls)
  } catch {
    n = -1
  }
  return n >= 0 ? n : stringify(raw, i, 'tool_calls').length
}

/** The wire message of what `readWire` read. */
export function wireOf(w: WireParts): WireMessage {
  const wire: WireMessage = { role: w.role as WireMessage['role'] }
  if (w.sendText) {
    if (w.text) wire.content = w.text
    if (w.other) wire.other = w.other
  } else {
    if (w.text) wire.contentLength = w.text.length
    if (w.other) wire.otherLength = w.other.length
  }
  if (w.thinkingLength) wire.thinkingLength = w.thinkingLength
  if (w.images) wire.images = w.images
  if (w.imageTokens !== undefined) wire.imageTokens = w.imageTokens
  if (w.calls.length) {
    wire.toolCalls = w.calls.map((c): WireToolCall =>
      w.argsText ? { id: c.id, name: c.name, args: c.args } : { id: c.id, name: c.name, argsLength: c.argsLength },
    )
    wire.toolCallsLength = w.toolCallsLength
  }
  if (w.toolCallId !== undefined) wire.toolCallId = w.toolCallId
  if (w.name !== undefined) wire.name = w.name
  if (w.cleared) wire.cleared = true
  if (w.truncated) wire.truncated = true
  if (w.clearedToolInputs !== undefined) wire.clearedToolInputs = w.clearedToolInputs
  if (w.pinned) wire.pinned = true
  if (w.tokens !== undefined) wire.tokens = w.tokens
  return wire
}

/** Length of the reasoning kept outside the content: DeepSeek-style `reasoning_content`, `additional_kwargs`. */
function reasoningLength(p: Parts, i: number): number {
  let thinking = 0
  // DeepSeek-style OpenAI messages carry `reasoning_content` at the top level.
  const rc = p.shape === 'openai' ? field(p.fields, 'reasoning_content') : undefined
  if (typeof rc === 'string') {
    if (!isWellFormed(rc)) throw invalidMessage(i, 'reasoning_content', 'contains a lone UTF-16 surrogate (not valid Unicode)')
    thinking += rc.length
  }
  const ak = field(p.fields, 'additional_kwargs')
  if (ak !== null && typeof ak === 'object') {
    for (const key of REASONING_KWARGS) {
      const v = field(ak, key)
      if (v === undefined || v === null) continue
      // A string is checked; JSON text is well-formed (see `contentInto`).
      if (typeof v === 'string' && !isWellFormed(v)) throw invalidMessage(i, `additional_kwargs.${key}`, 'contains a lone UTF-16 surrogate (not valid Unicode)')
      thinking += (typeof v === 'string' ? v : stringify(v, i, `additional_kwargs.${key}`)).length
    }
  }
  return thinking
}

/** A tool result's `tool_call_id` (required) and the message's `name`. */
function idsInto(p: Parts, i: number, w: WireParts): void {
  w.toolCallId = undefined
  if (p.role === 'tool') {
    const id = field(p.fields, 'tool_call_id')
    if (id === undefined || id === null || id === '') throw invalidMessage(i, 'tool_call_id', 'tool message without `tool_call_id`')
    w.toolCallId = checkString(id, i, 'tool_call_id')
  }
  const name = field(p.fields, 'name')
  w.name = name !== undefined && name !== null ? checkString(name, i, 'name') : undefined
}

/**
 * What earlier edits left on the message: the `response_metadata.context_editing` marker, or for
 * an OpenAI tool message (which has no metadata), content equal to one of the placeholders.
 */
function markerInto(p: Parts, content: unknown, i: number, opts: WireOptions, w: WireParts): void {
  w.cleared = false
  w.truncated = false
  w.clearedToolInputs = undefined
  const md = metadataOf(p)
  const ce = md === undefined ? undefined : field(md, 'context_editing')
  if (ce && typeof ce === 'object') {
    if (field(ce, 'cleared') === true) w.cleared = true
    if (field(ce, 'truncated') === true) w.truncated = true
    const inputs = field(ce, 'cleared_tool_inputs')
    if (Array.isArray(inputs)) {
      checkLength(inputs, MAX_ITEMS, i, 'response_metadata.context_editing.cleared_tool_inputs', 'ids')
      const ids: string[] = []
      for (let k = 0; k < inputs.length; k++) {
        const id = entry(inputs, k)
        // Checked here, as every string is: the core would see it as JSON text it cannot parse, and
        // name neither the message nor the field.
        if (typeof id === 'string') ids.push(checkItem(id, i, 'response_metadata.context_editing.cleared_tool_inputs', k))
      }
      w.clearedToolInputs = ids
    }
  }
  if (p.shape === 'openai' && p.role === 'tool' && opts.placeholders && typeof content === 'string') {
    if (opts.placeholders.has(content) || namesItsCall(opts.placeholders, content, field(p.fields, 'tool_call_id'))) w.cleared = true
  }
  w.pinned = pinnedByMarker(p, md, ce)
  if (opts.pinIds !== undefined && opts.pinIds.size > 0) {
    const id = field(p.fields, 'id')
    if (typeof id === 'string' && opts.pinIds.has(id)) w.pinned = true
  }
}

/** Whether `content` is a placeholder with a `{tool_call_id}` slot, filled with this result's id. */
function namesItsCall(placeholders: ReadonlySet<string>, content: string, id: unknown): boolean {
  if (typeof id !== 'string') return false
  // A function, not the id itself, as the replacement: `$&`, `$'` or `` $` `` in an id are text (the
  // core fills the slot literally), not patterns.
  for (const p of placeholders) if (p.includes('{tool_call_id}') && p.replaceAll('{tool_call_id}', () => id) === content) return true
  return false
}

/**
 * The pin marker: `pinned: true` in `additional_kwargs`, `response_metadata` (also its
 * `context_editing`), or `metadata` (dicts and other shapes). No edit changes or removes such a
 * message, nor its tool call or results.
 */
function pinnedByMarker(p: Parts, md: Record<string, any> | undefined, ce: unknown): boolean {
  if (md !== undefined && field(md, 'pinned') === true) return true
  if (ce !== null && typeof ce === 'object' && field(ce, 'pinned') === true) return true
  // Two reads, not a loop over a list of keys: this runs for every message of a cold call.
  return pinnedIn(field(p.fields, 'additional_kwargs')) || pinnedIn(field(p.fields, 'metadata'))
}

function pinnedIn(holder: unknown): boolean {
  return holder !== null && typeof holder === 'object' && field(holder, 'pinned') === true
}

/** Whether a `tool_use` block with this id mirrors one of the message's tool calls (a few: a scan, no set to build per message). */
function mirrors(calls: readonly CallView[], id: string): boolean {
  for (const c of calls) if (c.id === id) return true
  return false
}

/** The caller's own token count for the message, when it gave one. */
function tokensOf(i: number, opts: WireOptions): number | undefined {
  const supplied = suppliedTokens(opts, i)
  if (supplied === undefined || supplied === null) return undefined
  if (typeof supplied !== 'number' || !Number.isInteger(supplied) || supplied < 0 || supplied > 0xffffffff) {
    throw invalidMessage(i, 'tokens', `expected a non-negative integer token count, got ${show(supplied)}`)
  }
  return supplied
}

/** The caller's token count for message `i` (`ContextEditor` reads them into an array of its own first). */
export function suppliedTokens(opts: WireOptions, i: number): unknown {
  try {
    return opts.messageTokens?.[i]
  } catch (e) {
    throw unreadable('INVALID_CONTEXT', `context.messageTokens[${i}]`, e, { path: `messageTokens[${i}]` })
  }
}

/**
 * The caller's `messages` read once into an array of our own: what a Proxy's traps or a getter
 * would answer later no longer matters, and a length is checked before anything walks it. The
 * copy ends at the first entry that is not an object: converting stops there with an error anyway,
 * and what follows (in a sparse array, nothing but holes) is never read.
 * @throws {ContextEditorError} `INVALID_MESSAGE` for a non-array, a length over `MAX_MESSAGES`, or
 * an array or entry that cannot be read (`cause` is what was thrown).
 */
export function messageList(messages: unknown): unknown[] {
  let n: number
  try {
    if (!Array.isArray(messages)) {
      throw new ContextEditorError('INVALID_MESSAGE', `messages: expected an array of messages, got ${describe(messages)}`, { path: 'messages' })
    }
    n = messages.length
  } catch (e) {
    throw e instanceof ContextEditorError ? e : unreadable('INVALID_MESSAGE', 'messages', e, { path: 'messages' })
  }
  if (n > MAX_MESSAGES) {
    throw new ContextEditorError(
      'INVALID_MESSAGE',
      `messages: expected at most ${MAX_MESSAGES.toLocaleString('en-US')} messages, got ${n.toLocaleString('en-US')}`,
      { path: 'messages' },
    )
  }
  // Sized up front for a usual history; a longer one (perhaps sparse) grows as it is read.
  const out = new Array<unknown>(Math.min(n, 1 << 16))
  let i = 0
  try {
    for (; i < n; i++) {
      const m = entry(messages, i)
      out[i] = m
      if (m === null || typeof m !== 'object') {
        i++
        break
      }
    }
  } catch (e) {
    throw unreadable('INVALID_MESSAGE', `messages[${i}]`, e, { messageIndex: i })
  }
  out.length = i
  return out
}

/**
 * Per-editor memo of message conversions, keyed by message object, valid while its fingerprint
 * holds. `wire` is made when first asked for: a message that crossed as columns has none yet.
 */
export type WireCache = WeakMap<object, { print: unknown[]; wire: WireMessage | undefined }>

/** Text of a system prompt given as a string, a LangChain `SystemMessage` or an OpenAI message. */
export function systemPromptText(system: unknown): string | undefined {
  if (system === undefined || system === null) return undefined
  if (typeof system === 'string') return system
  if (typeof system === 'object') {
    const content = field(system, 'content')
    if (typeof content === 'string') return content
    // Over `MAX_ITEMS` blocks: not a system prompt (rejected, never walked).
    if (Array.isArray(content) && content.length <= MAX_ITEMS) return textOf(content)
  }
  return undefined
}
