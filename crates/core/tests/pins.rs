//! Pinned content (issue 18): a message marked `pinned` is never cleared, truncated, trimmed,
//! stripped, summarized or stripped of its reasoning, by any edit, and neither is its tool call or
//! any result of its calls (so the output stays pair-safe). The property test runs random
//! pipelines on random conversations with random pins through the shared invariant checker.

// Only the invariant checker of the shared support code is used here.
#[allow(dead_code)]
mod common;

use common::invariants::check_call;
use context_editor_core::{Context, ContextEditor, EditPlan, Message, Op, Role};
use proptest::prelude::*;
use serde_json::{json, Value};

fn editor(edits: &Value) -> ContextEditor {
  ContextEditor::from_json(&json!({ "edits": edits })).expect("valid options")
}

fn plan(e: &ContextEditor, msgs: &[Message]) -> EditPlan {
  check_call(e, msgs, &Context::default(), true)
    .expect("a valid plan")
    .0
}

fn pinned(mut m: Message) -> Message {
  m.pinned = true;
  m
}

/// Indices of the input messages an op changes or removes (cache breakpoints change nothing).
fn touched(p: &EditPlan) -> Vec<usize> {
  let mut out: Vec<usize> = p
    .ops
    .iter()
    .filter(|op| !matches!(op, Op::CacheBreakpoint { .. }))
    .map(Op::index)
    .collect();
  if let Some(s) = &p.summary {
    out.extend(&s.replaced);
  }
  out.sort_unstable();
  out.dedup();
  out
}

fn session() -> Vec<Message> {
  vec![
    Message::system("sys"),
    pinned(Message::user("Always answer in French. Never touch prod.")),
    Message::assistant("", &[("c1", "search", r#"{"q":"a"}"#)]),
    Message::tool("c1", "search", "a".repeat(800)),
    Message::user("next"),
    Message::assistant("", &[("c2", "search", r#"{"q":"b"}"#)]),
    pinned(Message::tool("c2", "search", "b".repeat(800))),
    Message::user("and then"),
    Message::assistant("", &[("c3", "search", r#"{"q":"c"}"#)]),
    Message::tool("c3", "search", "c".repeat(800)),
    Message::assistant("done", &[]),
  ]
}

#[test]
fn clearing_truncation_and_trimming_skip_pins_and_their_pairs() {
  let msgs = session();
  for edits in [
    json!([{ "type": "clear_tool_uses", "trigger": { "tokens": 1 }, "keep": { "messages": 0 } }]),
    json!([{ "type": "truncate_tool_results", "maxChars": 10 }]),
    json!([{ "type": "last_n", "n": 1 }]),
    json!([{ "type": "trim_turns", "maxTurns": 1 }]),
    json!([{ "type": "strip_tool_calls" }]),
  ] {
    let p = plan(&editor(&edits), &msgs);
    let t = touched(&p);
    // 1 (pinned), 5 and 6 (the pinned result and its call) are never touched.
    for i in [1, 5, 6] {
      assert!(!t.contains(&i), "{edits}: message {i} touched: {:?}", p.ops);
    }
    assert!(!t.is_empty(), "{edits} did something");
  }
}

#[test]
fn summarization_replaces_the_others_and_keeps_pins_in_place() {
  let msgs = session();
  let e = editor(
    &json!([{ "type": "summarize", "trigger": { "messages": 2 }, "keep": { "messages": 2 }, "summaryPrompt": "{messages}" }]),
  );
  let p = plan(&e, &msgs);
  let s = p.summary.as_ref().expect("a summary");
  // Keep 2 would cut at the result of c3: the cut moves to its call (8).
  assert_eq!(s.replaced, vec![2, 3, 4, 7]);
  assert_eq!(s.insert_at, 2);
  assert!(!s.prompt.contains("French"));
  assert!(!s.prompt.contains("bbbb"));
}

#[test]
fn pins_over_budget_are_kept_and_reported() {
  let mut msgs = session();
  msgs[1] = pinned(Message::user("x".repeat(4000)));
  let p = plan(
    &editor(
      &json!([{ "type": "clear_tool_uses", "trigger": { "tokens": 500 }, "keep": { "messages": 0 } }]),
    ),
    &msgs,
  );
  assert!(
    p.report
      .warnings
      .iter()
      .any(|w| w.code == "pins_over_budget"),
    "{:?}",
    p.report.warnings
  );
  assert!(!touched(&p).contains(&1));
  let small = plan(
    &editor(&json!([{ "type": "clear_tool_uses", "trigger": { "tokens": 5000 } }])),
    &session(),
  );
  assert!(!small
    .report
    .warnings
    .iter()
    .any(|w| w.code == "pins_over_budget"));
}

#[test]
fn pin_rules_by_tool_name_and_current_run() {
  let mut msgs = session();
  for m in &mut msgs {
    m.pinned = false;
  }
  msgs.insert(5, Message::assistant("", &[("m1", "memory", "{}")]));
  msgs.insert(6, Message::tool("m1", "", "the user's name is Ada"));
  // 0 sys, 1 user, 2-3 c1, 4 user, 5-6 memory (the result has no name: its call's counts), 7-8 c2,
  // 9 user (the last), 10-11 c3, 12 answer.
  let e = ContextEditor::from_json(&json!({
    "pin": { "tools": ["memory"], "currentRun": true },
    "edits": [{ "type": "clear_tool_uses", "trigger": { "tokens": 1 }, "keep": { "messages": 0 } }, { "type": "last_n", "n": 0 }],
  }))
  .unwrap();
  let p = plan(&e, &msgs);
  let t = touched(&p);
  for i in [5, 6, 10, 11, 12] {
    assert!(!t.contains(&i), "message {i} touched: {:?}", p.ops);
  }
  for i in [1, 2, 3, 4, 7, 8, 9] {
    assert!(t.contains(&i), "message {i} kept: {:?}", p.ops);
  }
}

#[test]
fn bad_pin_rules_name_the_field() {
  for (pin, path) in [
    (json!(true), "pin"),
    (json!({ "tools": "memory" }), "pin.tools"),
    (json!({ "currentRun": "yes" }), "pin.currentRun"),
    (json!({ "messages": 3 }), "pin.messages"),
  ] {
    let e = ContextEditor::from_json(&json!({ "pin": pin })).expect_err("rejected");
    assert_eq!(e.path(), Some(path), "{pin}: {e}");
  }
}

// ---------------------------------------------------------------------------------------------
// properties

/// A conversation of turns: a user message, then 0–2 tool rounds (1–2 parallel calls each), then
/// an answer, some with reasoning; any message may be pinned.
fn conversation() -> impl Strategy<Value = Vec<Message>> {
  let round = (1usize..3, 1usize..400);
  let turn = (
    prop::collection::vec(round, 0..3),
    any::<bool>(),
    1usize..200,
  );
  (
    prop::collection::vec(turn, 1..8),
    prop::collection::vec(any::<bool>(), 64),
  )
    .prop_map(|(turns, pins)| {
      let mut msgs = vec![Message::system("sys")];
      let mut id = 0;
      for (t, (rounds, thinking, answer)) in turns.into_iter().enumerate() {
        msgs.push(Message::user(format!("question {t}")));
        for (calls, len) in rounds {
          let ids: Vec<String> = (0..calls).map(|k| format!("c{id}_{k}")).collect();
          id += 1;
          let specs: Vec<(&str, &str, &str)> = ids
            .iter()
            .map(|i| (i.as_str(), "read", r#"{"p":1}"#))
            .collect();
          let mut a = Message::assistant("", &specs);
          if thinking {
            a.thinking = Some("hmm ".repeat(20));
          }
          msgs.push(a);
          for i in &ids {
            msgs.push(Message::tool(i.clone(), "read", "r".repeat(len)));
          }
        }
        let mut a = Message::assistant("a".repeat(answer), &[]);
        if thinking {
          a.thinking = Some("think ".repeat(10));
        }
        msgs.push(a);
      }
      for (m, &p) in msgs.iter_mut().zip(&pins) {
        m.pinned = p && m.role != Role::System;
      }
      msgs
    })
}

fn pipeline() -> impl Strategy<Value = Value> {
  let edit = prop_oneof![
    (0u64..4).prop_map(|k| json!({ "type": "clear_tool_uses", "trigger": { "tokens": 1 }, "keep": { "messages": k }, "clearToolInputs": true, "clearAtLeast": 50 })),
    (0u64..4).prop_map(|k| json!({ "type": "clear_tool_uses", "trigger": { "tokens": 1 }, "keep": { "messages": k }, "stable": { "stepResults": 1 } })),
    (0u64..4).prop_map(|k| json!({ "type": "clear_tool_uses", "trigger": { "tokens": 1 }, "keep": { "messages": k }, "prefer": ["superseded", "duplicate"] })),
    (0u64..4).prop_map(|k| json!({ "type": "clear_tool_uses", "trigger": { "tokens": 1 }, "keep": { "messages": k }, "prefer": { "duplicate": true }, "stable": { "stepResults": 2 } })),
    (5u64..100).prop_map(|n| json!({ "type": "truncate_tool_results", "maxChars": n })),
    (0u64..6).prop_map(|n| json!({ "type": "last_n", "n": n })),
    (1u64..3).prop_map(|n| json!({ "type": "trim_turns", "maxTurns": n })),
    Just(json!({ "type": "strip_tool_calls" })),
    (0u64..2).prop_map(|n| json!({ "type": "clear_thinking", "keep": { "thinkingTurns": n } })),
  ];
  let summarize = prop_oneof![
    Just(None),
    (0u64..6).prop_map(|n| Some(
      json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": n } })
    )),
  ];
  (prop::collection::vec(edit, 1..3), summarize).prop_map(|(mut edits, s)| {
    edits.extend(s);
    Value::Array(edits)
  })
}

proptest! {
  #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

  /// No edit touches a pinned message or the pair of one; every plan holds the invariants
  /// (pair-safe output among them).
  #[test]
  fn no_edit_touches_a_pinned_message(msgs in conversation(), edits in pipeline(), current_run in any::<bool>()) {
    let e = ContextEditor::from_json(&json!({ "edits": edits, "pin": { "currentRun": current_run } })).unwrap();
    let p = plan(&e, &msgs);
    // The pinned set with its pairs, from the messages alone.
    let last_user = msgs.iter().rposition(|m| m.role == Role::User);
    let mut pins: Vec<bool> = msgs
      .iter()
      .enumerate()
      .map(|(i, m)| m.pinned || (current_run && last_user.is_some_and(|u| i > u)))
      .collect();
    let call_of = |id: &str| msgs.iter().position(|m| m.tool_calls.iter().any(|c| c.id == id));
    for (i, m) in msgs.iter().enumerate() {
      if let Some(a) = m.tool_call_id.as_deref().and_then(call_of) {
        if pins[i] { pins[a] = true; }
      }
    }
    for (i, m) in msgs.iter().enumerate() {
      if let Some(a) = m.tool_call_id.as_deref().and_then(call_of) {
        if pins[a] { pins[i] = true; }
      }
    }
    for i in touched(&p) {
      prop_assert!(!pins[i], "pinned message {} touched: {:?}", i, p.ops);
    }
  }
}
