//! Edit plans: index-based operations on the caller's messages, plus the report of what was done.
//!
//! A plan never holds messages: callers apply the operations to their own objects, so everything
//! the wire model leaves out (ids, metadata, class identity) survives. [`EditPlan::apply`] is the
//! reference application on wire messages, the one the tests recount.

use crate::message::{utf16_len, utf16_prefix, Message, EMPTY_ARGS};
use crate::tokenizer::approx::call_json_len;

/// Marker strategy written to `response_metadata.context_editing.strategy` of cleared results.
pub const CLEAR_TOOL_USES_STRATEGY: &str = "clear_tool_uses";
/// Marker strategy written to `response_metadata.context_editing.strategy` of truncated results.
pub const TRUNCATE_STRATEGY: &str = "truncate_tool_results";

/// One operation on the input, addressed by the message's index in the input array.
///
/// Operations are sorted by index; at most one operation of each kind targets a message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Op {
  /// Drop the message from the output (an orphaned tool result).
  Remove {
    /// Index in the input.
    index: usize,
  },
  /// Replace a tool result's content with `placeholder`, drop its `artifact`, and set
  /// `response_metadata.context_editing = { cleared: true, strategy }` (keeping other metadata).
  ClearToolResult {
    /// Index in the input.
    index: usize,
    /// The new content (shared by every result one edit clears).
    placeholder: std::sync::Arc<str>,
    /// The strategy name for the metadata marker.
    strategy: &'static str,
  },
  /// Remove `thinking` / `redacted_thinking` blocks (and reasoning in `additional_kwargs`).
  RemoveThinking {
    /// Index in the input.
    index: usize,
  },
  /// Remove some tool calls of an assistant message (their results are gone), keeping its text.
  RemoveToolCalls {
    /// Index in the input.
    index: usize,
    /// Positions in the message's `tool_calls` to remove.
    call_indices: Vec<usize>,
    /// The ids of those calls.
    tool_call_ids: Vec<String>,
  },
  /// Replace a tool result's content with the first `keep` UTF-16 code units of its text followed by
  /// `marker`, and set `response_metadata.context_editing = { truncated: true, strategy }`.
  TruncateToolResult {
    /// Index in the input.
    index: usize,
    /// UTF-16 code units of the text to keep (never splits a surrogate pair).
    keep: usize,
    /// Appended after the kept text.
    marker: String,
    /// The strategy name for the metadata marker.
    strategy: &'static str,
  },
  /// Set the arguments of some tool calls of an assistant message to `{}` and record their ids in
  /// `response_metadata.context_editing.cleared_tool_inputs`.
  ClearToolInputs {
    /// Index in the input.
    index: usize,
    /// Positions in the message's `tool_calls` whose arguments become `{}`.
    call_indices: Vec<usize>,
    /// The ids of those calls, in call order.
    tool_call_ids: Vec<String>,
    /// The complete new `cleared_tool_inputs` list: sorted, de-duplicated, including ids already there.
    cleared_tool_inputs: Vec<String>,
  },
  /// Put an Anthropic prompt-cache breakpoint (`cache_control: { type: "ephemeral" }`) on the last
  /// content block of the message (`cacheBreakpoints` option). Changes no content; shims leave
  /// OpenAI-shaped messages alone (OpenAI caches prefixes automatically).
  CacheBreakpoint {
    /// Index in the input.
    index: usize,
  },
}

impl Op {
  /// The input index this operation targets.
  #[must_use]
  pub fn index(&self) -> usize {
    match self {
      Self::Remove { index }
      | Self::RemoveThinking { index }
      | Self::RemoveToolCalls { index, .. }
      | Self::TruncateToolResult { index, .. }
      | Self::ClearToolResult { index, .. }
      | Self::ClearToolInputs { index, .. }
      | Self::CacheBreakpoint { index } => *index,
    }
  }
}

/// A tool result removed because no earlier assistant message called it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemovedOrphan {
  /// Index in the input.
  pub index: usize,
  /// Its `tool_call_id`.
  pub tool_call_id: String,
}

/// A tool result whose content was replaced by the placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearedResult {
  /// Index in the input.
  pub index: usize,
  /// Its `tool_call_id` (shared: a session's next plan names the same results again).
  pub tool_call_id: std::sync::Arc<str>,
  /// The tool's name (the tool message's own `name`, else the call's).
  pub tool_name: std::sync::Arc<str>,
  /// Tokens of the request freed by this clear (including its call's arguments, when cleared too).
  pub tokens_freed: u64,
  /// Why it was cleared: `"superseded"` or `"duplicate"` (`prefer`: stale, cleared first),
  /// `"old"` (outside the kept window, or the stable boundary), `"clear_at_least"`.
  pub reason: &'static str,
}

/// [`ClearedResult::reason`] of a result cleared for its age.
pub const CLEARED_OLD: &str = "old";
/// [`ClearedResult::reason`] of a kept result cleared to free `clearAtLeast` tokens.
pub const CLEARED_AT_LEAST: &str = "clear_at_least";

/// Tool-call arguments that were cleared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearedInput {
  /// Index of the assistant message in the input.
  pub index: usize,
  /// Position of the call in its `tool_calls`.
  pub call_index: usize,
  /// The call's id (shared: a session's next plan names the same calls again).
  pub tool_call_id: std::sync::Arc<str>,
}

/// What one edit of the pipeline did, in Anthropic's `applied_edits` vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedEdit {
  /// The edit's type (`clear_tool_uses`, …).
  pub edit_type: &'static str,
  /// Whether its trigger fired.
  pub triggered: bool,
  /// Tool results it cleared.
  pub cleared_tool_uses: u64,
  /// Tokens it freed.
  pub cleared_input_tokens: u64,
  /// Messages it removed (trimming, stripping, summarizing, pair repair).
  pub removed_messages: u64,
  /// Assistant messages whose reasoning it removed (Anthropic `cleared_thinking_turns`).
  pub cleared_thinking_turns: u64,
  /// Tool results it truncated.
  pub truncated_tool_results: u64,
  /// Tool calls it removed from assistant messages that keep their text.
  pub removed_tool_calls: u64,
}

impl AppliedEdit {
  /// An entry for an edit of type `edit_type` that did nothing yet.
  #[must_use]
  pub fn new(edit_type: &'static str) -> Self {
    Self {
      edit_type,
      triggered: false,
      cleared_tool_uses: 0,
      cleared_input_tokens: 0,
      removed_messages: 0,
      cleared_thinking_turns: 0,
      truncated_tool_results: 0,
      removed_tool_calls: 0,
    }
  }
}

/// What the shim must do to finish a `summarize` edit: ask a model to summarize, then put the
/// summary where the summarized messages were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRequest {
  /// Input indices of the messages the summary replaces (each also has an `Op::Remove`).
  pub replaced: Vec<usize>,
  /// Input index where the summary message goes (the first replaced message).
  pub insert_at: usize,
  /// Input indices of the messages rendered into the prompt (the newest of `replaced` that fit
  /// `trimTokensToSummarize`).
  pub summarized: Vec<usize>,
  /// The complete prompt for the summarizing model.
  pub prompt: String,
  /// Text before the summary (`prefix + "\n\n" + summary`).
  pub prefix: String,
  /// `user` (LangChain: human message with `lc_source: "summarization"`) or `assistant` (CE Node).
  pub role: crate::Role,
  /// A model to use instead of the agent's own, if configured.
  pub model: Option<String>,
  /// Output bound for the summarizing model, if configured.
  pub max_tokens: Option<u64>,
  /// Tokens of the replaced messages.
  pub tokens_replaced: u64,
}

/// A recoverable oddity of the input or the setup, reported instead of failing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
  /// Stable code: `orphaned_tool_result`, `dangling_tool_call`, `unknown_model`,
  /// `max_input_tokens_unknown`, `still_over_trigger`, `over_max_input_tokens`.
  pub code: &'static str,
  /// Human-readable explanation.
  pub message: String,
  /// The message it is about, if any.
  pub index: Option<usize>,
}

/// Everything a call did, for logs, dashboards and pipelines that escalate.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
  /// Whether any edit's trigger fired.
  pub triggered: bool,
  /// Tokens of the request as given (messages + system prompt + tools).
  pub tokens_before: u64,
  /// Tokens of the request after the plan is applied.
  pub tokens_after: u64,
  /// Messages in the input.
  pub messages_before: usize,
  /// Messages after the plan is applied.
  pub messages_after: usize,
  /// Orphaned tool results that were removed.
  pub removed_orphans: Vec<RemovedOrphan>,
  /// Tool results that were cleared.
  pub cleared: Vec<ClearedResult>,
  /// Tool-call arguments that were cleared.
  pub cleared_tool_inputs: Vec<ClearedInput>,
  /// One entry per edit of the pipeline.
  pub applied_edits: Vec<AppliedEdit>,
  /// `approx`, `model` or `estimate`.
  pub token_count_method: &'static str,
  /// The encoding resolved for the call (see [`TokenCount::encoding`](crate::TokenCount)); always
  /// set, approx mode included.
  pub encoding: Option<&'static str>,
  /// The model's input limit used for `fraction` options, if known.
  pub max_input_tokens: Option<u64>,
  /// Whether a trigger still holds after the edits: the request is still over budget and a
  /// stronger edit (e.g. summarization) is needed.
  pub still_triggered: bool,
  /// Whether the result exceeds `max_input_tokens`.
  pub over_max_input_tokens: bool,
  /// Recoverable oddities.
  pub warnings: Vec<Warning>,
  /// Messages at the start of this call's output that are identical to the output the same
  /// editor produced for this history one step earlier (without the newest assistant message and
  /// what follows it): the part a provider's prompt cache can still serve. Computed only when a
  /// `clear_tool_uses` edit has `stable` or `cacheBreakpoints` (it plans the history twice); 0 otherwise.
  pub stable_prefix_messages: usize,
  /// Tokens of that prefix, system prompt and tools included (0 when no message is stable).
  pub stable_prefix_tokens: u64,
}

/// The decision for one request: operations on the input plus the report.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EditPlan {
  /// Operations sorted by input index.
  pub ops: Vec<Op>,
  /// The summary to write, when a `summarize` edit fired.
  pub summary: Option<SummaryRequest>,
  /// What was done and measured.
  pub report: Report,
}

impl EditPlan {
  /// Whether the plan leaves the input as it is.
  #[must_use]
  pub fn is_empty(&self) -> bool {
    self.ops.is_empty()
  }

  /// Applies the plan to wire messages, returning new messages (the input is not touched).
  ///
  /// Shims apply plans to their own message objects; this is the reference implementation (used by
  /// the tests to check that the report's totals equal a recount of the output).
  #[must_use]
  pub fn apply(&self, messages: &[Message]) -> Vec<Message> {
    let mut out: Vec<Option<Message>> = messages.iter().cloned().map(Some).collect();
    for op in &self.ops {
      let Some(m) = out[op.index()].as_mut() else {
        continue;
      };
      match op {
        Op::Remove { index } => out[*index] = None,
        Op::CacheBreakpoint { .. } => {}
        Op::ClearToolResult { placeholder, .. } => clear_result(m, placeholder),
        Op::ClearToolInputs {
          call_indices,
          cleared_tool_inputs,
          ..
        } => clear_inputs(m, call_indices, cleared_tool_inputs),
        Op::RemoveThinking { .. } => {
          m.thinking = None;
          m.thinking_length = None;
          m.tokens = None;
        }
        Op::RemoveToolCalls { call_indices, .. } => remove_calls(m, call_indices),
        Op::TruncateToolResult { keep, marker, .. } => truncate(m, *keep, marker),
      }
    }
    out.into_iter().flatten().collect()
  }
}

/// `Op::ClearToolResult` on a wire message.
fn clear_result(m: &mut Message, placeholder: &str) {
  m.content = Some(placeholder.to_string());
  m.content_length = None;
  m.other = None;
  m.other_length = None;
  m.images = 0;
  m.image_tokens = None;
  m.tokens = None;
  m.cleared = true;
}

/// `Op::ClearToolInputs` on a wire message.
fn clear_inputs(m: &mut Message, call_indices: &[usize], cleared_tool_inputs: &[String]) {
  for &k in call_indices {
    let freed = m.tool_calls[k].args_len();
    m.tool_calls_length = m
      .tool_calls_length
      .map(|n| n.saturating_sub(freed) + EMPTY_ARGS.len() as u64);
    m.tool_calls[k].args = Some(EMPTY_ARGS.to_owned());
    m.tool_calls[k].args_length = None;
  }
  m.tokens = None;
  m.cleared_tool_inputs = cleared_tool_inputs.to_vec();
}

/// `Op::RemoveToolCalls` on a wire message.
fn remove_calls(m: &mut Message, call_indices: &[usize]) {
  let removed: u64 = call_indices
    .iter()
    .map(|&k| call_json_len(&m.tool_calls[k]) + 1)
    .sum();
  // A mask, not `call_indices.contains` per call: quadratic in a message's calls (up to 100,000).
  let mut dropped = vec![false; m.tool_calls.len()];
  for &k in call_indices {
    dropped[k] = true;
  }
  let mut k = 0;
  m.tool_calls.retain(|_| {
    k += 1;
    !dropped[k - 1]
  });
  m.tool_calls_length = m.tool_calls_length.map(|n| n.saturating_sub(removed));
  m.tokens = None;
}

/// `Op::TruncateToolResult` on a wire message.
fn truncate(m: &mut Message, keep: usize, marker: &str) {
  match m.content.as_deref() {
    Some(text) => {
      let (head, _) = utf16_prefix(text, keep as u64);
      m.content = Some(format!("{head}{marker}"));
    }
    None => m.content_length = Some(keep as u64 + utf16_len(marker)),
  }
  m.other = None;
  m.other_length = None;
  m.images = 0;
  m.image_tokens = None;
  m.tokens = None;
  m.truncated = true;
}
