//! Request totals corrected by what the provider said: a usage anchor (the provider's size of the
//! request through one message) and a correction ratio learned for the conversation (true / counted).
//!
//! A total is `offset + ceil(scale × counted)`, never below 0. With an anchor at message `i` reported
//! as `T` tokens, `offset = T − ceil(scale × counted(fixed parts + messages ..= i))`, so the total is
//! `T` plus the scaled count of what follows `i`, and of what edits change anywhere: an edit that frees
//! `n` counted tokens lowers the total by about `scale × n`. Per-message sizes are never adjusted, so
//! `keep` budgets and the report's per-edit figures stay counted.

use crate::context::{Context, MAX_CORRECTION};

/// The correction of one call's request totals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Adjust {
  pub scale: f64,
  pub offset: i64,
}

impl Default for Adjust {
  fn default() -> Self {
    Self {
      scale: 1.0,
      offset: 0,
    }
  }
}

impl Adjust {
  /// The adjustment the context asks for, given the number of messages, the counted size of the
  /// request through message `i` (`through(i)`: fixed parts included) and the method's uncorrected
  /// total (`base`). An invalid correction (not finite, not in (0, 100]) is none; an anchor past the
  /// messages is ignored.
  pub fn for_call(
    context: &Context,
    messages: usize,
    through: impl Fn(usize) -> u64,
    base: impl Fn(u64) -> u64,
  ) -> Self {
    let scale = context
      .correction
      .filter(|c| c.is_finite() && *c > 0.0 && *c <= MAX_CORRECTION)
      .unwrap_or(1.0);
    let mut adjust = Self { scale, offset: 0 };
    if let Some((index, tokens)) = context.anchor.filter(|(i, _)| *i < messages) {
      let counted = adjust.apply(base(through(index)));
      adjust.offset = i64::try_from(tokens)
        .unwrap_or(i64::MAX)
        .saturating_sub(i64::try_from(counted).unwrap_or(i64::MAX));
    }
    adjust
  }

  /// `tokens` (an uncorrected total) corrected.
  #[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss
  )]
  pub fn apply(self, tokens: u64) -> u64 {
    let scaled = if (self.scale - 1.0).abs() < f64::EPSILON {
      tokens
    } else {
      (tokens as f64 * self.scale).ceil().max(0.0) as u64
    };
    let total = i64::try_from(scaled)
      .unwrap_or(i64::MAX)
      .saturating_add(self.offset);
    u64::try_from(total).unwrap_or(0)
  }
}
