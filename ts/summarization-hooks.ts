// The state and steps behind `createSummarizationHooks` (summarization.ts, whose module doc says
// which model writes the summary and why `wrapModelCall` may write it): one
// `SummarizationHooksState` per middleware instance holds what its hooks share (the models seen,
// the summaries on their way to `afterModel`, the back-off, the warnings logged) and each hook is
// a method made of the named steps below.

import { randomUUID } from 'node:crypto'
import { coreAdjusts } from './budget.js'
import type { EditPlan } from './native.js'
import { applyPlan, MAX_MESSAGES, sameList, type AnyMessage } from './wire.js'
import { profileMaxInputTokens, modelNameOf, withLearnedLimit } from './middleware.js'
import { SUMMARIZATION_MIDDLEWARE_NAME, type ResolvedSummarizationOptions } from './schema.js'
import type { EditContext } from './editor.js'
import { ContextEditorError, errorText, unreadable } from './errors.js'
import { SUMMARY_EMPTY, SUMMARY_INVALID, SUMMARY_PATH, summaryTextOf } from './summary.js'
import { Backoff } from './summary-backoff.js'
import type { ChatModelLike, MessagesUpdate, SummarizationHookConfig, SummarizationHost } from './summarization.js'

/** LangGraph skips runs tagged with this in its messages stream (langchain `INTERNAL_CALL_TAG`). */
const INTERNAL_CALL_TAG = 'nostream'
/** Whether `m` is a chat model: an object with `invoke`. */
export function isChatModel(m: unknown): m is ChatModelLike {
  return m !== null && typeof m === 'object' && typeof (m as ChatModelLike).invoke === 'function'
}
/** The fields chat models bound their answer with: `maxTokens` (OpenAI, Anthropic, Bedrock, …), `maxOutputTokens` (Google). */
const TOKEN_LIMIT_FIELDS = ['maxTokens', 'maxOutputTokens'] as const

function hasTokenLimit(model: object): boolean {
  return TOKEN_LIMIT_FIELDS.some((field) => field in model)
}

/**
 * A copy of the model whose answer is bounded by `maxTokens`, or `undefined` when the model has no
 * field for it. The model's own delegates are bounded too: ChatOpenAI (v1) answers through
 * `completions` / `responses` models that keep their own `maxTokens`, so setting it on the outer
 * model alone would change nothing. The caller's model is never changed.
 */
function withMaxTokens(model: ChatModelLike, maxTokens: number): ChatModelLike | undefined {
  const bounded = (m: object, nested: boolean): object | undefined => {
    const copy = Object.assign(Object.create(Object.getPrototypeOf(m)), m) as Record<string, unknown>
    let found = false
    for (const field of TOKEN_LIMIT_FIELDS) {
      if (field in m) {
        copy[field] = maxTokens
        found = true
      }
    }
    if (!nested) {
      for (const key of Object.keys(m)) {
        const inner = (m as Record<string, unknown>)[key]
        if (inner === m || !isChatModel(inner) || !hasTokenLimit(inner)) continue
        const copied = bounded(inner, true)
        if (copied) {
          copy[key] = copied
          found = true
        }
      }
    }
    return found ? copy : undefined
  }
  return bounded(model, false) as ChatModelLike | undefined
}
/** The configured model in an error message: a name as written, anything else described (never `[object Object]`). */
function modelText(model: unknown): string {
  return typeof model === 'string' ? `\`${model}\`` : describeValue(model)
}

/** A value in an error message, described (never printed: no `[object Object]`, no function source). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return 'an object without `invoke`'
  switch (typeof value) {
    case 'string':
      return `the name \`${value}\``
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof value} ${String(value)}`
    case 'function':
      return 'a function without `invoke`'
    default:
      return typeof value
  }
}
/**
 * `tokenCounter([message])` as a token count (negative = 0, fractions rounded up); its throw, or a
 * value that is no count (not a number, NaN, ±Infinity, beyond 2^53), is the option's error.
 */
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
  const count = typeof n === 'number' ? Math.max(0, Math.ceil(n)) : NaN
  if (!Number.isSafeInteger(count)) {
    const got = typeof n === 'number' ? String(n) : typeof n === 'string' ? `the string ${JSON.stringify(n.slice(0, 40))}` : describeValue(n)
    throw new ContextEditorError(
      'INVALID_OPTIONS',
      `${SUMMARIZATION_MIDDLEWARE_NAME}: tokenCounter: expected a token count (a finite number up to 2^53) for message ${i}, got ${got}`,
      {
        path: 'tokenCounter',
      },
    )
  }
  return count
}
/**
 * Errors that mean the middleware is misconfigured for this model (a `fraction` without a known
 * input limit, a broken `tokenCounter`): thrown on every call, as LangChain does, instead of
 * silently never summarizing.
 */
function isConfigError(e: unknown): e is ContextEditorError {
  return e instanceof ContextEditorError && (e.code === 'INVALID_OPTIONS' || e.code === 'INVALID_CONTEXT')
}

/** The runnable config a hook's runtime may carry (LangChain's `pickRunnableConfigKeys`). */
const RUNNABLE_CONFIG_KEYS = [
  'configurable',
  'recursionLimit',
  'callbacks',
  'tags',
  'metadata',
  'maxConcurrency',
  'timeout',
  'signal',
  'store',
  'context',
] as const

/**
 * The config of the summarizing call, as LangChain builds it: the runtime's runnable config
 * (tracing callbacks, abort signal, …) merged with `metadata.lc_source = "summarization"` and the
 * tag that keeps the call out of LangGraph's message stream (metadata merged, tags a union). A
 * runtime field that cannot be read is left out: it only tags and traces the call, and the
 * summarizer must not be blamed for it.
 */
function callConfig(runtime: unknown): Record<string, unknown> {
  const config: Record<string, unknown> = {}
  if (runtime !== null && (typeof runtime === 'object' || typeof runtime === 'function')) {
    for (const key of RUNNABLE_CONFIG_KEYS) {
      try {
        const value = (runtime as Record<string, unknown>)[key]
        if (value !== undefined) config[key] = value
      } catch {
        // Left out (see above).
      }
    }
  }
  let metadata: Record<string, unknown> = {}
  let tags: string[] = []
  try {
    if (config.metadata !== null && typeof config.metadata === 'object') metadata = { ...(config.metadata as Record<string, unknown>) }
    if (Array.isArray(config.tags)) tags = config.tags.filter((t): t is string => typeof t === 'string')
  } catch {
    // An unreadable parent metadata or tag list: the call gets ours alone.
  }
  config.metadata = { ...metadata, lc_source: 'summarization' }
  config.tags = [...new Set([...tags, INTERNAL_CALL_TAG])]
  return config
}
/**
 * A snapshot of `holder.messages` (the agent's state or the model request); `undefined` when it
 * holds no list. Every read is guarded and the length is checked before the list is copied.
 * @throws {ContextEditorError} `INVALID_MESSAGE` (path `messages`, the original as `cause`) when a
 * getter or Proxy trap throws, or the list is longer than any history.
 */
function messagesOf(holder: unknown, where: string): AnyMessage[] | undefined {
  try {
    if (holder === null || typeof holder !== 'object') return undefined
    const list = (holder as { messages?: unknown }).messages
    if (!Array.isArray(list)) return undefined
    const n = list.length
    if (n > MAX_MESSAGES) {
      throw new ContextEditorError(
        'INVALID_MESSAGE',
        `${where}.messages: expected at most ${MAX_MESSAGES.toLocaleString('en-US')} messages, got ${n.toLocaleString('en-US')}`,
        { path: 'messages' },
      )
    }
    return Array.prototype.slice.call(list) as AnyMessage[]
  } catch (e) {
    if (e instanceof ContextEditorError) throw e
    throw unreadable('INVALID_MESSAGE', `${where}.messages`, e, { path: 'messages' })
  }
}

interface Pending {
  plan: EditPlan
  summary: string
  /** The messages the plan addresses (identity, then ids, must match the state's prefix). */
  planned: AnyMessage[]
}

/** A configuration error of the core, named as this middleware's options. */
function configError(e: ContextEditorError): ContextEditorError {
  if (e.path === 'maxInputTokens') {
    return new ContextEditorError(
      e.code,
      // The first sentence is LangChain's own (JS and Python), which callers match on.
      `${SUMMARIZATION_MIDDLEWARE_NAME}: maxInputTokens: Model profile information is required to use fractional token limits: a \`fraction\` in \`trigger\` or \`keep\` needs the model's input limit, and none is known (set \`maxInputTokens\`, use a model whose profile has \`maxInputTokens\`, or use absolute \`tokens\`)`,
      { path: 'maxInputTokens', cause: e },
    )
  }
  return new ContextEditorError(e.code, `${SUMMARIZATION_MIDDLEWARE_NAME}: ${e.message}`, { path: e.path, cause: e })
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

/** A field of the host's request, or `undefined` when reading it throws (only used as a hint). */
function field(holder: unknown, key: string): unknown {
  try {
    return holder !== null && typeof holder === 'object' ? (holder as Record<string, unknown>)[key] : undefined
  } catch {
    return undefined
  }
}

/** The options `createSummarizationHooks` validated: the live ones as given, the JSON ones resolved. */
export interface SummarizationHooksOptions {
  configured: unknown
  tokenCounter: SummarizationHookConfig['tokenCounter']
  onReport: SummarizationHookConfig['onReport']
  resolved: ResolvedSummarizationOptions
}

/** What one summarization middleware's hooks share, and the hooks as methods (see the module doc). */
export class SummarizationHooksState {
  readonly #options: SummarizationHooksOptions
  readonly #host: SummarizationHost
  /** Warning codes already logged: each kind of failure is logged once per middleware. */
  readonly #warned = new Set<string>()
  #agentModel: ChatModelLike | undefined
  #configuredModel: ChatModelLike | undefined
  /** Summaries written inside `wrapModelCall`, keyed by the model's response, for `afterModel`. */
  readonly #pending = new WeakMap<object, Pending>()
  /** The last message of a state whose summary `beforeModel` left to `wrapModelCall` (no model known). */
  readonly #deferred = new WeakSet<object>()
  /**
   * Summaries written in `wrapModelCall` whose model call has not answered yet, by the state's last
   * message: a retry of the call (a retry middleware around this one calls it again) sends the same
   * summary instead of the whole history, and the summarizer is not asked twice.
   */
  readonly #written = new WeakMap<object, Pending>()
  /** The failing summarizer's back-off (`retryAfter`). */
  readonly #backoff: Backoff

  constructor(options: SummarizationHooksOptions, host: SummarizationHost) {
    this.#options = options
    this.#host = host
    this.#backoff = new Backoff(options.resolved.retryAfter)
  }

  #warn(message: string, error: unknown): void {
    if (this.#host.warn) this.#host.warn(message, error)
    else console.warn(message, error)
  }

  /** Hands the planning report to `onReport`; its throw is logged, never breaks the request. */
  #reportPlan(plan: EditPlan | undefined, summaryWritten: boolean): void {
    const { onReport } = this.#options
    if (!onReport || !plan) return
    try {
      onReport({ ...plan.report, summaryWritten, summaryBackoff: this.#backoff.state() })
    } catch (e) {
      this.#report('on_report_failed', 'onReport threw', e)
    }
  }

  /** Logs a failed summary (once per `code`): the request goes through with its history intact. */
  #report(code: string, what: string, error: unknown): void {
    if (this.#warned.has(code)) return
    this.#warned.add(code)
    this.#warn(`${SUMMARIZATION_MIDDLEWARE_NAME}: ${what}; the request goes through unsummarized (${code})`, error)
  }

  /**
   * The configured model, resolved once. A name that does not resolve is a configuration error:
   * thrown on every call (as LangChain's `initChatModel` does), never a silent "no summaries".
   */
  async #summarizer(): Promise<ChatModelLike | undefined> {
    const { configured } = this.#options
    if (configured === undefined || configured === null) return this.#agentModel
    if (!this.#configuredModel) {
      let m: unknown
      try {
        m = isChatModel(configured) ? configured : await this.#host.resolveModel?.(configured)
      } catch (e) {
        throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: model: cannot load ${modelText(configured)}: ${errorText(e)}`, {
          path: 'model',
          cause: e,
        })
      }
      if (!isChatModel(m)) {
        throw new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: model: ${modelText(configured)} did not resolve to a chat model`, {
          path: 'model',
        })
      }
      this.#configuredModel = m
    }
    return this.#configuredModel
  }

  async #contextFor(messages: AnyMessage[], model: unknown): Promise<EditContext> {
    const { resolved, tokenCounter } = this.#options
    const found: EditContext = {
      maxInputTokens: resolved.maxInputTokens ?? profileMaxInputTokens(model) ?? profileMaxInputTokens(this.#agentModel),
      model: modelNameOf(model) ?? modelNameOf(this.#agentModel),
    }
    // What a recovery of this conversation learned: the limit the provider stated, when below the
    // one found, and its count over ours (not over a caller's `tokenCounter`, which it never saw).
    const conversation = this.#host.conversations?.of(messages)
    const context = { ...withLearnedLimit(found, conversation) }
    if (tokenCounter) context.messageTokens = await Promise.all(messages.map((m, i) => countOne(tokenCounter, m, i)))
    else if (conversation?.ratio !== undefined && coreAdjusts()) context.tokenCorrection = conversation.ratio
    return context
  }

  /**
   * Plans on a snapshot; `undefined` when nothing is to be summarized (or the messages could not
   * be planned: logged). A misconfiguration is thrown, on every call.
   */
  async #planFor(messages: AnyMessage[], model: unknown): Promise<EditPlan | undefined> {
    const context = await this.#contextFor(messages, model)
    try {
      const plan = await this.#options.resolved.editor.planAsync(messages, context)
      if (plan.summary) return plan
      this.#reportPlan(plan, false)
      return undefined
    } catch (e) {
      if (isConfigError(e)) throw configError(e)
      this.#report('planning_failed', 'planning failed', e)
      return undefined
    }
  }

  /** The summarizing model bounded by the `maxTokens` option; a model with no field for it is used as it is (logged once). */
  #bound(model: ChatModelLike): ChatModelLike {
    const { maxTokens } = this.#options.resolved
    if (maxTokens === undefined) return model
    const copy = withMaxTokens(model, maxTokens)
    if (copy) return copy
    if (!this.#warned.has('max_tokens_unsupported')) {
      this.#warned.add('max_tokens_unsupported')
      this.#warn(
        `${SUMMARIZATION_MIDDLEWARE_NAME}: maxTokens: the summarizing model has no maxTokens or maxOutputTokens field; its summaries are not bounded (max_tokens_unsupported)`,
        undefined,
      )
    }
    return model
  }

  /**
   * The summary the model writes; `undefined` when it failed (logged): the model threw, or
   * answered with no text (empty, blank, reasoning only) or with something that is not a summary.
   * An empty summary never replaces the history. After a failure the summarizer is left alone
   * (`undefined`, not logged again) until `retryAfter` calls have gone by or its seconds passed.
   */
  async #write(plan: EditPlan, model: ChatModelLike, runtime: unknown): Promise<string | undefined> {
    if (this.#backoff.skip()) {
      this.#reportPlan(plan, false)
      return undefined
    }
    const text = await this.#ask(plan, model, runtime)
    this.#backoff.answered(text !== undefined)
    this.#reportPlan(plan, text !== undefined)
    return text
  }

  /** One request to the summarizing model (see `#write`). */
  async #ask(plan: EditPlan, model: ChatModelLike, runtime: unknown): Promise<string | undefined> {
    let response: unknown
    try {
      response = await this.#bound(model).invoke(plan.summary!.prompt, callConfig(runtime))
    } catch (e) {
      this.#report('summary_failed', 'the summarizing model failed', e)
      return undefined
    }
    let text: string
    try {
      text = summaryTextOf(response)
    } catch (e) {
      this.#report(SUMMARY_INVALID, 'the summarizing model returned something that is not a summary', e)
      return undefined
    }
    if (text === '') {
      this.#report(
        SUMMARY_EMPTY,
        'the summarizing model returned no text (empty, blank, or only reasoning)',
        new ContextEditorError('INVALID_SUMMARY', 'summary: no text in the model response', { path: SUMMARY_PATH }),
      )
      return undefined
    }
    return text
  }

  /**
   * The messages of the state or request, or `undefined` (logged) when they cannot be read: the
   * request then goes through as it is, with the history intact.
   */
  #snapshot(holder: unknown, where: string): AnyMessage[] | undefined {
    try {
      return messagesOf(holder, where) ?? []
    } catch (e) {
      this.#report('planning_failed', `the ${where}'s messages could not be read`, e)
      return undefined
    }
  }

  /** `rewrite`, or `undefined` (logged) when the messages cannot be rewritten: nothing is lost. */
  #rewritten(messages: AnyMessage[], plan: EditPlan, summary: string): AnyMessage[] | undefined {
    try {
      return rewrite(messages, plan, summary)
    } catch (e) {
      this.#report('planning_failed', 'the summary could not be applied', e)
      return undefined
    }
  }

  /** The `beforeModel` hook: summarizes the state when a summary is due and a summarizer is known. */
  async beforeModel(state: { messages?: AnyMessage[] }, runtime?: unknown): Promise<MessagesUpdate | undefined> {
    const messages = this.#snapshot(state, 'state')
    if (!messages || messages.length === 0) return undefined
    const model = await this.#summarizer()
    if (!model) {
      // The agent's model (and its input limit) is only visible in `wrapModelCall`: plan and summarize there.
      const last = messages[messages.length - 1]
      if (last !== null && typeof last === 'object') this.#deferred.add(last)
      return undefined
    }
    const plan = await this.#planFor(messages, model)
    if (!plan) return undefined
    const summary = await this.#write(plan, model, runtime)
    if (summary === undefined) return undefined
    const out = this.#rewritten(messages, plan, summary)
    return out && { messages: [this.#host.removeAll(), ...out] }
  }

  /**
   * The `wrapModelCall` hook: remembers the agent's model, and sends the request summarized when
   * `beforeModel` left the summary to it (or a retry of the call comes with the same messages).
   */
  async wrapModelCall<R extends { messages: AnyMessage[]; model?: unknown }, T>(request: R, handler: (request: R) => T | Promise<T>): Promise<T> {
    const model = field(request, 'model')
    try {
      if (isChatModel(model)) this.#agentModel = model
    } catch {
      // A model whose `invoke` cannot be read is no summarizer; the handler gets the request as it is.
    }
    const messages = this.#snapshot(request, 'request')
    const last = messages?.[messages.length - 1]
    if (!messages || !last || typeof last !== 'object' || !this.#agentModel) return handler(request)
    const entry = await this.#summaryForCall(messages, last, request)
    if (!entry) return handler(request)
    const out = this.#rewritten(messages, entry.plan, entry.summary)
    if (!out) return handler(request)
    const response = await handler({ ...request, messages: out })
    this.#written.delete(last)
    if (response !== null && typeof response === 'object') this.#pending.set(response as object, entry)
    return response
  }

  /**
   * The summary `wrapModelCall` sends: the one already written for these messages (a retried
   * call), else one written now if `beforeModel` deferred it; `undefined` when there is none.
   */
  async #summaryForCall(messages: AnyMessage[], last: object, request: unknown): Promise<Pending | undefined> {
    const entry = this.#written.get(last)
    if (entry !== undefined && sameList(entry.planned, messages)) return entry
    if (!this.#deferred.has(last)) return undefined
    this.#deferred.delete(last)
    const plan = await this.#planFor(messages, this.#agentModel)
    if (!plan) return undefined
    const summary = await this.#write(plan, this.#agentModel!, field(request, 'runtime'))
    if (summary === undefined) return undefined
    const written = { plan, summary, planned: messages }
    this.#written.set(last, written)
    return written
  }

  /** The `afterModel` hook: persists in the state the summary `wrapModelCall` sent. */
  async afterModel(state: { messages?: AnyMessage[] }): Promise<MessagesUpdate | undefined> {
    const messages = this.#snapshot(state, 'state')
    if (!messages) return undefined
    // The response is the newest message, unless an `afterModel` hook that ran before this one
    // appended more: look for it from the end.
    let at = messages.length - 1
    while (at >= 0 && !(messages[at] !== null && typeof messages[at] === 'object' && this.#pending.has(messages[at] as object))) at--
    if (at < 0) return undefined
    const entry = this.#pending.get(messages[at] as object)!
    this.#pending.delete(messages[at] as object)
    const n = entry.planned.length
    if (at < n || !this.#startsWithPlanned(messages, entry)) return undefined
    const head = this.#rewritten(messages.slice(0, n), entry.plan, entry.summary)
    return head && { messages: [this.#host.removeAll(), ...head, ...messages.slice(n)] }
  }

  /** Whether the state still starts with the planned messages (the same objects, or the same ids). */
  #startsWithPlanned(messages: AnyMessage[], entry: Pending): boolean {
    try {
      for (let i = 0; i < entry.planned.length; i++) {
        const a = messages[i]
        const b = entry.planned[i]
        if (a !== b && (a?.id === undefined || a?.id !== b?.id)) return false
      }
      return true
    } catch (e) {
      this.#report('planning_failed', "the state's messages could not be read", e)
      return false
    }
  }
}
