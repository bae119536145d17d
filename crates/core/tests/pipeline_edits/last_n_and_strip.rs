//! `last_n` (Synaptic `LastN`, §4) and `strip_tool_calls` / `strip_and_truncate` (Synaptic, §4):
//! what a window of the last n messages keeps, and the tool exchanges stripping removes.

use super::*;

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

pub(super) fn tool_history() -> Vec<Message> {
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
