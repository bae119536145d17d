// `recallMiddleware` for LangChain.js v1 `createAgent`: adds the `recall_tool_result` tool (the
// middleware's `tools`), which returns a cleared or truncated tool result by its `tool_call_id`,
// read from the agent's state (context editing never rewrites it). With a `store` (ours, or a
// LangGraph `BaseStore` such as `InMemoryStore`), every tool result is also kept there before the
// model is called, so what a summary later replaces can still be recalled.

import { createMiddleware, tool } from 'langchain'
import {
  RECALL_TOOL_DESCRIPTION,
  RECALL_TOOL_NAME,
  recallStoreOf,
  recallToolResult,
  recallToolSchema,
  rememberToolResults,
  type LangGraphStoreLike,
  type RecallStore,
} from '../recall.js'

export {
  FileRecallStore,
  InMemoryRecallStore,
  langGraphRecallStore,
  RECALL_PLACEHOLDER,
  RECALL_TOOL_NAME,
  recallToolSchema,
  type RecallStore,
} from '../recall.js'

/** The name under which the middleware registers. */
export const RECALL_MIDDLEWARE_NAME = 'RecallToolResultMiddleware'

/** Options of `recallMiddleware`. */
export interface RecallMiddlewareConfig {
  /**
   * Where tool results are kept for hosts that drop history: `{ get, set }`, or a LangGraph
   * `BaseStore`. Without one, recall reads the agent's state alone.
   */
  store?: RecallStore | LangGraphStoreLike | null
  /** The tool's description, as the model reads it. */
  description?: string | null
}

/**
 * The `recall_tool_result` tool for `createAgent`. Use it with a placeholder that names the call:
 *
 * @example
 * ```ts
 * import { createAgent } from 'langchain'
 * import { contextEditingMiddleware, recallMiddleware, RECALL_PLACEHOLDER } from 'context-editor/langchain'
 *
 * const agent = createAgent({
 *   model, tools,
 *   middleware: [contextEditingMiddleware({ placeholder: RECALL_PLACEHOLDER }), recallMiddleware()],
 * })
 * ```
 */
export function recallMiddleware(config: RecallMiddlewareConfig = {}) {
  const store = recallStoreOf(config.store)
  const seen = new Set<string>()
  // The runtime of a tool under `createAgent` carries the graph state (LangChain's `ToolRuntime`).
  const run = async (input: unknown, runtime: any): Promise<any> => recallToolResult(input, runtime?.state?.messages, store)
  const recall = (tool as (...args: any[]) => any)(run, {
    name: RECALL_TOOL_NAME,
    description: config.description ?? RECALL_TOOL_DESCRIPTION,
    schema: recallToolSchema,
  })
  return createMiddleware({
    name: RECALL_MIDDLEWARE_NAME,
    tools: [recall],
    beforeModel: async (state) => {
      if (store) await rememberToolResults((state as { messages?: unknown }).messages, store, seen)
      return undefined
    },
  })
}
