/**
 * `context-editor/ai`: context editing for the Vercel AI SDK's multi-step tool loops
 * (`generateText` / `streamText` with tools, v5 and later).
 *
 * ```ts
 * import { generateText, stepCountIs } from 'ai'
 * import { contextEditingPrepareStep } from 'context-editor/ai'
 *
 * await generateText({
 *   model, tools, messages, stopWhen: stepCountIs(50),
 *   prepareStep: contextEditingPrepareStep({ trigger: { tokens: 100000 }, keep: { messages: 3 } }),
 * })
 * ```
 *
 * `prepareStep` edits the `ModelMessage`s of each step: the SDK sends the edited copy and keeps its
 * own history (`response.messages`, `steps`) whole. The language-model middleware
 * (`wrapLanguageModel({ model, middleware: contextEditingMiddleware(options) })`) edits the
 * provider prompt instead: it also sees the system prompt and the tool definitions, and it works
 * wherever the model is used, at the price of converting the whole prompt on each call (the SDK
 * builds the prompt anew for every step, so the editor's per-conversation session does not apply).
 * No import of `ai` is made: the adapter works with the messages as data.
 */
import { type AdapterOptions, adapter } from '../formats/adapter.js'

export type { AdapterOptions, AdapterReport } from '../formats/adapter.js'

interface StepOptions {
  messages: readonly unknown[]
  stepNumber?: number
  model?: unknown
}

/** The model id of an AI SDK model (an instance's `modelId`, or a string id). */
function modelIdOf(model: unknown): string | undefined {
  if (typeof model === 'string') return model.includes('/') ? model.slice(model.indexOf('/') + 1) : model
  const id = model !== null && typeof model === 'object' ? (model as { modelId?: unknown }).modelId : undefined
  return typeof id === 'string' ? id : undefined
}

/**
 * A `prepareStep` for `generateText` / `streamText`: each step's messages, edited. Returns `{}`
 * (the SDK's own messages) when nothing changes. The options are the library's JSON options.
 */
export function contextEditingPrepareStep(options: AdapterOptions = {}) {
  const { edit } = adapter(options, 'ai.prepareStep')
  const fixedModel = options !== null && typeof options === 'object' && (options.model !== undefined || options.encoding !== undefined)
  return async function prepareStep(step: StepOptions): Promise<{ messages?: any[] }> {
    const model = fixedModel ? undefined : modelIdOf(step.model)
    const { messages, changed } = await edit(step.messages, 'aisdk', model === undefined ? {} : { model })
    return changed ? { messages: messages as any[] } : {}
  }
}

/** Tool definitions of a provider call, for counting. */
function toolsOf(tools: unknown): unknown[] | undefined {
  return Array.isArray(tools) && tools.length ? tools : undefined
}

/**
 * A language-model middleware (`wrapLanguageModel`, AI SDK v5's `LanguageModelV2Middleware` and
 * v6's `LanguageModelV3Middleware`): every call's prompt, edited, with its system prompt and tool
 * definitions counted.
 */
export function contextEditingMiddleware(options: AdapterOptions = {}) {
  const { edit } = adapter(options, 'ai.middleware')
  const fixedModel = options !== null && typeof options === 'object' && (options.model !== undefined || options.encoding !== undefined)
  return {
    specificationVersion: 'v3' as const,
    middlewareVersion: 'v2' as const,
    async transformParams({ params, model }: { params: any; model?: unknown; type?: string }): Promise<any> {
      const prompt = params?.prompt
      if (!Array.isArray(prompt) || prompt.length === 0) return params
      const id = fixedModel ? undefined : modelIdOf(model)
      const tools = toolsOf(params.tools)
      const { messages, changed } = await edit(prompt, 'aisdk', { ...(id === undefined ? {} : { model: id }), ...(tools ? { tools } : {}) })
      return changed ? { ...params, prompt: messages } : params
    },
  }
}
