//! `clear_thinking` (`docs/semantics.md` §6): which turns keep their reasoning and what clearing it
//! frees, reasoning sent as text or as a length only.

use super::*;

// ---------------------------------------------------------------------------------------------
// clear_thinking (SEMANTICS §6)

pub(super) fn thinking_history() -> Vec<Message> {
  vec![
    Message::user("q0"),
    thinking("a0", "think 0 ........"),
    Message::user("q1"),
    thinking("a1", "think 1 ........"),
    Message::user("q2"),
    thinking("a2", "think 2 ........"),
  ]
}

#[test]
fn clear_thinking_keeps_the_newest_turn_by_default() {
  let msgs = thinking_history();
  let (p, out) = run(one(json!({ "type": "clear_thinking" })), &msgs);
  assert_eq!(removed_thinking(&p), vec![1, 3]);
  assert_eq!(out[1].thinking, None);
  assert_eq!(out[3].thinking, None);
  assert_eq!(
    out[5].thinking, msgs[5].thinking,
    "the newest turn keeps it"
  );
  assert_eq!(texts(&out), texts(&msgs), "text is kept");
  let a = &p.report.applied_edits[0];
  assert_eq!((a.edit_type, a.triggered), ("clear_thinking", true));
  assert_eq!(a.cleared_thinking_turns, 2);
  assert_eq!(a.removed_messages, 0);
}

#[test]
fn clear_thinking_keeps_thinking_turns_n() {
  let msgs = thinking_history();
  let (p, _) = run(
    one(json!({ "type": "clear_thinking", "keep": { "thinkingTurns": 2 } })),
    &msgs,
  );
  assert_eq!(removed_thinking(&p), vec![1]);
  let (p, _) = run(
    one(json!({ "type": "clear_thinking", "keep": { "thinkingTurns": 0 } })),
    &msgs,
  );
  assert_eq!(removed_thinking(&p), vec![1, 3, 5]);
  let (p, _) = run(
    one(json!({ "type": "clear_thinking", "keep": { "thinkingTurns": 3 } })),
    &msgs,
  );
  assert!(p.ops.is_empty(), "N >= turns with reasoning: nothing to do");
}

#[test]
fn clear_thinking_counts_only_assistant_messages_that_carry_reasoning() {
  // Assistant turns without reasoning do not use up the kept turns.
  let mut msgs = thinking_history();
  msgs.push(Message::user("q3"));
  msgs.push(ai("a3 without thinking", &[]));
  let (p, _) = run(one(json!({ "type": "clear_thinking" })), &msgs);
  assert_eq!(removed_thinking(&p), vec![1, 3]);
}

#[test]
fn clear_thinking_keeps_a_whole_tool_loop_as_one_turn() {
  // Anthropic counts a tool-use loop as one assistant turn: every step of the newest loop keeps its
  // reasoning, and the counter reports turns, not messages.
  let mut msgs = thinking_history();
  msgs.push(Message::user("q3"));
  let mut step1 = thinking("", "loop step 1 ......");
  step1.tool_calls = vec![context_editor_core::ToolCall {
    id: "c1".into(),
    name: "read".into(),
    args: Some("{}".into()),
    args_length: None,
  }];
  msgs.push(step1);
  msgs.push(Message::tool("c1", "read", "out"));
  msgs.push(thinking("done", "loop step 2 ......"));
  let (p, _) = run(one(json!({ "type": "clear_thinking" })), &msgs);
  assert_eq!(removed_thinking(&p), vec![1, 3, 5]);
  assert_eq!(p.report.applied_edits[0].cleared_thinking_turns, 3);
}

#[test]
fn clear_thinking_all_is_a_no_op() {
  let msgs = thinking_history();
  let (p, out) = run(
    one(json!({ "type": "clear_thinking", "keep": "all" })),
    &msgs,
  );
  assert!(p.ops.is_empty());
  assert_eq!(out, msgs);
  assert_eq!(p.report.applied_edits[0].cleared_thinking_turns, 0);
  assert_eq!(p.report.tokens_after, p.report.tokens_before);
}

#[test]
fn clear_thinking_frees_the_reasoning_tokens() {
  // Reasoning of 400 chars = 100 approx tokens per turn; two turns cleared free exactly 200.
  let r = "r".repeat(400);
  let msgs = vec![
    Message::user("qqqq"),
    thinking("aaaa", &r),
    Message::user("qqqq"),
    thinking("aaaa", &r),
    Message::user("qqqq"),
    thinking("aaaa", &r),
  ];
  let (p, _) = run(one(json!({ "type": "clear_thinking" })), &msgs);
  assert_eq!(p.report.tokens_before, 6 + 300);
  assert_eq!(p.report.tokens_after, 6 + 100);
  assert_eq!(p.report.applied_edits[0].cleared_input_tokens, 200);
}

#[test]
fn clear_thinking_works_on_reasoning_sent_as_a_length_only() {
  // A caller may send only `thinkingLength` (e.g. reasoning_content it does not want to copy),
  // and a message may be reasoning only, with no text at all.
  let mut msgs = Vec::new();
  for k in 0..3 {
    msgs.push(Message::user(format!("q{k}")));
    let mut m = Message::assistant("", &[]);
    m.content = None;
    m.thinking_length = Some(800);
    msgs.push(m);
  }
  let (p, out) = run(one(json!({ "type": "clear_thinking" })), &msgs);
  assert_eq!(removed_thinking(&p), vec![1, 3]);
  assert_eq!(
    out.len(),
    6,
    "a reasoning-only message stays (it is the model's turn)"
  );
  assert_eq!(out[1].thinking_length, None);
  assert_eq!(out[5].thinking_length, Some(800));
  assert_eq!(
    p.report.tokens_before - p.report.tokens_after,
    400,
    "two × 800 chars"
  );
}

#[test]
fn clear_thinking_in_model_mode_frees_the_reasoning_tokens() {
  let msgs = thinking_history();
  let ctx = Context::default();
  let (p, out) = run_in(
    json!({ "tokenCountMethod": "model", "edits": [{ "type": "clear_thinking" }] }),
    &msgs,
    &ctx,
  );
  assert_eq!(removed_thinking(&p), vec![1, 3]);
  assert!(p.report.tokens_after < p.report.tokens_before);
  assert_eq!(
    p.report.applied_edits[0].cleared_input_tokens,
    p.report.tokens_before - p.report.tokens_after
  );
  assert_eq!(out[5].thinking, msgs[5].thinking);
}
