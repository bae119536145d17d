//! Properties of every plan and of its applied output: well formed, safe, recounting to the report,
//! idempotent, deterministic, and counted by the documented formula.

use super::*;

// ---------------------------------------------------------------------------------------------
// properties

proptest! {
  #![proptest_config(config())]

  /// Plans never fail or panic on valid messages and hold every invariant of a call
  /// (`common::invariants`); with clearing only, the ops are orphan removals, clears and cleared
  /// inputs, in that order on a message, and the report lists exactly what they clear.
  #[test]
  fn plan_is_well_formed(msgs in conversation(), s in setup(), supplied in prop::collection::vec(prop::option::weighted(0.2, 0u64..400), 40)) {
    let mut msgs = msgs;
    // Caller-supplied counts on some messages (a host's own counter).
    for (m, t) in msgs.iter_mut().zip(&supplied) {
      m.tokens = *t;
    }
    let e = editor(&s.options);
    let plan = e.plan(&msgs, &s.context).expect("valid messages never fail");
    // Supplied counts describe the caller's messages, not the output: a recount of the output
    // equals the report only when there are none.
    check_plan(&e, &msgs, &s.context, &plan, self_describing(&msgs));
    let mut last: Option<(usize, u8)> = None;
    for op in &plan.ops {
      let (i, kind) = match op {
        Op::Remove { index } => (*index, 0u8),
        Op::ClearToolResult { index, .. } => (*index, 1),
        Op::ClearToolInputs { index, .. } => (*index, 2),
        other => panic!("unknown op {other:?}"),
      };
      if let Some(prev) = last {
        prop_assert!(prev < (i, kind), "ops sorted by index, one per kind: {:?}", plan.ops);
      }
      last = Some((i, kind));
      if let Op::ClearToolResult { placeholder, .. } = op {
        prop_assert!(PLACEHOLDERS.contains(&&**placeholder));
      }
    }
    // Removed = LangChain's orphans, and nothing else.
    let removed: Vec<usize> = plan.ops.iter().filter_map(|op| match op { Op::Remove { index } => Some(*index), _ => None }).collect();
    prop_assert_eq!(&removed, &reference_orphans(&msgs));
    // The report lists exactly the cleared results and inputs of the ops.
    let mut cleared: Vec<usize> = plan.report.cleared.iter().map(|c| c.index).collect();
    cleared.sort_unstable();
    let op_cleared: Vec<usize> = plan.ops.iter().filter_map(|op| match op { Op::ClearToolResult { index, .. } => Some(*index), _ => None }).collect();
    prop_assert_eq!(cleared, op_cleared);
    let mut inputs: Vec<(usize, usize)> = plan.report.cleared_tool_inputs.iter().map(|c| (c.index, c.call_index)).collect();
    inputs.sort_unstable();
    let op_inputs: Vec<(usize, usize)> = plan.ops.iter().flat_map(|op| match op {
      Op::ClearToolInputs { index, call_indices, .. } => call_indices.iter().map(|&k| (*index, k)).collect(),
      _ => Vec::new(),
    }).collect();
    prop_assert_eq!(inputs, op_inputs);
    prop_assert_eq!(plan.report.applied_edits.len(), edits_of(&s.options).len());
    prop_assert_eq!(plan.report.messages_after, msgs.len() - plan.report.removed_orphans.len());
  }

  /// The applied output holds every invariant of a call (`common::invariants`: a subsequence of
  /// the input, no orphaned results, no new dangling call, leading system messages kept, totals
  /// equal to a recount); with clearing only, just the documented fields change, the dangling calls
  /// are exactly the input's, and what the edits freed adds up.
  #[test]
  fn applied_output_is_safe_and_recounts_to_the_report(msgs in conversation(), s in setup()) {
    let e = editor(&s.options);
    let (plan, out) = check_call(&e, &msgs, &s.context, true).expect("valid messages never fail");
    let src = common::invariants::sources(&plan, msgs.len());
    for (o, &i) in out.iter().zip(&src) {
      let m = &msgs[i];
      prop_assert_eq!(o.tool_calls.len(), m.tool_calls.len());
      for (a, b) in o.tool_calls.iter().zip(&m.tool_calls) {
        prop_assert_eq!(&a.id, &b.id);
        prop_assert_eq!(&a.name, &b.name);
        prop_assert!(a.args == b.args || a.args.as_deref() == Some("{}"), "args unchanged or cleared");
      }
      let result_cleared = plan.ops.iter().any(|op| matches!(op, Op::ClearToolResult { index, .. } if *index == i));
      let inputs_cleared = plan.ops.iter().any(|op| matches!(op, Op::ClearToolInputs { index, .. } if *index == i));
      if result_cleared {
        prop_assert!(o.cleared);
      } else {
        prop_assert_eq!(&o.content, &m.content);
        prop_assert_eq!(o.cleared, m.cleared);
        prop_assert_eq!((&o.other, o.images), (&m.other, m.images));
      }
      if !inputs_cleared {
        prop_assert_eq!(&o.cleared_tool_inputs, &m.cleared_tool_inputs);
      }
    }
    // Dangling calls: the same ones as in the input (clearing removes no call).
    let dangling_in: BTreeSet<(usize, usize)> = reference_dangling(&msgs);
    let dangling_out: BTreeSet<(usize, usize)> = reference_dangling(&out).into_iter().map(|(j, k)| (src[j], k)).collect();
    prop_assert_eq!(&dangling_out, &dangling_in);
    // What the edits freed: net per edit (as LangChain's `clearedTokens`); the per-result figures
    // add up to it unless some clear grew its message (placeholder longer than the result).
    let without_orphans: Vec<Message> = src.iter().map(|&i| msgs[i].clone()).collect();
    let start = count(&e, &without_orphans, &s.context);
    let freed: u64 = plan.report.applied_edits.iter().map(|a| a.cleared_input_tokens).sum();
    let per_result: u64 = plan.report.cleared.iter().map(|c| c.tokens_freed).sum();
    prop_assert!(per_result >= freed);
    prop_assert!(plan.report.tokens_after <= start || plan.report.cleared.iter().any(|c| c.tokens_freed == 0));
    if plan.report.tokens_after <= start && plan.report.applied_edits.len() == 1 {
      prop_assert_eq!(freed, start - plan.report.tokens_after);
    }
    let grew = plan.ops.iter().any(|op| match op {
      Op::ClearToolResult { index, .. } => {
        let single = |m: &Message| e.count_tokens(std::slice::from_ref(m), &s.context).unwrap().messages[0];
        let mut after = msgs[*index].clone();
        after.content = out[src.iter().position(|j| j == index).unwrap()].content.clone();
        after.other = None;
        after.images = 0;
        let chars = |m: &Message| m.text_len() + m.other_len() + u64::from(m.images) * 765 * 4;
        if s.options["tokenCountMethod"] == "approx" { chars(&after) > chars(&msgs[*index]) } else { single(&after) > single(&msgs[*index]) }
      }
      _ => false,
    });
    if !grew {
      prop_assert_eq!(per_result, freed, "tokens_freed sum == cleared_input_tokens");
      prop_assert_eq!(freed, start - plan.report.tokens_after);
    }
  }

  /// Editing the output again with the same options clears and removes nothing — unless
  /// `clearAtLeast` is set and the request is still over the trigger (it then clears more kept
  /// results on every call, as in LangChain).
  #[test]
  fn editing_is_idempotent(msgs in conversation(), s in setup()) {
    let e = editor(&s.options);
    let first = e.plan(&msgs, &s.context).unwrap();
    let out = first.apply(&msgs);
    let again = e.plan(&out, &s.context).unwrap();
    prop_assert!(again.report.removed_orphans.is_empty());
    let at_least = edits_of(&s.options).iter().any(|x| x["clearAtLeast"].as_u64().unwrap_or(0) > 0);
    if !at_least || !first.report.still_triggered {
      prop_assert!(again.ops.is_empty(), "second plan: {:?}", again.ops);
      prop_assert_eq!(again.report.tokens_after, first.report.tokens_after);
    } else {
      prop_assert!(again.ops.iter().all(|op| !matches!(op, Op::Remove { .. })), "never removes");
    }
    prop_assert_eq!(again.report.tokens_before, first.report.tokens_after);
  }

  /// The same input always gives the same plan: same editor twice (warm cache), a fresh editor,
  /// and an editor without a cache.
  #[test]
  fn planning_is_deterministic(msgs in conversation(), s in setup()) {
    let e = editor(&s.options);
    let a = e.plan(&msgs, &s.context).unwrap();
    let b = e.plan(&msgs, &s.context).unwrap();
    prop_assert_eq!(&a, &b);
    prop_assert_eq!(&a, &editor(&s.options).plan(&msgs, &s.context).unwrap());
    let mut uncached = s.options.clone();
    uncached["tokenCacheSize"] = json!(0);
    prop_assert_eq!(&a, &editor(&uncached).plan(&msgs, &s.context).unwrap());
  }

  /// One editor counting conversation after conversation, the call's model (and with it the
  /// encoding) changing between calls, counts each exactly as a new editor without a cache does:
  /// what it kept of earlier calls (token counts, the pieces its texts split into) never counts
  /// another encoding's text or another text.
  #[test]
  fn an_editor_counts_as_a_new_one_whatever_it_counted_before(
    calls in prop::collection::vec((conversation(), select(vec!["gpt-4o", "gpt-4", "o1", "gpt-3.5-turbo"])), 1..6),
  ) {
    let shared = editor(&json!({ "tokenCountMethod": "model" }));
    let uncached = json!({ "tokenCountMethod": "model", "tokenCacheSize": 0 });
    for (msgs, model) in &calls {
      let ctx = Context { model: Some((*model).to_owned()), ..Context::default() };
      let want = editor(&uncached).count_tokens(msgs, &ctx).unwrap();
      prop_assert_eq!(&shared.count_tokens(msgs, &ctx).unwrap(), &want, "{}", model);
      prop_assert_eq!(&shared.count_tokens(msgs, &ctx).unwrap(), &want, "{} again", model);
    }
  }

  /// Counting is consistent with planning: an untriggered plan changes only orphans, and the
  /// whole-request count in approx mode is `ceil(sum of chars / 4)`.
  #[test]
  fn counting_matches_the_formula(msgs in conversation(), s in setup()) {
    let e = editor(&s.options);
    let c = e.count_tokens(&msgs, &s.context).unwrap();
    prop_assert_eq!(c.messages.len(), msgs.len());
    if s.options["tokenCountMethod"] == "approx" {
      let chars: u64 = msgs.iter().map(|m| {
        let mut n = m.text_len() + m.other_len() + u64::from(m.images) * 765 * 4;
        if m.role == Role::Assistant && !m.tool_calls.is_empty() {
          n += m.tool_calls_length.unwrap_or_else(|| tool_calls_json_len(&m.tool_calls));
        }
        if m.role == Role::Tool {
          n += m.tool_call_id.as_deref().map_or(0, context_editor_core::utf16_len);
        }
        n
      }).sum();
      let fixed = s.context.system_prompt.as_deref().map_or(0, context_editor_core::utf16_len)
        + s.context.tools.iter().map(|t| context_editor_core::utf16_len(t)).sum::<u64>();
      prop_assert_eq!(c.total, (chars + fixed).div_ceil(4));
      prop_assert_eq!(c.fixed, fixed.div_ceil(4));
    } else {
      prop_assert_eq!(c.total, c.messages.iter().sum::<u64>() + e.count_tokens(&[], &s.context).unwrap().total);
    }
  }
}
