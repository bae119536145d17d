//! A placeholder with a `{tool_call_id}` slot (for the `recall_tool_result` tool): each cleared
//! result gets its own text naming its call, counted exactly (the report's totals equal a recount
//! of the output), in LangChain's mode and in stable mode.

// Only the invariant checker of the shared support code is used here.
#[allow(dead_code)]
mod common;

use common::invariants::check_call;
use context_editor_core::{Context, ContextEditor, Message, Op};
use serde_json::json;

fn history() -> Vec<Message> {
  let mut m = vec![Message::user("go")];
  for k in 0..6 {
    let id = format!("call_{k}");
    m.push(Message::assistant("", &[(id.as_str(), "read", "{}")]));
    m.push(Message::tool(id, "read", "x".repeat(100 + k * 7)));
  }
  m
}

#[test]
fn each_cleared_result_names_its_own_call_and_is_counted_as_written() {
  for stable in [json!(false), json!({ "stepResults": 1 })] {
    let e = ContextEditor::from_json(&json!({
      "trigger": { "tokens": 1 }, "keep": { "messages": 2 }, "stable": stable,
      "placeholder": "[cleared; recall_tool_result(\"{tool_call_id}\") returns it]",
    }))
    .unwrap();
    let msgs = history();
    let (plan, out) = check_call(&e, &msgs, &Context::default(), true).unwrap();
    let texts: Vec<&str> = plan
      .ops
      .iter()
      .filter_map(|op| match op {
        Op::ClearToolResult { placeholder, .. } => Some(&**placeholder),
        _ => None,
      })
      .collect();
    assert_eq!(
      texts,
      (0..4)
        .map(|k| format!("[cleared; recall_tool_result(\"call_{k}\") returns it]"))
        .collect::<Vec<_>>(),
      "{stable}"
    );
    let recount = e.count_tokens(&out, &Context::default()).unwrap().total;
    assert_eq!(recount, plan.report.tokens_after);
  }
}
