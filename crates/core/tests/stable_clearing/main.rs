//! Cache-aware editing: stable clearing that moves the cleared boundary in steps, cache
//! breakpoints, and the report's stable prefix. Approx counting unless a test says otherwise.
//!
//! `steps` follows the cleared boundary as a conversation grows; `breakpoints_and_options` the
//! cache breakpoints a plan marks and the validation of the `stable` options. The histories and
//! helpers below serve both.

// Pedantic lints that do not fit hand-built test cases:
#![allow(
  clippy::many_single_char_names, // `h` history, `e` editor, `a`…`d` the plans compared
  clippy::needless_pass_by_value, // helpers take `json!` values as the tests write them
  clippy::range_plus_one, // slice ends as counts: `..1 + 2 * t` is the user message and `t` turns
)]

use context_editor_core::{Context, ContextEditor, EditPlan, Message, Op};
use plans::{cleared, editor};
use serde_json::{json, Value};

#[path = "../common/plans.rs"]
mod plans;

mod breakpoints_and_options;
mod steps;

/// A run of `turns` tool calls, each with a result of `size` characters.
fn run(turns: usize, size: usize) -> Vec<Message> {
  let mut h = vec![Message::user("fix the bug")];
  for t in 0..turns {
    let id = format!("c{t}");
    h.push(Message::assistant(
      "",
      &[(id.as_str(), "read", r#"{"p":1}"#)],
    ));
    h.push(Message::tool(&id, "read", "x".repeat(size)));
  }
  h
}

/// The history a model call sees before the `t`-th assistant message (0-based) of `run`.
fn before_call(h: &[Message], t: usize) -> &[Message] {
  &h[..1 + 2 * t]
}

fn breakpoints(p: &EditPlan) -> Vec<usize> {
  p.ops
    .iter()
    .filter_map(|op| match op {
      Op::CacheBreakpoint { index } => Some(*index),
      _ => None,
    })
    .collect()
}

fn plan(e: &ContextEditor, h: &[Message]) -> EditPlan {
  plan_in(e, h, &Context::default())
}

fn plan_in(e: &ContextEditor, h: &[Message], c: &Context) -> EditPlan {
  let p = e.plan(h, c).expect("plan");
  let out = p.apply(h);
  assert_eq!(
    e.count_tokens(&out, c).unwrap().total,
    p.report.tokens_after
  );
  p
}

/// Trigger at 2,000 tokens (results are 100 tokens each), keep 3, steps of 5 results.
fn stable_editor() -> ContextEditor {
  editor(
    json!({ "trigger": { "tokens": 2000 }, "keep": { "messages": 3 }, "stable": { "stepResults": 5 } }),
  )
}

/// Mixed sizes (100 to 2,000 characters), one or two calls per assistant message.
fn mixed_run(turns: usize) -> Vec<Message> {
  let mut h = vec![Message::user("go")];
  for t in 0..turns {
    let ids: Vec<String> = (0..1 + t % 2).map(|k| format!("c{t}_{k}")).collect();
    let calls: Vec<(&str, &str, &str)> = ids.iter().map(|id| (id.as_str(), "read", "{}")).collect();
    h.push(Message::assistant("", &calls));
    for (k, id) in ids.iter().enumerate() {
      let size = 100 + (t * 7 + k * 13) % 20 * 100;
      h.push(Message::tool(id, "read", "z".repeat(size)));
    }
    if t % 5 == 4 {
      h.push(Message::assistant("done", &[]));
      h.push(Message::user("next"));
    }
  }
  h
}

/// The histories the model calls of `h` saw: everything before each assistant message, and `h`.
fn calls_of(h: &[Message]) -> Vec<&[Message]> {
  let mut out: Vec<&[Message]> = (1..h.len())
    .filter(|&i| h[i].role == context_editor_core::Role::Assistant)
    .map(|i| &h[..i])
    .collect();
  out.push(h);
  out
}
