// The `wrapModelCall` hook shared by the LangChain middleware and the Xpert strategy (both speak
// LangChain v1's middleware protocol). Clearing is per request: the hook hands the model an edited
// *copy* of the messages and leaves the agent's state, and the caller's objects, untouched.
//
// No host library is imported here. Tool schemas are converted with @langchain/core's
// `convertToOpenAITool`, loaded on first use from wherever the host keeps @langchain/core.

import { createRequire } from 'node:module'
import { field, listCopy, MAX_ITEMS, notePollution, own, type AnyMessage } from './wire.js'
import type { EditContext } from './editor.js'
import { ContextEditorError, errorText, unreadable } from './errors.js'
import type { EditReport } from './native.js'
import { MIDDLEWARE_NAME, resolveOptions, type ContextEditingMiddlewareConfig, type ResolvedOptions } from './schema.js'
import { readMiddlewareOptions as readOptions } from './options.js'
import { findLimit, langchainProfileLimit, layers, xpertProfileLimit, type FoundLimit, type LimitSource } from './windows.js'
import { classifyOverflow } from './overflow.js'
import { noteRecovery, recoveryEdit, recoveryRecord, recoveryTarget, type RecoveryEditors, type RecoveryRecord } from './recovery.js'
import {
  answered,
  Conversations,
  learnFromRecovery,
  prepareCall,
  recordCall,
  recordRecovery,
  takeMiddlewareOnly,
  type ConversationState,
  type PreparedCall,
} from './budget.js'
import type { AnchorReport } from './usage.js'

/** The parts of a LangChain v1 / Xpert `ModelRequest` the hook reads. */
export interface ModelRequestLike {
  messages: AnyMessage[]
  systemMessage?: unknown
  systemPrompt?: unknown
  tools?: ReadonlyArray<unknown>
  model?: unknown
}

/** A `wrapModelCall` hook. */
export type WrapModelCall = <R extends ModelRequestLike, T>(request: R, handler: (request: R) => T | Promise<T>) => Promise<T>

const require = createRequire(import.meta.url)
let convertTool: ((tool: unknown) => unknown) | null | undefined

/** @langchain/core's `convertToOpenAITool`, from the copy the host has (CommonJS, so 0.3 and 1.x both work). */
function toolConverter(): ((tool: unknown) => unknown) | null {
  if (convertTool === undefined) {
    try {
      convertTool = require('@langchain/core/utils/function_calling').convertToOpenAITool
    } catch {
      convertTool = null
    }
  }
  return convertTool ?? null
}

function isLangChainTool(t: Record<string, unknown>): boolean {
  return typeof field(t, 'invoke') === 'function' || Array.isArray(field(t, 'lc_namespace'))
}

/** Converted tool definitions, per tool object (an agent passes the same tools on every call). */
const converted = new WeakMap<object, string>()

function toolSchema(t: Record<string, unknown>): string {
  const convert = toolConverter()
  if (convert) {
    try {
      return JSON.stringify(convert(t))
    } catch {
      // fall through: count what we can see
    }
  }
  return JSON.stringify({ type: 'function', function: { name: field(t, 'name'), description: field(t, 'description') } })
}

/**
 * Tool definitions as the model receives them (OpenAI function format, as JSON text), for counting.
 * @throws {ContextEditorError} `INVALID_CONTEXT` naming the tool (`tools[2]`) when reading it throws
 * (a getter, a Proxy trap), with what was thrown as `cause`; the list is length-checked first.
 */
export function toolSchemas(tools: ReadonlyArray<unknown> | undefined | null): unknown[] | undefined {
  let n: number
  try {
    if (!Array.isArray(tools)) return undefined
    n = tools.length
  } catch (e) {
    throw unreadable('INVALID_CONTEXT', 'context.tools', e, { path: 'tools' })
  }
  if (n === 0) return undefined
  if (n > MAX_ITEMS) return tools as unknown[] // rejected, with its length, by the editor
  const list = new Array<unknown>(n)
  for (let k = 0; k < n; k++) {
    try {
      list[k] = Object.hasOwn(tools as unknown[], k) ? (tools as unknown[])[k] : undefined
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', `context.tools[${k}]`, e, { path: `tools[${k}]` })
    }
  }
  return list.map((tool, k) => {
    if (tool === null || typeof tool !== 'object') return tool
    const t = tool as Record<string, unknown>
    try {
      if (!isLangChainTool(t)) return t // a provider ("server") tool or an OpenAI definition already
      let schema = converted.get(t)
      if (schema === undefined) {
        schema = toolSchema(t)
        converted.set(t, schema)
      }
      return schema
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', `context.tools[${k}]`, e, { path: `tools[${k}]` })
    }
  })
}

/**
 * The model's input limit from its profile: LangChain's `model.profile.maxInputTokens`, else the
 * Xpert 3.7.x copilot model's `model.metadata.profile.maxInputTokens` (also through a binding).
 */
export function profileMaxInputTokens(model: unknown): number | undefined {
  return langchainProfileLimit(model) ?? xpertProfileLimit(model)
}

/** The model name a chat model instance carries (`model` or `modelName`). */
export function modelNameOf(model: unknown): string | undefined {
  // Through bindings too (LangChain 0.3's bindTools(), withRetry(), withFallbacks(): see windows.ts).
  for (const m of layers(model)) {
    const name = field(m, 'model')
    if (typeof name === 'string' && name) return name
    const modelName = field(m, 'modelName')
    if (typeof modelName === 'string' && modelName) return modelName
  }
  return undefined
}

/**
 * The call context for one request: system prompt, tools, model limit and name. Each field of the
 * request is read once, guarded: a getter or Proxy trap that throws is the caller's `INVALID_CONTEXT`
 * naming it (what it threw as `cause`).
 */
export function editContextFor(request: ModelRequestLike, resolved: ResolvedOptions, modelOption?: string): EditContext {
  const read = <T>(name: string, get: () => T): T => {
    try {
      return get()
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', `request.${name}`, e, { path: name })
    }
  }
  const system = read('systemMessage', () => field(request, 'systemMessage')) ?? read('systemPrompt', () => field(request, 'systemPrompt'))
  const tools = read('tools', () => field(request, 'tools'))
  const model = read('model', () => field(request, 'model'))
  const name = read('model', () => modelNameOf(model))
  const limit = read('model', () => findLimit(resolved.maxInputTokens, model, modelOption ?? name))
  const context: CallContext = {
    systemPrompt: (system as EditContext['systemPrompt']) ?? undefined,
    tools: toolSchemas(tools as ReadonlyArray<unknown> | undefined),
    maxInputTokens: limit?.tokens,
    model: resolved.fixedModel ? undefined : name,
  }
  // Not a context field: where the limit came from, for the report.
  Object.defineProperty(context, LIMIT, { value: limit, enumerable: false })
  return context
}

const LIMIT = Symbol('limit')
type CallContext = EditContext & { [LIMIT]?: FoundLimit }

/**
 * The call's context with the input limit a provider's error stated earlier in the conversation (for
 * the same model), when it is below the one found: the next calls' triggers fire before the provider
 * refuses again, instead of every call being refused once and recovered.
 */
export function withLearnedLimit(context: EditContext, state: ConversationState | undefined): EditContext {
  const learned = state?.limit
  if (learned === undefined || learned.model !== (context.model ?? undefined)) return context
  const known = context.maxInputTokens
  if (known !== undefined && known !== null && known <= learned.tokens) return context
  const out: CallContext = { ...context, maxInputTokens: learned.tokens }
  Object.defineProperty(out, LIMIT, { value: { tokens: learned.tokens, source: 'error' } satisfies FoundLimit, enumerable: false })
  return out
}

/** Where the call's input limit came from (see `windows.ts`), once the editor has reported its limit. */
function limitSource(context: EditContext, report: EditReport): LimitSource | undefined {
  const found = (context as CallContext)[LIMIT]
  if (found !== undefined) return found.source
  return report.maxInputTokens !== undefined && report.maxInputTokens !== null ? 'core' : undefined
}

/**
 * A request's messages, read once into an array of our own (`undefined` when it holds no list);
 * a getter or Proxy trap that throws is the caller's `INVALID_MESSAGE` at `messages`.
 */
function requestMessages(request: unknown): AnyMessage[] | undefined {
  let list: unknown
  try {
    if (request === null || typeof request !== 'object') return undefined
    list = field(request, 'messages')
    if (!Array.isArray(list)) return undefined
  } catch (e) {
    throw unreadable('INVALID_MESSAGE', 'request.messages', e, { path: 'messages' })
  }
  return listCopy(list) as AnyMessage[]
}

/**
 * The middleware's options read once into data of our own, every read guarded (see
 * `readMiddlewareOptions` in options.ts); what is not valid is left for `resolveOptions` to reject.
 */
export function readMiddlewareOptions(config: unknown): unknown {
  return readOptions(config, MIDDLEWARE_NAME)
}

/** The report a middleware hands to `onReport`: the editor's, with where the limit came from and any recovery. */
export type MiddlewareReport = EditReport & {
  /**
   * Where `maxInputTokens` came from: `options`, `profile` (LangChain), `xpert-profile`, `table`, `core`
   * (tiktoken's OpenAI list), or `error`: a provider's context-length error earlier in the conversation
   * stated a smaller one.
   */
  maxInputTokensSource?: LimitSource
  /** Set on the report of a recovery pass (after a context-length error). */
  recovery?: RecoveryRecord
  /** The correction (true / counted) applied to this call's totals, learned from provider usage or a recovery. */
  tokenCorrection?: number
  /** With `tokenCountMethod: "usage"`: the anchor of this call (`used`, or why not: `none`, `stale`, `unverified`, `truncated`, `implausible`). */
  usageAnchor?: AnchorReport
}

/**
 * Builds the hook. Options are validated here, once, so a bad config fails when the middleware is
 * created, not on the first model call.
 */
export function createWrapModelCall(config?: ContextEditingMiddlewareConfig | null): WrapModelCall {
  notePollution()
  const options = readMiddlewareOptions(config)
  const { only, rest } = takeMiddlewareOnly(options, MIDDLEWARE_NAME)
  const resolved = resolveSnapshot(rest as ContextEditingMiddlewareConfig | null | undefined)
  // A model named by the options themselves (their own keys; `null` is unset) wins over the request's.
  const set = (key: string): boolean => rest !== null && typeof rest === 'object' && (own(rest, key) ?? undefined) !== undefined
  resolved.fixedModel = set('model') || set('encoding')
  const modelOption = set('model') && typeof own(rest, 'model') === 'string' ? (own(rest, 'model') as string) : undefined
  const { editor, onReport } = resolved
  const conversations = new Conversations()
  const recoveryEditors: RecoveryEditors = new Map()
  return async function wrapModelCall<R extends ModelRequestLike, T>(request: R, handler: (request: R) => T | Promise<T>): Promise<T> {
    notePollution()
    // The plan addresses messages by index: plan and apply on one snapshot of the array.
    const messages = requestMessages(request)
    if (messages === undefined || messages.length === 0) return handler(request)
    const state = conversations.of(messages)
    const context = withLearnedLimit(editContextFor(request, resolved, modelOption), state)
    const prepared = prepareCall(state, messages, context, only.usage)
    const result = await editor.editAsync(messages, prepared.context)
    recordCall(state, messages, prepared, result, only.usage)
    if (onReport) onReport(annotate(result.report, context, prepared))
    const edited = result.messages
    const sent = edited.length === messages.length && edited.every((m, i) => m === messages[i]) ? request : { ...request, messages: edited }
    if (!only.recovery.enabled) return answered(state, messages, await handler(sent))
    try {
      return answered(state, messages, await handler(sent))
    } catch (error) {
      const overflow = classifyOverflow(error)
      if (overflow === undefined) throw error
      // Once: the retry's own error, whatever it is, goes to the caller.
      const counted = result.report.tokensAfter / (prepared.correction ?? 1)
      const aim = recoveryTarget({ overflow, counted, knownLimit: context.maxInputTokens ?? undefined, learned: state?.ratio, options: only.recovery })
      let edited: Awaited<ReturnType<typeof recoveryEdit<AnyMessage>>>
      try {
        edited = await recoveryEdit(recoveryEditors, editor.options, messages, context, aim.targetCounted)
      } catch {
        // A recovery that cannot edit (a message that no longer reads) leaves the provider's error
        // to the caller, as it is: never one of ours in its place.
        throw error
      }
      const { result: again, dropped } = edited
      // A re-edit that cannot shrink the request would send it again as it was: the provider's
      // error goes to the caller instead, as it is.
      if (again.report.tokensAfter >= result.report.tokensAfter) throw error
      const record = recoveryRecord(aim, again.report, messages.length, again.messages.length, dropped)
      learnFromRecovery(state, aim, context.model ?? undefined)
      recordRecovery(state, messages, again.report)
      const report = annotate(again.report, context)
      report.recovery = record
      if (onReport) onReport(report)
      const response = answered(state, messages, await handler({ ...request, messages: again.messages }))
      noteRecovery(response, record)
      return response
    }
  }
}

function annotate(report: EditReport, context: EditContext, prepared?: PreparedCall): MiddlewareReport {
  const out = report as MiddlewareReport
  const source = limitSource(context, report)
  if (source !== undefined) out.maxInputTokensSource = source
  if (prepared?.anchor !== undefined) out.usageAnchor = prepared.anchor
  if (prepared?.correction !== undefined) out.tokenCorrection = prepared.correction
  return out
}

/**
 * `resolveOptions` on the options' snapshot; what it may still throw that is not ours (a class
 * instance's getter that throws only when read again) is the caller's `INVALID_OPTIONS` too.
 */
function resolveSnapshot(config: ContextEditingMiddlewareConfig | null | undefined): ResolvedOptions {
  try {
    return resolveOptions(config)
  } catch (e) {
    if (e instanceof ContextEditorError) throw e
    throw new ContextEditorError('INVALID_OPTIONS', `${MIDDLEWARE_NAME}: options: could not be read (${errorText(e)})`, { path: 'options', cause: e })
  }
}

/** A middleware object in LangChain v1's protocol (what Xpert's `createMiddleware` returns). */
export interface ContextEditingMiddlewareObject {
  name: typeof MIDDLEWARE_NAME
  wrapModelCall: WrapModelCall
}

/** The hook as a plain `{ name, wrapModelCall }` middleware object (no LangChain import needed). */
export function contextEditingMiddlewareObject(config?: ContextEditingMiddlewareConfig | null): ContextEditingMiddlewareObject {
  return { name: MIDDLEWARE_NAME, wrapModelCall: createWrapModelCall(config) }
}

export type { EditReport }
