//! Pinned content: messages the caller marked `pinned` (with their tool-call pairs, see
//! `Draft::pinned`) are never cleared, truncated, trimmed, stripped or summarized; each edit skips
//! them. When the pinned messages alone (with the system prompt and tools) already meet a size
//! trigger or exceed the model's input limit, no edit can bring the request under budget: the
//! report says so instead of dropping a pin.

use crate::draft::Draft;
use crate::options::Trigger;
use crate::plan::Warning;
use crate::trigger::fraction_of;

/// The `pins_over_budget` warning code.
const PINS_OVER_BUDGET: &str = "pins_over_budget";

/// The `pins_over_budget` warning, when the pinned messages alone reach the smallest size
/// threshold of `trigger`, or the model's input limit.
pub(crate) fn pins_over_budget(
  trigger: &[Trigger],
  draft: &Draft<'_, '_>,
  max_input_tokens: Option<u64>,
) -> Option<Warning> {
  if !draft.pinned.iter().any(|&p| p) {
    return None;
  }
  let live: u64 = draft
    .slots
    .iter()
    .map(|s| if s.removed { 0 } else { s.size })
    .sum();
  let fixed = draft.total.saturating_sub(live);
  let pinned: u64 = draft
    .alive()
    .filter(|&i| draft.is_pinned(i))
    .map(|i| draft.slots[i].size)
    .sum();
  let tokens = draft.meter.total_tokens(fixed + pinned);
  #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
  let threshold = trigger
    .iter()
    .flat_map(|t| {
      let by_tokens = t.tokens.map(|n| n.ceil().max(1.0) as u64);
      let by_fraction = t
        .fraction
        .and_then(|f| max_input_tokens.map(|m| fraction_of(m, f)))
        .filter(|&n| n > 0);
      [by_tokens, by_fraction]
    })
    .flatten()
    .chain(max_input_tokens)
    .min()?;
  (tokens >= threshold).then(|| Warning {
    code: PINS_OVER_BUDGET,
    message: format!(
      "the pinned messages alone come to {tokens} tokens (system prompt and tools included), at or over the budget of {threshold}; they are kept, so no edit can bring this request under it"
    ),
    index: None,
  })
}
