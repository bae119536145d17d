// A plan applied to a conversation: a new array where unchanged messages are the same objects and
// changed ones are copies; at once (`applyPlan`, `applyEdits`) or in pieces that yield to the event
// loop between them (`applyEditsInPieces`). The editor's memo of cleared copies and its reuse of
// the previous output (`ApplyOptions.prefix`) live here too.

import { ContextEditorError, errorText, unreadable } from '../errors.js'
import type { PlanOp, SummaryRequest } from '../native.js'
import { checkSummaryRequest, summaryTextOf } from '../summary.js'
import { withCacheBreakpoint } from './breakpoints.js'
import { readPlan, type ApplicablePlan } from './check-plan.js'
import { handOut, handOutBy, keepOpen, seal, shellMaker, type Seal, type ShellMaker } from './copy.js'
import { clearedInputs, clearedResult, truncatedResult, withoutCalls, withoutThinking } from './edits.js'
import { OBJECT_PROTOTYPE, describe, entry, field, isObject, notePollution, own, polluted } from './fields.js'
import { messageError } from './locate.js'
import { MAX_MESSAGES, isLangChainInstance, partsOf, type AnyMessage } from './shapes.js'

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
  prefix?: {
    kept: readonly unknown[]
    made: readonly number[]
    /** `shellMaker` of each template `made` names, where known (see `Applied.makers`). */
    makers?: ReadonlyArray<ShellMaker | undefined>
    length: number
    upTo: number
    rest?: readonly PlanOp[]
  }
  /**
   * The editor keeps the copies it makes (in `memo`, and as `kept` for a later `prefix`) and hands
   * them out again: what an edit creates inside a copy is frozen, and every copy handed out is a
   * fresh shell of the kept one (see `handOut`). Implied by `memo` and `prefix`.
   */
  shared?: boolean
}

/** Cleared copies (templates, see `handOut`) by original message (see `ApplyOptions.memo`). */
export type ClearedMemo = WeakMap<object, { placeholder: string; strategy: string; copy: AnyMessage; print?: unknown[] }>

/** What applying a plan gives: the output, and the same as the editor keeps it for a later call. */
export interface Applied<T> {
  messages: T[]
  /** The output with the kept templates where `messages` holds fresh shells of them (see `handOut`). */
  kept: unknown[]
  /** The positions of `kept` that hold templates, ascending. */
  made: number[]
  /**
   * The `shellMaker` of each template of `made` (same order), where asked: a template handed out
   * by the next call's `prefix` gets its maker then, and keeps it from call to call.
   */
  makers: Array<ShellMaker | undefined>
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
  return { messages: out, kept: out.slice(), made: [], makers: [] }
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

/** `ops` sorted by index, several for one index in the order given: a copy only when they are not. */
function inOrder(ops: readonly PlanOp[]): readonly PlanOp[] {
  for (let k = 1; k < ops.length; k++) {
    if (ops[k].index < ops[k - 1].index) {
      return ops
        .map((op, at) => ({ op, at }))
        .sort((a, b) => a.op.index - b.op.index || a.at - b.at)
        .map((x) => x.op)
    }
  }
  return ops
}

/**
 * The cleared copy of tool result `m` through the memo: the one made before when `remembered`
 * (the message is known unchanged since) and it was cleared the same way from the same
 * fingerprint `print`, else a new one, remembered.
 */
function memoCleared(memo: ClearedMemo, remembered: boolean, m: AnyMessage, op: PlanOp, i: number, print: unknown[] | undefined, close: Seal): AnyMessage {
  const placeholder = own(op, 'placeholder') ?? '[cleared]'
  const strategy = own(op, 'strategy') ?? 'clear_tool_uses'
  const hit = remembered ? memo.get(m) : undefined
  if (hit !== undefined && hit.placeholder === placeholder && hit.strategy === strategy && hit.print === print) return hit.copy
  const copy = clearedResult(m, op, i, close)
  memo.set(m, { placeholder, strategy, copy, print })
  return copy
}

/** `m` with one operation (other than `remove`) applied. */
function edited(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  switch (op.type) {
    case 'clear_tool_result':
      return clearedResult(m, op, i, close)
    case 'truncate_tool_result':
      return truncatedResult(m, op, i, close)
    case 'remove_thinking':
      return withoutThinking(m, i, close)
    case 'clear_tool_inputs':
      return clearedInputs(m, op, i, close)
    case 'remove_tool_calls':
      return withoutCalls(m, op, i, close)
    case 'cache_breakpoint':
      return withCacheBreakpoint(m, i, close)
    default:
      return m
  }
}

/** A stateful application of `plan`: each call applies the messages up to `end`. */
function applier<T extends AnyMessage>(messages: readonly T[], plan: ApplicablePlan, options: ApplyOptions): ((end: number) => void) & { applied: Applied<T> } {
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
  const ops = inOrder(options.prefix?.rest ?? plan.ops)
  const { memo, memoBelow = 0, memoPrints, prefix } = options
  const shared = options.shared === true || memo !== undefined || prefix !== undefined
  const close = shared ? seal : keepOpen
  const kept = prefix === undefined ? [] : prefix.kept.slice(0, prefix.length)
  const made: number[] = []
  const makers: Array<ShellMaker | undefined> = []
  const out = kept.slice() as T[]
  if (prefix !== undefined) {
    // Templates handed out again: each by its maker, found the first time it is handed out again.
    for (let j = 0; j < prefix.made.length; j++) {
      const k = prefix.made[j]
      if (k >= prefix.length) break
      const template = kept[k] as AnyMessage
      const maker = prefix.makers?.[j] ?? shellMaker(template)
      made.push(k)
      makers.push(maker)
      out[k] = handOutBy(template, maker) as T
    }
  }
  /** Adds a copy this call made or took from the memo: the caller gets its own shell when it is kept. */
  const copied = (copy: AnyMessage): void => {
    if (shared) {
      made.push(kept.length)
      makers.push(undefined)
    }
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
        const print = memoPrints?.[i]
        const remembered = memoPrints !== undefined ? print !== undefined : i < memoBelow
        copied(memoCleared(memo, remembered, m, first, i, print, close))
        continue
      }
      let removed = false
      for (; c < ops.length && ops[c].index === i; c++) {
        if (ops[c].type === 'remove') removed ||= !keptReplaced.has(i)
        else m = edited(m, ops[c], i, close)
      }
      if (removed) continue
      if (m === messages[i]) passed(m)
      else copied(m)
    }
  }
  return Object.assign(step, { applied: { messages: out, kept, made, makers } })
}
