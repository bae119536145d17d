// Recovery when the provider says "too long" although the count said the request fit.
//
// The middleware sends the edited request; when the model call fails with a context-length error
// (see `overflow.ts`; any other error is rethrown as it is, the same object), it re-edits the
// *original* messages once, to a target below the limit, and retries once:
//
// - the true size and the limit come from the error when it gives them; otherwise the limit is the
//   call's known input limit, and failing that, the size that was just refused;
// - the ratio true/counted (when the error gives the true size: exact; when it gives only the limit:
//   a lower bound, limit/counted) turns the target into the counting method's unit;
// - the pass runs the user's pipeline with every trigger set to that target (summaries excepted:
//   they need a model call of their own), then a last-resort `clear_tool_uses` (every result, inputs
//   too, excluded tools included) and `clear_thinking`; if the request is still over the target, the
//   oldest messages go (`last_n`, which keeps leading system messages and tool calls with their
//   results), never the newest one;
// - the retry's error, whatever it is, goes to the caller: there is no second retry.
//
// The ratio is what the conversation's later calls are corrected by (`tokenCorrection`).

import { ContextEditor } from './editor.js'
import type { EditContext, EditResult } from './editor.js'
import { ContextEditorError } from './errors.js'
import type { EditReport, EditorOptions } from './native.js'
import type { Overflow } from './overflow.js'
import type { AnyMessage } from './wire.js'
import { OPTIONS_SCHEMA } from './generated/options-schema.js'

/** The `recovery` option, read. */
export interface RecoveryOptions {
  /** Catch context-length errors of the model call and retry once, re-edited. @default true */
  enabled: boolean
  /** Share of the limit the re-edited request is cut to (0 < target <= 1). @default 0.8 */
  target: number
}

export const DEFAULT_RECOVERY: Readonly<RecoveryOptions> = Object.freeze({ enabled: true, target: 0.8 })

/** What one recovery did: in the report (`recovery`) and the answer's `response_metadata.context_editor.recovery`. */
export interface RecoveryRecord {
  /** Which error shape was recognized (`openai`, `anthropic`, `google`, `context-overflow-error`, ...). */
  error: string
  /** The input limit used, and where it came from: the error's message, the call's known limit, or the refused size. */
  limit: number
  limitSource: 'error' | 'known' | 'refused'
  /** The refused request's true size, when the error gave it. */
  actual?: number
  /** The refused request as counted (the counting method's tokens, uncorrected). */
  counted: number
  /** True / counted: exact when the error gave the true size, else a lower bound (limit / counted). */
  ratio: number
  ratioExact: boolean
  /** The target in true tokens (`recovery.target` × limit) and in counted tokens (÷ ratio). */
  target: number
  targetCounted: number
  /** The re-edited request as counted, and its estimated true size (× ratio). */
  tokensAfter: number
  estimatedTokensAfter: number
  messagesBefore: number
  messagesAfter: number
  /** Whether the oldest messages had to go (`last_n`) after clearing everything clearable. */
  droppedMessages: number
}

/**
 * Reads `recovery` (`true`/`false`, `null` = default, or `{ enabled, target }`).
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming `recovery` or `recovery.target` / `recovery.enabled`.
 */
export function readRecoveryOption(value: unknown, name: string): RecoveryOptions {
  const fail = (path: string, what: string) => new ContextEditorError('INVALID_OPTIONS', `${name}: ${path}: ${what}`, { path })
  if (value === undefined || value === null) return { ...DEFAULT_RECOVERY }
  if (typeof value === 'boolean') return { ...DEFAULT_RECOVERY, enabled: value }
  if (typeof value !== 'object' || Array.isArray(value))
    throw fail('recovery', `expected true, false or { enabled, target }, got ${Array.isArray(value) ? 'an array' : typeof value}`)
  const out = { ...DEFAULT_RECOVERY }
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key]
    if (v === null || v === undefined) continue
    if (key === 'enabled') {
      if (typeof v !== 'boolean') throw fail('recovery.enabled', `expected a boolean, got ${typeof v}`)
      out.enabled = v
    } else if (key === 'target') {
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > 1)
        throw fail('recovery.target', `expected a number above 0 and at most 1, got ${typeof v === 'number' ? v : typeof v}`)
      out.target = v
    } else {
      throw fail(`recovery.${key}`, 'unknown option (expected enabled or target)')
    }
  }
  return out
}

/**
 * The keys of a `clear_tool_uses` edit, which the flat options are a shorthand for (the declared
 * schema's). Every other top-level key (how tokens are counted, the message format, pins) is the
 * whole editor's and stays at the top of every recovery editor's options: put into the flat edit,
 * `format` or `pin` made the recovery fail with INVALID_OPTIONS instead of retrying.
 */
const EDIT_KEYS: ReadonlySet<string> = new Set(
  Object.keys(((OPTIONS_SCHEMA.$defs.ClearToolUsesOptions as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}) as object),
)

/** The editor-wide options of `options` (neither `edits` nor a flat edit key), as they are. */
function editorWide(options: Readonly<EditorOptions>): Record<string, unknown> {
  const o = options as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(o)) if (key !== 'edits' && !EDIT_KEYS.has(key) && o[key] !== undefined) out[key] = o[key]
  return out
}

/** The user's edits as a list (the flat keys are one `clear_tool_uses` edit). */
function userEdits(options: Readonly<EditorOptions>): Record<string, unknown>[] {
  const o = options as Record<string, unknown>
  if (Array.isArray(o.edits)) return (o.edits as Record<string, unknown>[]).map((e) => ({ ...e }))
  const flat: Record<string, unknown> = { type: 'clear_tool_uses' }
  for (const key of Object.keys(o)) if (EDIT_KEYS.has(key)) flat[key] = o[key]
  return [flat]
}

/** The recovery pipeline: the user's edits firing at `target`, then the last resorts. */
export function recoveryOptions(options: Readonly<EditorOptions>, target: number): EditorOptions {
  const trigger = { tokens: target }
  const edits: Record<string, unknown>[] = []
  let placeholder: unknown
  for (const e of userEdits(options)) {
    const type = e.type ?? 'clear_tool_uses'
    if (type === 'summarize') continue
    const edit: Record<string, unknown> = { ...e, trigger }
    if (type === 'clear_tool_uses') {
      // A stable boundary moves in steps: in a recovery the request must shrink now.
      delete edit.stable
      placeholder ??= e.placeholder
    }
    edits.push(edit)
  }
  const last: Record<string, unknown> = { type: 'clear_tool_uses', trigger, keep: { messages: 0 }, clearToolInputs: true }
  if (typeof placeholder === 'string') last.placeholder = placeholder
  edits.push(last, { type: 'clear_thinking', trigger, keep: { thinkingTurns: 0 } })
  return { ...editorWide(options), edits } as unknown as EditorOptions
}

/** What a recovery needs to know about the refused call. */
export interface RefusedCall {
  overflow: Overflow
  /** The refused request as counted (uncorrected). */
  counted: number
  /** The call's known input limit (options, profile, table), if any. */
  knownLimit?: number
  /** The correction this conversation had learned before. */
  learned?: number
  options: RecoveryOptions
}

/**
 * The record of a recovery: where it aimed (`recoveryTarget`) and what the re-edit left (`report`,
 * `messagesAfter` of the `messagesBefore` sent, `dropped` of them dropped as a last resort).
 */
export function recoveryRecord(
  aim: ReturnType<typeof recoveryTarget>,
  report: { tokensAfter: number },
  messagesBefore: number,
  messagesAfter: number,
  dropped: number,
): RecoveryRecord {
  return {
    ...aim,
    tokensAfter: report.tokensAfter,
    estimatedTokensAfter: Math.ceil(report.tokensAfter * aim.ratio),
    messagesBefore,
    messagesAfter,
    droppedMessages: dropped,
  }
}

/** The sizes a recovery aims at. */
export function recoveryTarget(
  call: RefusedCall,
): Pick<RecoveryRecord, 'limit' | 'limitSource' | 'ratio' | 'ratioExact' | 'target' | 'targetCounted' | 'counted' | 'actual' | 'error'> {
  const { overflow, knownLimit, learned } = call
  const counted = Math.max(1, call.counted)
  let ratio: number
  let ratioExact = false
  if (overflow.actual !== undefined) {
    ratio = overflow.actual / counted
    ratioExact = true
  } else if (overflow.limit !== undefined) {
    // Refused, so the true size was above the stated limit: at least limit / counted.
    ratio = Math.max(learned ?? 1, (overflow.limit + 1) / counted)
  } else {
    ratio = learned ?? 1
  }
  let limit: number
  let limitSource: RecoveryRecord['limitSource']
  if (overflow.limit !== undefined) {
    limit = overflow.limit
    limitSource = 'error'
  } else {
    // The window is below what was refused; a known limit above that is not this server's (an
    // Ollama num_ctx, a vLLM max_model_len below the model's own window).
    const refused = overflow.actual ?? Math.ceil(counted * ratio)
    if (knownLimit !== undefined && knownLimit < refused) {
      limit = knownLimit
      limitSource = 'known'
    } else {
      limit = refused
      limitSource = 'refused'
    }
  }
  const target = Math.floor(limit * call.options.target)
  const targetCounted = Math.max(1, Math.floor(target / ratio))
  const out: ReturnType<typeof recoveryTarget> = { error: overflow.kind, limit, limitSource, counted, ratio, ratioExact, target, targetCounted }
  if (overflow.actual !== undefined) out.actual = overflow.actual
  return out
}

/** A recovery editor per target (a target recurs when the same limit is hit again). */
export type RecoveryEditors = Map<string, ContextEditor>

function editorFor(cache: RecoveryEditors, options: EditorOptions): ContextEditor {
  const key = JSON.stringify(options)
  let editor = cache.get(key)
  if (editor === undefined) {
    if (cache.size >= 16) cache.delete(cache.keys().next().value!)
    editor = new ContextEditor(options)
    cache.set(key, editor)
  }
  return editor
}

/**
 * Re-edits `messages` (the call's original messages) to `targetCounted` counted tokens: the
 * recovery pipeline, then, if still over, the oldest messages dropped. `context` is the call's
 * context without any correction (the target is already in counted tokens).
 */
export async function recoveryEdit<T extends AnyMessage>(
  cache: RecoveryEditors,
  base: Readonly<EditorOptions>,
  messages: readonly T[],
  context: EditContext,
  targetCounted: number,
): Promise<{ result: EditResult<T>; dropped: number }> {
  const first = await editorFor(cache, recoveryOptions(base, targetCounted)).editAsync(messages, context)
  if (first.report.tokensAfter <= targetCounted || first.messages.length <= 1) return { result: first, dropped: 0 }
  const counting = editorWide(base)
  const counter = editorFor(cache, { ...counting, trigger: [] } as EditorOptions)
  const counts = counter.countTokens(first.messages, context)
  // The newest messages that fit (at least one), leading system messages aside.
  const kinds = first.messages.map((m) => isSystem(m))
  let lead = 0
  while (lead < kinds.length && kinds[lead]) lead++
  let total = counts.total
  let keepFrom = lead
  while (keepFrom < first.messages.length - 1 && total > targetCounted) {
    total -= counts.messages[keepFrom]!
    keepFrom++
  }
  const n = Math.max(1, first.messages.length - keepFrom)
  const dropper = editorFor(cache, { ...counting, edits: [{ type: 'last_n', n }] } as EditorOptions)
  const second = await dropper.editAsync(first.messages, context)
  // The report of the whole recovery: the first pass's, with the drop's totals.
  const report: EditReport = first.report
  report.tokensAfter = second.report.tokensAfter
  report.messagesAfter = second.messages.length
  for (const applied of second.report.appliedEdits) report.appliedEdits.push(applied)
  return { result: { messages: second.messages, report }, dropped: first.messages.length - second.messages.length }
}

function isSystem(m: unknown): boolean {
  if (m === null || typeof m !== 'object') return false
  try {
    const getType = (m as { _getType?: unknown })._getType
    if (typeof getType === 'function') return getType.call(m) === 'system'
    const o = m as Record<string, unknown>
    return o.role === 'system' || o.role === 'developer' || o.type === 'system'
  } catch {
    return false
  }
}

/**
 * Writes `record` into the answer's `response_metadata.context_editor.recovery` (an AI message, or
 * an object holding `response_metadata`); leaves anything else as it is.
 */
export function noteRecovery(response: unknown, record: RecoveryRecord): void {
  if (response === null || typeof response !== 'object') return
  try {
    const r = response as { response_metadata?: unknown }
    let meta = r.response_metadata
    if (meta === undefined) {
      if (!('content' in r)) return
      meta = {}
      r.response_metadata = meta
    }
    if (meta === null || typeof meta !== 'object') return
    const m = meta as Record<string, unknown>
    const prev = m.context_editor
    m.context_editor = { ...(prev !== null && typeof prev === 'object' ? prev : {}), recovery: record }
  } catch {
    // A frozen or exotic answer: the report still has the record.
  }
}
