//! Trigger conditions: when an edit fires. A trigger is a list of conditions (ORed), each a set of
//! keys (ANDed), evaluated on the [`Facts`] of the request as it stands. Clearing and the
//! structural edits read a `fraction` as LangChain's `ClearToolUsesEdit` does; summarization as
//! its `shouldSummarize` does (they differ only for a threshold that rounds down to 0).

use crate::options::Trigger;

/// What the trigger is evaluated on.
pub(crate) struct Facts {
  pub tokens: u64,
  pub messages: usize,
  pub tool_uses: usize,
  pub turns: usize,
  pub max_input_tokens: Option<u64>,
}

/// `floor(max * fraction)` as JavaScript computes it.
#[allow(
  clippy::cast_possible_truncation,
  clippy::cast_sign_loss,
  clippy::cast_precision_loss
)]
pub(crate) fn fraction_of(max: u64, fraction: f64) -> u64 {
  (max as f64 * fraction).floor().max(0.0) as u64
}

/// Whether any trigger condition holds (keys ANDed, list ORed, all inclusive). A condition with a
/// `fraction` is not met when the model's input limit is unknown or its threshold is <= 0.
#[allow(clippy::cast_precision_loss)]
pub(crate) fn is_triggered(trigger: &[Trigger], f: &Facts) -> bool {
  trigger.iter().any(|t| {
    if t.messages.is_some_and(|m| (f.messages as u64) < m) {
      return false;
    }
    if t.tokens.is_some_and(|n| (f.tokens as f64) < n) {
      return false;
    }
    if t.tool_uses.is_some_and(|n| (f.tool_uses as u64) < n) {
      return false;
    }
    if t.turns.is_some_and(|n| (f.turns as u64) < n) {
      return false;
    }
    if let Some(fraction) = t.fraction {
      let Some(max) = f.max_input_tokens else {
        return false;
      };
      let threshold = fraction_of(max, fraction);
      if threshold == 0 || f.tokens < threshold {
        return false;
      }
    }
    true
  })
}

/// LangChain's `shouldSummarize`: keys ANDed, list ORed, inclusive, an empty list never fires.
/// Unlike clearing (`ClearToolUsesEdit` skips a fraction whose threshold is <= 0), a fraction
/// whose threshold `floor(maxInputTokens * fraction)` rounds down to 0 holds: `tokens >= 0`, as in
/// LangChain.js (Python raises such a threshold to 1, which differs only for a request of 0 tokens).
/// The caller has already refused a fraction without a known limit.
pub(crate) fn summary_triggered(trigger: &[Trigger], f: &Facts) -> bool {
  trigger.iter().any(|t| {
    let others = Trigger {
      fraction: None,
      ..*t
    };
    let others_hold =
      others == Trigger::default() || is_triggered(std::slice::from_ref(&others), f);
    let fraction_holds = t.fraction.is_none_or(|fraction| {
      f.max_input_tokens
        .is_some_and(|max| f.tokens >= fraction_of(max, fraction))
    });
    others_hold && fraction_holds
  })
}
