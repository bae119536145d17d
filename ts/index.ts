/**
 * context-editor: keeps an LLM agent's conversation inside its context window.
 *
 * - `ContextEditor`: edit LangChain, OpenAI, Anthropic, Responses or AI SDK message arrays (pure;
 *   exact offline token counts); `applyPlan` applies a plan made earlier.
 * - The default export is the Xpert AI plugin (`PLUGINS=context-editor`).
 *
 * Everything else has its own entry: `context-editor/langchain` (the LangChain middlewares),
 * `context-editor/xpert` (the plugin's parts), `context-editor/native` (the napi binding and the
 * wire form). `__test__/public-api.spec.mjs` holds the list of what each entry exports.
 */
export { ContextEditor } from './editor.js'
export type { EditContext, EditResult, SummaryAnswer } from './editor.js'
export { ContextEditorError } from './errors.js'
export type { ContextEditorErrorCode } from './errors.js'
export { applyPlan } from './wire.js'
export { clearMedia, imageTokens } from './media.js'
export { createRecall, FileRecallStore, InMemoryRecallStore, RECALL_PLACEHOLDER, RECALL_TOOL_NAME } from './recall.js'
export type { Recall, RecallStore } from './recall.js'
export type { ClearMediaOptions, ClearMediaReport, ImageTokenFormula } from './media.js'
export type { AnyMessage, ApplicablePlan, MessageShape } from './wire.js'
export type { MessageFormat } from './formats/index.js'
// Options.
export type {
  ClearThinkingEdit,
  ClearToolUsesOptions,
  EditorOptions,
  KeepPolicy,
  LastNEdit,
  StripAndTruncateEdit,
  StripToolCallsEdit,
  SummarizeEdit,
  TriggerCondition,
  TrimTurnsEdit,
  TruncateToolResultsEdit,
} from './native.js'
// Plans and reports.
export type {
  AppliedEdit,
  ClearedInput,
  ClearedResult,
  EditPlan,
  EditReport,
  EditWarning,
  PlanOp,
  RemovedOrphan,
  SummaryRequest,
  TokenCountResult,
} from './native.js'

// The Xpert AI plugin (`PLUGINS=context-editor`). Importing it loads no host library.
export { plugin as default } from './xpert/plugin.js'
