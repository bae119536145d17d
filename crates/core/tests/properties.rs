//! Property tests (proptest) on random conversations and random options.
//!
//! Conversations mix well-formed agent exchanges with the damage real histories carry: orphaned
//! results (no call, or the call only afterwards), dangling calls, ids reused across and within AI
//! messages, results cleared by an earlier call, unnamed or renamed tool messages, non-text blocks,
//! and non-ASCII text. Options cover every trigger key (alone, ANDed, ORed), every keep measure,
//! exclusions, placeholders longer than the results they replace, `clearToolInputs` as a flag and
//! as a list, `clearAtLeast`, two-edit pipelines, all three counting methods (approx, model, estimate) and two encodings.
//!
//! Each property runs 256 cases (override with `PROPTEST_CASES`).

// Generated sizes and counts are small: casts between integer widths cannot truncate.
#![allow(clippy::cast_possible_truncation)]

mod common;

use std::collections::BTreeSet;

use common::invariants::{
  check_call, check_plan, reference_dangling, reference_orphans, self_describing,
};
use context_editor_core::{Context, ContextEditor, EditPlan, Message, Op, Role, ToolCall};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value};

const TOOLS: &[&str] = &["search", "read", "write", "memory"];
const PLACEHOLDERS: &[&str] = &[
  "[cleared]",
  "",
  "✂",
  "[this tool result was removed from the context to save space]",
];

// ---------------------------------------------------------------------------------------------
// generators

fn text(max: usize) -> impl Strategy<Value = String> {
  let chars = select(vec![
    'a', 'b', 'e', 'o', 's', 't', ' ', ' ', '\n', '.', '{', '"', '1', 'é', 'ß', '日', '本', '😀',
    '🦀',
  ]);
  prop::collection::vec(chars, 0..max).prop_map(|v| v.into_iter().collect())
}

fn words(max: usize) -> impl Strategy<Value = String> {
  prop_oneof![
    3 => text(max),
    1 => (0..max * 4).prop_map(|n| "lorem ipsum dolor sit amet ".repeat(n / 27 + 1)[..n].to_owned()),
  ]
}

/// Tool-call arguments as compact JSON text.
fn args() -> impl Strategy<Value = String> {
  prop_oneof![
    1 => Just("{}".to_owned()),
    4 => text(60).prop_map(|q| json!({ "q": q }).to_string()),
    1 => (text(20), 0u32..1000).prop_map(|(p, n)| json!({ "path": p, "line": n, "flags": [true, null] }).to_string()),
  ]
}

#[derive(Debug, Clone)]
enum Name {
  Absent,
  Empty,
  Tool(usize),
}

#[derive(Debug, Clone)]
enum Item {
  User(String),
  System(String),
  /// An assistant message whose calls reuse ids from a small pool (duplicates, re-calls).
  Ai {
    text: String,
    calls: Vec<(usize, usize, String)>,
    prior_inputs: Vec<usize>,
    exact_len_extra: Option<u64>,
  },
  /// A lone tool result for an id of the pool: paired, orphaned or a duplicate, by chance.
  Tool {
    id: usize,
    name: Name,
    text: String,
    cleared: bool,
  },
  /// A well-formed exchange: an assistant message with fresh call ids, then all of its results.
  Exchange {
    text: String,
    calls: Vec<(usize, String)>,
    results: Vec<(String, Name, bool, u32, Option<String>)>,
  },
}

fn name() -> impl Strategy<Value = Name> {
  prop_oneof![
    6 => Just(Name::Tool(usize::MAX)), // the call's own name
    1 => Just(Name::Absent),
    1 => Just(Name::Empty),
    1 => (0..TOOLS.len()).prop_map(Name::Tool),
  ]
}

fn item() -> impl Strategy<Value = Item> {
  prop_oneof![
    2 => words(80).prop_map(Item::User),
    1 => text(30).prop_map(Item::System),
    2 => (
      text(30),
      prop::collection::vec((0usize..8, 0..TOOLS.len(), args()), 1..4),
      prop::collection::vec(0usize..8, 0..3),
      prop::option::weighted(0.3, 0u64..40),
    )
      .prop_map(|(text, calls, prior_inputs, exact_len_extra)| Item::Ai {
        text,
        calls,
        prior_inputs,
        exact_len_extra
      }),
    2 => (0usize..10, name(), words(150), prop::bool::weighted(0.15)).prop_map(|(id, name, text, cleared)| {
      Item::Tool { id, name, text, cleared }
    }),
    6 => (
      text(20),
      prop::collection::vec((0..TOOLS.len(), args()), 1..4),
      prop::collection::vec(
        (words(250), name(), prop::bool::weighted(0.1), prop::sample::select(vec![0u32, 0, 0, 1]), prop::option::weighted(0.1, text(40))),
        4,
      ),
    )
      .prop_map(|(text, calls, mut results)| {
        results.truncate(calls.len());
        Item::Exchange { text, calls, results }
      }),
  ]
}

/// UTF-16 length of `JSON.stringify` of `[{"id","name","args"}, …]` for ASCII ids and names.
fn tool_calls_json_len(calls: &[ToolCall]) -> u64 {
  let per: u64 = calls
    .iter()
    .map(|c| {
      r#"{"id":"","name":"","args":}"#.len() as u64
        + c.id.len() as u64
        + c.name.len() as u64
        + c.args_len()
    })
    .sum();
  2 + per + (calls.len() as u64).saturating_sub(1)
}

fn build(lead: &[String], items: &[Item]) -> Vec<Message> {
  let mut msgs: Vec<Message> = lead.iter().map(Message::system).collect();
  let mut fresh = 0usize;
  let tool_name = |name: &Name, call_tool: &str| -> Option<String> {
    match name {
      Name::Absent => None,
      Name::Empty => Some(String::new()),
      Name::Tool(usize::MAX) => Some(call_tool.to_owned()),
      Name::Tool(k) => Some(TOOLS[*k].to_owned()),
    }
  };
  for it in items {
    match it {
      Item::User(t) => msgs.push(Message::user(t.clone())),
      Item::System(t) => msgs.push(Message::system(t.clone())),
      Item::Ai {
        text,
        calls,
        prior_inputs,
        exact_len_extra,
      } => {
        let ids: Vec<String> = calls.iter().map(|(id, _, _)| format!("c{id}")).collect();
        let spec: Vec<(&str, &str, &str)> = calls
          .iter()
          .zip(&ids)
          .map(|((_, t, a), id)| (id.as_str(), TOOLS[*t], a.as_str()))
          .collect();
        let mut m = Message::assistant(text.clone(), &spec);
        m.cleared_tool_inputs = prior_inputs.iter().map(|i| format!("c{i}")).collect();
        m.tool_calls_length = exact_len_extra.map(|x| tool_calls_json_len(&m.tool_calls) + x);
        msgs.push(m);
      }
      Item::Tool {
        id,
        name,
        text,
        cleared,
      } => {
        let mut m = Message::tool(format!("c{id}"), "", text.clone());
        m.name = tool_name(name, TOOLS[id % TOOLS.len()]);
        m.cleared = *cleared;
        msgs.push(m);
      }
      Item::Exchange {
        text,
        calls,
        results,
      } => {
        let ids: Vec<String> = calls
          .iter()
          .map(|_| {
            fresh += 1;
            format!("x{fresh}")
          })
          .collect();
        let spec: Vec<(&str, &str, &str)> = calls
          .iter()
          .zip(&ids)
          .map(|((t, a), id)| (id.as_str(), TOOLS[*t], a.as_str()))
          .collect();
        msgs.push(Message::assistant(text.clone(), &spec));
        for (((t, _), id), (body, name, cleared, images, other)) in
          calls.iter().zip(&ids).zip(results)
        {
          let mut m = Message::tool(id.clone(), "", body.clone());
          m.name = tool_name(name, TOOLS[*t]);
          m.cleared = *cleared;
          m.images = *images;
          m.other.clone_from(other);
          msgs.push(m);
        }
      }
    }
  }
  msgs
}

/// Sends only the UTF-16 lengths of a message's text, blocks and arguments (what a caller may do
/// in approx mode to avoid copying large strings).
fn lengths_only(m: &mut Message) {
  if let Some(c) = m.content.take() {
    m.content_length = Some(context_editor_core::utf16_len(&c));
  }
  if let Some(o) = m.other.take() {
    m.other_length = Some(context_editor_core::utf16_len(&o));
  }
  for call in &mut m.tool_calls {
    if let Some(a) = call.args.take() {
      call.args_length = Some(context_editor_core::utf16_len(&a));
    }
  }
}

fn conversation() -> impl Strategy<Value = Vec<Message>> {
  (
    prop::collection::vec(text(40), 0..3),
    prop::collection::vec(item(), 0..14),
    prop::collection::vec(prop::bool::weighted(0.1), 60),
  )
    .prop_map(|(lead, items, by_length)| {
      let mut msgs = build(&lead, &items);
      for (m, l) in msgs.iter_mut().zip(by_length) {
        if l {
          lengths_only(m);
        }
      }
      msgs
    })
}

fn trigger_condition() -> impl Strategy<Value = Value> {
  (
    prop::option::weighted(0.6, 1u64..900),
    prop::option::weighted(0.3, 1u64..30),
    prop::option::weighted(0.2, select(vec![0.001, 0.05, 0.3, 0.5, 0.8, 1.0])),
    prop::option::weighted(0.2, 1u64..8),
  )
    .prop_map(|(tokens, messages, fraction, tool_uses)| {
      let mut o = serde_json::Map::new();
      if let Some(t) = tokens {
        o.insert("tokens".into(), json!(t));
      }
      if let Some(m) = messages {
        o.insert("messages".into(), json!(m));
      }
      if let Some(f) = fraction {
        o.insert("fraction".into(), json!(f));
      }
      if let Some(n) = tool_uses {
        o.insert("toolUses".into(), json!(n));
      }
      if o.is_empty() {
        o.insert("messages".into(), json!(1));
      }
      Value::Object(o)
    })
}

fn clear_edit() -> impl Strategy<Value = Value> {
  (
    prop_oneof![
      trigger_condition(),
      prop::collection::vec(trigger_condition(), 1..4).prop_map(Value::from),
    ],
    prop_oneof![
      (0u64..8).prop_map(|n| json!({ "messages": n })),
      select(vec![0.0, 3.0, 12.5, 40.0, 150.0, 600.0]).prop_map(|n| json!({ "tokens": n })),
      select(vec![0.0, 0.01, 0.1, 0.5]).prop_map(|f| json!({ "fraction": f })),
    ],
    prop::sample::subsequence(TOOLS.to_vec(), 0..3),
    select(PLACEHOLDERS.to_vec()),
    prop_oneof![
      Just(json!(false)),
      Just(json!(true)),
      prop::sample::subsequence(TOOLS.to_vec(), 0..3).prop_map(|v| json!(v)),
    ],
    prop_oneof![3 => Just(0u64), 1 => 1u64..600],
  )
    .prop_map(|(trigger, keep, exclude, placeholder, inputs, at_least)| {
      json!({
        "trigger": trigger, "keep": keep, "excludeTools": exclude, "placeholder": placeholder,
        "clearToolInputs": inputs, "clearAtLeast": at_least
      })
    })
}

#[derive(Debug, Clone)]
struct Setup {
  options: Value,
  context: Context,
}

fn setup() -> impl Strategy<Value = Setup> {
  (
    prop::collection::vec(clear_edit(), 1..3),
    prop_oneof![6 => Just("approx"), 2 => Just("model"), 1 => Just("estimate")],
    prop::option::weighted(0.2, Just("cl100k_base")),
    prop::option::weighted(0.5, 1u64..3000),
    prop::option::weighted(0.3, words(200)),
    prop::collection::vec(
      text(60).prop_map(|d| json!({ "name": "search", "description": d }).to_string()),
      0..2,
    ),
    prop::option::weighted(0.3, select(vec!["gpt-4o", "gpt-4", "deepseek-chat"])),
  )
    .prop_map(|(edits, method, encoding, max, system, tools, model)| {
      let mut options = if edits.len() == 1 {
        edits[0].clone()
      } else {
        json!({ "edits": edits.iter().map(|e| {
          let mut e = e.clone();
          e["type"] = json!("clear_tool_uses");
          e
        }).collect::<Vec<_>>() })
      };
      options["tokenCountMethod"] = json!(method);
      if let Some(enc) = encoding {
        options["encoding"] = json!(enc);
      }
      Setup {
        options,
        context: Context {
          max_input_tokens: max,
          system_prompt: system,
          tools,
          model: model.map(str::to_owned),
          ..Context::default()
        },
      }
    })
}

// ---------------------------------------------------------------------------------------------
// helpers (the reference facts and the invariants every call holds are in `common::invariants`)

fn editor(options: &Value) -> ContextEditor {
  ContextEditor::from_json(options).expect("generated options are valid")
}

fn edits_of(options: &Value) -> Vec<Value> {
  match options.get("edits") {
    Some(Value::Array(list)) => list.clone(),
    _ => vec![options.clone()],
  }
}

fn count(editor: &ContextEditor, msgs: &[Message], ctx: &Context) -> u64 {
  editor.count_tokens(msgs, ctx).expect("count").total
}

// ---------------------------------------------------------------------------------------------
// properties

fn config() -> ProptestConfig {
  ProptestConfig {
    cases: 256,
    max_shrink_iters: 2000,
    ..ProptestConfig::default()
  }
}

proptest! {
  #![proptest_config(config())]

  /// Plans never fail or panic on valid messages and hold every invariant of a call
  /// (`common::invariants`); with clearing only, the ops are orphan removals, clears and cleared
  /// inputs, in that order on a message, and the report lists exactly what they clear.
  #[test]
  fn plan_is_well_formed(msgs in conversation(), s in setup(), supplied in prop::collection::vec(prop::option::weighted(0.2, 0u64..400), 40)) {
    let mut msgs = msgs;
    // Caller-supplied counts on some messages (a host's own counter).
    for (m, t) in msgs.iter_mut().zip(&supplied) {
      m.tokens = *t;
    }
    let e = editor(&s.options);
    let plan = e.plan(&msgs, &s.context).expect("valid messages never fail");
    // Supplied counts describe the caller's messages, not the output: a recount of the output
    // equals the report only when there are none.
    check_plan(&e, &msgs, &s.context, &plan, self_describing(&msgs));
    let mut last: Option<(usize, u8)> = None;
    for op in &plan.ops {
      let (i, kind) = match op {
        Op::Remove { index } => (*index, 0u8),
        Op::ClearToolResult { index, .. } => (*index, 1),
        Op::ClearToolInputs { index, .. } => (*index, 2),
        other => panic!("unknown op {other:?}"),
      };
      if let Some(prev) = last {
        prop_assert!(prev < (i, kind), "ops sorted by index, one per kind: {:?}", plan.ops);
      }
      last = Some((i, kind));
      if let Op::ClearToolResult { placeholder, .. } = op {
        prop_assert!(PLACEHOLDERS.contains(&&**placeholder));
      }
    }
    // Removed = LangChain's orphans, and nothing else.
    let removed: Vec<usize> = plan.ops.iter().filter_map(|op| match op { Op::Remove { index } => Some(*index), _ => None }).collect();
    prop_assert_eq!(&removed, &reference_orphans(&msgs));
    // The report lists exactly the cleared results and inputs of the ops.
    let mut cleared: Vec<usize> = plan.report.cleared.iter().map(|c| c.index).collect();
    cleared.sort_unstable();
    let op_cleared: Vec<usize> = plan.ops.iter().filter_map(|op| match op { Op::ClearToolResult { index, .. } => Some(*index), _ => None }).collect();
    prop_assert_eq!(cleared, op_cleared);
    let mut inputs: Vec<(usize, usize)> = plan.report.cleared_tool_inputs.iter().map(|c| (c.index, c.call_index)).collect();
    inputs.sort_unstable();
    let op_inputs: Vec<(usize, usize)> = plan.ops.iter().flat_map(|op| match op {
      Op::ClearToolInputs { index, call_indices, .. } => call_indices.iter().map(|&k| (*index, k)).collect(),
      _ => Vec::new(),
    }).collect();
    prop_assert_eq!(inputs, op_inputs);
    prop_assert_eq!(plan.report.applied_edits.len(), edits_of(&s.options).len());
    prop_assert_eq!(plan.report.messages_after, msgs.len() - plan.report.removed_orphans.len());
  }

  /// The applied output holds every invariant of a call (`common::invariants`: a subsequence of
  /// the input, no orphaned results, no new dangling call, leading system messages kept, totals
  /// equal to a recount); with clearing only, just the documented fields change, the dangling calls
  /// are exactly the input's, and what the edits freed adds up.
  #[test]
  fn applied_output_is_safe_and_recounts_to_the_report(msgs in conversation(), s in setup()) {
    let e = editor(&s.options);
    let (plan, out) = check_call(&e, &msgs, &s.context, true).expect("valid messages never fail");
    let src = common::invariants::sources(&plan, msgs.len());
    for (o, &i) in out.iter().zip(&src) {
      let m = &msgs[i];
      prop_assert_eq!(o.tool_calls.len(), m.tool_calls.len());
      for (a, b) in o.tool_calls.iter().zip(&m.tool_calls) {
        prop_assert_eq!(&a.id, &b.id);
        prop_assert_eq!(&a.name, &b.name);
        prop_assert!(a.args == b.args || a.args.as_deref() == Some("{}"), "args unchanged or cleared");
      }
      let result_cleared = plan.ops.iter().any(|op| matches!(op, Op::ClearToolResult { index, .. } if *index == i));
      let inputs_cleared = plan.ops.iter().any(|op| matches!(op, Op::ClearToolInputs { index, .. } if *index == i));
      if result_cleared {
        prop_assert!(o.cleared);
      } else {
        prop_assert_eq!(&o.content, &m.content);
        prop_assert_eq!(o.cleared, m.cleared);
        prop_assert_eq!((&o.other, o.images), (&m.other, m.images));
      }
      if !inputs_cleared {
        prop_assert_eq!(&o.cleared_tool_inputs, &m.cleared_tool_inputs);
      }
    }
    // Dangling calls: the same ones as in the input (clearing removes no call).
    let dangling_in: BTreeSet<(usize, usize)> = reference_dangling(&msgs);
    let dangling_out: BTreeSet<(usize, usize)> = reference_dangling(&out).into_iter().map(|(j, k)| (src[j], k)).collect();
    prop_assert_eq!(&dangling_out, &dangling_in);
    // What the edits freed: net per edit (as LangChain's `clearedTokens`); the per-result figures
    // add up to it unless some clear grew its message (placeholder longer than the result).
    let without_orphans: Vec<Message> = src.iter().map(|&i| msgs[i].clone()).collect();
    let start = count(&e, &without_orphans, &s.context);
    let freed: u64 = plan.report.applied_edits.iter().map(|a| a.cleared_input_tokens).sum();
    let per_result: u64 = plan.report.cleared.iter().map(|c| c.tokens_freed).sum();
    prop_assert!(per_result >= freed);
    prop_assert!(plan.report.tokens_after <= start || plan.report.cleared.iter().any(|c| c.tokens_freed == 0));
    if plan.report.tokens_after <= start && plan.report.applied_edits.len() == 1 {
      prop_assert_eq!(freed, start - plan.report.tokens_after);
    }
    let grew = plan.ops.iter().any(|op| match op {
      Op::ClearToolResult { index, .. } => {
        let single = |m: &Message| e.count_tokens(std::slice::from_ref(m), &s.context).unwrap().messages[0];
        let mut after = msgs[*index].clone();
        after.content = out[src.iter().position(|j| j == index).unwrap()].content.clone();
        after.other = None;
        after.images = 0;
        let chars = |m: &Message| m.text_len() + m.other_len() + u64::from(m.images) * 765 * 4;
        if s.options["tokenCountMethod"] == "approx" { chars(&after) > chars(&msgs[*index]) } else { single(&after) > single(&msgs[*index]) }
      }
      _ => false,
    });
    if !grew {
      prop_assert_eq!(per_result, freed, "tokens_freed sum == cleared_input_tokens");
      prop_assert_eq!(freed, start - plan.report.tokens_after);
    }
  }

  /// Editing the output again with the same options clears and removes nothing — unless
  /// `clearAtLeast` is set and the request is still over the trigger (it then clears more kept
  /// results on every call, as in LangChain).
  #[test]
  fn editing_is_idempotent(msgs in conversation(), s in setup()) {
    let e = editor(&s.options);
    let first = e.plan(&msgs, &s.context).unwrap();
    let out = first.apply(&msgs);
    let again = e.plan(&out, &s.context).unwrap();
    prop_assert!(again.report.removed_orphans.is_empty());
    let at_least = edits_of(&s.options).iter().any(|x| x["clearAtLeast"].as_u64().unwrap_or(0) > 0);
    if !at_least || !first.report.still_triggered {
      prop_assert!(again.ops.is_empty(), "second plan: {:?}", again.ops);
      prop_assert_eq!(again.report.tokens_after, first.report.tokens_after);
    } else {
      prop_assert!(again.ops.iter().all(|op| !matches!(op, Op::Remove { .. })), "never removes");
    }
    prop_assert_eq!(again.report.tokens_before, first.report.tokens_after);
  }

  /// The same input always gives the same plan: same editor twice (warm cache), a fresh editor,
  /// and an editor without a cache.
  #[test]
  fn planning_is_deterministic(msgs in conversation(), s in setup()) {
    let e = editor(&s.options);
    let a = e.plan(&msgs, &s.context).unwrap();
    let b = e.plan(&msgs, &s.context).unwrap();
    prop_assert_eq!(&a, &b);
    prop_assert_eq!(&a, &editor(&s.options).plan(&msgs, &s.context).unwrap());
    let mut uncached = s.options.clone();
    uncached["tokenCacheSize"] = json!(0);
    prop_assert_eq!(&a, &editor(&uncached).plan(&msgs, &s.context).unwrap());
  }

  /// Counting is consistent with planning: an untriggered plan changes only orphans, and the
  /// whole-request count in approx mode is `ceil(sum of chars / 4)`.
  #[test]
  fn counting_matches_the_formula(msgs in conversation(), s in setup()) {
    let e = editor(&s.options);
    let c = e.count_tokens(&msgs, &s.context).unwrap();
    prop_assert_eq!(c.messages.len(), msgs.len());
    if s.options["tokenCountMethod"] == "approx" {
      let chars: u64 = msgs.iter().map(|m| {
        let mut n = m.text_len() + m.other_len() + u64::from(m.images) * 765 * 4;
        if m.role == Role::Assistant && !m.tool_calls.is_empty() {
          n += m.tool_calls_length.unwrap_or_else(|| tool_calls_json_len(&m.tool_calls));
        }
        if m.role == Role::Tool {
          n += m.tool_call_id.as_deref().map_or(0, context_editor_core::utf16_len);
        }
        n
      }).sum();
      let fixed = s.context.system_prompt.as_deref().map_or(0, context_editor_core::utf16_len)
        + s.context.tools.iter().map(|t| context_editor_core::utf16_len(t)).sum::<u64>();
      prop_assert_eq!(c.total, (chars + fixed).div_ceil(4));
      prop_assert_eq!(c.fixed, fixed.div_ceil(4));
    } else {
      prop_assert_eq!(c.total, c.messages.iter().sum::<u64>() + e.count_tokens(&[], &s.context).unwrap().total);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// A naive port of LangChain's `ClearToolUsesEdit.apply` (recount after every clear, O(n²)), with
// the deliberate differences of SEMANTICS §2 applied: the context's system prompt and tools count
// toward the trigger (not toward a single result's keep budget), a result pairs with the call of
// its position among calls sharing its id (§7.6), `clearToolInputs` may list tool names, and the
// Anthropic `toolUses` trigger key. The linear planner must produce exactly its output.

struct RefEdit {
  trigger: Vec<Value>,
  keep: Value,
  exclude: Vec<String>,
  placeholder: String,
  inputs: Value,
  at_least: u64,
}

fn ref_edits(options: &Value) -> Vec<RefEdit> {
  edits_of(options)
    .into_iter()
    .map(|e| RefEdit {
      trigger: match &e["trigger"] {
        Value::Array(list) => list.clone(),
        one => vec![one.clone()],
      },
      keep: e["keep"].clone(),
      exclude: e["excludeTools"]
        .as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default(),
      placeholder: e["placeholder"].as_str().unwrap_or("[cleared]").to_owned(),
      inputs: e["clearToolInputs"].clone(),
      at_least: e["clearAtLeast"].as_u64().unwrap_or(0),
    })
    .collect()
}

/// Nearest earlier assistant message listing `id`, and the call this result answers there.
fn ref_find_call(msgs: &[Message], idx: usize) -> Option<(usize, usize)> {
  let id = msgs[idx].tool_call_id.as_deref()?;
  let ai = (0..idx)
    .rev()
    .find(|&j| msgs[j].role == Role::Assistant && msgs[j].tool_calls.iter().any(|c| c.id == id))?;
  let earlier = (ai + 1..idx)
    .filter(|&j| msgs[j].role == Role::Tool && msgs[j].tool_call_id.as_deref() == Some(id))
    .count();
  let same: Vec<usize> = (0..msgs[ai].tool_calls.len())
    .filter(|&k| msgs[ai].tool_calls[k].id == id)
    .collect();
  Some((ai, same[earlier.min(same.len() - 1)]))
}

#[allow(
  clippy::cast_possible_truncation,
  clippy::cast_sign_loss,
  clippy::cast_precision_loss
)]
fn ref_floor(max: u64, f: f64) -> u64 {
  (max as f64 * f).floor().max(0.0) as u64
}

/// Per edit: whether it fired, the input indices it cleared in order, and LangChain's `clearedTokens`.
type EditLog = Vec<(bool, Vec<usize>, u64)>;

/// Returns the edited messages and the log of each edit.
// A port that follows LangChain's `apply` statement by statement, with its short names: kept in
// one piece so it can be compared with the original.
#[allow(
  clippy::cast_precision_loss,
  clippy::too_many_lines,
  clippy::many_single_char_names
)]
fn reference_apply(
  e: &ContextEditor,
  input: &[Message],
  options: &Value,
  ctx: &Context,
  max: Option<u64>,
) -> (Vec<Message>, EditLog) {
  let total = |m: &[Message]| count(e, m, ctx);
  let alone = |m: &Message| {
    e.count_tokens(std::slice::from_ref(m), ctx)
      .unwrap()
      .messages[0]
  };
  let orphans = reference_orphans(input);
  // Track input indices so the cleared lists compare with the report.
  let mut msgs: Vec<(usize, Message)> = input
    .iter()
    .cloned()
    .enumerate()
    .filter(|(i, _)| !orphans.contains(i))
    .collect();
  let mut log = Vec::new();
  for edit in ref_edits(options) {
    let list = |msgs: &[(usize, Message)]| msgs.iter().map(|(_, m)| m.clone()).collect::<Vec<_>>();
    let current = total(&list(&msgs));
    let tool_uses = msgs.iter().filter(|(_, m)| m.role == Role::Tool).count() as u64;
    let fires = edit.trigger.iter().any(|t| {
      let mut met = true;
      if let Some(n) = t["messages"].as_u64() {
        met &= msgs.len() as u64 >= n;
      }
      if let Some(n) = t["tokens"].as_f64() {
        met &= current as f64 >= n;
      }
      if let Some(n) = t["toolUses"].as_u64() {
        met &= tool_uses >= n;
      }
      if let Some(f) = t["fraction"].as_f64() {
        let Some(max) = max else { return false };
        let threshold = ref_floor(max, f);
        if threshold == 0 {
          return false;
        }
        met &= current >= threshold;
      }
      met
    });
    let candidates: Vec<usize> = (0..msgs.len())
      .filter(|&p| msgs[p].1.role == Role::Tool)
      .collect();
    if !fires || candidates.is_empty() {
      log.push((fires, Vec::new(), 0));
      continue;
    }
    let walk = |budget: f64| {
      let (mut used, mut kept) = (0u64, 0u64);
      for &p in candidates.iter().rev() {
        let t = alone(&msgs[p].1);
        if (used + t) as f64 <= budget {
          used += t;
          kept += 1;
        } else {
          break;
        }
      }
      kept
    };
    let keep = if let Some(n) = edit.keep["messages"].as_u64() {
      n
    } else if let Some(b) = edit.keep["tokens"].as_f64() {
      walk(b)
    } else {
      let f = edit.keep["fraction"].as_f64().unwrap();
      match max.map(|m| ref_floor(m, f)) {
        None | Some(0) => 3,
        Some(b) => walk(b as f64),
      }
    };
    let len = candidates.len() as u64;
    let to_clear: Vec<usize> = if keep >= len {
      Vec::new()
    } else {
      candidates[..(len - keep) as usize].to_vec()
    };
    let at_start: Vec<bool> = msgs.iter().map(|(_, m)| m.cleared).collect();
    let mut cleared_tokens = 0u64;
    let mut order = Vec::new();
    let mut clear = |msgs: &mut Vec<(usize, Message)>, p: usize, cleared_tokens: &mut u64| {
      if at_start[p] {
        return;
      }
      let plain = list(msgs);
      let Some((ai, k)) = ref_find_call(&plain, p) else {
        return;
      };
      let m = &plain[p];
      let name = match m.name.as_deref() {
        Some(n) if !n.is_empty() => n.to_owned(),
        _ => plain[ai].tool_calls[k].name.clone(),
      };
      if edit.exclude.contains(&name) {
        return;
      }
      let r = &mut msgs[p].1;
      r.content = Some(edit.placeholder.clone());
      r.content_length = None;
      r.other = None;
      r.other_length = None;
      r.images = 0;
      r.tokens = None;
      r.cleared = true;
      let inputs = match &edit.inputs {
        Value::Bool(b) => *b,
        Value::Array(names) => names.iter().any(|n| n.as_str() == Some(name.as_str())),
        _ => false,
      };
      if inputs {
        let a = &mut msgs[ai].1;
        let old = a.tool_calls[k].args_len();
        a.tool_calls_length = a.tool_calls_length.map(|n| n - old + 2);
        a.tool_calls[k].args = Some("{}".into());
        a.tool_calls[k].args_length = None;
        a.tokens = None;
        let id = a.tool_calls[k].id.clone();
        let mut ids: BTreeSet<String> = a.cleared_tool_inputs.iter().cloned().collect();
        ids.insert(id);
        a.cleared_tool_inputs = ids.into_iter().collect();
      }
      order.push(msgs[p].0);
      *cleared_tokens = current.saturating_sub(total(&list(msgs)));
    };
    for &p in &to_clear {
      clear(&mut msgs, p, &mut cleared_tokens);
    }
    if edit.at_least > 0 && cleared_tokens < edit.at_least && keep > 0 && keep < len {
      for &p in candidates[(len - keep) as usize..].iter().rev() {
        if cleared_tokens >= edit.at_least {
          break;
        }
        clear(&mut msgs, p, &mut cleared_tokens);
      }
    }
    log.push((true, order, cleared_tokens));
  }
  (msgs.into_iter().map(|(_, m)| m).collect(), log)
}

proptest! {
  #![proptest_config(config())]

  /// The one-pass planner decides exactly what the naive LangChain port decides, in every counting
  /// method, for single edits and pipelines.
  #[test]
  fn matches_a_naive_port_of_langchain(msgs in conversation(), s in setup(), exact in prop::option::weighted(0.5, 0usize..5)) {
    let mut s = s;
    // Budgets exactly equal to the sizes of the newest results (and thresholds equal to the
    // request's size) probe the inclusive comparisons.
    if let Some(j) = exact {
      let e = editor(&s.options);
      let orphans = reference_orphans(&msgs);
      let live: Vec<Message> = msgs.iter().enumerate().filter(|(i, _)| !orphans.contains(i)).map(|(_, m)| m.clone()).collect();
      let alone = |m: &Message| e.count_tokens(std::slice::from_ref(m), &s.context).unwrap().messages[0];
      let sizes: u64 = live.iter().filter(|m| m.role == Role::Tool).rev().take(j).map(alone).sum();
      let now = count(&e, &live, &s.context);
      let first = if s.options.get("edits").is_some() { &mut s.options["edits"][0] } else { &mut s.options };
      if first["keep"].get("tokens").is_some() {
        first["keep"] = json!({ "tokens": sizes });
      }
      if now > 0 {
        first["trigger"] = json!({ "tokens": now });
      }
    }
    let e = editor(&s.options);
    let plan = e.plan(&msgs, &s.context).unwrap();
    let max = plan.report.max_input_tokens;
    let (expected, log) = reference_apply(&e, &msgs, &s.options, &s.context, max);
    prop_assert_eq!(plan.apply(&msgs), expected);
    let ours: Vec<(bool, u64)> = plan.report.applied_edits.iter().map(|a| (a.triggered, a.cleared_input_tokens)).collect();
    let theirs: Vec<(bool, u64)> = log.iter().map(|(t, _, freed)| (*t, *freed)).collect();
    prop_assert_eq!(ours, theirs);
    let order: Vec<usize> = log.iter().flat_map(|(_, o, _)| o.iter().copied()).collect();
    prop_assert_eq!(plan.report.cleared.iter().map(|c| c.index).collect::<Vec<_>>(), order);
  }
}

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
