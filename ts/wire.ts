// The only file that knows both shapes: it converts caller messages (LangChain instances from
// @langchain/core 0.3.x or 1.x, LangChain dicts, `StoredMessage` dumps, OpenAI chat-completions
// messages) to wire form, and applies a plan back onto *new* message objects. It never mutates the
// caller's arrays or messages and never uses `instanceof` (a plugin and its host may hold different
// copies of @langchain/core).

import { invalidMessage } from './errors.js'
import type { EditPlan, PlanOp, SummaryRequest, WireMessage, WireToolCall } from './native.js'

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

const LC_TYPES: Record<string, string> = {
  human: 'user',
  user: 'user',
  ai: 'assistant',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
  tool: 'tool',
}

const IMAGE_BLOCKS = new Set(['image_url', 'image', 'input_image'])

function isLangChainInstance(m: AnyMessage): boolean {
  return typeof m._getType === 'function' || (typeof m.lc_kwargs === 'object' && m.lc_kwargs !== null)
}

function describe(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v).slice(0, 40)}`
}

function partsOf(m: unknown, i: number): Parts {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    throw invalidMessage(i, 'type', `expected a message object, got ${describe(m)}`)
  }
  const msg = m as AnyMessage
  if (isLangChainInstance(msg)) {
    let type: unknown = typeof msg._getType === 'function' ? msg._getType() : msg.type
    if (type === 'generic') type = msg.role
    const role = typeof type === 'string' ? LC_TYPES[type] : undefined
    if (!role) throw invalidMessage(i, 'type', `unsupported message type \`${String(type)}\` (expected human, ai, system or tool)`)
    return { shape: 'langchain', fields: msg, role }
  }
  if (typeof msg.type === 'string' && msg.data !== null && typeof msg.data === 'object' && !Array.isArray(msg.data)) {
    const role = LC_TYPES[msg.type]
    if (!role) throw invalidMessage(i, 'type', `unsupported message type \`${msg.type}\` (expected human, ai, system or tool)`)
    return { shape: 'stored', fields: msg.data, role }
  }
  if (typeof msg.role === 'string' && msg.type === undefined) {
    const role = LC_TYPES[msg.role]
    if (!role) {
      throw invalidMessage(i, 'role', `unknown role \`${msg.role}\` (expected system, developer, user, assistant or tool)`)
    }
    return { shape: 'openai', fields: msg, role }
  }
  if (typeof msg.type === 'string') {
    const role = LC_TYPES[msg.type]
    if (!role) throw invalidMessage(i, 'type', `unsupported message type \`${msg.type}\` (expected human, ai, system or tool)`)
    return { shape: 'langchain', fields: msg, role }
  }
  throw invalidMessage(i, 'role', 'missing `role` (OpenAI) or `type` (LangChain)')
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
    throw invalidMessage(i, field, `not JSON-serializable (${(e as Error).message})`)
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
    if (IMAGE_BLOCKS.has(block.type) || (block.type === 'file' && String(block.mime_type ?? '').startsWith('image/'))) {
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
  const calls = raw.map((c: any, k: number): CallView => {
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
  })
  return { calls, raw }
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
    if (Array.isArray(ce.cleared_tool_inputs)) {
      wire.clearedToolInputs = ce.cleared_tool_inputs.filter((x: unknown): x is string => typeof x === 'string')
    }
  }
  if (p.shape === 'openai' && p.role === 'tool' && opts.placeholders && typeof p.fields.content === 'string') {
    if (opts.placeholders.has(p.fields.content)) wire.cleared = true
  }
  const supplied = opts.messageTokens?.[i]
  if (supplied !== undefined && supplied !== null) {
    if (!Number.isInteger(supplied) || supplied < 0 || supplied > 0xffffffff) {
      throw invalidMessage(i, 'tokens', `expected a non-negative integer token count, got ${String(supplied)}`)
    }
    wire.tokens = supplied
  }
  return wire
}

/** Converts a whole conversation to wire form. */
export function toWireMessages(messages: unknown, opts: WireOptions): WireMessage[] {
  if (!Array.isArray(messages)) {
    throw Object.assign(invalidMessage(0, 'messages', `expected an array of messages, got ${describe(messages)}`), {
      messageIndex: undefined,
      message: `messages: expected an array of messages, got ${describe(messages)}`,
    })
  }
  const out = new Array<WireMessage>(messages.length)
  for (let i = 0; i < messages.length; i++) out[i] = toWireRemembered(messages[i], i, opts)[0]
  return out
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
  const cache = opts.cache
  if (cache === undefined || !isObject(m) || Array.isArray(m) || opts.messageTokens?.[i] != null) {
    return [toWire(m, i, opts), undefined]
  }
  const hit = cache.get(m)
  if (hit !== undefined && unchanged(m, hit.print)) return [hit.wire, hit.print]
  const wire = toWire(m, i, opts)
  const print = fingerprint(m)!
  cache.set(m, { print, wire })
  return [wire, print]
}

// ---------------------------------------------------------------------------------------------
// Fingerprints: has a message seen before changed?

const isObject = (v: unknown): v is AnyMessage => v !== null && typeof v === 'object'

/**
 * Takes a fingerprint (`fp` undefined: values go to `out`) or checks one (values are compared with
 * `fp` in order; `same` turns false at the first difference).
 */
class Print {
  out: unknown[] = []
  fp: readonly unknown[] | undefined = undefined
  k = 0
  same = true

  v(x: unknown): void {
    if (this.fp === undefined) this.out.push(x)
    else if (this.fp[this.k++] !== x) this.same = false
  }
}

/**
 * Feeds `p`, in a fixed order, every value a message's conversion depends on, down to content blocks
 * and tool calls (compared by identity; strings by value). Deep in-place edits inside a tool call's
 * `args` object or a non-text block are not seen. Stops early once a check has failed.
 */
function walkFingerprint(m: AnyMessage, p: Print): void {
  const f: AnyMessage = isLangChainInstance(m) || !isObject(m.data) ? m : m.data
  const md = f.response_metadata
  const ce = isObject(md) ? md.context_editing : undefined
  const ak = f.additional_kwargs
  const content = f.content
  const calls = f.tool_calls
  p.v(f)
  p.v(content)
  p.v(calls)
  p.v(md)
  p.v(ak)
  p.v(m.type)
  p.v(m.role)
  p.v(f.name)
  p.v(f.tool_call_id)
  p.v(ce)
  p.v(f.reasoning_content)
  if (!p.same) return
  if (isObject(ce)) {
    p.v(ce.cleared)
    p.v(ce.truncated)
    p.v(ce.cleared_tool_inputs)
  }
  if (isObject(ak)) {
    p.v(ak.reasoning_content)
    p.v(ak.reasoning)
  }
  if (Array.isArray(content)) {
    p.v(content.length)
    for (const b of content) {
      p.v(b)
      if (isObject(b)) {
        p.v(b.type)
        p.v(b.text)
        p.v(b.id)
      }
    }
  }
  if (Array.isArray(calls)) {
    p.v(calls.length)
    for (const c of calls) {
      p.v(c)
      if (!isObject(c)) continue
      const fn = c.function
      p.v(c.id)
      p.v(c.name)
      p.v(c.args)
      p.v(fn)
      if (isObject(fn)) {
        p.v(fn.name)
        p.v(fn.arguments)
      }
    }
  }
}

/** Reused by `unchanged`, so checking a long history allocates nothing. */
const checker = new Print()

/** A message's fingerprint (see `walkFingerprint`); `undefined` for a non-object. */
export function fingerprint(m: unknown): unknown[] | undefined {
  if (!isObject(m) || Array.isArray(m)) return undefined
  const p = new Print()
  walkFingerprint(m, p)
  return p.out
}

/** Whether `m` still has the fingerprint `fp` taken earlier. */
export function unchanged(m: unknown, fp: readonly unknown[] | undefined): boolean {
  if (fp === undefined || !isObject(m) || Array.isArray(m)) return false
  checker.fp = fp
  checker.k = 0
  checker.same = true
  walkFingerprint(m, checker)
  const same = checker.same && checker.k === fp.length
  checker.fp = undefined
  return same
}

// ---------------------------------------------------------------------------------------------
// Applying a plan

/** A shallow copy that keeps the prototype (class identity) and every own field. */
function shallowClone<T extends AnyMessage>(m: T): T {
  return Object.assign(Object.create(Object.getPrototypeOf(m)), m)
}

/** Sets `fields` on a message copy; for LangChain instances also on `lc_kwargs`, which serialization reads. */
function patch(copy: AnyMessage, fields: Record<string, unknown>, drop: readonly string[] = []): void {
  const hasKwargs = typeof copy.lc_kwargs === 'object' && copy.lc_kwargs !== null
  const kwargs = hasKwargs ? { ...copy.lc_kwargs } : undefined
  for (const [k, v] of Object.entries(fields)) {
    copy[k] = v
    if (kwargs) kwargs[k] = v
  }
  for (const k of drop) {
    if (k in copy) copy[k] = undefined
    if (kwargs) delete kwargs[k]
  }
  if (kwargs) copy.lc_kwargs = kwargs
}

function clearedResult(m: AnyMessage, op: PlanOp, i: number): AnyMessage {
  const p = partsOf(m, i)
  const placeholder = op.placeholder ?? '[cleared]'
  if (p.shape === 'openai') return { ...m, content: placeholder }
  const md = metadataOf(p) ?? {}
  const response_metadata = {
    ...md,
    // Replaced, not merged: LangChain writes exactly `{ cleared, strategy }` (SEMANTICS §2 rule 4).
    context_editing: { cleared: true, strategy: op.strategy ?? 'clear_tool_uses' },
  }
  if (p.shape === 'stored') {
    const data: AnyMessage = { ...p.fields, content: placeholder, response_metadata }
    delete data.artifact
    return { ...m, data }
  }
  const copy = shallowClone(m)
  patch(copy, { content: placeholder, response_metadata }, ['artifact'])
  return copy
}

function clearedInputs(m: AnyMessage, op: PlanOp, i: number): AnyMessage {
  const p = partsOf(m, i)
  const positions = new Set(op.callIndices ?? [])
  const ids = new Set(op.toolCallIds ?? [])
  const tool_calls = (p.fields.tool_calls as any[]).map((c, k) => {
    if (!positions.has(k)) return c
    return c.function !== undefined ? { ...c, function: { ...c.function, arguments: '{}' } } : { ...c, args: {} }
  })
  if (p.shape === 'openai') return { ...m, tool_calls }
  const fields: Record<string, unknown> = { tool_calls }
  const md = metadataOf(p) ?? {}
  fields.response_metadata = {
    ...md,
    context_editing: { ...(md.context_editing ?? {}), cleared_tool_inputs: op.clearedToolInputs ?? [...ids].sort() },
  }
  // Anthropic-format content: the `tool_use` block of a cleared call loses its input too.
  if (Array.isArray(p.fields.content)) {
    let changed = false
    const content = p.fields.content.map((b: any) => {
      if (b && typeof b === 'object' && b.type === 'tool_use' && ids.has(b.id)) {
        changed = true
        return { ...b, input: {} }
      }
      return b
    })
    if (changed) fields.content = content
  }
  // Provider-raw OpenAI calls kept by @langchain/core 0.3 in `additional_kwargs.tool_calls`.
  const ak = p.fields.additional_kwargs
  if (ak && typeof ak === 'object' && Array.isArray(ak.tool_calls)) {
    fields.additional_kwargs = {
      ...ak,
      tool_calls: ak.tool_calls.map((c: any) =>
        c && ids.has(c.id) && c.function ? { ...c, function: { ...c.function, arguments: '{}' } } : c,
      ),
    }
  }
  if (p.shape === 'stored') return { ...m, data: { ...p.fields, ...fields } }
  const copy = shallowClone(m)
  patch(copy, fields)
  return copy
}

/** The text of a message's content: the string, or its text blocks joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  let text = ''
  for (const b of content) {
    if (typeof b === 'string') text += b
    else if (b && typeof b === 'object' && b.type === 'text' && typeof b.text === 'string') text += b.text
  }
  return text
}

function truncatedResult(m: AnyMessage, op: PlanOp, i: number): AnyMessage {
  const p = partsOf(m, i)
  let head = textOf(p.fields.content).slice(0, op.keep ?? 0)
  // Never end on the first half of a surrogate pair.
  const last = head.charCodeAt(head.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1)
  const content = head + (op.marker ?? '')
  if (p.shape === 'openai') return { ...m, content }
  const md = metadataOf(p) ?? {}
  const response_metadata = {
    ...md,
    context_editing: { ...(md.context_editing ?? {}), truncated: true, strategy: op.strategy ?? 'truncate_tool_results' },
  }
  if (p.shape === 'stored') return { ...m, data: { ...p.fields, content, response_metadata } }
  const copy = shallowClone(m)
  patch(copy, { content, response_metadata })
  return copy
}

function withoutThinking(m: AnyMessage, i: number): AnyMessage {
  const p = partsOf(m, i)
  const fields: Record<string, unknown> = {}
  if (Array.isArray(p.fields.content)) {
    fields.content = p.fields.content.filter((b: any) => !(b && typeof b === 'object' && THINKING_BLOCKS.has(b.type)))
  }
  const ak = p.fields.additional_kwargs
  if (ak && typeof ak === 'object' && REASONING_KWARGS.some((k) => k in ak)) {
    const rest = { ...ak }
    for (const k of REASONING_KWARGS) delete rest[k]
    fields.additional_kwargs = rest
  }
  if (p.shape === 'openai') {
    const out: AnyMessage = { ...m, ...fields }
    delete out.reasoning_content
    return out
  }
  if (p.shape === 'stored') return { ...m, data: { ...p.fields, ...fields } }
  const copy = shallowClone(m)
  patch(copy, fields)
  return copy
}

function withoutCalls(m: AnyMessage, op: PlanOp, i: number): AnyMessage {
  const p = partsOf(m, i)
  const positions = new Set(op.callIndices ?? [])
  const ids = new Set(op.toolCallIds ?? [])
  const tool_calls = (p.fields.tool_calls as any[]).filter((_, k) => !positions.has(k))
  if (p.shape === 'openai') {
    const out: AnyMessage = { ...m, tool_calls }
    // OpenAI rejects an empty `tool_calls` array.
    if (tool_calls.length === 0) delete out.tool_calls
    return out
  }
  const fields: Record<string, unknown> = { tool_calls }
  if (Array.isArray(p.fields.content)) {
    fields.content = p.fields.content.filter((b: any) => !(b && typeof b === 'object' && b.type === 'tool_use' && ids.has(b.id)))
  }
  const ak = p.fields.additional_kwargs
  if (ak && typeof ak === 'object' && Array.isArray(ak.tool_calls)) {
    fields.additional_kwargs = { ...ak, tool_calls: ak.tool_calls.filter((c: any) => !(c && ids.has(c.id))) }
  }
  if (p.shape === 'stored') return { ...m, data: { ...p.fields, ...fields } }
  const copy = shallowClone(m)
  patch(copy, fields)
  return copy
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
  if (Array.isArray(fields.content)) for (const b of fields.content) if (hasCacheControl(b)) n++
  return n
}

/**
 * Prompt-cache breakpoints a request already carries: `cache_control` on content blocks of the
 * messages and the system message, and on tool definitions (Anthropic allows 4 per request).
 */
export function countCacheBreakpoints(messages: unknown, systemPrompt?: unknown, tools?: ReadonlyArray<unknown> | null): number {
  let n = 0
  if (Array.isArray(messages)) {
    for (const m of messages) {
      if (m === null || typeof m !== 'object') continue
      const fields = typeof m.type === 'string' && m.data && typeof m.data === 'object' ? m.data : m
      n += cacheControlsOf(fields)
    }
  }
  if (systemPrompt !== null && typeof systemPrompt === 'object') n += cacheControlsOf(systemPrompt as AnyMessage)
  if (Array.isArray(tools)) for (const t of tools) if (hasCacheControl(t)) n++
  return n
}

/**
 * Marks the last content block with `cache_control: { type: 'ephemeral' }` (a string content
 * becomes one text block). OpenAI-shaped messages, empty contents and a last block that is
 * reasoning (Anthropic rejects breakpoints there) or already marked are left as they are.
 */
function withCacheBreakpoint(m: AnyMessage, i: number): AnyMessage {
  const p = partsOf(m, i)
  if (p.shape === 'openai') return m
  const content = p.fields.content
  let next: unknown[]
  if (typeof content === 'string') {
    if (content === '') return m
    next = [{ type: 'text', text: content, cache_control: EPHEMERAL }]
  } else if (Array.isArray(content) && content.length > 0) {
    const last = content[content.length - 1]
    if (hasCacheControl(last)) return m
    if (typeof last === 'string') {
      if (last === '') return m
      next = [...content.slice(0, -1), { type: 'text', text: last, cache_control: EPHEMERAL }]
    } else if (last !== null && typeof last === 'object' && !THINKING_BLOCKS.has(last.type)) {
      next = [...content.slice(0, -1), { ...last, cache_control: EPHEMERAL }]
    } else {
      return m
    }
  } else {
    return m
  }
  if (p.shape === 'stored') return { ...m, data: { ...p.fields, content: next } }
  const copy = shallowClone(m)
  patch(copy, { content: next })
  return copy
}

/** What `applyPlan` should do with a summary the plan asks for. */
export interface ApplyOptions {
  /** The summary text from the model; without it, the messages a summary would replace are kept. */
  summary?: string
  /**
   * Cleared copies made by earlier calls, by original message: a message cleared the same way
   * again gets the same copy back instead of a new one (an agent's history is cleared again on
   * every model call). Used only below `memoBelow`.
   */
  memo?: ClearedMemo
  /** Messages below this index are known unchanged since the memo's copies were made. */
  memoBelow?: number
}

/** Cleared copies by original message (see `ApplyOptions.memo`). */
export type ClearedMemo = WeakMap<object, { placeholder: string; strategy: string; copy: AnyMessage }>

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
  if (plan.ops.length === 0) return messages.slice()
  const step = applier(messages, plan, options)
  step(messages.length)
  return step.out
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
  if (plan.ops.length === 0) return messages.slice()
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
  const summarize = request !== undefined && options.summary !== undefined
  const kept = new Set(request && !summarize ? request.replaced : [])
  // Operations come sorted by index (several for one index in the order given): walk them with a
  // cursor; sort a copy only if a caller's hand-made plan is out of order.
  let ops = plan.ops
  for (let k = 1; k < ops.length; k++) {
    if (ops[k].index < ops[k - 1].index) {
      ops = ops.map((op, at) => ({ op, at })).sort((a, b) => a.op.index - b.op.index || a.at - b.at).map((x) => x.op)
      break
    }
  }
  const { memo, memoBelow = 0 } = options
  const out: T[] = []
  let i = 0
  let c = 0
  const step = (end: number): void => {
    for (; i < end; i++) {
      if (summarize && request.insertAt === i) out.push(summaryMessage(messages, request, options.summary!) as T)
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
        const hit = i < memoBelow ? memo.get(m) : undefined
        if (hit !== undefined && hit.placeholder === placeholder && hit.strategy === strategy) {
          out.push(hit.copy as T)
          continue
        }
        const copy = clearedResult(m, first, i)
        memo.set(m, { placeholder, strategy, copy })
        out.push(copy as T)
        continue
      }
      let removed = false
      for (; c < ops.length && ops[c].index === i; c++) {
        const op = ops[c]
        if (op.type === 'remove') removed ||= !kept.has(i)
        else if (op.type === 'clear_tool_result') m = clearedResult(m, op, i)
        else if (op.type === 'truncate_tool_result') m = truncatedResult(m, op, i)
        else if (op.type === 'remove_thinking') m = withoutThinking(m, i)
        else if (op.type === 'clear_tool_inputs') m = clearedInputs(m, op, i)
        else if (op.type === 'remove_tool_calls') m = withoutCalls(m, op, i)
        else if (op.type === 'cache_breakpoint') m = withCacheBreakpoint(m, i)
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
    if (Array.isArray(content)) {
      return content
        .map((b: any) => (typeof b === 'string' ? b : b?.type === 'text' && typeof b.text === 'string' ? b.text : ''))
        .join('')
    }
  }
  return undefined
}
