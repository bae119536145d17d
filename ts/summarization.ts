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
import { applyPlan, type AnyMessage } from './wire.js'
import { profileMaxInputTokens, modelNameOf } from './middleware.js'
import { resolveSummarizationOptions, SUMMARIZATION_MIDDLEWARE_NAME, type SummarizationOptions } from './schema.js'
import type { EditContext } from './editor.js'
import { ContextEditorError, errorText } from './errors.js'
import { SUMMARY_EMPTY, SUMMARY_INVALID, SUMMARY_PATH, summaryTextOf } from './summary.js'

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

/**
 * The config's own options, each read once: a getter or Proxy trap that throws is the caller's
 * error, named by the option it was reading (`options` for the key list).
 */
function readConfig(config: SummarizationHookConfig | null | undefined): SummarizationHookConfig {
  if (config === undefined || config === null) return {}
  const unreadable = (path: string, e: unknown) =>
    new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: ${path}: could not be read (${errorText(e)})`, { path, cause: e })
  let keys: string[]
  try {
    keys = Object.keys(config)
  } catch (e) {
    throw unreadable('options', e)
  }
  const out: Record<string, unknown> = {}
  for (const key of keys) {
    try {
      // Defined, not assigned: a `__proto__` key stays an (unknown, rejected) option.
      Object.defineProperty(out, key, { value: (config as Record<string, unknown>)[key], enumerable: true, writable: true, configurable: true })
    } catch (e) {
      throw unreadable(key, e)
    }
  }
  return out as SummarizationHookConfig
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
  const expected = host.resolveModel ? 'a chat model instance (with `invoke`) or a model name such as "openai:gpt-4o-mini"' : 'a chat model instance (with `invoke`)'
  throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: model: expected ${expected}, got ${got}`, { path: 'model' })
}

function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object without `invoke`'
  return `${typeof value} ${typeof value === 'symbol' ? '' : String(value)}`.trim()
}

/** `tokenCounter([message])` as a token count (negative = 0); its throw, or a value that is no count, is thrown. */
async function countOne(tokenCounter: NonNullable<SummarizationHookConfig['tokenCounter']>, message: AnyMessage, i: number): Promise<number> {
  let n: unknown
  try {
    n = await tokenCounter([message])
  } catch (e) {
    throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: tokenCounter: threw on message ${i}: ${errorText(e)}`, {
      path: 'tokenCounter',
      cause: e,
    })
  }
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: tokenCounter: expected a finite token count for message ${i}, got ${String(n)}`, {
      path: 'tokenCounter',
    })
  }
  return Math.max(0, Math.ceil(n))
}

/**
 * Errors that mean the middleware is misconfigured for this model (a `fraction` without a known
 * input limit, a broken `tokenCounter`): thrown on every call, as LangChain does, instead of
 * silently never summarizing.
 */
function isConfigError(e: unknown): e is ContextEditorError {
  return e instanceof ContextEditorError && (e.code === 'INVALID_OPTIONS' || e.code === 'INVALID_CONTEXT')
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
  if (config !== undefined && config !== null && (typeof config !== 'object' || Array.isArray(config))) {
    throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: options: expected an object, got ${describeValue(config)}`, {
      path: 'options',
    })
  }
  const { model: configured, tokenCounter, ...json } = readConfig(config)
  // Wrong types fail here, when the middleware is built, not at the first model call.
  checkModel(configured, host)
  if (tokenCounter !== undefined && tokenCounter !== null && typeof tokenCounter !== 'function') {
    throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: tokenCounter: expected a function`, { path: 'tokenCounter' })
  }
  const resolved = resolveSummarizationOptions(json as Record<string, unknown>)
  const { editor } = resolved
  const warn = host.warn ?? ((message: string, error: unknown) => console.warn(message, error))
  /** Warning codes already logged: each kind of failure is logged once per middleware. */
  const warned = new Set<string>()
  let agentModel: ChatModelLike | undefined
  let configuredModel: ChatModelLike | undefined
  /** Summaries written inside `wrapModelCall`, keyed by the model's response, for `afterModel`. */
  const pending = new WeakMap<object, Pending>()
  /** The last message of a state whose summary `beforeModel` left to `wrapModelCall` (no model known). */
  const deferred = new WeakSet<object>()

  /** Logs a failed summary (once per `code`): the request goes through with its history intact. */
  function report(code: string, what: string, error: unknown): void {
    if (warned.has(code)) return
    warned.add(code)
    warn(`${SUMMARIZATION_MIDDLEWARE_NAME}: ${what}; the request goes through unsummarized (${code})`, error)
  }

  /**
   * The configured model, resolved once. A name that does not resolve is a configuration error:
   * thrown on every call (as LangChain's `initChatModel` does), never a silent "no summaries".
   */
  async function summarizer(): Promise<ChatModelLike | undefined> {
    if (configured === undefined || configured === null) return agentModel
    if (!configuredModel) {
      let m: unknown
      try {
        m = isChatModel(configured) ? configured : await host.resolveModel?.(configured)
      } catch (e) {
        throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: model: cannot load \`${String(configured)}\`: ${errorText(e)}`, {
          path: 'model',
          cause: e,
        })
      }
      if (!isChatModel(m)) {
        throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: model: \`${String(configured)}\` did not resolve to a chat model`, {
          path: 'model',
        })
      }
      configuredModel = m
    }
    return configuredModel
  }

  async function contextFor(messages: AnyMessage[], model: unknown): Promise<EditContext> {
    const context: EditContext = {
      maxInputTokens: resolved.maxInputTokens ?? profileMaxInputTokens(model) ?? profileMaxInputTokens(agentModel),
      model: modelNameOf(model) ?? modelNameOf(agentModel),
    }
    if (tokenCounter) context.messageTokens = await Promise.all(messages.map((m, i) => countOne(tokenCounter, m, i)))
    return context
  }

  /**
   * Plans on a snapshot; `undefined` when nothing is to be summarized (or the messages could not
   * be planned: logged). A misconfiguration is thrown, on every call.
   */
  async function planFor(messages: AnyMessage[], model: unknown): Promise<EditPlan | undefined> {
    const context = await contextFor(messages, model)
    try {
      const plan = await editor.planAsync(messages, context)
      return plan.summary ? plan : undefined
    } catch (e) {
      if (isConfigError(e)) throw configError(e)
      report('planning_failed', 'planning failed', e)
      return undefined
    }
  }

  /** A configuration error of the core, named as this middleware's options. */
  function configError(e: ContextEditorError): ContextEditorError {
    if (e.path === 'maxInputTokens') {
      return new ContextEditorError(
        e.code,
        `${SUMMARIZATION_MIDDLEWARE_NAME}: maxInputTokens: a \`fraction\` in \`trigger\` or \`keep\` needs the model's input limit, and none is known (set \`maxInputTokens\`, use a model whose profile has \`maxInputTokens\`, or use absolute \`tokens\`)`,
        { path: 'maxInputTokens', cause: e },
      )
    }
    return new ContextEditorError(e.code, `${SUMMARIZATION_MIDDLEWARE_NAME}: ${e.message}`, { path: e.path, cause: e })
  }

  /**
   * The summary the model writes; `undefined` when it failed (logged): the model threw, or
   * answered with no text (empty, blank, reasoning only) or with something that is not a summary.
   * An empty summary never replaces the history.
   */
  async function write(plan: EditPlan, model: ChatModelLike, runtime: unknown): Promise<string | undefined> {
    let response: unknown
    try {
      response = await withMaxTokens(model, resolved.maxTokens).invoke(plan.summary!.prompt, callConfig(runtime))
    } catch (e) {
      report('summary_failed', 'the summarizing model failed', e)
      return undefined
    }
    let text: string
    try {
      text = summaryTextOf(response)
    } catch (e) {
      report(SUMMARY_INVALID, 'the summarizing model returned something that is not a summary', e)
      return undefined
    }
    if (text === '') {
      report(
        SUMMARY_EMPTY,
        'the summarizing model returned no text (empty, blank, or only reasoning)',
        new ContextEditorError('INVALID_SUMMARY', 'summary: no text in the model response', { path: SUMMARY_PATH }),
      )
      return undefined
    }
    return text
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
      const model = await summarizer()
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
