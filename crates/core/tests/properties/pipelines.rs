//! Every edit type alone and every pipeline of two edits (`summarize` only last) on conversations
//! that also carry reasoning and long tool results: no panic, valid output, exact totals,
//! idempotence, determinism.

use super::*;

// ---------------------------------------------------------------------------------------------
// Issue-4 edits: every edit type alone and every pipeline of two edits (`summarize` only last), on
// conversations that also carry reasoning (as text or as a length) and long tool results.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
  ClearToolUses,
  ClearThinking,
  LastN,
  StripToolCalls,
  StripAndTruncate,
  TrimTurns,
  Truncate,
  Summarize,
}

const KINDS: &[Kind] = &[
  Kind::ClearToolUses,
  Kind::ClearThinking,
  Kind::LastN,
  Kind::StripToolCalls,
  Kind::StripAndTruncate,
  Kind::TrimTurns,
  Kind::Truncate,
  Kind::Summarize,
];

impl Kind {
  /// Editing the output again with the same pipeline changes nothing (when every edit is of these).
  fn idempotent(self) -> bool {
    !matches!(self, Kind::ClearToolUses | Kind::Summarize)
  }
}

/// Reasoning and long results added to a conversation, message by message.
#[derive(Debug, Clone)]
enum Extra {
  None,
  /// Reasoning as text (assistant messages).
  Thinking(String),
  /// Reasoning as a length only (assistant messages).
  ThinkingLength(u64),
  /// A long tool result (tool messages); `bool` = already flagged as truncated.
  Long(String, bool),
}

fn extra() -> impl Strategy<Value = Extra> {
  prop_oneof![
    4 => Just(Extra::None),
    2 => text(120).prop_map(Extra::Thinking),
    1 => (1u64..3000).prop_map(Extra::ThinkingLength),
    2 => (prop_oneof![
      (600usize..2500).prop_map(|n| "lorem ipsum dolor sit amet\n".repeat(n / 27 + 1)[..n].to_owned()),
      (300usize..1300).prop_map(|n| "😀é日".repeat(n / 3 + 1)),
      text(700),
    ], prop::bool::weighted(0.05)).prop_map(|(t, f)| Extra::Long(t, f)),
  ]
}

fn rich_conversation() -> impl Strategy<Value = Vec<Message>> {
  (conversation(), prop::collection::vec(extra(), 60)).prop_map(|(mut msgs, extras)| {
    for (m, x) in msgs.iter_mut().zip(extras) {
      match (m.role, x) {
        (Role::Assistant, Extra::Thinking(t)) if !t.is_empty() => m.thinking = Some(t),
        (Role::Assistant, Extra::ThinkingLength(n)) => m.thinking_length = Some(n),
        (Role::Tool, Extra::Long(t, flagged)) => {
          if m.content.is_some() {
            m.content = Some(t);
          } else {
            m.content_length = Some(context_editor_core::utf16_len(&t));
          }
          m.truncated = flagged;
        }
        _ => {}
      }
    }
    msgs
  })
}

/// An optional trigger for a structural edit (absent = always).
fn gate_trigger() -> impl Strategy<Value = Option<Value>> {
  prop::option::weighted(
    0.35,
    prop_oneof![
      (1u64..900).prop_map(|n| json!({ "tokens": n })),
      (1u64..20).prop_map(|n| json!({ "messages": n })),
      (1u64..6).prop_map(|n| json!({ "turns": n })),
      (1u64..6).prop_map(|n| json!({ "toolUses": n })),
    ],
  )
}

/// Random options for an edit of `kind` (a `fraction` only appears when `max` is known).
#[allow(clippy::too_many_lines)] // one generator arm per edit type, side by side
fn edit_of(kind: Kind, max: Option<u64>) -> BoxedStrategy<Value> {
  let with_trigger = |mut e: Value, t: Option<Value>| {
    if let Some(t) = t {
      e["trigger"] = t;
    }
    e
  };
  match kind {
    Kind::ClearToolUses => clear_edit()
      .prop_map(|mut e| {
        e["type"] = json!("clear_tool_uses");
        e
      })
      .boxed(),
    Kind::ClearThinking => (
      prop_oneof![
        Just(None),
        (0u64..4).prop_map(|n| Some(json!({ "thinkingTurns": n }))),
        Just(Some(json!("all"))),
      ],
      gate_trigger(),
    )
      .prop_map(move |(keep, t)| {
        let mut e = json!({ "type": "clear_thinking" });
        if let Some(k) = keep {
          e["keep"] = k;
        }
        with_trigger(e, t)
      })
      .boxed(),
    Kind::LastN | Kind::StripAndTruncate => {
      let name = if kind == Kind::LastN {
        "last_n"
      } else {
        "strip_and_truncate"
      };
      (0u64..14, gate_trigger())
        .prop_map(move |(n, t)| with_trigger(json!({ "type": name, "n": n }), t))
        .boxed()
    }
    Kind::StripToolCalls => gate_trigger()
      .prop_map(move |t| with_trigger(json!({ "type": "strip_tool_calls" }), t))
      .boxed(),
    Kind::TrimTurns => (prop::option::weighted(0.8, 1u64..6), gate_trigger())
      .prop_map(move |(n, t)| {
        let mut e = json!({ "type": "trim_turns" });
        if let Some(n) = n {
          e["maxTurns"] = json!(n);
        }
        with_trigger(e, t)
      })
      .boxed(),
    Kind::Truncate => (
      prop::option::weighted(0.85, prop_oneof![1u64..40, 40u64..1200]),
      prop::sample::subsequence(TOOLS.to_vec(), 0..2),
      gate_trigger(),
    )
      .prop_map(move |(n, exclude, t)| {
        let mut e = json!({ "type": "truncate_tool_results", "excludeTools": exclude });
        if let Some(n) = n {
          e["maxChars"] = json!(n);
        }
        with_trigger(e, t)
      })
      .boxed(),
    Kind::Summarize => (
      prop_oneof![
        1 => Just(None),
        3 => (1u64..20).prop_map(|n| Some(json!({ "messages": n }))),
        2 => (1u64..900).prop_map(|n| Some(json!({ "tokens": n }))),
        1 => (1u64..5).prop_map(|n| Some(json!({ "turns": n }))),
      ],
      prop_oneof![
        1 => Just(None),
        3 => (0u64..10).prop_map(|n| Some(json!({ "messages": n }))),
        2 => (0u64..400).prop_map(|n| Some(json!({ "tokens": n }))),
        1 => (0u64..4).prop_map(|n| Some(json!({ "turns": n }))),
        1 => select(vec![0.0, 0.05, 0.3]).prop_map(|f| Some(json!({ "fraction": f }))),
      ],
      prop::option::weighted(0.4, 0u64..300),
      prop::option::weighted(0.3, 1u64..80),
      select(vec!["user", "assistant"]),
    )
      .prop_map(move |(trigger, keep, trim, tool_trim, role)| {
        let mut e =
          json!({ "type": "summarize", "summaryRole": role, "summaryPrompt": "S:{messages}" });
        if let Some(t) = trigger {
          e["trigger"] = t;
        }
        match keep {
          Some(k) if k.get("fraction").is_some() && max.is_none() => {
            e["keep"] = json!({ "messages": 2 });
          }
          Some(k) => e["keep"] = k,
          None => {}
        }
        if let Some(n) = trim {
          e["trimTokensToSummarize"] = json!(n);
        }
        if let Some(n) = tool_trim {
          e["toolTrimLimit"] = json!(n);
        }
        e
      })
      .boxed(),
  }
}

#[derive(Debug, Clone)]
struct PipelineCase {
  msgs: Vec<Message>,
  options: Value,
  context: Context,
}

/// A case for `kinds` run in order.
fn pipeline_case(kinds: Vec<Kind>) -> impl Strategy<Value = PipelineCase> {
  (
    prop_oneof![6 => Just("approx"), 3 => Just("model"), 1 => Just("estimate")],
    prop::option::weighted(0.4, 1u64..3000),
    prop::option::weighted(0.2, words(100)),
  )
    .prop_flat_map(move |(method, max, system)| {
      let edits: Vec<BoxedStrategy<Value>> = kinds.iter().map(|&k| edit_of(k, max)).collect();
      (rich_conversation(), edits).prop_map(move |(msgs, edits)| PipelineCase {
        msgs,
        options: json!({ "tokenCountMethod": method, "edits": edits }),
        context: Context {
          max_input_tokens: max,
          system_prompt: system.clone(),
          ..Context::default()
        },
      })
    })
}

/// What the random cases reached, so a generator change cannot silently stop testing an op.
static SEEN: [std::sync::atomic::AtomicUsize; 8] =
  [const { std::sync::atomic::AtomicUsize::new(0) }; 8];
const SEEN_NAMES: [&str; 8] = [
  "summary",
  "remove_thinking",
  "truncate",
  "remove_tool_calls",
  "remove",
  "dangling warning",
  "idempotence checked",
  "cleared",
];

fn seen(k: usize) {
  SEEN[k].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// Every property of the pipeline edits for one case, besides the invariants of every call
/// (`common::invariants`: valid output, exact totals, no new dangling call, determinism); `Err`
/// names the broken one.
fn check_pipeline(kinds: &[Kind], case: &PipelineCase) -> Result<(), TestCaseError> {
  let PipelineCase {
    msgs,
    options,
    context,
  } = case;
  let e = editor(options);
  let Some((plan, out)) = check_call(&e, msgs, context, true) else {
    return Err(TestCaseError::fail("plan failed"));
  };
  prop_assert_eq!(plan.report.applied_edits.len(), kinds.len());
  if let Some(s) = &plan.summary {
    prop_assert_eq!(kinds.last(), Some(&Kind::Summarize));
    prop_assert!(s.prompt.starts_with("S:"));
  }
  count_what_was_reached(&plan, msgs);
  // Each edit's freed tokens add up to what the edits freed after orphan removal.
  let orphans = reference_orphans(msgs);
  let without_orphans: Vec<Message> = (0..msgs.len())
    .filter(|i| !orphans.contains(i))
    .map(|i| msgs[i].clone())
    .collect();
  let start = count(&e, &without_orphans, context);
  let freed: u64 = plan
    .report
    .applied_edits
    .iter()
    .map(|a| a.cleared_input_tokens)
    .sum();
  // A placeholder may be longer than the result it replaces; a truncated result is never longer in
  // characters, but head + marker may take more BPE tokens than the text it replaces.
  let grows = kinds.contains(&Kind::ClearToolUses)
    || (kinds.contains(&Kind::Truncate) && options["tokenCountMethod"] != "approx");
  if !grows {
    prop_assert_eq!(
      freed,
      start - plan.report.tokens_after,
      "freed == before - after"
    );
  }
  // Idempotence.
  if kinds.iter().all(|k| k.idempotent()) {
    seen(6);
    let again = e.plan(&out, context).unwrap();
    prop_assert!(again.ops.is_empty(), "second plan: {:?}", again.ops);
    prop_assert_eq!(again.report.tokens_after, plan.report.tokens_after);
  }
  // Determinism across editors: a fresh one plans the same.
  prop_assert_eq!(&plan, &editor(options).plan(msgs, context).unwrap());
  Ok(())
}

/// Counts the operations and warnings a case reached (see [`SEEN`]).
fn count_what_was_reached(plan: &EditPlan, msgs: &[Message]) {
  if plan.summary.is_some() {
    seen(0);
  }
  for op in &plan.ops {
    match op {
      Op::RemoveThinking { .. } => seen(1),
      Op::TruncateToolResult { .. } => seen(2),
      Op::RemoveToolCalls { .. } => seen(3),
      Op::Remove { index } if msgs[*index].role != Role::Tool => seen(4),
      Op::ClearToolResult { .. } => seen(7),
      _ => {}
    }
  }
  if plan
    .report
    .warnings
    .iter()
    .any(|w| w.code == "dangling_tool_call")
  {
    seen(5);
  }
}

/// Runs `check_pipeline` on `cases` random cases of one pipeline; panics with the shrunk case.
fn run_pipeline(kinds: &[Kind], cases: u32) {
  let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
    cases,
    max_shrink_iters: 500,
    ..ProptestConfig::default()
  });
  let owned = kinds.to_vec();
  if let Err(e) = runner.run(&pipeline_case(owned), |case| check_pipeline(kinds, &case)) {
    panic!("pipeline {kinds:?}: {e}");
  }
}

fn pipeline_cases() -> u32 {
  std::env::var("PROPTEST_CASES")
    .ok()
    .and_then(|v| v.parse::<u32>().ok())
    .map_or(24, |n| (n / 10).max(4))
}

/// Every edit type alone: no panic, valid output, exact totals, idempotence, determinism.
#[test]
fn every_edit_alone_is_safe() {
  for &k in KINDS {
    run_pipeline(&[k], pipeline_cases() * 4);
  }
  for (k, name) in SEEN_NAMES.iter().enumerate() {
    let n = SEEN[k].load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("{name}: {n} cases");
    assert!(n > 0, "the random cases never reached: {name}");
  }
}

/// Every pipeline of two edits (`summarize` only last).
#[test]
fn every_pipeline_of_two_edits_is_safe() {
  for &a in KINDS {
    if a == Kind::Summarize {
      continue;
    }
    for &b in KINDS {
      run_pipeline(&[a, b], pipeline_cases());
    }
  }
}
