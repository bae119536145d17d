// `recall_tool_result` for the Xpert `ContextEditingMiddleware` strategy (`recall: true`). The
// Xpert host runs the middleware's `tools` in its own tool node, where the tool does not see the
// agent's state; so the middleware's `wrapModelCall` remembers, for each recall call the model
// makes, the history that model call was given (the host's state, never edited), and the tool
// answers from it, by the id of the call it runs for. The tool is made with the host's own
// @langchain/core (0.3 or 1.x), loaded when the middleware is made.

import { createRequire } from 'node:module'
import { RECALL_TOOL_DESCRIPTION, RECALL_TOOL_NAME, recallToolResult, recallToolSchema, rememberToolResults, type RecallStore } from '../recall.js'
import { ContextEditorError } from '../errors.js'

const require = createRequire(import.meta.url)

/** Histories seen by model calls whose answer called the recall tool, at most this many at once. */
const MAX_PENDING = 1000

/** A middleware object with `wrapModelCall`. */
interface WrapsModelCall {
  name: string
  wrapModelCall: (request: any, handler: (request: any) => any) => Promise<any>
}

function toolCallsOf(response: unknown): Array<{ id?: unknown; name?: unknown }> {
  try {
    const calls = (response as { tool_calls?: unknown })?.tool_calls
    return Array.isArray(calls) ? calls : []
  } catch {
    return []
  }
}

/**
 * `mw` with the `recall_tool_result` tool: its `tools`, and a `wrapModelCall` that remembers the
 * history each recall call was made from (and keeps tool results in `store`, when given).
 * @throws {ContextEditorError} `INVALID_OPTIONS` (path `recall`) when the host has no @langchain/core.
 */
export function withRecall<M extends WrapsModelCall>(mw: M, store?: RecallStore): M & { tools: unknown[] } {
  let makeTool: (func: (input: unknown, config?: { toolCall?: { id?: string } }) => Promise<unknown>, fields: Record<string, unknown>) => unknown
  try {
    makeTool = require('@langchain/core/tools').tool
  } catch (e) {
    throw new ContextEditorError('INVALID_OPTIONS', `${mw.name}: recall: the recall tool needs @langchain/core, which the host does not have`, {
      path: 'recall',
      cause: e,
    })
  }
  const pending = new Map<string, unknown[]>()
  const seen = new Set<string>()
  const recall = makeTool(
    async (input, config) => {
      const id = config?.toolCall?.id
      const history = typeof id === 'string' ? pending.get(id) : undefined
      if (typeof id === 'string') pending.delete(id)
      return recallToolResult(input, history, store)
    },
    { name: RECALL_TOOL_NAME, description: RECALL_TOOL_DESCRIPTION, schema: recallToolSchema },
  )
  const inner = mw.wrapModelCall.bind(mw)
  return {
    ...mw,
    tools: [recall],
    async wrapModelCall(request: any, handler: (request: any) => any) {
      const history: unknown[] = Array.isArray(request?.messages) ? [...request.messages] : []
      if (store) await rememberToolResults(history, store, seen)
      const response = await inner(request, handler)
      for (const call of toolCallsOf(response)) {
        if (call.name !== RECALL_TOOL_NAME || typeof call.id !== 'string') continue
        if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value as string)
        pending.set(call.id, history)
      }
      return response
    },
  }
}
