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
 * No import of `@openai/agents` is made.
 */
import { type AdapterOptions, adapter } from '../formats/adapter.js'

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
export function contextEditingInputFilter(options: AdapterOptions = {}) {
  const { edit } = adapter(options, 'openai-agents.callModelInputFilter')
  const fixedModel = options !== null && typeof options === 'object' && (options.model !== undefined || options.encoding !== undefined)
  return async function callModelInputFilter({ modelData, agent }: FilterArgs): Promise<ModelInputData> {
    const input = modelData.input
    if (!Array.isArray(input) || input.length === 0) return modelData
    const model = !fixedModel && typeof agent?.model === 'string' && agent.model !== '' ? agent.model : undefined
    const context = { ...(typeof modelData.instructions === 'string' ? { systemPrompt: modelData.instructions } : {}), ...(model ? { model } : {}) }
    const { messages, changed } = await edit(input, 'responses', context)
    return changed ? { ...modelData, input: messages } : modelData
  }
}
