//! The linear planner against a naive port of LangChain's `ClearToolUsesEdit.apply` (recount after
//! every clear) with the deliberate differences of `docs/semantics.md` §2: same output, exactly.

use super::*;

// ---------------------------------------------------------------------------------------------
// A naive port of LangChain's `ClearToolUsesEdit.apply` (recount after every clear, O(n²)), with
// the deliberate differences of SEMANTICS §2 applied: the context's system prompt and tools count
// toward the trigger (not toward a single result's keep budget), a result pairs with the call of
// its position among calls sharing its id (§7.6), `clearToolInputs` may list tool names, and the
// Anthropic `toolUses` trigger key. The linear planner must produce exactly its output.

struct RefEdit {
  trigger: Vec<Value>,
  keep: Value,
  exclude: Vec<String>,
  placeholder: String,
  inputs: Value,
  at_least: u64,
}

fn ref_edits(options: &Value) -> Vec<RefEdit> {
  edits_of(options)
    .into_iter()
    .map(|e| RefEdit {
      trigger: match &e["trigger"] {
        Value::Array(list) => list.clone(),
        one => vec![one.clone()],
      },
      keep: e["keep"].clone(),
      exclude: e["excludeTools"]
        .as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default(),
      placeholder: e["placeholder"].as_str().unwrap_or("[cleared]").to_owned(),
      inputs: e["clearToolInputs"].clone(),
      at_least: e["clearAtLeast"].as_u64().unwrap_or(0),
    })
    .collect()
}

/// Nearest earlier assistant message listing `id`, and the call this result answers there.
fn ref_find_call(msgs: &[Message], idx: usize) -> Option<(usize, usize)> {
  let id = msgs[idx].tool_call_id.as_deref()?;
  let ai = (0..idx)
    .rev()
    .find(|&j| msgs[j].role == Role::Assistant && msgs[j].tool_calls.iter().any(|c| c.id == id))?;
  let earlier = (ai + 1..idx)
    .filter(|&j| msgs[j].role == Role::Tool && msgs[j].tool_call_id.as_deref() == Some(id))
    .count();
  let same: Vec<usize> = (0..msgs[ai].tool_calls.len())
    .filter(|&k| msgs[ai].tool_calls[k].id == id)
    .collect();
  Some((ai, same[earlier.min(same.len() - 1)]))
}

#[allow(
  clippy::cast_possible_truncation,
  clippy::cast_sign_loss,
  clippy::cast_precision_loss
)]
fn ref_floor(max: u64, f: f64) -> u64 {
  (max as f64 * f).floor().max(0.0) as u64
}

/// Per edit: whether it fired, the input indices it cleared in order, and LangChain's `clearedTokens`.
type EditLog = Vec<(bool, Vec<usize>, u64)>;

/// Returns the edited messages and the log of each edit.
// A port that follows LangChain's `apply` statement by statement, with its short names: kept in
// one piece so it can be compared with the original.
#[allow(
  clippy::cast_precision_loss,
  clippy::too_many_lines,
  clippy::many_single_char_names
)]
fn reference_apply(
  e: &ContextEditor,
  input: &[Message],
  options: &Value,
  ctx: &Context,
  max: Option<u64>,
) -> (Vec<Message>, EditLog) {
  let total = |m: &[Message]| count(e, m, ctx);
  let alone = |m: &Message| {
    e.count_tokens(std::slice::from_ref(m), ctx)
      .unwrap()
      .messages[0]
  };
  let orphans = reference_orphans(input);
  // Track input indices so the cleared lists compare with the report.
  let mut msgs: Vec<(usize, Message)> = input
    .iter()
    .cloned()
    .enumerate()
    .filter(|(i, _)| !orphans.contains(i))
    .collect();
  let mut log = Vec::new();
  for edit in ref_edits(options) {
    let list = |msgs: &[(usize, Message)]| msgs.iter().map(|(_, m)| m.clone()).collect::<Vec<_>>();
    let current = total(&list(&msgs));
    let tool_uses = msgs.iter().filter(|(_, m)| m.role == Role::Tool).count() as u64;
    let fires = edit.trigger.iter().any(|t| {
      let mut met = true;
      if let Some(n) = t["messages"].as_u64() {
        met &= msgs.len() as u64 >= n;
      }
      if let Some(n) = t["tokens"].as_f64() {
        met &= current as f64 >= n;
      }
      if let Some(n) = t["toolUses"].as_u64() {
        met &= tool_uses >= n;
      }
      if let Some(f) = t["fraction"].as_f64() {
        let Some(max) = max else { return false };
        let threshold = ref_floor(max, f);
        if threshold == 0 {
          return false;
        }
        met &= current >= threshold;
      }
      met
    });
    let candidates: Vec<usize> = (0..msgs.len())
      .filter(|&p| msgs[p].1.role == Role::Tool)
      .collect();
    if !fires || candidates.is_empty() {
      log.push((fires, Vec::new(), 0));
      continue;
    }
    let walk = |budget: f64| {
      let (mut used, mut kept) = (0u64, 0u64);
      for &p in candidates.iter().rev() {
        let t = alone(&msgs[p].1);
        if (used + t) as f64 <= budget {
          used += t;
          kept += 1;
        } else {
          break;
        }
      }
      kept
    };
    let keep = if let Some(n) = edit.keep["messages"].as_u64() {
      n
    } else if let Some(b) = edit.keep["tokens"].as_f64() {
      walk(b)
    } else {
      let f = edit.keep["fraction"].as_f64().unwrap();
      match max.map(|m| ref_floor(m, f)) {
        None | Some(0) => 3,
        Some(b) => walk(b as f64),
      }
    };
    let len = candidates.len() as u64;
    let to_clear: Vec<usize> = if keep >= len {
      Vec::new()
    } else {
      candidates[..(len - keep) as usize].to_vec()
    };
    let at_start: Vec<bool> = msgs.iter().map(|(_, m)| m.cleared).collect();
    let mut cleared_tokens = 0u64;
    let mut order = Vec::new();
    let mut clear = |msgs: &mut Vec<(usize, Message)>, p: usize, cleared_tokens: &mut u64| {
      if at_start[p] {
        return;
      }
      let plain = list(msgs);
      let Some((ai, k)) = ref_find_call(&plain, p) else {
        return;
      };
      let m = &plain[p];
      let name = match m.name.as_deref() {
        Some(n) if !n.is_empty() => n.to_owned(),
        _ => plain[ai].tool_calls[k].name.clone(),
      };
      if edit.exclude.contains(&name) {
        return;
      }
      let r = &mut msgs[p].1;
      r.content = Some(edit.placeholder.clone());
      r.content_length = None;
      r.other = None;
      r.other_length = None;
      r.images = 0;
      r.tokens = None;
      r.cleared = true;
      let inputs = match &edit.inputs {
        Value::Bool(b) => *b,
        Value::Array(names) => names.iter().any(|n| n.as_str() == Some(name.as_str())),
        _ => false,
      };
      if inputs {
        let a = &mut msgs[ai].1;
        let old = a.tool_calls[k].args_len();
        a.tool_calls_length = a.tool_calls_length.map(|n| n - old + 2);
        a.tool_calls[k].args = Some("{}".into());
        a.tool_calls[k].args_length = None;
        a.tokens = None;
        let id = a.tool_calls[k].id.clone();
        let mut ids: BTreeSet<String> = a.cleared_tool_inputs.iter().cloned().collect();
        ids.insert(id);
        a.cleared_tool_inputs = ids.into_iter().collect();
      }
      order.push(msgs[p].0);
      *cleared_tokens = current.saturating_sub(total(&list(msgs)));
    };
    for &p in &to_clear {
      clear(&mut msgs, p, &mut cleared_tokens);
    }
    if edit.at_least > 0 && cleared_tokens < edit.at_least && keep > 0 && keep < len {
      for &p in candidates[(len - keep) as usize..].iter().rev() {
        if cleared_tokens >= edit.at_least {
          break;
        }
        clear(&mut msgs, p, &mut cleared_tokens);
      }
    }
    log.push((true, order, cleared_tokens));
  }
  (msgs.into_iter().map(|(_, m)| m).collect(), log)
}

proptest! {
  #![proptest_config(config())]

  /// The one-pass planner decides exactly what the naive LangChain port decides, in every counting
  /// method, for single edits and pipelines.
  #[test]
  fn matches_a_naive_port_of_langchain(msgs in conversation(), s in setup(), exact in prop::option::weighted(0.5, 0usize..5)) {
    let mut s = s;
    // Budgets exactly equal to the sizes of the newest results (and thresholds equal to the
    // request's size) probe the inclusive comparisons.
    if let Some(j) = exact {
      let e = editor(&s.options);
      let orphans = reference_orphans(&msgs);
      let live: Vec<Message> = msgs.iter().enumerate().filter(|(i, _)| !orphans.contains(i)).map(|(_, m)| m.clone()).collect();
      let alone = |m: &Message| e.count_tokens(std::slice::from_ref(m), &s.context).unwrap().messages[0];
      let sizes: u64 = live.iter().filter(|m| m.role == Role::Tool).rev().take(j).map(alone).sum();
      let now = count(&e, &live, &s.context);
      let first = if s.options.get("edits").is_some() { &mut s.options["edits"][0] } else { &mut s.options };
      if first["keep"].get("tokens").is_some() {
        first["keep"] = json!({ "tokens": sizes });
      }
      if now > 0 {
        first["trigger"] = json!({ "tokens": now });
      }
    }
    let e = editor(&s.options);
    let plan = e.plan(&msgs, &s.context).unwrap();
    let max = plan.report.max_input_tokens;
    let (expected, log) = reference_apply(&e, &msgs, &s.options, &s.context, max);
    prop_assert_eq!(plan.apply(&msgs), expected);
    let ours: Vec<(bool, u64)> = plan.report.applied_edits.iter().map(|a| (a.triggered, a.cleared_input_tokens)).collect();
    let theirs: Vec<(bool, u64)> = log.iter().map(|(t, _, freed)| (*t, *freed)).collect();
    prop_assert_eq!(ours, theirs);
    let order: Vec<usize> = log.iter().flat_map(|(_, o, _)| o.iter().copied()).collect();
    prop_assert_eq!(plan.report.cleared.iter().map(|c| c.index).collect::<Vec<_>>(), order);
  }
}
