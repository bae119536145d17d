//! `summarize` planning (§3, the DeepAgents defaults, CE Node SUMMARIZING): when it fires and how
//! much recent history it keeps (messages, tokens, a fraction of the limit, turns).

use super::*;

// ---------------------------------------------------------------------------------------------
// summarize planning (SEMANTICS §3, DeepAgents defaults, CE Node SUMMARIZING)

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
