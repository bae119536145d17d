// The summarization hooks shared by the LangChain middleware (`context-editor/langchain`) and the
// Xpert strategy: the core plans (trigger, pair-safe cutoff, prompt), the hook calls a chat model
// and returns a `beforeModel` state update that replaces the summarized messages in the agent's
// state, so the summary is written once per trigger and persists.
//
// Which model writes the summary: the one configured (an instance), else the agent's own model.
// A `beforeModel` hook cannot see the agent's model (neither LangChain's runtime nor Xpert's
// context carries it), so `wrapModelCall` remembers `request.model`. On the very first model call
// of a middleware instance no model is known yet: then `wrapModelCall` plans and summarizes with
// `request.model` itself, sends the summarized request, and `afterModel` persists the same summary
// in state. Either way the summary is generated once.
//
// No host library is imported here: the caller passes how to build a `RemoveMessage`.

import type { Conversations } from './budget.js'
import type { EditPlan } from './native.js'
import type { AnyMessage } from './wire.js'
import { readSummarizationOptions as readOptions } from './options.js'
import { resolveSummarizationOptions, SUMMARIZATION_MIDDLEWARE_NAME, type SummarizationOptions } from './schema.js'
import { ContextEditorError, errorText } from './errors.js'
import type { SummaryBackoff } from './summary-backoff.js'
import { describeValue, isChatModel, SummarizationHooksState } from './summarization-hooks.js'

export type { SummaryBackoff }

/** LangGraph's `REMOVE_ALL_MESSAGES` (`@langchain/langgraph` messages reducer): clears the list. */
export const REMOVE_ALL_MESSAGES = '__remove_all__'

/** A chat model as far as the hook uses it. */
export interface ChatModelLike {
  invoke(input: unknown, options?: Record<string, unknown>): Promise<{ content?: unknown } | unknown>
}

/** What the host side provides. */
export interface SummarizationHost {
  /** `new RemoveMessage({ id: REMOVE_ALL_MESSAGES })` of the host's @langchain/core. */
  removeAll(): AnyMessage
  /** Resolves a configured model (an instance, or a name the host can instantiate). */
  resolveModel?(model: unknown): Promise<ChatModelLike | undefined> | ChatModelLike | undefined
  /** Where a failed summary is reported (default: `console.warn`). */
  warn?(message: string, error: unknown): void
  /**
   * The conversations of the middleware, shared with its recovering model call (ts/recovery-hook.ts):
   * what a recovery learned (the provider's stated limit, its count over ours) plans later calls.
   */
  conversations?: Conversations
}

/** The hook options: the JSON options plus a configured model (LangChain: an instance or a name). */
export interface SummarizationHookConfig extends SummarizationOptions {
  model?: unknown
  /**
   * LangChain's `tokenCounter`: counts a list of messages. Called once per message (the core adds
   * the counts up), so it must be additive, as token counts are.
   */
  tokenCounter?: ((messages: AnyMessage[]) => number | Promise<number>) | null
  /**
   * Called with the report of each planning call (the core's report), plus `summaryBackoff`: the
   * state of the failing summarizer's back-off (`retryAfter`), `null` while nothing failed.
   */
  onReport?: ((report: SummarizationReport) => void) | null
}

/** What `onReport` gets: the planning report and the back-off state. */
export type SummarizationReport = EditPlan['report'] & {
  /** Whether a summary was due on this call and written. */
  summaryWritten: boolean
  /** `null` while the summarizer has not failed since its last success. */
  summaryBackoff: SummaryBackoff | null
}

/** A state update that rewrites `messages`: remove all, then the new list. */
export interface MessagesUpdate {
  messages: AnyMessage[]
}

/** The hooks a summarization middleware object carries. */
export interface SummarizationHooks {
  beforeModel(state: { messages?: AnyMessage[] }, runtime?: unknown): Promise<MessagesUpdate | undefined>
  wrapModelCall<R extends { messages: AnyMessage[]; model?: unknown }, T>(request: R, handler: (request: R) => T | Promise<T>): Promise<T>
  afterModel(state: { messages?: AnyMessage[] }, runtime?: unknown): Promise<MessagesUpdate | undefined>
}

/** The options that are not JSON: a model instance and a function, taken as they are. */
const LIVE_OPTIONS = new Set(['model', 'tokenCounter', 'onReport'])

/**
 * A plain copy of a summarization middleware's options, every read guarded (see `readSummarizationOptions`
 * in options.ts): `model`, `tokenCounter` and `onReport` are taken as they are, the rest is JSON.
 */
export function readSummarizationOptions(config: unknown, name: string = SUMMARIZATION_MIDDLEWARE_NAME): Record<string, unknown> {
  return readOptions(config, name, LIVE_OPTIONS)
}

/** A configured summarizer: unset, a chat model (has `invoke`), or a name the host resolves. */
function checkModel(model: unknown, host: SummarizationHost): void {
  let chatModel: boolean
  try {
    chatModel = isChatModel(model)
  } catch (e) {
    throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: model: could not be read (${errorText(e)})`, { path: 'model', cause: e })
  }
  if (model === undefined || model === null || chatModel) return
  if (typeof model === 'string' && model.trim() !== '' && host.resolveModel) return
  const got = typeof model === 'string' ? (model.trim() === '' ? 'an empty name' : `the name \`${model}\``) : describeValue(model)
  const expected = host.resolveModel
    ? 'a chat model instance (with `invoke`) or a model name such as "openai:gpt-4o-mini"'
    : 'a chat model instance (with `invoke`)'
  throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: model: expected ${expected}, got ${got}`, { path: 'model' })
}

/**
 * Builds the hooks. Options are validated here, once.
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming the offending field.
 */
export function createSummarizationHooks(config: SummarizationHookConfig | null | undefined, host: SummarizationHost): SummarizationHooks {
  const { model: configured, tokenCounter, onReport, ...json } = readSummarizationOptions(config) as SummarizationHookConfig
  // Wrong types fail here, when the middleware is built, not at the first model call.
  checkModel(configured, host)
  if (tokenCounter !== undefined && tokenCounter !== null && typeof tokenCounter !== 'function') {
    throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: tokenCounter: expected a function`, { path: 'tokenCounter' })
  }
  if (onReport !== undefined && onReport !== null && typeof onReport !== 'function') {
    throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: onReport: expected a function`, { path: 'onReport' })
  }
  const resolved = resolveSummarizationOptions(json as Record<string, unknown>)
  const state = new SummarizationHooksState({ configured, tokenCounter, onReport, resolved }, host)
  // The hooks are called detached from this object (hosts copy them onto their middleware): each
  // one calls the state's method rather than relying on `this`.
  return {
    beforeModel(messagesState, runtime) {
      return state.beforeModel(messagesState, runtime)
    },
    wrapModelCall(request, handler) {
      return state.wrapModelCall(request, handler)
    },
    afterModel(messagesState) {
      return state.afterModel(messagesState)
    },
  }
}
