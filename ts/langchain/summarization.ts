// `summarizationMiddleware` for LangChain.js v1 `createAgent`, with LangChain's option names.
//
// Mirrors langchainjs `libs/langchain/src/agents/middleware/summarization.ts` (langchain 1.5.14):
// a `beforeModel` hook that replaces the older messages in the agent's state by one summary
// message (`RemoveMessage(REMOVE_ALL_MESSAGES)`, then the new list), so the summary is written
// once per trigger. Differences, on purpose: the agent's own model is the default summarizer;
// leading system messages are kept, not summarized; DeepAgents defaults apply when `trigger` /
// `keep` are absent; a failing summarizer is logged and the request goes through unsummarized.

import { createMiddleware, initChatModel } from 'langchain'
import { RemoveMessage } from '@langchain/core/messages'
import { createSummarizationHooks, readSummarizationOptions, REMOVE_ALL_MESSAGES, type ChatModelLike, type SummarizationReport } from '../summarization.js'
import { Conversations } from '../budget.js'
import { readRecovering, recoveringCall, type RecoveryReport } from '../recovery-hook.js'
import { SUMMARIZATION_MIDDLEWARE_NAME, type SummarizationOptions } from '../schema.js'

export type { SummarizationKeep, SummarizationOptions, SummarizationTrigger, SummaryRetryAfter } from '../schema.js'
export type { SummarizationReport, SummaryBackoff } from '../summarization.js'
export { summarizationConfigSchema, SUMMARIZATION_MIDDLEWARE_NAME } from '../schema.js'

/** The config of `summarizationMiddleware`: the JSON options plus the model that writes the summary. */
export interface SummarizationMiddlewareConfig extends SummarizationOptions {
  /**
   * The model that writes the summary: a chat model instance, or a name for `initChatModel`
   * (e.g. `"openai:gpt-4o-mini"`).
   * @default the agent's own model
   */
  model?: ChatModelLike | string | null
  /**
   * Counts the tokens of a list of messages (LangChain's `tokenCounter`). It is called once per
   * message and the counts are added up, so it must be additive.
   * @default approximate counting (`tokenCountMethod`)
   */
  tokenCounter?: ((messages: any[]) => number | Promise<number>) | null
  /**
   * Called with each planning call's report and `summaryBackoff`, where a failing summarizer's
   * back-off (`retryAfter`) stands (`null` while nothing failed); and with the report of a recovery
   * pass (`recovery` set) when the provider refused the request as too long.
   */
  onReport?: ((report: SummarizationReport | RecoveryReport) => void) | null
  /** @deprecated LangChain's old name: use `trigger: { tokens }`. */
  maxTokensBeforeSummary?: number | null
  /** @deprecated LangChain's old name: use `keep: { messages }`. */
  messagesToKeep?: number | null
}

/**
 * Summarization for `createAgent`: once the trigger holds, the older messages of the agent's state
 * are replaced by a model-written summary (a `HumanMessage` with
 * `additional_kwargs.lc_source = "summarization"`, or an `AIMessage` with `summaryRole: "assistant"`);
 * the newest messages (`keep`) stay verbatim, and a tool call is never separated from its results.
 *
 * Defaults follow DeepAgents: trigger `{ fraction: 0.85 }` / keep `{ fraction: 0.1 }` when the
 * model's input limit is known (`maxInputTokens` or the model's profile), else `{ tokens: 170000 }` /
 * `{ messages: 6 }`. If the summarizing model fails, a warning is logged once and the request goes
 * through unsummarized. When the provider still refuses the request as too long, it is re-edited to
 * `recovery.target` of the limit (tool results cleared, the oldest messages dropped if need be) and
 * sent again, once, as the context-editing middleware does (`recovery: false` turns it off).
 *
 * @example
 * ```ts
 * import { createAgent } from 'langchain'
 * import { summarizationMiddleware } from 'context-editor/langchain'
 *
 * const agent = createAgent({
 *   model, tools,
 *   middleware: [summarizationMiddleware({ trigger: { tokens: 4000 }, keep: { messages: 20 } })],
 * })
 * ```
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming the offending field, when the config is invalid.
 */
export function summarizationMiddleware(config: SummarizationMiddlewareConfig = {}) {
  // One guarded plain copy; `recovery` is this wrapper's, the rest the shared hooks'.
  const { recovery, ...options } = readSummarizationOptions(config)
  // What a recovery learns corrects the plans of the conversation's later calls.
  const conversations = new Conversations()
  const recovering = recoveringCall({
    ...readRecovering({ ...options, recovery }, SUMMARIZATION_MIDDLEWARE_NAME),
    onReport: options.onReport as never,
    conversations,
  })
  const hooks = createSummarizationHooks(options, {
    conversations,
    removeAll: () => new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
    resolveModel: (model) => (typeof model === 'string' ? (initChatModel(model) as Promise<unknown> as Promise<ChatModelLike>) : undefined),
  })
  return createMiddleware({
    name: SUMMARIZATION_MIDDLEWARE_NAME,
    beforeModel: (state, runtime) => hooks.beforeModel(state as any, runtime) as any,
    wrapModelCall: (request, handler) => hooks.wrapModelCall(request as any, (sent: any) => recovering(sent, handler as any)) as ReturnType<typeof handler>,
    afterModel: (state, runtime) => hooks.afterModel(state as any, runtime) as any,
  })
}
