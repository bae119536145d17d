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
//!
//! The generators and helpers below are shared by the modules: `clear_tool_uses` (the invariants
//! of every plan and its applied output), `langchain_reference` (the planner against a naive port
//! of LangChain's `ClearToolUsesEdit.apply`), `pipelines` (every edit alone and every pipeline of
//! two) and `sessions` (sessions plan like whole conversations).

// Generated sizes and counts are small: casts between integer widths cannot truncate.
#![allow(clippy::cast_possible_truncation)]

#[path = "../common/mod.rs"]
mod common;

use std::collections::BTreeSet;

use common::invariants::{
  check_call, check_plan, reference_dangling, reference_orphans, self_describing,
};
use context_editor_core::{Context, ContextEditor, EditPlan, Message, Op, Role, ToolCall};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Value};

mod clear_tool_uses;
mod langchain_reference;
mod pipelines;
mod sessions;

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

fn config() -> ProptestConfig {
  ProptestConfig {
    cases: std::env::var("PROPTEST_CASES")
      .ok()
      .and_then(|v| v.parse().ok())
      .unwrap_or(256),
    max_shrink_iters: 2000,
    ..ProptestConfig::default()
  }
}
