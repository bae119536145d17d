//! Golden fixtures: realistic agent histories in `tests/fixtures/*.json` with the exact plan and
//! report expected for them.
//!
//! A fixture holds `options` (editor JSON options), `context` (`maxInputTokens`, `systemPrompt`,
//! `tools`, `model`), `messages` in wire form (`role`, `content`, `toolCalls: [{id, name, args}]`
//! with `args` as a JSON value, `toolCallId`, `name`, `cleared`, `clearedToolInputs`) and `expected`
//! (`ops` and the decision-relevant `report` fields). Messages are built with the public
//! constructors, so these tests need no crate feature. The decisions (which results are removed or
//! cleared, which inputs) were cross-checked against LangChain.js 1.5.14 `ClearToolUsesEdit` with a
//! counter of the same formula; `fraction_with_limit` also exercises the deliberate difference that
//! the context's system prompt and tools count.

use std::path::PathBuf;

use context_editor_core::{Context, ContextEditor, EditPlan, Message, Op, Role};
use serde_json::{json, Value};

fn fixture_dir() -> PathBuf {
  PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    .join("tests")
    .join("fixtures")
}

fn load(name: &str) -> Value {
  let path = fixture_dir().join(format!("{name}.json"));
  let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
  serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn str_field(v: &Value, key: &str) -> Option<String> {
  v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn message(v: &Value) -> Message {
  let role = Role::parse(v["role"].as_str().expect("role")).expect("known role");
  let mut m = Message::new(role, v["content"].as_str().unwrap_or_default());
  if let Some(calls) = v.get("toolCalls").and_then(Value::as_array) {
    let calls: Vec<(String, String, String)> = calls
      .iter()
      .map(|c| {
        (
          str_field(c, "id").expect("call id"),
          str_field(c, "name").unwrap_or_default(),
          // `JSON.stringify(args)`: compact, keys in their written order.
          c.get("args")
            .map_or_else(|| "{}".to_owned(), Value::to_string),
        )
      })
      .collect();
    let refs: Vec<(&str, &str, &str)> = calls
      .iter()
      .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
      .collect();
    m.tool_calls = Message::assistant("", &refs).tool_calls;
  }
  m.tool_call_id = str_field(v, "toolCallId");
  m.name = str_field(v, "name").filter(|n| !n.is_empty());
  m.cleared = v.get("cleared").and_then(Value::as_bool).unwrap_or(false);
  if let Some(ids) = v.get("clearedToolInputs").and_then(Value::as_array) {
    m.cleared_tool_inputs = ids
      .iter()
      .map(|s| s.as_str().expect("id").to_owned())
      .collect();
  }
  m
}

fn context(v: &Value) -> Context {
  Context {
    max_input_tokens: v.get("maxInputTokens").and_then(Value::as_u64),
    system_prompt: str_field(v, "systemPrompt"),
    tools: v
      .get("tools")
      .and_then(Value::as_array)
      .map(|t| {
        t.iter()
          .map(|s| s.as_str().expect("tool JSON text").to_owned())
          .collect()
      })
      .unwrap_or_default(),
    model: str_field(v, "model"),
    ..Context::default()
  }
}

fn ops_json(plan: &EditPlan) -> Value {
  plan
    .ops
    .iter()
    .map(|op| match op {
      Op::Remove { index } => json!({ "type": "remove", "index": index }),
      Op::ClearToolResult {
        index,
        placeholder,
        strategy,
      } => json!({ "type": "clear_tool_result", "index": index, "placeholder": &**placeholder, "strategy": strategy }),
      Op::ClearToolInputs {
        index,
        call_indices,
        tool_call_ids,
        cleared_tool_inputs,
      } => json!({
        "type": "clear_tool_inputs", "index": index, "callIndices": call_indices,
        "toolCallIds": tool_call_ids, "clearedToolInputs": cleared_tool_inputs
      }),
      other => panic!("unexpected op {other:?}"),
    })
    .collect()
}

fn report_json(plan: &EditPlan) -> Value {
  let r = &plan.report;
  json!({
    "triggered": r.triggered,
    "stillTriggered": r.still_triggered,
    "tokensBefore": r.tokens_before,
    "tokensAfter": r.tokens_after,
    "messagesBefore": r.messages_before,
    "messagesAfter": r.messages_after,
    "maxInputTokens": r.max_input_tokens,
    "overMaxInputTokens": r.over_max_input_tokens,
    "removedOrphans": r.removed_orphans.iter().map(|o| json!([o.index, o.tool_call_id])).collect::<Vec<_>>(),
    "cleared": r.cleared.iter().map(|c| json!({
      "index": c.index, "toolCallId": &*c.tool_call_id, "toolName": &*c.tool_name, "tokensFreed": c.tokens_freed
    })).collect::<Vec<_>>(),
    "clearedToolInputs": r.cleared_tool_inputs.iter().map(|c| json!([c.index, c.call_index, &*c.tool_call_id])).collect::<Vec<_>>(),
    "appliedEdits": r.applied_edits.iter().map(|a| json!({
      "type": a.edit_type, "triggered": a.triggered,
      "clearedToolUses": a.cleared_tool_uses, "clearedInputTokens": a.cleared_input_tokens
    })).collect::<Vec<_>>(),
    "warnings": r.warnings.iter().map(|w| json!([w.code, w.index])).collect::<Vec<_>>(),
  })
}

fn check(name: &str) {
  let f = load(name);
  let messages: Vec<Message> = f["messages"]
    .as_array()
    .expect("messages")
    .iter()
    .map(message)
    .collect();
  let ctx = context(&f["context"]);
  let editor = ContextEditor::from_json(&f["options"]).expect("fixture options");
  let plan = editor.plan(&messages, &ctx).expect("plan");
  let actual = json!({ "ops": ops_json(&plan), "report": report_json(&plan) });
  if std::env::var_os("GOLDEN_BLESS").is_some() {
    // `GOLDEN_BLESS=1 cargo test -p context-editor-core --test golden` rewrites `expected`; review
    // the diff (and re-check the decisions against LangChain) before committing it.
    let mut blessed = f.clone();
    blessed["expected"] = actual;
    let path = fixture_dir().join(format!("{name}.json"));
    std::fs::write(
      &path,
      serde_json::to_string_pretty(&blessed).unwrap() + "\n",
    )
    .unwrap();
    return;
  }
  let expected = &f["expected"];
  assert!(
    *expected == actual,
    "fixture {name}: plan differs.\nexpected: {}\nactual:   {}",
    serde_json::to_string_pretty(expected).unwrap(),
    serde_json::to_string_pretty(&actual).unwrap()
  );
  // The report's totals are a recount of the applied output.
  let out = plan.apply(&messages);
  assert_eq!(
    editor.count_tokens(&out, &ctx).unwrap().total,
    plan.report.tokens_after
  );
  assert_eq!(
    editor.count_tokens(&messages, &ctx).unwrap().total,
    plan.report.tokens_before
  );
  // Same decisions with exact counting would differ in numbers, not in safety: no orphan survives.
  let model = {
    let mut o = f["options"].clone();
    o["tokenCountMethod"] = json!("model");
    ContextEditor::from_json(&o).unwrap()
  };
  let p = model.plan(&messages, &ctx).unwrap();
  assert_eq!(
    model.count_tokens(&p.apply(&messages), &ctx).unwrap().total,
    p.report.tokens_after
  );
  assert_eq!(p.report.removed_orphans, plan.report.removed_orphans);
}

const FIXTURES: &[&str] = &[
  "coding_agent",
  "research_agent_resumed",
  "fraction_with_limit",
];

#[test]
fn golden_coding_agent() {
  check("coding_agent");
}

#[test]
fn golden_research_agent_resumed() {
  check("research_agent_resumed");
}

#[test]
fn golden_fraction_with_limit() {
  check("fraction_with_limit");
}

#[test]
fn every_fixture_file_has_a_test() {
  let mut on_disk: Vec<String> = std::fs::read_dir(fixture_dir())
    .unwrap()
    .filter_map(|e| {
      let name = e.ok()?.file_name().into_string().ok()?;
      name.strip_suffix(".json").map(str::to_owned)
    })
    .collect();
  on_disk.sort();
  let mut listed: Vec<String> = FIXTURES.iter().map(|s| (*s).to_owned()).collect();
  listed.sort();
  assert_eq!(on_disk, listed);
}
