//! The `clear_tool_uses` edit: LangChain's `ClearToolUsesEdit` decisions in one linear pass.
//!
//! Mirrors langchainjs `libs/langchain/src/agents/middleware/contextEditing.ts` (langchain 1.5.14,
//! `ClearToolUsesEdit.apply`), rule by rule; the differences are deliberate and listed in the README.
//! With `stable`, the boundary of what is cleared moves in steps instead (see `stable`).
//! With `prefer`, stale results (`prefer`: superseded, duplicate) are cleared first, and the keep
//! rule counts only the others.

use std::sync::Arc;

use crate::draft::Draft;
use crate::message::Role;
use crate::options::{ClearToolUses, Keep};
use crate::plan::{AppliedEdit, Report, Warning, CLEARED_AT_LEAST, CLEARED_OLD};
use crate::trigger::is_triggered;

use super::clearing::{keep_count, slotted, Clearing};
use super::prefer::{stale_results, Stale};
use super::stable::{ceiling, stable_clear, StableRun};

/// Runs one `clear_tool_uses` edit on the draft; returns its entry of `applied_edits` and adds
/// what it cleared and its warnings to `report`. Pushes the index of the last cleared message
/// (and, in stable mode, the previous step's) to `boundaries`, newest first: where cache
/// breakpoints go.
pub(crate) fn clear_tool_uses(
  edit: &ClearToolUses,
  draft: &mut Draft<'_, '_>,
  max_input_tokens: Option<u64>,
  report: &mut Report,
  boundaries: &mut Vec<usize>,
) -> AppliedEdit {
  let mut applied = AppliedEdit::new("clear_tool_uses");
  let pairs = draft.pair();
  let candidates: Vec<usize> = draft
    .alive()
    .filter(|&i| draft.msgs[i].role == Role::Tool)
    .collect();
  let facts = draft.facts(max_input_tokens);
  report
    .warnings
    .extend(fraction_unknown(edit, max_input_tokens));
  if !is_triggered(&edit.trigger, &facts) {
    return applied;
  }
  applied.triggered = true;
  if candidates.is_empty() {
    return applied;
  }
  // At most every candidate is cleared: reserved at once, not grown by doubling (each doubling of a
  // long history's list moved it to fresh pages, about 3 % of a next call at 2,000 messages).
  report.cleared.reserve(candidates.len());
  let mut run = Clearing {
    edit,
    placeholder: Arc::from(edit.placeholder.as_str()),
    slotted: slotted(&edit.placeholder),
    pairs: &pairs,
    start_tokens: draft.tokens(),
    freed: 0,
    cleared: &mut report.cleared,
    cleared_inputs: &mut report.cleared_tool_inputs,
    count: 0,
  };
  let stale = stale_results(&edit.prefer, draft, &pairs, &candidates);
  if let Some(stable) = &edit.stable {
    let job = StableRun {
      stable,
      ceiling: ceiling(edit, stable, max_input_tokens),
      max_input_tokens,
      candidates: &candidates,
      stale: stale.as_deref(),
    };
    stable_clear(&job, &mut run, draft, boundaries);
  } else {
    let rest = match &stale {
      Some(stale) => clear_stale(&mut run, draft, &candidates, stale),
      None => candidates,
    };
    clear_oldest(&mut run, draft, &rest, max_input_tokens, boundaries);
  }
  applied.cleared_tool_uses = run.count;
  applied.cleared_input_tokens = run.freed;
  applied
}

/// The warning of an edit with a `fraction` option when the model's input limit is unknown.
pub(crate) fn fraction_unknown(
  edit: &ClearToolUses,
  max_input_tokens: Option<u64>,
) -> Option<Warning> {
  (max_input_tokens.is_none()
    && (edit.trigger.iter().any(|t| t.fraction.is_some()) || matches!(edit.keep, Keep::Fraction(_))))
  .then(|| Warning {
    code: "max_input_tokens_unknown",
    message: "a `fraction` option needs the model's input limit, which is unknown (pass `maxInputTokens`); fraction triggers do not fire and `keep.fraction` keeps 3 results".into(),
    index: None,
  })
}

/// Clears the stale results (those of tools not excluded); returns the other candidates, which
/// the keep rule counts.
fn clear_stale(
  run: &mut Clearing<'_>,
  draft: &mut Draft<'_, '_>,
  candidates: &[usize],
  stale: &[Option<Stale>],
) -> Vec<usize> {
  let mut rest = Vec::with_capacity(candidates.len());
  for (&i, s) in candidates.iter().zip(stale) {
    match s {
      Some(s) if !run.excluded(draft, i) => run.clear(draft, i, s.reason),
      _ => rest.push(i),
    }
  }
  rest
}

/// LangChain's rule: clears every result outside the kept window, then, for `clearAtLeast`, kept
/// results newest first until enough is freed.
fn clear_oldest(
  run: &mut Clearing<'_>,
  draft: &mut Draft<'_, '_>,
  candidates: &[usize],
  max_input_tokens: Option<u64>,
  boundaries: &mut Vec<usize>,
) {
  let keep = keep_count(run.edit.keep, candidates, draft, max_input_tokens);
  let len = candidates.len();
  let split = len.saturating_sub(usize::try_from(keep).unwrap_or(usize::MAX));
  for &i in &candidates[..split] {
    run.clear(draft, i, CLEARED_OLD);
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
  let at_least = run.edit.clear_at_least;
  if at_least > 0 && run.freed < at_least && keep > 0 && keep < len as u64 {
    for &i in candidates[split..].iter().rev() {
      if run.freed >= at_least {
        break;
      }
      run.clear(draft, i, CLEARED_AT_LEAST);
    }
  }
}
