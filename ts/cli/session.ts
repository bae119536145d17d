// What `edit`, `inspect`, `--jsonl` and the demo share: the editor setup and one conversation's edit.

import type { ContextEditor, EditContext } from '../editor.js'
import type { EditorOptions, EditPlan, EditReport } from '../native.js'
import type { AnyMessage } from '../wire.js'
import { type Conversation, type Format, alignEdits } from './formats.js'

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
  let plan: EditPlan
  try {
    plan = setup.editor.plan(conv.units, contextOf(conv, setup))
  } catch (e) {
    throw conv.remapError(e)
  }
  const after = alignEdits(conv.units, plan)
  const output = conv.rebuild(after)
  return { plan, after, output, report: documentReport(conv, plan.report, output) }
}

/** Rewrites unit indices to input-message indices and message counts to the documents' own. */
function documentReport(conv: Conversation, report: EditReport, output: unknown): EditReport {
  if (conv.units.length === conv.count && conv.origin.every((o, i) => o === i)) return report
  const at = (i: number) => conv.origin[i] ?? i
  const messages = Array.isArray(output) ? output : (output as { messages?: unknown[] })?.messages
  return {
    ...report,
    messagesBefore: conv.count,
    messagesAfter: Array.isArray(messages) ? messages.length : report.messagesAfter,
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

