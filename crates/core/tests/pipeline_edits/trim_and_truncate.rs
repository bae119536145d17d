//! `trim_turns` (CE Node TRIMMING, §5) cuts whole turns; `truncate_tool_results` (CE Node
//! `tool_trim_limit`, §5) cuts long results, never longer, never inside a surrogate pair.

use super::*;

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

pub(super) fn truncation(p: &EditPlan) -> Vec<(usize, usize, String)> {
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
