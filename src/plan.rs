//! A plan in wire form: the ops by input index, the summary the caller must write, and the report.

use context_editor_core as core;
use napi_derive::napi;

use crate::report::{idx, num, EditReport};

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
