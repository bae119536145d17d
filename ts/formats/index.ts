// The codec layer between the caller's messages and the editor (see types.ts for the design).
//
// `FormatCodec.decode` reads what the caller passed (a message array, or a whole request: Anthropic
// `{ system, messages }`, Responses `{ instructions, input }`, chat `{ messages }`), tells its format
// (`detect.ts`, or the `format` option) and, for a foreign format, returns the units the editor runs
// on and the way back: `encode` aligns the edited units with the plan and lets each segment rebuild
// its messages; `remap*` turn unit indices in reports, plans, counts and errors into the caller's
// message indices. Native messages (LangChain, OpenAI chat) pass through untouched.
//
// Segments are kept per message object (a WeakMap keyed by a segment's first message, checked by
// identity and by what decoding read), so the units of an unchanged message are the same objects
// on every call: the editor's sessions and cleared-copy memo work as they do for LangChain.

import { ContextEditorError, unreadable } from '../errors.js'
import type { EditPlan, EditReport, PlanOp, TokenCountResult } from '../native.js'
import { type AnyMessage, field, messageError, messageList } from '../wire.js'
import { aisdkSegment, aisdkSummary } from './aisdk.js'
import { anthropicSegment, anthropicSummary } from './anthropic.js'
import { detectFormat, FORMAT_NAMES } from './detect.js'
import { responsesJoins, responsesSegment, responsesSummary } from './responses.js'
import { mastraSegment, mastraSummary } from '../mastra/codec.js'
import { type ForeignFormat, hasBreakpoint, isObject, MESSAGE_FORMATS, type MessageFormat, type RequestParts, type Segment, systemText } from './types.js'

export { detectFormat, ruledOut } from './detect.js'
export { MESSAGE_FORMATS } from './types.js'
export type { MessageFormat } from './types.js'

/** The `format` option: a format, or `auto` (the default) to tell it from the messages. */
export type FormatOption = MessageFormat | 'auto'

/** The fields each format's decoding reads of a message (besides the entries of its lists). */
const PRINT_FIELDS: Record<ForeignFormat, readonly string[]> = {
  anthropic: ['role', 'content'],
  aisdk: ['role', 'content'],
  mastra: ['role', 'content'],
  responses: ['type', 'role', 'content', 'output', 'arguments', 'input', 'call_id', 'callId', 'name', 'id'],
}

/**
 * Whether `m` still holds what `print` recorded (`printOf`), compared in place: this runs for every
 * message on every call, so it allocates nothing.
 */
function printMatches(m: unknown, print: readonly unknown[], format: ForeignFormat): boolean {
  if (!isObject(m)) return print.length === 1 && Object.is(print[0], m)
  let k = 0
  const next = (v: unknown): boolean => Object.is(print[k++], v)
  for (const f of PRINT_FIELDS[format]) if (!next(m[f])) return false
  const entries = (list: unknown): boolean => {
    if (!Array.isArray(list)) return true
    if (!next(list.length)) return false
    for (const b of list) if (!next(b)) return false
    return true
  }
  if (!entries(m.content) || !entries(m.output)) return false
  const parts = isObject(m.content) ? m.content.parts : undefined
  if (Array.isArray(parts)) {
    if (!next(parts.length)) return false
    for (const p of parts) {
      if (!next(p)) return false
      const inv = isObject(p) ? p.toolInvocation : undefined
      if (isObject(inv) && !(next(inv) && next(inv.state) && next(inv.result) && next(inv.args))) return false
    }
  }
  return k === print.length
}

/** What decoding read of `m` (entries of its content/output lists too): a change makes a new segment. */
function printOf(m: unknown, format: ForeignFormat): unknown[] {
  if (!isObject(m)) return [m]
  const out: unknown[] = PRINT_FIELDS[format].map((f) => m[f])
  for (const list of [m.content, m.output]) {
    if (!Array.isArray(list)) continue
    out.push(list.length)
    for (const b of list) out.push(b)
  }
  // Mastra: the parts of `content`, and what an invocation holds (the loop fills results in).
  const parts = isObject(m.content) ? m.content.parts : undefined
  if (Array.isArray(parts)) {
    out.push(parts.length)
    for (const p of parts) {
      out.push(p)
      const inv = isObject(p) ? p.toolInvocation : undefined
      if (isObject(inv)) out.push(inv, inv.state, inv.result, inv.args)
    }
  }
  return out
}

/** Reads the `format` option (constructor or call). */
export function readFormat(value: unknown, where: 'options' | 'context'): FormatOption | undefined {
  if (value === undefined || value === null) return undefined
  if (value === 'auto' || (typeof value === 'string' && (MESSAGE_FORMATS as readonly string[]).includes(value))) return value as FormatOption
  const code = where === 'options' ? 'INVALID_OPTIONS' : 'INVALID_CONTEXT'
  throw new ContextEditorError(
    code,
    `${where === 'options' ? '' : 'context.'}format: expected one of auto, ${MESSAGE_FORMATS.join(', ')}, got ${JSON.stringify(value)}`,
    {
      path: 'format',
    },
  )
}

/** A decoded call: the units for the editor and the way back. */
export interface Decoded {
  format: MessageFormat
  /** How many messages the caller passed. */
  count: number
  /** The messages for the editor. */
  units: unknown[]
  /** The request's system prompt, tools and model (for fields the call's context leaves out). */
  parts: RequestParts
  /** The caller's messages in their format, rebuilt from the edited units; with the request rebuilt around them. */
  encode(edited: readonly AnyMessage[], plan: Pick<EditPlan, 'ops' | 'summary'>): { messages: unknown[]; request?: unknown }
  remapReport(report: EditReport): EditReport
  remapPlan(plan: EditPlan): EditPlan
  remapCounts(counts: TokenCountResult): TokenCountResult
  remapError(e: unknown): unknown
}

interface Placed {
  seg: Segment
  /** Index of its first member in the caller's list, and of its first unit. */
  start: number
  unit: number
}

/** How far after a turn's first item a throwing item is looked for (see `#decodeAt`). */
const MAX_TURN_ITEMS = 10_000

/** Reads foreign formats for one editor (the cleared marker depends on its placeholders). */
export class FormatCodec {
  readonly #placeholders: ReadonlySet<string>
  #segments = new WeakMap<object, Segment>()
  /** Formats told per conversation (first message): only new messages are tested on the next call. */
  #told = new WeakMap<object, { length: number; last: unknown; format: ForeignFormat | 'native' }>()

  constructor(placeholders: ReadonlySet<string>) {
    this.#placeholders = placeholders
  }

  clear(): void {
    this.#segments = new WeakMap()
    this.#told = new WeakMap()
  }

  /** Forgets the segment of `m` (its units are made again on the next call). */
  invalidate(m: unknown): AnyMessage[] {
    if (!isObject(m)) return []
    const seg = this.#segments.get(m)
    this.#segments.delete(m)
    return seg?.units ?? []
  }

  /** The units of messages seen before (for `forget` / `invalidate`). */
  unitsOf(messages: readonly unknown[]): AnyMessage[] {
    const out: AnyMessage[] = []
    for (const m of messages) if (isObject(m)) out.push(...(this.#segments.get(m)?.units ?? []))
    return out
  }

  /**
   * The call's messages decoded, or `undefined` when they go to the editor as they are (a native
   * array). Throws `INVALID_MESSAGE` for messages of no format, or malformed in theirs.
   */
  decode(input: unknown, option: FormatOption | undefined): Decoded | undefined {
    const request = this.#request(input)
    if (request === undefined) return undefined
    const { list, parts, rebuild } = request
    const format = this.#formatOf(list, option ?? 'auto')
    if (format === 'langchain' || format === 'openai' || format === 'native') {
      if (rebuild === undefined) return undefined
      return nativeRequest(format === 'native' ? 'openai' : format, list, parts, rebuild)
    }
    const placed = this.#segmentsOf(list, format)
    const units: AnyMessage[] = []
    for (const p of placed) for (const u of p.seg.units) units.push(u)
    return decoded(format, list, units, placed, parts, rebuild)
  }

  #request(input: unknown): { list: unknown[]; parts: RequestParts; rebuild?: (messages: unknown[]) => unknown } | undefined {
    let isArray: boolean
    try {
      isArray = Array.isArray(input)
    } catch (e) {
      throw unreadable('INVALID_MESSAGE', 'messages', e, { path: 'messages' })
    }
    // An array is read once, length-checked (see `messageList`); anything else that is no request
    // goes to the editor, which says what it expected.
    if (isArray) return { list: messageList(input), parts: {} }
    if (!isObject(input)) return undefined
    let key: 'messages' | 'input'
    let req: Record<string, any>
    try {
      const messages = field(input, 'messages')
      const given = field(input, 'input')
      // No request (a message passed alone, say): the editor says what it expected.
      if (messages === undefined && given === undefined) return undefined
      key = Array.isArray(messages) || given === undefined ? 'messages' : 'input'
      req = { ...input }
    } catch (e) {
      throw unreadable('INVALID_MESSAGE', 'messages', e, { path: 'messages' })
    }
    let list = req[key]
    if (key === 'input' && typeof list === 'string') list = [{ role: 'user', content: list }]
    if (Array.isArray(list)) list = messageList(list)
    else {
      throw new ContextEditorError(
        'INVALID_MESSAGE',
        'messages: expected an array of messages, or a request with a `messages` array (Anthropic, chat, AI SDK) or an `input` (Responses)',
        {
          path: 'messages',
        },
      )
    }
    const parts: RequestParts = {}
    const system = systemText(key === 'input' ? req.instructions : req.system)
    if (system !== undefined) parts.systemPrompt = system
    // Blocks carrying cache breakpoints go as a system message, so that `cacheBreakpoints` counts
    // them among the request's 4 (the text counted is the same).
    const blocks = key === 'input' ? undefined : req.system
    if (Array.isArray(blocks) && hasBreakpoint(blocks) && system !== undefined) parts.systemPrompt = { role: 'system', content: blocks }
    if (Array.isArray(req.tools)) parts.tools = req.tools
    if (typeof req.model === 'string') parts.model = req.model
    const given = req[key]
    return {
      list,
      parts,
      // An `input` string with nothing edited stays the string.
      rebuild: (messages) => ({ ...req, [key]: typeof given === 'string' && messages.length === 1 && messages[0] === list[0] ? given : messages }),
    }
  }

  #formatOf(list: unknown[], option: FormatOption): ForeignFormat | 'native' | 'langchain' | 'openai' {
    if (option !== 'auto') return option
    const head = list[0]
    if (!isObject(head)) return 'native'
    const told = this.#told.get(head)
    const grown = told !== undefined && told.length <= list.length && told.length > 0 && list[told.length - 1] === told.last
    const format = grown ? detectFormat(list, told.length, told.format) : detectFormat(list)
    this.#told.set(head, { length: list.length, last: list[list.length - 1], format })
    return format
  }

  #segmentsOf(list: readonly unknown[], format: ForeignFormat): Placed[] {
    const out: Placed[] = []
    let unit = 0
    for (let i = 0; i < list.length;) {
      const m = list[i]
      let seg: Segment | undefined
      try {
        if (!isObject(m)) throw new ContextEditorError('INVALID_MESSAGE', `messages[${i}]: expected a message object`, { messageIndex: i })
        seg = this.#segments.get(m)
        if (seg !== undefined && !this.#fits(seg, list, i, format)) seg = undefined
      } catch (e) {
        // A revoked Proxy or a throwing getter: the caller's, named by the field that throws.
        throw messageError(e, i, m)
      }
      if (seg === undefined) {
        seg = this.#decodeAt(list, i, format)
        this.#segments.set(m as object, seg)
      }
      out.push({ seg, start: i, unit })
      unit += seg.units.length
      i += seg.members.length
    }
    return out
  }

  /** Whether kept segment `seg` still stands for `list[i..]` in `format`. */
  #fits(seg: Segment & { format?: ForeignFormat }, list: readonly unknown[], i: number, format: ForeignFormat): boolean {
    if (seg.format !== format || i + seg.members.length > list.length) return false
    for (let k = 0; k < seg.members.length; k++) {
      if (list[i + k] !== seg.members[k] || !printMatches(list[i + k], seg.prints[k], format)) return false
    }
    if (format !== 'responses') return true
    try {
      return !responsesJoins(seg, list[i + seg.members.length])
    } catch {
      // The next item cannot be read: it is decoded (and named) on its own.
      return true
    }
  }

  #decodeAt(list: readonly unknown[], i: number, format: ForeignFormat): Segment {
    const m = list[i] as Record<string, any>
    try {
      let seg: Segment
      if (format === 'anthropic') seg = anthropicSegment(m, i, this.#placeholders)
      else if (format === 'aisdk') seg = aisdkSegment(m, i, this.#placeholders)
      else if (format === 'mastra') seg = mastraSegment(m, i, this.#placeholders)
      else seg = responsesSegment(list, i, this.#placeholders)
      return Object.assign(seg, { format, prints: seg.members.map((x) => printOf(x, format)) })
    } catch (e) {
      if (e instanceof ContextEditorError) throw e
      // A getter or Proxy trap that throws: the caller's, named by the message and field that throw
      // (a Responses turn reads the items after its first).
      for (let k = i; k < list.length && k < i + MAX_TURN_ITEMS; k++) {
        const named = messageError(e, k, list[k])
        if (named.code !== 'INTERNAL') throw named
      }
      throw messageError(e, i, m)
    }
  }
}

/** A native conversation given as a whole request: only the request is rebuilt. */
function nativeRequest(format: MessageFormat, list: unknown[], parts: RequestParts, rebuild: (m: unknown[]) => unknown): Decoded {
  const same = <T>(x: T): T => x
  return {
    format,
    count: list.length,
    units: list,
    parts,
    encode: (edited) => ({ messages: edited as unknown[], request: rebuild(edited as unknown[]) }),
    remapReport: same,
    remapPlan: same,
    remapCounts: same,
    remapError: same,
  }
}

const SUMMARY: Record<ForeignFormat, (role: 'user' | 'assistant', text: string) => unknown> = {
  anthropic: anthropicSummary,
  responses: responsesSummary,
  aisdk: aisdkSummary,
  mastra: mastraSummary,
}

function decoded(
  format: ForeignFormat,
  list: unknown[],
  units: AnyMessage[],
  placed: Placed[],
  parts: RequestParts,
  rebuild: ((m: unknown[]) => unknown) | undefined,
): Decoded {
  const origins = new Origins(list.length, placed)
  return {
    format,
    count: list.length,
    units,
    parts,
    encode(edited, plan) {
      const messages = encodeAll(format, placed, units, edited, plan)
      return rebuild === undefined ? { messages } : { messages, request: rebuild(messages) }
    },
    remapReport: (report) => origins.report(report),
    remapPlan: (plan) => origins.plan(plan),
    remapCounts: (counts) => origins.counts(counts),
    remapError: (e) => origins.error(e, format),
  }
}

/** The caller's messages rebuilt from the edited units, segment by segment, the summary in its place. */
function encodeAll(
  format: ForeignFormat,
  placed: readonly Placed[],
  units: readonly AnyMessage[],
  edited: readonly AnyMessage[],
  plan: Pick<EditPlan, 'ops' | 'summary'>,
): unknown[] {
  const aligned = align(units, edited, plan)
  const messages: unknown[] = []
  let summaryDone = aligned.summaryAt === undefined
  for (const p of placed) {
    if (!summaryDone && aligned.summaryAt! < p.unit + p.seg.units.length) {
      messages.push(summaryOf(format, aligned.summary!))
      summaryDone = true
    }
    const { units: own, members } = p.seg
    let same = true
    for (let k = 0; k < own.length && same; k++) same = aligned.after[p.unit + k] === own[k]
    if (same) for (const m of members) messages.push(m)
    else for (const m of p.seg.encode(aligned.after.slice(p.unit, p.unit + own.length))) messages.push(m)
  }
  if (!summaryDone) messages.push(summaryOf(format, aligned.summary!))
  return messages
}

/** Where each unit comes from: unit indices in reports, plans, counts and errors turned into the caller's. */
class Origins {
  /** For each unit: the caller's message index, and the part of it. */
  readonly #origin: number[] = []
  readonly #partOf: Array<number | undefined> = []
  readonly #count: number
  readonly #placed: readonly Placed[]

  constructor(count: number, placed: readonly Placed[]) {
    this.#count = count
    this.#placed = placed
    for (const p of placed) {
      for (const f of p.seg.from) {
        this.#origin.push(p.start + f.message)
        this.#partOf.push(f.part)
      }
    }
  }

  at(u: number): number {
    return this.#origin[u] ?? this.#count
  }

  /**
   * The caller's messages all of whose units are in `units` (a Responses turn is several items for one
   * unit; an Anthropic user message may be several units): a message only partly summarized is kept.
   */
  wholly(units: readonly number[]): number[] {
    const set = new Set(units)
    const out: number[] = []
    for (const p of this.#placed) {
      const n = p.seg.units.length
      let all = n > 0
      for (let k = 0; k < n && all; k++) all = set.has(p.unit + k)
      if (all) for (let k = 0; k < p.seg.members.length; k++) out.push(p.start + k)
    }
    return out
  }

  /**
   * How many assistant messages the plan's operations leave with nothing (their only content was
   * reasoning, or calls it removes): encoding removes them, as providers refuse empty content.
   */
  emptied(ops: readonly PlanOp[]): number {
    const thinking = new Set<number>()
    const calls = new Map<number, Set<string>>()
    const gone = new Set<number>()
    for (const op of ops) {
      if (op.type === 'remove_thinking') thinking.add(op.index)
      else if (op.type === 'remove_tool_calls') calls.set(op.index, new Set(op.toolCallIds))
      else if (op.type === 'remove') gone.add(op.index)
    }
    if (thinking.size === 0 && calls.size === 0) return 0
    let n = 0
    for (const p of this.#placed) {
      if (p.seg.units.length !== 1 || gone.has(p.unit) || (!thinking.has(p.unit) && !calls.has(p.unit))) continue
      if (leftEmpty(p.seg.units[0], thinking.has(p.unit), calls.get(p.unit))) n++
    }
    return n
  }

  report(report: EditReport): EditReport {
    for (const c of report.cleared ?? []) c.index = this.at(c.index)
    for (const o of report.removedOrphans ?? []) o.index = this.at(o.index)
    return report
  }

  plan(plan: EditPlan): EditPlan {
    const ops = plan.ops.map((op): PlanOp => {
      const part = this.#partOf[op.index]
      const index = this.at(op.index)
      return (part === undefined ? { ...op, index } : { ...op, index, part }) as PlanOp
    })
    const out: EditPlan = { ...plan, ops }
    let report: EditReport | undefined
    const removed = (): number => this.wholly(plan.ops.filter((op) => op.type === 'remove').map((op) => op.index)).length + this.emptied(plan.ops)
    Object.defineProperty(out, 'report', {
      get: () => {
        if (report === undefined) {
          report = this.report(plan.report)
          // Counted in the caller's messages: those the plan removes whole (a summary counts as one).
          report.messagesBefore = this.#count
          report.messagesAfter = this.#count - removed() + (plan.summary ? 1 : 0)
        }
        return report
      },
      enumerable: true,
      configurable: true,
    })
    if (plan.summary) {
      const s = plan.summary
      out.summary = { ...s, replaced: this.wholly(s.replaced), summarized: this.wholly(s.summarized), insertAt: this.at(s.insertAt) }
    }
    return out
  }

  counts(counts: TokenCountResult): TokenCountResult {
    const perMessage = new Array<number>(this.#count).fill(0)
    counts.messages.forEach((n, u) => {
      perMessage[this.at(u)] += n
    })
    return { ...counts, messages: perMessage }
  }

  error(e: unknown, format: ForeignFormat): unknown {
    if (!(e instanceof ContextEditorError) || e.messageIndex === undefined || e.messageIndex >= this.#origin.length) return e
    const u = e.messageIndex
    const part = this.#partOf[u]
    const where = `messages[${this.at(u)}]${part === undefined ? '' : `.content[${part}]`}`
    const message = e.message.replace(/^messages\[\d+\]/, where)
    return new ContextEditorError(e.code, `${message} (in the ${FORMAT_NAMES[format]} format)`, { messageIndex: this.at(u), path: e.path, cause: e })
  }
}

const REASONING = new Set(['thinking', 'redacted_thinking', 'reasoning', 'redacted-reasoning'])

/** Whether AI unit `u` has nothing left once its reasoning (when `thinking`) and the calls `removed` go. */
function leftEmpty(u: AnyMessage, thinking: boolean, removed: ReadonlySet<string> | undefined): boolean {
  if (u.type !== 'ai') return false
  const calls: AnyMessage[] = Array.isArray(u.tool_calls) ? u.tool_calls : []
  if (calls.some((c) => !removed?.has(c.id))) return false
  if (typeof u.content === 'string') return u.content === ''
  if (!Array.isArray(u.content)) return false
  return u.content.every(
    (b: unknown) => isObject(b) && ((thinking && REASONING.has(b.type)) || (b.type === 'tool_use' && typeof b.id === 'string' && removed?.has(b.id) === true)),
  )
}

function summaryOf(format: ForeignFormat, unit: AnyMessage): unknown {
  const role = unit.type === 'ai' ? 'assistant' : 'user'
  return SUMMARY[format](role, typeof unit.content === 'string' ? unit.content : String(unit.content))
}

/**
 * The edited units aligned with the units: `undefined` where a unit was removed, and the summary
 * written (and where it goes). `applyEdits` returns the kept messages in order; which unit each
 * stands for follows from the plan's `remove` operations (those a summary would have replaced
 * are kept when no summary was written). A count that does not add up is a bug: never a guess.
 */
function align(
  units: readonly AnyMessage[],
  edited: readonly AnyMessage[],
  plan: Pick<EditPlan, 'ops' | 'summary'>,
): { after: ReadonlyArray<AnyMessage | undefined>; summaryAt?: number; summary?: AnyMessage } {
  // Nothing removed, no summary: one for one (the plan's operations are not even read, which for a
  // plan made through a session would unpack them all).
  const summary = plan.summary ?? undefined
  if (summary === undefined && edited.length === units.length) return { after: edited }
  const removed = new Set<number>()
  for (const op of plan.ops) if (op.type === 'remove') removed.add(op.index)
  const replaced = new Set(summary?.replaced ?? [])
  const written = summary !== undefined && edited.length === units.length - removed.size + 1
  if (!written) for (const i of replaced) removed.delete(i)
  if (edited.length !== units.length - removed.size + (written ? 1 : 0)) {
    throw new ContextEditorError(
      'INTERNAL',
      `internal error: ${edited.length} edited messages for ${units.length} - ${removed.size} removed (please report this with the input)`,
    )
  }
  const after: Array<AnyMessage | undefined> = []
  let k = 0
  let summaryMessage: AnyMessage | undefined
  for (let i = 0; i < units.length; i++) {
    if (written && summary!.insertAt === i) summaryMessage = edited[k++]
    after.push(removed.has(i) ? undefined : edited[k++])
  }
  if (written && summaryMessage === undefined) summaryMessage = edited[k++]
  return written ? { after, summaryAt: summary!.insertAt, summary: summaryMessage } : { after }
}
