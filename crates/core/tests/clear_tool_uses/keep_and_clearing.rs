//! §2.3 which results are candidates and which the keep window protects (messages, tokens,
//! fraction); §2.4 clearing oldest first, skipping cleared and excluded results, the placeholder.

use super::*;

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
  assert_eq!(&*p.report.cleared[0].tool_name, "memory");
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
  let names: Vec<&str> = p.report.cleared.iter().map(|c| &*c.tool_name).collect();
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
