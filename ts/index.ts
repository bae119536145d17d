/**
 * context-editor: keeps an LLM agent's conversation inside its context window.
 *
 * - `ContextEditor`: edit LangChain or OpenAI message arrays (pure; exact offline token counts).
 * - `context-editor/langchain`: a drop-in `contextEditingMiddleware` for LangChain.js v1 `createAgent`.
 * - The default export is the Xpert AI plugin (`PLUGINS=context-editor`).
 */
export { ContextEditor, toWireContext } from './editor.js'
export type { EditContext, EditResult, SummaryAnswer } from './editor.js'
export { ContextEditorError } from './errors.js'
export type { ContextEditorErrorCode } from './errors.js'
export { applyPlan, toWireMessages } from './wire.js'
export type { AnyMessage, MessageShape } from './wire.js'
export { NativeContextEditor } from './native.js'
export type {
  AppliedEdit,
  ClearedInput,
  ClearedResult,
  ClearToolUsesOptions,
  EditorOptions,
  EditPlan,
  EditReport,
  EditWarning,
  KeepPolicy,
  PlanOp,
  RemovedOrphan,
  SummaryRequest,
  ClearThinkingEdit,
  LastNEdit,
  StripToolCallsEdit,
  StripAndTruncateEdit,
  TrimTurnsEdit,
  TruncateToolResultsEdit,
  SummarizeEdit,
  TokenCountResult,
  TriggerCondition,
  WireMessage,
  WireToolCall,
} from './native.js'
export { configSchema, MIDDLEWARE_NAME } from './schema.js'
export type {
  ContextEditingMiddlewareConfig,
  ContextEditingOptions,
  KeepPolicy as ContextEditingKeepPolicy,
  TriggerCondition as ContextEditingTrigger,
} from './schema.js'
export { contextEditingMiddlewareObject } from './middleware.js'
export { summarizationConfigSchema, SUMMARIZATION_MIDDLEWARE_NAME } from './schema.js'
export type { SummarizationOptions, SummarizationKeep, SummarizationTrigger } from './schema.js'

// The Xpert AI plugin (`PLUGINS=context-editor`). Importing it loads no host library.
export { plugin as default } from './xpert/plugin.js'
