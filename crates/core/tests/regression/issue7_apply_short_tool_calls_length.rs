//! `EditPlan::apply` computed the new `tool_calls_length` as `n - freed + 2`, which underflowed
//! (a panic in debug builds, a wrapped length in release) when the caller-supplied
//! `tool_calls_length` was shorter than the arguments it is supposed to include.

use context_editor_core::{Context, ContextEditor, Message, Op};
use serde_json::json;

#[test]
fn clearing_inputs_of_a_message_with_a_too_short_tool_calls_length_does_not_underflow() {
  let editor = ContextEditor::from_json(&json!({
    "trigger": { "tokens": 1 }, "keep": { "messages": 0 }, "clearToolInputs": true
  }))
  .unwrap();
  let mut call = Message::assistant("", &[("a", "read", r#"{"path":"a rather long argument"}"#)]);
  call.tool_calls_length = Some(3); // inconsistent: shorter than the arguments alone
  let history = vec![call, Message::tool("a", "read", "result text")];
  let plan = editor.plan(&history, &Context::default()).unwrap();
  assert!(matches!(plan.ops[0], Op::ClearToolInputs { index: 0, .. }));
  let out = plan.apply(&history);
  assert_eq!(out[0].tool_calls[0].args.as_deref(), Some("{}"));
  let length = out[0].tool_calls_length.unwrap();
  assert!(length <= 3, "the length only shrinks (got {length})");
}
