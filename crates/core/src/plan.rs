//! Edit plans: index-based operations on the caller's messages, plus the report of what was done.

use crate::message::{Message, EMPTY_ARGS};

/// Marker strategy written to `response_metadata.context_editing.strategy` of cleared results.
pub const CLEAR_TOOL_USES_STRATEGY: &str = "clear_tool_uses";

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
    /// The new content.
    placeholder: String,
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
}

impl Op {
  /// The input index this operation targets.
  #[must_use]
  pub fn index(&self) -> usize {
    match self {
      Self::Remove { index }
      | Self::ClearToolResult { index, .. }
      | Self::ClearToolInputs { index, .. } => *index,
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
  /// Its `tool_call_id`.
  pub tool_call_id: String,
  /// The tool's name (the tool message's own `name`, else the call's).
  pub tool_name: String,
  /// Tokens of the request freed by this clear (including its call's arguments, when cleared too).
  pub tokens_freed: u64,
}

/// Tool-call arguments that were cleared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClearedInput {
  /// Index of the assistant message in the input.
  pub index: usize,
  /// Position of the call in its `tool_calls`.
  pub call_index: usize,
  /// The call's id.
  pub tool_call_id: String,
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
  /// `approx` or `model`.
  pub token_count_method: &'static str,
  /// The encoding used, in model mode.
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
}

/// The decision for one request: operations on the input plus the report.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EditPlan {
  /// Operations sorted by input index.
  pub ops: Vec<Op>,
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
      match op {
        Op::Remove { index } => out[*index] = None,
        Op::ClearToolResult {
          index, placeholder, ..
        } => {
          if let Some(m) = out[*index].as_mut() {
            m.content = Some(placeholder.clone());
            m.content_length = None;
            m.other = None;
            m.other_length = None;
            m.images = 0;
            m.tokens = None;
            m.cleared = true;
          }
        }
        Op::ClearToolInputs {
          index,
          call_indices,
          cleared_tool_inputs,
          ..
        } => {
          if let Some(m) = out[*index].as_mut() {
            for &k in call_indices {
              let freed = m.tool_calls[k].args_len();
              m.tool_calls_length = m
                .tool_calls_length
                .map(|n| n - freed + EMPTY_ARGS.len() as u64);
              m.tool_calls[k].args = Some(EMPTY_ARGS.to_owned());
              m.tool_calls[k].args_length = None;
            }
            m.tokens = None;
            m.cleared_tool_inputs.clone_from(cleared_tool_inputs);
          }
        }
      }
    }
    out.into_iter().flatten().collect()
  }
}
