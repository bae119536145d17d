//! §2.5 `clearToolInputs` (which calls' arguments go, one op per assistant message); §2.6
//! `clearAtLeast` (clearing into the keep window to free a minimum, and its LangChain quirks).

use super::*;

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
      &*p.report.cleared_tool_inputs[0].tool_call_id
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
