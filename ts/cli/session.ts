// What `edit`, `inspect`, `--jsonl` and the demo share: the editor setup and one conversation's edit.

import type { ContextEditor, EditContext } from '../editor.js'
import type { EditorOptions, EditPlan } from '../native.js'
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

/** Plans and applies the edits of one conversation. */
export function editConversation(conv: Conversation, setup: Setup): { plan: EditPlan; after: (AnyMessage | undefined)[]; output: unknown } {
  let plan: EditPlan
  try {
    plan = setup.editor.plan(conv.units, contextOf(conv, setup))
  } catch (e) {
    throw conv.remapError(e)
  }
  const after = alignEdits(conv.units, plan)
  return { plan, after, output: conv.rebuild(after) }
}

/** The indentation of a JSON text, to write the output the same way (compact stays compact). */
export function indentOf(text: string): string | undefined {
  const m = /^\uFEFF?\s*[[{][ \t]*\r?\n([ \t]+)\S/.exec(text)
  return m ? m[1] : undefined
}

