// The Xpert agent-middleware strategy `ContextEditingMiddleware`, without NestJS: the class is
// plain so that importing it needs no host library. `contextEditingPluginModule()` (see
// `context-editing.module.ts`) decorates a subclass with `@Injectable()` and
// `@AgentMiddlewareStrategy(MIDDLEWARE_NAME)` from the host's own SDK when the host registers
// the plugin.

import { contextEditingMiddlewareObject, type ContextEditingMiddlewareObject } from '../middleware.js'
import { configSchema, MIDDLEWARE_NAME, type ContextEditingOptions, type I18nText } from '../schema.js'
import { ContextEditorError } from '../errors.js'
import { ICON } from './icon.js'

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
    zh_Hans:
      '让对话保持在上下文窗口之内：达到触发条件后，发送给模型的旧工具结果被替换为占位文本（保存的历史保持完整）。"model" 模式下离线精确计数 token。',
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
  createMiddleware(options: ContextEditingOptions | null | undefined, _context?: unknown): ContextEditingMiddlewareObject {
    if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
      throw new ContextEditorError('INVALID_OPTIONS', `${MIDDLEWARE_NAME}: options: expected an object`, { path: 'options' })
    }
    const { edits, onReport, ...flat } = (options ?? {}) as Record<string, unknown>
    if (edits !== undefined || onReport !== undefined) {
      const key = edits !== undefined ? 'edits' : 'onReport'
      throw new ContextEditorError(
        'INVALID_OPTIONS',
        `${MIDDLEWARE_NAME}: ${key}: unknown option (expected one of ${Object.keys(configSchema.properties).join(', ')})`,
        { path: key },
      )
    }
    return contextEditingMiddlewareObject(flat as ContextEditingOptions)
  }
}
