//! Clearing tool results one at a time, with the bookkeeping every clearing strategy shares: what
//! was cleared and freed, which call arguments went with it, and how many results to keep.

use std::sync::Arc;

use crate::draft::{CallRef, Draft};
use crate::message::Message;
use crate::options::{ClearToolUses, Keep, DEFAULT_KEEP_MESSAGES};
use crate::plan::{ClearedInput, ClearedResult, CLEAR_TOOL_USES_STRATEGY};
use crate::trigger::fraction_of;

/// One run of clearing: what it cleared and freed so far, and where it reports.
pub(super) struct Clearing<'a> {
  pub edit: &'a ClearToolUses,
  /// `edit.placeholder`, shared by every result cleared (unless it names the call, see
  /// [`Clearing::placeholder_for`]).
  pub placeholder: Arc<str>,
  /// `placeholder` cut at each `{tool_call_id}` slot, when it has one (see [`slotted`]).
  pub slotted: Option<Box<[Box<str>]>>,
  pub pairs: &'a [Option<CallRef>],
  /// Request tokens when the run started.
  pub start_tokens: u64,
  /// Tokens freed since the start.
  pub freed: u64,
  /// Results cleared.
  pub count: u64,
  pub cleared: &'a mut Vec<ClearedResult>,
  pub cleared_inputs: &'a mut Vec<ClearedInput>,
}

impl Clearing<'_> {
  /// Whether `i` is pinned or a result of an excluded tool (never cleared).
  pub fn excluded(&self, draft: &Draft<'_, '_>, i: usize) -> bool {
    if draft.is_pinned(i) {
      return true;
    }
    let Some(call) = self.pairs[i] else {
      return true;
    };
    self.edit.excludes(tool_name(draft.msgs, i, call))
  }

  /// Clears result `i` (and its call's arguments when the edit says so), unless it is cleared
  /// already, unpaired or excluded; `reason` goes to the report.
  pub fn clear(&mut self, draft: &mut Draft<'_, '_>, i: usize, reason: &'static str) {
    let msgs = draft.msgs;
    let m: &Message = &msgs[i];
    if m.cleared || draft.slots[i].cleared.is_some() || draft.is_pinned(i) {
      return;
    }
    let Some((ai, k)) = self.pairs[i] else { return };
    let name = tool_name(msgs, i, (ai, k));
    if self.edit.excludes(name) {
      return;
    }
    let before = draft.tokens();
    let tool_name = name.to_owned();
    let tool_call_id: Arc<str> = m.tool_call_id.as_deref().unwrap_or_default().into();
    let placeholder = self.placeholder_for(&tool_call_id);
    draft.clear_result(i, &placeholder, CLEAR_TOOL_USES_STRATEGY);
    if self.edit.clear_tool_inputs.applies_to(&tool_name)
      && !draft.slots[ai].removed_calls.contains(&k)
    {
      if !draft.slots[ai].cleared_args.contains(&k) {
        self.cleared_inputs.push(ClearedInput {
          index: ai,
          call_index: k,
          tool_call_id: Arc::clone(&tool_call_id),
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
      tool_name: tool_name.into(),
      tokens_freed: before.saturating_sub(after),
      reason,
    });
  }
}

/// The tool of result `i`, whose call is `(ai, k)`: the result's own `name`, else the call's.
pub(crate) fn tool_name(msgs: &[Message], i: usize, (ai, k): CallRef) -> &str {
  match msgs[i].name.as_deref() {
    Some(n) if !n.is_empty() => n,
    _ => msgs[ai].tool_calls[k].name.as_str(),
  }
}

/// In a placeholder, the place of the cleared result's call id (so the model can ask for it back,
/// e.g. with the `recall_tool_result` tool).
pub(super) const TOOL_CALL_ID_SLOT: &str = "{tool_call_id}";

/// `placeholder` cut at each `{tool_call_id}` slot (`None` without one): found once per run, as
/// every result it clears names its call (searching the placeholder for the slot on each result
/// was a tenth of a next call with the recall tool's placeholder).
pub(crate) fn slotted(placeholder: &str) -> Option<Box<[Box<str>]>> {
  placeholder.contains(TOOL_CALL_ID_SLOT).then(|| {
    placeholder
      .split(TOOL_CALL_ID_SLOT)
      .map(Box::from)
      .collect()
  })
}

impl Clearing<'_> {
  /// The placeholder of the result of call `id`: the edit's, with `{tool_call_id}` replaced by the
  /// id when it has that slot (counted as written: each result's own text).
  pub fn placeholder_for(&self, id: &str) -> Arc<str> {
    match &self.slotted {
      None => Arc::clone(&self.placeholder),
      Some(parts) => filled(parts, id),
    }
  }
}

/// The pieces of a placeholder `slotted` cut, joined by `id`.
pub(crate) fn filled(parts: &[Box<str>], id: &str) -> Arc<str> {
  let len = parts.iter().map(|p| p.len()).sum::<usize>() + parts.len().saturating_sub(1) * id.len();
  let mut out = String::with_capacity(len);
  for (k, part) in parts.iter().enumerate() {
    if k > 0 {
      out.push_str(id);
    }
    out.push_str(part);
  }
  Arc::from(out)
}

/// How many of the newest tool results to keep.
pub(super) fn keep_count(
  keep: Keep,
  candidates: &[usize],
  draft: &Draft<'_, '_>,
  max_input_tokens: Option<u64>,
) -> u64 {
  // Each result counted on its own (LangChain's model mode charges the system prompt to each).
  keep_count_by(keep, candidates, max_input_tokens, |i| {
    draft.meter.tokens_of(draft.slots[i].size)
  })
}

/// [`keep_count`] with each result's tokens given by `tokens`.
pub(crate) fn keep_count_by(
  keep: Keep,
  candidates: &[usize],
  max_input_tokens: Option<u64>,
  tokens: impl Fn(usize) -> u64,
) -> u64 {
  let walk = |budget: f64| -> u64 {
    let mut used = 0u64;
    let mut kept = 0u64;
    for &i in candidates.iter().rev() {
      let t = tokens(i);
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

#[cfg(test)]
mod tests {
  use super::*;
  use proptest::prelude::*;

  /// What `placeholder_for` gives for `placeholder` and `id`.
  fn placeholder_for(placeholder: &str, id: &str) -> String {
    match slotted(placeholder) {
      None => placeholder.to_owned(),
      Some(parts) => filled(&parts, id).to_string(),
    }
  }

  #[test]
  fn fills_every_slot_as_replace_does() {
    for p in [
      "",
      "[cleared]",
      "{tool_call_id}",
      "{tool_call_id}{tool_call_id}",
      "x{tool_call_id}y{tool_call_id}",
      "{tool_call_id",
      "{{tool_call_id}}",
      "{tool_call_id}}tool_call_id}",
      "清除 {tool_call_id} 🧹",
    ] {
      for id in ["", "call_1", "{tool_call_id}", "é🧹"] {
        assert_eq!(
          placeholder_for(p, id),
          p.replace(TOOL_CALL_ID_SLOT, id),
          "{p:?} with {id:?}"
        );
      }
    }
  }

  proptest! {
    #[test]
    fn fills_as_replace(p in "(\\{tool_call_id\\}|[{}a-z_é]){0,12}", id in "[{}a-z_0-9]{0,8}") {
      prop_assert_eq!(placeholder_for(&p, &id), p.replace(TOOL_CALL_ID_SLOT, &id));
    }
  }
}
