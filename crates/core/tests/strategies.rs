//! One named test per rule of the pipeline edits (`docs/semantics.md` §3–§6): `clear_thinking`, `last_n`,
//! `strip_tool_calls`, `strip_and_truncate`, `trim_turns`, `truncate_tool_results` and `summarize`
//! planning, their triggers, and what the report says each edit did.
//!
//! Token numbers are approx mode unless a test says otherwise: `ceil(total UTF-16 chars / 4)`.
//! Every plan made through [`run`] is also checked against the report contract: the report's
//! `tokens_after` equals a recount of the applied output, and `messages_after` its length.

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
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// helpers

fn editor(options: Value) -> ContextEditor {
  ContextEditor::from_json(&options).expect("valid options")
}

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

// ---------------------------------------------------------------------------------------------
// clear_thinking (SEMANTICS §6)

fn thinking_history() -> Vec<Message> {
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

// ---------------------------------------------------------------------------------------------
// last_n (Synaptic LastN, SEMANTICS §4)

#[test]
fn last_n_keeps_leading_system_messages_and_the_last_n_others() {
  let msgs = vec![
    Message::system("s1"),
    Message::system("s2"),
    Message::user("u1"),
    ai("a1", &[]),
    Message::user("u2"),
    ai("a2", &[]),
  ];
  let (p, out) = run(one(json!({ "type": "last_n", "n": 2 })), &msgs);
  assert_eq!(texts(&out), vec!["s1", "s2", "u2", "a2"]);
  assert_eq!(p.report.applied_edits[0].removed_messages, 2);
  let (_, out) = run(one(json!({ "type": "last_n", "n": 0 })), &msgs);
  assert_eq!(
    texts(&out),
    vec!["s1", "s2"],
    "n = 0 keeps the system messages only"
  );
}

#[test]
fn last_n_counts_a_later_system_message_as_ordinary() {
  let msgs = vec![
    Message::system("s1"),
    Message::user("u1"),
    Message::system("s-late"),
    Message::user("u2"),
    ai("a2", &[]),
  ];
  let (_, out) = run(one(json!({ "type": "last_n", "n": 2 })), &msgs);
  assert_eq!(
    texts(&out),
    vec!["s1", "u2", "a2"],
    "the later system message goes"
  );
  let (_, out) = run(one(json!({ "type": "last_n", "n": 3 })), &msgs);
  assert_eq!(
    texts(&out),
    vec!["s1", "s-late", "u2", "a2"],
    "…or counts as one of the n"
  );
}

#[test]
fn last_n_changes_nothing_with_at_most_n_others() {
  let msgs = vec![Message::system("s"), Message::user("u"), ai("a", &[])];
  for n in [2, 3, 100] {
    let (p, out) = run(one(json!({ "type": "last_n", "n": n })), &msgs);
    assert!(p.ops.is_empty(), "n = {n}");
    assert_eq!(out, msgs);
    assert_eq!(p.report.applied_edits[0].removed_messages, 0);
    assert_eq!(p.report.applied_edits[0].cleared_input_tokens, 0);
  }
}

#[test]
fn last_n_drops_the_leading_orphaned_results_of_the_window() {
  // The window of the last 3 starts inside a call's results: t1 and t2 lose their call.
  let msgs = vec![
    Message::user("u1"),
    ai("looking", &["c1", "c2"]),
    tool("c1", "t1"),
    tool("c2", "t2"),
    Message::user("u2"),
  ];
  let (p, out) = run(one(json!({ "type": "last_n", "n": 3 })), &msgs);
  assert_eq!(texts(&out), vec!["u2"]);
  assert_eq!(p.report.applied_edits[0].removed_messages, 4);
  assert!(p
    .report
    .warnings
    .iter()
    .all(|w| w.code != "dangling_tool_call"));
  // A window that starts at the call keeps the exchange whole.
  let (_, out) = run(one(json!({ "type": "last_n", "n": 4 })), &msgs);
  assert_eq!(texts(&out), vec!["looking", "t1", "t2", "u2"]);
  assert_eq!(out[0].tool_calls.len(), 2);
}

#[test]
fn last_n_keeps_ai_text_and_removes_its_dangling_calls() {
  // Synaptic's StripAndTruncate can emit an assistant message whose calls lost their results;
  // ours keeps its text and drops the calls. Here: strip removes the results, the window starts at
  // the text-carrying assistant message that called them.
  let msgs = vec![
    Message::user("u1"),
    ai("I will search", &["c1"]),
    tool("c1", "t1"),
    ai("found it", &[]),
  ];
  let (p, out) = run(one(json!({ "type": "strip_and_truncate", "n": 2 })), &msgs);
  assert_eq!(texts(&out), vec!["I will search", "found it"]);
  assert!(out[0].tool_calls.is_empty(), "dangling calls removed");
  assert!(p.ops.iter().any(
    |op| matches!(op, Op::RemoveToolCalls { index: 1, tool_call_ids, .. } if tool_call_ids == &["c1"])
  ));
  assert!(p
    .report
    .warnings
    .iter()
    .all(|w| w.code != "dangling_tool_call"));
}

#[test]
fn last_n_keeps_a_call_that_had_no_result_in_the_input_and_warns() {
  // A call unanswered in the input is the caller's, not ours: kept, and reported.
  let msgs = vec![
    Message::user("u1"),
    Message::user("u2"),
    ai("calling", &["c9"]),
  ];
  let (p, out) = run(one(json!({ "type": "last_n", "n": 2 })), &msgs);
  assert_eq!(texts(&out), vec!["u2", "calling"]);
  assert_eq!(out[1].tool_calls.len(), 1);
  assert!(p
    .report
    .warnings
    .iter()
    .any(|w| w.code == "dangling_tool_call" && w.index == Some(2)));
}

#[test]
fn last_n_requires_n() {
  let e = ContextEditor::from_json(&one(json!({ "type": "last_n" }))).unwrap_err();
  assert_eq!(e.kind(), ErrorKind::InvalidOptions);
  assert_eq!(e.path(), Some("edits[0].n"));
}

// ---------------------------------------------------------------------------------------------
// strip_tool_calls / strip_and_truncate (Synaptic, SEMANTICS §4)

fn tool_history() -> Vec<Message> {
  vec![
    Message::system("sys"),
    Message::user("u1"),
    ai("", &["c1"]),
    tool("c1", "t1"),
    ai("let me also check", &["c2", "c3"]),
    tool("c2", "t2"),
    tool("c3", "t3"),
    ai("done", &[]),
    Message::user("u2"),
  ]
}

#[test]
fn strip_tool_calls_removes_results_and_call_only_messages() {
  let msgs = tool_history();
  let (p, out) = run(one(json!({ "type": "strip_tool_calls" })), &msgs);
  assert_eq!(
    texts(&out),
    vec!["sys", "u1", "let me also check", "done", "u2"]
  );
  assert!(out.iter().all(|m| m.tool_calls.is_empty()));
  let a = &p.report.applied_edits[0];
  assert_eq!(
    a.removed_messages, 4,
    "one call-only message, three results"
  );
  assert_eq!(a.removed_tool_calls, 2, "the text message's two calls");
  assert_eq!(
    a.cleared_input_tokens,
    p.report.tokens_before - p.report.tokens_after
  );
}

#[test]
fn strip_tool_calls_on_a_conversation_without_tools_changes_nothing() {
  let msgs = turns(3);
  let (p, out) = run(one(json!({ "type": "strip_tool_calls" })), &msgs);
  assert!(p.ops.is_empty());
  assert_eq!(out, msgs);
}

#[test]
fn strip_and_truncate_strips_then_keeps_the_last_n() {
  let msgs = tool_history();
  let (p, out) = run(one(json!({ "type": "strip_and_truncate", "n": 2 })), &msgs);
  assert_eq!(texts(&out), vec!["sys", "done", "u2"]);
  let a = &p.report.applied_edits[0];
  assert_eq!(a.edit_type, "strip_and_truncate");
  assert_eq!(a.removed_messages, 6);
  assert_eq!(p.report.messages_after, 3);
}

// ---------------------------------------------------------------------------------------------
// trim_turns (CE Node TRIMMING, SEMANTICS §5)

#[test]
fn trim_turns_keeps_eight_turns_by_default() {
  let msgs = turns(10);
  let (p, out) = run(one(json!({ "type": "trim_turns" })), &msgs);
  assert_eq!(out.len(), 1 + 16);
  assert_eq!(texts(&out)[..3], ["sys", "u2", "a2"]);
  assert_eq!(p.report.applied_edits[0].removed_messages, 4);
  let (p, _) = run(one(json!({ "type": "trim_turns" })), &turns(8));
  assert!(p.ops.is_empty(), "8 turns: nothing to trim");
}

#[test]
fn trim_turns_cuts_whole_turns_with_their_tool_exchanges() {
  // A turn is a user message and everything after it up to the next user message.
  let msgs = vec![
    Message::system("sys"),
    Message::user("u1"),
    ai("", &["c1"]),
    tool("c1", "t1"),
    Message::system("late system"),
    ai("r1", &[]),
    Message::user("u2"),
    ai("", &["c2"]),
    tool("c2", "t2"),
    ai("r2", &[]),
  ];
  let (_, out) = run(one(json!({ "type": "trim_turns", "maxTurns": 1 })), &msgs);
  assert_eq!(texts(&out), vec!["sys", "u2", "", "t2", "r2"]);
  assert_eq!(
    out[2].tool_calls.len(),
    1,
    "the kept turn's exchange is whole"
  );
}

#[test]
fn trim_turns_drops_what_comes_before_the_first_user_message() {
  let msgs = vec![
    Message::system("sys"),
    ai("hello, how can I help?", &[]),
    Message::user("u1"),
    ai("a1", &[]),
    Message::user("u2"),
    ai("a2", &[]),
  ];
  let (_, out) = run(one(json!({ "type": "trim_turns", "maxTurns": 1 })), &msgs);
  assert_eq!(texts(&out), vec!["sys", "u2", "a2"]);
  // Under the limit nothing is trimmed, the greeting included.
  let (p, _) = run(one(json!({ "type": "trim_turns", "maxTurns": 2 })), &msgs);
  assert!(p.ops.is_empty());
}

#[test]
fn trim_turns_rejects_zero() {
  let e =
    ContextEditor::from_json(&one(json!({ "type": "trim_turns", "maxTurns": 0 }))).unwrap_err();
  assert_eq!(e.kind(), ErrorKind::InvalidOptions);
  assert_eq!(e.path(), Some("edits[0].maxTurns"));
}

// ---------------------------------------------------------------------------------------------
// truncate_tool_results (CE Node tool_trim_limit, SEMANTICS §5)

fn long_result(id: &str, text: &str) -> Vec<Message> {
  vec![Message::user("go"), ai("", &[id]), tool(id, text)]
}

fn truncation(p: &EditPlan) -> Vec<(usize, usize, String)> {
  p.ops
    .iter()
    .filter_map(|op| match op {
      Op::TruncateToolResult {
        index,
        keep,
        marker,
        strategy,
      } => {
        assert_eq!(*strategy, "truncate_tool_results");
        Some((*index, *keep, marker.clone()))
      }
      _ => None,
    })
    .collect()
}

#[test]
fn truncate_cuts_to_600_chars_by_default_marker_included() {
  let msgs = long_result("c1", &"x".repeat(1000));
  let (p, out) = run(one(json!({ "type": "truncate_tool_results" })), &msgs);
  let content = out[2].content.as_deref().unwrap();
  assert_eq!(
    content.encode_utf16().count(),
    600,
    "head + marker = maxChars"
  );
  let t = truncation(&p);
  assert_eq!(t.len(), 1);
  let (index, keep, marker) = &t[0];
  assert_eq!(*index, 2);
  assert_eq!(
    marker,
    &format!("\n[… {} characters truncated]", 1000 - keep)
  );
  assert_eq!(
    marker,
    &context_editor_core::truncation_marker(1000 - *keep as u64)
  );
  assert_eq!(content, format!("{}{marker}", "x".repeat(*keep)));
  assert!(out[2].truncated);
  let a = &p.report.applied_edits[0];
  assert_eq!(a.truncated_tool_results, 1);
  assert_eq!(
    a.cleared_input_tokens,
    p.report.tokens_before - p.report.tokens_after
  );
  // Exactly 600 is not cut.
  let (p, _) = run(
    one(json!({ "type": "truncate_tool_results" })),
    &long_result("c1", &"x".repeat(600)),
  );
  assert!(p.ops.is_empty());
}

#[test]
fn truncate_accounting_in_every_counting_mode() {
  let msgs = long_result("c1", &"lorem ipsum dolor sit amet ".repeat(100));
  for method in ["approx", "model", "estimate"] {
    let (p, _) = run(
      json!({ "tokenCountMethod": method, "edits": [{ "type": "truncate_tool_results", "maxChars": 100 }] }),
      &msgs,
    );
    assert_eq!(truncation(&p).len(), 1, "{method}");
    assert!(p.report.tokens_after < p.report.tokens_before, "{method}");
    assert_eq!(
      p.report.applied_edits[0].cleared_input_tokens,
      p.report.tokens_before - p.report.tokens_after,
      "{method}"
    );
  }
}

#[test]
fn truncate_never_splits_a_surrogate_pair() {
  // 400 emoji = 800 UTF-16 units; every even cut is a boundary, an odd one would split a pair.
  let text = "😀".repeat(400);
  for max in [97u64, 98, 99, 100, 101] {
    let (p, out) = run(
      one(json!({ "type": "truncate_tool_results", "maxChars": max })),
      &long_result("c1", &text),
    );
    let (_, keep, marker) = truncation(&p).remove(0);
    assert_eq!(
      keep % 2,
      0,
      "maxChars {max}: keep {keep} lands on a pair boundary"
    );
    let content = out[2].content.as_deref().unwrap();
    assert_eq!(content, format!("{}{marker}", "😀".repeat(keep / 2)));
    assert!(content.encode_utf16().count() as u64 <= max);
    assert_eq!(marker, format!("\n[… {} characters truncated]", 800 - keep));
  }
}

#[test]
fn truncate_is_idempotent_through_the_truncated_flag() {
  let msgs = long_result("c1", &"y".repeat(5000));
  let options = one(json!({ "type": "truncate_tool_results", "maxChars": 50 }));
  let (_, out) = run(options.clone(), &msgs);
  let (again, _) = run(options.clone(), &out);
  assert!(again.ops.is_empty());
  // The flag alone protects a result (e.g. a host re-sending a longer text after truncation).
  let mut flagged = msgs.clone();
  flagged[2].truncated = true;
  let (p, _) = run(options, &flagged);
  assert!(p.ops.is_empty());
}

#[test]
fn truncate_skips_excluded_tools_by_result_or_call_name() {
  let long = "z".repeat(900);
  let mut unnamed = Message::tool("c2", "", long.clone());
  unnamed.name = None;
  let msgs = vec![
    Message::user("go"),
    Message::assistant(
      "",
      &[
        ("c1", "read", "{}"),
        ("c2", "read", "{}"),
        ("c3", "search", "{}"),
      ],
    ),
    Message::tool("c1", "read", long.clone()),
    unnamed,
    Message::tool("c3", "search", long),
  ];
  let (p, _) = run(
    one(json!({ "type": "truncate_tool_results", "excludeTools": ["read"] })),
    &msgs,
  );
  let idx: Vec<usize> = truncation(&p).into_iter().map(|t| t.0).collect();
  assert_eq!(idx, vec![4], "the unnamed result goes by its call's name");
}

#[test]
fn truncate_skips_cleared_results() {
  // Already cleared in the input…
  let mut msgs = long_result("c1", &"w".repeat(2000));
  msgs[2].cleared = true;
  let (p, _) = run(
    one(json!({ "type": "truncate_tool_results", "maxChars": 10 })),
    &msgs,
  );
  assert!(p.ops.is_empty());
  // …or cleared earlier in the same pipeline.
  let mut msgs = long_result("c1", &"w".repeat(2000));
  msgs.extend(long_result("c2", &"v".repeat(2000)));
  let (p, out) = run(
    json!({ "edits": [
      { "type": "clear_tool_uses", "trigger": { "messages": 1 }, "keep": { "messages": 1 } },
      { "type": "truncate_tool_results", "maxChars": 10 },
    ] }),
    &msgs,
  );
  assert_eq!(out[2].content.as_deref(), Some("[cleared]"));
  assert_eq!(
    truncation(&p).iter().map(|t| t.0).collect::<Vec<_>>(),
    vec![5]
  );
  assert_eq!(p.report.applied_edits[0].cleared_tool_uses, 1);
  assert_eq!(p.report.applied_edits[1].truncated_tool_results, 1);
}

#[test]
fn truncate_works_on_results_sent_as_a_length_only() {
  let mut msgs = long_result("c1", &"q".repeat(3000));
  msgs[2].content = None;
  msgs[2].content_length = Some(3000);
  let (p, out) = run(
    one(json!({ "type": "truncate_tool_results", "maxChars": 100 })),
    &msgs,
  );
  let (_, keep, marker) = truncation(&p).remove(0);
  assert_eq!(keep as u64 + context_editor_core::utf16_len(&marker), 100);
  assert_eq!(out[2].content_length, Some(100));
}

// ---------------------------------------------------------------------------------------------
// summarize planning (SEMANTICS §3, DeepAgents defaults, CE Node SUMMARIZING)

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

#[test]
fn summarize_defaults_without_a_known_limit_are_deepagents() {
  // {tokens: 170000} trigger, {messages: 6} keep.
  let mut msgs = chat(10, 100);
  let base = approx_tokens(&msgs);
  let target = DEEPAGENTS_TRIGGER_TOKENS as u64;
  msgs.insert(
    0,
    Message::user("p".repeat(((target - 1 - base) * 4) as usize)),
  );
  let (p, _) = run(one(json!({ "type": "summarize" })), &msgs);
  assert_eq!(p.report.tokens_before, target - 1);
  assert!(p.summary.is_none() && !p.report.applied_edits[0].triggered);
  msgs[0] = Message::user("p".repeat(((target - base) * 4) as usize));
  let (p, out) = run(one(json!({ "type": "summarize" })), &msgs);
  assert_eq!(p.report.tokens_before, target);
  let s = summary(&p);
  assert_eq!(s.replaced, (0..msgs.len() - 6).collect::<Vec<_>>());
  assert_eq!(out.len(), 6);
  assert_eq!(s.insert_at, 0);
  assert_eq!(s.prefix, DEFAULT_SUMMARY_PREFIX);
  assert_eq!(s.role, Role::User);
  assert_eq!(s.model, None);
  assert_eq!(s.max_tokens, None);
}

#[test]
fn summarize_defaults_with_a_known_limit_are_deepagents_fractions() {
  // maxInputTokens 1000: trigger at 850 tokens, keep the newest suffix of <= 100 tokens.
  let ctx = Context {
    max_input_tokens: Some(1000),
    ..Context::default()
  };
  let msgs = chat(20, 84); // 40 messages of 21 tokens each: 840 tokens
  let (p, _) = run_in(one(json!({ "type": "summarize" })), &msgs, &ctx);
  assert_eq!(p.report.tokens_before, 840);
  assert!(p.summary.is_none());
  let msgs = chat(21, 84); // 882 tokens
  let (p, out) = run_in(one(json!({ "type": "summarize" })), &msgs, &ctx);
  assert!(p.summary.is_some());
  assert_eq!(
    out.len(),
    4,
    "4 × 21 = 84 <= 100 tokens kept, 5 would be 105"
  );
}

#[test]
fn summarize_fraction_without_a_limit_is_an_invalid_context() {
  let msgs = chat(3, 10);
  for edit in [
    json!({ "type": "summarize", "trigger": { "fraction": 0.5 } }),
    json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "fraction": 0.5 } }),
  ] {
    let err = editor(one(edit))
      .plan(&msgs, &Context::default())
      .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidContext);
    assert_eq!(err.path(), Some("maxInputTokens"));
  }
  // The default trigger with a limit is a fraction too, but then the limit is known.
  let ctx = Context {
    max_input_tokens: Some(10),
    ..Context::default()
  };
  assert!(editor(one(json!({ "type": "summarize" })))
    .plan(&msgs, &ctx)
    .is_ok());
}

#[test]
fn summarize_fraction_trigger_whose_threshold_rounds_down_to_zero_fires() {
  // LangChain.js `shouldSummarize`: `tokens < floor(100 * 0.001) = 0` is false, so the condition
  // holds (Python raises the threshold to 1: the same here, the request has tokens).
  let ctx = Context {
    max_input_tokens: Some(100),
    ..Context::default()
  };
  let msgs = chat(3, 10);
  let (p, out) = run_in(
    one(
      json!({ "type": "summarize", "trigger": { "fraction": 0.001 }, "keep": { "messages": 2 } }),
    ),
    &msgs,
    &ctx,
  );
  assert_eq!(summary(&p).replaced, vec![0, 1, 2, 3]);
  assert_eq!(texts(&out), texts(&msgs[4..]));
  assert!(
    p.report.still_triggered,
    "a threshold of 0 tokens still holds"
  );
  // Still ANDed with the other keys of its condition, and ORed across a list.
  let with_messages = |n: u64| {
    one(
      json!({ "type": "summarize", "trigger": { "fraction": 0.001, "messages": n }, "keep": { "messages": 2 } }),
    )
  };
  assert!(run_in(with_messages(7), &msgs, &ctx).0.summary.is_none());
  assert!(run_in(with_messages(6), &msgs, &ctx).0.summary.is_some());
  let listed = one(
    json!({ "type": "summarize", "trigger": [{ "messages": 50 }, { "fraction": 0.001 }], "keep": { "messages": 2 } }),
  );
  assert!(run_in(listed, &msgs, &ctx).0.summary.is_some());
  // Clearing keeps LangChain's `ClearToolUsesEdit` rule: a threshold <= 0 is skipped.
  let calls = vec![Message::user("u"), ai("", &["c1"]), tool("c1", "result")];
  let (p, _) = run_in(
    json!({ "trigger": { "fraction": 0.001 }, "keep": { "messages": 0 } }),
    &calls,
    &ctx,
  );
  assert!(!p.report.triggered);
}

#[test]
fn summarize_keep_fraction_or_budget_rounding_down_to_zero_keeps_one_token() {
  // LangChain: a target of 0 tokens becomes 1; nothing fits, so only the newest message stays.
  let ctx = Context {
    max_input_tokens: Some(100),
    ..Context::default()
  };
  let msgs = chat(3, 10);
  for keep in [
    json!({ "fraction": 0.001 }),
    json!({ "fraction": 0 }),
    json!({ "tokens": 0 }),
    json!({ "tokens": 0.5 }),
  ] {
    let (p, out) = run_in(
      one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": keep })),
      &msgs,
      &ctx,
    );
    assert_eq!(summary(&p).replaced, vec![0, 1, 2, 3, 4], "{keep}");
    assert_eq!(texts(&out), texts(&msgs[5..]), "{keep}");
  }
  // One message: nothing to summarize.
  let (p, _) = run_in(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "fraction": 0 } })),
    &msgs[..1],
    &ctx,
  );
  assert!(p.summary.is_none());
}

#[test]
fn summarize_empty_trigger_list_is_accepted_and_never_fires() {
  // Both LangChains: no condition, no summary, however long the conversation.
  let msgs = chat(40, 400);
  let ctx = Context {
    max_input_tokens: Some(100),
    ..Context::default()
  };
  for keep in [json!({ "messages": 1 }), json!({ "fraction": 0.1 })] {
    let (p, out) = run_in(
      one(json!({ "type": "summarize", "trigger": [], "keep": keep })),
      &msgs,
      &ctx,
    );
    assert!(p.summary.is_none() && p.ops.is_empty(), "{keep}");
    assert!(!p.report.triggered && !p.report.applied_edits[0].triggered);
    assert_eq!(out, msgs);
  }
  // The keep still needs its limit, as LangChain checks the profile before the trigger.
  let err = editor(one(
    json!({ "type": "summarize", "trigger": [], "keep": { "fraction": 0.1 } }),
  ))
  .plan(&msgs, &Context::default())
  .unwrap_err();
  assert_eq!(
    (err.kind(), err.path()),
    (ErrorKind::InvalidContext, Some("maxInputTokens"))
  );
  // An empty condition is still an error.
  let err =
    ContextEditor::from_json(&one(json!({ "type": "summarize", "trigger": [{}] }))).unwrap_err();
  assert_eq!(err.path(), Some("edits[0].trigger[0]"));
}

#[test]
fn summarize_keeps_the_last_n_messages() {
  let msgs = chat(5, 10);
  let (p, out) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 10 }, "keep": { "messages": 3 } })),
    &msgs,
  );
  assert_eq!(summary(&p).replaced, (0..7).collect::<Vec<_>>());
  assert_eq!(texts(&out), texts(&msgs[7..]));
  let a = &p.report.applied_edits[0];
  assert_eq!(
    (a.edit_type, a.triggered, a.removed_messages),
    ("summarize", true, 7)
  );
  assert_eq!(a.cleared_input_tokens, summary(&p).tokens_replaced);
  assert_eq!(
    a.cleared_input_tokens,
    p.report.tokens_before - p.report.tokens_after
  );
  // One message short of the trigger: nothing.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 11 }, "keep": { "messages": 3 } })),
    &msgs,
  );
  assert!(p.summary.is_none() && p.ops.is_empty());
}

#[test]
fn summarize_keeps_a_token_budget() {
  // Messages of 10 tokens each: a budget of 35 keeps the last 3.
  let msgs = chat(5, 40);
  let (p, out) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "tokens": 35 } })),
    &msgs,
  );
  assert_eq!(out.len(), 3);
  assert_eq!(summary(&p).replaced.len(), 7);
  // Everything fits: no summary.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "tokens": 1000 } })),
    &msgs,
  );
  assert!(p.summary.is_none());
}

#[test]
fn summarize_keeps_a_fraction_of_the_limit() {
  let ctx = Context {
    max_input_tokens: Some(200),
    ..Context::default()
  };
  // 10 % of 200 = 20 tokens = 2 messages of 10.
  let msgs = chat(5, 40);
  let (_, out) = run_in(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "fraction": 0.1 } })),
    &msgs,
    &ctx,
  );
  assert_eq!(texts(&out), texts(&msgs[8..]));
}

#[test]
fn summarize_keeps_the_last_turns() {
  // CE Node keep_last_n_turns with context_limit as a `turns` trigger.
  let msgs = turns(6);
  let (p, out) = run(
    one(
      json!({ "type": "summarize", "trigger": { "turns": 6 }, "keep": { "turns": 2 }, "summaryRole": "assistant" }),
    ),
    &msgs,
  );
  assert_eq!(texts(&out), vec!["sys", "u4", "a4", "u5", "a5"]);
  let s = summary(&p);
  assert_eq!(s.role, Role::Assistant);
  assert_eq!(s.insert_at, 1, "after the system messages");
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "turns": 7 }, "keep": { "turns": 2 } })),
    &msgs,
  );
  assert!(p.summary.is_none(), "6 turns < 7");
}

#[test]
fn summarize_cutoff_never_separates_a_call_from_its_results() {
  // keep 2 would start at t2, in the middle of the exchange: the cut moves back to the call.
  let msgs = vec![
    Message::user("u1"),
    ai("a1", &[]),
    Message::user("u2"),
    ai("", &["c1", "c2"]),
    tool("c1", "t1"),
    tool("c2", "t2"),
    ai("done", &[]),
  ];
  for keep in [2, 3] {
    let (p, out) = run(
      one(
        json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": keep } }),
      ),
      &msgs,
    );
    assert_eq!(summary(&p).replaced, vec![0, 1, 2], "keep {keep}");
    assert_eq!(texts(&out), vec!["", "t1", "t2", "done"]);
  }
  // Token keep landing inside the results moves back the same way.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "tokens": 3 } })),
    &msgs,
  );
  let cut = p.summary.as_ref().map_or(0, |s| s.replaced.len());
  assert!(
    cut <= 3 || cut == msgs.len(),
    "never between 3 and 6: {cut}"
  );
}

#[test]
fn summarize_with_nothing_before_the_cutoff_writes_no_summary() {
  let msgs = vec![ai("", &["c1"]), tool("c1", "t1"), Message::user("u")];
  // keep 2 → cut at t1 → moves back to the call at 0: nothing to summarize.
  let (p, out) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 } })),
    &msgs,
  );
  assert!(p.summary.is_none());
  assert!(p.ops.is_empty());
  assert_eq!(out, msgs);
  assert!(
    p.report.applied_edits[0].triggered,
    "it fired, but found nothing to summarize"
  );
  // keep more than there is: same.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 9 } })),
    &msgs,
  );
  assert!(p.summary.is_none());
}

#[test]
fn summarize_keeps_the_leading_system_messages() {
  let mut msgs = vec![Message::system("s1"), Message::system("s2")];
  msgs.extend(chat(3, 10));
  let (p, out) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 } })),
    &msgs,
  );
  let s = summary(&p);
  assert_eq!(s.replaced, vec![2, 3, 4, 5]);
  assert_eq!(s.insert_at, 2);
  assert!(!s.prompt.contains("System: s1"));
  assert_eq!(texts(&out)[..2], ["s1", "s2"]);
  let written = with_summary(&p, &msgs, "S");
  assert_eq!(written.len(), 5);
  assert_eq!(
    written[2].content.as_deref(),
    Some(&*format!("{DEFAULT_SUMMARY_PREFIX}\n\nS"))
  );
  assert_eq!(written[2].role, Role::User);
}

#[test]
fn summarize_trims_what_it_sends_to_the_newest_that_fit() {
  // Ten 25-token messages; a 60-token budget sends the newest two of the replaced ones.
  let msgs = chat(6, 100);
  let (p, _) = run(
    one(
      json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 }, "trimTokensToSummarize": 60 }),
    ),
    &msgs,
  );
  let s = summary(&p);
  assert_eq!(s.replaced, (0..10).collect::<Vec<_>>());
  assert_eq!(s.summarized, vec![8, 9]);
  assert!(s.prompt.contains("Human: u4") && s.prompt.contains("AI: a4"));
  assert!(!s.prompt.contains("u3"));
  // 0 = no bound.
  let (p, _) = run(
    one(
      json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 }, "trimTokensToSummarize": 0 }),
    ),
    &msgs,
  );
  assert_eq!(summary(&p).summarized, (0..10).collect::<Vec<_>>());
  // The default bound is 4000 tokens: all ten fit.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 } })),
    &msgs,
  );
  assert_eq!(summary(&p).summarized.len(), 10);
}

#[test]
fn summarize_cuts_tool_results_in_the_prompt_to_tool_trim_limit() {
  let long = format!("HEAD{}", "x".repeat(2000));
  let msgs = vec![
    Message::user("u1"),
    ai("", &["c1"]),
    tool("c1", &long),
    ai("a1", &[]),
    Message::user("u2"),
  ];
  let (p, out) = run(
    one(
      json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 1 }, "toolTrimLimit": 10 }),
    ),
    &msgs,
  );
  let s = summary(&p);
  assert!(s.prompt.contains("Tool: HEADxxxxxx…\n"), "{}", s.prompt);
  assert!(!s.prompt.contains(&"x".repeat(11)));
  assert!(s.prompt.contains("Tool call: search({})"));
  assert_eq!(texts(&out), vec!["u2"]);
  // Without the limit the whole result is quoted.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 1 } })),
    &msgs,
  );
  assert!(summary(&p).prompt.contains(&long));
}

#[test]
fn summarize_prompt_replaces_the_messages_placeholder() {
  let msgs = chat(3, 10);
  let (p, _) = run(
    one(
      json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 },
      "summaryPrompt": "Summarize:\n{messages}\nEND", "summaryPrefix": "Earlier:", "model": "gpt-4o-mini", "maxTokens": 400 }),
    ),
    &msgs,
  );
  let s = summary(&p);
  assert_eq!(
    s.prompt,
    format!(
      "Summarize:\nHuman: {}\nAI: {}\nHuman: {}\nAI: {}\nEND",
      texts(&msgs)[0],
      texts(&msgs)[1],
      texts(&msgs)[2],
      texts(&msgs)[3]
    )
  );
  assert_eq!(s.prefix, "Earlier:");
  assert_eq!(s.model.as_deref(), Some("gpt-4o-mini"));
  assert_eq!(s.max_tokens, Some(400));
  // The default prompt is LangChain's, with the conversation in place of `{messages}`.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 } })),
    &msgs,
  );
  let (head, tail) = DEFAULT_SUMMARY_PROMPT.split_once("{messages}").unwrap();
  let prompt = &summary(&p).prompt;
  assert!(prompt.starts_with(head) && prompt.ends_with(tail));
  assert!(prompt.contains(&format!("Human: {}", texts(&msgs)[0])));
}

#[test]
fn summarize_must_be_the_last_edit() {
  let e = ContextEditor::from_json(&json!({ "edits": [
    { "type": "summarize" }, { "type": "last_n", "n": 3 }
  ] }))
  .unwrap_err();
  assert_eq!(e.kind(), ErrorKind::InvalidOptions);
  assert_eq!(e.path(), Some("edits[0].type"));
  assert!(ContextEditor::from_json(&json!({ "edits": [
    { "type": "last_n", "n": 3 }, { "type": "summarize" }
  ] }))
  .is_ok());
}

#[test]
fn summarize_after_another_edit_sees_its_result() {
  // strip first, then summarize what is left: the replaced set skips what strip removed.
  let msgs = tool_history();
  let (p, out) = run(
    json!({ "edits": [
      { "type": "strip_tool_calls" },
      { "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 } },
    ] }),
    &msgs,
  );
  let s = summary(&p);
  assert_eq!(s.replaced, vec![1, 4], "u1 and the stripped text message");
  assert_eq!(texts(&out), vec!["sys", "done", "u2"]);
  assert!(
    !s.prompt.contains("Tool call"),
    "stripped calls are not quoted"
  );
}

#[test]
fn summarize_keeps_the_earlier_edits_of_the_messages_it_replaces() {
  // A summary that is never written (no summarizer, or an empty answer) keeps the replaced
  // messages: they must come back as the earlier edits left them (truncated, cleared), so each
  // replaced message carries its edits before its `remove`.
  let msgs = vec![
    Message::user("read both"),
    ai("", &["c1", "c2"]),
    tool("c1", &"x".repeat(800)),
    tool("c2", &"y".repeat(800)),
    ai("done", &[]),
    Message::user("next"),
  ];
  let (p, out) = run(
    json!({ "edits": [
      { "type": "truncate_tool_results", "maxChars": 100 },
      { "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 1 } },
    ] }),
    &msgs,
  );
  assert_eq!(summary(&p).replaced, vec![0, 1, 2, 3, 4]);
  assert_eq!(texts(&out), vec!["next"]);
  for index in [2, 3] {
    let at: Vec<&Op> = p.ops.iter().filter(|op| op.index() == index).collect();
    assert!(
      matches!(at[..], [Op::TruncateToolResult { .. }, Op::Remove { .. }]),
      "message {index}: {at:?}"
    );
  }
  // Without the summary's removals, the plan is the truncation alone.
  let kept = EditPlan {
    ops: p
      .ops
      .iter()
      .filter(|op| !matches!(op, Op::Remove { .. }))
      .cloned()
      .collect(),
    summary: None,
    report: p.report.clone(),
  };
  let without = kept.apply(&msgs);
  assert_eq!(without.len(), msgs.len());
  for (index, head) in [(2, 'x'), (3, 'y')] {
    let text = texts(&without)[index];
    assert!(
      text.starts_with(head)
        && text.ends_with("characters truncated]")
        && text.chars().count() <= 100,
      "{text:?}"
    );
  }
}

// ---------------------------------------------------------------------------------------------
// triggers: turns and toolUses (SEMANTICS §5, §6)

#[test]
fn a_turns_trigger_fires_at_that_many_turns() {
  let options = one(json!({ "type": "last_n", "n": 2, "trigger": { "turns": 4 } }));
  let (p, _) = run(options.clone(), &turns(3));
  assert!(p.ops.is_empty() && !p.report.applied_edits[0].triggered && !p.report.triggered);
  let (p, out) = run(options, &turns(4));
  assert!(p.report.applied_edits[0].triggered);
  assert_eq!(texts(&out), vec!["sys", "u3", "a3"]);
}

#[test]
fn a_tool_uses_trigger_counts_tool_results() {
  let mut msgs = vec![Message::user("go")];
  for k in 0..3 {
    let id = format!("c{k}");
    msgs.push(ai("", &[&id]));
    msgs.push(tool(&id, &"r".repeat(900)));
  }
  let options = one(json!({ "type": "truncate_tool_results", "trigger": { "toolUses": 4 } }));
  let (p, _) = run(options, &msgs);
  assert!(p.ops.is_empty(), "3 results < 4");
  let options = one(json!({ "type": "truncate_tool_results", "trigger": { "toolUses": 3 } }));
  let (p, _) = run(options, &msgs);
  assert_eq!(truncation(&p).len(), 3);
  // Clearing takes it too (Anthropic `trigger: {tool_uses}`).
  let (p, _) = run(
    json!({ "trigger": { "toolUses": 3 }, "keep": { "messages": 1 } }),
    &msgs,
  );
  assert_eq!(p.report.cleared.len(), 2);
}

#[test]
fn triggers_are_evaluated_on_the_result_of_the_previous_edits() {
  // After trimming to 2 turns, a `turns: 3` trigger of the next edit no longer holds.
  let msgs = thinking_history();
  let (p, _) = run(
    json!({ "edits": [
      { "type": "trim_turns", "maxTurns": 2 },
      { "type": "clear_thinking", "keep": { "thinkingTurns": 0 }, "trigger": { "turns": 3 } },
    ] }),
    &msgs,
  );
  assert!(p.report.applied_edits[0].triggered);
  assert!(!p.report.applied_edits[1].triggered);
  assert!(removed_thinking(&p).is_empty());
}

// ---------------------------------------------------------------------------------------------
// the report, per edit

#[test]
fn each_edit_reports_what_it_did_and_the_tokens_it_freed() {
  let mut msgs = vec![Message::system("sys")];
  for k in 0..6 {
    let id = format!("c{k}");
    msgs.push(Message::user(format!("u{k}")));
    let mut a = ai(&format!("a{k}"), &[&id]);
    a.thinking = Some("t".repeat(200));
    msgs.push(a);
    msgs.push(tool(&id, &"r".repeat(1200)));
    msgs.push(ai(&format!("done{k}"), &[]));
  }
  let (p, out) = run(
    json!({ "edits": [
      { "type": "trim_turns", "maxTurns": 4 },
      { "type": "clear_thinking" },
      { "type": "truncate_tool_results", "maxChars": 200 },
      { "type": "clear_tool_uses", "trigger": { "messages": 1 }, "keep": { "messages": 2 } },
      { "type": "strip_and_truncate", "n": 6 },
    ] }),
    &msgs,
  );
  let e = &p.report.applied_edits;
  let types: Vec<&str> = e.iter().map(|a| a.edit_type).collect();
  assert_eq!(
    types,
    vec![
      "trim_turns",
      "clear_thinking",
      "truncate_tool_results",
      "clear_tool_uses",
      "strip_and_truncate"
    ]
  );
  assert!(e.iter().all(|a| a.triggered));
  assert_eq!(e[0].removed_messages, 8);
  assert_eq!(e[1].cleared_thinking_turns, 3);
  assert_eq!(e[2].truncated_tool_results, 4, "the 4 kept turns' results");
  assert_eq!(e[3].cleared_tool_uses, 2);
  // Strip: the 4 results go, the 4 calling messages keep their text; then the last 6 of 12.
  assert_eq!(e[4].removed_messages, 4 + 6);
  assert_eq!(e[4].removed_tool_calls, 4);
  // Each edit's freed tokens add up to before − after (no orphans here).
  let freed: u64 = e.iter().map(|a| a.cleared_input_tokens).sum();
  assert_eq!(freed, p.report.tokens_before - p.report.tokens_after);
  assert!(e.iter().all(|a| a.cleared_input_tokens > 0));
  assert_eq!(p.report.messages_after, out.len());
  assert_eq!(texts(&out)[0], "sys");
  assert!(out
    .iter()
    .all(|m| m.tool_calls.is_empty() && m.role != Role::Tool));
}

#[test]
fn summarize_walks_back_past_a_pair_that_spans_the_conversation() {
  // A call answered only at the very end (a long-running tool): every cutoff after the call would
  // separate it from its result, so the cut walks back to the call, and here nothing is left to
  // summarize before it. 40,000 messages: the walk is linear (it used to rescan the whole
  // conversation at every step).
  let mut msgs = vec![
    Message::user("start"),
    ai("", &["late"]),
    Message::user("q"),
  ];
  for k in 0..20_000 {
    msgs.push(ai(&format!("a{k}"), &[]));
    msgs.push(Message::user(format!("u{k}")));
  }
  msgs.push(tool("late", "finally"));
  let options =
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 6 } }));
  let (p, out) = run(options.clone(), &msgs);
  assert_eq!(summary(&p).replaced, vec![0], "only what precedes the call");
  assert_eq!(out.len(), msgs.len() - 1);
  // Without the spanning result, the usual tail of 6 is kept.
  msgs.pop();
  let (p, _) = run(options, &msgs);
  assert_eq!(summary(&p).replaced.len(), msgs.len() - 6);
}

#[test]
fn truncate_never_makes_a_result_longer() {
  // A limit below the marker's length: a 20-character result would become a 28-character marker.
  let msgs = long_result("c1", &"s".repeat(20));
  let (p, out) = run(
    one(json!({ "type": "truncate_tool_results", "maxChars": 1 })),
    &msgs,
  );
  assert!(p.ops.is_empty());
  assert_eq!(out, msgs);
  // A long one is still cut to the marker alone.
  let msgs = long_result("c1", &"s".repeat(200));
  let (p, out) = run(
    one(json!({ "type": "truncate_tool_results", "maxChars": 1 })),
    &msgs,
  );
  assert_eq!(truncation(&p)[0].1, 0);
  assert_eq!(
    out[2].content.as_deref(),
    Some("\n[… 200 characters truncated]")
  );
  assert!(p.report.tokens_after < p.report.tokens_before);
}
