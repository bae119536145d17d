// The `wrapModelCall` hook shared by the LangChain middleware and the Xpert strategy (both speak
// LangChain v1's middleware protocol). Clearing is per request: the hook hands the model an edited
// *copy* of the messages and leaves the agent's state, and the caller's objects, untouched.
//
// No host library is imported here. Tool schemas are converted with @langchain/core's
// `convertToOpenAITool`, loaded on first use from wherever the host keeps @langchain/core.

import { createRequire } from 'node:module'
import type { AnyMessage } from './wire.js'
import type { EditContext } from './editor.js'
import type { EditReport } from './native.js'
import { MIDDLEWARE_NAME, resolveOptions, type ContextEditingMiddlewareConfig, type ResolvedOptions } from './schema.js'

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
  return typeof t.invoke === 'function' || Array.isArray(t.lc_namespace)
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
  return JSON.stringify({ type: 'function', function: { name: t.name, description: t.description } })
}

/** Tool definitions as the model receives them (OpenAI function format, as JSON text), for counting. */
export function toolSchemas(tools: ReadonlyArray<unknown> | undefined | null): unknown[] | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined
  return tools.map((tool) => {
    if (tool === null || typeof tool !== 'object') return tool
    const t = tool as Record<string, unknown>
    if (!isLangChainTool(t)) return t // a provider ("server") tool or an OpenAI definition already
    let schema = converted.get(t)
    if (schema === undefined) {
      schema = toolSchema(t)
      converted.set(t, schema)
    }
    return schema
  })
}

/** The model's input limit from its LangChain profile (`model.profile.maxInputTokens`). */
export function profileMaxInputTokens(model: unknown): number | undefined {
  const profile = model !== null && typeof model === 'object' ? (model as { profile?: unknown }).profile : undefined
  const max = profile !== null && typeof profile === 'object' ? (profile as { maxInputTokens?: unknown }).maxInputTokens : undefined
  return typeof max === 'number' && Number.isSafeInteger(max) && max > 0 ? max : undefined
}

/** The model name a chat model instance carries (`model` or `modelName`). */
export function modelNameOf(model: unknown): string | undefined {
  if (model === null || typeof model !== 'object') return undefined
  const m = model as { model?: unknown; modelName?: unknown }
  if (typeof m.model === 'string' && m.model) return m.model
  if (typeof m.modelName === 'string' && m.modelName) return m.modelName
  return undefined
}

/** The call context for one request: system prompt, tools, model limit and name. */
export function editContextFor(request: ModelRequestLike, resolved: ResolvedOptions): EditContext {
  const system = request.systemMessage ?? request.systemPrompt
  return {
    systemPrompt: (system as EditContext['systemPrompt']) ?? undefined,
    tools: toolSchemas(request.tools),
    maxInputTokens: resolved.maxInputTokens ?? profileMaxInputTokens(request.model),
    model: resolved.fixedModel ? undefined : modelNameOf(request.model),
  }
}

/**
 * Builds the hook. Options are validated here, once, so a bad config fails when the middleware is
 * created, not on the first model call.
 */
export function createWrapModelCall(config?: ContextEditingMiddlewareConfig | null): WrapModelCall {
  const resolved = resolveOptions(config)
  const { editor, onReport } = resolved
  return async function wrapModelCall<R extends ModelRequestLike, T>(request: R, handler: (request: R) => T | Promise<T>): Promise<T> {
    if (!Array.isArray(request.messages) || request.messages.length === 0) return handler(request)
    // The plan addresses messages by index: plan and apply on one snapshot of the array.
    const messages = request.messages.slice()
    const result = await editor.editAsync(messages, editContextFor(request, resolved))
    // The report is built only when read.
    if (onReport) onReport(result.report)
    const edited = result.messages
    if (edited.length === messages.length && edited.every((m, i) => m === messages[i])) return handler(request)
    return handler({ ...request, messages: edited })
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
