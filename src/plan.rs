//! A plan in wire form: the ops by input index, the summary the caller must write, and the report.

use context_editor_core as core;
use napi_derive::napi;

use crate::report::{idx, num, EditReport};

/// One operation of a plan, addressed by input index; `type` tells them apart. Several ops for
/// one index apply in the order given.
#[napi(
  discriminant = "type",
  discriminant_case = "snake_case",
  object_from_js = false
)]
#[derive(serde::Serialize)]
#[serde(
  tag = "type",
  rename_all = "snake_case",
  rename_all_fields = "camelCase"
)]
pub enum PlanOp {
  /// Drop the message.
  Remove { index: u32 },
  /// Replace a tool result's content with `placeholder`; `strategy` goes in
  /// `response_metadata.context_editing.strategy`.
  ClearToolResult {
    index: u32,
    placeholder: String,
    strategy: String,
  },
  /// Keep the first `keep` UTF-16 code units of a tool result's text (never splitting a surrogate
  /// pair), then `marker`.
  TruncateToolResult {
    index: u32,
    strategy: String,
    keep: u32,
    marker: String,
  },
  /// Remove the message's reasoning (thinking blocks, reasoning in `additional_kwargs`).
  RemoveThinking { index: u32 },
  /// Set the `args` of the calls at `callIndices` (ids `toolCallIds`) to `{}`;
  /// `clearedToolInputs` is the complete new list (sorted, de-duplicated).
  ClearToolInputs {
    index: u32,
    call_indices: Vec<u32>,
    tool_call_ids: Vec<String>,
    cleared_tool_inputs: Vec<String>,
  },
  /// Remove the calls at `callIndices` (ids `toolCallIds`), keeping the message's text.
  RemoveToolCalls {
    index: u32,
    call_indices: Vec<u32>,
    tool_call_ids: Vec<String>,
  },
  /// Put an Anthropic prompt-cache breakpoint on the message's last content block.
  CacheBreakpoint { index: u32 },
}

/// A summary the caller must write (a `summarize` edit fired): send `prompt` to a model, then put
/// `prefix`, a blank line and the summary in a message of `role` at `insertAt`, in place of `replaced`.
#[napi(object, object_from_js = false)]
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
#[napi(object, object_from_js = false)]
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
    let index = idx(op.index());
    let positions = |list: Vec<usize>| list.into_iter().map(idx).collect();
    match op {
      core::Op::ClearToolResult {
        placeholder,
        strategy,
        ..
      } => Self::ClearToolResult {
        index,
        placeholder: placeholder.to_string(),
        strategy: strategy.to_owned(),
      },
      core::Op::TruncateToolResult {
        keep,
        marker,
        strategy,
        ..
      } => Self::TruncateToolResult {
        index,
        strategy: strategy.to_owned(),
        keep: idx(keep),
        marker,
      },
      core::Op::RemoveThinking { .. } => Self::RemoveThinking { index },
      core::Op::ClearToolInputs {
        call_indices,
        tool_call_ids,
        cleared_tool_inputs,
        ..
      } => Self::ClearToolInputs {
        index,
        call_indices: positions(call_indices),
        tool_call_ids,
        cleared_tool_inputs,
      },
      core::Op::RemoveToolCalls {
        call_indices,
        tool_call_ids,
        ..
      } => Self::RemoveToolCalls {
        index,
        call_indices: positions(call_indices),
        tool_call_ids,
      },
      core::Op::CacheBreakpoint { .. } => Self::CacheBreakpoint { index },
      _ => Self::Remove { index },
    }
  }
}
