/**
 * `context-editor/xpert`: the Xpert AI plugin's parts, for hosts and tests that wire them
 * themselves. The package entry's default export is the ready `XpertPlugin`. The names are listed
 * in `__test__/public-api.spec.mjs`.
 */
export { plugin as default, plugin } from './plugin.js'
export type { ContextEditingPluginMeta, ContextEditingXpertPlugin, PluginContextLike } from './plugin.js'
// Context editing.
export { ContextEditingStrategy, strategyMeta } from './context-editing.middleware.js'
export type { ContextEditingStrategyMeta } from './context-editing.middleware.js'
export { contextEditingNestClasses, contextEditingPluginModule } from './context-editing.module.js'
export type { ContextEditingNestClasses } from './context-editing.module.js'
export { contextEditingMiddlewareObject, createWrapModelCall } from '../middleware.js'
export type { ContextEditingMiddlewareObject, ModelRequestLike, WrapModelCall } from '../middleware.js'
export { configSchema, MIDDLEWARE_NAME } from '../schema.js'
export type { ContextEditingOptions, I18nText, KeepPolicy, TriggerCondition } from '../schema.js'
// Summarization.
export { SummarizationStrategy, summarizationStrategyMeta, SUMMARIZATION_ICON } from './summarization.middleware.js'
export type { SummarizationMiddlewareObject, SummarizationStrategyMeta } from './summarization.middleware.js'
export { createSummarizationHooks, REMOVE_ALL_MESSAGES } from '../summarization.js'
export type { SummarizationHooks, SummarizationHost, SummarizationHookConfig } from '../summarization.js'
export { summarizationConfigSchema, SUMMARIZATION_MIDDLEWARE_NAME, XPERT_SUMMARIZATION_STRATEGY } from '../schema.js'
export type { SummarizationOptions, SummarizationKeep, SummarizationTrigger } from '../schema.js'
