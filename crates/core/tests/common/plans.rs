//! Helpers the rule-by-rule test crates share (`clear_tool_uses`, `pipeline_edits`,
//! `stable_clearing`), included by path: `#[path = "../common/plans.rs"] mod plans;` (from a
//! single-file crate, `anchor` or `context_lengths`: `#[path = "common/plans.rs"]`).

// Each test crate uses some of these.
#![allow(dead_code)]

use context_editor_core::{ContextEditor, EditPlan, Message, Op};
use serde_json::Value;

/// An editor from options the test writes as JSON, as a host passes them.
pub fn editor(options: Value) -> ContextEditor {
  ContextEditor::from_json(&options).expect("valid options")
}

/// The indices of the tool results a plan clears, in the order of its operations.
pub fn cleared(p: &EditPlan) -> Vec<usize> {
  p.ops
    .iter()
    .filter_map(|op| match op {
      Op::ClearToolResult { index, .. } => Some(*index),
      _ => None,
    })
    .collect()
}

/// A user request, then `results` read calls each answered by a 50-line tool result.
pub fn read_history(results: usize) -> Vec<Message> {
  let mut out = vec![Message::user("read the files")];
  for i in 0..results {
    let id = format!("c{i}");
    out.push(Message::assistant(
      "",
      &[(&id, "read", r#"{"path":"a.rs"}"#)],
    ));
    out.push(Message::tool(&id, "read", "fn main() {}\n".repeat(50)));
  }
  out
}
