// What an edit returns: the plan applied to the messages, with the summary the summarizer wrote
// (asked with its own copy of the request; an answer that is no summary keeps the messages and
// warns), and the report recounted on what is actually returned.

import { ContextEditorError, errorText } from './errors.js'
import type { EditPlan, EditReport, SummaryRequest } from './native.js'
import type { ClearMediaReport } from './media.js'
import { SUMMARY_EMPTY, SUMMARY_INVALID, SUMMARY_PATH, summaryTextOf } from './summary.js'
import { applyEdits, own, type AnyMessage, type Applied, type ApplyOptions } from './wire.js'
import { contextFor, type EditContext } from './call-context.js'
import { RESULT_PLANS } from './formats/facade.js'

/** The result of `edit`: a new array (unchanged messages are the same objects) and the report. */
export interface EditResult<T> {
  messages: T[]
  report: EditReport
  /** When a whole request was passed (Anthropic, Responses, chat): the request rebuilt around `messages`. */
  request?: unknown
  /**
   * The `clear_media` edits that fired, in pipeline order (before the others ran, so `report`
   * counts the messages with their media already replaced): the blocks each replaced and kept.
   */
  media?: ClearMediaReport[]
}

/** An edit's result, and its output as the editor keeps it (see `Applied`). */
export interface Finished<T> {
  result: EditResult<T>
  applied: Applied<T>
}

/**
 * Calls `context.summarize` (as a method of `context`) with its own deep copy of the request: the
 * plan keeps the original, so whatever the callback does to its copy changes nothing that is
 * applied (and a callback that sorts or annotates it for its own use does not fail). Its throw is
 * the summarizer's error.
 */
export function askSummary(context: EditContext, summarize: unknown, request: SummaryRequest): unknown {
  if (typeof summarize !== 'function') {
    throw new ContextEditorError('INVALID_CONTEXT', `context.summarize: expected a function, got ${summarize === null ? 'null' : typeof summarize}`, {
      path: 'summarize',
    })
  }
  try {
    return summarize.call(context, structuredClone(request))
  } catch (e) {
    throw summaryFailed(e)
  }
}

/** `askSummary`, awaited: a rejection is the summarizer's error too. */
export async function askSummaryAsync(context: EditContext, summarize: unknown, request: SummaryRequest): Promise<unknown> {
  const written = askSummary(context, summarize, request)
  try {
    return await written
  } catch (e) {
    throw summaryFailed(e)
  }
}

function summaryFailed(e: unknown): ContextEditorError {
  const what = errorText(e)
  return new ContextEditorError('SUMMARY_FAILED', `summary: context.summarize threw: ${what}`, { path: SUMMARY_PATH, cause: e })
}

/**
 * What the summarizer gave, for `finish`: the summary text, `''` for no text, or the error saying
 * why its answer is not a summary. Both failures keep the messages and warn; neither blames them.
 */
export type Written = string | ContextEditorError

/**
 * The summary in what the summarizer returned (see `Written`).
 * @throws {ContextEditorError} `INVALID_SUMMARY` (path `summary`) for a Promise, which only the
 * synchronous `edit` can see: a misuse on every call, not an answer (its rejection is not left
 * unhandled).
 */
export function checkSummary(written: unknown): Written {
  let thenable: boolean
  try {
    thenable = written !== null && typeof written === 'object' && typeof (written as { then?: unknown }).then === 'function'
    if (thenable && written instanceof Promise) written.catch(() => {})
  } catch (e) {
    // An answer whose `then` cannot be read: what `await` makes of it in `editAsync`.
    throw summaryFailed(e)
  }
  if (thenable) return summaryTextOf(written)
  try {
    return summaryTextOf(written)
  } catch (e) {
    if (e instanceof ContextEditorError && e.code === 'INVALID_SUMMARY') return e
    throw e
  }
}

/** Why the messages a fired `summarize` edit would replace were kept. */
function summaryWarning(summary: Written | undefined): EditReport['warnings'][number] {
  const kept = 'the messages it would replace were kept'
  if (summary === undefined) {
    return { code: 'summary_skipped', message: `a \`summarize\` edit fired but no \`context.summarize\` was given; ${kept}` }
  }
  // `path` names the summary: the summarizer's answer is at fault, not a message.
  const warning =
    summary === ''
      ? { code: SUMMARY_EMPTY, message: `summary: the summarizer returned no text (empty, blank, or only reasoning); ${kept}` }
      : { code: SUMMARY_INVALID, message: `${(summary as ContextEditorError).message}; ${kept}` }
  return Object.assign(warning, { path: SUMMARY_PATH })
}

export function finish<T extends AnyMessage>(
  count: (messages: readonly unknown[], context: EditContext | null | undefined) => number,
  messages: readonly T[],
  plan: EditPlan,
  context: EditContext | null | undefined,
  summary: Written | undefined,
  apply: ApplyOptions,
): Finished<T> {
  // No text, or no summary at all: it must never replace history.
  const written = typeof summary === 'string' && summary !== '' ? summary : undefined
  const applied = applyEdits(messages, plan, { ...apply, summary: written })
  const out = applied.messages
  if (plan.summary) {
    const report = plan.report
    if (written === undefined) {
      report.warnings.push(summaryWarning(summary))
      // Nothing was replaced: the edit removed nothing, and its trigger (checked on these very
      // messages, as it is the last edit) still holds.
      for (const e of report.appliedEdits) {
        if (e.type === 'summarize' && e.triggered) {
          e.removedMessages = 0
          e.clearedInputTokens = 0
        }
      }
      report.stillTriggered = true
    }
    // The plan could not know the summary: recount what is actually returned (once per summary).
    report.tokensAfter = count(out, contextFor(context, messages, out))
    report.messagesAfter = out.length
    // And what the recount says about the model's limit.
    const max = own(report, 'maxInputTokens')
    report.overMaxInputTokens = max !== undefined && max !== null && report.tokensAfter > max
    report.warnings = report.warnings.filter((w) => w.code !== 'over_max_input_tokens')
    if (report.overMaxInputTokens) {
      report.warnings.push({ code: 'over_max_input_tokens', message: `${report.tokensAfter} tokens exceed the model's input limit of ${max}` })
    }
  }
  return { result: result(out, plan), applied }
}

/** The result of an edit; its report is read from the plan (and parsed) only when used. */
export function result<T>(messages: T[], plan: EditPlan): EditResult<T> {
  const out: EditResult<T> = {
    messages,
    get report(): EditReport {
      return plan.report
    },
    set report(value: EditReport) {
      plan.report = value
    },
  }
  // For messages in a foreign format, the plan aligns the output with the units (ts/formats).
  RESULT_PLANS.set(out, plan)
  return out
}
