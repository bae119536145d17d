//! Shared helpers of the fuzz targets: building a call context from JSON, and running one call
//! through the invariant checker the property tests use too (`crates/core/tests/common/
//! invariants.rs`, included here by path so there is one checker). New edit types and new `Op`s
//! need at most a new arm in that checker and a new generator arm in
//! `fuzz_targets/edit_pipeline.rs`.
//!
//! Every check `assert!`s: libFuzzer turns a failed assertion (like any panic) into a crash
//! artifact under `fuzz/artifacts/<target>/`.

#[path = "../../crates/core/tests/common/invariants.rs"]
mod invariants;

use context_editor_core::{Context, ContextEditor, Message};
use serde_json::Value;

pub use invariants::self_describing;

/// Builds a [`Context`] from JSON the way the binding does (`maxInputTokens`, `systemPrompt`,
/// `tools`, `model`); wrong types yield `None` (the binding's type layer would reject them).
#[must_use]
pub fn context_from_json(value: Option<&Value>) -> Option<Context> {
  let Some(value) = value else {
    return Some(Context::default());
  };
  let obj = match value {
    Value::Null => return Some(Context::default()),
    Value::Object(o) => o,
    _ => return None,
  };
  let mut context = Context::default();
  match obj.get("maxInputTokens") {
    None | Some(Value::Null) => {}
    Some(v) => context.max_input_tokens = Some(v.as_u64()?),
  }
  match obj.get("systemPrompt") {
    None | Some(Value::Null) => {}
    Some(v) => context.system_prompt = Some(v.as_str()?.to_owned()),
  }
  match obj.get("tools") {
    None | Some(Value::Null) => {}
    Some(Value::Array(list)) => {
      for t in list {
        context.tools.push(match t {
          Value::String(s) => s.clone(),
          other => other.to_string(),
        });
      }
    }
    Some(_) => return None,
  }
  match obj.get("model") {
    None | Some(Value::Null) => {}
    Some(v) => context.model = Some(v.as_str()?.to_owned()),
  }
  Some(context)
}

/// What one fuzz iteration exercised, for the targets' own bookkeeping.
#[derive(Debug, Default, Clone, Copy)]
pub struct Outcome {
  /// `plan` returned a plan.
  pub planned: bool,
  /// The plan had at least one operation.
  pub edited: bool,
}

/// Runs `plan`, `count_tokens` and `apply` on one input and asserts the invariants
/// (`invariants::check_call`).
///
/// `recount`: also assert that the report's `tokens_after` equals a recount of the applied output
/// (only meaningful when the messages carry their own text, see [`self_describing`]).
///
/// # Panics
/// When an invariant does not hold (that is the point).
pub fn check_call(
  editor: &ContextEditor,
  messages: &[Message],
  context: &Context,
  recount: bool,
) -> Outcome {
  match invariants::check_call(editor, messages, context, recount) {
    Some((plan, _)) => Outcome {
      planned: true,
      edited: !plan.ops.is_empty(),
    },
    None => Outcome::default(),
  }
}
