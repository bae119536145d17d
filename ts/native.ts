// The napi-rs binding. The generated ESM loader (`index.js` at the package root) loads the right
// `.node` file with `createRequire(import.meta.url)` and has no top-level await, so hosts that
// `require()` ESM packages can load this entry too.
export { NativeContextEditor, __panicForTests } from '../index.js'
export type {
  AppliedEdit,
  ClearedInput,
  ClearedResult,
  ClearToolUsesOptions,
  EditContext,
  EditorOptions,
  EditPlan,
  EditReport,
  EditWarning,
  KeepPolicy,
  Message as WireMessage,
  PackedPlan,
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
  ToolCall as WireToolCall,
  TriggerCondition,
} from '../index.js'
