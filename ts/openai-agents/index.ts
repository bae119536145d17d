/**
 * `context-editor/openai-agents`: context editing for the OpenAI Agents SDK (`@openai/agents`).
 *
 * ```ts
 * import { Agent, run } from '@openai/agents'
 * import { contextEditingInputFilter } from 'context-editor/openai-agents'
 *
 * await run(agent, input, {
 *   callModelInputFilter: contextEditingInputFilter({ trigger: { tokens: 100000 }, keep: { messages: 3 } }),
 * })
 * ```
 *
 * The SDK calls `callModelInputFilter` before every model call with the items it is about to send
 * (Responses API items in the SDK's spelling: `function_call` / `function_call_result` with
 * `callId`) and the agent's instructions; the filter returns them edited. The instructions count
 * toward the trigger as the system prompt. Items the filter leaves alone are the SDK's own objects.
 * With `recall` (from `createRecall()`), the filter remembers each call's unedited items, so the
 * `recall_tool_result` tool (`recall.answer`) returns a cleared result's exact original.
 * No import of `@openai/agents` is made.
 */
import type { SummaryAnswer } from '../editor.js'
import { ContextEditorError } from '../errors.js'
import { type AdapterOptions, adapter } from '../formats/adapter.js'
import { planOf } from '../formats/facade.js'
import type { SummaryRequest } from '../native.js'
import { type Recall, splitRecall } from '../recall.js'

export type { AdapterOptions, AdapterReport } from '../formats/adapter.js'

interface ModelInputData {
  input: unknown[]
  instructions?: string
}

interface FilterArgs {
  modelData: ModelInputData
  agent?: { model?: unknown }
}

/**
 * A `callModelInputFilter` (run option) for `run()` / `Runner`: each model call's input items,
 * edited; the agent's instructions are counted as the system prompt, and a string model name on
 * the agent picks the encoding (unless the options name a `model` or an `encoding`).
 */
export function contextEditingInputFilter(options: AdapterOptions & { recall?: Recall } = {}) {
  const { recall, editing } = splitRecall(options)
  options = editing
  const { edit } = adapter(editing, 'openai-agents.callModelInputFilter')
  const fixedModel = options !== null && typeof options === 'object' && (options.model !== undefined || options.encoding !== undefined)
  return async function callModelInputFilter({ modelData, agent }: FilterArgs): Promise<ModelInputData> {
    const input = modelData.input
    if (!Array.isArray(input) || input.length === 0) return modelData
    // The SDK's own items, unedited: where the recall tool finds a cleared result's original.
    if (recall !== undefined) await recall.remember(input)
    const model = !fixedModel && typeof agent?.model === 'string' && agent.model !== '' ? agent.model : undefined
    const context = { ...(typeof modelData.instructions === 'string' ? { systemPrompt: modelData.instructions } : {}), ...(model ? { model } : {}) }
    const { messages, changed } = await edit(input, 'responses', context)
    return changed ? { ...modelData, input: messages } : modelData
  }
}

/** The OpenAI Agents SDK's `Session` (conversation memory), as far as the wrapper uses it. */
interface SessionLike {
  getSessionId(): Promise<string>
  getItems(limit?: number): Promise<unknown[]>
  addItems(items: unknown[]): Promise<void>
  popItem(): Promise<unknown>
  clearSession(): Promise<void>
}

export type SummarizingSessionOptions = AdapterOptions & {
  /** Writes the summary (e.g. a model call on `request.prompt`); its text replaces the older items. */
  summarize: (request: SummaryRequest) => SummaryAnswer | Promise<SummaryAnswer>
}

/**
 * A `Session` that summarizes what it stores: when the options' `summarize` edit fires on the items
 * a run loads, the summary is written and stored in their place (the session is cleared and refilled
 * with the summary and the items it did not replace), so every later run starts from it. The items
 * handed to the run are the stored ones, never cleared copies; clearing per model call is
 * `contextEditingInputFilter`'s.
 */
export function contextEditingSession(session: SessionLike, options: SummarizingSessionOptions) {
  const { summarize, ...rest } = options
  if (typeof summarize !== 'function')
    throw new ContextEditorError('INVALID_OPTIONS', 'summarize: expected a function that writes the summary', { path: 'summarize' })
  const { edit } = adapter(rest, 'openai-agents.session')
  // One operation on the store at a time: a summary rewrites it (clear, then add), and an item
  // added meanwhile (another run on the same session) would be lost, or a second rewrite doubled.
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(op: () => Promise<T>): Promise<T> => {
    const next = queue.then(op, op)
    queue = next.catch(() => undefined)
    return next
  }
  return {
    getSessionId: () => session.getSessionId(),
    addItems: (items: unknown[]) => serial(() => session.addItems(items)),
    popItem: () => serial(() => session.popItem()),
    clearSession: () => serial(() => session.clearSession()),
    getItems: (limit?: number): Promise<any[]> => serial(() => summarized(limit)),
  }

  /** The stored items, with a summary written and stored in place of the items it replaces. */
  async function summarized(limit?: number): Promise<any[]> {
    const items = await session.getItems()
    const result = items.length ? await edit(items, 'responses', { summarize }) : undefined
    const plan = result === undefined ? undefined : planOf(result.raw)
    let stored = items
    if (plan?.summary) {
      const replaced = new Set(plan.summary.replaced)
      const given = new Set(items)
      // The summary item: new, and its text the summary's (other new items are edited copies, such
      // as cleared results when the options also clear: the store keeps the originals).
      const prefix = plan.summary.prefix
      const written = result!.messages.find(
        (m: any) => !given.has(m) && m !== null && typeof m === 'object' && typeof m.content === 'string' && m.content.startsWith(prefix),
      )
      if (written !== undefined && replaced.size > 0) {
        const kept = items.filter((_, i) => !replaced.has(i))
        const at = items.slice(0, plan.summary.insertAt).filter((_, i) => !replaced.has(i)).length
        stored = [...kept.slice(0, at), written, ...kept.slice(at)]
        await session.clearSession()
        await session.addItems(stored)
      }
    }
    return (limit === undefined ? stored : stored.slice(-limit)) as any[]
  }
}
