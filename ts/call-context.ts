// A call's context (`EditContext`: system prompt, tools, model, input limit, per-message counts,
// the summarizer), read once from the caller's object with every read guarded, into its wire form
// and what the shim itself needs of it.

import { ContextEditorError, errorText, unreadable } from './errors.js'
import { NativeContextEditor, type EditContext as WireContext, type SummaryRequest } from './native.js'
import { field, isList, isPolluted, jsonText, MAX_ITEMS, MAX_MESSAGES, own, sameList, systemPromptText, type AnyMessage } from './wire.js'
import type { MessageFormat } from './formats/index.js'
import { jsonLength } from './wire/json-length.js'
import { isWellFormed } from './wire/shapes.js'

/** What the model sees besides the messages, and what the editor should know about the model. */
export interface EditContext {
  /**
   * The model's input limit in tokens, for `fraction` options. When absent, the limit of a known
   * OpenAI model name is used; otherwise fraction triggers do not fire and the report says so.
   */
  maxInputTokens?: number | null
  /** The system prompt sent beside the messages (a string or a system message); its tokens count. */
  systemPrompt?: string | AnyMessage | null
  /** Tool definitions sent with the request (JSON-serializable objects or JSON strings); their tokens count. */
  tools?: ReadonlyArray<unknown> | null
  /** Model name for this call: picks the encoding in model mode and a known input limit. */
  model?: string | null
  /** Token counts from your own counter, per message index (like LangChain's `tokenCounter`). */
  messageTokens?: ReadonlyArray<number | null | undefined> | null
  /**
   * Writes the summary when a `summarize` edit fires: called with its own copy of the planned
   * request (its `prompt` is ready to send to a model; changing the copy changes nothing), returns
   * the summary text, or the model's response as it is (a message or content blocks: their text
   * blocks). `edit` needs a synchronous function; `editAsync` also accepts one returning a Promise.
   * Without it, the messages are kept and the report warns `summary_skipped`; when it returns no
   * text (empty, blank, `null`, only reasoning) they are kept and the report warns `summary_empty`,
   * and when its answer cannot be a summary (a number, an object without `content`, a lone UTF-16
   * surrogate) they are kept and it warns `summary_invalid` (both with `path: "summary"`).
   * @throws {ContextEditorError} `SUMMARY_FAILED` (path `summary`, `cause`) when it throws or
   * rejects; `INVALID_SUMMARY` when it returns a Promise to the synchronous `edit`.
   */
  summarize?: ((request: SummaryRequest) => SummaryAnswer | Promise<SummaryAnswer>) | null
  /**
   * What the provider reported for an earlier call: the request through message `index` (the newest
   * assistant message) has `tokens` tokens (that call's input plus the message's output). The request
   * then counts as `tokens` plus the counted size of the messages after `index`; edits still free
   * counted tokens. You make sure nothing at or before `index` changed since that call (the
   * middlewares do, see docs/token-counting.md). An `index` past the messages is ignored.
   */
  usageAnchor?: { index: number; tokens: number } | null
  /** Ratio of true to counted size learned for this conversation (0 < ratio <= 100): request totals are multiplied by it. */
  tokenCorrection?: number | null
  /**
   * The messages' format for this call (overrides the editor's `format` option): `auto` (the
   * default) tells it from the messages; see docs/library.md, *Message formats*.
   */
  format?: MessageFormat | 'auto' | null
}

/** What a summarizer may return: the text, or a model's response / message, or content blocks. */
export type SummaryAnswer = string | { content?: unknown } | ReadonlyArray<unknown> | null | undefined

function contextError(field: string, what: string): ContextEditorError {
  return new ContextEditorError('INVALID_CONTEXT', `context.${field}: ${what}`, { path: field })
}

/**
 * `ctx` with the system prompt's and the tools' lengths in place of their texts: all that approx
 * counting reads of them. The texts are then not copied into the core (UTF-16 to UTF-8) on every
 * call: 37 -> 26 us natively for a 200-message next call with the bench's 3,300-character prompt
 * and six tools (docs/performance.md).
 */
export function lengthsOnly(ctx: WireContext): WireContext {
  // Own fields only: a key put on Object.prototype is none of the context's (see `field`).
  const systemPrompt: string | null | undefined = own(ctx, 'systemPrompt')
  const tools: string[] | null | undefined = own(ctx, 'tools')
  if ((systemPrompt == null && tools == null) || !takesContextLengths()) return ctx
  const { systemPrompt: _text, tools: _texts, ...rest } = ctx
  const out: WireContext = rest
  if (systemPrompt != null) out.systemPromptLength = systemPrompt.length
  if (tools != null) out.toolLengths = tools.map((t) => t.length)
  return out
}

/** Whether `lengthsOnly` sends lengths (see `takesContextLengths`); off: texts, as before. */
let lengthsOn = true
let bindingTakesLengths: boolean | undefined

/** Test hook (dist/internal.js `__contextLengths`): sets whether approx editors send lengths; returns the previous setting. */
export function sendContextLengths(on: boolean): boolean {
  const was = lengthsOn
  lengthsOn = on
  return was
}

/**
 * Whether the context's lengths are sent: on, and the loaded binding counts them. That is asked
 * once, by a count: a binding built before the fields ignores them, and gets the texts as before.
 */
function takesContextLengths(): boolean {
  if (bindingTakesLengths === undefined) {
    try {
      const probe = { systemPromptLength: 400, toolLengths: [40] }
      bindingTakesLengths = new NativeContextEditor({ tokenCountMethod: 'approx' }).countTokens([], probe).total === 110
    } catch {
      bindingTakesLengths = false
    }
  }
  return lengthsOn && bindingTakesLengths
}

/**
 * Every field of the wire context (`EditContext` in binding.d.cts; a test keeps the two lists in
 * step): what `sameWireContext` compares.
 */
export const WIRE_CONTEXT_FIELDS = [
  'maxInputTokens',
  'systemPrompt',
  'tools',
  'systemPromptLength',
  'toolLengths',
  'model',
  'cacheBreakpointsInUse',
  'anchorIndex',
  'anchorTokens',
  'tokenCorrection',
] as const satisfies ReadonlyArray<keyof WireContext>

/**
 * Whether two wire contexts (ours, made by `readContext`) read the same to the binding: each field
 * equal, lists entry by entry. Own fields only, as the binding reads them (see `field`).
 */
export function sameWireContext(a: WireContext, b: WireContext): boolean {
  for (let k = 0; k < WIRE_CONTEXT_FIELDS.length; k++) {
    const key = WIRE_CONTEXT_FIELDS[k]
    const x: unknown = own(a, key)
    const y: unknown = own(b, key)
    if (x === y) continue
    if (!Array.isArray(x) || !Array.isArray(y) || !sameList(x, y)) return false
  }
  return true
}

/** A copy of a wire context that later changes to `ctx` (or its lists) leave as it is. */
export function wireSnapshot(ctx: WireContext): WireContext {
  const out: WireContext = { ...ctx }
  if (out.tools != null) out.tools = out.tools.slice()
  if (out.toolLengths != null) out.toolLengths = out.toolLengths.slice()
  return out
}

/** Converts the public call context to wire form, validating it. */
export function toWireContext(context: EditContext | null | undefined): WireContext {
  return readContext(context).wire
}

/** A call's context as read once: its wire form, and what the shim itself needs of it. */
export interface CallContext {
  wire: WireContext
  /** A copy of `messageTokens` (up to the number of messages). */
  messageTokens?: ReadonlyArray<number | null | undefined>
  /** The caller's system prompt, and a copy of the tools array (breakpoints are counted on them). */
  systemPrompt?: unknown
  tools?: unknown[]
  /** `context.summarize`, read once: what the call uses, whatever the getter answers later. */
  summarize?: unknown
}

/**
 * A call context with every field its own (`undefined` until read): nothing of it is read from a
 * key put on Object.prototype (see `field` in wire.ts).
 */
function callContext(wire: WireContext): CallContext {
  return { wire, messageTokens: undefined, systemPrompt: undefined, tools: undefined, summarize: undefined }
}

/** Describes a value without converting it (which could throw). */
function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.slice(0, 40))
  if (v === null || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'undefined' || typeof v === 'bigint') return String(v)
  return isList(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v
}

/**
 * Reads the public call context once, validating it: every field through one guarded read, so a
 * getter or Proxy trap that throws is the caller's `INVALID_CONTEXT` naming the field (with what
 * it threw as `cause`), and lists are checked for length before they are walked. `messages` is
 * how many per-message counts are worth copying.
 */
export function readContext(context: EditContext | null | undefined, messages = MAX_MESSAGES, lengths = false): CallContext {
  if (context === undefined || context === null) return callContext({})
  if (typeof context !== 'object') {
    throw new ContextEditorError('INVALID_CONTEXT', `context: expected an object, got ${typeof context}`, { path: 'context' })
  }
  // A field put on Object.prototype is none of the context's (see `field` in wire.ts).
  const read = (name: keyof EditContext): unknown => {
    try {
      return field(context, name)
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', `context.${name}`, e, { path: name })
    }
  }
  const out: WireContext = {}
  const call = callContext(out)
  const max = read('maxInputTokens')
  if (max !== undefined && max !== null) {
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max <= 0) {
      throw contextError('maxInputTokens', `expected a positive integer, got ${shown(max)}`)
    }
    out.maxInputTokens = max
  }
  readSystemPrompt(read('systemPrompt'), call)
  readTools(read('tools'), call, lengths && takesContextLengths())
  const model = read('model')
  if (model !== undefined && model !== null) {
    if (typeof model !== 'string') throw contextError('model', `expected a string, got ${typeof model}`)
    out.model = model
  }
  readUsage(read, out)
  const counts = read('messageTokens')
  if (counts !== undefined && counts !== null) {
    const list = readList(counts, 'messageTokens', MAX_MESSAGES, 'counts', messages)
    if (list === undefined) throw contextError('messageTokens', 'expected an array of token counts (one per message)')
    call.messageTokens = list as Array<number | null | undefined>
  }
  // Read here so that a throwing getter is named as the context's; its value is checked when used.
  call.summarize = read('summarize')
  return call
}

/**
 * The last system prompt found well-formed. An agent sends the same one on every call, and
 * checking a long one walks its text when it holds a character past U+00FF (3 % of a 200-message
 * next call with a 3,335-character prompt); a string is a value, so an equal one has the same
 * answer. One string is kept, the one the caller keeps sending.
 */
let wellFormedPrompt: string | undefined

/** `context.systemPrompt`: a string or a system message, as its text (well-formed Unicode). */
function readSystemPrompt(system: unknown, call: CallContext): void {
  const out = call.wire
  if (system !== undefined && system !== null) {
    let text: string | undefined
    try {
      text = systemPromptText(system)
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', 'context.systemPrompt', e, { path: 'systemPrompt' })
    }
    if (text === undefined) throw contextError('systemPrompt', 'expected a string or a system message')
    if (text !== wellFormedPrompt) {
      if (!isWellFormed(text)) throw contextError('systemPrompt', 'contains a lone UTF-16 surrogate (not valid Unicode)')
      wellFormedPrompt = text
    }
    out.systemPrompt = text
    call.systemPrompt = system
  }
}

/**
 * `context.tools`: definitions as JSON text (strings taken as they are), length-checked first; with
 * `lengths` (approx counting, see `lengthsOnly`), only the texts' lengths (`toolLengths`): a
 * definition of plain data is measured without writing its text (`jsonLength`), anything else is
 * stringified, with the same errors. Agents send the same definitions on every call: writing them
 * was an eighth of a 200-message next call.
 */
function readTools(tools: unknown, call: CallContext, lengths: boolean): void {
  const out = call.wire
  if (tools !== undefined && tools !== null) {
    const list = readList(tools, 'tools', MAX_ITEMS, 'tool definitions')
    if (list === undefined) throw contextError('tools', 'expected an array of tool definitions')
    if (lengths) out.toolLengths = list.map((t, k) => (typeof t === 'string' ? toolString(t, k).length : toolLength(t, k)))
    else out.tools = list.map((t, k) => (typeof t === 'string' ? toolString(t, k) : toolText(t, k)))
    call.tools = list
  }
}

/** A definition given as text: taken as it is, once checked (the binding would replace a lone surrogate silently, as it does for the prompt's). */
function toolString(t: string, k: number): string {
  if (!isWellFormed(t)) throw contextError(`tools[${k}]`, 'contains a lone UTF-16 surrogate (not valid Unicode)')
  return t
}

/** Definition `k`'s JSON text (well-formed: JSON escapes lone surrogates). */
function toolText(t: unknown, k: number): string {
  let s: string | undefined
  try {
    s = jsonText(t)
  } catch (e) {
    throw new ContextEditorError('INVALID_CONTEXT', `context.tools[${k}]: not JSON-serializable (${errorText(e)})`, { path: `tools[${k}]`, cause: e })
  }
  if (s === undefined) throw contextError(`tools[${k}]`, 'not JSON-serializable')
  return s
}

/** The length of definition `k`'s JSON text: measured for plain data (`jsonLength`), else its text's, with the errors of writing it. */
function toolLength(t: unknown, k: number): number {
  const n = jsonLength(t)
  return n >= 0 ? n : toolText(t, k).length
}

/** `context.usageAnchor` and `context.tokenCorrection` (the middlewares' usage-anchored counting). */
function readUsage(read: (name: keyof EditContext) => unknown, out: WireContext): void {
  const anchor = read('usageAnchor')
  if (anchor !== undefined && anchor !== null) {
    const part = (key: 'index' | 'tokens'): number => {
      let v: unknown
      try {
        v = typeof anchor === 'object' ? field(anchor, key) : undefined
      } catch (e) {
        throw unreadable('INVALID_CONTEXT', `context.usageAnchor.${key}`, e, { path: `usageAnchor.${key}` })
      }
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw contextError(`usageAnchor.${key}`, `expected an integer >= 0, got ${shown(v)}`)
      return v
    }
    out.anchorIndex = part('index')
    out.anchorTokens = part('tokens')
  }
  const correction = read('tokenCorrection')
  if (correction !== undefined && correction !== null) {
    if (typeof correction !== 'number' || !Number.isFinite(correction) || correction <= 0 || correction > 100) {
      throw contextError('tokenCorrection', `expected a ratio above 0 and at most 100, got ${shown(correction)}`)
    }
    out.tokenCorrection = correction
  }
}

/**
 * The caller's array `value` copied with guarded reads (`undefined` when it is no array): at most
 * `max` entries, and only the first `upTo`.
 */
function readList(value: unknown, field: string, max: number, what: string, upTo = max): unknown[] | undefined {
  let n: number
  try {
    if (!Array.isArray(value)) return undefined
    n = value.length
  } catch (e) {
    throw unreadable('INVALID_CONTEXT', `context.${field}`, e, { path: field })
  }
  if (n > max) throw contextError(field, `expected at most ${max.toLocaleString('en-US')} ${what}, got ${n.toLocaleString('en-US')}`)
  const out = new Array<unknown>(Math.min(n, upTo))
  for (let k = 0; k < out.length; k++) {
    try {
      out[k] = isPolluted() && !Object.hasOwn(value, k) ? undefined : value[k]
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', `context.${field}[${k}]`, e, { path: `${field}[${k}]` })
    }
  }
  return out
}

/** The context fields a recount reads, from the call's snapshot (the summarizer may change the caller's). */
export function recountContext(call: CallContext): EditContext {
  const { wire } = call
  return {
    systemPrompt: own(wire, 'systemPrompt'),
    // Sent as lengths (approx), the definitions are read again by the recount, as the caller gave them.
    tools: own(wire, 'tools') ?? call.tools,
    model: own(wire, 'model'),
    maxInputTokens: own(wire, 'maxInputTokens'),
    messageTokens: call.messageTokens?.slice(),
  }
}

/**
 * The context for counting `out`: per-message counts (`messageTokens`) are given by input index,
 * so each output message takes the count of the input message it is; new messages (the summary,
 * cleared copies) are counted by the editor's method.
 */
export function contextFor(context: EditContext | null | undefined, messages: readonly unknown[], out: readonly unknown[]): EditContext | null | undefined {
  const counts = context === undefined || context === null ? undefined : own(context, 'messageTokens')
  if (!counts) return context
  const at = new Map<unknown, number>()
  messages.forEach((m, i) => at.has(m) || at.set(m, i))
  return {
    ...context,
    messageTokens: out.map((m) => {
      const i = at.get(m)
      return i === undefined ? undefined : counts[i]
    }),
  }
}
