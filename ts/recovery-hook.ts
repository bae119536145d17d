// Overflow recovery for a middleware that does not edit the request itself: the summarization
// middlewares (LangChain `summarizationMiddleware`, Xpert `ContextEditorSummarizationMiddleware`).
//
// Their model call goes through `recoveringCall`: when it fails with a context-length error
// (`overflow.ts`; any other error reaches the caller as it is, the same object), the request that was
// sent (its summary already in place) is re-edited once with `recovery.ts`'s last resorts (every tool
// result and its inputs cleared, reasoning removed, the oldest messages dropped if still over) to
// `recovery.target` of the limit, and sent again, once; the retry's error, whatever it is, goes to
// the caller. The recovery is in a report (`recovery`, as the context-editing middleware's) and the
// answer's `response_metadata.context_editor.recovery`. Summaries are not written during a recovery:
// they need a model call of their own.

import { learnFromRecovery, type ConversationState, type Conversations } from './budget.js'
import { ContextEditor } from './editor.js'
import type { EditContext } from './editor.js'
import { editContextFor } from './middleware.js'
import type { EditReport, EditorOptions } from './native.js'
import { classifyOverflow } from './overflow.js'
import {
  noteRecovery,
  readRecoveryOption,
  recoveryEdit,
  recoveryRecord,
  recoveryTarget,
  type RecoveryEditors,
  type RecoveryOptions,
  type RecoveryRecord,
} from './recovery.js'
import type { ResolvedOptions } from './schema.js'
import { field, listCopy, type AnyMessage } from './wire.js'

/** A report of a recovery pass: the re-edit's report with the record. */
export type RecoveryReport = EditReport & { recovery: RecoveryRecord }

/** What a recovering model call needs: the options read, how tokens are counted, where to report. */
export interface RecoveringCallOptions {
  recovery: RecoveryOptions
  /** How the re-edit counts (`tokenCountMethod` and the like; no edits). */
  counting: Readonly<EditorOptions>
  /** The configured input limit (`maxInputTokens`), else the model's profile and the table. */
  maxInputTokens?: number
  onReport?: ((report: RecoveryReport) => void) | null
  /**
   * The conversations the middleware serves (shared with its summarization hooks): a recovery's
   * ratio and stated limit are kept there and correct the conversation's later calls.
   */
  conversations?: Conversations
}

/**
 * Reads the `recovery` option of a middleware (`name` for errors) and the counting options its
 * re-edit uses (`tokenCountMethod`).
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming `recovery`, `recovery.target` or `recovery.enabled`.
 */
export function readRecovering(options: Record<string, unknown>, name: string): RecoveringCallOptions {
  const recovery = readRecoveryOption(options.recovery, name)
  const counting: Record<string, unknown> = { edits: [] }
  const method = options.tokenCountMethod
  if (method !== undefined && method !== null && method !== 'usage') counting.tokenCountMethod = method
  const max = options.maxInputTokens
  return { recovery, counting: counting as EditorOptions, maxInputTokens: typeof max === 'number' ? max : undefined }
}

/**
 * The model call through `handler`, recovered once from a context-length error (see the notes at
 * the top). Build it once per middleware: it keeps the re-edit's editors.
 */
export function recoveringCall(options: RecoveringCallOptions) {
  const editors: RecoveryEditors = new Map()
  const resolved = { maxInputTokens: options.maxInputTokens, fixedModel: false } as ResolvedOptions
  return async function call<R, T>(request: R, handler: (request: R) => T | Promise<T>): Promise<T> {
    if (!options.recovery.enabled) return handler(request)
    try {
      return await handler(request)
    } catch (error) {
      const overflow = classifyOverflow(error)
      if (overflow === undefined) throw error
      let attempt: Awaited<ReturnType<typeof reEdit>>
      try {
        attempt = await reEdit(editors, options, request, editContextFor(request as never, resolved), overflow)
      } catch {
        // A request that cannot be re-edited (no messages, one that no longer reads) leaves the
        // provider's error to the caller, as it is.
        throw error
      }
      // A re-edit that cannot shrink the request (nothing left to clear or drop) would send it
      // again as it was: the provider's error goes to the caller instead, as it is.
      if (attempt.record.tokensAfter >= attempt.counted) throw error
      // What the refusal taught: the conversation's later calls count with the ratio and plan
      // against the stated limit (the summary fires before the provider refuses again).
      learnFromRecovery(attempt.state, attempt.record, attempt.model)
      const report = attempt.report as RecoveryReport
      report.recovery = attempt.record
      if (options.onReport) options.onReport(report)
      // Once: the retry's own error, whatever it is, goes to the caller.
      const response = await handler({ ...request, messages: attempt.messages } as R)
      noteRecovery(response, attempt.record)
      return response
    }
  }
}

async function reEdit(
  editors: RecoveryEditors,
  options: RecoveringCallOptions,
  request: unknown,
  context: EditContext,
  overflow: NonNullable<ReturnType<typeof classifyOverflow>>,
): Promise<{
  messages: AnyMessage[]
  record: RecoveryRecord
  report: EditReport
  counted: number
  state: ConversationState | undefined
  model: string | undefined
}> {
  const list = field(request, 'messages')
  if (!Array.isArray(list) || list.length === 0) throw new TypeError('no messages')
  const messages = listCopy(list) as AnyMessage[]
  const state = options.conversations?.of(messages)
  const counted = new ContextEditor(options.counting).countTokens(messages, context).total
  const aim = recoveryTarget({ overflow, counted, knownLimit: context.maxInputTokens ?? undefined, learned: state?.ratio, options: options.recovery })
  const { result, dropped } = await recoveryEdit(editors, options.counting, messages, context, aim.targetCounted)
  const record = recoveryRecord(aim, result.report, messages.length, result.messages.length, dropped)
  return { messages: result.messages, record, report: result.report, counted, state, model: context.model ?? undefined }
}
