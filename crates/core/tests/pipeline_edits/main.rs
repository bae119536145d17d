//! One named test per rule of the pipeline edits (`docs/semantics.md` §3–§6): `clear_thinking`, `last_n`,
//! `strip_tool_calls`, `strip_and_truncate`, `trim_turns`, `truncate_tool_results` and `summarize`
//! planning, their triggers, and what the report says each edit did.
//!
//! Token numbers are approx mode unless a test says otherwise: `ceil(total UTF-16 chars / 4)`.
//! Every plan made through [`run`] is also checked against the report contract: the report's
//! `tokens_after` equals a recount of the applied output, and `messages_after` its length.
//!
//! One module per edit (`clear_thinking`, `last_n_and_strip`, `trim_and_truncate`, and
//! `summarize_trigger_and_keep` / `summarize_cutoff_and_prompt` for `summarize` planning) and one
//! for the triggers and the per-edit report (`triggers_and_report`); the helpers below serve all.

// Pedantic lints that do not fit hand-built test cases:
#![allow(
  clippy::cast_possible_truncation, // sizes of hand-built messages are small
  clippy::cast_sign_loss, // the lengths a case computes are positive
  clippy::needless_pass_by_value, // helpers take `json!` values as the tests write them
)]

use context_editor_core::{
  Context, ContextEditor, EditPlan, ErrorKind, Message, Op, Role, SummaryRequest,
  DEEPAGENTS_TRIGGER_TOKENS, DEFAULT_SUMMARY_PREFIX, DEFAULT_SUMMARY_PROMPT,
};
use plans::editor;
use serde_json::{json, Value};

#[path = "../common/plans.rs"]
mod plans;

mod clear_thinking;
mod last_n_and_strip;
mod summarize_cutoff_and_prompt;
mod summarize_trigger_and_keep;
mod triggers_and_report;
mod trim_and_truncate;

// ---------------------------------------------------------------------------------------------
// helpers

/// Plans with `options`, applies the plan and checks the report against a recount.
fn run_in(options: Value, msgs: &[Message], ctx: &Context) -> (EditPlan, Vec<Message>) {
  let e = editor(options);
  let input = msgs.to_vec();
  let plan = e.plan(msgs, ctx).expect("plan");
  let out = plan.apply(msgs);
  assert_eq!(msgs, &input[..], "input never mutated");
  assert_eq!(
    e.count_tokens(&out, ctx).unwrap().total,
    plan.report.tokens_after,
    "tokens_after == recount of the applied output"
  );
  assert_eq!(
    e.count_tokens(msgs, ctx).unwrap().total,
    plan.report.tokens_before
  );
  assert_eq!(out.len(), plan.report.messages_after);
  (plan, out)
}

fn run(options: Value, msgs: &[Message]) -> (EditPlan, Vec<Message>) {
  run_in(options, msgs, &Context::default())
}

/// A pipeline of one edit.
fn one(edit: Value) -> Value {
  json!({ "edits": [edit] })
}

/// The text of each message, which the tests make unique so it names the message.
fn texts(msgs: &[Message]) -> Vec<&str> {
  msgs
    .iter()
    .map(|m| m.content.as_deref().unwrap_or(""))
    .collect()
}

fn ai(text: &str, ids: &[&str]) -> Message {
  let calls: Vec<(&str, &str, &str)> = ids.iter().map(|id| (*id, "search", "{}")).collect();
  Message::assistant(text, &calls)
}

fn tool(id: &str, text: &str) -> Message {
  Message::tool(id, "search", text)
}

fn thinking(text: &str, reasoning: &str) -> Message {
  let mut m = Message::assistant(text, &[]);
  m.thinking = Some(reasoning.to_owned());
  m
}

fn approx_tokens(msgs: &[Message]) -> u64 {
  ContextEditor::default()
    .count_tokens(msgs, &Context::default())
    .unwrap()
    .total
}

fn removed_thinking(p: &EditPlan) -> Vec<usize> {
  p.ops
    .iter()
    .filter_map(|op| match op {
      Op::RemoveThinking { index } => Some(*index),
      _ => None,
    })
    .collect()
}

fn summary(p: &EditPlan) -> &SummaryRequest {
  p.summary.as_ref().expect("a summary request")
}

/// `n` turns `u{k}` / `a{k}` after one system message.
fn turns(n: usize) -> Vec<Message> {
  let mut msgs = vec![Message::system("sys")];
  for k in 0..n {
    msgs.push(Message::user(format!("u{k}")));
    msgs.push(ai(&format!("a{k}"), &[]));
  }
  msgs
}

/// Applies the plan and puts a summary message where the request says (what the shim does).
fn with_summary(plan: &EditPlan, msgs: &[Message], text: &str) -> Vec<Message> {
  let s = summary(plan);
  let removed: Vec<usize> = plan
    .ops
    .iter()
    .filter_map(|op| match op {
      Op::Remove { index } => Some(*index),
      _ => None,
    })
    .collect();
  let at = (0..s.insert_at).filter(|i| !removed.contains(i)).count();
  let mut out = plan.apply(msgs);
  out.insert(at, Message::new(s.role, format!("{}\n\n{text}", s.prefix)));
  out
}

/// A conversation of `n` user/assistant pairs whose texts have `chars` characters each.
fn chat(n: usize, chars: usize) -> Vec<Message> {
  let mut msgs = Vec::new();
  for k in 0..n {
    let pad = |p: &str| {
      let head = format!("{p}{k}");
      format!("{head}{}", ".".repeat(chars.saturating_sub(head.len())))
    };
    msgs.push(Message::user(pad("u")));
    msgs.push(ai(&pad("a"), &[]));
  }
  msgs
}
