//! One named test per rule of `docs/semantics.md` §2 (`clear_tool_uses`, compat with LangChain.js
//! `ClearToolUsesEdit`) and per defect of §7 that the core fixes, on hand-built conversations.
//!
//! Token numbers are approx mode unless a test says otherwise: `ceil(total UTF-16 chars / 4)` where a
//! tool result measures `content + tool_call_id` and an assistant message `content +
//! JSON.stringify(tool_calls)`.
//!
//! One module per group of rules: `orphans_and_trigger` (§2.1, §2.2), `keep_and_clearing` (§2.3,
//! §2.4), `clear_inputs_and_at_least` (§2.5, §2.6), `counting` (§2.7, what counts, pinned model
//! counts, caller-supplied counts) and `report` (the report's fields, purity). The helpers below
//! are shared by all of them.

// Pedantic lints that do not fit hand-built test cases:
#![allow(
  clippy::cast_possible_truncation, // sizes of hand-built messages are small
  clippy::many_single_char_names, // `t` tokens, `r` results, `e` editor: the figures of a case
  clippy::needless_pass_by_value, // helpers take `json!` values as the tests write them
  clippy::unreadable_literal, // thresholds as JSON options spell them (`100000`)
)]

use context_editor_core::{
  Context, ContextEditor, EditPlan, Message, Op, Report, ToolCall, DEFAULT_PLACEHOLDER,
  IMAGE_TOKENS, MESSAGE_OVERHEAD, NAME_OVERHEAD, REPLY_PRIMING, TOOL_CALL_OVERHEAD,
  TOOL_DEFINITION_OVERHEAD,
};
use plans::{cleared, editor};
use serde_json::{json, Value};

#[path = "../common/plans.rs"]
mod plans;

mod clear_inputs_and_at_least;
mod counting;
mod keep_and_clearing;
mod orphans_and_trigger;
mod report;

// ---------------------------------------------------------------------------------------------
// helpers

fn plan(editor: &ContextEditor, messages: &[Message]) -> EditPlan {
  plan_in(editor, messages, &Context::default())
}

fn plan_in(editor: &ContextEditor, messages: &[Message], context: &Context) -> EditPlan {
  let p = editor.plan(messages, context).expect("plan");
  // Every plan in this file must also satisfy the report/recount contract.
  let out = p.apply(messages);
  assert_eq!(
    editor.count_tokens(&out, context).unwrap().total,
    p.report.tokens_after,
    "tokens_after must equal a recount of the applied output"
  );
  assert_eq!(out.len(), p.report.messages_after);
  p
}

fn total(editor: &ContextEditor, messages: &[Message], context: &Context) -> u64 {
  editor.count_tokens(messages, context).unwrap().total
}

fn approx(messages: &[Message]) -> u64 {
  total(&ContextEditor::default(), messages, &Context::default())
}

fn removed(p: &EditPlan) -> Vec<usize> {
  p.ops
    .iter()
    .filter_map(|op| match op {
      Op::Remove { index } => Some(*index),
      _ => None,
    })
    .collect()
}

/// `(index, call_indices, tool_call_ids, cleared_tool_inputs)` of every `ClearToolInputs` op.
type InputsOp = (usize, Vec<usize>, Vec<String>, Vec<String>);

fn inputs(p: &EditPlan) -> Vec<InputsOp> {
  p.ops
    .iter()
    .filter_map(|op| match op {
      Op::ClearToolInputs {
        index,
        call_indices,
        tool_call_ids,
        cleared_tool_inputs,
      } => Some((
        *index,
        call_indices.clone(),
        tool_call_ids.clone(),
        cleared_tool_inputs.clone(),
      )),
      _ => None,
    })
    .collect()
}

fn codes(r: &Report) -> Vec<&'static str> {
  r.warnings.iter().map(|w| w.code).collect()
}

fn strings(v: &[&str]) -> Vec<String> {
  v.iter().map(|s| (*s).to_owned()).collect()
}

/// A user task followed by one call + result per `(id, tool, result)`; result `k` sits at `2 + 2k`.
fn agent(results: &[(&str, &str, &str)]) -> Vec<Message> {
  let mut msgs = vec![Message::user("task")];
  for (id, tool, content) in results {
    msgs.push(Message::assistant(
      "",
      &[(*id, *tool, r#"{"q":"something to look up"}"#)],
    ));
    msgs.push(Message::tool(*id, *tool, *content));
  }
  msgs
}

/// `n` results of tool `search` with ids `c0..`, each `len` chars of content.
fn uniform(n: usize, len: usize) -> (Vec<Message>, Vec<usize>) {
  let ids: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
  let body = "x".repeat(len);
  let spec: Vec<(&str, &str, &str)> = ids
    .iter()
    .map(|id| (id.as_str(), "search", body.as_str()))
    .collect();
  (agent(&spec), (0..n).map(|k| 2 + 2 * k).collect())
}

fn ctx_max(max: u64) -> Context {
  Context {
    max_input_tokens: Some(max),
    ..Context::default()
  }
}
