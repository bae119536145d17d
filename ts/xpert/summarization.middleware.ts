// The Xpert agent-middleware strategy `ContextEditorSummarizationMiddleware`, without NestJS: the class is
// plain so that importing it needs no host library. `context-editing.module.ts` decorates a
// subclass with `@Injectable()` and `@AgentMiddlewareStrategy(XPERT_SUMMARIZATION_STRATEGY)` from
// the host's own SDK when the host registers the plugin.
//
// The summary is written by the agent's own model: Xpert's `createMiddleware(options, context)`
// context carries no model (tenant, user, xpert and node ids only), so the middleware takes it from
// `request.model` in `wrapModelCall` (see `../summarization.ts`).

import { createRequire } from 'node:module'
import { createSummarizationHooks, readSummarizationOptions, REMOVE_ALL_MESSAGES, type SummarizationHooks } from '../summarization.js'
import { summarizationConfigSchema, XPERT_SUMMARIZATION_STRATEGY, type I18nText, type SummarizationOptions } from '../schema.js'
import { ContextEditorError } from '../errors.js'
import { Conversations } from '../budget.js'
import { readRecovering, recoveringCall } from '../recovery-hook.js'
import type { AnyMessage } from '../wire.js'

/** The strategy's icon: a stack of messages folded into one. */
export const SUMMARIZATION_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
  <rect x="2" y="2" width="60" height="60" rx="12" fill="#1f4e79"/>
  <rect x="12" y="11" width="40" height="5" rx="2.5" fill="#8fb8de" opacity="0.35"/>
  <rect x="12" y="19" width="40" height="5" rx="2.5" fill="#8fb8de" opacity="0.45"/>
  <path d="M32 27 l6 6 h-12z" fill="#f5b942"/>
  <rect x="12" y="36" width="40" height="9" rx="4.5" fill="#f5b942"/>
  <rect x="12" y="48" width="28" height="6" rx="3" fill="#e8f1fa"/>
</svg>`

/** `TAgentMiddlewareMeta` of @metad/contracts, structurally. */
export interface SummarizationStrategyMeta {
  name: string
  label: I18nText
  description: I18nText
  icon: { type: 'svg'; value: string }
  configSchema: typeof summarizationConfigSchema
}

/** The strategy's `meta`: name, localized label and description, icon, and the options' JSON Schema. */
export const summarizationStrategyMeta: SummarizationStrategyMeta = {
  name: XPERT_SUMMARIZATION_STRATEGY,
  label: { en_US: 'Summarization (context-editor)', zh_Hans: '对话摘要（context-editor）' },
  description: {
    en_US:
      "Once the trigger is reached, older messages of the conversation are replaced by a summary written by the agent's own model (kept in the conversation state, written once per trigger); the newest messages stay verbatim and tool calls are never separated from their results. If the summary fails, the request goes through unsummarized.",
    zh_Hans:
      '达到触发条件后，对话中较早的消息被替换为由智能体自身模型撰写的摘要（保存在对话状态中，每次触发只生成一次）；最新的消息原样保留，工具调用不会与其结果分离。摘要失败时，请求按原样发送。',
  },
  icon: { type: 'svg', value: SUMMARIZATION_ICON },
  configSchema: summarizationConfigSchema,
}

/** The middleware object `createMiddleware` returns (LangChain v1 protocol hooks). */
export interface SummarizationMiddlewareObject extends SummarizationHooks {
  name: typeof XPERT_SUMMARIZATION_STRATEGY
}

const require = createRequire(import.meta.url)
let removeMessageClass: (new (fields: { id: string }) => AnyMessage) | null | undefined

/** `RemoveMessage({ id: REMOVE_ALL_MESSAGES })` from the host's @langchain/core (a plain `remove` message dict without it). */
function removeAll(): AnyMessage {
  if (removeMessageClass === undefined) {
    try {
      removeMessageClass = require('@langchain/core/messages').RemoveMessage ?? null
    } catch {
      removeMessageClass = null
    }
  }
  return removeMessageClass ? new removeMessageClass({ id: REMOVE_ALL_MESSAGES }) : { type: 'remove', id: REMOVE_ALL_MESSAGES, content: '' }
}

/**
 * `IAgentMiddlewareStrategy<SummarizationOptions>` of @xpert-ai/plugin-sdk. `createMiddleware`
 * validates the options (`null` = unset) and returns `{ name, beforeModel, wrapModelCall, afterModel }`.
 */
export class SummarizationStrategy {
  readonly meta: SummarizationStrategyMeta = summarizationStrategyMeta

  /**
   * @throws {ContextEditorError} `INVALID_OPTIONS` naming the offending field.
   */
  createMiddleware(options: SummarizationOptions | null | undefined, _context?: unknown): SummarizationMiddlewareObject {
    // One guarded, plain copy of the options: a getter or Proxy trap that throws is named here.
    const { model, recovery, ...json } = readSummarizationOptions(options, XPERT_SUMMARIZATION_STRATEGY)
    if (model !== undefined && model !== null) {
      // Options are JSON from the UI: a model instance cannot be configured; the agent's own model writes the summary.
      throw new ContextEditorError(
        'INVALID_OPTIONS',
        `${XPERT_SUMMARIZATION_STRATEGY}: model: unknown option (the agent's own model writes the summary; expected one of ${Object.keys(summarizationConfigSchema.properties).join(', ')})`,
        { path: 'model' },
      )
    }
    // What a recovery learns corrects the plans of the conversation's later calls.
    const conversations = new Conversations()
    const recovering = recoveringCall({ ...readRecovering({ ...json, recovery }, XPERT_SUMMARIZATION_STRATEGY), conversations })
    const hooks = renamed(() => createSummarizationHooks(json, { conversations, removeAll, warn: (message, error) => console.warn(xpertName(message), error) }))
    return {
      name: XPERT_SUMMARIZATION_STRATEGY,
      beforeModel: (state, runtime) => renamedAsync(() => hooks.beforeModel(state, runtime)),
      wrapModelCall: (request, handler) => renamedAsync(() => hooks.wrapModelCall(request, (sent) => recovering(sent, handler))),
      afterModel: (state, runtime) => renamedAsync(() => hooks.afterModel(state, runtime)),
    }
  }
}

// The shared hooks speak as LangChain's `SummarizationMiddleware`; on the Xpert path, errors and
// warnings name the strategy the operator configured. Only our own errors with that exact prefix
// are renamed: the model's errors (and every other middleware's) pass through untouched.
const SHARED_PREFIX = 'SummarizationMiddleware: '

function xpertName(message: string): string {
  return message.startsWith(SHARED_PREFIX) ? `${XPERT_SUMMARIZATION_STRATEGY}: ${message.slice(SHARED_PREFIX.length)}` : message
}

function rename(e: unknown): unknown {
  if (e instanceof ContextEditorError && e.message.startsWith(SHARED_PREFIX)) e.message = xpertName(e.message)
  return e
}

function renamed<T>(run: () => T): T {
  try {
    return run()
  } catch (e) {
    throw rename(e)
  }
}

async function renamedAsync<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (e) {
    throw rename(e)
  }
}
