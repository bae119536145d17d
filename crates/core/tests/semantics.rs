//! One named test per rule of `SEMANTICS.md` §2 (`clear_tool_uses`, compat with LangChain.js
//! `ClearToolUsesEdit`) and per defect of §7 that the core fixes, on hand-built conversations.
//!
//! Token numbers are approx mode unless a test says otherwise: `ceil(total UTF-16 chars / 4)` where a
//! tool result measures `content + tool_call_id` and an assistant message `content +
//! JSON.stringify(tool_calls)`.

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
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------------
// helpers

fn editor(options: Value) -> ContextEditor {
  ContextEditor::from_json(&options).expect("valid options")
}

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

fn cleared(p: &EditPlan) -> Vec<usize> {
  p.ops
    .iter()
    .filter_map(|op| match op {
      Op::ClearToolResult { index, .. } => Some(*index),
      _ => None,
    })
    .collect()
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

// ---------------------------------------------------------------------------------------------
// §2.1 Orphans first, always

#[test]
fn rule_2_1_orphans_removed_even_when_not_triggered() {
  let msgs = vec![
    Message::user("hi"),
    Message::tool("ghost", "search", "result of a call nobody made"), // 1: no call at all
    Message::assistant("", &[("a", "search", "{}")]),
    Message::tool("a", "search", "ok"),
    Message::tool("b", "search", "no call with this id"), // 4: id never called
    Message::tool("later", "search", "called only afterwards"), // 5: call comes later
    Message::assistant("", &[("later", "search", "{}")]),
  ];
  let p = plan(&ContextEditor::default(), &msgs);
  assert!(!p.report.triggered, "default trigger is 100k tokens");
  assert_eq!(removed(&p), vec![1, 4, 5]);
  assert_eq!(
    p.report
      .removed_orphans
      .iter()
      .map(|o| (o.index, o.tool_call_id.as_str()))
      .collect::<Vec<_>>(),
    vec![(1, "ghost"), (4, "b"), (5, "later")]
  );
  assert_eq!(p.report.messages_before, 7);
  assert_eq!(p.report.messages_after, 4);
  let orphan_warnings: Vec<Option<usize>> = p
    .report
    .warnings
    .iter()
    .filter(|w| w.code == "orphaned_tool_result")
    .map(|w| w.index)
    .collect();
  assert_eq!(orphan_warnings, vec![Some(1), Some(4), Some(5)]);
  // The call at 6 now has no result after it: reported, not invented.
  assert!(p
    .report
    .warnings
    .iter()
    .any(|w| w.code == "dangling_tool_call" && w.index == Some(6)));
  assert!(cleared(&p).is_empty());
}

#[test]
fn rule_2_1_orphan_tokens_do_not_count_toward_trigger() {
  let mut msgs = agent(&[("a", "search", "small"), ("b", "search", "small")]);
  msgs.insert(1, Message::tool("ghost", "search", "y".repeat(4000)));
  let without_orphan: Vec<Message> = msgs
    .iter()
    .enumerate()
    .filter(|(i, _)| *i != 1)
    .map(|(_, m)| m.clone())
    .collect();
  let after_removal = approx(&without_orphan);
  assert!(approx(&msgs) > 1000 && after_removal < 100);
  // Would fire on the raw history, does not after orphan removal.
  let e = editor(json!({ "trigger": { "tokens": after_removal + 1 }, "keep": { "messages": 0 } }));
  let p = plan(&e, &msgs);
  assert!(!p.report.triggered);
  assert_eq!(removed(&p), vec![1]);
  assert_eq!(
    p.report.tokens_before,
    approx(&msgs),
    "tokens_before is the input as given"
  );
  assert_eq!(p.report.tokens_after, after_removal);
  // Inclusive at exactly the post-removal count.
  let e = editor(json!({ "trigger": { "tokens": after_removal }, "keep": { "messages": 0 } }));
  let p = plan(&e, &msgs);
  assert!(p.report.triggered);
  assert_eq!(cleared(&p), vec![3, 5]);
}

#[test]
fn rule_2_1_orphans_do_not_count_toward_message_trigger() {
  let mut msgs = agent(&[("a", "search", "r1"), ("b", "search", "r2")]);
  msgs.push(Message::tool("zzz", "search", "orphan"));
  assert_eq!(msgs.len(), 6);
  let p = plan(&editor(json!({ "trigger": { "messages": 6 } })), &msgs);
  assert!(
    !p.report.triggered,
    "5 messages remain after orphan removal"
  );
  let p = plan(
    &editor(json!({ "trigger": { "messages": 5 }, "keep": { "messages": 1 } })),
    &msgs,
  );
  assert!(p.report.triggered);
  assert_eq!(removed(&p), vec![5]);
  assert_eq!(cleared(&p), vec![2]);
}

// ---------------------------------------------------------------------------------------------
// §2.2 Trigger

#[test]
fn rule_2_2_token_trigger_is_inclusive() {
  let (msgs, results) = uniform(3, 40);
  let t = approx(&msgs);
  let p = plan(
    &editor(json!({ "trigger": { "tokens": t }, "keep": { "messages": 1 } })),
    &msgs,
  );
  assert!(p.report.triggered);
  assert_eq!(cleared(&p), results[..2].to_vec());
  let p = plan(
    &editor(json!({ "trigger": { "tokens": t + 1 }, "keep": { "messages": 1 } })),
    &msgs,
  );
  assert!(!p.report.triggered);
  assert!(p.ops.is_empty());
  assert!(!p.report.applied_edits[0].triggered);
}

#[test]
fn rule_2_2_message_trigger_is_inclusive() {
  let (msgs, _) = uniform(3, 10);
  let n = msgs.len();
  assert!(
    plan(&editor(json!({ "trigger": { "messages": n } })), &msgs)
      .report
      .triggered
  );
  assert!(
    !plan(&editor(json!({ "trigger": { "messages": n + 1 } })), &msgs)
      .report
      .triggered
  );
}

#[test]
fn rule_2_2_an_empty_trigger_list_never_fires_in_any_edit() {
  // An OR of nothing, as LangChain's `ClearToolUsesEdit` and `summarizationMiddleware`: accepted,
  // never fires, while orphans still go (rule 2.1).
  let (mut msgs, _) = uniform(4, 4000);
  msgs.push(Message::tool("ghost", "search", "stray"));
  let p = plan(
    &editor(json!({ "trigger": [], "keep": { "messages": 0 } })),
    &msgs,
  );
  assert!(!p.report.triggered);
  assert!(cleared(&p).is_empty());
  assert_eq!(removed(&p), vec![msgs.len() - 1]);
  for edit in [
    json!({ "type": "clear_thinking", "trigger": [] }),
    json!({ "type": "last_n", "n": 1, "trigger": [] }),
    json!({ "type": "truncate_tool_results", "maxChars": 10, "trigger": [] }),
  ] {
    let p = plan(&editor(json!({ "edits": [edit.clone()] })), &msgs);
    assert!(!p.report.applied_edits[0].triggered, "{edit}");
  }
}

#[test]
fn rule_2_2_keys_in_one_trigger_object_are_anded() {
  let (msgs, _) = uniform(3, 40);
  let (t, n) = (approx(&msgs), msgs.len());
  let fires = |v: Value| {
    plan(&editor(json!({ "trigger": v })), &msgs)
      .report
      .triggered
  };
  assert!(fires(json!({ "tokens": t, "messages": n })));
  assert!(!fires(json!({ "tokens": t, "messages": n + 1 })));
  assert!(!fires(json!({ "tokens": t + 1, "messages": n })));
  assert!(fires(json!({ "tokens": t, "messages": n, "toolUses": 3 })));
  assert!(!fires(json!({ "tokens": t, "messages": n, "toolUses": 4 })));
}

#[test]
fn rule_2_2_trigger_array_is_ored() {
  let (msgs, _) = uniform(3, 40);
  let (t, n) = (approx(&msgs), msgs.len());
  let fires = |v: Value| {
    plan(&editor(json!({ "trigger": v })), &msgs)
      .report
      .triggered
  };
  assert!(fires(json!([{ "tokens": t + 1 }, { "messages": n }])));
  assert!(fires(json!([{ "tokens": t }, { "messages": n + 1 }])));
  assert!(!fires(json!([{ "tokens": t + 1 }, { "messages": n + 1 }])));
  // An ANDed object inside the OR list still needs all of its keys.
  assert!(!fires(
    json!([{ "tokens": t, "messages": n + 1 }, { "toolUses": 4 }])
  ));
}

#[test]
fn rule_2_2_fraction_trigger_uses_floor() {
  let (msgs, _) = uniform(3, 40);
  let t = approx(&msgs);
  assert!(t < 1000);
  // 1000 * f = t + 0.9: floor gives t (fires); ceil or rounding would give t + 1 (would not).
  #[allow(clippy::cast_precision_loss)]
  let f = (t as f64 + 0.9) / 1000.0;
  let p = plan_in(
    &editor(json!({ "trigger": { "fraction": f } })),
    &msgs,
    &ctx_max(1000),
  );
  assert!(p.report.triggered);
  assert_eq!(p.report.max_input_tokens, Some(1000));
  #[allow(clippy::cast_precision_loss)]
  let f = (t as f64 + 1.0) / 1000.0;
  let p = plan_in(
    &editor(json!({ "trigger": { "fraction": f } })),
    &msgs,
    &ctx_max(1000),
  );
  assert!(!p.report.triggered);
}

#[test]
fn rule_2_2_fraction_skipped_when_limit_unknown() {
  let (msgs, _) = uniform(3, 40);
  let e = editor(json!({ "trigger": { "fraction": 0.0001 } }));
  let p = plan(&e, &msgs);
  assert!(
    !p.report.triggered,
    "unknown limit: condition not met, not an error"
  );
  assert_eq!(p.report.max_input_tokens, None);
  assert!(codes(&p.report).contains(&"max_input_tokens_unknown"));
  // The same condition ANDed with a met key is still skipped as a whole...
  let p = plan(
    &editor(json!({ "trigger": { "fraction": 0.0001, "messages": 1 } })),
    &msgs,
  );
  assert!(!p.report.triggered);
  // ...while another ORed condition can still fire.
  let p = plan(
    &editor(json!({ "trigger": [{ "fraction": 0.0001 }, { "messages": 1 }] })),
    &msgs,
  );
  assert!(p.report.triggered);
  // A known model name supplies the limit (gpt-4o: 128,000 → threshold 12).
  let known = Context {
    model: Some("gpt-4o".into()),
    ..Context::default()
  };
  let p = plan_in(&e, &msgs, &known);
  assert_eq!(p.report.max_input_tokens, Some(128_000));
  assert!(p.report.triggered);
  assert!(!codes(&p.report).contains(&"max_input_tokens_unknown"));
  // An explicit limit wins over the model's.
  let both = Context {
    max_input_tokens: Some(10_000_000),
    ..known
  };
  let p = plan_in(&e, &msgs, &both);
  assert_eq!(p.report.max_input_tokens, Some(10_000_000));
  assert!(!p.report.triggered, "threshold 1000 > {}", approx(&msgs));
}

#[test]
fn rule_2_2_fraction_skipped_when_threshold_not_positive() {
  let (msgs, _) = uniform(3, 40);
  // floor(10 * 0.05) = 0: the condition is skipped, it does not fire on every request.
  let p = plan_in(
    &editor(json!({ "trigger": { "fraction": 0.05 } })),
    &msgs,
    &ctx_max(10),
  );
  assert!(!p.report.triggered);
  // floor(20 * 0.05) = 1 fires.
  let p = plan_in(
    &editor(json!({ "trigger": { "fraction": 0.05 } })),
    &msgs,
    &ctx_max(20),
  );
  assert!(p.report.triggered);
}

#[test]
fn rule_2_2_tool_uses_trigger_counts_results_after_orphan_removal() {
  let (mut msgs, _) = uniform(2, 10);
  msgs.push(Message::tool("nobody", "search", "orphan"));
  assert!(
    plan(&editor(json!({ "trigger": { "toolUses": 2 } })), &msgs)
      .report
      .triggered
  );
  assert!(
    !plan(&editor(json!({ "trigger": { "toolUses": 3 } })), &msgs)
      .report
      .triggered
  );
}

// ---------------------------------------------------------------------------------------------
// §2.3 Candidates and keep

#[test]
fn rule_2_3_candidates_include_already_cleared_and_excluded() {
  let mut msgs = agent(&[
    ("c0", "search", "r0"),
    ("c1", "search", "r1"),
    ("c2", "search", "r2"),
    ("c3", "search", "[cleared]"),
    ("c4", "memory", "r4"),
  ]);
  msgs[8].cleared = true;
  let e = editor(json!({
    "trigger": { "messages": 1 }, "keep": { "messages": 2 }, "excludeTools": ["memory"]
  }));
  let p = plan(&e, &msgs);
  // The kept window is the last two results (8 and 10) even though neither could be cleared:
  // skipping them when forming candidates would keep 4 and 6 instead.
  assert_eq!(cleared(&p), vec![2, 4, 6]);
}

#[test]
fn rule_2_3_keep_messages_keeps_last_n() {
  let (msgs, r) = uniform(5, 20);
  let p = plan(
    &editor(json!({ "trigger": { "messages": 1 }, "keep": { "messages": 2 } })),
    &msgs,
  );
  assert_eq!(cleared(&p), r[..3].to_vec());
  // Default keep is 3.
  let p = plan(&editor(json!({ "trigger": { "messages": 1 } })), &msgs);
  assert_eq!(cleared(&p), r[..2].to_vec());
}

#[test]
fn rule_2_3_keep_messages_zero_clears_every_result() {
  let (msgs, r) = uniform(5, 20);
  let p = plan(
    &editor(json!({ "trigger": { "messages": 1 }, "keep": { "messages": 0 } })),
    &msgs,
  );
  assert_eq!(cleared(&p), r);
}

#[test]
fn rule_2_3_keep_messages_at_or_above_candidates_clears_nothing() {
  let (msgs, _) = uniform(5, 20);
  for n in [5, 6, 1000] {
    let p = plan(
      &editor(json!({ "trigger": { "messages": 1 }, "keep": { "messages": n } })),
      &msgs,
    );
    assert!(p.report.triggered);
    assert!(p.ops.is_empty(), "keep {n}");
    assert_eq!(p.report.applied_edits[0].cleared_tool_uses, 0);
  }
}

/// Results whose own approx sizes are 1, 100, 10, 5, 5 tokens (content + 2-char id).
fn keep_token_history() -> Vec<Message> {
  let bodies = [
    "xx",
    &"x".repeat(398),
    &"x".repeat(38),
    &"x".repeat(18),
    &"x".repeat(18),
  ];
  let spec: Vec<(String, &str)> = bodies
    .iter()
    .enumerate()
    .map(|(i, b)| (format!("c{i}"), *b))
    .collect();
  let spec: Vec<(&str, &str, &str)> = spec
    .iter()
    .map(|(id, b)| (id.as_str(), "search", *b))
    .collect();
  let msgs = agent(&spec);
  let per = ContextEditor::default()
    .count_tokens(&msgs, &Context::default())
    .unwrap()
    .messages;
  assert_eq!(
    [per[2], per[4], per[6], per[8], per[10]],
    [1, 100, 10, 5, 5]
  );
  msgs
}

#[test]
fn rule_2_3_keep_tokens_walks_newest_first_and_stops_at_first_misfit() {
  let msgs = keep_token_history();
  let keep = |budget: u64| {
    cleared(&plan(
      &editor(json!({ "trigger": { "messages": 1 }, "keep": { "tokens": budget } })),
      &msgs,
    ))
  };
  // 5 + 5 + 10 = 20, then the 100-token result does not fit: stop, although the oldest (1) would.
  assert_eq!(keep(21), vec![2, 4]);
  // Inclusive: a running sum equal to the budget fits.
  assert_eq!(keep(20), vec![2, 4]);
  assert_eq!(keep(19), vec![2, 4, 6]);
  assert_eq!(keep(4), vec![2, 4, 6, 8, 10]);
  assert_eq!(keep(0), vec![2, 4, 6, 8, 10]);
  assert_eq!(keep(1000), Vec::<usize>::new());
}

#[test]
fn rule_2_3_keep_tokens_counts_each_result_on_its_own() {
  // Each result is 3 + 2 = 5 chars: 2 tokens alone (LangChain's `countTokens([msg])`), while the
  // two together are ceil(10 / 4) = 3. A budget of 3 keeps one result, not two.
  let msgs = agent(&[("c0", "search", "abc"), ("c1", "search", "abc")]);
  let p = plan(
    &editor(json!({ "trigger": { "messages": 1 }, "keep": { "tokens": 3 } })),
    &msgs,
  );
  assert_eq!(cleared(&p), vec![2]);
  let p = plan(
    &editor(json!({ "trigger": { "messages": 1 }, "keep": { "tokens": 4 } })),
    &msgs,
  );
  assert!(cleared(&p).is_empty());
}

#[test]
fn rule_2_3_keep_fraction_with_known_limit_is_a_floored_token_budget() {
  let msgs = keep_token_history();
  let keep = |fraction: f64| {
    cleared(&plan_in(
      &editor(json!({ "trigger": { "messages": 1 }, "keep": { "fraction": fraction } })),
      &msgs,
      &ctx_max(1000),
    ))
  };
  assert_eq!(keep(0.0209), vec![2, 4], "floor(20.9) = 20");
  assert_eq!(keep(0.0199), vec![2, 4, 6], "floor(19.9) = 19");
  assert_eq!(keep(0.5), Vec::<usize>::new());
}

#[test]
fn rule_2_3_keep_fraction_without_limit_keeps_three() {
  let (msgs, r) = uniform(6, 20);
  let p = plan(
    &editor(json!({ "trigger": { "messages": 1 }, "keep": { "fraction": 0.5 } })),
    &msgs,
  );
  assert_eq!(cleared(&p), r[..3].to_vec());
  assert!(codes(&p.report).contains(&"max_input_tokens_unknown"));
  // A budget that floors to 0 also falls back to 3 (LangChain `DEFAULT_KEEP`).
  let p = plan_in(
    &editor(json!({ "trigger": { "messages": 1 }, "keep": { "fraction": 0.01 } })),
    &msgs,
    &ctx_max(50),
  );
  assert_eq!(cleared(&p), r[..3].to_vec());
}

// ---------------------------------------------------------------------------------------------
// §2.4 Clearing

#[test]
fn rule_2_4_clears_oldest_first_outside_the_window() {
  let (msgs, r) = uniform(4, 30);
  let p = plan(
    &editor(json!({ "trigger": { "messages": 1 }, "keep": { "messages": 1 } })),
    &msgs,
  );
  let order: Vec<usize> = p.report.cleared.iter().map(|c| c.index).collect();
  assert_eq!(order, r[..3].to_vec());
  assert_eq!(cleared(&p), order);
}

#[test]
fn rule_2_4_skips_already_cleared_results() {
  let (mut msgs, r) = uniform(4, 30);
  msgs[r[1]].cleared = true;
  let p = plan(
    &editor(json!({ "trigger": { "messages": 1 }, "keep": { "messages": 1 } })),
    &msgs,
  );
  assert_eq!(cleared(&p), vec![r[0], r[2]]);
  assert!(p.report.cleared.iter().all(|c| c.index != r[1]));
}

#[test]
fn rule_2_4_skips_excluded_tools() {
  let msgs = agent(&[
    ("c0", "search", "r0"),
    ("c1", "memory", "r1"),
    ("c2", "search", "r2"),
  ]);
  let p = plan(
    &editor(
      json!({ "trigger": { "messages": 1 }, "keep": { "messages": 0 }, "excludeTools": ["memory"] }),
    ),
    &msgs,
  );
  assert_eq!(cleared(&p), vec![2, 6]);
}

#[test]
fn rule_2_4_tool_message_name_wins_over_call_name() {
  // The call says `search`, the result says `memory`.
  let mut msgs = agent(&[("c0", "search", "r0"), ("c1", "search", "r1")]);
  msgs[2].name = Some("memory".into());
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 0 }, "excludeTools": ["memory"] }),
  );
  let p = plan(&e, &msgs);
  assert_eq!(cleared(&p), vec![4]);
  // Excluding the call's name does not protect a result that names itself otherwise.
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 0 }, "excludeTools": ["search"] }),
  );
  let p = plan(&e, &msgs);
  assert_eq!(cleared(&p), vec![2]);
  assert_eq!(p.report.cleared[0].tool_name, "memory");
}

#[test]
fn rule_2_4_empty_tool_message_name_falls_back_to_call_name() {
  let mut msgs = agent(&[
    ("c0", "memory", "r0"),
    ("c1", "memory", "r1"),
    ("c2", "search", "r2"),
  ]);
  msgs[2].name = None;
  msgs[4].name = Some(String::new());
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 0 }, "excludeTools": ["memory"] }),
  );
  let p = plan(&e, &msgs);
  assert_eq!(cleared(&p), vec![6]);
  let e = editor(json!({ "trigger": { "messages": 1 }, "keep": { "messages": 0 } }));
  let p = plan(&e, &msgs);
  let names: Vec<&str> = p
    .report
    .cleared
    .iter()
    .map(|c| c.tool_name.as_str())
    .collect();
  assert_eq!(names, vec!["memory", "memory", "search"]);
}

#[test]
fn rule_2_4_placeholder_and_metadata_marker() {
  let (msgs, r) = uniform(2, 30);
  let p = plan(
    &editor(json!({ "trigger": { "messages": 1 }, "keep": { "messages": 1 } })),
    &msgs,
  );
  assert_eq!(
    p.ops,
    vec![Op::ClearToolResult {
      index: r[0],
      placeholder: DEFAULT_PLACEHOLDER.into(),
      strategy: "clear_tool_uses",
    }]
  );
  assert_eq!(DEFAULT_PLACEHOLDER, "[cleared]");
  let p = plan(
    &editor(
      json!({ "trigger": { "messages": 1 }, "keep": { "messages": 1 }, "placeholder": "<gone ✂>" }),
    ),
    &msgs,
  );
  let Op::ClearToolResult {
    placeholder,
    strategy,
    ..
  } = &p.ops[0]
  else {
    panic!("expected a clear op, got {:?}", p.ops)
  };
  assert_eq!((&**placeholder, *strategy), ("<gone ✂>", "clear_tool_uses"));
  // The reference application: content replaced, marker set, identity fields untouched.
  let mut with_extras = msgs.clone();
  with_extras[r[0]].images = 2;
  with_extras[r[0]].other = Some(r#"{"type":"json","json":{"rows":[1,2,3]}}"#.into());
  let out = p.apply(&with_extras);
  let m = &out[r[0]];
  assert_eq!(m.content.as_deref(), Some("<gone ✂>"));
  assert!(m.cleared);
  assert_eq!((m.images, m.other.as_deref()), (0, None));
  assert_eq!(m.tool_call_id.as_deref(), Some("c0"));
  assert_eq!(m.name.as_deref(), Some("search"));
  assert_eq!(out[r[1]], msgs[r[1]]);
  assert_eq!(
    msgs[r[0]].content.as_deref(),
    Some("x".repeat(30).as_str()),
    "input untouched"
  );
}

// ---------------------------------------------------------------------------------------------
// §2.5 clearToolInputs

#[test]
fn rule_2_5_clear_tool_inputs_clears_only_the_cleared_call() {
  let msgs = vec![
    Message::user("read both"),
    Message::assistant(
      "reading",
      &[
        ("a", "read", r#"{"path":"a.rs"}"#),
        ("b", "read", r#"{"path":"b.rs"}"#),
      ],
    ),
    Message::tool("a", "read", "fn a() {}"),
    Message::tool("b", "read", "fn b() {}"),
  ];
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 1 }, "clearToolInputs": true }),
  );
  let p = plan(&e, &msgs);
  assert_eq!(cleared(&p), vec![2]);
  assert_eq!(
    inputs(&p),
    vec![(1, vec![0], strings(&["a"]), strings(&["a"]))]
  );
  assert_eq!(p.report.cleared_tool_inputs.len(), 1);
  assert_eq!(
    (
      p.report.cleared_tool_inputs[0].index,
      p.report.cleared_tool_inputs[0].call_index,
      p.report.cleared_tool_inputs[0].tool_call_id.as_str()
    ),
    (1, 0, "a")
  );
  let out = p.apply(&msgs);
  assert_eq!(out[1].tool_calls[0].args.as_deref(), Some("{}"));
  assert_eq!(
    out[1].tool_calls[1].args.as_deref(),
    Some(r#"{"path":"b.rs"}"#)
  );
  assert_eq!(
    out[1].content.as_deref(),
    Some("reading"),
    "the AI message's content stays"
  );
  assert_eq!(out[1].cleared_tool_inputs, strings(&["a"]));
  // Off by default.
  let p = plan(
    &editor(json!({ "trigger": { "messages": 1 }, "keep": { "messages": 1 } })),
    &msgs,
  );
  assert!(inputs(&p).is_empty());
  assert!(p.report.cleared_tool_inputs.is_empty());
}

#[test]
fn rule_2_5_duplicate_call_ids_clear_only_the_matched_call() {
  // §7.6: two calls sharing one id in one AI message; clearing the first result's inputs must not
  // wipe the kept sibling's arguments.
  let msgs = vec![
    Message::user("read both"),
    Message::assistant(
      "",
      &[
        ("dup", "read", r#"{"path":"a.rs"}"#),
        ("dup", "read", r#"{"path":"b.rs"}"#),
      ],
    ),
    Message::tool("dup", "read", "fn a() {}"),
    Message::tool("dup", "read", "fn b() {}"),
  ];
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 1 }, "clearToolInputs": true }),
  );
  let p = plan(&e, &msgs);
  assert_eq!(cleared(&p), vec![2]);
  assert_eq!(
    inputs(&p),
    vec![(1, vec![0], strings(&["dup"]), strings(&["dup"]))]
  );
  let out = p.apply(&msgs);
  assert_eq!(out[1].tool_calls[0].args.as_deref(), Some("{}"));
  assert_eq!(
    out[1].tool_calls[1].args.as_deref(),
    Some(r#"{"path":"b.rs"}"#)
  );
  // Both cleared: both calls, one id in the de-duplicated list.
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 0 }, "clearToolInputs": true }),
  );
  let p = plan(&e, &msgs);
  assert_eq!(
    inputs(&p),
    vec![(1, vec![0, 1], strings(&["dup", "dup"]), strings(&["dup"]))]
  );
}

#[test]
fn rule_2_5_cleared_tool_inputs_is_a_sorted_deduplicated_union() {
  let mut ai = Message::assistant(
    "",
    &[
      ("m", "read", r#"{"p":1}"#),
      ("b", "read", r#"{"p":2}"#),
      ("k", "read", r#"{"p":3}"#),
    ],
  );
  ai.cleared_tool_inputs = strings(&["zeta", "b"]);
  let msgs = vec![
    Message::user("go"),
    ai,
    Message::tool("m", "read", "1"),
    Message::tool("b", "read", "2"),
    Message::tool("k", "read", "3"),
  ];
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 1 }, "clearToolInputs": true }),
  );
  let p = plan(&e, &msgs);
  assert_eq!(
    inputs(&p),
    vec![(
      1,
      vec![0, 1],
      strings(&["m", "b"]),
      strings(&["b", "m", "zeta"])
    )]
  );
}

#[test]
fn rule_2_5_clear_tool_inputs_one_op_per_ai_message() {
  let msgs = agent(&[
    ("c0", "search", "r0"),
    ("c1", "search", "r1"),
    ("c2", "search", "r2"),
  ]);
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 1 }, "clearToolInputs": true }),
  );
  let p = plan(&e, &msgs);
  assert_eq!(
    inputs(&p),
    vec![
      (1, vec![0], strings(&["c0"]), strings(&["c0"])),
      (3, vec![0], strings(&["c1"]), strings(&["c1"])),
    ]
  );
  // Ops sorted by index: AI message 1, its result 2, AI message 3, its result 4.
  let idx: Vec<usize> = p.ops.iter().map(Op::index).collect();
  assert_eq!(idx, vec![1, 2, 3, 4]);
}

#[test]
fn rule_2_5_clear_tool_inputs_as_a_list_of_tool_names() {
  let msgs = agent(&[
    ("c0", "search", "r0"),
    ("c1", "read", "r1"),
    ("c2", "search", "r2"),
  ]);
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 0 }, "clearToolInputs": ["search"] }),
  );
  let p = plan(&e, &msgs);
  assert_eq!(cleared(&p), vec![2, 4, 6]);
  let ai: Vec<usize> = inputs(&p).iter().map(|x| x.0).collect();
  assert_eq!(ai, vec![1, 5]);
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 0 }, "clearToolInputs": [] }),
  );
  assert!(inputs(&plan(&e, &msgs)).is_empty());
}

// ---------------------------------------------------------------------------------------------
// §2.6 clearAtLeast

/// Five results of 100 tokens each (398 chars + 2-char id); clearing one frees ~97 tokens.
fn five_hundreds() -> (Vec<Message>, Vec<usize>) {
  uniform(5, 398)
}

fn clear_at_least(options: Value) -> Vec<usize> {
  let (msgs, _) = five_hundreds();
  let p = plan(&editor(options), &msgs);
  assert_eq!(
    p.report.applied_edits[0].cleared_tool_uses as usize,
    p.report.cleared.len()
  );
  p.report.cleared.iter().map(|c| c.index).collect()
}

#[test]
fn rule_2_6_clear_at_least_adds_clearing_newest_kept_first() {
  // keep 3 clears 2 and 4 (~195 tokens); 250 needs one more, newest kept first (10).
  assert_eq!(
    clear_at_least(
      json!({ "trigger": { "messages": 1 }, "keep": { "messages": 3 }, "clearAtLeast": 250 })
    ),
    vec![2, 4, 10]
  );
  assert_eq!(
    clear_at_least(
      json!({ "trigger": { "messages": 1 }, "keep": { "messages": 3 }, "clearAtLeast": 300 })
    ),
    vec![2, 4, 10, 8]
  );
  // Already satisfied by the normal pass: nothing more.
  assert_eq!(
    clear_at_least(
      json!({ "trigger": { "messages": 1 }, "keep": { "messages": 3 }, "clearAtLeast": 150 })
    ),
    vec![2, 4]
  );
  // Never more than every kept result.
  assert_eq!(
    clear_at_least(
      json!({ "trigger": { "messages": 1 }, "keep": { "messages": 3 }, "clearAtLeast": 100000 })
    ),
    vec![2, 4, 10, 8, 6]
  );
}

#[test]
fn rule_2_6_clear_at_least_skips_excluded_and_cleared_kept_results() {
  let (mut msgs, _) = five_hundreds();
  msgs[10].name = Some("memory".into());
  msgs[8].cleared = true;
  let e = editor(json!({
    "trigger": { "messages": 1 }, "keep": { "messages": 3 }, "clearAtLeast": 250, "excludeTools": ["memory"]
  }));
  let p = plan(&e, &msgs);
  let order: Vec<usize> = p.report.cleared.iter().map(|c| c.index).collect();
  assert_eq!(order, vec![2, 4, 6]);
}

#[test]
fn rule_2_6_clear_at_least_quirk_no_effect_when_every_result_is_kept() {
  // LangChain: `remainingCandidates = keep > 0 && keep < candidates ? … : []`.
  for keep in [5, 6, 100] {
    assert_eq!(
      clear_at_least(
        json!({ "trigger": { "messages": 1 }, "keep": { "messages": keep }, "clearAtLeast": 1000 })
      ),
      Vec::<usize>::new(),
      "keep {keep}"
    );
  }
  // keep.tokens that keeps everything behaves the same.
  assert_eq!(
    clear_at_least(
      json!({ "trigger": { "messages": 1 }, "keep": { "tokens": 100000 }, "clearAtLeast": 1000 })
    ),
    Vec::<usize>::new()
  );
}

#[test]
fn rule_2_6_clear_at_least_quirk_no_effect_when_keep_is_zero() {
  let (mut msgs, _) = five_hundreds();
  msgs[10].name = Some("memory".into());
  for options in [
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 0 }, "excludeTools": ["memory"], "clearAtLeast": 100000 }),
    json!({ "trigger": { "messages": 1 }, "keep": { "tokens": 0 }, "excludeTools": ["memory"], "clearAtLeast": 100000 }),
  ] {
    let with = plan(&editor(options.clone()), &msgs);
    let mut base = options;
    base.as_object_mut().unwrap().remove("clearAtLeast");
    let without = plan(&editor(base), &msgs);
    assert_eq!(with.ops, without.ops);
    assert_eq!(cleared(&with), vec![2, 4, 6, 8]);
  }
}

#[test]
fn rule_2_6_clear_at_least_needs_the_trigger() {
  assert_eq!(
    clear_at_least(
      json!({ "trigger": { "messages": 1000 }, "keep": { "messages": 3 }, "clearAtLeast": 250 })
    ),
    Vec::<usize>::new()
  );
}

// ---------------------------------------------------------------------------------------------
// §2.7 Approx counting

#[test]
fn rule_2_7_approx_is_ceil_of_total_chars_over_four() {
  // Over the whole request, not a sum of per-message ceilings.
  let msgs = vec![Message::user("a"), Message::user("b"), Message::user("c")];
  let c = ContextEditor::default()
    .count_tokens(&msgs, &Context::default())
    .unwrap();
  assert_eq!(c.total, 1);
  assert_eq!(c.messages, vec![1, 1, 1]);
  assert_eq!(c.method, "approx");
  assert_eq!(
    c.encoding,
    Some("o200k_base"),
    "the resolved encoding, as the README lists it"
  );
  assert_eq!(approx(&[Message::user("x".repeat(8))]), 2);
  assert_eq!(approx(&[Message::user("x".repeat(9))]), 3);
  assert_eq!(approx(&[]), 0);
  assert_eq!(approx(&[Message::user("")]), 0);
}

#[test]
fn rule_2_7_approx_counts_utf16_code_units() {
  // 5 emoji: 5 chars, 20 UTF-8 bytes, 10 UTF-16 code units → ceil(10 / 4) = 3.
  assert_eq!(approx(&[Message::user("😀".repeat(5))]), 3);
  // BMP CJK: one unit each.
  assert_eq!(approx(&[Message::user("日本語テキスト")]), 2);
  let mut m = Message::user("");
  m.content = None;
  m.content_length = Some(13);
  assert_eq!(approx(&[m]), 4, "contentLength stands in for content");
}

#[test]
fn rule_2_7_approx_counts_tool_calls_json() {
  let ai = Message::assistant("hi", &[("c1", "search", r#"{"q":"x"}"#)]);
  let json = r#"[{"id":"c1","name":"search","args":{"q":"x"}}]"#;
  let chars = 2 + json.len() as u64;
  assert_eq!(approx(std::slice::from_ref(&ai)), chars.div_ceil(4));
  // Two calls: comma-separated in one array.
  let ai2 = Message::assistant("", &[("c1", "a", "{}"), ("c2", "b", "{}")]);
  let json2 = r#"[{"id":"c1","name":"a","args":{}},{"id":"c2","name":"b","args":{}}]"#;
  assert_eq!(approx(&[ai2]), (json2.len() as u64).div_ceil(4));
  // The caller's exact serialization length wins (LangChain's calls also carry `"type":"tool_call"`).
  let mut exact = ai.clone();
  exact.tool_calls_length = Some(101);
  assert_eq!(approx(&[exact]), (2u64 + 101).div_ceil(4));
  // Args given only by length.
  let mut by_len = ai;
  by_len.tool_calls[0] = ToolCall {
    id: "c1".into(),
    name: "search".into(),
    args: None,
    args_length: Some(9),
  };
  assert_eq!(approx(&[by_len]), chars.div_ceil(4));
}

#[test]
fn rule_2_7_approx_counts_tool_call_id_but_not_names() {
  // "out" + "call_abc" = 11 chars → 3 tokens.
  assert_eq!(approx(&[Message::tool("call_abc", "search", "out")]), 3);
  assert_eq!(approx(&[Message::tool("call_abc", "", "out")]), 3);
  let mut named = Message::user("x".repeat(8));
  named.name = Some("a_very_long_user_name".into());
  assert_eq!(approx(&[named]), 2);
}

#[test]
fn rule_2_7_non_text_blocks_count() {
  // Deliberate difference (§7.9): serialized non-text blocks and images count.
  let mut m = Message::tool("c", "t", "");
  m.other = Some("y".repeat(399));
  assert_eq!(approx(&[m.clone()]), 100);
  m.other = None;
  m.images = 2;
  assert_eq!(approx(&[m]), 2 * IMAGE_TOKENS + 1);
}

// ---------------------------------------------------------------------------------------------
// Deliberate difference: system prompt and tools count

#[test]
fn system_prompt_and_tools_count_toward_trigger() {
  let (msgs, r) = uniform(3, 40);
  let t = approx(&msgs);
  let system = "s".repeat(400);
  let tool = r#"{"type":"function","function":{"name":"search","parameters":{}}}"#;
  let context = Context {
    system_prompt: Some(system.clone()),
    tools: vec![tool.to_owned()],
    ..Context::default()
  };
  let e = editor(json!({ "trigger": { "tokens": t + 50 }, "keep": { "messages": 1 } }));
  assert!(
    !plan(&e, &msgs).report.triggered,
    "messages alone are under"
  );
  let p = plan_in(&e, &msgs, &context);
  assert!(
    p.report.triggered,
    "the model sees the system prompt and tools"
  );
  assert_eq!(cleared(&p), r[..2].to_vec());
  let c = e.count_tokens(&msgs, &context).unwrap();
  let fixed_chars = 400 + tool.len() as u64;
  assert_eq!(c.fixed, fixed_chars.div_ceil(4));
  assert!(c.total >= t + 400 / 4);
  assert_eq!(p.report.tokens_before, c.total);
}

#[test]
fn system_prompt_and_tools_count_in_model_mode() {
  let e = editor(json!({ "tokenCountMethod": "model" }));
  let msgs = vec![Message::user("hello world")];
  let tool = r#"{"name":"search"}"#;
  let context = Context {
    system_prompt: Some("You are a helpful assistant.".into()),
    tools: vec![tool.into()],
    ..Context::default()
  };
  let c = e.count_tokens(&msgs, &context).unwrap();
  // system: 3 framing + 1 role + 6 text; tool: its JSON tokens + 3.
  let tool_tokens = context_editor_core::Encoding::O200kBase.count(tool);
  assert_eq!(
    c.fixed,
    MESSAGE_OVERHEAD + 1 + 6 + tool_tokens + TOOL_DEFINITION_OVERHEAD
  );
  assert_eq!(c.total, c.fixed + 6 + REPLY_PRIMING);
}

// ---------------------------------------------------------------------------------------------
// §7.3 per-result keep budget counts the result alone (model mode)

#[test]
fn defect_7_3_keep_tokens_budget_ignores_system_prompt_in_model_mode() {
  let e = editor(
    json!({ "tokenCountMethod": "model", "trigger": { "messages": 1 }, "keep": { "tokens": 0 } }),
  );
  let (msgs, r) = uniform(5, 60);
  let context = Context {
    system_prompt: Some("You are a careful agent. ".repeat(200)),
    ..Context::default()
  };
  let per = e.count_tokens(&msgs, &context).unwrap().messages;
  let budget = per[r[2]] + per[r[3]] + per[r[4]];
  assert!(e.count_tokens(&msgs, &context).unwrap().fixed > budget * 5);
  let e = editor(
    json!({ "tokenCountMethod": "model", "trigger": { "messages": 1 }, "keep": { "tokens": budget } }),
  );
  let p = plan_in(&e, &msgs, &context);
  assert_eq!(cleared(&p), r[..2].to_vec(), "3 of 3 kept, not 0 of 3");
  let e = editor(
    json!({ "tokenCountMethod": "model", "trigger": { "messages": 1 }, "keep": { "tokens": budget - 1 } }),
  );
  assert_eq!(cleared(&plan_in(&e, &msgs, &context)), r[..3].to_vec());
}

// ---------------------------------------------------------------------------------------------
// Report

#[test]
fn report_tokens_before_and_after_match_recounts() {
  for method in ["approx", "model"] {
    let (msgs, _) = uniform(6, 120);
    let e = editor(json!({
      "tokenCountMethod": method, "trigger": { "messages": 1 }, "keep": { "messages": 2 }, "clearToolInputs": true
    }));
    let context = Context {
      system_prompt: Some("be brief".into()),
      ..Context::default()
    };
    let p = plan_in(&e, &msgs, &context);
    assert_eq!(
      p.report.tokens_before,
      total(&e, &msgs, &context),
      "{method}"
    );
    assert_eq!(
      p.report.tokens_after,
      total(&e, &p.apply(&msgs), &context),
      "{method}"
    );
    assert!(p.report.tokens_after < p.report.tokens_before);
    assert_eq!(
      (p.report.messages_before, p.report.messages_after),
      (13, 13)
    );
    assert_eq!(p.report.token_count_method, method);
    assert_eq!(p.report.encoding, Some("o200k_base"), "{method}");
  }
}

#[test]
fn report_tokens_freed_sum_equals_applied_edit_cleared_input_tokens() {
  for inputs_too in [false, true] {
    for method in ["approx", "model"] {
      let (mut msgs, _) = uniform(6, 117);
      msgs.insert(3, Message::tool("orphan", "search", "z".repeat(500)));
      let e = editor(json!({
        "tokenCountMethod": method, "trigger": { "messages": 1 }, "keep": { "messages": 2 },
        "clearToolInputs": inputs_too, "clearAtLeast": 1
      }));
      let p = plan(&e, &msgs);
      let applied = &p.report.applied_edits[0];
      assert_eq!(applied.edit_type, "clear_tool_uses");
      assert!(applied.triggered);
      assert_eq!(applied.cleared_tool_uses, 4);
      let sum: u64 = p.report.cleared.iter().map(|c| c.tokens_freed).sum();
      assert_eq!(
        sum, applied.cleared_input_tokens,
        "{method} inputs={inputs_too}"
      );
      assert!(p.report.cleared.iter().all(|c| c.tokens_freed > 0));
      // before − after = orphan removal + what the edit freed.
      let no_orphan: Vec<Message> = msgs
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 3)
        .map(|(_, m)| m.clone())
        .collect();
      let after_orphans = total(&e, &no_orphan, &Context::default());
      assert_eq!(
        after_orphans - p.report.tokens_after,
        applied.cleared_input_tokens
      );
      assert!(p.report.tokens_before > after_orphans);
    }
  }
}

#[test]
fn report_clearing_inputs_frees_more() {
  let (msgs, _) = uniform(4, 100);
  let freed = |inputs: bool| {
    plan(
      &editor(json!({ "trigger": { "messages": 1 }, "keep": { "messages": 1 }, "clearToolInputs": inputs })),
      &msgs,
    )
    .report
    .applied_edits[0]
      .cleared_input_tokens
  };
  assert!(freed(true) > freed(false));
}

#[test]
fn report_still_triggered_when_non_tool_text_exceeds_trigger() {
  // §7.10: the user's own text is over budget; clearing every result cannot help, and the report says so.
  let mut msgs = vec![Message::user("u".repeat(4000))];
  msgs.extend(uniform(3, 100).0.into_iter().skip(1));
  let e = editor(json!({ "trigger": { "tokens": 500 }, "keep": { "messages": 0 } }));
  let p = plan(&e, &msgs);
  assert!(p.report.triggered);
  assert_eq!(cleared(&p).len(), 3);
  assert!(p.report.still_triggered);
  assert!(codes(&p.report).contains(&"still_over_trigger"));
  // When clearing is enough, it is not.
  let t = approx(&msgs);
  let e = editor(json!({ "trigger": { "tokens": t }, "keep": { "messages": 0 } }));
  let p = plan(&e, &msgs);
  assert!(p.report.triggered);
  assert!(p.report.tokens_after < t);
  assert!(!p.report.still_triggered);
  assert!(!codes(&p.report).contains(&"still_over_trigger"));
  // Not triggered at all: not "still" triggered.
  let p = plan(&ContextEditor::default(), &msgs);
  assert!(!p.report.triggered && !p.report.still_triggered);
}

#[test]
fn report_over_max_input_tokens() {
  let (msgs, _) = uniform(3, 400);
  let e = editor(json!({ "trigger": { "tokens": 1000000 } }));
  let p = plan_in(&e, &msgs, &ctx_max(100));
  assert!(p.report.over_max_input_tokens);
  assert!(codes(&p.report).contains(&"over_max_input_tokens"));
  let p = plan_in(&e, &msgs, &ctx_max(100_000));
  assert!(!p.report.over_max_input_tokens);
  assert!(p.report.warnings.is_empty());
}

#[test]
fn report_warning_codes() {
  // unknown_model: only in model mode (approx does not need an encoding).
  let msgs = vec![Message::user("hi")];
  let deepseek = Context {
    model: Some("deepseek-chat".into()),
    ..Context::default()
  };
  let p = plan_in(
    &editor(json!({ "tokenCountMethod": "model" })),
    &msgs,
    &deepseek,
  );
  assert_eq!(codes(&p.report), vec!["unknown_model"]);
  assert_eq!(p.report.encoding, Some("o200k_base"));
  assert_eq!(
    p.report.max_input_tokens, None,
    "no guessed 4,097-token window"
  );
  assert!(plan_in(&ContextEditor::default(), &msgs, &deepseek)
    .report
    .warnings
    .is_empty());
  // A known model picks its encoding.
  let gpt4 = Context {
    model: Some("gpt-4".into()),
    ..Context::default()
  };
  let p = plan_in(
    &editor(json!({ "tokenCountMethod": "model" })),
    &msgs,
    &gpt4,
  );
  assert_eq!(p.report.encoding, Some("cl100k_base"));
  assert!(p.report.warnings.is_empty());
  // `encoding` wins over the model name.
  let p = plan_in(
    &editor(json!({ "tokenCountMethod": "model", "encoding": "o200k_base" })),
    &msgs,
    &gpt4,
  );
  assert_eq!(p.report.encoding, Some("o200k_base"));
  // dangling_tool_call for a call with no result.
  let msgs = vec![
    Message::user("go"),
    Message::assistant("", &[("x", "t", "{}")]),
  ];
  let p = plan(&ContextEditor::default(), &msgs);
  assert_eq!(codes(&p.report), vec!["dangling_tool_call"]);
  assert_eq!(p.report.warnings[0].index, Some(1));
  assert!(p.ops.is_empty(), "dangling calls are reported, not edited");
}

#[test]
fn report_pipeline_has_one_applied_edit_per_edit() {
  let (msgs, r) = uniform(5, 40);
  let e = editor(json!({ "edits": [
    { "type": "clear_tool_uses", "trigger": { "messages": 1000 } },
    { "type": "clear_tool_uses", "trigger": { "messages": 1 }, "keep": { "messages": 4 } },
    { "type": "clear_tool_uses", "trigger": { "messages": 1 }, "keep": { "messages": 2 }, "placeholder": "[2nd]" }
  ] }));
  let p = plan(&e, &msgs);
  let applied: Vec<(bool, u64)> = p
    .report
    .applied_edits
    .iter()
    .map(|a| (a.triggered, a.cleared_tool_uses))
    .collect();
  assert_eq!(applied, vec![(false, 0), (true, 1), (true, 2)]);
  assert_eq!(cleared(&p), r[..3].to_vec());
  // The first clearing edit's placeholder stays on what it cleared (the second skips it).
  let placeholders: Vec<&str> = p
    .ops
    .iter()
    .filter_map(|op| match op {
      Op::ClearToolResult { placeholder, .. } => Some(&**placeholder),
      _ => None,
    })
    .collect();
  assert_eq!(placeholders, vec!["[cleared]", "[2nd]", "[2nd]"]);
}

// ---------------------------------------------------------------------------------------------
// Model-mode token counts pinned (o200k_base, cl100k_base)

/// A short weather-agent exchange; literal per-piece counts below were cross-checked with the
/// `tiktoken` npm package (OpenAI's tiktoken compiled to WASM), independent of `tiktoken-rs`.
fn weather() -> Vec<Message> {
  vec![
    Message::system("You are a helpful assistant."),
    Message::user("What is the weather in Paris today?"),
    Message::assistant(
      "I will check.",
      &[(
        "call_1",
        "get_weather",
        r#"{"city":"Paris","unit":"celsius"}"#,
      )],
    ),
    Message::tool(
      "call_1",
      "get_weather",
      "Sunny, 24°C, light wind from the west. 日本語のテキスト 😀",
    ),
  ]
}

#[test]
fn model_counts_pinned_o200k_base() {
  let e = editor(json!({ "tokenCountMethod": "model", "encoding": "o200k_base" }));
  let c = e.count_tokens(&weather(), &Context::default()).unwrap();
  // Pieces (o200k_base): role names 1 each; "You are a helpful assistant." 6;
  // "What is the weather in Paris today?" 8; "I will check." 4; "get_weather" 2;
  // the args JSON 10; the result text 19.
  let m = MESSAGE_OVERHEAD;
  let expected = [
    m + 1 + 6,
    m + 1 + 8,
    m + 1 + 4 + TOOL_CALL_OVERHEAD + 2 + 10,
    m + 1 + 19 + NAME_OVERHEAD + 2,
  ];
  assert_eq!(c.messages, expected);
  assert_eq!(c.messages, [10, 12, 21, 26]);
  assert_eq!(c.total, 10 + 12 + 21 + 26 + REPLY_PRIMING);
  assert_eq!(c.total, 72);
  assert_eq!((c.method, c.encoding), ("model", Some("o200k_base")));
  // The model name alone picks the same encoding.
  let gpt4o = Context {
    model: Some("gpt-4o".into()),
    ..Context::default()
  };
  let by_model = editor(json!({ "tokenCountMethod": "model" }));
  assert_eq!(by_model.count_tokens(&weather(), &gpt4o).unwrap().total, 72);
}

#[test]
fn model_counts_pinned_cl100k_base() {
  let e = editor(json!({ "tokenCountMethod": "model", "encoding": "cl100k_base" }));
  let c = e.count_tokens(&weather(), &Context::default()).unwrap();
  // Same pieces in cl100k_base except the result text: 22 tokens.
  assert_eq!(c.messages, [10, 12, 21, 29]);
  assert_eq!(c.total, 75);
  let gpt4 = Context {
    model: Some("gpt-4".into()),
    ..Context::default()
  };
  assert_eq!(
    editor(json!({ "tokenCountMethod": "model" }))
      .count_tokens(&weather(), &gpt4)
      .unwrap()
      .total,
    75
  );
}

#[test]
fn model_counts_pinned_after_clearing() {
  // Clearing the result and its call's inputs, in exact tokens: "[cleared]" is 4 tokens, "{}" 1.
  let e = editor(json!({
    "tokenCountMethod": "model", "encoding": "o200k_base",
    "trigger": { "messages": 1 }, "keep": { "messages": 0 }, "clearToolInputs": true
  }));
  let p = plan(&e, &weather());
  assert_eq!(p.report.tokens_before, 72);
  // result: 3 + 1 + 4 + 1 + 2 = 11 (was 26); call args: 10 → 1.
  assert_eq!(p.report.tokens_after, 72 - (26 - 11) - (10 - 1));
  assert_eq!(p.report.tokens_after, 48);
  assert_eq!(p.report.cleared[0].tokens_freed, 24);
  let c = e
    .count_tokens(&p.apply(&weather()), &Context::default())
    .unwrap();
  assert_eq!(c.messages, [10, 12, 12, 11]);
}

#[test]
fn model_counts_arguments_of_tool_calls() {
  // §7.4: tool-call arguments count in full (LangChain's counter counted 26 KB of them as 7 tokens).
  let e = editor(json!({ "tokenCountMethod": "model" }));
  let big = format!(r#"{{"text":"{}"}}"#, "lorem ipsum ".repeat(2000));
  let msgs = vec![Message::assistant("", &[("c", "write", big.as_str())])];
  let c = e.count_tokens(&msgs, &Context::default()).unwrap();
  assert!(c.messages[0] > 4000, "{}", c.messages[0]);
}

// ---------------------------------------------------------------------------------------------
// Purity (§7.1) and determinism

#[test]
fn planning_never_mutates_and_is_deterministic() {
  let (msgs, _) = uniform(6, 50);
  let copy = msgs.clone();
  let e = editor(
    json!({ "trigger": { "messages": 1 }, "keep": { "messages": 2 }, "clearToolInputs": true }),
  );
  let a = plan(&e, &msgs);
  let b = plan(&e, &msgs);
  let c = plan(
    &editor(
      json!({ "trigger": { "messages": 1 }, "keep": { "messages": 2 }, "clearToolInputs": true }),
    ),
    &msgs,
  );
  assert_eq!(msgs, copy);
  assert_eq!(a, b);
  assert_eq!(a, c);
  let out = a.apply(&msgs);
  assert_eq!(msgs, copy, "apply returns new messages");
  assert_ne!(out, msgs);
}

// ---------------------------------------------------------------------------------------------
// Caller-supplied counts (the host's own counter, like LangChain's `tokenCounter`)

#[test]
fn caller_supplied_counts_replace_counting() {
  for method in ["approx", "model"] {
    let (mut msgs, r) = uniform(3, 10);
    // The host says the first result is 1,000 tokens; the editor believes it.
    msgs[r[0]].tokens = Some(1000);
    let e = editor(
      json!({ "tokenCountMethod": method, "trigger": { "tokens": 1000 }, "keep": { "messages": 2 } }),
    );
    let c = e.count_tokens(&msgs, &Context::default()).unwrap();
    assert_eq!(c.messages[r[0]], 1000, "{method}");
    let p = plan(&e, &msgs);
    assert!(p.report.triggered, "{method}");
    assert_eq!(cleared(&p), vec![r[0]]);
    // Once cleared, the result is measured again (the supplied count described the old content).
    assert!(p.report.cleared[0].tokens_freed >= 990, "{method}");
    assert!(p.report.tokens_after < 100, "{method}");
  }
}

#[test]
fn report_names_the_encoding_in_every_counting_mode_and_on_every_path() {
  // The README lists `encoding` in every report: the encoding resolved for the call (`encoding`,
  // else the model's, else o200k_base), approx mode included; plans, sessions and counts agree.
  let msgs = vec![Message::user("hello"), Message::assistant("hi", &[])];
  let gpt4 = Context {
    model: Some("gpt-4".into()),
    ..Context::default()
  };
  for method in ["approx", "model", "estimate"] {
    let cases = [
      (
        json!({ "tokenCountMethod": method }),
        Context::default(),
        "o200k_base",
      ),
      (
        json!({ "tokenCountMethod": method }),
        gpt4.clone(),
        "cl100k_base",
      ),
      (
        json!({ "tokenCountMethod": method, "encoding": "p50k_base" }),
        gpt4.clone(),
        "p50k_base",
      ),
    ];
    for (options, ctx, want) in cases {
      let e = editor(options);
      let at = format!("{method}, model {:?}", ctx.model);
      assert_eq!(
        plan_in(&e, &msgs, &ctx).report.encoding,
        Some(want),
        "plan: {at}"
      );
      assert_eq!(
        e.count_tokens(&msgs, &ctx).unwrap().encoding,
        Some(want),
        "count: {at}"
      );
      let first = e
        .plan_session(7, 0, msgs.clone(), &ctx)
        .unwrap()
        .expect("new session");
      assert_eq!(first.report.encoding, Some(want), "session: {at}");
      let next = e
        .plan_session(7, msgs.len(), vec![Message::user("more")], &ctx)
        .unwrap()
        .expect("held session");
      assert_eq!(next.report.encoding, Some(want), "session, next call: {at}");
    }
  }
}
