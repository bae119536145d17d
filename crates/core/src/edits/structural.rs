//! Structural edits: Synaptic's `LastN` / `StripToolCalls` / `StripAndTruncate`, CE Node's turn
//! trimming and tool-result truncation, and Anthropic's `clear_thinking`. Every edit keeps the
//! conversation valid for the OpenAI and Anthropic APIs: a removal that would leave a tool result
//! without its call, or a call without its result, is repaired by [`repair_pairs`].

use std::collections::BTreeSet;

use crate::draft::{CallRef, Draft};
use crate::message::{utf16_len, utf16_prefix, Role};
use crate::options::{ThinkingKeep, Trigger};
use crate::plan::AppliedEdit;
use crate::trigger::is_triggered;

/// Whether an optional trigger holds (`None` = always).
pub(crate) fn gate(
  trigger: Option<&[Trigger]>,
  draft: &Draft<'_, '_>,
  max_input_tokens: Option<u64>,
) -> bool {
  trigger.is_none_or(|t| is_triggered(t, &draft.facts(max_input_tokens)))
}

/// Calls answered in the input, for pair repair.
pub(crate) fn answered(pairs: &[Option<CallRef>]) -> BTreeSet<CallRef> {
  pairs.iter().flatten().copied().collect()
}

/// Live messages that open the conversation with the system role: never removed by trimming.
pub(crate) fn leading_system(draft: &Draft<'_, '_>) -> usize {
  draft
    .alive()
    .take_while(|&i| draft.msgs[i].role == Role::System)
    .count()
}

/// Live messages after the leading system messages.
pub(crate) fn conversation(draft: &Draft<'_, '_>) -> Vec<usize> {
  let lead = leading_system(draft);
  draft.alive().skip(lead).collect()
}

/// Removes messages (pinned ones stay), then repairs pairs.
fn remove_all(
  draft: &mut Draft<'_, '_>,
  ids: &[usize],
  answered: &BTreeSet<CallRef>,
  applied: &mut AppliedEdit,
) {
  for &i in ids {
    if !draft.is_pinned(i) {
      draft.remove(i);
      applied.removed_messages += 1;
    }
  }
  repair_pairs(draft, answered, applied);
}

/// After removals: drops tool results whose call is gone, and removes calls whose results are gone
/// (only calls that had results in the input). An assistant message left with no calls and no
/// content is removed; one with text keeps its text.
pub(crate) fn repair_pairs(
  draft: &mut Draft<'_, '_>,
  answered: &BTreeSet<CallRef>,
  applied: &mut AppliedEdit,
) {
  let pairs = draft.pair();
  let orphans: Vec<usize> = draft
    .alive()
    .filter(|&i| draft.msgs[i].role == Role::Tool && pairs[i].is_none() && !draft.is_pinned(i))
    .collect();
  for &i in &orphans {
    draft.remove(i);
  }
  applied.removed_messages += orphans.len() as u64;
  let now: BTreeSet<CallRef> = pairs.iter().flatten().copied().collect();
  let assistants: Vec<usize> = draft
    .alive()
    .filter(|&i| draft.msgs[i].role == Role::Assistant && !draft.is_pinned(i))
    .collect();
  for i in assistants {
    let live = draft.live_calls(i);
    let lost: Vec<usize> = live
      .iter()
      .copied()
      .filter(|&k| answered.contains(&(i, k)) && !now.contains(&(i, k)))
      .collect();
    if lost.is_empty() {
      continue;
    }
    let m = &draft.msgs[i];
    if lost.len() == live.len() && m.text_len() == 0 && m.other_len() == 0 && m.images == 0 {
      draft.remove(i);
      applied.removed_messages += 1;
    } else {
      draft.remove_calls(i, &lost);
      applied.removed_tool_calls += lost.len() as u64;
    }
  }
}

/// Synaptic `LastN(n)`: keep the leading system messages and the last `n` others.
pub(crate) fn last_n(
  draft: &mut Draft<'_, '_>,
  n: u64,
  answered: &BTreeSet<CallRef>,
  applied: &mut AppliedEdit,
) {
  let others = conversation(draft);
  let n = usize::try_from(n).unwrap_or(usize::MAX);
  if others.len() <= n {
    return;
  }
  let cut = others.len() - n;
  remove_all(draft, &others[..cut], answered, applied);
}

/// Synaptic `StripToolCalls`: remove every tool result, and every assistant message whose only
/// content is tool calls; an assistant message with text keeps its text and loses its calls.
pub(crate) fn strip_tool_calls(
  draft: &mut Draft<'_, '_>,
  answered: &BTreeSet<CallRef>,
  applied: &mut AppliedEdit,
) {
  let alive: Vec<usize> = draft.alive().collect();
  let mut remove = Vec::new();
  for i in alive {
    let m = &draft.msgs[i];
    if draft.is_pinned(i) {
      continue;
    }
    match m.role {
      Role::Tool => remove.push(i),
      Role::Assistant => {
        let live = draft.live_calls(i);
        if live.is_empty() {
          continue;
        }
        if m.text_len() == 0 {
          remove.push(i);
        } else {
          draft.remove_calls(i, &live);
          applied.removed_tool_calls += live.len() as u64;
        }
      }
      Role::System | Role::User => {}
    }
  }
  remove_all(draft, &remove, answered, applied);
}

/// CE Node TRIMMING: keep the leading system messages and the last `max_turns` turns (a turn is a
/// user message and everything up to the next one; messages before the first turn go first).
pub(crate) fn trim_turns(
  draft: &mut Draft<'_, '_>,
  max_turns: u64,
  answered: &BTreeSet<CallRef>,
  applied: &mut AppliedEdit,
) {
  let others = conversation(draft);
  let starts: Vec<usize> = others
    .iter()
    .copied()
    .filter(|&i| draft.msgs[i].role == Role::User)
    .collect();
  let max = usize::try_from(max_turns).unwrap_or(usize::MAX);
  if starts.len() <= max {
    return;
  }
  let first_kept = starts[starts.len() - max];
  let cut: Vec<usize> = others.into_iter().filter(|&i| i < first_kept).collect();
  remove_all(draft, &cut, answered, applied);
}

/// The marker appended to a truncated tool result.
#[must_use]
pub fn truncation_marker(cut: u64) -> String {
  format!("\n[… {cut} characters truncated]")
}

/// Where to cut a text of `len` UTF-16 units so that text + marker fit in `max` when possible.
fn keep_for(len: u64, max: u64) -> u64 {
  let mut keep = max.saturating_sub(utf16_len(&truncation_marker(len.saturating_sub(max))));
  for _ in 0..3 {
    let marker = utf16_len(&truncation_marker(len - keep));
    if keep + marker <= max || keep == 0 {
      break;
    }
    keep = max.saturating_sub(marker);
  }
  keep
}

/// CE Node `tool_trim_limit`: cut tool results longer than `max_chars` to their head + a marker.
pub(crate) fn truncate_tool_results(
  draft: &mut Draft<'_, '_>,
  max_chars: u64,
  exclude: &[String],
  pairs: &[Option<CallRef>],
  applied: &mut AppliedEdit,
) {
  let targets: Vec<usize> = draft
    .alive()
    .filter(|&i| draft.msgs[i].role == Role::Tool)
    .collect();
  for i in targets {
    let m = &draft.msgs[i];
    if m.cleared || m.truncated || draft.slots[i].content_replaced() || draft.is_pinned(i) {
      continue;
    }
    let name = match m.name.as_deref() {
      Some(n) if !n.is_empty() => n,
      _ => pairs[i].map_or("", |(ai, k)| draft.msgs[ai].tool_calls[k].name.as_str()),
    };
    if exclude.iter().any(|t| t == name) {
      continue;
    }
    let len = m.text_len();
    if len <= max_chars {
      continue;
    }
    let keep = keep_for(len, max_chars);
    let msgs = draft.msgs;
    let (head, keep) = match msgs[i].content.as_deref() {
      Some(text) => {
        let (head, units) = utf16_prefix(text, keep);
        (Some(head), units)
      }
      None => (None, keep),
    };
    let marker = truncation_marker(len - keep);
    if keep + utf16_len(&marker) >= len {
      // Head + marker would be no shorter than the text (a limit below the marker's length on a
      // short result): cutting would grow it.
      continue;
    }
    draft.truncate(i, usize::try_from(keep).unwrap_or(usize::MAX), head, marker);
    applied.truncated_tool_results += 1;
  }
}

/// Anthropic `clear_thinking`: the newest `N` assistant messages with reasoning keep it.
pub(crate) fn clear_thinking(
  draft: &mut Draft<'_, '_>,
  keep: ThinkingKeep,
  applied: &mut AppliedEdit,
) {
  let ThinkingKeep::Turns(n) = keep else { return };
  // An assistant turn is everything the model wrote between two user messages: a whole tool-use
  // loop is one turn, as in Anthropic's `thinking_turns`, so a loop in progress keeps its reasoning.
  let mut turn = 0usize;
  let mut with: Vec<(usize, usize)> = Vec::new();
  for i in draft.alive() {
    let m = &draft.msgs[i];
    match m.role {
      Role::User => turn += 1,
      Role::Assistant
        if m.has_thinking() && !draft.slots[i].removed_thinking && !draft.is_pinned(i) =>
      {
        with.push((turn, i));
      }
      _ => {}
    }
  }
  let mut turns: Vec<usize> = with.iter().map(|&(t, _)| t).collect();
  turns.dedup();
  let n = usize::try_from(n).unwrap_or(usize::MAX);
  if turns.len() <= n {
    return;
  }
  let first_kept = turns[turns.len() - n..]
    .first()
    .copied()
    .unwrap_or(usize::MAX);
  for &(t, i) in &with {
    if t < first_kept {
      draft.remove_thinking(i);
    }
  }
  applied.cleared_thinking_turns += (turns.len() - n) as u64;
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn keep_leaves_room_for_the_marker() {
    let len = 10_000;
    let keep = keep_for(len, 600);
    let marker = utf16_len(&truncation_marker(len - keep));
    assert_eq!(keep + marker, 600);
    // Too small a limit keeps nothing but still says how much was cut.
    assert_eq!(keep_for(100, 5), 0);
  }
}
