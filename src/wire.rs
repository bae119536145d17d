//! The option types of `index.d.ts` (options cross the boundary as JSON, parsed by the core).

use napi_derive::napi;

/// One condition of a trigger; every key set must hold (AND). A list of conditions is ORed.
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only: options cross as JSON so unknown keys can be rejected
pub struct TriggerCondition {
  /// Fire when the request has at least this many tokens.
  pub tokens: Option<f64>,
  /// Fire when there are at least this many messages.
  pub messages: Option<u32>,
  /// Fire at `floor(maxInputTokens * fraction)` tokens (0 < fraction <= 1).
  pub fraction: Option<f64>,
  /// Fire when there are at least this many tool results (Anthropic `tool_uses`).
  pub tool_uses: Option<u32>,
}

/// How many of the newest tool results to keep intact: exactly one of the three.
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only: options cross as JSON so unknown keys can be rejected
pub struct KeepPolicy {
  /// Keep the last N tool results.
  pub messages: Option<u32>,
  /// Keep the newest results whose own token counts sum to at most this.
  pub tokens: Option<f64>,
  /// Keep `floor(maxInputTokens * fraction)` tokens of results (3 results when the limit is unknown).
  pub fraction: Option<f64>,
}

/// Options of the `clear_tool_uses` edit (also accepted at the top level of `EditorOptions`).
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only: options cross as JSON so unknown keys can be rejected
pub struct ClearToolUsesOptions {
  /// Always `"clear_tool_uses"` inside `edits`.
  #[napi(js_name = "type", ts_type = "'clear_tool_uses'")]
  pub edit_type: Option<String>,
  /// When to clear: one condition or a list (OR).
  /// @default { tokens: 100000 }
  #[napi(ts_type = "TriggerCondition | TriggerCondition[] | null")]
  pub trigger: Option<serde_json::Value>,
  /// How many recent tool results to keep.
  /// @default { messages: 3 }
  pub keep: Option<KeepPolicy>,
  /// Tool names whose results are never cleared.
  /// @default []
  pub exclude_tools: Option<Vec<String>>,
  /// Text that replaces a cleared tool result.
  /// @default "[cleared]"
  pub placeholder: Option<String>,
  /// Also set the cleared calls' arguments to `{}`: `true` for all tools, or a list of tool names.
  /// @default false
  #[napi(ts_type = "boolean | string[] | null")]
  pub clear_tool_inputs: Option<serde_json::Value>,
  /// Keep clearing kept results (newest first) until this many tokens are freed (not used in stable mode).
  /// @default 0
  pub clear_at_least: Option<f64>,
  /// Cache-aware clearing: the cleared boundary moves only in steps, as a function of the history
  /// alone, so consecutive calls send identical prefixes; `maxTokens` (default: the `tokens`
  /// trigger, capped by `maxInputTokens`) forces an early step. `true` = `{ stepRatio: 3 }`: step
  /// when a step frees at least 3× the tokens of the previous request it rewrites. `stepTokens`:
  /// step when the uncleared results outside the kept window exceed that many tokens;
  /// `stepResults`: clear a multiple of that many results.
  /// @default false
  #[napi(
    ts_type = "boolean | { stepRatio?: number; stepTokens?: number; stepResults?: number; maxTokens?: number } | null"
  )]
  pub stable: Option<serde_json::Value>,
  /// Plan Anthropic prompt-cache breakpoints (`cache_breakpoint` ops) at the end of the request and
  /// at the cleared boundary, at most 4 per request counting the ones already there.
  /// @default false
  #[napi(ts_type = "boolean | 'anthropic' | null")]
  pub cache_breakpoints: Option<serde_json::Value>,
}

/// Options of an editor. Top-level clearing keys are a shorthand for `edits: [{ type: 'clear_tool_uses', ... }]`.
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only: options cross as JSON so unknown keys can be rejected
pub struct EditorOptions {
  /// @default { tokens: 100000 }
  #[napi(ts_type = "TriggerCondition | TriggerCondition[] | null")]
  pub trigger: Option<serde_json::Value>,
  /// @default { messages: 3 }
  pub keep: Option<KeepPolicy>,
  /// @default []
  pub exclude_tools: Option<Vec<String>>,
  /// @default "[cleared]"
  pub placeholder: Option<String>,
  /// @default false
  #[napi(ts_type = "boolean | string[] | null")]
  pub clear_tool_inputs: Option<serde_json::Value>,
  /// @default 0
  pub clear_at_least: Option<f64>,
  /// @default false
  #[napi(
    ts_type = "boolean | { stepRatio?: number; stepTokens?: number; stepResults?: number; maxTokens?: number } | null"
  )]
  pub stable: Option<serde_json::Value>,
  /// @default false
  #[napi(ts_type = "boolean | 'anthropic' | null")]
  pub cache_breakpoints: Option<serde_json::Value>,
  /// `"approx"`: LangChain's `ceil(chars / 4)`; `"model"`: exact tiktoken counts (offline);
  /// `"estimate"`: a fast script-aware estimate of the exact count (no tokenizer tables; within a
  /// few per cent on English, code, JSON, Chinese, Japanese and logs, where `chars / 4` is off by up
  /// to 55 %).
  /// @default "approx"
  #[napi(ts_type = "'approx' | 'model' | 'estimate' | null")]
  pub token_count_method: Option<String>,
  /// Model name: picks the encoding in model mode and a known input limit for `fraction`.
  pub model: Option<String>,
  /// Encoding for model mode; wins over `model`.
  /// @default "o200k_base"
  #[napi(
    ts_type = "'o200k_base' | 'o200k_harmony' | 'cl100k_base' | 'p50k_base' | 'p50k_edit' | 'r50k_base' | null"
  )]
  pub encoding: Option<String>,
  /// Bound of the token cache in entries (one per distinct long string); 0 disables it.
  /// @default 200000
  pub token_cache_size: Option<u32>,
  /// A pipeline of edits applied in order (instead of the top-level clearing keys).
  #[napi(
    ts_type = "Array<ClearToolUsesOptions | ClearThinkingEdit | LastNEdit | StripToolCallsEdit | StripAndTruncateEdit | TrimTurnsEdit | TruncateToolResultsEdit | SummarizeEdit> | null"
  )]
  pub edits: Option<Vec<serde_json::Value>>,
}

/// `clear_thinking` (Anthropic): older assistant messages lose their `thinking` / `redacted_thinking`
/// blocks and reasoning kept in `additional_kwargs`.
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only
pub struct ClearThinkingEdit {
  #[napi(js_name = "type", ts_type = "'clear_thinking'")]
  pub edit_type: String,
  /// When to apply (absent: always).
  #[napi(ts_type = "TriggerCondition | TriggerCondition[] | null")]
  pub trigger: Option<serde_json::Value>,
  /// `{ thinkingTurns: N }`: the N newest assistant messages with reasoning keep it; `"all"`: keep all.
  /// @default { thinkingTurns: 1 }
  #[napi(ts_type = "{ thinkingTurns: number } | 'all' | null")]
  pub keep: Option<serde_json::Value>,
}

/// `last_n` (Synaptic `LastN`): keep the leading system messages and the last `n` others, never
/// leaving a tool result without its call or a call without its result.
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only
pub struct LastNEdit {
  #[napi(js_name = "type", ts_type = "'last_n'")]
  pub edit_type: String,
  #[napi(ts_type = "TriggerCondition | TriggerCondition[] | null")]
  pub trigger: Option<serde_json::Value>,
  /// Non-system messages to keep.
  pub n: u32,
}

/// `strip_tool_calls` (Synaptic `StripToolCalls`): remove tool results and tool-call-only assistant
/// messages; assistant messages with text keep the text and lose their calls.
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only
pub struct StripToolCallsEdit {
  #[napi(js_name = "type", ts_type = "'strip_tool_calls'")]
  pub edit_type: String,
  #[napi(ts_type = "TriggerCondition | TriggerCondition[] | null")]
  pub trigger: Option<serde_json::Value>,
}

/// `strip_and_truncate` (Synaptic `StripAndTruncate`): `strip_tool_calls`, then `last_n`.
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only
pub struct StripAndTruncateEdit {
  #[napi(js_name = "type", ts_type = "'strip_and_truncate'")]
  pub edit_type: String,
  #[napi(ts_type = "TriggerCondition | TriggerCondition[] | null")]
  pub trigger: Option<serde_json::Value>,
  pub n: u32,
}

/// `trim_turns` (CE Node TRIMMING): keep the last `maxTurns` turns (a user message and what follows).
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only
pub struct TrimTurnsEdit {
  #[napi(js_name = "type", ts_type = "'trim_turns'")]
  pub edit_type: String,
  #[napi(ts_type = "TriggerCondition | TriggerCondition[] | null")]
  pub trigger: Option<serde_json::Value>,
  /// @default 8
  pub max_turns: Option<u32>,
}

/// `truncate_tool_results` (CE Node `tool_trim_limit`): cut long tool results to their head plus a
/// marker saying how much was cut.
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only
pub struct TruncateToolResultsEdit {
  #[napi(js_name = "type", ts_type = "'truncate_tool_results'")]
  pub edit_type: String,
  #[napi(ts_type = "TriggerCondition | TriggerCondition[] | null")]
  pub trigger: Option<serde_json::Value>,
  /// Longest kept text in UTF-16 code units (JavaScript `length`), marker included.
  /// @default 600
  pub max_chars: Option<u32>,
  /// Tools whose results are never truncated.
  pub exclude_tools: Option<Vec<String>>,
}

/// `summarize` (LangChain/DeepAgents `SummarizationMiddleware`, CE Node SUMMARIZING): older messages
/// are replaced by a model-written summary. Must be the last edit of a pipeline.
#[napi(object)]
#[allow(dead_code)] // a type for `index.d.ts` only
pub struct SummarizeEdit {
  #[napi(js_name = "type", ts_type = "'summarize'")]
  pub edit_type: String,
  /// @default { fraction: 0.85 } with a known input limit, else { tokens: 170000 }
  #[napi(ts_type = "TriggerCondition | TriggerCondition[] | null")]
  pub trigger: Option<serde_json::Value>,
  /// Exactly one of messages, tokens, fraction, turns.
  /// @default { fraction: 0.1 } with a known input limit, else { messages: 6 }
  #[napi(
    ts_type = "{ messages: number } | { tokens: number } | { fraction: number } | { turns: number } | null"
  )]
  pub keep: Option<serde_json::Value>,
  /// Token bound of what is sent to the summarizer (newest messages first); 0 = no bound.
  /// @default 4000
  pub trim_tokens_to_summarize: Option<u32>,
  /// Tool results sent to the summarizer are cut to this many characters.
  pub tool_trim_limit: Option<u32>,
  /// The prompt; `{messages}` is replaced by the conversation. @default LangChain's prompt
  pub summary_prompt: Option<String>,
  /// @default "Here is a summary of the conversation to date:"
  pub summary_prefix: Option<String>,
  /// @default "user"
  #[napi(ts_type = "'user' | 'assistant' | null")]
  pub summary_role: Option<String>,
  /// A model for the shim to summarize with instead of the agent's own.
  pub model: Option<String>,
  /// Output bound for the summarizing model.
  pub max_tokens: Option<u32>,
}
