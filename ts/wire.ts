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

// ---------------------------------------------------------------------------------------------
// Object.prototype pollution
//
// A field a message lacks is read through its prototype chain, which ends at Object.prototype: a
// key someone put there (`Object.prototype.role = 'tool'`, by a bug or an attack) would become a
// field of every message, block and call that lacks one. Reads of the caller's objects go through
// `field` (and `hasField`, `entry`), which take what the object holds and what its class gives
// it, never what Object.prototype holds beyond its standard members. Unpolluted (the case that
// matters for speed), they are plain reads: whether Object.prototype is polluted is checked once
// per call (`notePollution`).

const OBJECT_PROTOTYPE = Object.prototype
/** The members every Object.prototype has; any other key on it is pollution. */
const STANDARD_MEMBERS: ReadonlySet<PropertyKey> = new Set([
  'constructor',
  '__defineGetter__',
  '__defineSetter__',
  'hasOwnProperty',
  '__lookupGetter__',
  '__lookupSetter__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toString',
  'valueOf',
  '__proto__',
  'toLocaleString',
])
let polluted = false

/**
 * Checks Object.prototype for keys beyond its standard members (see above). Every entry point
 * calls it before it reads the caller's objects.
 */
export function notePollution(): boolean {
  const keys = Reflect.ownKeys(OBJECT_PROTOTYPE)
  polluted = keys.length !== STANDARD_MEMBERS.size || keys.some((k) => !STANDARD_MEMBERS.has(k))
  return polluted
}

/** Whether Object.prototype held keys beyond its standard members at the last check. */
export function isPolluted(): boolean {
  return polluted
}

/** Whether reading `key` on `o` would find it on Object.prototype, not on `o` or its class. */
function fromObjectPrototype(o: object, key: PropertyKey): boolean {
  if (Object.hasOwn(o, key)) return false
  for (let p = Object.getPrototypeOf(o); p !== null; p = Object.getPrototypeOf(p)) {
    if (p === OBJECT_PROTOTYPE) return true
    if (Object.hasOwn(p, key)) return false
  }
  return false
}

/** `o[key]` as the object and its class hold it (see above). */
export function field(o: any, key: string): any {
  return polluted && fromObjectPrototype(o, key) ? undefined : o[key]
}

/** `key in o`, as the object and its class hold it. */
export function hasField(o: object, key: string): boolean {
  return key in o && !(polluted && fromObjectPrototype(o, key))
}

/** `list[k]`: a hole is empty, whatever a prototype holds at that index. */
function entry(list: readonly unknown[], k: number): any {
  return polluted && !Object.hasOwn(list, k) ? undefined : list[k]
}

/** A field of an object of our own (a plan, a report, parsed JSON): its own, never an inherited one. */
export function own(o: any, key: string): any {
  return Object.hasOwn(o, key) ? o[key] : undefined
}

function isLangChainInstance(m: AnyMessage): boolean {
  if (typeof field(m, '_getType') === 'function') return true
  const kwargs = field(m, 'lc_kwargs')
  return typeof kwargs === 'object' && kwargs !== null
}

/** The LangChain type of message `m`: `_getType()` where it has one, else its `type`. */
function typeOf(m: AnyMessage): unknown {
  const getType = field(m, '_getType')
  return typeof getType === 'function' ? getType.call(m) : field(m, 'type')
}

function describe(v: unknown): string {
  if (v === null) return 'null'
  if (isList(v)) return 'an array'
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v).slice(0, 40)}`
}

/** `Array.isArray(v)` for an error message: a revoked Proxy (where it throws) is no list. */
export function isList(v: unknown): boolean {
  try {
    return Array.isArray(v)
  } catch {
    return false
  }
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
      let type = typeOf(msg)
      if (type === 'generic') type = field(msg, 'role')
      const role = LC_TYPES.get(type)
      if (!role) throw unsupported(type)
      return { shape: 'langchain', fields: msg, role }
    }
    case STORED: {
      const type = field(msg, 'type')
      const role = LC_TYPES.get(type)
      if (!role) throw unsupported(type)
      return { shape: 'stored', fields: field(msg, 'data'), role }
    }
    case OPENAI: {
      const given = field(msg, 'role')
      const role = LC_TYPES.get(given)
      if (!role) {
        throw invalidMessage(i, 'role', `unknown role \`${show(given)}\` (expected system, developer, user, assistant or tool)`)
      }
      return { shape: 'openai', fields: msg, role }
    }
    case DICT: {
      const type = field(msg, 'type')
      const role = LC_TYPES.get(type)
      if (!role) throw unsupported(type)
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

/**
 * `JSON.stringify(v)`, except that a `toJSON` someone put on Object.prototype is not called (see
 * `field`): the text of the caller's own data (and of ours) stays what it is.
 */
export function jsonText(v: unknown): string | undefined {
  return polluted && Object.hasOwn(OBJECT_PROTOTYPE, 'toJSON') ? jsonOf(v, '', []) : JSON.stringify(v)
}

/** `JSON.stringify`'s serialization of `value` (found under `key`), with `toJSON` read through `field`. */
function jsonOf(value: unknown, key: string, stack: object[]): string | undefined {
  if (value !== null && typeof value === 'object') {
    const toJSON = field(value, 'toJSON')
    if (typeof toJSON === 'function') value = toJSON.call(value, key)
  }
  if (value instanceof Number) value = Number(value)
  else if (value instanceof String) value = String(value)
  else if (value instanceof Boolean) value = value.valueOf()
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null'
    case 'boolean':
      return value ? 'true' : 'false'
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt')
    case 'object':
      break
    default:
      return undefined
  }
  if (value === null) return 'null'
  const o = value as AnyMessage
  if (stack.includes(o)) throw new TypeError('Converting circular structure to JSON')
  stack.push(o)
  let text: string
  if (Array.isArray(o)) {
    const parts: string[] = []
    for (let k = 0; k < o.length; k++) parts.push(jsonOf(o[k], String(k), stack) ?? 'null')
    text = `[${parts.join(',')}]`
  } else {
    const parts: string[] = []
    for (const k of Object.keys(o)) {
      const s = jsonOf(o[k], k, stack)
      if (s !== undefined) parts.push(`${JSON.stringify(k)}:${s}`)
    }
    text = `{${parts.join(',')}}`
  }
  stack.pop()
  return text
}

function stringify(v: unknown, i: number, field: string): string {
  let s: string | undefined
  try {
    s = jsonText(v)
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
    const block = entry(content, b)
    if (typeof block === 'string') {
      text += checkString(block, i, `content[${b}]`)
      continue
    }
    if (block === null || typeof block !== 'object') {
      throw invalidMessage(i, `content[${b}]`, `expected a content block object, got ${describe(block)}`)
    }
    const type = field(block, 'type')
    if (type === 'text' && hasField(block, 'text')) {
      const value = field(block, 'text')
      if (typeof value === 'string') text += checkString(value, i, `content[${b}].text`)
      continue
    }
    if (IMAGE_BLOCKS.has(type) || (type === 'file' && isImageType(field(block, 'mime_type')))) {
      images++
      continue
    }
    if (THINKING_BLOCKS.has(type)) {
      thinking.push(block)
      continue
    }
    // A `tool_use` block that mirrors a tool call is counted once, through `tool_calls`.
    const id = field(block, 'id')
    if (type === 'tool_use' && typeof id === 'string' && mirroredToolUse.has(id)) continue
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
  const raw = field(p.fields, 'tool_calls')
  if (raw === undefined || raw === null) return { calls: [], raw: undefined }
  if (!Array.isArray(raw)) throw invalidMessage(i, 'tool_calls', `expected an array, got ${describe(raw)}`)
  if (raw.length && p.role !== 'assistant') {
    throw invalidMessage(i, 'tool_calls', `only assistant messages carry tool calls, this one is \`${p.role}\``)
  }
  checkLength(raw, MAX_ITEMS, i, 'tool_calls', 'tool calls')
  // A plain loop, not `map`: a hole is an invalid call, not one to skip.
  const calls: CallView[] = []
  for (let k = 0; k < raw.length; k++) calls.push(callOf(entry(raw, k), i, k))
  return { calls, raw }
}

/** One tool call, in either representation. */
function callOf(c: any, i: number, k: number): CallView {
  const at = `tool_calls[${k}]`
  if (c === null || typeof c !== 'object') throw invalidMessage(i, at, `expected a tool call object, got ${describe(c)}`)
  const id = field(c, 'id')
  if (typeof id !== 'string' || id === '') throw invalidMessage(i, `${at}.id`, `expected a non-empty string, got ${describe(id)}`)
  const fn = field(c, 'function')
  if (fn !== undefined) {
    // OpenAI: { id, type: 'function', function: { name, arguments: '<json>' } }
    if (fn === null || typeof fn !== 'object') throw invalidMessage(i, `${at}.function`, `expected an object, got ${describe(fn)}`)
    const fnName = field(fn, 'name')
    const fnArgs = field(fn, 'arguments')
    const name = fnName === undefined ? '' : checkString(fnName, i, `${at}.function.name`)
    const args = fnArgs === undefined ? '{}' : checkString(fnArgs, i, `${at}.function.arguments`)
    try {
      JSON.parse(args)
    } catch {
      throw invalidMessage(i, `${at}.function.arguments`, 'not valid JSON')
    }
    // Inside `JSON.stringify(tool_calls)` the arguments text is a JSON string: quotes and
    // backslashes are escaped, so clearing it to `{}` frees the escaped length.
    return { id: checkString(id, i, `${at}.id`), name, args, argsLength: JSON.stringify(args).length - 2 }
  }
  const given = field(c, 'name')
  const name = given === undefined ? '' : checkString(given, i, `${at}.name`)
  const value = field(c, 'args')
  if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    throw invalidMessage(i, `${at}.args`, `expected an object, got ${describe(value)}`)
  }
  const args = value === undefined ? '{}' : stringify(value, i, `${at}.args`)
  if (!args.isWellFormed()) throw invalidMessage(i, `${at}.args`, 'contains a lone UTF-16 surrogate (not valid Unicode)')
  return { id: checkString(id, i, `${at}.id`), name, args, argsLength: args.length }
}

function metadataOf(p: Parts): Record<string, any> | undefined {
  const md = field(p.fields, 'response_metadata')
  return md !== null && typeof md === 'object' ? md : undefined
}

/** Converts one message to wire form. */
export function toWire(m: unknown, i: number, opts: WireOptions): WireMessage {
  const p = partsOf(m, i)
  const { calls, raw } = callsOf(p, i)
  const mirrored = new Set(calls.map((c) => c.id))
  const content = field(p.fields, 'content')
  const parts = contentParts(content, i, mirrored)
  const { text, other, images } = parts
  let thinking = parts.thinking
  // DeepSeek-style OpenAI messages carry `reasoning_content` at the top level.
  const rc = p.shape === 'openai' ? field(p.fields, 'reasoning_content') : undefined
  if (typeof rc === 'string') {
    if (!rc.isWellFormed()) throw invalidMessage(i, 'reasoning_content', 'contains a lone UTF-16 surrogate (not valid Unicode)')
    thinking += rc
  }
  const ak = field(p.fields, 'additional_kwargs')
  if (ak !== null && typeof ak === 'object') {
    for (const key of REASONING_KWARGS) {
      const v = field(ak, key)
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
    const id = field(p.fields, 'tool_call_id')
    if (id === undefined || id === null || id === '') throw invalidMessage(i, 'tool_call_id', 'tool message without `tool_call_id`')
    wire.toolCallId = checkString(id, i, 'tool_call_id')
  }
  const name = field(p.fields, 'name')
  if (name !== undefined && name !== null) wire.name = checkString(name, i, 'name')
  const md = metadataOf(p)
  const ce = md === undefined ? undefined : field(md, 'context_editing')
  if (ce && typeof ce === 'object') {
    if (field(ce, 'cleared') === true) wire.cleared = true
    if (field(ce, 'truncated') === true) wire.truncated = true
    const inputs = field(ce, 'cleared_tool_inputs')
    if (Array.isArray(inputs)) {
      checkLength(inputs, MAX_ITEMS, i, 'response_metadata.context_editing.cleared_tool_inputs', 'ids')
      const ids: string[] = []
      for (let k = 0; k < inputs.length; k++) {
        const id = entry(inputs, k)
        if (typeof id === 'string') ids.push(id)
      }
      wire.clearedToolInputs = ids
    }
  }
  if (p.shape === 'openai' && p.role === 'tool' && opts.placeholders && typeof content === 'string') {
    if (opts.placeholders.has(content)) wire.cleared = true
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

/**
 * Converts a whole conversation to wire form. `opts` is read once (`undefined`: lengths only).
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming an option of the wrong kind or one that
 * cannot be read (`INVALID_CONTEXT` for `messageTokens`), `INVALID_MESSAGE` naming the message.
 */
export function toWireMessages(messages: unknown, opts?: WireOptions | null): WireMessage[] {
  notePollution()
  const options = wireOptionsOf(opts)
  const list = messageList(messages)
  const out = new Array<WireMessage>(list.length)
  for (let i = 0; i < list.length; i++) out[i] = toWireRemembered(list[i], i, options)[0]
  return out
}

/** `toWireMessages`' options, read once into options of our own. */
function wireOptionsOf(opts: unknown): WireOptions {
  // Every field its own: nothing is read from a key put on Object.prototype.
  const out: WireOptions = { sendText: false, sendToolText: false, placeholders: undefined, cache: undefined, messageTokens: undefined }
  if (opts === undefined || opts === null) return out
  const fail = (path: string, what: string, cause?: unknown): ContextEditorError =>
    new ContextEditorError('INVALID_OPTIONS', `${path}: ${what}`, cause === undefined ? { path } : { path, cause })
  const read = <V>(path: string, get: () => V): V => {
    try {
      return get()
    } catch (e) {
      throw fail(path, `could not be read (${errorText(e)})`, e)
    }
  }
  if (typeof opts !== 'object') throw fail('options', `expected an object, got ${describe(opts)}`)
  const flag = (key: string): boolean => {
    const v = read(key, () => field(opts, key))
    if (v !== undefined && v !== null && typeof v !== 'boolean') throw fail(key, `expected a boolean, got ${describe(v)}`)
    return v === true
  }
  out.sendText = flag('sendText')
  out.sendToolText = flag('sendToolText')
  const placeholders = read('placeholders', () => field(opts, 'placeholders'))
  if (placeholders !== undefined && placeholders !== null) {
    const list = read('placeholders', () => (placeholders instanceof Set ? [...placeholders] : Array.isArray(placeholders) ? [...placeholders] : undefined))
    if (list === undefined || list.length > MAX_ITEMS || list.some((p) => typeof p !== 'string')) {
      throw fail('placeholders', 'expected a Set (or an array) of placeholder strings')
    }
    out.placeholders = new Set(list as string[])
  }
  const cache = read('cache', () => field(opts, 'cache'))
  if (cache !== undefined && cache !== null) {
    if (!read('cache', () => cache instanceof WeakMap)) throw fail('cache', `expected a WeakMap, got ${describe(cache)}`)
    out.cache = cache as WireCache
  }
  const counts = read('messageTokens', () => field(opts, 'messageTokens'))
  if (counts !== undefined && counts !== null) out.messageTokens = countsOf(counts) as Array<number | null | undefined>
  return out
}

/** `messageTokens` given to `toWireMessages`, read once (as `ContextEditor` reads its context's). */
function countsOf(counts: unknown): Array<unknown> {
  const fail = (path: string, what: string, cause?: unknown): ContextEditorError =>
    new ContextEditorError('INVALID_CONTEXT', `context.${path}: ${what}`, cause === undefined ? { path } : { path, cause })
  let n: number
  try {
    if (!Array.isArray(counts)) throw fail('messageTokens', 'expected an array of token counts (one per message)')
    n = counts.length
  } catch (e) {
    throw e instanceof ContextEditorError ? e : unreadable('INVALID_CONTEXT', 'context.messageTokens', e, { path: 'messageTokens' })
  }
  if (n > MAX_MESSAGES) throw fail('messageTokens', `expected at most ${MAX_MESSAGES.toLocaleString('en-US')} counts, got ${n.toLocaleString('en-US')}`)
  const out = new Array<unknown>(n)
  for (let k = 0; k < n; k++) {
    try {
      out[k] = entry(counts, k)
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', `context.messageTokens[${k}]`, e, { path: `messageTokens[${k}]` })
    }
  }
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
  if (isLangChainInstance(m)) return typeOf(m) === 'generic' ? GENERIC : INSTANCE
  const type = field(m, 'type')
  if (typeof type === 'string') {
    const data = field(m, 'data')
    return isObject(data) && !Array.isArray(data) ? STORED : DICT
  }
  return typeof field(m, 'role') === 'string' && type === undefined ? OPENAI : OTHER
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
// `seal` freezes every object an edit creates inside a copy (its `response_metadata`, the marker, new
// `content` or `tool_calls` arrays, blocks, calls and their `args`), when the editor shares them
// between calls (see `ApplyOptions.freeze`); the caller's objects inside them are never frozen (that
// would change them). The message object itself, a LangChain message's `lc_kwargs` and a stored
// message's `data` are never frozen: LangChain's constructors write into the object they are given
// (`new AIMessage(m)` sets `m.tool_calls`, `mapStoredMessagesToChatMessages` hands `data` to one)
// and LangGraph's messages reducer gives a message without an id one (`m.id = …`,
// `m.lc_kwargs.id = …`). So the editor keeps its copies as private templates and hands each caller
// a fresh shell of them (`handOut`): the message object (and its `lc_kwargs` or `data`) is the
// caller's own, what is inside is frozen and shared.

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
  // What Object.prototype holds beyond its standard members is no field of any class (see `field`).
  if (polluted) return kept.filter((key) => hasField(proto, key))
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
 * field, or a plain or prototype-less object and a key other than `__proto__`, while nothing was
 * put on Object.prototype, where it could be a setter or read-only), defined otherwise.
 */
function setField(o: object, key: string, value: unknown): void {
  if (key !== '__proto__' && (Object.hasOwn(o, key) || (!polluted && isPlainProto(Object.getPrototypeOf(o))))) (o as AnyMessage)[key] = value
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
  // A setter put on Object.prototype would run too.
  if (polluted || Object.hasOwn(src, '__proto__')) return undefined
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
  const lcKwargs = field(copy, 'lc_kwargs')
  const kwargs = isObject(lcKwargs) && !Array.isArray(lcKwargs) ? copyOf(lcKwargs, KEPT.metadata) : undefined
  for (const key of Object.keys(fields)) {
    setField(copy, key, fields[key])
    if (kwargs) setField(kwargs, key, fields[key])
  }
  for (const key of drop) {
    if (hasField(copy, key)) setField(copy, key, undefined)
    if (kwargs) delete kwargs[key]
  }
  // Frozen like the rest unless the message has no id: LangGraph's reducer writes the id it gives
  // such a message here too (each caller then gets its own, see `handOut`).
  if (kwargs) setField(copy, 'lc_kwargs', field(copy, 'id') == null ? kwargs : close(kwargs))
}

/**
 * The copy of message `m` (in the shape `p` says) with `fields` changed (`close` them). The copy
 * itself, its `lc_kwargs` and a stored message's `data` stay open (see `handOut`).
 */
function changed(m: AnyMessage, p: Parts, fields: Record<string, unknown>, close: Seal, drop: readonly string[] = []): AnyMessage {
  if (p.shape === 'stored') {
    const data = withFields(p.fields, fields)
    for (const key of drop) delete data[key]
    return withFields(m, { data })
  }
  const copy = copyOf(m)
  patch(copy, fields, close, drop)
  return copy
}

/**
 * A fresh shell of `template`, a copy the editor keeps to hand out again (see the section's
 * comment): the message object, a LangChain message's `lc_kwargs` or a stored message's `data`
 * copied anew, everything inside shared (the edit froze what it created).
 */
function handOut<T extends AnyMessage>(template: T): T {
  // The template was copied from the caller's message (`copyOf`): the fields it needs from its
  // class are its own already, so a shell is its own fields on the same prototype.
  const proto = Object.getPrototypeOf(template)
  const copy: T =
    proto === Object.prototype
      ? { ...template }
      : proto === null
        ? Object.assign(Object.create(null), template)
        : (assigned(proto, infoOf(proto), template) ?? fieldByField(proto, template))
  // A `_getType` the template keeps as its own method (see `keepInherited`), not an enumerable field.
  if (Object.hasOwn(template, '_getType') && !isEnumerable.call(template, '_getType')) {
    Object.defineProperty(copy, '_getType', Object.getOwnPropertyDescriptor(template, '_getType')!)
  }
  const kwargs = field(template, 'lc_kwargs')
  if (isObject(kwargs) && !Array.isArray(kwargs)) {
    // Shared when frozen (a message with an id, see `patch`).
    if (!Object.isFrozen(kwargs)) setField(copy, 'lc_kwargs', copyOf(kwargs, KEPT.metadata))
  } else if (kindOf(template) === STORED) {
    setField(copy, 'data', copyOf(field(template, 'data')))
  }
  return copy
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
  const ce = field(md, 'context_editing')
  return isObject(ce) && !Array.isArray(ce) ? ce : {}
}

/** An OpenAI call with its `function.arguments` emptied. */
function withoutArguments(c: AnyMessage, close: Seal): AnyMessage {
  return close(withFields(c, { function: close(withFields(field(c, 'function'), { arguments: '{}' }, KEPT.call)) }, KEPT.call))
}

function clearedResult(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const placeholder = own(op, 'placeholder') ?? '[cleared]'
  if (p.shape === 'openai') return withFields(m, { content: placeholder })
  // Replaced, not merged: LangChain writes exactly `{ cleared, strategy }` (SEMANTICS §2 rule 4).
  const context_editing = close({ cleared: true, strategy: own(op, 'strategy') ?? 'clear_tool_uses' })
  const response_metadata = close(withFields(metadataOf(p) ?? {}, { context_editing }, KEPT.metadata))
  return changed(m, p, { content: placeholder, response_metadata }, close, ['artifact'])
}

function clearedInputs(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const positions = new Set(own(op, 'callIndices') ?? [])
  const ids = new Set(own(op, 'toolCallIds') ?? [])
  const tool_calls = close(
    mapList(listOf(field(p.fields, 'tool_calls'), i, 'tool_calls'), (c, k) => {
      if (!positions.has(k)) return c
      return field(c, 'function') !== undefined ? withoutArguments(c, close) : close(withFields(c, { args: close({}) }, KEPT.call))
    }),
  )
  if (p.shape === 'openai') return withFields(m, { tool_calls })
  const fields: Record<string, unknown> = { tool_calls }
  const md = metadataOf(p) ?? {}
  const inputs = close([...(own(op, 'clearedToolInputs') ?? [...ids].sort())])
  const context_editing = close(withFields(markerOf(md), { cleared_tool_inputs: inputs }, KEPT.metadata))
  fields.response_metadata = close(withFields(md, { context_editing }, KEPT.metadata))
  // Anthropic-format content: the `tool_use` block of a cleared call loses its input too.
  const content = field(p.fields, 'content')
  if (Array.isArray(content)) {
    let emptied = false
    const next = mapList(listOf(content, i, 'content'), (b) => {
      if (isObject(b) && field(b, 'type') === 'tool_use' && ids.has(field(b, 'id'))) {
        emptied = true
        return close(withFields(b, { input: close({}) }, KEPT.block))
      }
      return b
    })
    if (emptied) fields.content = close(next)
  }
  // Provider-raw OpenAI calls kept by @langchain/core 0.3 in `additional_kwargs.tool_calls`.
  const ak = field(p.fields, 'additional_kwargs')
  const rawCalls = isObject(ak) ? field(ak, 'tool_calls') : undefined
  if (Array.isArray(rawCalls)) {
    const raw = listOf(rawCalls, i, 'additional_kwargs.tool_calls')
    const emptied = mapList(raw, (c) => (isObject(c) && ids.has(field(c, 'id')) && isObject(field(c, 'function')) ? withoutArguments(c, close) : c))
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
    const b = entry(content, k)
    if (typeof b === 'string') text += b
    else if (isObject(b) && field(b, 'type') === 'text') {
      const value = field(b, 'text')
      if (typeof value === 'string') text += value
    }
  }
  return text
}

function truncatedResult(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  let head = textOf(field(p.fields, 'content')).slice(0, own(op, 'keep') ?? 0)
  // Never end on the first half of a surrogate pair.
  const last = head.charCodeAt(head.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1)
  const content = head + (own(op, 'marker') ?? '')
  if (p.shape === 'openai') return withFields(m, { content })
  const md = metadataOf(p) ?? {}
  const context_editing = close(withFields(markerOf(md), { truncated: true, strategy: own(op, 'strategy') ?? 'truncate_tool_results' }, KEPT.metadata))
  return changed(m, p, { content, response_metadata: close(withFields(md, { context_editing }, KEPT.metadata)) }, close)
}

function withoutThinking(m: AnyMessage, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const fields: Record<string, unknown> = {}
  const content = field(p.fields, 'content')
  if (Array.isArray(content)) {
    fields.content = close(filterList(listOf(content, i, 'content'), (b) => !(isObject(b) && THINKING_BLOCKS.has(field(b, 'type')))))
  }
  const ak = field(p.fields, 'additional_kwargs')
  if (isObject(ak) && REASONING_KWARGS.some((k) => hasField(ak, k))) {
    const rest = copyOf(ak, KEPT.metadata)
    for (const k of REASONING_KWARGS) delete rest[k]
    fields.additional_kwargs = close(rest)
  }
  if (p.shape === 'openai') {
    const out = withFields(m, fields)
    delete out.reasoning_content
    return out
  }
  return changed(m, p, fields, close)
}

function withoutCalls(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const positions = new Set(own(op, 'callIndices') ?? [])
  const ids = new Set(own(op, 'toolCallIds') ?? [])
  const tool_calls = close(filterList(listOf(field(p.fields, 'tool_calls'), i, 'tool_calls'), (_, k) => !positions.has(k)))
  if (p.shape === 'openai') {
    const out = withFields(m, { tool_calls })
    // OpenAI rejects an empty `tool_calls` array.
    if (tool_calls.length === 0) delete out.tool_calls
    return out
  }
  const fields: Record<string, unknown> = { tool_calls }
  const content = field(p.fields, 'content')
  if (Array.isArray(content)) {
    fields.content = close(filterList(listOf(content, i, 'content'), (b) => !(isObject(b) && field(b, 'type') === 'tool_use' && ids.has(field(b, 'id')))))
  }
  const ak = field(p.fields, 'additional_kwargs')
  const rawCalls = isObject(ak) ? field(ak, 'tool_calls') : undefined
  if (Array.isArray(rawCalls)) {
    const kept = filterList(listOf(rawCalls, i, 'additional_kwargs.tool_calls'), (c) => !(isObject(c) && ids.has(field(c, 'id'))))
    fields.additional_kwargs = close(withFields(ak, { tool_calls: close(kept) }, KEPT.metadata))
  }
  return changed(m, p, fields, close)
}

// ---------------------------------------------------------------------------------------------
// Prompt-cache breakpoints (Anthropic `cache_control`)

const EPHEMERAL = Object.freeze({ type: 'ephemeral' })

function hasCacheControl(x: unknown): boolean {
  return x !== null && typeof x === 'object' && field(x, 'cache_control') != null
}

/** `cache_control` markers in a message's content blocks (or on the message itself). */
function cacheControlsOf(fields: AnyMessage | undefined): number {
  if (!fields || typeof fields !== 'object') return 0
  let n = hasCacheControl(fields) ? 1 : 0
  const content = field(fields, 'content')
  // A longer list is rejected by conversion (after this count): never walk it here.
  if (Array.isArray(content) && content.length <= MAX_ITEMS) for (let k = 0; k < content.length; k++) if (hasCacheControl(entry(content, k))) n++
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
      const m = entry(messages, k)
      if (m === null || typeof m !== 'object') continue
      try {
        const data = typeof field(m, 'type') === 'string' ? field(m, 'data') : undefined
        n += cacheControlsOf(data && typeof data === 'object' ? data : m)
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
        if (hasCacheControl(entry(tools, k))) n++
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
  const content = field(p.fields, 'content')
  let next: unknown[]
  if (typeof content === 'string') {
    if (content === '') return m
    next = [close({ type: 'text', text: content, cache_control: EPHEMERAL })]
  } else if (Array.isArray(content) && content.length > 0) {
    const blocks = listOf(content, i, 'content')
    const last = entry(blocks, blocks.length - 1)
    if (hasCacheControl(last)) return m
    if (typeof last === 'string') {
      if (last === '') return m
      next = filterList(blocks, (_, k) => k < blocks.length - 1)
      next.push(close({ type: 'text', text: last, cache_control: EPHEMERAL }))
    } else if (isObject(last) && !THINKING_BLOCKS.has(field(last, 'type'))) {
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

/** What applying a plan should do with a summary the plan asks for, and with the copies it makes. */
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
   * The output for `messages[0..upTo)` when it is already known: the first `length` entries of an
   * earlier application's `kept` (for the same objects and the same operations). `rest`, when
   * given, stands for the plan's operations from `upTo` on.
   */
  prefix?: { kept: readonly unknown[]; made: readonly number[]; length: number; upTo: number; rest?: readonly PlanOp[] }
  /**
   * The editor keeps the copies it makes (in `memo`, and as `kept` for a later `prefix`) and hands
   * them out again: what an edit creates inside a copy is frozen, and every copy handed out is a
   * fresh shell of the kept one (see `handOut`). Implied by `memo` and `prefix`.
   */
  shared?: boolean
}

/** Cleared copies (templates, see `handOut`) by original message (see `ApplyOptions.memo`). */
export type ClearedMemo = WeakMap<object, { placeholder: string; strategy: string; copy: AnyMessage; print?: unknown[] }>

/** A plan as `applyPlan` applies it: its operations and, when it asks for one, its summary request. */
export type ApplicablePlan = Pick<EditPlan, 'ops'> & { summary?: SummaryRequest | null }

/** What applying a plan gives: the output, and the same as the editor keeps it for a later call. */
export interface Applied<T> {
  messages: T[]
  /** The output with the kept templates where `messages` holds fresh shells of them (see `handOut`). */
  kept: unknown[]
  /** The positions of `kept` that hold templates, ascending. */
  made: number[]
}

/**
 * A summary message in the shape (and, for LangChain instances, the class) of the conversation.
 * What it holds besides its content is closed like everything an edit creates.
 */
function summaryMessage(messages: readonly AnyMessage[], request: SummaryRequest, summary: string, close: Seal): AnyMessage {
  const content = `${request.prefix}\n\n${summary}`
  const additional_kwargs = close({ lc_source: 'summarization' })
  const lcType = request.role === 'user' ? 'human' : 'ai'
  const sample = messages[request.insertAt]
  const p = partsOf(sample, request.insertAt)
  if (p.shape === 'openai') return { role: request.role, content }
  if (p.shape === 'stored') return { type: lcType, data: { content, additional_kwargs, response_metadata: close({}) } }
  if (isLangChainInstance(sample)) {
    // Reuse the conversation's own class for the role, so the output stays one @langchain/core copy.
    const peer = messages.find((m, k) => isLangChainInstance(m) && partsOf(m, k).role === request.role)
    // The class's constructor reads what its fields object lacks through its prototype: none while
    // Object.prototype is polluted (then the plain object it may keep, as `lc_kwargs`).
    const fields = { content, additional_kwargs, response_metadata: close({}) }
    const given = polluted ? Object.assign(Object.create(null), fields) : fields
    const made = peer === undefined ? undefined : instanceOfClass(peer, given)
    if (given !== fields) Object.setPrototypeOf(given, OBJECT_PROTOTYPE)
    if (made !== undefined) return made
  }
  return { type: lcType, content, additional_kwargs }
}

/**
 * A new instance of `peer`'s class made from `fields`: the class is its prototype's, never a field of
 * the message (an own `constructor` key is data). `undefined` when the class cannot make one.
 */
function instanceOfClass(peer: AnyMessage, fields: object): AnyMessage | undefined {
  const proto: unknown = Object.getPrototypeOf(peer)
  const make = isObject(proto) && Object.hasOwn(proto, 'constructor') ? (proto as AnyMessage).constructor : undefined
  if (typeof make !== 'function') return undefined
  try {
    return new (make as new (fields: object) => AnyMessage)(fields)
  } catch {
    return undefined
  }
}

/**
 * Applies a plan to the caller's messages: a new array; unchanged messages are the same objects,
 * changed ones are new objects of the same class with only the edited fields different. Several
 * operations for one index apply in the order given. The messages, the plan and `options` are read
 * once, and the plan is checked against the messages first.
 * @throws {ContextEditorError} `INVALID_PLAN` naming the operation's field that is not one (an
 * unknown type, an index out of range, a tool-result operation on a message that is no tool result,
 * a field of the wrong type, a getter that throws); `INVALID_SUMMARY` for a summary request that
 * does not fit the messages or a summary that cannot be one; `INVALID_MESSAGE` for a message an
 * operation cannot read.
 */
export function applyPlan<T extends AnyMessage>(messages: readonly T[], plan: ApplicablePlan, options: { summary?: string } | null = {}): T[] {
  notePollution()
  const list = listCopy(messages) as T[]
  const checked = readPlan(plan, list)
  return applyEdits(list, checked, { summary: summaryOption(options) }).messages
}

/**
 * `applyPlan` for plans of our own (the editor's, checked by the core): no checks beyond the
 * summary request's, and what `options` asks of the copies.
 */
export function applyEdits<T extends AnyMessage>(messages: readonly T[], plan: ApplicablePlan, options: ApplyOptions = {}): Applied<T> {
  checkMessages(messages)
  if (options.prefix === undefined && plan.ops.length === 0) return unchangedOutput(messages)
  const step = applier(messages, plan, options)
  step(messages.length)
  return step.applied
}

/** The output of a plan without operations: the messages, in a new array. */
function unchangedOutput<T>(messages: readonly T[]): Applied<T> {
  const out = new Array<T>(messages.length)
  for (let k = 0; k < messages.length; k++) out[k] = messages[k]
  return { messages: out, kept: out.slice(), made: [] }
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
 * The caller's array read once, entry by entry, into one of our own (holes are `undefined`; unlike
 * `messageList`, it does not stop at an entry that is not an object: an operation that reads one
 * names it, and the others pass through).
 * @throws {ContextEditorError} `INVALID_MESSAGE` for a non-array, a length over `MAX_MESSAGES`, or
 * an array or entry that cannot be read.
 */
export function listCopy(messages: unknown): unknown[] {
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
  const out = new Array<unknown>(n)
  let i = 0
  try {
    for (; i < n; i++) out[i] = entry(messages as unknown[], i)
  } catch (e) {
    throw unreadable('INVALID_MESSAGE', `messages[${i}]`, e, { messageIndex: i })
  }
  return out
}

/** `applyPlan`'s `options.summary`, read once. */
function summaryOption(options: unknown): string | undefined {
  if (options === undefined || options === null) return undefined
  if (typeof options !== 'object') {
    throw new ContextEditorError('INVALID_SUMMARY', `options: expected an object ({ summary }), got ${describe(options)}`, { path: 'options' })
  }
  try {
    return field(options, 'summary')
  } catch (e) {
    throw new ContextEditorError('INVALID_SUMMARY', `summary: could not be read (${errorText(e)})`, { path: 'summary', cause: e })
  }
}

/** Most operations a hand-made plan may hold (a longer list is a mistake, or sparse). */
const MAX_PLAN_OPS = MAX_MESSAGES
const OP_TYPES: ReadonlySet<string> = new Set([
  'remove',
  'clear_tool_result',
  'truncate_tool_result',
  'remove_thinking',
  'clear_tool_inputs',
  'remove_tool_calls',
  'cache_breakpoint',
])
/** The role of the messages an operation applies to (the others apply to any message). */
const OP_ROLES: ReadonlyMap<string, string> = new Map([
  ['clear_tool_result', 'tool'],
  ['truncate_tool_result', 'tool'],
  ['clear_tool_inputs', 'assistant'],
  ['remove_tool_calls', 'assistant'],
])

/** A caller's value in an error message, never converted (which could throw). */
function shownValue(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : describe(v)
}

/**
 * A plan given to `applyPlan`, read once into data of our own and checked against `messages`: what
 * `applyPlan` applies is exactly what was checked, whatever a getter answers later.
 */
function readPlan(plan: unknown, messages: readonly unknown[]): ApplicablePlan {
  const fail = (path: string, what: string, cause?: unknown): ContextEditorError =>
    new ContextEditorError('INVALID_PLAN', `${path}: ${what}`, cause === undefined ? { path } : { path, cause })
  const read = <V>(path: string, get: () => V): V => {
    try {
      return get()
    } catch (e) {
      throw fail(path, `could not be read (${errorText(e)})`, e)
    }
  }
  if (plan === null || typeof plan !== 'object') throw fail('plan', `expected a plan (an object with \`ops\`), got ${describe(plan)}`)
  const list = read('plan.ops', () => field(plan, 'ops'))
  // The request before the operations: a plan for other messages is named by it when it has one.
  const summary = readRequest(plan, messages.length)
  if (!read('plan.ops', () => Array.isArray(list))) throw fail('plan.ops', `expected a list of operations, got ${describe(list)}`)
  const n = read('plan.ops', () => (list as unknown[]).length)
  if (n > MAX_PLAN_OPS) {
    throw fail('plan.ops', `expected at most ${MAX_PLAN_OPS.toLocaleString('en-US')} operations, got ${n.toLocaleString('en-US')}`)
  }
  const ops = new Array<PlanOp>(n)
  for (let k = 0; k < n; k++) {
    const at = `plan.ops[${k}]`
    ops[k] = readOp(read(at, () => entry(list as unknown[], k)), at, messages, read, fail)
  }
  if (summary !== undefined) {
    // Each replaced message goes through its `remove` operation (kept when no summary is written).
    const removed = new Set(ops.filter((op) => op.type === 'remove').map((op) => op.index))
    summary.replaced.forEach((i, k) => {
      if (!removed.has(i)) {
        throw new ContextEditorError('INVALID_SUMMARY', `plan.summary.replaced[${k}]: message ${i} has no \`remove\` operation (a plan changed by hand?)`, {
          path: `plan.summary.replaced[${k}]`,
        })
      }
    })
  }
  return summary === undefined ? { ops } : { ops, summary }
}

type Read = <V>(path: string, get: () => V) => V
type Fail = (path: string, what: string, cause?: unknown) => ContextEditorError

/** One operation of a hand-made plan, as a plain `PlanOp` (see `readPlan`). */
function readOp(op: unknown, at: string, messages: readonly unknown[], read: Read, fail: Fail): PlanOp {
  if (op === null || typeof op !== 'object') throw fail(at, `expected an operation (an object), got ${describe(op)}`)
  const get = (key: string): unknown => read(`${at}.${key}`, () => field(op, key))
  const type = get('type')
  if (typeof type !== 'string' || !OP_TYPES.has(type)) throw fail(`${at}.type`, `expected one of ${[...OP_TYPES].join(', ')}, got ${shownValue(type)}`)
  const index = get('index')
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || index >= messages.length) {
    throw fail(`${at}.index`, `expected a message index below ${messages.length} (a plan for other messages?), got ${shownValue(index)}`)
  }
  const out = { type, index } as PlanOp & Record<string, unknown>
  const text = (key: string): void => {
    const v = get(key)
    if (v === undefined || v === null) return
    if (typeof v !== 'string') throw fail(`${at}.${key}`, `expected a string, got ${describe(v)}`)
    if (!v.isWellFormed()) throw fail(`${at}.${key}`, 'contains a lone UTF-16 surrogate (not valid Unicode)')
    out[key] = v
  }
  const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= 0xffffffff
  const list = (key: string, what: 'positions' | 'ids'): void => {
    const v = get(key)
    if (v === undefined || v === null) return
    if (!read(`${at}.${key}`, () => Array.isArray(v))) throw fail(`${at}.${key}`, `expected a list of ${what}, got ${describe(v)}`)
    const given = v as unknown[]
    const n = read(`${at}.${key}`, () => given.length)
    if (n > MAX_ITEMS) throw fail(`${at}.${key}`, `expected at most ${MAX_ITEMS.toLocaleString('en-US')} ${what}, got ${n.toLocaleString('en-US')}`)
    const copy = new Array<unknown>(n)
    for (let k = 0; k < n; k++) {
      const x = read(`${at}.${key}[${k}]`, () => entry(given, k))
      const ok = what === 'positions' ? isCount(x) : typeof x === 'string' && x.isWellFormed()
      if (!ok) throw fail(`${at}.${key}[${k}]`, `expected ${what === 'positions' ? 'a tool call position' : 'a tool call id'}, got ${shownValue(x)}`)
      copy[k] = x
    }
    out[key] = copy
  }
  switch (type) {
    case 'clear_tool_result':
      text('placeholder')
      text('strategy')
      break
    case 'truncate_tool_result': {
      const keep = get('keep')
      if (keep !== undefined && keep !== null) {
        if (!isCount(keep)) throw fail(`${at}.keep`, `expected a non-negative integer, got ${shownValue(keep)}`)
        out.keep = keep as number
      }
      text('marker')
      text('strategy')
      break
    }
    case 'clear_tool_inputs':
      list('callIndices', 'positions')
      list('toolCallIds', 'ids')
      list('clearedToolInputs', 'ids')
      break
    case 'remove_tool_calls':
      list('callIndices', 'positions')
      list('toolCallIds', 'ids')
      break
  }
  const role = OP_ROLES.get(type)
  if (role !== undefined) {
    const m = messages[index]
    let p: Parts
    try {
      p = partsOf(m, index)
    } catch (e) {
      throw messageError(e, index, m)
    }
    if (p.role !== role) {
      throw fail(at, `\`${type}\` applies to ${role === 'tool' ? 'a tool' : 'an assistant'} message, messages[${index}] is \`${p.role}\` (a plan for other messages?)`)
    }
  }
  return out
}

/** A hand-made plan's summary request, read once into data of our own and checked (`checkSummaryRequest`). */
function readRequest(plan: object, length: number): SummaryRequest | undefined {
  // The path is the request's (its message names the field), as `checkSummaryRequest` reports it.
  const fail = (where: string, e: unknown): ContextEditorError =>
    new ContextEditorError('INVALID_SUMMARY', `${where}: could not be read (${errorText(e)})`, { path: 'plan.summary', cause: e })
  const read = <V>(path: string, get: () => V): V => {
    try {
      return get()
    } catch (e) {
      throw fail(path, e)
    }
  }
  const request = read('plan.summary', () => field(plan, 'summary'))
  if (request === undefined || request === null) return undefined
  if (typeof request !== 'object') {
    checkSummaryRequest(request, length)
    return undefined
  }
  const get = (key: string): unknown => read(`plan.summary.${key}`, () => field(request, key))
  let replaced = get('replaced')
  if (read('plan.summary.replaced', () => Array.isArray(replaced))) {
    const given = replaced as unknown[]
    const n = read('plan.summary.replaced', () => given.length)
    // Longer than the messages: `checkSummaryRequest` says so, without walking it.
    if (n <= length) replaced = Array.from({ length: n }, (_, k) => read(`plan.summary.replaced[${k}]`, () => entry(given, k)))
  }
  const copy = { replaced, insertAt: get('insertAt'), prefix: get('prefix'), role: get('role') }
  checkSummaryRequest(copy, length)
  return copy as unknown as SummaryRequest
}

/**
 * `applyEdits` in pieces of `piece` messages, calling `pause` (e.g. a yield to the event loop)
 * between them, for histories long enough that applying a plan at once would stall a server.
 */
export async function applyEditsInPieces<T extends AnyMessage>(
  messages: readonly T[],
  plan: ApplicablePlan,
  options: ApplyOptions,
  piece: number,
  pause: () => Promise<void>,
): Promise<Applied<T>> {
  checkMessages(messages)
  if (options.prefix === undefined && plan.ops.length === 0) return unchangedOutput(messages)
  const step = applier(messages, plan, options)
  for (let end = piece; ; end += piece) {
    step(Math.min(end, messages.length))
    if (end >= messages.length) return step.applied
    await pause()
  }
}

/** A stateful application of `plan`: each call applies the messages up to `end`. */
function applier<T extends AnyMessage>(
  messages: readonly T[],
  plan: ApplicablePlan,
  options: ApplyOptions,
): ((end: number) => void) & { applied: Applied<T> } {
  const request: SummaryRequest | undefined = own(plan, 'summary') ?? undefined
  // A request that does not fit these messages would drop them without writing the summary.
  if (request !== undefined) checkSummaryRequest(request, messages.length)
  // A summary with no text never replaces history (kept, as without one); a value that cannot be a
  // summary is the summarizer's error (`summaryTextOf`), never blamed on a message.
  const summary = request !== undefined && options.summary !== undefined ? summaryTextOf(options.summary) : ''
  const summarize = request !== undefined && summary !== ''
  const keptReplaced = new Set(request && !summarize ? request.replaced : [])
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
  const shared = options.shared === true || memo !== undefined || prefix !== undefined
  const close = shared ? seal : keepOpen
  const kept = prefix === undefined ? [] : prefix.kept.slice(0, prefix.length)
  const made: number[] = []
  const out = kept.slice() as T[]
  if (prefix !== undefined) {
    for (const k of prefix.made) {
      if (k >= prefix.length) break
      made.push(k)
      out[k] = handOut(kept[k] as AnyMessage) as T
    }
  }
  /** Adds a copy this call made or took from the memo: the caller gets its own shell when it is kept. */
  const copied = (copy: AnyMessage): void => {
    if (shared) made.push(kept.length)
    kept.push(copy)
    out.push((shared ? handOut(copy) : copy) as T)
  }
  const passed = (m: unknown): void => {
    kept.push(m)
    out.push(m as T)
  }
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
      // A new message, never kept for a later call (an edit that summarizes keeps no output).
      if (summarize && request.insertAt === i) passed(summaryMessage(messages, request, summary, close))
      while (c < ops.length && ops[c].index < i) c++
      if (c >= ops.length || ops[c].index !== i) {
        passed(messages[i])
        continue
      }
      let m: AnyMessage = messages[i]
      const first = ops[c]
      const single = c + 1 >= ops.length || ops[c + 1].index !== i
      if (memo !== undefined && single && first.type === 'clear_tool_result') {
        c++
        const placeholder = own(first, 'placeholder') ?? '[cleared]'
        const strategy = own(first, 'strategy') ?? 'clear_tool_uses'
        const print = memoPrints?.[i]
        const hit = memoPrints !== undefined ? (print !== undefined ? memo.get(m) : undefined) : i < memoBelow ? memo.get(m) : undefined
        if (hit !== undefined && hit.placeholder === placeholder && hit.strategy === strategy && hit.print === print) {
          copied(hit.copy)
          continue
        }
        const copy = clearedResult(m, first, i, close)
        memo.set(m, { placeholder, strategy, copy, print })
        copied(copy)
        continue
      }
      let removed = false
      for (; c < ops.length && ops[c].index === i; c++) {
        const op = ops[c]
        if (op.type === 'remove') removed ||= !keptReplaced.has(i)
        else if (op.type === 'clear_tool_result') m = clearedResult(m, op, i, close)
        else if (op.type === 'truncate_tool_result') m = truncatedResult(m, op, i, close)
        else if (op.type === 'remove_thinking') m = withoutThinking(m, i, close)
        else if (op.type === 'clear_tool_inputs') m = clearedInputs(m, op, i, close)
        else if (op.type === 'remove_tool_calls') m = withoutCalls(m, op, i, close)
        else if (op.type === 'cache_breakpoint') m = withCacheBreakpoint(m, i, close)
      }
      if (removed) continue
      if (m === messages[i]) passed(m)
      else copied(m)
    }
  }
  return Object.assign(step, { applied: { messages: out, kept, made } })
}

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
