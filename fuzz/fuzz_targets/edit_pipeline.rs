//! The edit pipeline on structured input (`arbitrary`): conversations built from a small id and
//! tool-name pool (so calls, results, orphans, dangling calls and reused ids collide often), across
//! every option combination (trigger keys alone/ANDed/ORed, keep measures, exclusions,
//! placeholders, clearToolInputs as flag or list, clearAtLeast, multi-edit pipelines, counting
//! methods, encodings, models, cache sizes), checked with `context_editor_fuzz::check_call`.
//!
//! Options go through `Options::from_json`, like every real caller's. To cover a new edit type
//! (issue 4), add a variant to `EditSpec` and its JSON in `EditSpec::to_json`.
#![no_main]

use arbitrary::Arbitrary;
use context_editor_core::{Context, ContextEditor, Message, Options, Role, ToolCall};
use context_editor_fuzz::{check_call, self_describing};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};

const IDS: &[&str] = &["call_1", "call_2", "call_3", "toolu_01", "x", "call_1 "];
const TOOLS: &[&str] = &["search", "read", "write", "memory", "", "__proto__"];
const MODELS: &[&str] = &[
  "gpt-4o",
  "gpt-4",
  "gpt-3.5-turbo",
  "o1",
  "claude-3-5-sonnet",
  "deepseek-chat",
  "",
];
const ENCODINGS: &[&str] = &[
  "o200k_base",
  "cl100k_base",
  "p50k_base",
  "r50k_base",
  "o200k_harmony",
  "p50k_edit",
];
const PLACEHOLDERS: &[&str] = &[
  "[cleared]",
  "",
  "✂",
  "${process.exit()}",
  "a much longer placeholder than most results it replaces, on purpose",
];

#[derive(Arbitrary, Debug)]
struct Input {
  method: u8,
  encoding: Option<u8>,
  model: Option<u8>,
  cache_size: Option<u8>,
  /// Top-level shorthand (one edit) instead of `edits`.
  shorthand: bool,
  edits: Vec<EditSpec>,
  messages: Vec<Msg>,
  context: Ctx,
  /// How many messages each call of the session adds (1 to 4).
  session_step: u8,
}

#[derive(Arbitrary, Debug)]
enum EditSpec {
  ClearToolUses {
    trigger: Vec<Cond>,
    keep: Option<KeepSpec>,
    exclude: Vec<u8>,
    placeholder: Option<u8>,
    clear_inputs: ClearInputsSpec,
    clear_at_least: Option<u16>,
  },
}

#[derive(Arbitrary, Debug)]
struct Cond {
  tokens: Option<u16>,
  messages: Option<u8>,
  fraction: Option<u8>,
  tool_uses: Option<u8>,
}

#[derive(Arbitrary, Debug)]
enum KeepSpec {
  Messages(u8),
  Tokens(u16),
  Fraction(u8),
}

#[derive(Arbitrary, Debug)]
enum ClearInputsSpec {
  Absent,
  All,
  Flag(bool),
  Tools(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Ctx {
  max_input_tokens: Option<u16>,
  system_prompt: Option<String>,
  tools: Vec<String>,
  model: Option<u8>,
}

#[derive(Arbitrary, Debug)]
enum Msg {
  System(Text),
  User(Text),
  Assistant {
    text: Text,
    calls: Vec<Call>,
    cleared_inputs: Vec<u8>,
    /// Small on purpose: a supplied length shorter than the calls is the interesting inconsistency.
    tool_calls_length: Option<u8>,
  },
  /// A well-formed exchange: an assistant message with calls, then one result per call (so
  /// clearing, and clearing inputs, happen often; random messages rarely pair).
  Exchange {
    text: Text,
    calls: Vec<Call>,
    results: Vec<Text>,
    tool_calls_length: Option<u8>,
  },
  Tool {
    id: u8,
    name: Option<u8>,
    text: Text,
    cleared: bool,
  },
  /// Caller-supplied sizes and blocks instead of (or beside) the text.
  Sized {
    role: u8,
    text: Option<Text>,
    content_length: Option<u32>,
    other: Option<String>,
    other_length: Option<u32>,
    images: u8,
    tokens: Option<u32>,
    tool_calls_length: Option<u32>,
    huge: Option<u64>,
  },
}

#[derive(Arbitrary, Debug)]
struct Call {
  id: u8,
  name: u8,
  args: Option<String>,
  args_length: Option<u16>,
}

#[derive(Arbitrary, Debug)]
struct Text {
  s: String,
  repeat: u8,
}

fn pick<'a>(list: &[&'a str], i: u8) -> &'a str {
  list[usize::from(i) % list.len()]
}

impl Text {
  fn build(&self) -> String {
    let s: String = self.s.chars().take(200).collect();
    s.repeat(1 + usize::from(self.repeat % 16))
  }
}

impl Cond {
  fn to_json(&self) -> Value {
    let mut o = Map::new();
    if let Some(t) = self.tokens {
      o.insert("tokens".into(), json!(u64::from(t) + 1));
    }
    if let Some(m) = self.messages {
      o.insert("messages".into(), json!(u64::from(m % 40) + 1));
    }
    if let Some(f) = self.fraction {
      o.insert("fraction".into(), json!(f64::from(f % 100 + 1) / 100.0));
    }
    if let Some(n) = self.tool_uses {
      o.insert("toolUses".into(), json!(u64::from(n % 20) + 1));
    }
    if o.is_empty() {
      o.insert("tokens".into(), json!(1));
    }
    Value::Object(o)
  }
}

impl EditSpec {
  /// The edit's options, without `type`.
  fn body(&self) -> Map<String, Value> {
    let mut o = Map::new();
    match self {
      Self::ClearToolUses {
        trigger,
        keep,
        exclude,
        placeholder,
        clear_inputs,
        clear_at_least,
      } => {
        match trigger.len() {
          0 => {}
          1 => {
            o.insert("trigger".into(), trigger[0].to_json());
          }
          _ => {
            o.insert(
              "trigger".into(),
              Value::Array(trigger.iter().take(4).map(Cond::to_json).collect()),
            );
          }
        }
        if let Some(k) = keep {
          o.insert(
            "keep".into(),
            match k {
              KeepSpec::Messages(n) => json!({ "messages": n % 12 }),
              KeepSpec::Tokens(n) => json!({ "tokens": n }),
              KeepSpec::Fraction(f) => json!({ "fraction": f64::from(*f % 101) / 100.0 }),
            },
          );
        }
        if !exclude.is_empty() {
          o.insert(
            "excludeTools".into(),
            json!(exclude.iter().map(|&i| pick(TOOLS, i)).collect::<Vec<_>>()),
          );
        }
        if let Some(p) = placeholder {
          o.insert("placeholder".into(), json!(pick(PLACEHOLDERS, *p)));
        }
        let inputs = match clear_inputs {
          ClearInputsSpec::Absent => None,
          ClearInputsSpec::All => Some(json!(true)),
          ClearInputsSpec::Flag(b) => Some(json!(b)),
          ClearInputsSpec::Tools(t) => {
            Some(json!(t.iter().map(|&i| pick(TOOLS, i)).collect::<Vec<_>>()))
          }
        };
        if let Some(v) = inputs {
          o.insert("clearToolInputs".into(), v);
        }
        if let Some(n) = clear_at_least {
          o.insert("clearAtLeast".into(), json!(n));
        }
      }
    }
    o
  }

  fn to_json(&self) -> Value {
    let mut o = self.body();
    let kind = match self {
      Self::ClearToolUses { .. } => "clear_tool_uses",
    };
    o.insert("type".into(), json!(kind));
    Value::Object(o)
  }
}

impl Input {
  fn options(&self) -> Value {
    let mut o = if self.shorthand || self.edits.is_empty() {
      self.edits.first().map(EditSpec::body).unwrap_or_default()
    } else {
      let mut o = Map::new();
      o.insert(
        "edits".into(),
        Value::Array(self.edits.iter().take(3).map(EditSpec::to_json).collect()),
      );
      o
    };
    o.insert(
      "tokenCountMethod".into(),
      json!(pick(&["approx", "model", "estimate"], self.method)),
    );
    if let Some(e) = self.encoding {
      o.insert("encoding".into(), json!(pick(ENCODINGS, e)));
    }
    if let Some(m) = self.model {
      o.insert("model".into(), json!(pick(MODELS, m)));
    }
    if let Some(c) = self.cache_size {
      o.insert("tokenCacheSize".into(), json!(c % 4));
    }
    Value::Object(o)
  }

  fn messages(&self) -> Vec<Message> {
    self.messages.iter().take(64).flat_map(Msg::build).collect()
  }

  fn context(&self) -> Context {
    Context {
      max_input_tokens: self.context.max_input_tokens.map(|n| u64::from(n) + 1),
      system_prompt: self.context.system_prompt.clone(),
      tools: self.context.tools.iter().take(4).cloned().collect(),
      model: self.context.model.map(|m| pick(MODELS, m).to_owned()),
      ..Context::default()
    }
  }
}

impl Msg {
  /// The message (an exchange: the assistant message and its results).
  fn build(&self) -> Vec<Message> {
    match self {
      Self::Exchange {
        text,
        calls,
        results,
        tool_calls_length,
      } => exchange(text, calls, results, *tool_calls_length),
      Self::System(t) => vec![Message::system(t.build())],
      Self::User(t) => vec![Message::user(t.build())],
      Self::Assistant {
        text,
        calls,
        cleared_inputs,
        tool_calls_length,
      } => {
        let mut m = Message::new(Role::Assistant, text.build());
        m.tool_calls = calls.iter().take(6).map(Call::build).collect();
        m.cleared_tool_inputs = cleared_inputs
          .iter()
          .take(4)
          .map(|&i| pick(IDS, i).to_owned())
          .collect();
        // A caller-supplied length, possibly inconsistent with the calls (issue7_apply_short_tool_calls_length).
        m.tool_calls_length = tool_calls_length.map(u64::from);
        vec![m]
      }
      Self::Tool {
        id,
        name,
        text,
        cleared,
      } => {
        let mut m = Message::tool(
          pick(IDS, *id),
          name.map_or("", |n| pick(TOOLS, n)),
          text.build(),
        );
        m.cleared = *cleared;
        vec![m]
      }
      Self::Sized { .. } => vec![self.sized()],
    }
  }

  /// A `Sized` message: text or lengths only, supplied counts, images, sizes beyond the bound.
  fn sized(&self) -> Message {
    let Self::Sized {
      role,
      text,
      content_length,
      other,
      other_length,
      images,
      tokens,
      tool_calls_length,
      huge,
    } = self
    else {
      unreachable!("sized() of a Sized message")
    };
    let role = [Role::System, Role::User, Role::Assistant, Role::Tool][usize::from(*role % 4)];
    let mut m = Message::new(role, String::new());
    m.content = text.as_ref().map(Text::build);
    m.content_length = content_length.map(u64::from);
    m.other = other.as_ref().map(|o| o.chars().take(300).collect());
    m.other_length = other_length.map(u64::from);
    m.images = u32::from(*images % 4);
    m.tokens = tokens.map(u64::from);
    m.tool_calls_length = tool_calls_length.map(u64::from);
    if role == Role::Tool {
      m.tool_call_id = Some(IDS[0].to_owned());
    }
    // Beyond what the binding can send: must be rejected, never overflow (issue7_supplied_lengths_bounded).
    if let Some(n) = huge {
      m.content_length = Some(*n);
    }
    m
  }
}

/// An assistant message with calls, followed by one result per call (empty text when `results`
/// runs out).
fn exchange(
  text: &Text,
  calls: &[Call],
  results: &[Text],
  tool_calls_length: Option<u8>,
) -> Vec<Message> {
  let mut ai = Message::new(Role::Assistant, text.build());
  ai.tool_calls = calls.iter().take(4).map(Call::build).collect();
  ai.tool_calls_length = tool_calls_length.map(u64::from);
  let mut out = vec![ai.clone()];
  for (c, r) in ai
    .tool_calls
    .iter()
    .zip(results.iter().chain(std::iter::repeat(&Text {
      s: String::new(),
      repeat: 0,
    })))
  {
    out.push(Message::tool(c.id.clone(), c.name.clone(), r.build()));
  }
  out
}

impl Call {
  fn build(&self) -> ToolCall {
    ToolCall {
      id: pick(IDS, self.id).to_owned(),
      name: pick(TOOLS, self.name).to_owned(),
      args: self.args.as_ref().map(|a| a.chars().take(300).collect()),
      args_length: self.args_length.map(u64::from),
    }
  }
}

fuzz_target!(|input: Input| {
  // Generated options are valid except where the generator deliberately leaves the valid range
  // (e.g. a fraction without a limit is fine; an unknown encoding cannot happen).
  let options = match Options::from_json(&input.options()) {
    Ok(o) => o,
    Err(e) => panic!("generated options rejected: {e} ({})", input.options()),
  };
  let messages = input.messages();
  let editor = ContextEditor::new(options);
  let context = input.context();
  check_call(&editor, &messages, &context, self_describing(&messages));
  // The same conversation grown a few messages at a time, as an agent's calls send it: a session
  // plans each prefix exactly as the whole prefix is planned (from its running figures when the
  // pipeline allows it, see `grown.rs`).
  let step = usize::from(input.session_step % 4) + 1;
  let mut held = 0;
  while held < messages.len() {
    let end = (held + step).min(messages.len());
    let Ok(want) = editor.plan(&messages[..end], &context) else {
      break;
    };
    let got = editor
      .plan_session(1, held, messages[held..end].to_vec(), &context)
      .expect("a prefix that plans whole plans in a session")
      .expect("the session holds what the previous call left");
    assert_eq!(got, want, "session plan of messages[..{end}]");
    held = end;
  }
});
