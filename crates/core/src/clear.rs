//! The `clear_tool_uses` edit: LangChain's `ClearToolUsesEdit` decisions in one linear pass.
//!
//! Mirrors langchainjs `libs/langchain/src/agents/middleware/contextEditing.ts` (langchain 1.5.14,
//! `ClearToolUsesEdit.apply`), rule by rule; the differences are deliberate and listed in the README.

use crate::draft::{CallRef, Draft};
use crate::message::Message;
use crate::options::{ClearToolUses, Keep, Stable, DEFAULT_KEEP_MESSAGES};
use crate::plan::{AppliedEdit, ClearedInput, ClearedResult, Warning, CLEAR_TOOL_USES_STRATEGY};
use crate::trigger::{fraction_of, is_triggered, Facts};

/// Anthropic's limit of cache breakpoints per request.
pub const MAX_CACHE_BREAKPOINTS: u32 = 4;

/// Runs one `clear_tool_uses` edit on the draft; returns its entry of `applied_edits`. Pushes the
/// index of the last cleared message (and, in stable mode, the previous step's) to `boundaries`,
/// newest first: where cache breakpoints go.
pub(crate) fn clear_tool_uses(
  edit: &ClearToolUses,
  draft: &mut Draft<'_, '_>,
  max_input_tokens: Option<u64>,
  cleared: &mut Vec<ClearedResult>,
  cleared_inputs: &mut Vec<ClearedInput>,
  warnings: &mut Vec<Warning>,
  boundaries: &mut Vec<usize>,
) -> AppliedEdit {
  let mut applied = AppliedEdit::new("clear_tool_uses");
  let pairs = draft.pair();
  let candidates: Vec<usize> = draft
    .alive()
    .filter(|&i| draft.msgs[i].role == crate::Role::Tool)
    .collect();
  let facts = draft.facts(max_input_tokens);
  if max_input_tokens.is_none()
    && (edit.trigger.iter().any(|t| t.fraction.is_some()) || matches!(edit.keep, Keep::Fraction(_)))
  {
    warnings.push(Warning {
      code: "max_input_tokens_unknown",
      message: "a `fraction` option needs the model's input limit, which is unknown (pass `maxInputTokens`); fraction triggers do not fire and `keep.fraction` keeps 3 results".into(),
      index: None,
    });
  }
  if !is_triggered(&edit.trigger, &facts) {
    return applied;
  }
  applied.triggered = true;
  if candidates.is_empty() {
    return applied;
  }
  let keep = keep_count(edit.keep, &candidates, draft, max_input_tokens);
  let len = candidates.len();
  let split = len.saturating_sub(usize::try_from(keep).unwrap_or(usize::MAX));
  let start_tokens = draft.tokens();
  let mut run = Clearing {
    edit,
    placeholder: std::sync::Arc::from(edit.placeholder.as_str()),
    pairs: &pairs,
    start_tokens,
    freed: 0,
    cleared,
    cleared_inputs,
    count: 0,
  };
  if let Some(stable) = edit.stable {
    let ceiling = stable_ceiling(edit, &stable, max_input_tokens);
    stable_clear(
      &stable,
      ceiling,
      max_input_tokens,
      &mut run,
      draft,
      &candidates,
      boundaries,
    );
  } else {
    for &i in &candidates[..split] {
      run.clear(draft, i);
    }
    if let Some(&last) = candidates[..split]
      .iter()
      .rev()
      .find(|&&i| draft.msgs[i].cleared || draft.slots[i].cleared.is_some())
    {
      boundaries.push(last);
    }
    // `clearAtLeast` only adds clearing, newest kept result first; as in LangChain it does nothing
    // when every result is kept (`keep >= results`) or none is.
    if edit.clear_at_least > 0
      && run.freed < edit.clear_at_least
      && keep > 0
      && (keep as usize) < len
    {
      for &i in candidates[split..].iter().rev() {
        if run.freed >= edit.clear_at_least {
          break;
        }
        run.clear(draft, i);
      }
    }
  }
  applied.cleared_tool_uses = run.count;
  applied.cleared_input_tokens = run.freed;
  applied
}

/// The hard ceiling of stable mode: `maxTokens`, else the lowest `tokens`/`fraction` trigger
/// threshold, capped by the model's input limit.
fn stable_ceiling(
  edit: &ClearToolUses,
  stable: &Stable,
  max_input_tokens: Option<u64>,
) -> Option<u64> {
  let from_trigger = || {
    edit
      .trigger
      .iter()
      .flat_map(|t| {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let tokens = t.tokens.map(|n| n.floor().max(1.0) as u64);
        let fraction = t
          .fraction
          .and_then(|f| max_input_tokens.map(|max| fraction_of(max, f)))
          .filter(|&n| n > 0);
        [tokens, fraction]
      })
      .flatten()
      .min()
  };
  let ceiling = stable.max_tokens.or_else(from_trigger);
  match (ceiling, max_input_tokens) {
    (Some(c), Some(m)) => Some(c.min(m)),
    (c, m) => c.or(m),
  }
}

/// Stable clearing. The results that may be cleared (outside the kept window, excluded tools left
/// out) are cleared oldest first, and only the first `k` of them, where `k` comes from replaying
/// the history model call by model call: every live assistant message marks an earlier call that
/// saw the messages before it, and the current call sees them all. At each call where the trigger
/// holds, `k` stays, or steps (to the kept window, or by `step_results`) when the step rule says
/// so or when the request would be over the ceiling. A call's `k` depends only on the messages
/// before it, so for an append-only history consecutive calls agree and `k` only grows: the prefix
/// up to the boundary stays byte-identical between steps. The current call then checks the
/// ceiling on the exact count and clears further if it must.
fn stable_clear(
  stable: &Stable,
  ceiling: Option<u64>,
  max_input_tokens: Option<u64>,
  run: &mut Clearing<'_>,
  draft: &mut Draft<'_, '_>,
  candidates: &[usize],
  boundaries: &mut Vec<usize>,
) {
  let len = draft.msgs.len();
  // Sizes (in the counter's units) of the messages before each index, and the fixed parts.
  let mut before = Vec::with_capacity(len + 1);
  let (mut alive, mut users) = (Vec::with_capacity(len + 1), Vec::with_capacity(len + 1));
  let (mut size, mut a, mut u) = (0u64, 0usize, 0usize);
  for i in 0..len {
    before.push(size);
    alive.push(a);
    users.push(u);
    if !draft.slots[i].removed {
      size += draft.slots[i].size;
      a += 1;
      u += usize::from(draft.msgs[i].role == crate::Role::User);
    }
  }
  before.push(size);
  alive.push(a);
  users.push(u);
  let fixed = draft.total.saturating_sub(size);
  // The results that may be cleared, with prefix sums of what clearing frees and of their tokens.
  let clearable: Vec<bool> = candidates
    .iter()
    .map(|&i| !run.excluded(draft, i))
    .collect();
  let eligible: Vec<usize> = candidates
    .iter()
    .zip(&clearable)
    .filter_map(|(&i, &c)| c.then_some(i))
    .collect();
  // `eligible_in[c]`: how many of `candidates[..c]` may be cleared.
  let mut eligible_in = vec![0usize];
  for &c in &clearable {
    eligible_in.push(eligible_in.last().copied().unwrap_or(0) + usize::from(c));
  }
  let (mut freed, mut window) = (vec![0u64], vec![0u64]);
  for &i in &eligible {
    let slot = &draft.slots[i];
    let saves = if draft.msgs[i].cleared || slot.cleared.is_some() {
      0
    } else {
      slot.size.saturating_sub(
        draft
          .meter
          .cleared_size(&draft.msgs[i], &run.edit.placeholder),
      )
    };
    freed.push(freed.last().copied().unwrap_or(0) + saves);
    window.push(window.last().copied().unwrap_or(0) + draft.meter.tokens_of(slot.size));
  }
  let step = usize::try_from(stable.step_results.max(1)).unwrap_or(usize::MAX);
  // The request at the call before `end`, with the first `k` eligible results cleared.
  let tokens_at = |end: usize, k: usize| draft.meter.total_tokens(fixed + before[end] - freed[k]);
  let over = |end: usize, k: usize| ceiling.is_some_and(|c| tokens_at(end, k) > c);
  // (current, previous) boundary: how many of `eligible` are cleared.
  let (mut k, mut prev) = (0usize, 0usize);
  let mut last_call = 0usize;
  // How many results the current call may clear (outside its kept window).
  let mut outside = 0usize;
  let calls = (0..len)
    .filter(|&i| !draft.slots[i].removed && draft.msgs[i].role == crate::Role::Assistant)
    .chain([len]);
  // The boundary of the previous call, as the replay sees it.
  let mut before_this_call = 0;
  for end in calls {
    if end == len {
      before_this_call = k;
    }
    let previous_call = std::mem::replace(&mut last_call, end);
    let results = candidates.partition_point(|&i| i < end);
    let facts = Facts {
      tokens: tokens_at(end, 0),
      messages: alive[end],
      tool_uses: results,
      turns: users[end],
      max_input_tokens,
    };
    if end < len && !is_triggered(&run.edit.trigger, &facts) {
      continue;
    }
    let keep = keep_count(
      run.edit.keep,
      &candidates[..results],
      draft,
      max_input_tokens,
    );
    let n = eligible_in[results.saturating_sub(usize::try_from(keep).unwrap_or(usize::MAX))];
    outside = n;
    if n <= k {
      continue;
    }
    let next = if let Some(ratio) = stable.step_ratio {
      // What the step frees, against what it rewrites of the request the previous call sent.
      let gain = freed[n] - freed[k];
      let cached_end = previous_call.max(eligible[k]);
      let still = eligible.partition_point(|&i| i < cached_end).min(n);
      let evicted = (before[cached_end] - before[eligible[k]]) - (freed[still] - freed[k]);
      #[allow(clippy::cast_precision_loss)]
      let worth = gain as f64 >= ratio * evicted as f64 && gain > 0;
      if worth || over(end, k) {
        n
      } else {
        k
      }
    } else if let Some(budget) = stable.step_tokens {
      if window[n] - window[k] > budget || over(end, k) {
        n
      } else {
        k
      }
    } else {
      let mut next = k.max(n / step * step);
      while next < n && over(end, next) {
        next = (next + step).min(n);
      }
      next
    };
    if next > k {
      prev = k;
      k = next;
    }
  }
  for &i in &eligible[..k] {
    run.clear(draft, i);
  }
  // The exact count of this call: clear further while over the ceiling.
  while k < outside && ceiling.is_some_and(|c| draft.tokens() > c) {
    let next = if stable.step_ratio.is_none() && stable.step_tokens.is_none() {
      (k + step).min(outside)
    } else {
      outside
    };
    for &i in &eligible[k..next] {
      run.clear(draft, i);
    }
    prev = k;
    k = next;
  }
  if k > 0 {
    boundaries.push(eligible[k - 1]);
    // This call steps: the request is identical to the previous one up to the first result it
    // newly clears. Mark the last tool result or user message before it (a block that ends its
    // message, unlike an assistant message's text before its tool calls): its lookback reaches the
    // previous requests' entries closest to that point. Otherwise: the previous step's boundary.
    let mark = if before_this_call < k {
      (0..eligible[before_this_call]).rev().find(|&i| {
        !draft.slots[i].removed
          && matches!(draft.msgs[i].role, crate::Role::Tool | crate::Role::User)
      })
    } else {
      None
    };
    match mark {
      Some(i) => boundaries.push(i),
      None if prev > 0 && prev < k => boundaries.push(eligible[prev - 1]),
      None => {}
    }
  }
}

struct Clearing<'a> {
  edit: &'a ClearToolUses,
  /// `edit.placeholder`, shared by every result cleared.
  placeholder: std::sync::Arc<str>,
  pairs: &'a [Option<CallRef>],
  start_tokens: u64,
  freed: u64,
  count: u64,
  cleared: &'a mut Vec<ClearedResult>,
  cleared_inputs: &'a mut Vec<ClearedInput>,
}

impl Clearing<'_> {
  /// Whether `i` is a result of an excluded tool (never cleared).
  fn excluded(&self, draft: &Draft<'_, '_>, i: usize) -> bool {
    let m = &draft.msgs[i];
    let Some((ai, k)) = self.pairs[i] else {
      return true;
    };
    let name = match m.name.as_deref() {
      Some(n) if !n.is_empty() => n,
      _ => draft.msgs[ai].tool_calls[k].name.as_str(),
    };
    self.edit.exclude_tools.iter().any(|t| t == name)
  }

  fn clear(&mut self, draft: &mut Draft<'_, '_>, i: usize) {
    let msgs = draft.msgs;
    let m: &Message = &msgs[i];
    if m.cleared || draft.slots[i].cleared.is_some() {
      return;
    }
    let Some((ai, k)) = self.pairs[i] else { return };
    let call = &msgs[ai].tool_calls[k];
    let tool_name = match m.name.as_deref() {
      Some(n) if !n.is_empty() => n,
      _ => call.name.as_str(),
    };
    if self.edit.exclude_tools.iter().any(|t| t == tool_name) {
      return;
    }
    let before = draft.tokens();
    let tool_name = tool_name.to_owned();
    let tool_call_id = m.tool_call_id.clone().unwrap_or_default();
    draft.clear_result(i, &self.placeholder, CLEAR_TOOL_USES_STRATEGY);
    if self.edit.clear_tool_inputs.applies_to(&tool_name)
      && !draft.slots[ai].removed_calls.contains(&k)
    {
      if !draft.slots[ai].cleared_args.contains(&k) {
        self.cleared_inputs.push(ClearedInput {
          index: ai,
          call_index: k,
          tool_call_id: tool_call_id.clone(),
        });
      }
      draft.clear_args(ai, k);
    }
    let after = draft.tokens();
    self.freed = self.start_tokens.saturating_sub(after);
    self.count += 1;
    self.cleared.push(ClearedResult {
      index: i,
      tool_call_id,
      tool_name,
      tokens_freed: before.saturating_sub(after),
    });
  }
}

/// How many of the newest tool results to keep.
fn keep_count(
  keep: Keep,
  candidates: &[usize],
  draft: &Draft<'_, '_>,
  max_input_tokens: Option<u64>,
) -> u64 {
  let walk = |budget: f64| -> u64 {
    let mut used = 0u64;
    let mut kept = 0u64;
    for &i in candidates.iter().rev() {
      // Each result counted on its own (LangChain's model mode charges the system prompt to each).
      let t = draft.meter.tokens_of(draft.slots[i].size);
      #[allow(clippy::cast_precision_loss)]
      if ((used + t) as f64) <= budget {
        used += t;
        kept += 1;
      } else {
        break;
      }
    }
    kept
  };
  match keep {
    Keep::Messages(n) => n,
    Keep::Tokens(budget) => walk(budget),
    Keep::Fraction(f) => match max_input_tokens {
      None => DEFAULT_KEEP_MESSAGES,
      Some(max) => match fraction_of(max, f) {
        0 => DEFAULT_KEEP_MESSAGES,
        #[allow(clippy::cast_precision_loss)]
        budget => walk(budget as f64),
      },
    },
  }
}
