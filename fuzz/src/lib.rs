//! Shared helpers of the fuzz targets: building a call context from JSON and checking the
//! invariants every `plan` / `count_tokens` / `EditPlan::apply` result must hold, whatever the
//! input. Written against the core's public API only, so new edit types (and new `Op`s) need at most
//! a new arm in [`check_ops`] and a new generator arm in `fuzz_targets/edit_pipeline.rs`.
//!
//! Every check `assert!`s: libFuzzer turns a failed assertion (like any panic) into a crash
//! artifact under `fuzz/artifacts/<target>/`.

use std::collections::{BTreeSet, HashSet};

use context_editor_core::{Context, ContextEditor, EditPlan, ErrorKind, Message, Op, Role};
use serde_json::Value;

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

/// Whether every size the caller may supply instead of the text is absent, so that a recount of
/// [`EditPlan::apply`]'s output must equal the report's `tokens_after`.
#[must_use]
pub fn self_describing(messages: &[Message]) -> bool {
  messages.iter().all(|m| {
    m.content_length.is_none()
      && m.other_length.is_none()
      && m.tool_calls_length.is_none()
      && m.tokens.is_none()
      && m.tool_calls.iter().all(|c| c.args_length.is_none())
  })
}

/// What one fuzz iteration exercised, for the targets' own bookkeeping.
#[derive(Debug, Default, Clone, Copy)]
pub struct Outcome {
  /// `plan` returned a plan.
  pub planned: bool,
  /// The plan had at least one operation.
  pub edited: bool,
}

/// Runs `plan`, `count_tokens` and `apply` on one input and asserts the invariants.
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
  let planned = editor.plan(messages, context);
  let counted = editor.count_tokens(messages, context);

  // Errors are fine; they must be the documented kinds and name their culprit.
  let plan = match planned {
    Ok(plan) => plan,
    Err(e) => {
      assert!(
        matches!(
          e.kind(),
          ErrorKind::InvalidMessage | ErrorKind::InvalidContext
        ),
        "plan failed with an undocumented kind: {e:?}"
      );
      if e.kind() == ErrorKind::InvalidMessage {
        let i = e.message_index().expect("INVALID_MESSAGE without an index");
        assert!(i < messages.len(), "error index {i} out of range");
        assert!(e.path().is_some(), "INVALID_MESSAGE without a field");
        assert!(counted.is_err(), "count_tokens accepted what plan rejected");
      }
      assert!(!e.to_string().is_empty());
      return Outcome::default();
    }
  };
  // `plan` does not validate the context itself (the binding calls `validate_context`); both calls
  // must agree on the messages whatever the context.
  let count = counted.expect("plan accepted what count_tokens rejected");

  let report = &plan.report;
  assert_eq!(report.messages_before, messages.len());
  assert_eq!(count.messages.len(), messages.len());
  assert_eq!(
    report.tokens_before, count.total,
    "report.tokens_before differs from count_tokens"
  );
  assert_eq!(report.applied_edits.len(), editor.options().edits.len());
  for w in &report.warnings {
    if let Some(i) = w.index {
      assert!(
        i < messages.len(),
        "warning `{}` index {i} out of range",
        w.code
      );
    }
  }

  check_ops(&plan, messages);

  let out = plan.apply(messages);
  assert_eq!(
    out.len(),
    report.messages_after,
    "messages_after differs from the applied output"
  );
  check_pairing(&plan, messages, &out);

  // Same input, same output: no hidden state (the token cache must not change decisions).
  let again = editor
    .plan(messages, context)
    .expect("second plan of the same input failed");
  assert_eq!(again, plan, "plan is not deterministic");

  if recount {
    let recounted = editor
      .count_tokens(&out, context)
      .expect("count_tokens rejected the applied output");
    assert_eq!(
      recounted.total, report.tokens_after,
      "report.tokens_after differs from a recount of the output"
    );
  }

  // The output is a valid input: planning it again must succeed.
  editor
    .plan(&out, context)
    .expect("plan rejected its own output");

  Outcome {
    planned: true,
    edited: !plan.ops.is_empty(),
  }
}

/// Operations are sorted by index, in range, at most one of each kind per message, never combine a
/// removal with another operation on the same message, and target messages of the right role.
fn check_ops(plan: &EditPlan, messages: &[Message]) {
  let mut last = 0;
  let mut seen: HashSet<(usize, &'static str)> = HashSet::new();
  let mut removed = BTreeSet::new();
  let mut touched = BTreeSet::new();
  for op in &plan.ops {
    let i = op.index();
    assert!(i < messages.len(), "op index {i} out of range");
    assert!(i >= last, "ops not sorted by index");
    last = i;
    let m = &messages[i];
    let kind = match op {
      Op::Remove { .. } => {
        removed.insert(i);
        "remove"
      }
      Op::ClearToolResult { .. } => {
        assert_eq!(
          m.role,
          Role::Tool,
          "clear_tool_result on a non-tool message {i}"
        );
        touched.insert(i);
        "clear_tool_result"
      }
      Op::ClearToolInputs {
        call_indices,
        tool_call_ids,
        cleared_tool_inputs,
        ..
      } => {
        assert_eq!(
          m.role,
          Role::Assistant,
          "clear_tool_inputs on a non-assistant message {i}"
        );
        assert!(!call_indices.is_empty(), "empty clear_tool_inputs at {i}");
        assert!(
          call_indices.windows(2).all(|w| w[0] < w[1]),
          "call indices not sorted/unique at {i}"
        );
        assert_eq!(call_indices.len(), tool_call_ids.len());
        for (&k, id) in call_indices.iter().zip(tool_call_ids) {
          assert!(k < m.tool_calls.len(), "call index {k} out of range at {i}");
          assert_eq!(
            &m.tool_calls[k].id, id,
            "tool_call_ids do not match the calls at {i}"
          );
          assert!(
            cleared_tool_inputs.contains(id),
            "cleared id missing from the new list at {i}"
          );
        }
        assert!(
          cleared_tool_inputs.windows(2).all(|w| w[0] < w[1]),
          "cleared_tool_inputs not sorted/de-duplicated at {i}"
        );
        for old in &m.cleared_tool_inputs {
          assert!(
            cleared_tool_inputs.contains(old),
            "an already-cleared id was dropped at {i}"
          );
        }
        touched.insert(i);
        "clear_tool_inputs"
      }
      // New operation kinds (issue 4): in range and sorted is all we know here.
      _ => "other",
    };
    assert!(seen.insert((i, kind)), "two `{kind}` ops on message {i}");
  }
  assert!(
    removed.is_disjoint(&touched),
    "a removed message is also edited"
  );
  // Every orphan the report names is removed.
  for o in &plan.report.removed_orphans {
    assert!(
      removed.contains(&o.index),
      "reported orphan {} not removed",
      o.index
    );
  }
}

/// No tool result without an earlier call in the output; every call without a result in the output
/// is reported as `dangling_tool_call` at its (input) index.
fn check_pairing(plan: &EditPlan, messages: &[Message], out: &[Message]) {
  // Output position -> input index.
  let removed: BTreeSet<usize> = plan
    .ops
    .iter()
    .filter(|op| matches!(op, Op::Remove { .. }))
    .map(Op::index)
    .collect();
  let origin: Vec<usize> = (0..messages.len())
    .filter(|i| !removed.contains(i))
    .collect();
  assert_eq!(origin.len(), out.len());

  let mut called: HashSet<&str> = HashSet::new();
  for m in out {
    if m.role == Role::Tool {
      let id = m.tool_call_id.as_deref().unwrap_or("");
      assert!(
        called.contains(id),
        "output has a tool result `{id}` without an earlier call"
      );
    }
    for c in &m.tool_calls {
      called.insert(&c.id);
    }
  }
  let dangling: BTreeSet<usize> = plan
    .report
    .warnings
    .iter()
    .filter(|w| w.code == "dangling_tool_call")
    .filter_map(|w| w.index)
    .collect();
  for (pos, m) in out.iter().enumerate() {
    if m.role != Role::Assistant {
      continue;
    }
    // A call whose id never gets a later result is dangling and must be reported.
    let later: HashSet<&str> = out[pos + 1..]
      .iter()
      .filter(|r| r.role == Role::Tool)
      .filter_map(|r| r.tool_call_id.as_deref())
      .collect();
    if m.tool_calls.iter().any(|c| !later.contains(c.id.as_str())) {
      assert!(
        dangling.contains(&origin[pos]),
        "call without a result at input index {} not reported",
        origin[pos]
      );
    }
  }
}
