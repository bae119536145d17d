//! The invariants every `plan` / `count_tokens` / `EditPlan::apply` result holds, whatever the
//! messages and the options: one checker for the property tests (`tests/properties/`) and the
//! fuzz targets (`fuzz/src/lib.rs` includes this file by path).
//!
//! Written against the crate's public API only, and with `std` only, so both can build it. Every
//! check `assert!`s: proptest reports a panic as a failing case (and shrinks it), libFuzzer turns
//! it into a crash artifact. New edit types and operations need at most a new arm in
//! [`check_ops`].
//!
//! The reference facts ([`reference_orphans`], [`reference_dangling`]) are computed from the
//! messages alone, independently of the crate's pairing code.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use context_editor_core::{
  Context, ContextEditor, EditPlan, ErrorKind, Message, Op, Role, CLEAR_TOOL_USES_STRATEGY,
  TRUNCATE_STRATEGY,
};

/// Runs `plan` and `count_tokens` on one input and checks everything a call guarantees; returns
/// the plan and its applied output, or `None` when the input was rejected (with a documented
/// error that names its culprit).
///
/// `recount`: also check that the report's `tokens_after` equals a recount of the applied output
/// (meaningful when the messages carry their own text, see [`self_describing`]).
///
/// # Panics
/// When an invariant does not hold.
pub fn check_call(
  editor: &ContextEditor,
  messages: &[Message],
  context: &Context,
  recount: bool,
) -> Option<(EditPlan, Vec<Message>)> {
  let input = messages.to_vec();
  let planned = editor.plan(messages, context);
  let counted = editor.count_tokens(messages, context);
  assert_eq!(messages, &input[..], "the input was mutated");
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
      return None;
    }
  };
  // `plan` does not validate the context itself (the binding calls `validate_context`); both calls
  // must agree on the messages whatever the context.
  let count = counted.expect("plan accepted what count_tokens rejected");
  assert_eq!(count.messages.len(), messages.len());
  assert_eq!(
    plan.report.tokens_before, count.total,
    "report.tokens_before differs from count_tokens"
  );
  let out = check_plan(editor, messages, context, &plan, recount);
  Some((plan, out))
}

/// Checks a plan `editor` made for `messages`: its operations, its report, its applied output,
/// and that planning is deterministic and accepts its own output. Returns the applied output.
///
/// # Panics
/// When an invariant does not hold.
pub fn check_plan(
  editor: &ContextEditor,
  messages: &[Message],
  context: &Context,
  plan: &EditPlan,
  recount: bool,
) -> Vec<Message> {
  check_report(editor, messages, plan);
  check_ops(plan, messages);
  let out = plan.apply(messages);
  check_output(plan, messages, &out);
  check_pairing(plan, messages, &out);
  // Same input, same output: no hidden state (the token cache must not change decisions).
  let again = editor
    .plan(messages, context)
    .expect("second plan of the same input failed");
  assert_eq!(&again, plan, "plan is not deterministic");
  if recount {
    let recounted = editor
      .count_tokens(&out, context)
      .expect("count_tokens rejected the applied output");
    assert_eq!(
      recounted.total, plan.report.tokens_after,
      "report.tokens_after differs from a recount of the output"
    );
  }
  // The output is a valid input: planning it again must succeed.
  editor
    .plan(&out, context)
    .expect("plan rejected its own output");
  out
}

/// The report agrees with the input, the options and itself.
fn check_report(editor: &ContextEditor, messages: &[Message], plan: &EditPlan) {
  let report = &plan.report;
  assert_eq!(report.messages_before, messages.len());
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
  let cleared: u64 = report
    .applied_edits
    .iter()
    .map(|a| a.cleared_tool_uses)
    .sum();
  assert_eq!(
    cleared,
    report.cleared.len() as u64,
    "applied_edits' cleared_tool_uses add up to the cleared results"
  );
  assert!(
    report.triggered || (report.cleared.is_empty() && !report.still_triggered),
    "nothing cleared and nothing still triggered without a trigger"
  );
  assert!(
    report.triggered == report.applied_edits.iter().any(|a| a.triggered),
    "triggered is any edit's trigger"
  );
  assert_eq!(
    report.over_max_input_tokens,
    report
      .max_input_tokens
      .is_some_and(|max| report.tokens_after > max),
    "over_max_input_tokens is tokens_after > max_input_tokens"
  );
  // Exactly the orphans are reported, and each is removed.
  assert_eq!(
    report
      .removed_orphans
      .iter()
      .map(|o| o.index)
      .collect::<Vec<_>>(),
    reference_orphans(messages),
    "removed_orphans are LangChain's orphans"
  );
  for o in &report.removed_orphans {
    assert!(
      plan
        .ops
        .iter()
        .any(|op| matches!(op, Op::Remove { index } if *index == o.index)),
      "reported orphan {} not removed",
      o.index
    );
  }
  if let Some(s) = &plan.summary {
    assert!(!s.replaced.is_empty(), "a summary replaces something");
    assert_eq!(s.insert_at, s.replaced[0]);
    assert!(s.replaced.windows(2).all(|w| w[0] < w[1]));
    assert!(s.summarized.iter().all(|i| s.replaced.contains(i)));
  }
}

/// Operations are sorted by index, in range, at most one of each kind per message, each on the
/// right kind of message and consistent with it; a removed message is edited otherwise only when
/// a summary replaces it.
///
/// # Panics
/// When an invariant does not hold.
pub fn check_ops(plan: &EditPlan, messages: &[Message]) {
  let mut last = 0;
  let mut seen: HashSet<(usize, &'static str)> = HashSet::new();
  let mut removed = BTreeSet::new();
  let mut touched = BTreeSet::new();
  for op in &plan.ops {
    let i = op.index();
    assert!(i < messages.len(), "op index {i} out of range");
    assert!(i >= last, "ops not sorted by index");
    last = i;
    let kind = check_op(op, &messages[i], i);
    match kind {
      "remove" => {
        removed.insert(i);
      }
      "cache_breakpoint" => {}
      _ => {
        touched.insert(i);
      }
    }
    assert!(seen.insert((i, kind)), "two `{kind}` ops on message {i}");
  }
  for op in &plan.ops {
    if let Op::CacheBreakpoint { index } = op {
      assert!(
        !removed.contains(index),
        "a breakpoint on removed message {index}"
      );
    }
  }
  let summarized: BTreeSet<usize> = plan
    .summary
    .iter()
    .flat_map(|s| s.replaced.iter().copied())
    .collect();
  assert!(
    summarized.is_subset(&removed),
    "the messages a summary replaces are removed"
  );
  assert!(
    removed
      .intersection(&touched)
      .all(|i| summarized.contains(i)),
    "a removed message is also edited, and no summary replaces it"
  );
}

/// Checks one operation against the message `m` (input index `i`) it targets; returns its kind.
fn check_op(op: &Op, m: &Message, i: usize) -> &'static str {
  match op {
    Op::Remove { .. } => "remove",
    Op::CacheBreakpoint { .. } => "cache_breakpoint",
    Op::ClearToolResult { strategy, .. } => {
      assert_eq!(
        m.role,
        Role::Tool,
        "clear_tool_result on a non-tool message {i}"
      );
      assert!(
        !m.cleared,
        "an already-cleared result is cleared again at {i}"
      );
      assert_eq!(*strategy, CLEAR_TOOL_USES_STRATEGY);
      "clear_tool_result"
    }
    Op::TruncateToolResult {
      strategy, marker, ..
    } => {
      assert_eq!(m.role, Role::Tool, "truncation of a non-tool message {i}");
      assert!(
        !m.cleared && !m.truncated,
        "a replaced result is truncated at {i}"
      );
      assert_eq!(*strategy, TRUNCATE_STRATEGY);
      assert!(!marker.is_empty(), "truncation without a marker at {i}");
      "truncate_tool_result"
    }
    Op::RemoveThinking { .. } => {
      assert_eq!(
        m.role,
        Role::Assistant,
        "remove_thinking on a non-assistant {i}"
      );
      assert!(m.has_thinking(), "remove_thinking without reasoning at {i}");
      "remove_thinking"
    }
    Op::RemoveToolCalls {
      call_indices,
      tool_call_ids,
      ..
    } => {
      assert_eq!(
        m.role,
        Role::Assistant,
        "remove_tool_calls on a non-assistant {i}"
      );
      check_calls(m, i, call_indices, tool_call_ids);
      "remove_tool_calls"
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
        "clear_tool_inputs on a non-assistant {i}"
      );
      check_calls(m, i, call_indices, tool_call_ids);
      let expected: BTreeSet<&String> = m.cleared_tool_inputs.iter().chain(tool_call_ids).collect();
      assert_eq!(
        cleared_tool_inputs.iter().collect::<Vec<_>>(),
        expected.into_iter().collect::<Vec<_>>(),
        "cleared_tool_inputs is the sorted union of the old list and the cleared ids at {i}"
      );
      "clear_tool_inputs"
    }
    // A new operation kind: in range and sorted is all this checker knows.
    #[allow(unreachable_patterns)]
    _ => "other",
  }
}

/// `call_indices` of message `i` are non-empty, sorted, distinct, in range, and named by
/// `tool_call_ids`.
fn check_calls(m: &Message, i: usize, call_indices: &[usize], tool_call_ids: &[String]) {
  assert!(!call_indices.is_empty(), "no calls at {i}");
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
  }
}

/// The input index of every message of the applied output.
#[must_use]
pub fn sources(plan: &EditPlan, len: usize) -> Vec<usize> {
  let removed: BTreeSet<usize> = plan
    .ops
    .iter()
    .filter(|op| matches!(op, Op::Remove { .. }))
    .map(Op::index)
    .collect();
  (0..len).filter(|i| !removed.contains(i)).collect()
}

/// The applied output is the input without the removed messages, in order; a message no operation
/// changes is unchanged, and an edited one keeps its role, ids and name; the leading system
/// messages stay as they were.
fn check_output(plan: &EditPlan, messages: &[Message], out: &[Message]) {
  assert_eq!(
    out.len(),
    plan.report.messages_after,
    "messages_after differs from the applied output"
  );
  let src = sources(plan, messages.len());
  assert_eq!(out.len(), src.len());
  for (o, &i) in out.iter().zip(&src) {
    let m = &messages[i];
    let edited = plan
      .ops
      .iter()
      .any(|op| op.index() == i && !matches!(op, Op::CacheBreakpoint { .. }));
    if !edited {
      assert_eq!(o, m, "message {i} changed without an operation");
      continue;
    }
    assert_eq!(o.role, m.role, "the role of {i} changed");
    assert_eq!(
      o.tool_call_id, m.tool_call_id,
      "the tool_call_id of {i} changed"
    );
    assert_eq!(o.name, m.name, "the name of {i} changed");
  }
  let lead = messages
    .iter()
    .take_while(|m| m.role == Role::System)
    .count();
  assert_eq!(
    &out[..lead],
    &messages[..lead],
    "leading system messages changed"
  );
}

/// No tool result without an earlier call in the output; no call left without its result that
/// was not so in the input; every such call reported as `dangling_tool_call` at its input index.
fn check_pairing(plan: &EditPlan, messages: &[Message], out: &[Message]) {
  assert_eq!(
    reference_orphans(out),
    Vec::<usize>::new(),
    "the output has a tool result without an earlier call"
  );
  let src = sources(plan, messages.len());
  let input_dangling: BTreeSet<(usize, &str)> = reference_dangling(messages)
    .into_iter()
    .map(|(i, k)| (i, messages[i].tool_calls[k].id.as_str()))
    .collect();
  let output_dangling: BTreeSet<(usize, &str)> = reference_dangling(out)
    .into_iter()
    .map(|(j, k)| (src[j], out[j].tool_calls[k].id.as_str()))
    .collect();
  assert!(
    output_dangling.is_subset(&input_dangling),
    "a call lost its result: {:?} (the input had {:?})",
    output_dangling
      .difference(&input_dangling)
      .collect::<Vec<_>>(),
    input_dangling
  );
  let warned: BTreeSet<usize> = plan
    .report
    .warnings
    .iter()
    .filter(|w| w.code == "dangling_tool_call")
    .filter_map(|w| w.index)
    .collect();
  let expected: BTreeSet<usize> = output_dangling.iter().map(|(i, _)| *i).collect();
  assert_eq!(
    warned, expected,
    "each dangling call is warned, and only those"
  );
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

/// LangChain's orphan rule: a tool result is orphaned when no earlier AI message lists its id.
#[must_use]
pub fn reference_orphans(msgs: &[Message]) -> Vec<usize> {
  let mut seen: BTreeSet<&str> = BTreeSet::new();
  let mut out = Vec::new();
  for (i, m) in msgs.iter().enumerate() {
    match m.role {
      Role::Assistant => seen.extend(m.tool_calls.iter().map(|c| c.id.as_str())),
      Role::Tool if !seen.contains(m.tool_call_id.as_deref().unwrap_or("")) => out.push(i),
      _ => {}
    }
  }
  out
}

/// `(ai index, call index)` of calls no later result answers. Results pair with the nearest
/// earlier AI message listing their id; calls sharing an id in one message are answered in order.
#[must_use]
pub fn reference_dangling(msgs: &[Message]) -> BTreeSet<(usize, usize)> {
  let mut last_ai_for: BTreeMap<&str, usize> = BTreeMap::new();
  let mut answers: BTreeMap<(usize, &str), usize> = BTreeMap::new();
  for (i, m) in msgs.iter().enumerate() {
    match m.role {
      Role::Assistant => {
        for c in &m.tool_calls {
          last_ai_for.insert(c.id.as_str(), i);
        }
      }
      Role::Tool => {
        let id = m.tool_call_id.as_deref().unwrap_or("");
        if let Some(&ai) = last_ai_for.get(id) {
          *answers.entry((ai, id)).or_default() += 1;
        }
      }
      _ => {}
    }
  }
  let mut out = BTreeSet::new();
  for (i, m) in msgs.iter().enumerate() {
    let mut used: BTreeMap<&str, usize> = BTreeMap::new();
    for (k, c) in m.tool_calls.iter().enumerate() {
      let n = used.entry(c.id.as_str()).or_default();
      *n += 1;
      if *n > answers.get(&(i, c.id.as_str())).copied().unwrap_or(0) {
        out.insert((i, k));
      }
    }
  }
  out
}
