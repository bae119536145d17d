//! Helpers the rule-by-rule test crates share (`clear_tool_uses`, `pipeline_edits`,
//! `stable_clearing`), included by path: `#[path = "../common/plans.rs"] mod plans;`.

// Each test crate uses some of these.
#![allow(dead_code)]

use context_editor_core::{ContextEditor, EditPlan, Op};
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
