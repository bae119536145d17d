//! What a call did and measured, in wire form (camelCased for JavaScript and JSON).

use context_editor_core as core;
use napi_derive::napi;

use crate::numbers::Numbers;

#[napi(object, object_from_js = false)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RemovedOrphan {
  pub index: u32,
  pub tool_call_id: String,
}

#[napi(object, object_from_js = false)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClearedResult {
  pub index: u32,
  pub tool_call_id: String,
  pub tool_name: String,
  pub tokens_freed: f64,
  /// Why it was cleared: `superseded` or `duplicate` (`prefer`), `old`, `clear_at_least`.
  pub reason: String,
}

#[napi(object, object_from_js = false)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClearedInput {
  pub index: u32,
  pub call_index: u32,
  pub tool_call_id: String,
}

/// What one edit of the pipeline did (Anthropic's `applied_edits`, camelCased).
#[napi(object, object_from_js = false)]
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

/// A recoverable oddity, reported instead of thrown.
#[napi(object, object_from_js = false)]
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
#[napi(object, object_from_js = false)]
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

/// Token counts of a request.
#[napi(object, object_from_js = false)]
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenCountResult {
  /// Messages + system prompt + tools (+ reply priming in model mode).
  pub total: f64,
  /// Each message counted on its own.
  #[napi(ts_type = "Array<number>")]
  pub messages: Numbers,
  /// System prompt + tool definitions.
  pub fixed: f64,
  #[napi(ts_type = "'approx' | 'model' | 'estimate'")]
  pub method: String,
  #[serde(skip_serializing_if = "Option::is_none")]
  pub encoding: Option<String>,
  pub warnings: Vec<EditWarning>,
}

pub(crate) fn idx(i: usize) -> u32 {
  u32::try_from(i).unwrap_or(u32::MAX)
}

fn count(n: u64) -> u32 {
  u32::try_from(n).unwrap_or(u32::MAX)
}

#[allow(clippy::cast_precision_loss)]
pub(crate) fn num(n: u64) -> f64 {
  n as f64
}

fn warning(w: core::Warning) -> EditWarning {
  EditWarning {
    code: w.code.to_owned(),
    message: w.message,
    index: w.index.map(idx),
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
          tool_call_id: c.tool_call_id.to_string(),
          tool_name: c.tool_name.to_string(),
          tokens_freed: num(c.tokens_freed),
          reason: c.reason.to_owned(),
        })
        .collect(),
      cleared_tool_inputs: r
        .cleared_tool_inputs
        .into_iter()
        .map(|c| ClearedInput {
          index: idx(c.index),
          call_index: idx(c.call_index),
          tool_call_id: c.tool_call_id.to_string(),
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

impl From<core::TokenCount> for TokenCountResult {
  fn from(t: core::TokenCount) -> Self {
    Self {
      total: num(t.total),
      messages: Numbers(t.messages.into_iter().map(num).collect()),
      fixed: num(t.fixed),
      method: t.method.to_owned(),
      encoding: t.encoding.map(str::to_owned),
      warnings: t.warnings.into_iter().map(warning).collect(),
    }
  }
}
