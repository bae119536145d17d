//! Stale and duplicate results first (`clear_tool_uses.prefer`, issue 18): on coding-agent
//! transcripts (reads, edits, re-reads, repeated test runs) the superseded and duplicate results
//! are cleared first, whatever their age, before the keep rule counts the others; the report says
//! why each result was cleared. Property tests check every plan against the shared invariants
//! (pair-safe output, exact report) and the stale set against a reference computed here from the
//! messages alone, in LangChain's mode and in stable (cache-aware) mode.

// Only the invariant checker of the shared support code is used here.
#[allow(dead_code)]
mod common;

use std::collections::BTreeMap;

use common::invariants::check_call;
use context_editor_core::{Context, ContextEditor, EditPlan, Message, Op};
use proptest::prelude::*;
use serde_json::{json, Value};

fn editor(edit: Value) -> ContextEditor {
  let mut edit = edit;
  edit["type"] = json!("clear_tool_uses");
  ContextEditor::from_json(&json!({ "edits": [edit] })).expect("valid options")
}

fn plan(e: &ContextEditor, msgs: &[Message]) -> EditPlan {
  check_call(e, msgs, &Context::default(), true)
    .expect("a valid plan")
    .0
}

/// `(index, reason)` of each cleared result.
fn reasons(p: &EditPlan) -> Vec<(usize, &'static str)> {
  p.report
    .cleared
    .iter()
    .map(|c| (c.index, c.reason))
    .collect()
}

/// One call and its result: `(id, tool, args JSON, output)`.
fn step(msgs: &mut Vec<Message>, id: &str, tool: &str, args: &str, output: &str) {
  msgs.push(Message::assistant("", &[(id, tool, args)]));
  msgs.push(Message::tool(id, tool, output));
}

/// A coding session: read two files, run the tests, edit one file, re-read it, run the tests
/// twice more (the same command), read the other file again.
fn coding_session() -> Vec<Message> {
  let mut m = vec![
    Message::system("You fix bugs."),
    Message::user("Fix the failing test."),
  ];
  step(
    &mut m,
    "c1",
    "read_file",
    r#"{"path":"src/a.ts"}"#,
    &"a".repeat(400),
  ); // 3: superseded by c4
  step(
    &mut m,
    "c2",
    "read_file",
    r#"{"path":"src/b.ts"}"#,
    &"b".repeat(400),
  ); // 5: duplicate of c7
  step(
    &mut m,
    "c3",
    "run",
    r#"{"cmd":"npm test"}"#,
    &"FAIL 1".repeat(50),
  ); // 7: duplicate of c6
  step(
    &mut m,
    "c4",
    "edit_file",
    r#"{"path":"./src/a.ts","old":"x","new":"y"}"#,
    "ok",
  ); // 9
  step(
    &mut m,
    "c5",
    "read_file",
    r#"{"path":"src/a.ts"}"#,
    &"A".repeat(400),
  ); // 11
  step(
    &mut m,
    "c6",
    "run",
    r#"{"cmd":"npm test"}"#,
    &"PASS 1".repeat(50),
  ); // 13: duplicate of c8
  step(
    &mut m,
    "c7",
    "read_file",
    r#"{"path":"src/b.ts"}"#,
    &"b".repeat(400),
  ); // 15
  step(
    &mut m,
    "c8",
    "run",
    r#"{ "cmd" : "npm test" }"#,
    &"PASS 1".repeat(50),
  ); // 17
  m
}

#[test]
fn superseded_and_duplicate_results_go_first_and_the_report_says_why() {
  let msgs = coding_session();
  let e = editor(
    json!({ "trigger": { "tokens": 1 }, "keep": { "messages": 3 }, "prefer": ["superseded", "duplicate"] }),
  );
  let p = plan(&e, &msgs);
  // Stale: 3 (read of a.ts, then edited), 5 (b.ts read again at 15), 7 and 13 (the same test run
  // later). The keep rule counts the others: 9, 11, 15, 17 -> the newest 3 stay, 9 is old.
  assert_eq!(
    reasons(&p),
    vec![
      (3, "superseded"),
      (5, "duplicate"),
      (7, "duplicate"),
      (13, "duplicate"),
      (9, "old"),
    ]
  );
  // Without `prefer`: LangChain's rule, the 3 newest results stay whatever they hold.
  let plain = plan(
    &editor(json!({ "trigger": { "tokens": 1 }, "keep": { "messages": 3 } })),
    &msgs,
  );
  let cleared: Vec<usize> = plain.report.cleared.iter().map(|c| c.index).collect();
  assert_eq!(cleared, vec![3, 5, 7, 9, 11]);
  assert!(plain.report.cleared.iter().all(|c| c.reason == "old"));
}

#[test]
fn stale_results_are_cleared_only_when_the_trigger_fires_and_never_for_excluded_tools() {
  let msgs = coding_session();
  let idle =
    editor(json!({ "trigger": { "tokens": 1_000_000 }, "prefer": ["superseded", "duplicate"] }));
  assert!(plan(&idle, &msgs).report.cleared.is_empty());
  let e = editor(json!({
    "trigger": { "tokens": 1 }, "keep": { "messages": 10 },
    "excludeTools": ["run"], "prefer": { "duplicate": true }
  }));
  // The read of a.ts at 3 is read again, with the same arguments, at 11 (its later edit is not
  // looked at: `superseded` is off).
  assert_eq!(
    reasons(&plan(&e, &msgs)),
    vec![(3, "duplicate"), (5, "duplicate")]
  );
}

#[test]
fn configured_writers_and_argument_paths() {
  let mut msgs = vec![Message::user("go")];
  step(
    &mut msgs,
    "c1",
    "fs_read",
    r#"{"target":{"file":"notes.md"}}"#,
    "old notes",
  );
  step(
    &mut msgs,
    "c2",
    "read_file",
    r#"{"path":"notes.md"}"#,
    "old notes",
  );
  step(
    &mut msgs,
    "c3",
    "fs_put",
    r#"{"target":{"file":"notes.md"},"text":"new"}"#,
    "saved",
  );
  let custom = editor(json!({
    "trigger": { "tokens": 1 }, "keep": { "messages": 5 },
    "prefer": { "superseded": { "writers": ["fs_put:target.file"], "readers": ["fs_read:target.file"] } }
  }));
  // read_file is not a reader of this configuration.
  assert_eq!(reasons(&plan(&custom, &msgs)), vec![(2, "superseded")]);
  let defaults = editor(
    json!({ "trigger": { "tokens": 1 }, "keep": { "messages": 5 }, "prefer": ["superseded"] }),
  );
  // fs_put is no default writer: nothing is stale.
  assert!(plan(&defaults, &msgs).report.cleared.is_empty());
}

#[test]
fn a_later_write_does_not_make_a_later_read_stale_and_arguments_sent_as_lengths_are_never_stale() {
  let mut msgs = vec![Message::user("go")];
  step(&mut msgs, "c1", "edit_file", r#"{"path":"a"}"#, "ok");
  step(&mut msgs, "c2", "read_file", r#"{"path":"a"}"#, "fresh");
  let e = editor(
    json!({ "trigger": { "tokens": 1 }, "keep": { "messages": 5 }, "prefer": ["superseded", "duplicate"] }),
  );
  assert!(plan(&e, &msgs).report.cleared.is_empty());
  let mut blind = coding_session();
  for m in &mut blind {
    for c in &mut m.tool_calls {
      c.args_length = Some(c.args_len());
      c.args = None;
    }
  }
  let p = plan(&e, &blind);
  assert!(p.report.cleared.iter().all(|c| c.reason == "old"));
}

#[test]
fn bad_prefer_values_name_the_field() {
  for (prefer, path) in [
    (json!(["stale"]), "edits[0].prefer[0]"),
    (json!("duplicate"), "edits[0].prefer"),
    (json!({ "duplicate": 1 }), "edits[0].prefer.duplicate"),
    (json!({ "old": true }), "edits[0].prefer.old"),
    (
      json!({ "superseded": { "writers": [":path"] } }),
      "edits[0].prefer.superseded.writers[0]",
    ),
    (
      json!({ "superseded": { "writers": ["w:a..b"] } }),
      "edits[0].prefer.superseded.writers[0]",
    ),
    (json!({ "superseded": "yes" }), "edits[0].prefer.superseded"),
  ] {
    let e = ContextEditor::from_json(
      &json!({ "edits": [{ "type": "clear_tool_uses", "prefer": prefer }] }),
    )
    .expect_err("rejected");
    assert_eq!(e.path(), Some(path), "{prefer}: {e}");
  }
}

// ---------------------------------------------------------------------------------------------
// properties

/// One tool call of a generated transcript: `(tool, file or command, output length)`.
type Call = (usize, usize, usize);

const TOOLS: [&str; 4] = ["read_file", "edit_file", "run", "Read"];

fn args(tool: usize, arg: usize) -> String {
  match TOOLS[tool] {
    "run" => json!({ "cmd": format!("test {arg}") }).to_string(),
    "Read" => json!({ "file_path": format!("f{arg}") }).to_string(),
    _ => json!({ "path": format!("f{arg}") }).to_string(),
  }
}

/// A transcript of turns, each an assistant message with 1–2 parallel calls and their results,
/// sometimes a user message between.
fn transcript() -> impl Strategy<Value = Vec<Message>> {
  let call = (0..TOOLS.len(), 0usize..3, 1usize..300);
  let turn = (prop::collection::vec(call, 1..3), any::<bool>());
  prop::collection::vec(turn, 1..25).prop_map(|turns| {
    let mut msgs = vec![Message::system("sys"), Message::user("start")];
    for (n, (calls, user)) in turns.into_iter().enumerate() {
      let calls: Vec<Call> = calls;
      let ids: Vec<String> = (0..calls.len()).map(|k| format!("c{n}_{k}")).collect();
      let specs: Vec<(String, &str, String)> = calls
        .iter()
        .zip(&ids)
        .map(|(&(t, a, _), id)| (id.clone(), TOOLS[t], args(t, a)))
        .collect();
      let refs: Vec<(&str, &str, &str)> = specs
        .iter()
        .map(|(i, t, a)| (i.as_str(), *t, a.as_str()))
        .collect();
      msgs.push(Message::assistant("", &refs));
      for (&(t, _, len), id) in calls.iter().zip(&ids) {
        msgs.push(Message::tool(id.clone(), TOOLS[t], "x".repeat(len)));
      }
      if user {
        msgs.push(Message::user(format!("next {n}")));
      }
    }
    msgs
  })
}

/// The reference: for each tool result, why it is stale, from the messages alone (quadratic and
/// plain: for each call, look at every later call).
fn reference_stale(msgs: &[Message]) -> BTreeMap<usize, &'static str> {
  let mut calls = Vec::new(); // (message, tool, args Value, result index)
  for (i, m) in msgs.iter().enumerate() {
    for c in &m.tool_calls {
      let result = msgs
        .iter()
        .position(|r| r.tool_call_id.as_deref() == Some(c.id.as_str()));
      let args: Value = serde_json::from_str(c.args.as_deref().unwrap_or("{}")).unwrap();
      calls.push((i, c.name.clone(), args, result));
    }
  }
  let file = |tool: &str, args: &Value| -> Option<String> {
    let v = match tool {
      "read_file" | "edit_file" => args.get("path"),
      "Read" => args.get("file_path"),
      _ => None,
    }?;
    v.as_str().map(str::to_owned)
  };
  let mut out = BTreeMap::new();
  for (n, (_, tool, a, result)) in calls.iter().enumerate() {
    let Some(r) = result else { continue };
    let later = &calls[n + 1..];
    let superseded = file(tool, a).is_some_and(|f| {
      later
        .iter()
        .any(|(_, t, b, _)| t == "edit_file" && file(t, b).as_deref() == Some(f.as_str()))
    });
    let duplicate = later.iter().any(|(_, t, b, _)| t == tool && b == a);
    if superseded {
      out.insert(*r, "superseded");
    } else if duplicate {
      out.insert(*r, "duplicate");
    }
  }
  out
}

fn cleared_indices(p: &EditPlan) -> Vec<usize> {
  p.ops
    .iter()
    .filter_map(|op| match op {
      Op::ClearToolResult { index, .. } => Some(*index),
      _ => None,
    })
    .collect()
}

proptest! {
  #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

  /// Every stale result is cleared with its reason; of the others, exactly the newest `keep` stay.
  #[test]
  fn stale_first_then_the_keep_rule_on_the_rest(msgs in transcript(), keep in 0u64..6) {
    let e = editor(json!({ "trigger": { "tokens": 1 }, "keep": { "messages": keep }, "prefer": ["superseded", "duplicate"] }));
    let p = plan(&e, &msgs);
    let stale = reference_stale(&msgs);
    let results: Vec<usize> = (0..msgs.len()).filter(|&i| msgs[i].tool_call_id.is_some()).collect();
    let fresh: Vec<usize> = results.iter().copied().filter(|i| !stale.contains_key(i)).collect();
    let kept = fresh.len().saturating_sub(usize::try_from(keep).unwrap());
    let mut expected: BTreeMap<usize, &str> = stale.clone();
    for &i in &fresh[..kept] {
      expected.insert(i, "old");
    }
    let got: BTreeMap<usize, &str> = reasons(&p).into_iter().collect();
    prop_assert_eq!(got, expected);
  }

  /// Stable mode: every plan holds the invariants; a result cleared for being stale is stale, and
  /// on an append-only history a stale result, once cleared, stays cleared.
  #[test]
  fn stable_mode_clears_stale_results_at_steps_and_never_unclears_them(msgs in transcript(), step in 1u64..4) {
    let e = editor(json!({
      "trigger": { "tokens": 1 }, "keep": { "messages": 2 },
      "stable": { "stepResults": step }, "prefer": ["superseded", "duplicate"]
    }));
    let mut before: Vec<usize> = Vec::new();
    let cuts: Vec<usize> = (1..=msgs.len()).filter(|&n| n == msgs.len() || msgs[n].role == context_editor_core::Role::Assistant).collect();
    for n in cuts {
      let p = plan(&e, &msgs[..n]);
      for c in &p.report.cleared {
        if c.reason != "old" {
          prop_assert_eq!(reference_stale(&msgs[..n]).get(&c.index).copied(), Some(c.reason));
        }
      }
      let now = cleared_indices(&p);
      for i in &before {
        prop_assert!(now.contains(i), "result {} was cleared at an earlier call and is not at {}", i, n);
      }
      before = now;
    }
  }
}
