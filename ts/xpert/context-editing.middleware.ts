// The Xpert agent-middleware strategy `ContextEditingMiddleware`, without NestJS: the class is
// plain so that importing it needs no host library. `contextEditingPluginModule()` (see
// `context-editing.module.ts`) decorates a subclass with `@Injectable()` and
// `@AgentMiddlewareStrategy(MIDDLEWARE_NAME)` from the host's own SDK when the host registers
// the plugin.

import { contextEditingMiddlewareObject, readMiddlewareOptions, type ContextEditingMiddlewareObject } from '../middleware.js'
import { configSchema, MIDDLEWARE_NAME, OPTION_NAMES, type ContextEditingOptions, type I18nText } from '../schema.js'
import { ContextEditorError } from '../errors.js'
import { ICON } from './icon.js'
import { withRecall } from './recall.js'
import { RECALL_PLACEHOLDER } from '../recall.js'

/** LangChain's deprecated `ClearToolUsesEdit` aliases, still accepted from old configurations. */
const LEGACY_ALIASES: ReadonlySet<string> = new Set(['triggerTokens', 'keepMessages'])

/**
 * Options the middleware reads itself (JSON-only until the form offers them): `recovery`,
 * `usageFallback` (with `tokenCountMethod: "usage"`), and
 * `recall` (`true`: the `recall_tool_result` tool, with a placeholder that names each call).
 */
const MIDDLEWARE_ONLY: ReadonlySet<string> = new Set(['recovery', 'recall', 'usageFallback'])

/** `TAgentMiddlewareMeta` of @metad/contracts, structurally. */
export interface ContextEditingStrategyMeta {
  name: string
  label: I18nText
  description: I18nText
  icon: { type: 'svg'; value: string }
  configSchema: typeof configSchema
}

/** The strategy's `meta`: name, localized label and description, icon, and the options' JSON Schema. */
export const strategyMeta: ContextEditingStrategyMeta = {
  name: MIDDLEWARE_NAME,
  label: { en_US: 'Context Editing', zh_Hans: '上下文编辑' },
  description: {
    en_US:
      'Keeps the conversation inside the context window: once the trigger is reached, old tool results sent to the model are replaced by a placeholder (the stored history stays complete). Exact offline token counts in "model" mode.',
    zh_Hans: '让对话保持在上下文窗口之内：达到触发条件后，发送给模型的旧工具结果被替换为占位文本（保存的历史保持完整）。"model" 模式下离线精确计数 token。',
  },
  icon: { type: 'svg', value: ICON },
  configSchema,
}

/**
 * `IAgentMiddlewareStrategy<ContextEditingOptions>` of @xpert-ai/plugin-sdk. `createMiddleware`
 * validates the options (`null` = unset) and returns `{ name, wrapModelCall }`.
 */
export class ContextEditingStrategy {
  readonly meta: ContextEditingStrategyMeta = strategyMeta

  /**
   * @throws {ContextEditorError} `INVALID_OPTIONS` naming the offending field.
   */
  createMiddleware(given: ContextEditingOptions | null | undefined, _context?: unknown): ContextEditingMiddlewareObject {
    // Read once, every read guarded (a getter or Proxy trap that throws is INVALID_OPTIONS naming it).
    const options = readMiddlewareOptions(given) as ContextEditingOptions | null | undefined
    if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
      throw new ContextEditorError('INVALID_OPTIONS', `${MIDDLEWARE_NAME}: options: expected an object`, { path: 'options' })
    }
    // The Xpert path takes the form's options only (the JSON Schema's keys, plus LangChain's
    // deprecated aliases, which old configurations may carry); the error lists the form's names,
    // not the library's (`edits`, `onReport` and the aliases are not offered here).
    for (const key of Object.keys(options ?? {})) {
      if ((options as Record<string, unknown>)[key] == null || OPTION_NAMES.includes(key as never) || LEGACY_ALIASES.has(key) || MIDDLEWARE_ONLY.has(key))
        continue
      throw new ContextEditorError('INVALID_OPTIONS', `${MIDDLEWARE_NAME}: ${key}: unknown option (expected one of ${OPTION_NAMES.join(', ')})`, { path: key })
    }
    const { recall, ...flat } = { ...(options ?? {}) } as ContextEditingOptions & { recall?: unknown }
    if (recall === undefined || recall === null || recall === false) return contextEditingMiddlewareObject(flat as ContextEditingOptions)
    if (recall !== true) throw new ContextEditorError('INVALID_OPTIONS', `${MIDDLEWARE_NAME}: recall: expected a boolean`, { path: 'recall' })
    const withPlaceholder = { ...flat, placeholder: (flat as { placeholder?: unknown }).placeholder ?? RECALL_PLACEHOLDER }
    return withRecall(contextEditingMiddlewareObject(withPlaceholder as ContextEditingOptions))
  }
}
