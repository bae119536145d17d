//! §2.1 orphans are removed first, always; §2.2 when the edit triggers (tokens, messages,
//! fractions of the input limit, tool uses; ANDed keys, ORed lists).

use super::*;

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
