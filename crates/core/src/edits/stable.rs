//! Stable (cache-aware) clearing. The results that may be cleared (outside the kept window,
//! excluded tools left out) are cleared oldest first, and only the first `k` of them, where `k`
//! comes from replaying the history model call by model call: every live assistant message marks
//! an earlier call that saw the messages before it, and the current call sees them all. At each
//! call where the trigger holds, `k` stays, or steps (to the kept window, or by `step_results`)
//! when the step rule says so or when the request would be over the ceiling. A call's `k` depends
//! only on the messages before it, so for an append-only history consecutive calls agree and `k`
//! only grows: the prefix up to the boundary stays byte-identical between steps. The current call
//! then checks the ceiling on the exact count and clears further if it must.
//!
//! Stale results (`prefer`) are cleared at the boundary's steps: those already stale at the model
//! call where the boundary last moved, so calls between two steps clear the same ones and keep the
//! prefix identical; the keep rule counts them as it counts every result.

use crate::draft::Draft;
use crate::measure::Meter;
use crate::message::Role;
use crate::options::{ClearToolUses, Stable};
use crate::plan::CLEARED_OLD;
use crate::trigger::{fraction_of, is_triggered, Facts};

use super::clearing::{keep_count, Clearing};
use super::prefer::Stale;

/// What stable clearing is asked to do.
pub(super) struct StableRun<'a> {
  pub stable: &'a Stable,
  /// The hard ceiling in tokens (see [`ceiling`]).
  pub ceiling: Option<u64>,
  pub max_input_tokens: Option<u64>,
  /// The live tool results, oldest first.
  pub candidates: &'a [usize],
  /// Which of them are stale (`prefer`), if it is on.
  pub stale: Option<&'a [Option<Stale>]>,
}

/// The hard ceiling of stable mode: `maxTokens`, else the lowest `tokens`/`fraction` trigger
/// threshold, capped by the model's input limit.
pub(super) fn ceiling(
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

/// Clears stably (see the module notes) and pushes the boundaries cache breakpoints go to, newest
/// first.
pub(super) fn stable_clear(
  job: &StableRun<'_>,
  run: &mut Clearing<'_>,
  draft: &mut Draft<'_, '_>,
  boundaries: &mut Vec<usize>,
) {
  let replay = Replay::new(job, run, draft);
  let mut b = replay.replay(run, draft);
  for &i in &replay.eligible[..b.k] {
    run.clear(draft, i, CLEARED_OLD);
  }
  clear_stale(job, run, draft, b.stepped_at);
  replay.clear_to_ceiling(run, draft, &mut b);
  clear_stale(job, run, draft, b.stepped_at);
  replay.mark(draft, &b, boundaries);
}

/// Clears the results that were stale at the model call ending at `stepped_at` (the last step).
fn clear_stale(
  job: &StableRun<'_>,
  run: &mut Clearing<'_>,
  draft: &mut Draft<'_, '_>,
  stepped_at: Option<usize>,
) {
  let (Some(stale), Some(at)) = (job.stale, stepped_at) else {
    return;
  };
  for (&i, s) in job.candidates.iter().zip(stale) {
    if let Some(s) = s.filter(|s| s.since < at) {
      if !run.excluded(draft, i) {
        run.clear(draft, i, s.reason);
      }
    }
  }
}

/// Where the cleared boundary is: how many of the eligible results are cleared.
struct Boundary {
  /// The current boundary.
  k: usize,
  /// The boundary before the last step.
  prev: usize,
  /// The boundary of the previous model call, as the replay sees it.
  before_this_call: usize,
  /// How many results the current call may clear (outside its kept window).
  outside: usize,
  /// Where the model call that last moved the boundary ends (the messages it saw), if any did.
  stepped_at: Option<usize>,
}

/// The history as the replay reads it: prefix sums over the messages, and over the results that
/// may be cleared.
struct Replay<'a> {
  job: &'a StableRun<'a>,
  meter: &'a Meter<'a>,
  /// Messages in the draft.
  len: usize,
  /// `before[i]`: the size of the live messages before index `i` (in the meter's units).
  before: Vec<u64>,
  /// `alive[i]`: live messages before index `i`.
  alive: Vec<usize>,
  /// `users[i]`: live user messages before index `i`.
  users: Vec<usize>,
  /// The fixed parts (system prompt, tools).
  fixed: u64,
  /// The results that may be cleared (candidates of tools not excluded), oldest first.
  eligible: Vec<usize>,
  /// `eligible_in[c]`: how many of `candidates[..c]` may be cleared.
  eligible_in: Vec<usize>,
  /// `freed[k]`: what clearing the first `k` eligible results frees.
  freed: Vec<u64>,
  /// `window[k]`: the tokens of the first `k` eligible results, each counted on its own.
  window: Vec<u64>,
  /// The step of the count rule (`step_results`, at least 1).
  step: usize,
}

impl<'a> Replay<'a> {
  fn new(job: &'a StableRun<'a>, run: &Clearing<'_>, draft: &Draft<'_, 'a>) -> Self {
    let len = draft.msgs.len();
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
        u += usize::from(draft.msgs[i].role == Role::User);
      }
    }
    before.push(size);
    alive.push(a);
    users.push(u);
    let mut replay = Self {
      job,
      meter: draft.meter,
      len,
      before,
      alive,
      users,
      fixed: draft.total.saturating_sub(size),
      eligible: Vec::new(),
      eligible_in: vec![0],
      freed: vec![0],
      window: vec![0],
      step: usize::try_from(job.stable.step_results.max(1)).unwrap_or(usize::MAX),
    };
    replay.sum_eligible(run, draft);
    replay
  }

  /// The eligible results, with prefix sums of what clearing frees and of their tokens.
  fn sum_eligible(&mut self, run: &Clearing<'_>, draft: &Draft<'_, '_>) {
    for &i in self.job.candidates {
      let clearable = !run.excluded(draft, i);
      let last = self.eligible_in.last().copied().unwrap_or(0);
      self.eligible_in.push(last + usize::from(clearable));
      if !clearable {
        continue;
      }
      self.eligible.push(i);
      let slot = &draft.slots[i];
      let saves = if draft.msgs[i].cleared || slot.cleared.is_some() {
        0
      } else {
        slot.size.saturating_sub(self.meter.cleared_size(
          &draft.msgs[i],
          slot.measure,
          &run.placeholder_for(draft.msgs[i].tool_call_id.as_deref().unwrap_or("")),
        ))
      };
      let freed = self.freed.last().copied().unwrap_or(0);
      self.freed.push(freed + saves);
      let window = self.window.last().copied().unwrap_or(0);
      self.window.push(window + self.meter.tokens_of(slot.size));
    }
  }

  /// The request at the call before `end`, with the first `k` eligible results cleared.
  fn tokens_at(&self, end: usize, k: usize) -> u64 {
    self
      .meter
      .total_tokens(self.fixed + self.before[end] - self.freed[k])
  }

  /// Whether that request is over the ceiling.
  fn over(&self, end: usize, k: usize) -> bool {
    self.job.ceiling.is_some_and(|c| self.tokens_at(end, k) > c)
  }

  /// Replays the model calls (each live assistant message, then the current call) and returns
  /// the boundary the current call starts from.
  fn replay(&self, run: &Clearing<'_>, draft: &Draft<'_, '_>) -> Boundary {
    let mut b = Boundary {
      k: 0,
      prev: 0,
      before_this_call: 0,
      outside: 0,
      stepped_at: None,
    };
    let mut last_call = 0usize;
    let calls = (0..self.len)
      .filter(|&i| !draft.slots[i].removed && draft.msgs[i].role == Role::Assistant)
      .chain([self.len]);
    for end in calls {
      if end == self.len {
        b.before_this_call = b.k;
      }
      let previous_call = std::mem::replace(&mut last_call, end);
      let results = self.job.candidates.partition_point(|&i| i < end);
      let facts = Facts {
        tokens: self.tokens_at(end, 0),
        messages: self.alive[end],
        tool_uses: results,
        turns: self.users[end],
        max_input_tokens: self.job.max_input_tokens,
      };
      if end < self.len && !is_triggered(&run.edit.trigger, &facts) {
        continue;
      }
      let keep = keep_count(
        run.edit.keep,
        &self.job.candidates[..results],
        draft,
        self.job.max_input_tokens,
      );
      let n = self.eligible_in[results.saturating_sub(usize::try_from(keep).unwrap_or(usize::MAX))];
      b.outside = n;
      if n <= b.k {
        continue;
      }
      let next = self.step_to(end, previous_call, b.k, n);
      if next > b.k {
        b.prev = b.k;
        b.k = next;
        b.stepped_at = Some(end);
      }
    }
    b
  }

  /// Where the call before `end` moves the boundary from `k`, when up to `n` results may be
  /// cleared; `previous_call` is the call before it.
  fn step_to(&self, end: usize, previous_call: usize, k: usize, n: usize) -> usize {
    let stable = self.job.stable;
    if let Some(ratio) = stable.step_ratio {
      // What the step frees, against what it rewrites of the request the previous call sent.
      let gain = self.freed[n] - self.freed[k];
      let cached_end = previous_call.max(self.eligible[k]);
      let still = self.eligible.partition_point(|&i| i < cached_end).min(n);
      let evicted = (self.before[cached_end] - self.before[self.eligible[k]])
        - (self.freed[still] - self.freed[k]);
      #[allow(clippy::cast_precision_loss)]
      let worth = gain as f64 >= ratio * evicted as f64 && gain > 0;
      if worth || self.over(end, k) {
        n
      } else {
        k
      }
    } else if let Some(budget) = stable.step_tokens {
      if self.window[n] - self.window[k] > budget || self.over(end, k) {
        n
      } else {
        k
      }
    } else {
      let mut next = k.max(n / self.step * self.step);
      while next < n && self.over(end, next) {
        next = (next + self.step).min(n);
      }
      next
    }
  }

  /// The exact count of this call: clears further while it is over the ceiling.
  fn clear_to_ceiling(&self, run: &mut Clearing<'_>, draft: &mut Draft<'_, '_>, b: &mut Boundary) {
    let stable = self.job.stable;
    while b.k < b.outside && self.job.ceiling.is_some_and(|c| draft.tokens() > c) {
      let next = if stable.step_ratio.is_none() && stable.step_tokens.is_none() {
        (b.k + self.step).min(b.outside)
      } else {
        b.outside
      };
      for &i in &self.eligible[b.k..next] {
        run.clear(draft, i, CLEARED_OLD);
      }
      b.prev = b.k;
      b.k = next;
      b.stepped_at = Some(self.len);
    }
  }

  /// Pushes the boundary, then where the previous request's cache entry is.
  fn mark(&self, draft: &Draft<'_, '_>, b: &Boundary, boundaries: &mut Vec<usize>) {
    if b.k == 0 {
      return;
    }
    boundaries.push(self.eligible[b.k - 1]);
    // This call steps: the request is identical to the previous one up to the first result it
    // newly clears. Mark the last tool result or user message before it (a block that ends its
    // message, unlike an assistant message's text before its tool calls): its lookback reaches the
    // previous requests' entries closest to that point. Otherwise: the previous step's boundary.
    let mark = if b.before_this_call < b.k {
      (0..self.eligible[b.before_this_call])
        .rev()
        .find(|&i| !draft.slots[i].removed && matches!(draft.msgs[i].role, Role::Tool | Role::User))
    } else {
      None
    };
    match mark {
      Some(i) => boundaries.push(i),
      None if b.prev > 0 && b.prev < b.k => boundaries.push(self.eligible[b.prev - 1]),
      None => {}
    }
  }
}
