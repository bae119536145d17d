//! Option parsing: defaults, aliases, `null` fields, pipelines, and errors that name the path.

use serde_json::{json, Value};

use super::*;

// Helpers take `json!` values by value, as the tests write them.
#[allow(clippy::needless_pass_by_value)]
fn clear(v: Value) -> ClearToolUses {
  match Options::from_json(&v).unwrap().edits.remove(0) {
    Edit::ClearToolUses(c) => c,
    other => panic!("expected clear_tool_uses, got {other:?}"),
  }
}

#[allow(clippy::needless_pass_by_value)]
fn err(v: Value) -> String {
  Options::from_json(&v).unwrap_err().to_string()
}

#[test]
fn defaults_match_langchain() {
  let c = clear(json!({}));
  assert_eq!(
    c.trigger,
    vec![Trigger {
      tokens: Some(100_000.0),
      ..Trigger::default()
    }]
  );
  assert_eq!(c.keep, Keep::Messages(3));
  assert_eq!(c.placeholder, "[cleared]");
  assert_eq!(c.clear_tool_inputs, ClearInputs::None);
  assert_eq!(c.clear_at_least, 0);
  assert_eq!(
    Options::from_json(&Value::Null).unwrap(),
    Options::default()
  );
}

#[test]
fn null_fields_are_unset() {
  let c = clear(
    json!({ "trigger": null, "keep": { "messages": null, "tokens": 50 }, "placeholder": null }),
  );
  assert_eq!(c.keep, Keep::Tokens(50.0));
  assert_eq!(c.placeholder, "[cleared]");
}

#[test]
fn trigger_array_and_aliases() {
  let c = clear(json!({ "trigger": [{ "tokens": 10, "messages": 2 }, { "fraction": 0.5 }] }));
  assert_eq!(c.trigger.len(), 2);
  assert_eq!(c.trigger[0].messages, Some(2));
  let c = clear(json!({ "triggerTokens": 7, "keepMessages": 1 }));
  assert_eq!(c.trigger[0].tokens, Some(7.0));
  assert_eq!(c.keep, Keep::Messages(1));
}

#[test]
fn errors_name_the_path() {
  assert_eq!(
    err(json!({ "keep": {} })),
    "keep: exactly one of messages, tokens, fraction (got none)"
  );
  assert_eq!(
    err(json!({ "trigger": [{ "tokens": 5 }, { "fraction": 2 }] })),
    "trigger[1].fraction: expected a number in (0, 1], got 2"
  );
  assert_eq!(
    err(json!({ "trigger": { "tokens": -1 } })),
    "trigger.tokens: expected a number > 0, got -1"
  );
  assert_eq!(
    err(json!({ "trigger": { "messages": 1.5 } })),
    "trigger.messages: expected an integer > 0, got 1.5"
  );
  assert_eq!(
    err(json!({ "excludeTools": ["a", 3] })),
    "excludeTools[1]: expected a string, got 3"
  );
  assert!(err(json!({ "keepp": 1 })).starts_with("keepp: unknown option (expected one of"));
  assert_eq!(
    err(json!({ "tokenCountMethod": "exact" })),
    "tokenCountMethod: expected \"approx\", \"model\" or \"estimate\", got \"exact\""
  );
  assert!(err(json!({ "encoding": "gpt9" })).contains("unknown encoding `gpt9`"));
  assert_eq!(
    err(json!({ "trigger": {} })),
    "trigger: expected at least one of tokens, messages, fraction, toolUses, turns"
  );
  assert_eq!(err(json!([])), "options: expected an object, got an array");
}

#[test]
fn edits_pipeline_and_conflicts() {
  let o = Options::from_json(
    &json!({ "edits": [{ "type": "clear_tool_uses", "keep": { "messages": 1 } }] }),
  )
  .unwrap();
  assert_eq!(o.edits.len(), 1);
  assert!(err(json!({ "edits": [], "keep": { "messages": 1 } }))
    .starts_with("keep: top-level clearing options"));
  assert_eq!(
    err(json!({ "edits": [{ "type": "zap" }] })),
    "edits[0].type: unknown edit type `zap` (expected one of clear_tool_uses, clear_thinking, last_n, strip_tool_calls, strip_and_truncate, trim_turns, truncate_tool_results, summarize, clear_media)"
  );
  assert_eq!(
    err(json!({ "edits": [{ "type": "summarize" }, { "type": "last_n", "n": 3 }] })),
    "edits[0].type: `summarize` must be the last edit (its result is written by the model after planning)"
  );
  assert_eq!(
    err(json!({ "edits": [{ "type": "last_n" }] })),
    "edits[0].n: `last_n` needs `n`, the number of non-system messages to keep"
  );
  assert_eq!(
    err(json!({ "edits": [{ "type": "clear_thinking", "keep": 2 }] })),
    "edits[0].keep: expected { thinkingTurns: N } or \"all\", got 2"
  );
  assert!(err(
    json!({ "edits": [{ "type": "summarize", "keep": { "turns": 1, "messages": 2 } }] })
  )
  .starts_with("edits[0].keep: exactly one of messages, tokens, fraction, turns"));
  assert!(
    err(json!({ "edits": [{ "type": "clear_tool_uses", "kep": 1 }] }))
      .starts_with("edits[0].kep: unknown option")
  );
}

#[test]
fn clear_tool_inputs_accepts_a_list() {
  let c = clear(json!({ "clearToolInputs": ["search"] }));
  assert!(c.clear_tool_inputs.applies_to("search"));
  assert!(!c.clear_tool_inputs.applies_to("read"));
}
