//! Cache breakpoints (the end, the boundaries, the previous request's boundary, at most four
//! counting those in use) and the `stable` options' validation, with paths.

use super::*;

#[test]
fn breakpoints_mark_the_end_and_the_boundaries() {
  let e = editor(json!({
    "trigger": { "tokens": 2000 }, "keep": { "messages": 3 },
    "stable": { "stepResults": 5 }, "cacheBreakpoints": true
  }));
  let h = run(40, 400);
  let seen = before_call(&h, 40);
  let p = plan(&e, seen);
  let c = cleared(&p);
  let b = breakpoints(&p);
  assert_eq!(c.len(), 35);
  // End, current boundary (35th result), previous step's boundary (30th result).
  assert_eq!(b, vec![c[29], c[34], seen.len() - 1]);
  // Breakpoints change no content: the applied output equals the plan without them.
  let without: Vec<Op> = p
    .ops
    .iter()
    .filter(|op| !matches!(op, Op::CacheBreakpoint { .. }))
    .cloned()
    .collect();
  let bare = EditPlan {
    ops: without,
    ..p.clone()
  };
  assert_eq!(bare.apply(seen), p.apply(seen));
  // Sorted by index, after the clear of the same message.
  let at = p
    .ops
    .iter()
    .position(|op| matches!(op, Op::CacheBreakpoint { index } if *index == c[34]))
    .unwrap();
  assert!(matches!(p.ops[at - 1], Op::ClearToolResult { index, .. } if index == c[34]));
}

#[test]
fn breakpoints_stay_within_four_counting_those_in_use() {
  let e = editor(json!({
    "trigger": { "tokens": 2000 }, "keep": { "messages": 3 },
    "stable": { "stepResults": 5 }, "cacheBreakpoints": "anthropic"
  }));
  let h = run(40, 400);
  let seen = before_call(&h, 40);
  for (in_use, want) in [(0, 3), (1, 3), (2, 2), (3, 1), (4, 0), (9, 0)] {
    let c = Context {
      cache_breakpoints_in_use: in_use,
      ..Context::default()
    };
    let b = breakpoints(&plan_in(&e, seen, &c));
    assert_eq!(b.len(), want, "{in_use} in use");
    if want > 0 {
      assert!(b.contains(&(seen.len() - 1)), "the end comes first");
    }
  }
  // Off by default; without clearing only the end is marked.
  assert!(breakpoints(&plan(&stable_editor(), seen)).is_empty());
  let small = before_call(&h, 3);
  assert_eq!(breakpoints(&plan(&e, small)), vec![small.len() - 1]);
}

#[test]
fn options_are_validated_with_paths() {
  let err = |v: Value| ContextEditor::from_json(&v).unwrap_err().to_string();
  assert_eq!(
    err(json!({ "stable": 5 })),
    "stable: expected a boolean or { stepRatio?, stepTokens?, stepResults?, maxTokens? }, got 5"
  );
  assert_eq!(
    err(json!({ "stable": { "stepResults": 0 } })),
    "stable.stepResults: expected an integer > 0, got 0"
  );
  assert_eq!(
    err(json!({ "stable": { "maxTokens": -3 } })),
    "stable.maxTokens: expected an integer > 0, got -3"
  );
  assert_eq!(
    err(json!({ "stable": { "step": 5 } })),
    "stable.step: unknown option of `stable` (expected stepRatio, stepTokens, stepResults or maxTokens)"
  );
  assert_eq!(
    err(json!({ "cacheBreakpoints": "openai" })),
    "cacheBreakpoints: expected a boolean or \"anthropic\", got \"openai\""
  );
  assert_eq!(
    err(json!({ "edits": [{ "type": "clear_tool_uses", "stable": { "stepResults": 1.5 } }] })),
    "edits[0].stable.stepResults: expected an integer > 0, got 1.5"
  );
  let ok = |v: Value| {
    let o = context_editor_core::Options::from_json(&v).unwrap();
    match &o.edits[0] {
      context_editor_core::Edit::ClearToolUses(c) => (c.stable, c.cache_breakpoints),
      _ => unreachable!(),
    }
  };
  assert_eq!(ok(json!({})), (None, false));
  assert_eq!(
    ok(json!({ "stable": false, "cacheBreakpoints": false })),
    (None, false)
  );
  // `true` = steps that free at least 3× the tokens they evict from the cache.
  let (s, b) = ok(json!({ "stable": true, "cacheBreakpoints": true }));
  assert_eq!(
    (s.unwrap().step_ratio, s.unwrap().step_tokens),
    (Some(3.0), None)
  );
  assert!(b);
  let (s, _) = ok(json!({ "stable": { "stepResults": 10 } }));
  assert_eq!(
    (
      s.unwrap().step_results,
      s.unwrap().step_tokens,
      s.unwrap().step_ratio
    ),
    (10, None, None)
  );
  let (s, _) = ok(json!({ "stable": { "stepTokens": 8000 } }));
  assert_eq!(
    (s.unwrap().step_tokens, s.unwrap().step_ratio),
    (Some(8000), None)
  );
  let (s, _) = ok(json!({ "stable": { "stepRatio": 1.5, "maxTokens": 9000 } }));
  assert_eq!(
    (s.unwrap().step_ratio, s.unwrap().max_tokens),
    (Some(1.5), Some(9000))
  );
  assert_eq!(
    err(json!({ "stable": { "stepRatio": 0 } })),
    "stable.stepRatio: expected a number > 0, got 0"
  );
  assert_eq!(
    err(json!({ "stable": { "stepRatio": 2, "stepTokens": 900 } })),
    "stable.stepTokens: give one of stepRatio, stepTokens or stepResults, not stepRatio and stepTokens"
  );
  let (s, _) = ok(json!({ "stable": { "stepResults": 10, "maxTokens": 50000 } }));
  assert_eq!(s.unwrap().max_tokens, Some(50000));
}

#[test]
fn breakpoints_include_the_previous_requests_boundary() {
  // Mixed sizes, two calls per assistant message: a call can move the boundary by several steps.
  let e = editor(json!({
    "trigger": { "tokens": 1500 }, "keep": { "messages": 2 },
    "stable": { "stepTokens": 300 }, "cacheBreakpoints": true
  }));
  let mut h = vec![Message::user("go")];
  for t in 0..40 {
    let (a, b) = (format!("a{t}"), format!("b{t}"));
    h.push(Message::assistant(
      "",
      &[(a.as_str(), "read", "{}"), (b.as_str(), "read", "{}")],
    ));
    h.push(Message::tool(
      &a,
      "read",
      "x".repeat(if t % 3 == 0 { 1600 } else { 200 }),
    ));
    h.push(Message::tool(
      &b,
      "read",
      "y".repeat(if t % 4 == 0 { 1200 } else { 120 }),
    ));
  }
  let mut checked = 0;
  for t in 2..=40 {
    let seen = &h[..1 + 3 * t];
    // The previous call saw the history before the newest assistant message.
    let before = &h[..1 + 3 * (t - 1)];
    let (now, prev) = (plan(&e, seen), plan(&e, before));
    let marks = breakpoints(&now);
    assert!(marks.len() <= 4);
    if let Some(&b) = cleared(&prev).last() {
      if cleared(&now) != cleared(&prev) {
        assert!(marks.contains(&b), "call {t}: {b} not in {marks:?}");
        checked += 1;
      }
    }
  }
  assert!(checked > 5, "{checked}");
}

#[test]
fn a_step_marks_the_last_result_or_user_message_before_what_it_changes() {
  let e = editor(json!({
    "trigger": { "tokens": 2500 }, "keep": { "messages": 3 },
    "stable": { "stepResults": 4 }, "cacheBreakpoints": true
  }));
  let h = mixed_run(80);
  let mut previous: Option<Vec<usize>> = None;
  let mut checked = 0;
  for seen in calls_of(&h) {
    let p = plan(&e, seen);
    let now = cleared(&p);
    if let Some(before) = &previous {
      if now.len() > before.len() {
        // The first message this request changes, and the last block before it that ends a
        // message the previous request also sent.
        let first = now[before.len()];
        let want = (0..first)
          .rev()
          .find(|&i| seen[i].role != context_editor_core::Role::Assistant)
          .unwrap();
        assert!(
          breakpoints(&p).contains(&want),
          "{want} not in {:?}; before {before:?} now {now:?} len {}",
          breakpoints(&p),
          seen.len()
        );
        assert!(breakpoints(&p).contains(now.last().unwrap()));
        if seen[want].role == context_editor_core::Role::User {
          checked += 1;
        }
      }
    }
    previous = Some(now);
  }
  assert!(checked > 2, "{checked}");
}
