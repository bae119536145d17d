//! The cleared boundary moves in steps (of results, tokens or the default ratio), stays put between
//! them so the prompt prefix stays cacheable, steps early at the ceiling and never steps back.

use super::*;

#[test]
fn stable_plans_are_deterministic() {
  let h = run(60, 400);
  let a = plan(&stable_editor(), &h);
  let b = plan(&stable_editor(), &h);
  let e = stable_editor();
  let c = plan(&e, &h);
  let d = plan(&e, &h);
  assert_eq!(a, b);
  assert_eq!(a, c);
  assert_eq!(c, d);
}

#[test]
fn cleared_count_is_a_multiple_of_the_step() {
  let e = stable_editor();
  let h = run(60, 400);
  for t in 1..=60 {
    let p = plan(&e, before_call(&h, t));
    let n = cleared(&p).len();
    assert_eq!(n % 5, 0, "call {t}: {n} cleared");
    assert!(
      n <= t.saturating_sub(3),
      "call {t}: never into the kept window"
    );
  }
}

#[test]
fn prefix_is_identical_until_the_next_step() {
  let e = stable_editor();
  let h = run(80, 400);
  let mut previous: Option<(Vec<Message>, usize)> = None;
  let mut steps = 0;
  let mut calls_after_trigger = 0;
  for t in 1..=80 {
    let seen = before_call(&h, t);
    let p = plan(&e, seen);
    let out = p.apply(seen);
    let n = cleared(&p).len();
    if let Some((prev_out, prev_n)) = &previous {
      if *prev_n > 0 {
        calls_after_trigger += 1;
      }
      if n == *prev_n {
        // Same boundary: the previous request is a prefix of this one, byte for byte.
        assert_eq!(&out[..prev_out.len()], &prev_out[..], "call {t}");
        assert_eq!(p.report.stable_prefix_messages, prev_out.len(), "call {t}");
      } else {
        steps += 1;
        assert!(n > *prev_n, "the boundary only moves forward");
        assert!(p.report.stable_prefix_messages < prev_out.len(), "call {t}");
      }
    }
    previous = Some((out, n));
  }
  // LangChain's rule moves the boundary on every call once triggered; steps of 5 move it on ~1 in 5.
  assert!(calls_after_trigger > 40, "{calls_after_trigger}");
  assert!(
    steps * 4 <= calls_after_trigger,
    "{steps} steps in {calls_after_trigger} calls"
  );
}

#[test]
fn default_mode_moves_the_boundary_every_call() {
  let e = editor(json!({ "trigger": { "tokens": 2000 }, "keep": { "messages": 3 } }));
  let h = run(40, 400);
  let mut prev_len = 0;
  let mut moved = 0;
  for t in 25..=40 {
    let seen = before_call(&h, t);
    let p = plan(&e, seen);
    assert!(p.report.triggered);
    if t > 25 && p.report.stable_prefix_messages < prev_len {
      moved += 1;
    }
    prev_len = p.report.messages_after;
  }
  assert_eq!(moved, 15);
}

#[test]
fn stable_prefix_tokens_count_the_prefix() {
  let e = stable_editor();
  let h = run(30, 400);
  let seen = before_call(&h, 30);
  let p = plan(&e, seen);
  let out = p.apply(seen);
  let k = p.report.stable_prefix_messages;
  assert!(k > 0);
  let prefix = e
    .count_tokens(&out[..k], &Context::default())
    .unwrap()
    .total;
  assert_eq!(p.report.stable_prefix_tokens, prefix);
  // No earlier call (no assistant message yet): nothing is stable.
  let first = plan(&e, &h[..1]);
  assert_eq!(first.report.stable_prefix_messages, 0);
  assert_eq!(first.report.stable_prefix_tokens, 0);
}

#[test]
fn ceiling_forces_an_early_step() {
  // Steps of 25 would leave 25 results (2,500+ tokens) over the 1,500-token ceiling.
  let e = editor(json!({
    "trigger": { "tokens": 2000 }, "keep": { "messages": 3 },
    "stable": { "stepResults": 25, "maxTokens": 1500 }
  }));
  let h = run(120, 400);
  let mut prev = 0;
  for t in 1..=120 {
    let p = plan(&e, before_call(&h, t));
    let n = cleared(&p).len();
    // Over the ceiling only when everything outside the kept window is cleared already.
    if p.report.triggered && n < t - 3 {
      assert!(
        p.report.tokens_after <= 1500,
        "call {t}: {}",
        p.report.tokens_after
      );
    }
    if t == 60 {
      assert!(!n.is_multiple_of(25), "an early step: {n} cleared");
    }
    assert!(n >= prev, "monotone");
    prev = n;
  }
}

#[test]
fn ceiling_defaults_to_the_trigger_and_the_input_limit() {
  // Without maxTokens the trigger (2,000) is the ceiling; steps of 50 would exceed it.
  let e = editor(
    json!({ "trigger": { "tokens": 2000 }, "keep": { "messages": 3 }, "stable": { "stepResults": 50 } }),
  );
  let h = run(60, 400);
  for t in 20..=60 {
    let p = plan(&e, before_call(&h, t));
    assert!(
      p.report.tokens_after <= 2000,
      "call {t}: {}",
      p.report.tokens_after
    );
  }
  // A smaller input limit wins.
  let c = Context {
    max_input_tokens: Some(1200),
    ..Context::default()
  };
  for t in 20..=60 {
    let p = plan_in(&e, before_call(&h, t), &c);
    assert!(
      p.report.tokens_after <= 1200,
      "call {t}: {}",
      p.report.tokens_after
    );
  }
}

#[test]
fn excluded_tools_are_not_counted_in_steps() {
  let e = editor(json!({
    "trigger": { "tokens": 1000 }, "keep": { "messages": 0 },
    "stable": { "stepResults": 2 }, "excludeTools": ["keep_me"]
  }));
  let mut h = vec![Message::user("go")];
  for t in 0..7 {
    let id = format!("c{t}");
    let name = if t % 2 == 0 { "keep_me" } else { "read" };
    h.push(Message::assistant("", &[(id.as_str(), name, "{}")]));
    h.push(Message::tool(&id, name, "y".repeat(2000)));
  }
  // Clearable: c1, c3, c5 → a step of 2 clears c1 and c3 (indices 4 and 8) unless the ceiling needs c5 too.
  let p = plan(&e, &h);
  let c = cleared(&p);
  assert!(c.iter().all(|i| h[*i].name.as_deref() == Some("read")));
  assert!(c.len() == 2 || c.len() == 3, "{c:?}");
}

#[test]
fn model_mode_stable_run_stays_under_the_ceiling() {
  let e = editor(json!({
    "tokenCountMethod": "model", "trigger": { "tokens": 8000 }, "keep": { "messages": 3 },
    "stable": { "stepResults": 10 }
  }));
  let h = run(120, 1200);
  let mut prev: Option<Vec<Message>> = None;
  let mut identical = 0;
  for t in 1..=120 {
    let seen = before_call(&h, t);
    let p = plan(&e, seen);
    assert!(
      p.report.tokens_after <= 8000,
      "call {t}: {}",
      p.report.tokens_after
    );
    let out = p.apply(seen);
    if let Some(prev) = &prev {
      if out.len() >= prev.len() && out[..prev.len()] == prev[..] {
        identical += 1;
      }
    }
    prev = Some(out);
  }
  assert!(
    identical > 90,
    "{identical} of 119 calls extended the previous request"
  );
}

#[test]
fn token_steps_move_the_boundary_when_the_window_exceeds_the_budget() {
  // Results are 100 tokens (approx); a 450-token budget steps every 5 results leaving the window.
  let e = editor(json!({
    "trigger": { "tokens": 2000 }, "keep": { "messages": 3 },
    "stable": { "stepTokens": 450 }, "cacheBreakpoints": true
  }));
  let h = run(60, 400);
  let mut prev: Option<(Vec<Message>, usize)> = None;
  let mut steps = 0;
  for t in 25..=60 {
    let seen = before_call(&h, t);
    let p = plan(&e, seen);
    let out = p.apply(seen);
    let n = cleared(&p).len();
    assert_eq!(n % 5, 0, "call {t}: {n}");
    if let Some((po, pn)) = &prev {
      if n == *pn {
        assert_eq!(&out[..po.len()], &po[..]);
      } else {
        steps += 1;
      }
    }
    prev = Some((out, n));
  }
  assert!((6..=8).contains(&steps), "{steps}");
  let err = ContextEditor::from_json(&json!({ "stable": { "stepResults": 5, "stepTokens": 9 } }))
    .unwrap_err()
    .to_string();
  assert_eq!(
    err,
    "stable.stepResults: give one of stepRatio, stepTokens or stepResults, not stepTokens and stepResults"
  );
}

#[test]
fn default_stable_steps_only_when_they_free_three_times_what_they_evict() {
  let options = json!({
    "tokenCountMethod": "model", "trigger": { "tokens": 8000 }, "keep": { "messages": 3 },
    "stable": true
  });
  let e = editor(options.clone());
  let h = mixed_run(120);
  let mut prev: Option<(Vec<Message>, EditPlan)> = None;
  let (mut steps, mut after_trigger) = (0, 0);
  for seen in calls_of(&h) {
    let p = plan(&e, seen);
    // Stateless: a fresh editor plans the same.
    assert_eq!(p, plan(&editor(options.clone()), seen));
    let out = p.apply(seen);
    if let Some((po, pp)) = &prev {
      let (now, before) = (cleared(&p), cleared(pp));
      assert!(now.starts_with(&before), "the boundary only moves forward");
      if pp.report.triggered {
        after_trigger += 1;
      }
      if now == before {
        assert_eq!(
          &out[..po.len()],
          &po[..],
          "no step: the previous request is a prefix"
        );
      } else {
        steps += 1;
        // Tokens the step frees, against the tokens of the previous request it rewrites, what
        // it frees there aside (unless the ceiling forced it).
        let gain: u64 = p.report.cleared[before.len()..]
          .iter()
          .map(|c| c.tokens_freed)
          .sum();
        let evicted = pp.report.tokens_after - p.report.stable_prefix_tokens;
        let forced = p.report.tokens_after + gain > 8000;
        assert!(
          forced || gain + 10 >= 3 * evicted.saturating_sub(gain),
          "gain {gain}, evicted {evicted}"
        );
      }
    }
    assert!(
      p.report.tokens_after <= 8000
        || cleared(&p).len() + 3
          >= seen
            .iter()
            .filter(|m| m.role == context_editor_core::Role::Tool)
            .count()
    );
    prev = Some((out, p));
  }
  assert!(after_trigger > 100, "{after_trigger}");
  assert!(
    steps > 3 && steps * 3 < after_trigger,
    "{steps} steps in {after_trigger} calls"
  );
}

#[test]
fn stable_modes_stay_under_the_ceiling_and_never_step_back() {
  for stable in [
    json!(true),
    json!({ "stepTokens": 2000 }),
    json!({ "stepResults": 6 }),
    json!({ "stepRatio": 0.5 }),
  ] {
    let e = editor(json!({
      "trigger": { "tokens": 2500 }, "keep": { "messages": 2 }, "stable": stable.clone(),
      "cacheBreakpoints": true
    }));
    let h = mixed_run(150);
    let mut prev = 0;
    for seen in calls_of(&h) {
      let p = plan(&e, seen);
      let n = cleared(&p).len();
      let tools = seen
        .iter()
        .filter(|m| m.role == context_editor_core::Role::Tool)
        .count();
      if n + 2 < tools {
        assert!(
          p.report.tokens_after <= 2500,
          "{stable}: {}",
          p.report.tokens_after
        );
      }
      assert!(n >= prev, "{stable}: {n} after {prev}");
      assert!(breakpoints(&p).len() <= 4);
      prev = n;
    }
    assert!(prev > 100, "{stable}: {prev}");
  }
}
