//! Lengths given instead of the system prompt's and the tools' texts (`Context::system_prompt_length`,
//! `Context::tool_lengths`): approx counting reads only lengths, so a plan and a count from lengths
//! are those from the texts; the other methods need the texts, and a context gives one or the other.

use context_editor_core::{validate_context, Context, ContextEditor, ErrorKind};
use serde_json::json;

// `editor` there takes its options by value, as the rule-by-rule crates call it.
#[allow(clippy::needless_pass_by_value)]
#[path = "common/plans.rs"]
mod plans;
use plans::read_history;

fn editor(method: &str) -> ContextEditor {
  ContextEditor::from_json(&json!({
    "tokenCountMethod": method, "model": "gpt-4o", "trigger": { "tokens": 1500 }, "keep": { "messages": 1 }
  }))
  .unwrap()
}

/// UTF-16 code units, as JavaScript's `length`.
fn units(s: &str) -> u64 {
  s.encode_utf16().count() as u64
}

fn texts() -> Context {
  Context {
    // Two-byte and astral text: its length in UTF-16 units is not its length in bytes.
    system_prompt: Some("你是一个代理。Use the tools 😀. ".repeat(40)),
    tools: vec![
      r#"{"type":"function","function":{"name":"read","description":"读取文件"}}"#.repeat(6),
      r#"{"type":"function","function":{"name":"search"}}"#.to_owned(),
    ],
    ..Context::default()
  }
}

fn lengths(c: &Context) -> Context {
  Context {
    system_prompt: None,
    tools: Vec::new(),
    system_prompt_length: c.system_prompt.as_deref().map(units),
    tool_lengths: c.tools.iter().map(|t| units(t)).collect(),
    ..c.clone()
  }
}

#[test]
fn approx_plans_and_counts_from_lengths_as_from_texts() {
  let ed = editor("approx");
  let with_texts = texts();
  let with_lengths = lengths(&with_texts);
  for results in [0, 3, 12, 40] {
    let h = read_history(results);
    let a = ed.plan(&h, &with_texts).unwrap();
    let b = ed.plan(&h, &with_lengths).unwrap();
    assert_eq!(a, b, "{results} results");
    assert_eq!(
      ed.count_tokens(&h, &with_texts).unwrap(),
      ed.count_tokens(&h, &with_lengths).unwrap()
    );
    // The fixed part is counted at all: without it the request is smaller.
    let bare = ed.count_tokens(&h, &Context::default()).unwrap();
    assert!(ed.count_tokens(&h, &with_lengths).unwrap().total > bare.total);
  }
  // Through a session too (a next call).
  let h = read_history(20);
  let first = ed
    .plan_session(7, 0, h[..21].to_vec(), &with_lengths)
    .unwrap()
    .unwrap();
  let next = ed
    .plan_session(7, 21, h[21..].to_vec(), &with_lengths)
    .unwrap()
    .unwrap();
  assert_eq!(first, ed.plan(&h[..21], &with_texts).unwrap());
  assert_eq!(next, ed.plan(&h, &with_texts).unwrap());
  assert!(next.report.triggered);
}

#[test]
fn a_text_and_its_length_together_are_an_invalid_context() {
  let mut both = texts();
  both.system_prompt_length = Some(3);
  let e = validate_context(&both).unwrap_err();
  assert_eq!(
    (e.kind(), e.path()),
    (ErrorKind::InvalidContext, Some("systemPromptLength"))
  );
  let mut both = texts();
  both.tool_lengths = vec![1];
  let e = validate_context(&both).unwrap_err();
  assert_eq!(
    (e.kind(), e.path()),
    (ErrorKind::InvalidContext, Some("toolLengths"))
  );
  validate_context(&lengths(&texts())).unwrap();
}

#[test]
fn model_and_estimate_counting_need_the_texts() {
  let h = read_history(2);
  for method in ["model", "estimate"] {
    let ed = editor(method);
    let only_tools = Context {
      tool_lengths: vec![40],
      ..Context::default()
    };
    for (c, path) in [
      (lengths(&texts()), "systemPromptLength"),
      (only_tools, "toolLengths"),
    ] {
      let e = ed.plan(&h, &c).unwrap_err();
      assert_eq!(
        (e.kind(), e.path()),
        (ErrorKind::InvalidContext, Some(path)),
        "{method}"
      );
      assert!(e.to_string().contains("approx"), "{e}");
      assert_eq!(
        ed.count_tokens(&h, &c).unwrap_err().kind(),
        ErrorKind::InvalidContext
      );
    }
    // The texts are counted as before.
    assert!(
      ed.count_tokens(&h, &texts()).unwrap().total
        > ed.count_tokens(&h, &Context::default()).unwrap().total
    );
  }
}
