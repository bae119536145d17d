// The only file that knows both shapes: it converts caller messages (LangChain instances from
// @langchain/core 0.3.x or 1.x, LangChain dicts, `StoredMessage` dumps, OpenAI chat-completions
// messages) to wire form, and applies a plan back onto *new* message objects. It never mutates the
// caller's arrays or messages and never uses `instanceof` (a plugin and its host may hold different
// copies of @langchain/core).

import { ContextEditorError, errorText, invalidMessage, unreadable } from './errors.js'
import type { EditPlan, PlanOp, SummaryRequest, WireMessage, WireToolCall } from './native.js'
import { checkSummaryRequest, summaryTextOf } from './summary.js'

/** Any message this package accepts: a LangChain message (instance or dict) or an OpenAI message. */
export type AnyMessage = Record<string, any>

/** Which representation a message is in; the output keeps it. */
export type MessageShape = 'langchain' | 'stored' | 'openai'

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
}

interface Parts {
  shape: MessageShape
  /** The object holding the fields (the message itself, or `data` of a stored message). */
  fields: AnyMessage
  role: string
}

// A Map, not an object literal: a type or role named `constructor` or `__proto__` must not find
// Object.prototype's members.
const LC_TYPES: ReadonlyMap<unknown, string> = new Map([
  ['human', 'user'],
  ['user', 'user'],
  ['ai', 'assistant'],
  ['assistant', 'assistant'],
  ['system', 'system'],
  ['developer', 'system'],
  ['tool', 'tool'],
])

/**
 * Longest conversation accepted. Longer arrays are a mistake, or sparse (`length = 2 ** 32 - 1`
 * costs nothing to make and minutes to walk); they are rejected before anything walks them.
 */
export const MAX_MESSAGES = 10_000_000
/** Most content blocks or tool calls one message may carry, and tool definitions one call may send. */
export const MAX_ITEMS = 100_000

const IMAGE_BLOCKS = new Set(['image_url', 'image', 'input_image'])

function isLangChainInstance(m: AnyMessage): boolean {
  return typeof m._getType === 'function' || (typeof m.lc_kwargs === 'object' && m.lc_kwargs !== null)
}

function describe(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v).slice(0, 40)}`
}

/** A caller's value in an error message: a string as it is, anything else described (never converted, which could throw). */
function show(v: unknown): string {
  return typeof v === 'string' ? v : describe(v)
}

/** Rejects an array longer than `max` before it is walked (see `MAX_MESSAGES`). */
function checkLength(list: readonly unknown[], max: number, i: number, field: string, what: string): void {
  if (list.length > max) {
    throw invalidMessage(i, field, `expected at most ${max.toLocaleString('en-US')} ${what}, got ${list.length.toLocaleString('en-US')}`)
  }
}

function partsOf(m: unknown, i: number): Parts {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    throw invalidMessage(i, 'type', `expected a message object, got ${describe(m)}`)
  }
  const msg = m as AnyMessage
  const unsupported = (type: unknown): ContextEditorError =>
    invalidMessage(i, 'type', `unsupported message type \`${show(type)}\` (expected human, ai, system or tool)`)
  switch (kindOf(msg)) {
    case INSTANCE:
    case GENERIC: {
      let type: unknown = typeof msg._getType === 'function' ? msg._getType() : msg.type
      if (type === 'generic') type = msg.role
      const role = LC_TYPES.get(type)
      if (!role) throw unsupported(type)
      return { shape: 'langchain', fields: msg, role }
    }
    case STORED: {
      const role = LC_TYPES.get(msg.type)
      if (!role) throw unsupported(msg.type)
      return { shape: 'stored', fields: msg.data, role }
    }
    case OPENAI: {
      const role = LC_TYPES.get(msg.role)
      if (!role) {
        throw invalidMessage(i, 'role', `unknown role \`${show(msg.role)}\` (expected system, developer, user, assistant or tool)`)
      }
      return { shape: 'openai', fields: msg, role }
    }
    case DICT: {
      const role = LC_TYPES.get(msg.type)
      if (!role) throw unsupported(msg.type)
      return { shape: 'langchain', fields: msg, role }
    }
    default:
      throw invalidMessage(i, 'role', 'missing `role` (OpenAI) or `type` (LangChain)')
  }
}

function checkString(v: unknown, i: number, field: string): string {
  if (typeof v !== 'string') throw invalidMessage(i, field, `expected a string, got ${describe(v)}`)
  if (!v.isWellFormed()) throw invalidMessage(i, field, 'contains a lone UTF-16 surrogate (not valid Unicode)')
  return v
}

function stringify(v: unknown, i: number, field: string): string {
  let s: string | undefined
  try {
    s = JSON.stringify(v)
  } catch (e) {
    throw new ContextEditorError('INVALID_MESSAGE', `messages[${i}].${field}: not JSON-serializable (${errorText(e)})`, {
      messageIndex: i,
      path: field,
      cause: e,
    })
  }
  if (s === undefined) throw invalidMessage(i, field, `not JSON-serializable (got ${describe(v)})`)
  return s
}

interface ContentParts {
  text: string
  other: string
  thinking: string
  images: number
}

const THINKING_BLOCKS = new Set(['thinking', 'redacted_thinking', 'reasoning'])
/** `additional_kwargs` keys where providers keep reasoning (DeepSeek/Qwen, OpenAI responses). */
const REASONING_KWARGS = ['reasoning_content', 'reasoning'] as const

/** Splits content into text (counted as LangChain does) and everything else (counted by its JSON). */
function contentParts(content: unknown, i: number, mirroredToolUse: ReadonlySet<string>): ContentParts {
  if (content === undefined || content === null) return { text: '', other: '', thinking: '', images: 0 }
  if (typeof content === 'string') return { text: checkString(content, i, 'content'), other: '', thinking: '', images: 0 }
  if (!Array.isArray(content)) {
    throw invalidMessage(i, 'content', `expected a string or an array of content blocks, got ${describe(content)}`)
  }
  checkLength(content, MAX_ITEMS, i, 'content', 'content blocks')
  let text = ''
  const other: unknown[] = []
  const thinking: unknown[] = []
  let images = 0
  for (let b = 0; b < content.length; b++) {
    const block = content[b]
    if (typeof block === 'string') {
      text += checkString(block, i, `content[${b}]`)
      continue
    }
    if (block === null || typeof block !== 'object') {
      throw invalidMessage(i, `content[${b}]`, `expected a content block object, got ${describe(block)}`)
    }
    if (block.type === 'text' && 'text' in block) {
      if (typeof block.text === 'string') text += checkString(block.text, i, `content[${b}].text`)
      continue
    }
    if (IMAGE_BLOCKS.has(block.type) || (block.type === 'file' && isImageType(block.mime_type))) {
      images++
      continue
    }
    if (THINKING_BLOCKS.has(block.type)) {
      thinking.push(block)
      continue
    }
    // A `tool_use` block that mirrors a tool call is counted once, through `tool_calls`.
    if (block.type === 'tool_use' && typeof block.id === 'string' && mirroredToolUse.has(block.id)) continue
    other.push(block)
  }
  const otherText = other.length ? stringify(other, i, 'content') : ''
  if (otherText && !otherText.isWellFormed()) {
    throw invalidMessage(i, 'content', 'contains a lone UTF-16 surrogate (not valid Unicode)')
  }
  const thinkingText = thinking.length ? stringify(thinking, i, 'content') : ''
  if (thinkingText && !thinkingText.isWellFormed()) {
    throw invalidMessage(i, 'content', 'contains a lone UTF-16 surrogate (not valid Unicode)')
  }
  return { text, other: otherText, thinking: thinkingText, images }
}

/** A file block's MIME type names an image (read without converting it: it may be anything). */
function isImageType(mime: unknown): boolean {
  return typeof mime === 'string' && mime.startsWith('image/')
}

interface CallView {
  id: string
  name: string
  args: string
  /** UTF-16 length the arguments occupy inside `JSON.stringify(tool_calls)` (escaped for OpenAI's JSON-text `arguments`). */
  argsLength: number
}

/** The tool calls of an assistant message, in either representation. */
function callsOf(p: Parts, i: number): { calls: CallView[]; raw: unknown[] | undefined } {
  const raw = p.fields.tool_calls
  if (raw === undefined || raw === null) return { calls: [], raw: undefined }
  if (!Array.isArray(raw)) throw invalidMessage(i, 'tool_calls', `expected an array, got ${describe(raw)}`)
  if (raw.length && p.role !== 'assistant') {
    throw invalidMessage(i, 'tool_calls', `only assistant messages carry tool calls, this one is \`${p.role}\``)
  }
  checkLength(raw, MAX_ITEMS, i, 'tool_calls', 'tool calls')
  // A plain loop, not `map`: a hole is an invalid call, not one to skip.
  const calls: CallView[] = []
  for (let k = 0; k < raw.length; k++) calls.push(callOf(raw[k], i, k))
  return { calls, raw }
}

/** One tool call, in either representation. */
function callOf(c: any, i: number, k: number): CallView {
  const at = `tool_calls[${k}]`
  if (c === null || typeof c !== 'object') throw invalidMessage(i, at, `expected a tool call object, got ${describe(c)}`)
  if (typeof c.id !== 'string' || c.id === '') throw invalidMessage(i, `${at}.id`, `expected a non-empty string, got ${describe(c.id)}`)
  if (c.function !== undefined) {
    // OpenAI: { id, type: 'function', function: { name, arguments: '<json>' } }
    const fn = c.function
    if (fn === null || typeof fn !== 'object') throw invalidMessage(i, `${at}.function`, `expected an object, got ${describe(fn)}`)
    const name = fn.name === undefined ? '' : checkString(fn.name, i, `${at}.function.name`)
    const args = fn.arguments === undefined ? '{}' : checkString(fn.arguments, i, `${at}.function.arguments`)
    try {
      JSON.parse(args)
    } catch {
      throw invalidMessage(i, `${at}.function.arguments`, 'not valid JSON')
    }
    // Inside `JSON.stringify(tool_calls)` the arguments text is a JSON string: quotes and
    // backslashes are escaped, so clearing it to `{}` frees the escaped length.
    return { id: checkString(c.id, i, `${at}.id`), name, args, argsLength: JSON.stringify(args).length - 2 }
  }
  const name = c.name === undefined ? '' : checkString(c.name, i, `${at}.name`)
  if (c.args !== undefined && (c.args === null || typeof c.args !== 'object' || Array.isArray(c.args))) {
    throw invalidMessage(i, `${at}.args`, `expected an object, got ${describe(c.args)}`)
  }
  const args = c.args === undefined ? '{}' : stringify(c.args, i, `${at}.args`)
  if (!args.isWellFormed()) throw invalidMessage(i, `${at}.args`, 'contains a lone UTF-16 surrogate (not valid Unicode)')
  return { id: checkString(c.id, i, `${at}.id`), name, args, argsLength: args.length }
}

function metadataOf(p: Parts): Record<string, any> | undefined {
  const md = p.fields.response_metadata
  return md !== null && typeof md === 'object' ? md : undefined
}

/** Converts one message to wire form. */
export function toWire(m: unknown, i: number, opts: WireOptions): WireMessage {
  const p = partsOf(m, i)
  const { calls, raw } = callsOf(p, i)
  const mirrored = new Set(calls.map((c) => c.id))
  const parts = contentParts(p.fields.content, i, mirrored)
  const { text, other, images } = parts
  let thinking = parts.thinking
  // DeepSeek-style OpenAI messages carry `reasoning_content` at the top level.
  if (p.shape === 'openai' && typeof p.fields.reasoning_content === 'string') {
    const rc = p.fields.reasoning_content
    if (!rc.isWellFormed()) throw invalidMessage(i, 'reasoning_content', 'contains a lone UTF-16 surrogate (not valid Unicode)')
    thinking += rc
  }
  const ak = p.fields.additional_kwargs
  if (ak !== null && typeof ak === 'object') {
    for (const key of REASONING_KWARGS) {
      const v = ak[key]
      if (v === undefined || v === null) continue
      const s = typeof v === 'string' ? v : stringify(v, i, `additional_kwargs.${key}`)
      if (!s.isWellFormed()) throw invalidMessage(i, `additional_kwargs.${key}`, 'contains a lone UTF-16 surrogate (not valid Unicode)')
      thinking += s
    }
  }
  const wire: WireMessage = { role: p.role as WireMessage['role'] }
  const sendText = opts.sendText || (p.role === 'tool' && opts.sendToolText === true)
  if (sendText) {
    if (text) wire.content = text
    if (other) wire.other = other
  } else {
    if (text) wire.contentLength = text.length
    if (other) wire.otherLength = other.length
  }
  if (thinking) wire.thinkingLength = thinking.length
  if (images) wire.images = images
  if (calls.length) {
    wire.toolCalls = calls.map((c): WireToolCall =>
      opts.sendText ? { id: c.id, name: c.name, args: c.args } : { id: c.id, name: c.name, argsLength: c.argsLength },
    )
    // LangChain's approx counter stringifies the tool calls exactly as the message holds them.
    wire.toolCallsLength = stringify(raw, i, 'tool_calls').length
  }
  if (p.role === 'tool') {
    const id = p.fields.tool_call_id
    if (id === undefined || id === null || id === '') throw invalidMessage(i, 'tool_call_id', 'tool message without `tool_call_id`')
    wire.toolCallId = checkString(id, i, 'tool_call_id')
  }
  const name = p.fields.name
  if (name !== undefined && name !== null) wire.name = checkString(name, i, 'name')
  const ce = metadataOf(p)?.context_editing
  if (ce && typeof ce === 'object') {
    if (ce.cleared === true) wire.cleared = true
    if (ce.truncated === true) wire.truncated = true
    const inputs = ce.cleared_tool_inputs
    if (Array.isArray(inputs)) {
      checkLength(inputs, MAX_ITEMS, i, 'response_metadata.context_editing.cleared_tool_inputs', 'ids')
      const ids: string[] = []
      for (let k = 0; k < inputs.length; k++) if (typeof inputs[k] === 'string') ids.push(inputs[k])
      wire.clearedToolInputs = ids
    }
  }
  if (p.shape === 'openai' && p.role === 'tool' && opts.placeholders && typeof p.fields.content === 'string') {
    if (opts.placeholders.has(p.fields.content)) wire.cleared = true
  }
  const supplied = suppliedTokens(opts, i)
  if (supplied !== undefined && supplied !== null) {
    if (typeof supplied !== 'number' || !Number.isInteger(supplied) || supplied < 0 || supplied > 0xffffffff) {
      throw invalidMessage(i, 'tokens', `expected a non-negative integer token count, got ${show(supplied)}`)
    }
    wire.tokens = supplied
  }
  return wire
}

/** The caller's token count for message `i` (`ContextEditor` reads them into an array of its own first). */
function suppliedTokens(opts: WireOptions, i: number): unknown {
  try {
    return opts.messageTokens?.[i]
  } catch (e) {
    throw unreadable('INVALID_CONTEXT', `context.messageTokens[${i}]`, e, { path: `messageTokens[${i}]` })
  }
}

/** Converts a whole conversation to wire form. */
export function toWireMessages(messages: unknown, opts: WireOptions): WireMessage[] {
  const list = messageList(messages)
  const out = new Array<WireMessage>(list.length)
  for (let i = 0; i < list.length; i++) out[i] = toWireRemembered(list[i], i, opts)[0]
  return out
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
      const m = messages[i]
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
 * The error for something thrown while message `i` was read or copied. Our own errors pass; what a
 * caller's getter or Proxy trap threw becomes `INVALID_MESSAGE` naming the field that throws (found by
 * reading the message again, field by field), with the thrown value as `cause`. When no field throws
 * again, it was not the message's doing: `INTERNAL`.
 */
export function messageError(e: unknown, i: number, m: unknown): ContextEditorError {
  if (e instanceof ContextEditorError) return e
  const path = throwingPath(m)
  if (path === undefined) return new ContextEditorError('INTERNAL', `messages[${i}]: ${errorText(e)} (a bug in context-editor, please report it)`, { messageIndex: i, cause: e })
  return path === ''
    ? unreadable('INVALID_MESSAGE', `messages[${i}]`, e, { messageIndex: i })
    : unreadable('INVALID_MESSAGE', `messages[${i}].${path}`, e, { messageIndex: i, path })
}

/** Whether calling `f` throws. */
function throws(f: () => unknown): boolean {
  try {
    f()
    return false
  } catch {
    return true
  }
}

/** The fields of a message (or of a stored message's `data`) that conversion or copying reads. */
const MESSAGE_FIELDS = ['content', 'tool_calls', 'response_metadata', 'additional_kwargs', 'name', 'tool_call_id', 'reasoning_content', 'lc_kwargs', 'id']

/**
 * Which of a message's fields throws when read (`''`: the message object itself, e.g. a revoked
 * Proxy), or `undefined` when none does. Runs only after something threw, so it may be thorough.
 */
function throwingPath(m: unknown): string | undefined {
  if (!isObject(m)) return undefined
  const msg = m as AnyMessage
  if (throws(() => Array.isArray(msg))) return ''
  for (const key of ['_getType', 'type', 'role', 'data']) {
    let v: unknown
    if (throws(() => (v = msg[key]))) return key
    if (key === '_getType' && typeof v === 'function' && throws(() => msg._getType())) return 'type'
  }
  const stored = typeof msg.type === 'string' && isObject(msg.data) && !Array.isArray(msg.data)
  const f: AnyMessage = stored ? msg.data : msg
  const prefix = stored ? 'data.' : ''
  if (stored) {
    const inside = throwingBelow(f, 'data', 'data', 0)
    if (inside !== undefined && inside !== 'data') return inside
  }
  for (const key of MESSAGE_FIELDS) {
    let v: unknown
    if (throws(() => (v = f[key]))) return prefix + key
    const below = throwingBelow(v, prefix + key, key, 0)
    if (below !== undefined) return below
  }
  return throwingBelow(msg, '', '', 0)
}

/**
 * What conversion reads inside a message's objects, in its order, by the field holding them (the
 * entries of `content` are blocks, of `tool_calls` calls): own fields or not (a Proxy's traps).
 */
const READ_BELOW: Readonly<Record<string, readonly string[]>> = {
  content: ['type', 'text', 'id', 'mime_type', 'input', 'cache_control'],
  tool_calls: ['id', 'function', 'name', 'args', 'type'],
  function: ['name', 'arguments'],
  response_metadata: ['context_editing'],
  context_editing: ['cleared', 'truncated', 'cleared_tool_inputs', 'strategy'],
  additional_kwargs: ['reasoning_content', 'reasoning', 'tool_calls'],
}

/**
 * `throwingPath` inside the value `v` of field `key`: its prototype, what conversion reads in it,
 * its own fields and entries, a few levels down.
 */
function throwingBelow(v: unknown, path: string, key: string, depth: number): string | undefined {
  if (!isObject(v) || depth > 3) return undefined
  const at = (k: string): string => (path === '' ? k : `${path}.${k}`)
  let keys: string[]
  try {
    Object.getPrototypeOf(v)
    if (Array.isArray(v)) {
      if (v.length > MAX_ITEMS) return undefined
      keys = Array.from({ length: v.length }, (_, k) => String(k))
    } else {
      const read = READ_BELOW[key] ?? []
      for (const k of read) if (throws(() => k in v)) return at(k)
      keys = [...new Set([...read, ...Object.keys(v)])]
    }
  } catch {
    return path
  }
  const isList = Array.isArray(v)
  for (const k of keys.slice(0, MAX_ITEMS)) {
    const where = isList ? `${path}[${k}]` : at(k)
    let x: unknown
    if (throws(() => (x = (v as AnyMessage)[k]))) return where
    // Entries of a list are read as what the list holds (`content` blocks, `tool_calls` calls).
    const below = throwingBelow(x, where, isList ? key : k, depth + 1)
    if (below !== undefined) return below
  }
  return undefined
}

/** Per-editor memo of message conversions, keyed by message object, valid while its fingerprint holds. */
export type WireCache = WeakMap<object, { print: unknown[]; wire: WireMessage }>

/**
 * `toWire` through the editor's memo (`opts.cache`): a message converted before and unchanged since
 * (same fingerprint) is not converted again. Returns the wire form and the message's fingerprint
 * (`undefined` when the memo is bypassed: no memo, or a caller-supplied token count, which depends
 * on the index).
 */
export function toWireRemembered(m: unknown, i: number, opts: WireOptions): [WireMessage, unknown[] | undefined] {
  try {
    return remembered(m, i, opts)
  } catch (e) {
    throw messageError(e, i, m)
  }
}

function remembered(m: unknown, i: number, opts: WireOptions): [WireMessage, unknown[] | undefined] {
  const cache = opts.cache
  if (cache === undefined || !isObject(m) || Array.isArray(m) || suppliedTokens(opts, i) != null) {
    return [toWire(m, i, opts), undefined]
  }
  const hit = cache.get(m)
  if (hit !== undefined && unchanged(m, hit.print)) return [hit.wire, hit.print]
  const wire = toWire(m, i, opts)
  const print = fingerprint(m)!
  // The message changed since `hit`: a conversation still holding that fingerprint must not pass
  // its check should the message come back to how it was (one fingerprint per message is live).
  if (hit !== undefined) stale(hit.print)
  cache.set(m, { print, wire })
  return [wire, print]
}

/**
 * Forgets what the memo knows of `m` and fails every check of it from now on: the caller changed
 * it in a way the check cannot see (see `ContextEditor.invalidate`).
 */
export function forgetMessage(cache: WireCache, m: unknown): void {
  if (!isObject(m)) return
  const hit = cache.get(m)
  if (hit !== undefined) stale(hit.print)
  cache.delete(m)
}

// ---------------------------------------------------------------------------------------------
// Fingerprints: has a message seen before changed?
//
// A fingerprint is a flat array: a header (the message's kind and what its fields hold), a fixed
// head of top-level fields, then what hangs below them (the `context_editing` marker, reasoning
// kwargs, each content block and tool call), in an order where each entry depends only on entries
// before it. A check re-reads the same values and stops at the first difference.
//
// The check runs over the whole held history on every call, where nearly every load misses the
// cache, so it is written to touch little memory and run few instructions per message:
// - the kind is decided once, when the fingerprint is taken: a check reads only the fields the
//   conversion of that kind reads (no `_getType` call, no misses on fields a LangChain message never
//   has), and each kind has its own check function, so inline caches see a few classes;
// - a LangChain instance's fields are all loaded before any comparison: one class check covers
//   them and their cache misses overlap;
// - strings (and `args` objects) are compared with `Object.is`, whose identical-pointer case reads
//   nothing (`===` on two strings first loads their headers: a cache miss per message);
// - the header says which fields are objects or arrays (their identity is compared, so that cannot
//   change) and whether `response_metadata` and `additional_kwargs` held none of the keys the
//   conversion reads, the usual case: then the check only asks that they still hold none.
// What the check does not read is not seen: changes inside a tool call's `args`, other fields of a
// block, a call or the message. The README states this list as the contract; the caller declares
// other changes with `ContextEditor.invalidate` (see `stale`). Reading every field of every message,
// block and call measured 6-10x this check on the benchmark history.

const isObject = (v: unknown): v is AnyMessage => v !== null && typeof v === 'object'

// Kinds (the header's low bits), as `partsOf` tells them apart.
/** A LangChain instance: type from `_getType()` (1.x: the own `type` field; 0.3: the class). */
const INSTANCE = 0
/** A LangChain `ChatMessage` (type `generic`): `role` says what it is. */
const GENERIC = 1
/** A LangChain dict: `{ type, content, ... }` (a `data` object would make it a stored message). */
const DICT = 2
/** A `StoredMessage`: `{ type, data: { content, ... } }`. */
const STORED = 3
/** An OpenAI message: `{ role, content, ... }`, no `type`, top-level `reasoning_content`. */
const OPENAI = 4
/** Anything else (conversion rejects it): every field any kind reads. */
const OTHER = 5
/** A fingerprint that no message passes any more (see `stale`). */
const STALE = 6
const KIND_BITS = 7
// Header flags.
/** `response_metadata` is an object without `context_editing` (no entries). */
const NO_MARKER = 8
/** `response_metadata` is an object with `context_editing` (entries: it, and its fields if an object). */
const HAS_MARKER = 16
/** `additional_kwargs` is an object without reasoning (no entries). */
const NO_REASONING = 32
/** `additional_kwargs` is an object with reasoning (entries: `reasoning_content`, `reasoning`). */
const HAS_REASONING = 64
/** `content` is an array (entries: its length, each block and its fields). */
const BLOCKS = 128
/** `tool_calls` is an array (entries: its length, each call and its fields). */
const CALL_LIST = 256

// The head: one slot per top-level field; a kind that does not read a field leaves it undefined.
const HEADER = 0
const TYPE = 1
const ROLE = 2
const DATA = 3
const CONTENT = 4
const CALLS = 5
const METADATA = 6
const KWARGS = 7
const NAME = 8
const CALL_ID = 9
const REASONING = 10
const HEAD = 11

function kindOf(m: AnyMessage): number {
  if (isLangChainInstance(m)) {
    const type = typeof m._getType === 'function' ? m._getType() : m.type
    return type === 'generic' ? GENERIC : INSTANCE
  }
  if (typeof m.type === 'string' && isObject(m.data) && !Array.isArray(m.data)) return STORED
  if (typeof m.role === 'string' && m.type === undefined) return OPENAI
  return typeof m.type === 'string' ? DICT : OTHER
}

/** A message's fingerprint; `undefined` for a non-object. */
export function fingerprint(m: unknown): unknown[] | undefined {
  if (!isObject(m) || Array.isArray(m)) return undefined
  const kind = kindOf(m)
  const f: AnyMessage = kind === STORED ? m.data : m
  const md = f.response_metadata
  const ak = f.additional_kwargs
  const content = f.content
  const calls = f.tool_calls
  const fp: unknown[] = [
    kind,
    // `type` decides the kind of every shape (1.x instances hold it; 0.3 ones have none, harmlessly).
    m.type,
    kind === GENERIC || kind === OPENAI || kind === OTHER ? m.role : undefined,
    kind === DICT || kind === STORED || kind === OTHER ? m.data : undefined,
    content,
    calls,
    md,
    ak,
    f.name,
    f.tool_call_id,
    kind === OPENAI || kind === OTHER ? f.reasoning_content : undefined,
  ]
  let header = kind
  if (isObject(md)) {
    const ce = md.context_editing
    if (ce === undefined) header |= NO_MARKER
    else {
      header |= HAS_MARKER
      fp.push(ce)
      if (isObject(ce)) fp.push(ce.cleared, ce.truncated, ce.cleared_tool_inputs)
    }
  }
  if (isObject(ak)) {
    if (ak.reasoning_content === undefined && ak.reasoning === undefined) header |= NO_REASONING
    else {
      header |= HAS_REASONING
      fp.push(ak.reasoning_content, ak.reasoning)
    }
  }
  // Conversion rejects longer lists; should a getter hand out another one here, never pass.
  if ((Array.isArray(content) && content.length > MAX_ITEMS) || (Array.isArray(calls) && calls.length > MAX_ITEMS)) return [STALE]
  if (Array.isArray(content)) {
    header |= BLOCKS
    fp.push(content.length)
    for (let i = 0; i < content.length; i++) {
      const b = content[i]
      fp.push(b)
      if (!isObject(b)) continue
      fp.push(b.type, b.text, b.id)
      // `text: undefined` counts nothing, no `text` at all counts the block's JSON.
      if (b.type === 'text' && b.text === undefined) fp.push('text' in b)
      // A file block is an image or not by its MIME type.
      if (b.type === 'file') fp.push(b.mime_type)
    }
  }
  if (Array.isArray(calls)) {
    header |= CALL_LIST
    fp.push(calls.length)
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i]
      fp.push(c)
      if (!isObject(c)) continue
      const fn = c.function
      fp.push(c.id, c.name, c.args, fn)
      if (isObject(fn)) fp.push(fn.name, fn.arguments)
    }
  }
  fp[HEADER] = header
  // An exact-size copy: the history's fingerprints are read on every call, so they should be small.
  return fp.slice()
}

/** Makes `fp` fail every check from now on (its message changed in a way the check cannot see). */
function stale(fp: unknown[]): void {
  fp[HEADER] = STALE
}

/** Whether `m` still has the fingerprint `fp` taken earlier. */
export function unchanged(m: unknown, fp: readonly unknown[] | undefined): boolean {
  return headUnchanged(m, fp) && belowUnchanged(fp!)
}

/** The message's own fields (the fingerprint's head). */
function headUnchanged(m: unknown, fp: readonly unknown[] | undefined): boolean {
  if (fp === undefined || !isObject(m) || Array.isArray(m)) return false
  switch ((fp[HEADER] as number) & KIND_BITS) {
    case INSTANCE:
    case GENERIC:
      return instanceUnchanged(m, fp)
    case STORED:
      return storedUnchanged(m, fp)
    case STALE:
      return false
    default:
      return plainUnchanged(m, fp)
  }
}

function instanceUnchanged(m: AnyMessage, fp: readonly unknown[]): boolean {
  const content = m.content
  const calls = m.tool_calls
  const md = m.response_metadata
  const ak = m.additional_kwargs
  const name = m.name
  const id = m.tool_call_id
  const type = m.type
  return (
    Object.is(content, fp[CONTENT]) &&
    calls === fp[CALLS] &&
    md === fp[METADATA] &&
    ak === fp[KWARGS] &&
    Object.is(name, fp[NAME]) &&
    Object.is(id, fp[CALL_ID]) &&
    // Type names are a few shared strings: `===` is cheap here.
    type === fp[TYPE] &&
    (((fp[HEADER] as number) & KIND_BITS) !== GENERIC || Object.is(m.role, fp[ROLE]))
  )
}

function storedUnchanged(m: AnyMessage, fp: readonly unknown[]): boolean {
  const type = m.type
  const f = m.data
  if (!(Object.is(type, fp[TYPE]) && f === fp[DATA])) return false
  return (
    Object.is(f.content, fp[CONTENT]) &&
    Object.is(f.tool_calls, fp[CALLS]) &&
    Object.is(f.response_metadata, fp[METADATA]) &&
    Object.is(f.additional_kwargs, fp[KWARGS]) &&
    Object.is(f.name, fp[NAME]) &&
    Object.is(f.tool_call_id, fp[CALL_ID])
  )
}

/** Dicts, OpenAI messages and the rest: plain objects, whose extra top-level reads are cheap. */
function plainUnchanged(m: AnyMessage, fp: readonly unknown[]): boolean {
  const kind = (fp[HEADER] as number) & KIND_BITS
  return (
    Object.is(m.type, fp[TYPE]) &&
    Object.is(m.content, fp[CONTENT]) &&
    Object.is(m.tool_calls, fp[CALLS]) &&
    Object.is(m.response_metadata, fp[METADATA]) &&
    Object.is(m.additional_kwargs, fp[KWARGS]) &&
    Object.is(m.name, fp[NAME]) &&
    Object.is(m.tool_call_id, fp[CALL_ID]) &&
    (kind === DICT || Object.is(m.role, fp[ROLE])) &&
    (kind === OPENAI || Object.is(m.data, fp[DATA])) &&
    (kind === DICT || Object.is(m.reasoning_content, fp[REASONING]))
  )
}

/**
 * What hangs below the head's objects, read through the fingerprint's references to them (the
 * head check has found the message still holds them), against the entries after the head.
 */
function belowUnchanged(fp: readonly unknown[]): boolean {
  const header = fp[HEADER] as number
  if (header & NO_MARKER && (fp[METADATA] as AnyMessage).context_editing !== undefined) return false
  if (header & NO_REASONING) {
    const ak = fp[KWARGS] as AnyMessage
    if (ak.reasoning_content !== undefined || ak.reasoning !== undefined) return false
  }
  let k = HEAD
  if (header & (HAS_MARKER | HAS_REASONING | BLOCKS)) {
    k = unchangedRare(fp, header)
    if (k < 0) return false
  }
  if (header & CALL_LIST) {
    const calls = fp[CALLS] as unknown[]
    const n = calls.length
    if (n !== fp[k++]) return false
    for (let i = 0; i < n; i++) {
      const c = fp[k++]
      if (calls[i] !== c) return false
      if (!isObject(c)) continue
      const fn = c.function
      const id = c.id
      const name = c.name
      const args = c.args
      if (!(Object.is(id, fp[k++]) && Object.is(name, fp[k++]) && Object.is(args, fp[k++]) && fn === fp[k++])) return false
      if (isObject(fn) && !(Object.is(fn.name, fp[k++]) && Object.is(fn.arguments, fp[k++]))) return false
    }
  }
  return k === fp.length
}

/** The entries of a marker, reasoning kwargs and content blocks: where the calls' entries start, or -1 on a difference. */
function unchangedRare(fp: readonly unknown[], header: number): number {
  const md = fp[METADATA] as AnyMessage
  const ak = fp[KWARGS] as AnyMessage
  const content = fp[CONTENT] as unknown[]
  let k = HEAD
  if (header & HAS_MARKER) {
    const ce = md.context_editing
    if (!Object.is(ce, fp[k++])) return -1
    if (
      isObject(ce) &&
      !(Object.is(ce.cleared, fp[k++]) && Object.is(ce.truncated, fp[k++]) && Object.is(ce.cleared_tool_inputs, fp[k++]))
    ) {
      return -1
    }
  }
  if (header & HAS_REASONING && !(Object.is(ak.reasoning_content, fp[k++]) && Object.is(ak.reasoning, fp[k++]))) {
    return -1
  }
  if (header & BLOCKS) {
    const n = content.length
    if (n !== fp[k++]) return -1
    for (let i = 0; i < n; i++) {
      const b = fp[k++]
      if (!Object.is(content[i], b)) return -1
      if (!isObject(b)) continue
      const type = b.type
      if (!(Object.is(type, fp[k++]) && Object.is(b.text, fp[k++]) && Object.is(b.id, fp[k++]))) return -1
      if (type === 'text' && b.text === undefined && 'text' in b !== fp[k++]) return -1
      if (type === 'file' && !Object.is(b.mime_type, fp[k++])) return -1
    }
  }
  return k
}

// ---------------------------------------------------------------------------------------------
// Applying a plan
//
// A changed message is a copy: the same prototype (class), every own field, and only the edited
// fields different. Fields are copied as data, by assignment only where no setter can run: an own
// `"__proto__"` key (e.g. from `JSON.parse`) is a field to copy, not the copy's prototype, and a
// setter of the class must not run. A field that conversion reads or that a copy must carry, when the original gets it
// from its prototype (a getter, say an OpenAI message class whose `role` reads a private field), is
// kept on the copy as its own field if the copy would not read the same. Nested objects that an edit
// changes (`response_metadata`, a tool call, a content block) are copied the same way.
//
// `seal` freezes every object an edit creates, when the editor shares copies between calls (see
// `ApplyOptions.freeze`); the caller's objects inside them are never frozen (that would change them).

type Seal = <T>(o: T) => T
const keepOpen: Seal = (o) => o
const seal: Seal = (o) => Object.freeze(o)

interface ProtoInfo {
  /**
   * Keys whose assignment on an instance would run a setter of the chain. (Getters without a
   * setter and read-only fields make an assignment throw instead: then the copy is made field by field.)
   */
  guarded: PropertyKey[]
  /** Of each list of kept fields (see `KEPT`), those the chain provides (getters, methods, prototype fields). */
  inherited: Map<readonly string[], string[]>
}

const protoInfos = new WeakMap<object, ProtoInfo>()

/**
 * Fields a copy must read as the original does, wherever the original keeps them: what conversion
 * reads and what edits copy, by the kind of object copied. (Only these: a LangChain message's
 * derived getters, `text` or `contentBlocks`, cost a walk of its content and need no keeping.)
 */
const KEPT = {
  message: [
    '_getType',
    'role',
    'type',
    'content',
    'tool_calls',
    'tool_call_id',
    'name',
    'id',
    'response_metadata',
    'additional_kwargs',
    'data',
    'reasoning_content',
    'lc_kwargs',
  ],
  metadata: ['context_editing', 'cleared', 'truncated', 'cleared_tool_inputs', 'strategy', 'reasoning_content', 'reasoning', 'tool_calls'],
  block: ['type', 'text', 'id', 'mime_type', 'input', 'cache_control'],
  call: ['id', 'name', 'args', 'function', 'type', 'arguments'],
} as const satisfies Record<string, readonly string[]>

type Kept = (typeof KEPT)[keyof typeof KEPT]

/** What copying an instance of `proto` must know about its chain, found once per prototype. */
function infoOf(proto: object): ProtoInfo {
  let info = protoInfos.get(proto)
  if (info === undefined) {
    const guarded: PropertyKey[] = []
    for (let p: object | null = proto; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
      for (const key of Reflect.ownKeys(p)) {
        const d = Object.getOwnPropertyDescriptor(p, key)
        if (d?.set !== undefined) guarded.push(key)
      }
    }
    info = { guarded, inherited: new Map() }
    protoInfos.set(proto, info)
  }
  return info
}

/** The fields of `kept` that instances of `proto` get from their prototype chain. */
function inheritedOf(proto: object, info: ProtoInfo, kept: Kept): string[] {
  let list = info.inherited.get(kept)
  if (list === undefined) {
    list = kept.filter((key) => key in proto)
    info.inherited.set(kept, list)
  }
  return list
}

function define(o: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true })
}

/**
 * Sets a field on a copy we made, as data: by assignment where that cannot reach a setter (an own
 * field, or a plain or prototype-less object and a key other than `__proto__`), defined otherwise.
 */
function setField(o: object, key: string, value: unknown): void {
  if (key !== '__proto__' && (Object.hasOwn(o, key) || isPlainProto(Object.getPrototypeOf(o)))) (o as AnyMessage)[key] = value
  else define(o, key, value)
}

function isPlainProto(proto: unknown): boolean {
  return proto === Object.prototype || proto === null
}

const isEnumerable = Object.prototype.propertyIsEnumerable

/**
 * A shallow copy that keeps the prototype (class identity) and every own enumerable field, as data;
 * `kept` are the fields it must read as `src` does even when they come from the prototype.
 */
function copyOf<T extends object>(src: T, kept: Kept = KEPT.message): T {
  const proto = Object.getPrototypeOf(src)
  // A plain object: spreading defines each field (an own `__proto__` stays a field).
  if (proto === Object.prototype) return { ...src }
  // Without a prototype there is no setter for an assignment to find.
  if (proto === null) return Object.assign(Object.create(null) as T, src)
  const info = infoOf(proto)
  const copy = assigned(proto, info, src) ?? fieldByField(proto, src)
  for (const key of inheritedOf(proto, info, kept)) if (!Object.hasOwn(src, key)) keepInherited(copy as AnyMessage, src as AnyMessage, key)
  return copy
}

/** `Object.assign` onto a new instance of `proto`, when that defines exactly `src`'s fields; else undefined. */
function assigned<T extends object>(proto: object, info: ProtoInfo, src: T): T | undefined {
  if (Object.hasOwn(src, '__proto__')) return undefined
  for (const key of info.guarded) if (Object.hasOwn(src, key)) return undefined
  try {
    return Object.assign(Object.create(proto) as T, src)
  } catch {
    // A getter without a setter, or a read-only field, of the same name on the chain.
    return undefined
  }
}

function fieldByField<T extends object>(proto: object, src: T): T {
  const copy = Object.create(proto) as T
  for (const key of Reflect.ownKeys(src)) if (isEnumerable.call(src, key)) define(copy, key, (src as AnyMessage)[key as string])
  return copy
}

/** Makes the copy read `key` as `src` does, as its own field if its prototype would answer otherwise. */
function keepInherited(copy: AnyMessage, src: AnyMessage, key: string): void {
  if (key === '_getType') {
    if (typeof src._getType !== 'function') return
    const type: unknown = src._getType()
    // A method, like the class's: not an enumerable field.
    if (!readsSame(() => copy._getType(), type)) Object.defineProperty(copy, key, { value: () => type, writable: true, configurable: true })
    return
  }
  const value: unknown = src[key]
  if (!readsSame(() => copy[key], value)) define(copy, key, value)
}

function readsSame(read: () => unknown, want: unknown): boolean {
  try {
    return Object.is(read(), want)
  } catch {
    return false
  }
}

/** A copy of `src` with `fields` set (as data). */
function withFields<T extends object>(src: T, fields: Record<string, unknown>, kept: Kept = KEPT.message): T {
  const copy = copyOf(src, kept)
  for (const key of Object.keys(fields)) setField(copy, key, fields[key])
  return copy
}

/**
 * Sets `fields` on a message copy; for LangChain instances also on (a copy of) `lc_kwargs`, which
 * serialization reads. `drop` fields become undefined (and leave `lc_kwargs`).
 */
function patch(copy: AnyMessage, fields: Record<string, unknown>, close: Seal, drop: readonly string[] = []): void {
  const kwargs = isObject(copy.lc_kwargs) && !Array.isArray(copy.lc_kwargs) ? copyOf(copy.lc_kwargs, KEPT.metadata) : undefined
  for (const key of Object.keys(fields)) {
    setField(copy, key, fields[key])
    if (kwargs) setField(kwargs, key, fields[key])
  }
  for (const key of drop) {
    if (key in copy) setField(copy, key, undefined)
    if (kwargs) delete kwargs[key]
  }
  if (kwargs) setField(copy, 'lc_kwargs', close(kwargs))
}

/** The copy of message `m` (in the shape `p` says) with `fields` changed; `close` the new objects. */
function changed(m: AnyMessage, p: Parts, fields: Record<string, unknown>, close: Seal, drop: readonly string[] = []): AnyMessage {
  if (p.shape === 'stored') {
    const data = withFields(p.fields, fields)
    for (const key of drop) delete data[key]
    return close(withFields(m, { data: close(data) }))
  }
  const copy = copyOf(m)
  patch(copy, fields, close, drop)
  return close(copy)
}

/** `list`, checked again before an edit walks it (a getter may hand out another array than conversion saw). */
function listOf(list: unknown, i: number, field: string): unknown[] {
  if (!Array.isArray(list)) throw invalidMessage(i, field, `expected an array, got ${describe(list)}`)
  checkLength(list, MAX_ITEMS, i, field, 'entries')
  return list
}

/** `list.map(f)` into a plain array (the caller's array class, through `map`'s species, is never called). */
function mapList(list: readonly unknown[], f: (x: any, k: number) => unknown): unknown[] {
  const out = new Array<unknown>(list.length)
  for (let k = 0; k < list.length; k++) out[k] = f(list[k], k)
  return out
}

/** `list.filter(f)` into a plain array. */
function filterList(list: readonly unknown[], f: (x: any, k: number) => boolean): unknown[] {
  const out: unknown[] = []
  for (let k = 0; k < list.length; k++) if (f(list[k], k)) out.push(list[k])
  return out
}

/** The `context_editing` marker a copy starts from: the message's own when it is an object. */
function markerOf(md: AnyMessage): AnyMessage {
  const ce = md.context_editing
  return isObject(ce) && !Array.isArray(ce) ? ce : {}
}

/** An OpenAI call with its `function.arguments` emptied. */
function withoutArguments(c: AnyMessage, close: Seal): AnyMessage {
  return close(withFields(c, { function: close(withFields(c.function, { arguments: '{}' }, KEPT.call)) }, KEPT.call))
}

function clearedResult(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const placeholder = op.placeholder ?? '[cleared]'
  if (p.shape === 'openai') return close(withFields(m, { content: placeholder }))
  // Replaced, not merged: LangChain writes exactly `{ cleared, strategy }` (SEMANTICS §2 rule 4).
  const context_editing = close({ cleared: true, strategy: op.strategy ?? 'clear_tool_uses' })
  const response_metadata = close(withFields(metadataOf(p) ?? {}, { context_editing }, KEPT.metadata))
  return changed(m, p, { content: placeholder, response_metadata }, close, ['artifact'])
}

function clearedInputs(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const positions = new Set(op.callIndices ?? [])
  const ids = new Set(op.toolCallIds ?? [])
  const tool_calls = close(
    mapList(listOf(p.fields.tool_calls, i, 'tool_calls'), (c, k) => {
      if (!positions.has(k)) return c
      return c.function !== undefined ? withoutArguments(c, close) : close(withFields(c, { args: close({}) }, KEPT.call))
    }),
  )
  if (p.shape === 'openai') return close(withFields(m, { tool_calls }))
  const fields: Record<string, unknown> = { tool_calls }
  const md = metadataOf(p) ?? {}
  const inputs = close([...(op.clearedToolInputs ?? [...ids].sort())])
  const context_editing = close(withFields(markerOf(md), { cleared_tool_inputs: inputs }, KEPT.metadata))
  fields.response_metadata = close(withFields(md, { context_editing }, KEPT.metadata))
  // Anthropic-format content: the `tool_use` block of a cleared call loses its input too.
  const content = p.fields.content
  if (Array.isArray(content)) {
    let emptied = false
    const next = mapList(listOf(content, i, 'content'), (b) => {
      if (isObject(b) && b.type === 'tool_use' && ids.has(b.id)) {
        emptied = true
        return close(withFields(b, { input: close({}) }, KEPT.block))
      }
      return b
    })
    if (emptied) fields.content = close(next)
  }
  // Provider-raw OpenAI calls kept by @langchain/core 0.3 in `additional_kwargs.tool_calls`.
  const ak = p.fields.additional_kwargs
  if (isObject(ak) && Array.isArray(ak.tool_calls)) {
    const raw = listOf(ak.tool_calls, i, 'additional_kwargs.tool_calls')
    const emptied = mapList(raw, (c) => (isObject(c) && ids.has(c.id) && isObject(c.function) ? withoutArguments(c, close) : c))
    fields.additional_kwargs = close(withFields(ak, { tool_calls: close(emptied) }, KEPT.metadata))
  }
  return changed(m, p, fields, close)
}

/** The text of a message's content: the string, or its text blocks joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  if (content.length > MAX_ITEMS) {
    throw new ContextEditorError('INVALID_MESSAGE', `content: expected at most ${MAX_ITEMS.toLocaleString('en-US')} content blocks, got ${content.length.toLocaleString('en-US')}`, {
      path: 'content',
    })
  }
  let text = ''
  for (let k = 0; k < content.length; k++) {
    const b = content[k]
    if (typeof b === 'string') text += b
    else if (isObject(b) && b.type === 'text' && typeof b.text === 'string') text += b.text
  }
  return text
}

function truncatedResult(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  let head = textOf(p.fields.content).slice(0, op.keep ?? 0)
  // Never end on the first half of a surrogate pair.
  const last = head.charCodeAt(head.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1)
  const content = head + (op.marker ?? '')
  if (p.shape === 'openai') return close(withFields(m, { content }))
  const md = metadataOf(p) ?? {}
  const context_editing = close(withFields(markerOf(md), { truncated: true, strategy: op.strategy ?? 'truncate_tool_results' }, KEPT.metadata))
  return changed(m, p, { content, response_metadata: close(withFields(md, { context_editing }, KEPT.metadata)) }, close)
}

function withoutThinking(m: AnyMessage, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const fields: Record<string, unknown> = {}
  const content = p.fields.content
  if (Array.isArray(content)) {
    fields.content = close(filterList(listOf(content, i, 'content'), (b) => !(isObject(b) && THINKING_BLOCKS.has(b.type))))
  }
  const ak = p.fields.additional_kwargs
  if (isObject(ak) && REASONING_KWARGS.some((k) => k in ak)) {
    const rest = copyOf(ak, KEPT.metadata)
    for (const k of REASONING_KWARGS) delete rest[k]
    fields.additional_kwargs = close(rest)
  }
  if (p.shape === 'openai') {
    const out = withFields(m, fields)
    delete out.reasoning_content
    return close(out)
  }
  return changed(m, p, fields, close)
}

function withoutCalls(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const positions = new Set(op.callIndices ?? [])
  const ids = new Set(op.toolCallIds ?? [])
  const tool_calls = close(filterList(listOf(p.fields.tool_calls, i, 'tool_calls'), (_, k) => !positions.has(k)))
  if (p.shape === 'openai') {
    const out = withFields(m, { tool_calls })
    // OpenAI rejects an empty `tool_calls` array.
    if (tool_calls.length === 0) delete out.tool_calls
    return close(out)
  }
  const fields: Record<string, unknown> = { tool_calls }
  const content = p.fields.content
  if (Array.isArray(content)) {
    fields.content = close(filterList(listOf(content, i, 'content'), (b) => !(isObject(b) && b.type === 'tool_use' && ids.has(b.id))))
  }
  const ak = p.fields.additional_kwargs
  if (isObject(ak) && Array.isArray(ak.tool_calls)) {
    const kept = filterList(listOf(ak.tool_calls, i, 'additional_kwargs.tool_calls'), (c) => !(isObject(c) && ids.has(c.id)))
    fields.additional_kwargs = close(withFields(ak, { tool_calls: close(kept) }, KEPT.metadata))
  }
  return changed(m, p, fields, close)
}

// ---------------------------------------------------------------------------------------------
// Prompt-cache breakpoints (Anthropic `cache_control`)

const EPHEMERAL = Object.freeze({ type: 'ephemeral' })

function hasCacheControl(x: unknown): boolean {
  return x !== null && typeof x === 'object' && (x as AnyMessage).cache_control != null
}

/** `cache_control` markers in a message's content blocks (or on the message itself). */
function cacheControlsOf(fields: AnyMessage | undefined): number {
  if (!fields || typeof fields !== 'object') return 0
  let n = hasCacheControl(fields) ? 1 : 0
  const content = fields.content
  // A longer list is rejected by conversion (after this count): never walk it here.
  if (Array.isArray(content) && content.length <= MAX_ITEMS) for (let k = 0; k < content.length; k++) if (hasCacheControl(content[k])) n++
  return n
}

/**
 * Prompt-cache breakpoints a request already carries: `cache_control` on content blocks of the
 * messages and the system message, and on tool definitions (Anthropic allows 4 per request).
 * @throws {ContextEditorError} when a getter or Proxy trap of a message or the context throws.
 */
export function countCacheBreakpoints(messages: unknown, systemPrompt?: unknown, tools?: ReadonlyArray<unknown> | null): number {
  let n = 0
  if (Array.isArray(messages) && messages.length <= MAX_MESSAGES) {
    for (let k = 0; k < messages.length; k++) {
      const m = messages[k]
      if (m === null || typeof m !== 'object') continue
      try {
        const fields = typeof m.type === 'string' && m.data && typeof m.data === 'object' ? m.data : m
        n += cacheControlsOf(fields)
      } catch (e) {
        throw messageError(e, k, m)
      }
    }
  }
  if (systemPrompt !== null && typeof systemPrompt === 'object') {
    try {
      n += cacheControlsOf(systemPrompt as AnyMessage)
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', 'context.systemPrompt', e, { path: 'systemPrompt' })
    }
  }
  if (Array.isArray(tools) && tools.length <= MAX_ITEMS) {
    for (let k = 0; k < tools.length; k++) {
      try {
        if (hasCacheControl(tools[k])) n++
      } catch (e) {
        throw unreadable('INVALID_CONTEXT', `context.tools[${k}]`, e, { path: `tools[${k}]` })
      }
    }
  }
  return n
}

/**
 * Marks the last content block with `cache_control: { type: 'ephemeral' }` (a string content
 * becomes one text block). OpenAI-shaped messages, empty contents and a last block that is
 * reasoning (Anthropic rejects breakpoints there) or already marked are left as they are.
 */
function withCacheBreakpoint(m: AnyMessage, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  if (p.shape === 'openai') return m
  const content = p.fields.content
  let next: unknown[]
  if (typeof content === 'string') {
    if (content === '') return m
    next = [close({ type: 'text', text: content, cache_control: EPHEMERAL })]
  } else if (Array.isArray(content) && content.length > 0) {
    const blocks = listOf(content, i, 'content')
    const last = blocks[blocks.length - 1]
    if (hasCacheControl(last)) return m
    if (typeof last === 'string') {
      if (last === '') return m
      next = filterList(blocks, (_, k) => k < blocks.length - 1)
      next.push(close({ type: 'text', text: last, cache_control: EPHEMERAL }))
    } else if (isObject(last) && !THINKING_BLOCKS.has(last.type)) {
      next = filterList(blocks, (_, k) => k < blocks.length - 1)
      next.push(close(withFields(last, { cache_control: EPHEMERAL }, KEPT.block)))
    } else {
      return m
    }
  } else {
    return m
  }
  return changed(m, p, { content: close(next) }, close)
}

/** What `applyPlan` should do with a summary the plan asks for. */
export interface ApplyOptions {
  /**
   * The summary text from the model; without it, or when it is blank, the messages a summary
   * would replace are kept.
   * @throws {ContextEditorError} `INVALID_SUMMARY` (path `summary`) for a lone UTF-16 surrogate.
   */
  summary?: string
  /**
   * Cleared copies made by earlier calls, by original message: a message cleared the same way
   * again gets the same copy back instead of a new one (an agent's history is cleared again on
   * every model call). Used only below `memoBelow`.
   */
  memo?: ClearedMemo
  /** Messages below this index are known unchanged since the memo's copies were made. */
  memoBelow?: number
  /**
   * The fingerprint of each message as this call found it (see `toWireRemembered`): a memo's copy
   * is taken only when it was made from the very same fingerprint (a change seen since, by any
   * call, made a new one), and new copies are remembered with theirs. Without it, `memoBelow` says.
   */
  memoPrints?: ReadonlyArray<unknown[] | undefined>
  /**
   * The output for `messages[0..upTo)` when it is already known: the first `length` entries of
   * `messages` (an earlier output, for the same objects and the same operations). `rest`, when
   * given, stands for the plan's operations from `upTo` on.
   */
  prefix?: { messages: readonly unknown[]; length: number; upTo: number; rest?: readonly PlanOp[] }
  /**
   * Freeze the objects the edits create (each copied message and the new objects inside it; never
   * the caller's own): copies handed out again by later calls (from `memo` or a reused `prefix`,
   * which imply it) must not change when one caller's result is changed.
   */
  freeze?: boolean
}

/** Cleared copies by original message (see `ApplyOptions.memo`). */
export type ClearedMemo = WeakMap<object, { placeholder: string; strategy: string; copy: AnyMessage; print?: unknown[] }>

/** A summary message in the shape (and, for LangChain instances, the class) of the conversation. */
function summaryMessage(messages: readonly AnyMessage[], request: SummaryRequest, summary: string): AnyMessage {
  const content = `${request.prefix}\n\n${summary}`
  const additional_kwargs = { lc_source: 'summarization' }
  const lcType = request.role === 'user' ? 'human' : 'ai'
  const sample = messages[request.insertAt]
  const p = partsOf(sample, request.insertAt)
  if (p.shape === 'openai') return { role: request.role, content }
  if (p.shape === 'stored') return { type: lcType, data: { content, additional_kwargs, response_metadata: {} } }
  if (isLangChainInstance(sample)) {
    // Reuse the conversation's own class for the role, so the output stays one @langchain/core copy.
    const peer = messages.find((m, k) => isLangChainInstance(m) && partsOf(m, k).role === request.role)
    if (peer) return new (peer.constructor as new (fields: object) => AnyMessage)({ content, additional_kwargs })
  }
  return { type: lcType, content, additional_kwargs }
}

/**
 * Applies a plan to the caller's messages: a new array; unchanged messages are the same objects,
 * changed ones are new objects of the same class with only the edited fields different. Several
 * operations for one index apply in the order given.
 */
export function applyPlan<T extends AnyMessage>(
  messages: readonly T[],
  plan: Pick<EditPlan, 'ops'> & { summary?: SummaryRequest | null },
  options: ApplyOptions = {},
): T[] {
  checkMessages(messages)
  if (options.prefix === undefined && plan.ops.length === 0) return messages.slice()
  const step = applier(messages, plan, options)
  step(messages.length)
  return step.out
}

/** `applyPlan`'s messages: an array it may walk (its entries are the caller's business). */
function checkMessages(messages: readonly unknown[]): void {
  if (!Array.isArray(messages)) {
    throw new ContextEditorError('INVALID_MESSAGE', `messages: expected an array of messages, got ${describe(messages)}`, { path: 'messages' })
  }
  if (messages.length > MAX_MESSAGES) {
    throw new ContextEditorError(
      'INVALID_MESSAGE',
      `messages: expected at most ${MAX_MESSAGES.toLocaleString('en-US')} messages, got ${messages.length.toLocaleString('en-US')}`,
      { path: 'messages' },
    )
  }
}

/**
 * `applyPlan` in pieces of `piece` messages, calling `pause` (e.g. a yield to the event loop)
 * between them, for histories long enough that applying a plan at once would stall a server.
 */
export async function applyPlanInPieces<T extends AnyMessage>(
  messages: readonly T[],
  plan: Pick<EditPlan, 'ops'> & { summary?: SummaryRequest | null },
  options: ApplyOptions,
  piece: number,
  pause: () => Promise<void>,
): Promise<T[]> {
  checkMessages(messages)
  if (options.prefix === undefined && plan.ops.length === 0) return messages.slice()
  const step = applier(messages, plan, options)
  for (let end = piece; ; end += piece) {
    step(Math.min(end, messages.length))
    if (end >= messages.length) return step.out
    await pause()
  }
}

/** A stateful application of `plan`: each call applies the messages up to `end`. */
function applier<T extends AnyMessage>(
  messages: readonly T[],
  plan: Pick<EditPlan, 'ops'> & { summary?: SummaryRequest | null },
  options: ApplyOptions,
): ((end: number) => void) & { out: T[] } {
  const request = plan.summary ?? undefined
  // A request that does not fit these messages would drop them without writing the summary.
  if (request !== undefined) checkSummaryRequest(request, messages.length)
  // A summary with no text never replaces history (kept, as without one); a value that cannot be a
  // summary is the summarizer's error (`summaryTextOf`), never blamed on a message.
  const summary = request !== undefined && options.summary !== undefined ? summaryTextOf(options.summary) : ''
  const summarize = request !== undefined && summary !== ''
  const kept = new Set(request && !summarize ? request.replaced : [])
  // Operations come sorted by index (several for one index in the order given): walk them with a
  // cursor; sort a copy only if a caller's hand-made plan is out of order.
  let ops = options.prefix?.rest ?? plan.ops
  for (let k = 1; k < ops.length; k++) {
    if (ops[k].index < ops[k - 1].index) {
      ops = ops.map((op, at) => ({ op, at })).sort((a, b) => a.op.index - b.op.index || a.at - b.at).map((x) => x.op)
      break
    }
  }
  const { memo, memoBelow = 0, memoPrints, prefix } = options
  const close = options.freeze || memo !== undefined || prefix !== undefined ? seal : keepOpen
  const out = (prefix === undefined ? [] : prefix.messages.slice(0, prefix.length)) as T[]
  let i = prefix?.upTo ?? 0
  let c = 0
  const step = (end: number): void => {
    try {
      apply(end)
    } catch (e) {
      throw messageError(e, i, messages[i])
    }
  }
  const apply = (end: number): void => {
    for (; i < end; i++) {
      if (summarize && request.insertAt === i) out.push(summaryMessage(messages, request, summary) as T)
      while (c < ops.length && ops[c].index < i) c++
      if (c >= ops.length || ops[c].index !== i) {
        out.push(messages[i])
        continue
      }
      let m: AnyMessage = messages[i]
      const first = ops[c]
      const single = c + 1 >= ops.length || ops[c + 1].index !== i
      if (memo !== undefined && single && first.type === 'clear_tool_result') {
        c++
        const placeholder = first.placeholder ?? '[cleared]'
        const strategy = first.strategy ?? 'clear_tool_uses'
        const print = memoPrints?.[i]
        const hit = memoPrints !== undefined ? (print !== undefined ? memo.get(m) : undefined) : i < memoBelow ? memo.get(m) : undefined
        if (hit !== undefined && hit.placeholder === placeholder && hit.strategy === strategy && hit.print === print) {
          out.push(hit.copy as T)
          continue
        }
        const copy = clearedResult(m, first, i, close)
        memo.set(m, { placeholder, strategy, copy, print })
        out.push(copy as T)
        continue
      }
      let removed = false
      for (; c < ops.length && ops[c].index === i; c++) {
        const op = ops[c]
        if (op.type === 'remove') removed ||= !kept.has(i)
        else if (op.type === 'clear_tool_result') m = clearedResult(m, op, i, close)
        else if (op.type === 'truncate_tool_result') m = truncatedResult(m, op, i, close)
        else if (op.type === 'remove_thinking') m = withoutThinking(m, i, close)
        else if (op.type === 'clear_tool_inputs') m = clearedInputs(m, op, i, close)
        else if (op.type === 'remove_tool_calls') m = withoutCalls(m, op, i, close)
        else if (op.type === 'cache_breakpoint') m = withCacheBreakpoint(m, i, close)
      }
      if (!removed) out.push(m as T)
    }
  }
  return Object.assign(step, { out })
}

/** Text of a system prompt given as a string, a LangChain `SystemMessage` or an OpenAI message. */
export function systemPromptText(system: unknown): string | undefined {
  if (system === undefined || system === null) return undefined
  if (typeof system === 'string') return system
  if (typeof system === 'object') {
    const content = (system as AnyMessage).content
    if (typeof content === 'string') return content
    // Over `MAX_ITEMS` blocks: not a system prompt (rejected, never walked).
    if (Array.isArray(content) && content.length <= MAX_ITEMS) return textOf(content)
  }
  return undefined
}
