// What the context-editing middleware learns about a conversation's true size, call after call:
// the usage anchor (see `usage.ts`), the correction (true / counted) taught by provider reports and
// by context-length errors (see `recovery.ts`), and the middleware-only options that drive them
// (`recovery`, `tokenCountMethod: "usage"` with `usageFallback`).
//
// A conversation is known by its first message object (an agent sends the same objects on every
// model call); a history that starts with a new object is a new conversation.

import { ContextEditorError } from './errors.js'
import { ContextEditor, type EditContext } from './editor.js'
import type { EditReport } from './native.js'
import { readRecoveryOption, type RecoveryOptions } from './recovery.js'
import { answerPrint, CallLog, findAnchor, MAX_CORRECTION, printsOf, usageOf, USAGE_CORRECTION_THRESHOLD, type AnchorReport } from './usage.js'
import { field, sameList } from './wire.js'

let adjusts: boolean | undefined

/** Whether the native editor applies `tokenCorrection` and anchors (a build that does not counts as before). */
export function coreAdjusts(): boolean {
  if (adjusts === undefined) {
    try {
      const editor = new ContextEditor({ trigger: [] })
      const messages = [{ role: 'user', content: 'x'.repeat(400) }]
      const plain = editor.countTokens(messages).total
      adjusts = editor.countTokens(messages, { tokenCorrection: 2 }).total > plain
    } catch {
      adjusts = false
    }
  }
  return adjusts
}

/** The counting methods a `"usage"` anchor falls back to. */
const FALLBACKS = ['approx', 'model', 'estimate'] as const

/** Options the middleware reads itself, never the core. */
export interface MiddlewareOnly {
  recovery: RecoveryOptions
  /** `tokenCountMethod: "usage"`: anchor counts to provider-reported usage. */
  usage: boolean
}

/**
 * Takes `recovery`, `usageFallback` and a `"usage"` counting method out of the options (the core
 * counts with the fallback, `"approx"` unless set), reads them, and returns the rest. A
 * `usageFallback` without `"usage"` is checked and has no effect (a form may carry it).
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming the option.
 */
export function takeMiddlewareOnly(options: unknown, name: string): { only: MiddlewareOnly; rest: unknown } {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    return { only: { recovery: readRecoveryOption(undefined, name), usage: false }, rest: options }
  }
  const { recovery, usageFallback } = options as Record<string, unknown>
  // A copy without a prototype, as the options' snapshot is: a key put on Object.prototype is no option.
  const rest = Object.create(null) as Record<string, unknown>
  for (const key of Object.keys(options)) {
    if (key !== 'recovery' && key !== 'usageFallback') rest[key] = (options as Record<string, unknown>)[key]
  }
  const usage = rest.tokenCountMethod === 'usage'
  if (usageFallback !== undefined && usageFallback !== null) {
    if (!FALLBACKS.includes(usageFallback as never)) {
      throw new ContextEditorError(
        'INVALID_OPTIONS',
        `${name}: usageFallback: expected one of ${FALLBACKS.join(', ')}, got ${JSON.stringify(usageFallback)?.slice(0, 40) ?? typeof usageFallback}`,
        { path: 'usageFallback' },
      )
    }
  }
  if (usage) rest.tokenCountMethod = usageFallback ?? 'approx'
  return { only: { recovery: readRecoveryOption(recovery, name), usage }, rest }
}

/** What the middleware remembers of one conversation. */
export interface ConversationState {
  /** Ratio true / counted to correct totals by (from usage or a recovery); `undefined` = counts agree. */
  ratio?: number
  /** Whether `ratio` is exact (a lower bound when a recovery knew only the limit). */
  ratioExact?: boolean
  /** Where `ratio` came from. */
  ratioSource?: 'usage' | 'recovery'
  recoveries: number
  /**
   * The input limit a provider's context-length error stated (the smallest seen), and the model it
   * was stated for: later calls of that model use it when it is below the one found (a profile or
   * table window larger than what the server serves: Ollama's num_ctx, vLLM's max_model_len, a
   * Claude profile of the 1M beta).
   */
  limit?: { tokens: number; model: string | undefined }
  /** The newest calls (for the usage anchor); kept once usage has been seen, or in usage mode. */
  log: CallLog
  sawUsage: boolean
}

/** The states of the conversations one middleware serves, by first message object. */
export class Conversations {
  readonly #map = new WeakMap<object, ConversationState>()

  of(messages: readonly unknown[]): ConversationState | undefined {
    const head = messages[0]
    if (head === null || typeof head !== 'object') return undefined
    let state = this.#map.get(head)
    if (state === undefined) {
      state = { recoveries: 0, log: new CallLog(), sawUsage: false }
      this.#map.set(head, state)
    }
    return state
  }
}

/** A call being prepared: the context to plan with, and what the report will say. */
export interface PreparedCall {
  context: EditContext
  /** The correction applied to this call's totals. */
  correction?: number
  anchor?: AnchorReport
  /** The text of the system prompt and tools, to tell whether they changed between calls. */
  fixed: string
}

/**
 * The last fixed text made of strings alone (the prompt's text, the tools as the middlewares pass
 * them), and those strings. An agent sends the same ones on every call, and writing a long prompt
 * as JSON was 9 % of a 200-message next call; strings are values, so equal ones give the same text.
 */
let lastFixed: { text: string | null; tools: readonly string[]; fixed: string } | undefined

function fixedText(context: EditContext): string {
  const system = context.systemPrompt
  let text: unknown = system
  if (system !== null && typeof system === 'object') {
    try {
      text = field(system, 'content')
    } catch {
      text = undefined
    }
  }
  try {
    const tools = context.tools ?? []
    const prompt = text ?? null
    // The kept strings equal to these: the same text (the kept ones are all strings).
    if (lastFixed !== undefined && lastFixed.text === prompt && Array.isArray(tools) && sameList(lastFixed.tools, tools)) return lastFixed.fixed
    const fixed = JSON.stringify([prompt, tools]) ?? ''
    if ((prompt === null || typeof prompt === 'string') && Array.isArray(tools) && tools.every((t) => typeof t === 'string')) {
      lastFixed = { text: prompt, tools: [...tools] as string[], fixed }
    }
    return fixed
  } catch {
    return String(Math.random())
  }
}

/**
 * The call's context with the conversation's anchor (usage mode, when fresh) and correction. An
 * anchor also teaches the correction: its reported input over what the middleware counted it sent.
 */
export function prepareCall(state: ConversationState | undefined, messages: readonly unknown[], context: EditContext, usageMode: boolean): PreparedCall {
  if (state === undefined) return { context, fixed: '' }
  const fixed = fixedText(context)
  let anchor: AnchorReport | undefined
  let anchorTokens: number | undefined
  {
    const found = findAnchor(messages, state.log, fixed)
    if (found.usage !== undefined) state.sawUsage = true
    // A correction for the other methods: "usage" counts from the report itself.
    if (!usageMode && found.report.status === 'used' && found.record?.countedSent !== undefined && found.record.countedSent > 0) {
      const ratio = found.usage!.input / found.record.countedSent
      if (Math.abs(ratio - 1) > USAGE_CORRECTION_THRESHOLD) {
        state.ratio = ratio
        state.ratioExact = true
        state.ratioSource = 'usage'
      } else if (state.ratioSource === 'usage' || state.ratioExact) {
        state.ratio = undefined
        state.ratioSource = undefined
      }
    }
    if (usageMode) {
      anchor = found.report
      if (found.report.status === 'used') anchorTokens = found.report.tokens
    }
  }
  const out: EditContext = { ...context }
  // Keep the non-enumerable fields the caller put on the context (where its limit came from).
  for (const key of Object.getOwnPropertySymbols(context)) Object.defineProperty(out, key, { value: (context as never)[key], enumerable: false })
  // "usage" is corrected only by what a recovery learned; the other methods by provider reports too.
  const ratio = usageMode && state.ratioSource !== 'recovery' ? undefined : state.ratio
  // Asked only when there is something to apply: the check costs a first call ~1.5 ms.
  const applies = (anchorTokens !== undefined || ratio !== undefined) && coreAdjusts()
  if (anchorTokens !== undefined && applies) {
    out.usageAnchor = { index: anchor!.index!, tokens: anchorTokens }
  } else if (anchor?.status === 'used') {
    anchor = { ...anchor, status: 'unverified' }
  }
  if (ratio !== undefined && applies) out.tokenCorrection = ratio
  const prepared: PreparedCall = { context: out, fixed }
  if (ratio !== undefined && applies) prepared.correction = ratio
  if (anchor !== undefined) prepared.anchor = anchor
  return prepared
}

/**
 * Remembers the call (its messages, fingerprints and counts) for the anchors of later calls. The
 * report is read from `result` only then: an edit's report is parsed when first read.
 */
export function recordCall(
  state: ConversationState | undefined,
  messages: readonly unknown[],
  prepared: PreparedCall,
  result: { readonly report: EditReport },
  usageMode: boolean,
): void {
  if (state === undefined || !(usageMode || state.sawUsage)) return
  const report = result.report
  const scale = prepared.correction ?? 1
  const anchored = prepared.anchor?.status === 'used'
  state.log.add({
    refs: messages,
    prints: printsOf(messages),
    fixed: prepared.fixed,
    // An anchored total is offset by an amount only the core knows: no count to learn from.
    countedSent: anchored ? undefined : report.tokensAfter / scale,
    expected: report.tokensAfter,
    freed: Math.max(0, report.tokensBefore - report.tokensAfter) / scale,
  })
}

/**
 * The call's answer: its usage (when it carries one) goes with the call's record, so that only that
 * answer anchors a later call, not another AI message put in its place. Returns `response`.
 */
export function answered<T>(state: ConversationState | undefined, messages: readonly unknown[], response: T): T {
  if (state === undefined) return response
  const usage = usageOf(response)
  if (usage !== undefined) state.log.answered(messages, { input: usage.input, output: usage.output, print: answerPrint(response) })
  return response
}

/**
 * After a recovery the answer's usage measured the recovery pass's request, not the first pass's:
 * the call's record takes the recovery's count (uncorrected) and what it freed.
 */
export function recordRecovery(state: ConversationState | undefined, messages: readonly unknown[], report: EditReport): void {
  if (state === undefined) return
  state.log.resent(messages, { countedSent: report.tokensAfter, expected: report.tokensAfter, freed: Math.max(0, report.tokensBefore - report.tokensAfter) })
}

/**
 * Keeps what a recovery learned (`refused`: its record): the ratio, where an exact one replaces
 * anything and a lower bound only raises, and the input limit the provider's error stated for
 * `model`, when it is the smallest seen for it. Later calls are corrected by at most
 * `MAX_CORRECTION` (the core's bound): an error that states a size far beyond what was counted
 * (images or files counted otherwise, a proxy's total) must not make every later call of the
 * conversation fail.
 */
export function learnFromRecovery(
  state: ConversationState | undefined,
  refused: { ratio: number; ratioExact: boolean; limit: number; limitSource: string },
  model: string | undefined,
): void {
  if (state === undefined) return
  const { ratioExact: exact, limit } = refused
  if (refused.limitSource === 'error' && Number.isSafeInteger(limit) && limit > 0) {
    if (state.limit === undefined || state.limit.model !== model || limit < state.limit.tokens) state.limit = { tokens: limit, model }
  }
  const ratio = Math.min(refused.ratio, MAX_CORRECTION)
  state.recoveries++
  if (exact || state.ratio === undefined || ratio > state.ratio) {
    state.ratio = ratio
    state.ratioExact = exact
    state.ratioSource = 'recovery'
  }
}
