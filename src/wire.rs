//! Plain-data wire types and their conversion to and from the core's types.

use context_editor_core as core;
use napi_derive::napi;

use crate::error::CoreResult;

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

/// One tool call of an assistant message.
#[napi(object)]
#[derive(Default)]
pub struct ToolCall {
  pub id: String,
  pub name: Option<String>,
  /// Arguments as JSON text (`JSON.stringify(args)`); needed for exact counting.
  pub args: Option<String>,
  /// UTF-16 length of the arguments JSON, when `args` is not sent.
  pub args_length: Option<f64>,
}

/// One message in wire form. Send `content` for exact counting, or only `contentLength` (UTF-16
/// code units) when counting approximately.
#[napi(object)]
#[derive(Default)]
pub struct Message {
  #[napi(ts_type = "'system' | 'user' | 'assistant' | 'tool' | 'human' | 'ai' | 'developer'")]
  pub role: String,
  /// Text content (string content or the concatenated text blocks).
  pub content: Option<String>,
  /// UTF-16 length of the text, when `content` is omitted.
  pub content_length: Option<f64>,
  /// Serialized non-text blocks (counted; LangChain counts them as 0).
  pub other: Option<String>,
  /// UTF-16 length of `other`, when `other` is omitted.
  pub other_length: Option<f64>,
  /// Reasoning: serialized `thinking` / `redacted_thinking` blocks and reasoning in `additional_kwargs`.
  pub thinking: Option<String>,
  /// UTF-16 length of `thinking`, when `thinking` is omitted.
  pub thinking_length: Option<f64>,
  /// Number of image blocks.
  pub images: Option<f64>,
  pub tool_calls: Option<Vec<ToolCall>>,
  /// UTF-16 length of `JSON.stringify(tool_calls)` as the caller holds them (exact approx parity).
  pub tool_calls_length: Option<f64>,
  pub tool_call_id: Option<String>,
  pub name: Option<String>,
  /// `response_metadata.context_editing.cleared` is already set.
  pub cleared: Option<bool>,
  /// `response_metadata.context_editing.truncated` is already set.
  pub truncated: Option<bool>,
  /// Ids already in `response_metadata.context_editing.cleared_tool_inputs`.
  pub cleared_tool_inputs: Option<Vec<String>>,
  /// A token count from the caller's own counter, used instead of counting this message.
  pub tokens: Option<f64>,
}

/// What the model sees besides the messages.
#[napi(object)]
#[derive(Default)]
pub struct EditContext {
  /// The model's input limit, for `fraction` options.
  pub max_input_tokens: Option<f64>,
  /// The system prompt sent beside the messages (counted toward the trigger).
  pub system_prompt: Option<String>,
  /// Tool definitions, each as JSON text (counted toward the trigger).
  pub tools: Option<Vec<String>>,
  /// Model name for this call (picks the encoding in model mode).
  pub model: Option<String>,
  /// Prompt-cache breakpoints the request already has (`cache_control` markers); planned
  /// `cache_breakpoint` ops keep the total at 4 or fewer.
  pub cache_breakpoints_in_use: Option<u32>,
}

/// One operation of a plan, addressed by input index.
#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanOp {
  /// What to do with the message at `index`.
  #[napi(
    js_name = "type",
    ts_type = "'remove' | 'clear_tool_result' | 'truncate_tool_result' | 'remove_thinking' | 'clear_tool_inputs' | 'remove_tool_calls' | 'cache_breakpoint'"
  )]
  #[serde(rename = "type")]
  pub op_type: String,
  pub index: u32,
  /// `clear_tool_result`: the new content.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub placeholder: Option<String>,
  /// `clear_tool_result` / `truncate_tool_result`: `response_metadata.context_editing.strategy`.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub strategy: Option<String>,
  /// `truncate_tool_result`: UTF-16 code units of the text to keep (never splits a surrogate pair).
  #[serde(skip_serializing_if = "Option::is_none")]
  pub keep: Option<u32>,
  /// `truncate_tool_result`: text appended after the kept head.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub marker: Option<String>,
  /// `clear_tool_inputs`: positions in `tool_calls` whose `args` become `{}`;
  /// `remove_tool_calls`: positions in `tool_calls` to remove.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub call_indices: Option<Vec<u32>>,
  /// `clear_tool_inputs` / `remove_tool_calls`: the ids of those calls.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub tool_call_ids: Option<Vec<String>>,
  /// `clear_tool_inputs`: the complete new `cleared_tool_inputs` list (sorted, de-duplicated).
  #[serde(skip_serializing_if = "Option::is_none")]
  pub cleared_tool_inputs: Option<Vec<String>>,
}

#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemovedOrphan {
  pub index: u32,
  pub tool_call_id: String,
}

#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClearedResult {
  pub index: u32,
  pub tool_call_id: String,
  pub tool_name: String,
  pub tokens_freed: f64,
}

#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClearedInput {
  pub index: u32,
  pub call_index: u32,
  pub tool_call_id: String,
}

/// What one edit of the pipeline did (Anthropic's `applied_edits`, camelCased).
#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedEdit {
  #[napi(js_name = "type")]
  #[serde(rename = "type")]
  pub edit_type: String,
  pub triggered: bool,
  pub cleared_tool_uses: u32,
  /// Tokens this edit freed.
  pub cleared_input_tokens: f64,
  /// Messages it removed (trimming, stripping, summarizing, pair repair).
  pub removed_messages: u32,
  /// Assistant messages whose reasoning it removed.
  pub cleared_thinking_turns: u32,
  /// Tool results it truncated.
  pub truncated_tool_results: u32,
  /// Tool calls removed from assistant messages that keep their text.
  pub removed_tool_calls: u32,
}

/// A summary the caller must write (a `summarize` edit fired): send `prompt` to a model, then put
/// `prefix + "\n\n" + summary` in a message of `role` at `insertAt`, in place of `replaced`.
#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRequest {
  /// Input indices of the messages the summary replaces (each also has a `remove` op).
  pub replaced: Vec<u32>,
  /// Input index where the summary message goes.
  pub insert_at: u32,
  /// Input indices rendered into the prompt (the newest of `replaced` within `trimTokensToSummarize`).
  pub summarized: Vec<u32>,
  pub prompt: String,
  pub prefix: String,
  #[napi(ts_type = "'user' | 'assistant'")]
  pub role: String,
  #[serde(skip_serializing_if = "Option::is_none")]
  pub model: Option<String>,
  #[serde(skip_serializing_if = "Option::is_none")]
  pub max_tokens: Option<u32>,
  /// Tokens of the replaced messages.
  pub tokens_replaced: f64,
}

/// A recoverable oddity, reported instead of thrown.
#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditWarning {
  /// `orphaned_tool_result`, `dangling_tool_call`, `unknown_model`, `max_input_tokens_unknown`,
  /// `still_over_trigger`, `over_max_input_tokens`.
  pub code: String,
  pub message: String,
  #[serde(skip_serializing_if = "Option::is_none")]
  pub index: Option<u32>,
}

/// What a call did and measured.
#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditReport {
  pub triggered: bool,
  pub tokens_before: f64,
  pub tokens_after: f64,
  pub messages_before: u32,
  pub messages_after: u32,
  pub removed_orphans: Vec<RemovedOrphan>,
  pub cleared: Vec<ClearedResult>,
  pub cleared_tool_inputs: Vec<ClearedInput>,
  pub applied_edits: Vec<AppliedEdit>,
  #[napi(ts_type = "'approx' | 'model' | 'estimate'")]
  pub token_count_method: String,
  #[serde(skip_serializing_if = "Option::is_none")]
  pub encoding: Option<String>,
  #[serde(skip_serializing_if = "Option::is_none")]
  pub max_input_tokens: Option<f64>,
  /// A trigger still holds after editing: the request is still over budget.
  pub still_triggered: bool,
  pub over_max_input_tokens: bool,
  pub warnings: Vec<EditWarning>,
  /// Messages at the start of the output identical to what this history produced one step earlier
  /// (without the newest assistant message and what follows): what a prompt cache can still serve.
  pub stable_prefix_messages: u32,
  /// Tokens of that prefix, system prompt and tools included.
  pub stable_prefix_tokens: f64,
}

/// The decision for one request.
#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditPlan {
  /// Operations by input index, sorted; several for one index apply in the order given.
  pub ops: Vec<PlanOp>,
  /// Present when a `summarize` edit fired.
  #[serde(skip_serializing_if = "Option::is_none")]
  pub summary: Option<SummaryRequest>,
  pub report: EditReport,
}

/// Token counts of a request.
#[napi(object)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenCountResult {
  /// Messages + system prompt + tools (+ reply priming in model mode).
  pub total: f64,
  /// Each message counted on its own.
  pub messages: Vec<f64>,
  /// System prompt + tool definitions.
  pub fixed: f64,
  #[napi(ts_type = "'approx' | 'model' | 'estimate'")]
  pub method: String,
  #[serde(skip_serializing_if = "Option::is_none")]
  pub encoding: Option<String>,
  pub warnings: Vec<EditWarning>,
}

fn idx(i: usize) -> u32 {
  u32::try_from(i).unwrap_or(u32::MAX)
}

fn count(n: u64) -> u32 {
  u32::try_from(n).unwrap_or(u32::MAX)
}

#[allow(clippy::cast_precision_loss)]
fn num(n: u64) -> f64 {
  n as f64
}

/// Converts wire messages, the first of which has index `offset` in the conversation.
pub fn messages_from_wire(messages: Vec<Message>, offset: usize) -> CoreResult<Vec<core::Message>> {
  messages
    .into_iter()
    .enumerate()
    .map(|(i, m)| message_from_wire(offset + i, m))
    .collect()
}

fn message_from_wire(i: usize, m: Message) -> CoreResult<core::Message> {
  let role = core::Role::parse(&m.role).ok_or_else(|| {
    core::Error::invalid_message(
      i,
      "role",
      format!(
        "unknown role `{}` (expected system, user, assistant, tool, human, ai or developer)",
        m.role
      ),
    )
  })?;
  Ok(core::Message {
    role,
    content: m.content,
    content_length: size(i, "contentLength", m.content_length)?,
    other: m.other,
    other_length: size(i, "otherLength", m.other_length)?,
    thinking: m.thinking,
    thinking_length: size(i, "thinkingLength", m.thinking_length)?,
    images: size(i, "images", m.images)?.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
    tool_calls: m
      .tool_calls
      .unwrap_or_default()
      .into_iter()
      .enumerate()
      .map(|(k, c)| {
        Ok(core::ToolCall {
          id: c.id,
          name: c.name.unwrap_or_default(),
          args: c.args,
          args_length: size(i, &format!("toolCalls[{k}].argsLength"), c.args_length)?,
        })
      })
      .collect::<CoreResult<Vec<_>>>()?,
    tool_calls_length: size(i, "toolCallsLength", m.tool_calls_length)?,
    tool_call_id: m.tool_call_id,
    name: m.name,
    cleared: m.cleared.unwrap_or(false),
    truncated: m.truncated.unwrap_or(false),
    cleared_tool_inputs: m.cleared_tool_inputs.unwrap_or_default(),
    tokens: size(i, "tokens", m.tokens)?,
  })
}

/// A length or count sent by the caller: a non-negative integer below 2^32 (JavaScript numbers can be
/// `-1`, `NaN` or `2^40`, which napi's `u32` conversion would silently wrap or zero).
fn size(index: usize, field: &str, value: Option<f64>) -> CoreResult<Option<u64>> {
  match value {
    None => Ok(None),
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => {
      Ok(Some(n as u64))
    }
    Some(n) => Err(core::Error::invalid_message(
      index,
      field,
      format!("expected a non-negative integer below 2^32, got {n}"),
    )),
  }
}

pub fn context_from_wire(c: Option<EditContext>) -> CoreResult<core::Context> {
  let c = c.unwrap_or_default();
  let max_input_tokens = match c.max_input_tokens {
    None => None,
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(n) if n.is_finite() && n >= 1.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => {
      Some(n as u64)
    }
    Some(n) => {
      return Err(core::Error::invalid_context(
        "maxInputTokens",
        format!("expected a positive integer, got {n}"),
      ))
    }
  };
  let context = core::Context {
    max_input_tokens,
    system_prompt: c.system_prompt,
    tools: c.tools.unwrap_or_default(),
    model: c.model,
    cache_breakpoints_in_use: c.cache_breakpoints_in_use.unwrap_or(0),
  };
  core::validate_context(&context)?;
  Ok(context)
}

fn warning(w: core::Warning) -> EditWarning {
  EditWarning {
    code: w.code.to_owned(),
    message: w.message,
    index: w.index.map(idx),
  }
}

impl From<core::EditPlan> for EditPlan {
  fn from(p: core::EditPlan) -> Self {
    Self {
      ops: p.ops.into_iter().map(PlanOp::from).collect(),
      summary: p.summary.map(SummaryRequest::from),
      report: EditReport::from(p.report),
    }
  }
}

impl From<core::SummaryRequest> for SummaryRequest {
  fn from(q: core::SummaryRequest) -> Self {
    Self {
      replaced: q.replaced.into_iter().map(idx).collect(),
      insert_at: idx(q.insert_at),
      summarized: q.summarized.into_iter().map(idx).collect(),
      prompt: q.prompt,
      prefix: q.prefix,
      role: q.role.as_str().to_owned(),
      model: q.model,
      max_tokens: q.max_tokens.map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
      tokens_replaced: num(q.tokens_replaced),
    }
  }
}

impl From<core::Report> for EditReport {
  fn from(r: core::Report) -> Self {
    EditReport {
      triggered: r.triggered,
      tokens_before: num(r.tokens_before),
      tokens_after: num(r.tokens_after),
      messages_before: idx(r.messages_before),
      messages_after: idx(r.messages_after),
      removed_orphans: r
        .removed_orphans
        .into_iter()
        .map(|o| RemovedOrphan {
          index: idx(o.index),
          tool_call_id: o.tool_call_id,
        })
        .collect(),
      cleared: r
        .cleared
        .into_iter()
        .map(|c| ClearedResult {
          index: idx(c.index),
          tool_call_id: c.tool_call_id,
          tool_name: c.tool_name,
          tokens_freed: num(c.tokens_freed),
        })
        .collect(),
      cleared_tool_inputs: r
        .cleared_tool_inputs
        .into_iter()
        .map(|c| ClearedInput {
          index: idx(c.index),
          call_index: idx(c.call_index),
          tool_call_id: c.tool_call_id,
        })
        .collect(),
      applied_edits: r
        .applied_edits
        .into_iter()
        .map(|a| AppliedEdit {
          edit_type: a.edit_type.to_owned(),
          triggered: a.triggered,
          cleared_tool_uses: u32::try_from(a.cleared_tool_uses).unwrap_or(u32::MAX),
          cleared_input_tokens: num(a.cleared_input_tokens),
          removed_messages: count(a.removed_messages),
          cleared_thinking_turns: count(a.cleared_thinking_turns),
          truncated_tool_results: count(a.truncated_tool_results),
          removed_tool_calls: count(a.removed_tool_calls),
        })
        .collect(),
      token_count_method: r.token_count_method.to_owned(),
      encoding: r.encoding.map(str::to_owned),
      max_input_tokens: r.max_input_tokens.map(num),
      still_triggered: r.still_triggered,
      over_max_input_tokens: r.over_max_input_tokens,
      warnings: r.warnings.into_iter().map(warning).collect(),
      stable_prefix_messages: idx(r.stable_prefix_messages),
      stable_prefix_tokens: num(r.stable_prefix_tokens),
    }
  }
}

impl From<core::Op> for PlanOp {
  fn from(op: core::Op) -> Self {
    let mut out = PlanOp {
      op_type: String::new(),
      index: idx(op.index()),
      placeholder: None,
      strategy: None,
      keep: None,
      marker: None,
      call_indices: None,
      tool_call_ids: None,
      cleared_tool_inputs: None,
    };
    match op {
      core::Op::ClearToolResult {
        placeholder,
        strategy,
        ..
      } => {
        out.op_type = "clear_tool_result".into();
        out.placeholder = Some(placeholder.to_string());
        out.strategy = Some(strategy.to_owned());
      }
      core::Op::ClearToolInputs {
        call_indices,
        tool_call_ids,
        cleared_tool_inputs,
        ..
      } => {
        out.op_type = "clear_tool_inputs".into();
        out.call_indices = Some(call_indices.into_iter().map(idx).collect());
        out.tool_call_ids = Some(tool_call_ids);
        out.cleared_tool_inputs = Some(cleared_tool_inputs);
      }
      core::Op::TruncateToolResult {
        keep,
        marker,
        strategy,
        ..
      } => {
        out.op_type = "truncate_tool_result".into();
        out.keep = Some(u32::try_from(keep).unwrap_or(u32::MAX));
        out.marker = Some(marker);
        out.strategy = Some(strategy.to_owned());
      }
      core::Op::RemoveThinking { .. } => out.op_type = "remove_thinking".into(),
      core::Op::CacheBreakpoint { .. } => out.op_type = "cache_breakpoint".into(),
      core::Op::RemoveToolCalls {
        call_indices,
        tool_call_ids,
        ..
      } => {
        out.op_type = "remove_tool_calls".into();
        out.call_indices = Some(call_indices.into_iter().map(idx).collect());
        out.tool_call_ids = Some(tool_call_ids);
      }
      _ => out.op_type = "remove".into(),
    }
    out
  }
}

impl From<core::TokenCount> for TokenCountResult {
  fn from(t: core::TokenCount) -> Self {
    Self {
      total: num(t.total),
      messages: t.messages.into_iter().map(num).collect(),
      fixed: num(t.fixed),
      method: t.method.to_owned(),
      encoding: t.encoding.map(str::to_owned),
      warnings: t.warnings.into_iter().map(warning).collect(),
    }
  }
}
