/**
 * `context-editor/langgraph`: context editing for LangGraph.js's prebuilt `createReactAgent`, as
 * its `preModelHook` (for hosts not yet on LangChain's `createAgent`, which has the middleware).
 *
 * ```ts
 * import { createReactAgent } from '@langchain/langgraph/prebuilt'
 * import { contextEditingPreModelHook } from 'context-editor/langgraph'
 *
 * const agent = createReactAgent({
 *   llm, tools,
 *   preModelHook: contextEditingPreModelHook({ trigger: { tokens: 100000 }, keep: { messages: 3 } }),
 * })
 * ```
 *
 * The hook returns the edited messages as `llmInputMessages`: the model sees them, the graph's state
 * (and its checkpoints) keeps every message as it was. With a `summarize` edit and a `summaryModel`,
 * a summary is written when the edit fires and *stored*: the hook also returns a `messages` update
 * (remove all, then the summary and the messages kept), so later steps build on it.
 */
import { planOf } from '../formats/facade.js'
import { type AdapterOptions, adapter } from '../formats/adapter.js'
import type { EditContext } from '../editor.js'
import type { SummaryRequest } from '../native.js'
import { type Recall, splitRecall } from '../recall.js'

export type { AdapterOptions, AdapterReport } from '../formats/adapter.js'

/** A chat model that writes summaries (anything with LangChain's `invoke`). */
interface SummaryModel {
  invoke(input: unknown): Promise<unknown>
}

export type PreModelHookOptions = AdapterOptions & {
  /** Writes the summary when a `summarize` edit fires (the summary is then stored in the state). */
  summaryModel?: SummaryModel
  /** From `createRecall()`: the hook remembers the state's messages for the `recall_tool_result` tool. */
  recall?: Recall
}

interface State {
  messages: unknown[]
}

/** LangGraph's "remove every message" id (`REMOVE_ALL_MESSAGES` in @langchain/langgraph). */
const REMOVE_ALL = '__remove_all__'

/**
 * A `preModelHook` for `createReactAgent`: `{ llmInputMessages }` edited from the state's messages
 * (plus a `messages` update when a summary was written). The options are the library's JSON
 * options (`edits` pipelines included).
 */
export function contextEditingPreModelHook(options: PreModelHookOptions = {}) {
  const { summaryModel, ...withRecall } = (options ?? {}) as PreModelHookOptions
  const { recall, editing: rest } = splitRecall(withRecall)
  const { edit } = adapter(rest, 'langgraph.preModelHook')
  const summarize = summaryModel === undefined ? undefined : async (request: SummaryRequest) => summaryModel.invoke(request.prompt) as Promise<any>
  return async function preModelHook(state: State): Promise<Record<string, unknown>> {
    const messages = Array.isArray(state?.messages) ? state.messages : []
    if (messages.length === 0) return { llmInputMessages: messages }
    // The state's messages, unedited: where the recall tool finds a cleared result's original.
    if (recall !== undefined) await recall.remember(messages)
    const context: EditContext = summarize === undefined ? {} : { summarize }
    const result = await edit(messages, 'langchain', context)
    const update: Record<string, unknown> = { llmInputMessages: result.messages }
    const plan = planOf(result.raw)
    if (plan?.summary) {
      const stored = await storedAfterSummary(messages, result.messages, plan.summary)
      if (stored !== undefined) update.messages = stored
    }
    return update
  }
}

/**
 * The state after a summary was written: the summary, then the messages it did not replace, as they
 * were (never the cleared copies the model got). `undefined` when none was written (no text).
 */
async function storedAfterSummary(messages: unknown[], edited: unknown[], summary: SummaryRequest): Promise<unknown[] | undefined> {
  const given = new Set(messages)
  const written = edited.find((m) => !given.has(m) && (m as { additional_kwargs?: { lc_source?: string } }).additional_kwargs?.lc_source === 'summarization')
  if (written === undefined) return undefined
  const { RemoveMessage } = await import('@langchain/core/messages')
  const replaced = new Set(summary.replaced)
  const kept = messages.filter((_, i) => !replaced.has(i))
  const at = messages.slice(0, summary.insertAt).filter((_, i) => !replaced.has(i)).length
  return [new RemoveMessage({ id: REMOVE_ALL }), ...kept.slice(0, at), written, ...kept.slice(at)]
}
