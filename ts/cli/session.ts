// What `edit`, `inspect`, `--jsonl` and the demo share: the editor setup and one conversation's edit.

import type { ContextEditor, EditContext } from '../editor.js'
import type { EditorOptions, EditPlan, EditReport } from '../native.js'
import type { AnyMessage } from '../wire.js'
import { type Conversation, type Format, alignEdits } from './formats.js'
import { applyMediaEdits, markFired, mediaEdits } from '../media-edit.js'

/** What `edit` and `inspect` share: the editor, its options and the call context from flags. */
export interface Setup {
  options: EditorOptions
  editor: ContextEditor
  format: Format | 'auto'
  placeholders: Set<string>
  maxInputTokens?: number
  model?: string
}

/** The call context: what the request carries, overridden by `--max-input-tokens` and `--model`. */
export function contextOf(conv: Conversation, setup: Setup): EditContext {
  const ctx: EditContext = { ...conv.context }
  if (setup.maxInputTokens !== undefined) ctx.maxInputTokens = setup.maxInputTokens
  if (setup.model !== undefined) ctx.model = setup.model
  return ctx
}

/** One conversation edited: the plan on the editor's messages, the aligned result and the output. */
export interface Edited {
  /** The plan; its indices address `conv.units`. */
  plan: EditPlan
  /** The edited units aligned with `conv.units` (`undefined` = removed). */
  after: (AnyMessage | undefined)[]
  /** The output document, in the input's format. */
  output: unknown
  /** The report, with message indices and counts of the input document (they differ from the units' for Anthropic). */
  report: EditReport
}

/** Plans and applies the edits of one conversation. */
export function editConversation(conv: Conversation, setup: Setup): Edited {
  const ctx = contextOf(conv, setup)
  const media = withMediaCleared(conv, setup, ctx)
  conv = media.conv
  let plan: EditPlan
  try {
    plan = setup.editor.plan(conv.units, ctx)
  } catch (e) {
    const err = conv.remapError(e)
    // An error quoting a number kept exactly quotes it as the input has it, not its stand-in.
    if (conv.numbers && err instanceof Error) err.message = conv.numbers.restore(err.message)
    throw err
  }
  const after = alignEdits(conv.units, plan)
  let report = media.fired.length > 0 ? markFired(plan.report, media.fired) : plan.report
  if (plan.summary) report = withoutSummary(report, plan.summary.replaced.length, setup, conv, after)
  const output = conv.rebuild(after)
  return { plan, after, output, report: documentReport(conv, report, output) }
}

/**
 * The options' `clear_media` edits on the conversation's messages (as the library's `edit` applies
 * them before planning): the conversation with its units replaced, the same one when none fired.
 */
function withMediaCleared(conv: Conversation, setup: Setup, ctx: EditContext): { conv: Conversation; fired: boolean[] } {
  const edits = mediaEdits(Array.isArray(setup.options.edits) ? setup.options.edits : [])
  if (edits.length === 0) return { conv, fired: [] }
  const done = applyMediaEdits(conv.units, edits, {
    tokens: (m) => setup.editor.countTokens(m as AnyMessage[], ctx).total,
    maxInputTokens: ctx.maxInputTokens ?? setup.maxInputTokens,
    pin: setup.options.pin,
  })
  return { conv: done.messages === conv.units ? conv : { ...conv, units: done.messages as AnyMessage[] }, fired: done.fired }
}

/**
 * The command line has no model to write a summary with, so a `summarize` edit that fires keeps
 * the messages it would replace, as the library's `edit` does without `context.summarize`; the
 * report says so, and counts what is kept (the plan counted the conversation as summarized).
 */
function withoutSummary(report: EditReport, replaced: number, setup: Setup, conv: Conversation, after: ReadonlyArray<AnyMessage | undefined>): EditReport {
  const survivors = after.filter((m): m is AnyMessage => m !== undefined)
  return {
    ...report,
    tokensAfter: setup.editor.countTokens(survivors, contextOf(conv, setup)).total,
    messagesAfter: survivors.length,
    warnings: [
      ...report.warnings,
      {
        code: 'summary_skipped',
        message: `a \`summarize\` edit fired, but the command line writes no summaries: the ${replaced} messages it would replace were kept (summarize through the library: editor.edit(messages, { summarize }))`,
      },
    ],
  }
}

/**
 * Rewrites unit indices to input-message indices, and the message counts to the documents' own:
 * `messagesAfter` is what was written, in every format (Anthropic's units are not its messages).
 */
function documentReport(conv: Conversation, report: EditReport, output: unknown): EditReport {
  const messages = Array.isArray(output) ? output : (output as { messages?: unknown[] })?.messages
  const written = Array.isArray(messages) ? messages.length : report.messagesAfter
  if (conv.units.length === conv.count && conv.origin.every((o, i) => o === i)) {
    return written === report.messagesAfter ? report : { ...report, messagesAfter: written }
  }
  const at = (i: number) => conv.origin[i] ?? i
  return {
    ...report,
    messagesBefore: conv.count,
    messagesAfter: written,
    removedOrphans: report.removedOrphans.map((o) => ({ ...o, index: at(o.index) })),
    cleared: report.cleared.map((c) => ({ ...c, index: at(c.index) })),
    clearedToolInputs: report.clearedToolInputs.map((c) => ({ ...c, index: at(c.index) })),
    warnings: report.warnings.map((w) => (w.index === undefined || w.index === null ? w : { ...w, index: at(w.index) })),
  }
}

/** The indentation of a JSON text, to write the output the same way (compact stays compact). */
export function indentOf(text: string): string | undefined {
  const m = /^\uFEFF?\s*[[{][ \t]*\r?\n([ \t]+)\S/.exec(text)
  return m ? m[1] : undefined
}
