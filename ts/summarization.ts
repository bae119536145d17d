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

import { randomUUID } from 'node:crypto'
import type { EditPlan } from './native.js'
import { applyPlan, textOf, type AnyMessage } from './wire.js'
import { profileMaxInputTokens, modelNameOf } from './middleware.js'
import { resolveSummarizationOptions, SUMMARIZATION_MIDDLEWARE_NAME, type SummarizationOptions } from './schema.js'
import type { EditContext } from './editor.js'
import { ContextEditorError } from './errors.js'

/** LangGraph's `REMOVE_ALL_MESSAGES` (`@langchain/langgraph` messages reducer): clears the list. */
export const REMOVE_ALL_MESSAGES = '__remove_all__'

/** LangGraph skips runs tagged with this in its messages stream (langchain `INTERNAL_CALL_TAG`). */
const INTERNAL_CALL_TAG = 'nostream'

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
}

/** The hook options: the JSON options plus a configured model (LangChain: an instance or a name). */
export interface SummarizationHookConfig extends SummarizationOptions {
  model?: unknown
  /**
   * LangChain's `tokenCounter`: counts a list of messages. Called once per message (the core adds
   * the counts up), so it must be additive, as token counts are.
   */
  tokenCounter?: ((messages: AnyMessage[]) => number | Promise<number>) | null
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

function isChatModel(m: unknown): m is ChatModelLike {
  return m !== null && typeof m === 'object' && typeof (m as ChatModelLike).invoke === 'function'
}

/** A copy of the model with `maxTokens` set, when the model has that field (ChatOpenAI, ChatAnthropic, ...). */
function withMaxTokens(model: ChatModelLike, maxTokens: number | undefined): ChatModelLike {
  if (maxTokens === undefined || !('maxTokens' in (model as object))) return model
  return Object.assign(Object.create(Object.getPrototypeOf(model)), model, { maxTokens })
}

function summaryText(response: unknown): string {
  const content = response !== null && typeof response === 'object' ? (response as { content?: unknown }).content : response
  if (typeof content === 'string') return content.trim()
  return textOf(content).trim()
}

/** The runnable config keys of a runtime worth passing to the summarizer call (signal, callbacks). */
function callConfig(runtime: unknown): Record<string, unknown> {
  const config: Record<string, unknown> = { metadata: { lc_source: 'summarization' }, tags: [INTERNAL_CALL_TAG] }
  if (runtime && typeof runtime === 'object') {
    const signal = (runtime as { signal?: unknown }).signal
    if (signal) config.signal = signal
  }
  return config
}

interface Pending {
  plan: EditPlan
  summary: string
  /** The messages the plan addresses (identity, then ids, must match the state's prefix). */
  planned: AnyMessage[]
}

/**
 * Builds the hooks. Options are validated here, once.
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming the offending field.
 */
export function createSummarizationHooks(config: SummarizationHookConfig | null | undefined, host: SummarizationHost): SummarizationHooks {
  const { model: configured, tokenCounter, ...json } = (config ?? {}) as SummarizationHookConfig
  if (tokenCounter !== undefined && tokenCounter !== null && typeof tokenCounter !== 'function') {
    throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: tokenCounter: expected a function`, { path: 'tokenCounter' })
  }
  const resolved = resolveSummarizationOptions(json as Record<string, unknown>)
  const { editor } = resolved
  const warn = host.warn ?? ((message: string, error: unknown) => console.warn(message, error))
  let warned = false
  let agentModel: ChatModelLike | undefined
  let configuredModel: ChatModelLike | undefined
  /** Summaries written inside `wrapModelCall`, keyed by the model's response, for `afterModel`. */
  const pending = new WeakMap<object, Pending>()
  /** The last message of a state whose summary `beforeModel` left to `wrapModelCall` (no model known). */
  const deferred = new WeakSet<object>()

  function report(what: string, error: unknown): void {
    if (warned) return
    warned = true
    warn(`${SUMMARIZATION_MIDDLEWARE_NAME}: ${what}; the request goes through unsummarized`, error)
  }

  async function summarizer(): Promise<ChatModelLike | undefined> {
    if (configured === undefined || configured === null) return agentModel
    if (!configuredModel) {
      const m = isChatModel(configured) ? configured : await host.resolveModel?.(configured)
      if (!isChatModel(m)) throw new Error(`model: cannot use ${typeof configured === 'string' ? `\`${configured}\`` : 'this value'} as a chat model`)
      configuredModel = m
    }
    return configuredModel
  }

  async function contextFor(messages: AnyMessage[], model: unknown): Promise<EditContext> {
    const context: EditContext = {
      maxInputTokens: resolved.maxInputTokens ?? profileMaxInputTokens(model) ?? profileMaxInputTokens(agentModel),
      model: modelNameOf(model) ?? modelNameOf(agentModel),
    }
    if (tokenCounter) context.messageTokens = await Promise.all(messages.map(async (m) => Math.max(0, Math.ceil(await tokenCounter([m])))))
    return context
  }

  /** Plans on a snapshot; `undefined` when nothing is to be summarized (or the plan failed: logged). */
  async function planFor(messages: AnyMessage[], model: unknown): Promise<EditPlan | undefined> {
    try {
      const plan = await editor.planAsync(messages, await contextFor(messages, model))
      return plan.summary ? plan : undefined
    } catch (e) {
      report('planning failed', e)
      return undefined
    }
  }

  async function write(plan: EditPlan, model: ChatModelLike, runtime: unknown): Promise<string | undefined> {
    try {
      const response = await withMaxTokens(model, resolved.maxTokens).invoke(plan.summary!.prompt, callConfig(runtime))
      return summaryText(response)
    } catch (e) {
      report('the summarizing model failed', e)
      return undefined
    }
  }

  /** The new message list: summary message (with the first replaced message's id, as LangChain) + the rest. */
  function rewrite(messages: AnyMessage[], plan: EditPlan, summary: string): AnyMessage[] {
    const inputs = new Set(messages)
    const out = applyPlan(messages, plan, { summary })
    const k = out.findIndex((m) => !inputs.has(m) && m?.additional_kwargs?.lc_source === 'summarization')
    if (k >= 0) {
      const first = messages[plan.summary!.replaced[0]]
      const id = typeof first?.id === 'string' && first.id ? first.id : randomUUID()
      const m = out[k]
      m.id = id
      if (m.lc_kwargs && typeof m.lc_kwargs === 'object') m.lc_kwargs = { ...m.lc_kwargs, id }
    }
    return out
  }

  return {
    async beforeModel(state, runtime) {
      const messages = Array.isArray(state?.messages) ? state.messages.slice() : []
      if (messages.length === 0) return undefined
      let model: ChatModelLike | undefined
      try {
        model = await summarizer()
      } catch (e) {
        report('no summarizing model', e)
        return undefined
      }
      if (!model) {
        // The agent's model (and its input limit) is only visible in `wrapModelCall`: plan and summarize there.
        const last = messages[messages.length - 1]
        if (last !== null && typeof last === 'object') deferred.add(last)
        return undefined
      }
      const plan = await planFor(messages, model)
      if (!plan) return undefined
      const summary = await write(plan, model, runtime)
      if (summary === undefined) return undefined
      return { messages: [host.removeAll(), ...rewrite(messages, plan, summary)] }
    },

    async wrapModelCall(request, handler) {
      if (isChatModel(request.model)) agentModel = request.model
      const messages = Array.isArray(request.messages) ? request.messages.slice() : []
      const last = messages[messages.length - 1]
      if (!last || typeof last !== 'object' || !deferred.has(last) || !agentModel) return handler(request)
      deferred.delete(last)
      const plan = await planFor(messages, agentModel)
      if (!plan) return handler(request)
      const summary = await write(plan, agentModel, (request as { runtime?: unknown }).runtime)
      if (summary === undefined) return handler(request)
      const response = await handler({ ...request, messages: rewrite(messages, plan, summary) })
      if (response !== null && typeof response === 'object') pending.set(response as object, { plan, summary, planned: messages })
      return response
    },

    async afterModel(state) {
      const messages = Array.isArray(state?.messages) ? state.messages.slice() : []
      const last = messages[messages.length - 1]
      const entry = last && typeof last === 'object' ? pending.get(last) : undefined
      if (!entry) return undefined
      pending.delete(last)
      const n = entry.planned.length
      if (messages.length < n) return undefined
      for (let i = 0; i < n; i++) {
        const a = messages[i]
        const b = entry.planned[i]
        if (a !== b && (a?.id === undefined || a?.id !== b?.id)) return undefined
      }
      const head = messages.slice(0, n)
      return { messages: [host.removeAll(), ...rewrite(head, entry.plan, entry.summary), ...messages.slice(n)] }
    },
  }
}
