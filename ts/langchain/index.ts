/**
 * `context-editor/langchain`: a drop-in for LangChain.js v1's `contextEditingMiddleware`.
 *
 * ```ts
 * import { createAgent } from 'langchain'
 * import { contextEditingMiddleware } from 'context-editor/langchain'
 *
 * const agent = createAgent({
 *   model, tools,
 *   middleware: [contextEditingMiddleware({ trigger: { tokens: 100000 }, keep: { messages: 3 } })],
 * })
 * ```
 *
 * The hook is `wrapModelCall`: each model call gets an edited copy of the conversation (old tool
 * results replaced by a placeholder), while the agent's state keeps every message in full.
 * LangChain's own middleware edits `request.messages` in place, which under `createAgent` is the
 * agent state, so its history loses the cleared results for good.
 */
import { createMiddleware } from 'langchain'
import { createWrapModelCall } from '../middleware.js'
import { MIDDLEWARE_NAME, type ContextEditingMiddlewareConfig } from '../schema.js'

export type {
  ClearToolUsesEditLike,
  ClearToolUsesEditOptions,
  ContextEditingMiddlewareConfig,
  ContextEditingOptions,
  Encoding,
  KeepPolicy,
  TriggerCondition,
} from '../schema.js'
export { configSchema, MIDDLEWARE_NAME } from '../schema.js'
export type { EditReport } from '../native.js'

/**
 * Context editing for `createAgent`: clears old tool results once the trigger holds, on a copy of
 * the messages sent to the model.
 *
 * Accepts the flat options (`trigger`, `keep`, `excludeTools`, `placeholder`, `clearToolInputs`,
 * `clearAtLeast`, `tokenCountMethod`, ...) or LangChain's own shape,
 * `{ edits: [new ClearToolUsesEdit({...})], tokenCountMethod }`. Defaults are LangChain's:
 * trigger `{ tokens: 100000 }`, keep `{ messages: 3 }`, placeholder `"[cleared]"`, approx counting.
 *
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming the offending field, when the config is invalid.
 */
export function contextEditingMiddleware(config: ContextEditingMiddlewareConfig = {}) {
  const wrapModelCall = createWrapModelCall(config)
  return createMiddleware({
    name: MIDDLEWARE_NAME,
    wrapModelCall: (request, handler) => wrapModelCall(request as any, handler as any) as ReturnType<typeof handler>,
  })
}

export { summarizationMiddleware, summarizationConfigSchema, SUMMARIZATION_MIDDLEWARE_NAME } from './summarization.js'
export type { SummarizationMiddlewareConfig, SummarizationKeep, SummarizationOptions, SummarizationTrigger } from './summarization.js'
export {
  FileRecallStore,
  InMemoryRecallStore,
  langGraphRecallStore,
  RECALL_MIDDLEWARE_NAME,
  RECALL_PLACEHOLDER,
  RECALL_TOOL_NAME,
  recallMiddleware,
  recallToolSchema,
} from './recall.js'
export type { RecallMiddlewareConfig, RecallStore } from './recall.js'
