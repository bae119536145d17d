//! The working state of one call: which input messages are still there, their current sizes, and
//! how tool results pair with tool calls. Edits of a pipeline transform it in turn; at the end it
//! becomes the list of [`Op`]s.

use std::collections::BTreeSet;

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::measure::{Measure, Meter};
use crate::message::{utf16_len, Message, Role};
use crate::options::{Pin, TokenCountMethod};
use crate::plan::{Op, Warning, TRUNCATE_STRATEGY};
use crate::trigger::Facts;

/// One message's state during planning.
pub(crate) struct Slot<'m> {
  pub removed: bool,
  pub cleared: Option<(Arc<str>, &'static str)>,
  pub size: u64,
  pub measure: &'m Measure,
  /// Calls whose arguments this call cleared (positions in `tool_calls`).
  pub cleared_args: BTreeSet<usize>,
  /// Calls this call removed (positions in `tool_calls`).
  pub removed_calls: BTreeSet<usize>,
  /// Current size of the tool-calls part.
  pub calls_size: u64,
  /// Whether this call removed the message's reasoning.
  pub removed_thinking: bool,
  /// `(keep, marker)` when this call truncated the result.
  pub truncated: Option<(usize, String)>,
  /// Removed to be replaced by a summary: its other edits are kept in the plan (before its
  /// `remove`), so a summary that is never written keeps the message as the earlier edits left it.
  pub summarized: bool,
}

impl Slot<'_> {
  /// Whether the message's content was replaced (cleared or truncated) by this call.
  pub fn content_replaced(&self) -> bool {
    self.cleared.is_some() || self.truncated.is_some()
  }
}

/// Where a tool result's call is: (assistant message index, position in its `tool_calls`).
pub(crate) type CallRef = (usize, usize);

/// The pairing of tool results with tool calls, built a message at a time: each result with the
/// nearest earlier assistant call of the same id (`None` for an orphan). Several calls sharing an
/// id in one message are matched to results in order, so each result owns exactly one call.
/// Appending messages never changes the pairs of the earlier ones, so a session extends the
/// pairing of its history as it grows (`K` owns the ids there).
#[derive(Debug)]
pub(crate) struct Pairing<K> {
  /// The open calls by id.
  open: FxHashMap<K, Open>,
  /// One entry per message pushed.
  pub pairs: Vec<Option<CallRef>>,
}

/// The open calls with one id, all in assistant message `ai` (ids may repeat within one).
#[derive(Debug)]
struct Open {
  ai: usize,
  first: usize,
  more: Vec<usize>,
  next: usize,
}

impl<K> Default for Pairing<K> {
  fn default() -> Self {
    Self {
      open: FxHashMap::default(),
      pairs: Vec::new(),
    }
  }
}

impl<K: std::borrow::Borrow<str> + std::hash::Hash + Eq> Pairing<K> {
  pub fn with_capacity(messages: usize) -> Self {
    let mut pairing = Self::default();
    pairing.reserve(messages);
    pairing
  }

  /// Room for `messages` more (a call for every other message), so that pairing a new
  /// conversation does not grow the table a doubling at a time.
  pub fn reserve(&mut self, messages: usize) {
    self.open.reserve(messages / 2);
    self.pairs.reserve(messages);
  }

  /// Adds message `i` (the next after those pushed; `pairs` gets `None` for any skipped),
  /// leaving out the calls `skip` names.
  pub fn push<'a>(&mut self, i: usize, m: &'a Message, skip: impl Fn(usize) -> bool)
  where
    K: From<&'a str>,
  {
    self.pairs.resize(i, None);
    let mut pair = None;
    match m.role {
      Role::Assistant => {
        for (k, call) in m.tool_calls.iter().enumerate() {
          if skip(k) {
            continue;
          }
          let fresh = Open {
            ai: i,
            first: k,
            more: Vec::new(),
            next: 0,
          };
          match self.open.get_mut(call.id.as_str()) {
            None => {
              self.open.insert(K::from(call.id.as_str()), fresh);
            }
            Some(e) if e.ai == i => e.more.push(k),
            Some(e) => *e = fresh,
          }
        }
      }
      Role::Tool => {
        if let Some(o) = m
          .tool_call_id
          .as_deref()
          .and_then(|id| self.open.get_mut(id))
        {
          // The n-th result of an id pairs with its n-th call; extra results with the last.
          let at = o.next.min(o.more.len());
          let k = if at == 0 { o.first } else { o.more[at - 1] };
          o.next += 1;
          pair = Some((o.ai, k));
        }
      }
      Role::System | Role::User => {}
    }
    self.pairs.push(pair);
  }
}

pub(crate) struct Draft<'m, 'c> {
  pub msgs: &'m [Message],
  pub slots: Vec<Slot<'m>>,
  /// Sum of the sizes of the messages still there, plus the fixed parts (system prompt, tools).
  pub total: u64,
  pub meter: &'c Meter<'c>,
  /// The pairing of the current state, once computed (see [`Draft::pair`]).
  pairs: std::cell::OnceCell<Rc<[Option<CallRef>]>>,
  /// Pinned messages (see [`pinned_closure`]): no edit changes or removes them.
  pub pinned: Vec<bool>,
}

impl<'m, 'c> Draft<'m, 'c> {
  /// A draft from measures already taken (one per message).
  pub fn with_measures(
    msgs: &'m [Message],
    meter: &'c Meter<'c>,
    fixed: u64,
    measures: &'m [Measure],
  ) -> Self {
    let mut total = fixed;
    let slots = measures
      .iter()
      .map(|measure| {
        total += measure.total;
        Slot {
          removed: false,
          cleared: None,
          size: measure.total,
          calls_size: measure.calls_total,
          measure,
          cleared_args: BTreeSet::new(),
          removed_calls: BTreeSet::new(),
          removed_thinking: false,
          truncated: None,
          summarized: false,
        }
      })
      .collect();
    Self {
      msgs,
      slots,
      total,
      meter,
      pairs: std::cell::OnceCell::new(),
      pinned: Vec::new(),
    }
  }

  /// Pins the messages marked `pinned` and those the rules name (see [`pinned_closure`]).
  pub fn pin(&mut self, rules: &Pin) {
    let msgs = self.msgs;
    let after = if rules.current_run {
      msgs
        .iter()
        .rposition(|m| m.role == Role::User)
        .map(|u| u + 1)
    } else {
      None
    };
    let by_tool = |m: &Message| {
      !rules.tools.is_empty()
        && match m.role {
          Role::Tool => m
            .name
            .as_deref()
            .is_some_and(|n| rules.tools.iter().any(|t| t == n)),
          Role::Assistant => m.tool_calls.iter().any(|c| rules.tools.contains(&c.name)),
          Role::System | Role::User => false,
        }
    };
    let marked: Vec<bool> = msgs
      .iter()
      .enumerate()
      .map(|(i, m)| m.pinned || after.is_some_and(|a| i >= a) || by_tool(m))
      .collect();
    if marked.iter().any(|&p| p) {
      self.pinned = pinned_closure(marked, &self.pair());
    }
  }

  /// Whether message `i` is pinned.
  pub fn is_pinned(&self, i: usize) -> bool {
    self.pinned.get(i).copied().unwrap_or(false)
  }

  /// Request tokens in the current state.
  pub fn tokens(&self) -> u64 {
    self.meter.total_tokens(self.total)
  }

  /// The facts a trigger is evaluated on, in the current state.
  pub fn facts(&self, max_input_tokens: Option<u64>) -> Facts {
    let mut tool_uses = 0;
    let mut turns = 0;
    let mut messages = 0;
    for i in self.alive() {
      messages += 1;
      match self.msgs[i].role {
        Role::Tool => tool_uses += 1,
        Role::User => turns += 1,
        Role::System | Role::Assistant => {}
      }
    }
    Facts {
      tokens: self.tokens(),
      messages,
      tool_uses,
      turns,
      max_input_tokens,
    }
  }

  /// Indices of the messages still there.
  pub fn alive(&self) -> impl Iterator<Item = usize> + '_ {
    (0..self.msgs.len()).filter(|&i| !self.slots[i].removed)
  }

  pub fn remove(&mut self, i: usize) {
    // Pairing changes only when a call or a paired result goes (an orphan never took a call).
    let paired = match self.msgs[i].role {
      Role::Assistant => !self.msgs[i].tool_calls.is_empty(),
      Role::Tool => self.pairs.get().is_none_or(|p| p[i].is_some()),
      Role::System | Role::User => false,
    };
    if paired {
      self.pairs.take();
    }
    let slot = &mut self.slots[i];
    if !slot.removed {
      slot.removed = true;
      // What a chat template writes once per request stays: it is written for the next message.
      self.total -= slot.size - slot.measure.lead.min(slot.size);
    }
  }

  /// The pairing of the live messages and calls (see [`Pairing`]), computed once per state
  /// (linear in the number of messages and calls) unless seeded (see [`Draft::seed_pairs`]).
  pub fn pair(&self) -> Rc<[Option<CallRef>]> {
    Rc::clone(self.pairs.get_or_init(|| self.compute_pairs().into()))
  }

  fn compute_pairs(&self) -> Vec<Option<CallRef>> {
    let mut pairing: Pairing<&str> = Pairing::with_capacity(self.msgs.len());
    for i in self.alive() {
      let m = &self.msgs[i];
      let removed = &self.slots[i].removed_calls;
      pairing.push(i, m, |k| removed.contains(&k));
    }
    pairing.pairs.resize(self.msgs.len(), None);
    pairing.pairs
  }

  /// Takes `pairs` as the pairing of the messages as given (nothing removed yet), as a session
  /// holds it (see [`Pairing`]).
  pub fn seed_pairs(&mut self, pairs: &[Option<CallRef>]) {
    debug_assert_eq!(pairs.len(), self.msgs.len());
    debug_assert!(self
      .slots
      .iter()
      .all(|s| !s.removed && s.removed_calls.is_empty()));
    self.pairs = std::cell::OnceCell::from(Rc::from(pairs));
  }

  /// Live assistant tool calls that no later live tool result answers.
  pub fn dangling_calls(&self, pairs: &[Option<CallRef>]) -> Vec<CallRef> {
    // Answered calls as bits per assistant message (a set only for positions past 63).
    let mut answered = vec![0u64; self.msgs.len()];
    let mut far: FxHashSet<CallRef> = FxHashSet::default();
    for &(ai, k) in pairs.iter().flatten() {
      if k < 64 {
        answered[ai] |= 1 << k;
      } else {
        far.insert((ai, k));
      }
    }
    let is_answered = |(i, k): CallRef| {
      if k < 64 {
        answered[i] & (1 << k) != 0
      } else {
        far.contains(&(i, k))
      }
    };
    let mut dangling = Vec::new();
    for i in self.alive() {
      let m = &self.msgs[i];
      if m.role != Role::Assistant {
        continue;
      }
      let removed = &self.slots[i].removed_calls;
      for k in 0..m.tool_calls.len() {
        if !removed.contains(&k) && !is_answered((i, k)) {
          dangling.push((i, k));
        }
      }
    }
    dangling
  }

  /// Replaces a tool result's content with `placeholder`.
  pub fn clear_result(&mut self, i: usize, placeholder: &Arc<str>, strategy: &'static str) {
    let size = self
      .meter
      .cleared_size(&self.msgs[i], self.slots[i].measure, placeholder);
    let slot = &mut self.slots[i];
    self.total = self.total - slot.size + size;
    slot.size = size;
    slot.cleared = Some((Arc::clone(placeholder), strategy));
  }

  /// Positions of the calls of message `i` that are still there.
  pub fn live_calls(&self, i: usize) -> Vec<usize> {
    (0..self.msgs[i].tool_calls.len())
      .filter(|k| !self.slots[i].removed_calls.contains(k))
      .collect()
  }

  /// Removes the reasoning of message `i`.
  pub fn remove_thinking(&mut self, i: usize) {
    let slot = &mut self.slots[i];
    if !slot.removed_thinking {
      slot.removed_thinking = true;
      let freed = slot.measure.thinking.min(slot.size);
      slot.size -= freed;
      self.total -= freed;
    }
  }

  /// Removes calls `ks` of assistant message `i`, keeping the message.
  pub fn remove_calls(&mut self, i: usize, ks: &[usize]) {
    self.pairs.take();
    let approx = self.meter.method == TokenCountMethod::Approx;
    let slot = &mut self.slots[i];
    for &k in ks {
      if !slot.removed_calls.insert(k) {
        continue;
      }
      let mut sub = slot.measure.calls[k];
      if slot.cleared_args.contains(&k) {
        sub = sub.saturating_sub(slot.measure.args[k].saturating_sub(slot.measure.empty_args));
      }
      let sub = sub.min(slot.calls_size).min(slot.size);
      slot.calls_size -= sub;
      slot.size -= sub;
      self.total -= sub;
    }
    let all = slot.removed_calls.len() == self.msgs[i].tool_calls.len();
    // A chat template may render a message without calls differently (no separator before them).
    if let Some(plain) = slot.measure.plain.filter(|_| all) {
      let thinking = if slot.removed_thinking {
        slot.measure.thinking
      } else {
        0
      };
      let size = plain.saturating_sub(thinking);
      self.total = self.total - slot.size + size;
      slot.size = size;
      slot.calls_size = 0;
    }
    // LangChain's approximation counts the tool-calls JSON only while there are calls.
    if approx && all {
      let rest = slot.calls_size.min(slot.size);
      slot.calls_size = 0;
      slot.size -= rest;
      self.total -= rest;
    }
  }

  /// Truncates tool result `i` to `keep` UTF-16 units (`head`, when the text is known) + `marker`.
  pub fn truncate(&mut self, i: usize, keep: usize, head: Option<&str>, marker: String) {
    // Counted as the one string the message will hold: BPE merges across the head/marker boundary
    // (e.g. a head ending in a newline before the marker's newline), so counting the two parts
    // apart can differ from a recount of the output. Without the text (lengths only), the text
    // counts as its length (approx) and as nothing (model), like any length-only content.
    let text = head.map_or_else(String::new, |h| format!("{h}{marker}"));
    let size = self.meter.truncated_size(
      &self.msgs[i],
      self.slots[i].measure,
      (&text, keep as u64 + utf16_len(&marker)),
      "",
    );
    let slot = &mut self.slots[i];
    self.total = self.total - slot.size + size;
    slot.size = size;
    slot.truncated = Some((keep, marker));
  }

  /// Clears the arguments of call `k` of assistant message `i`.
  pub fn clear_args(&mut self, i: usize, k: usize) {
    let slot = &mut self.slots[i];
    if slot.cleared_args.insert(k) {
      let freed = args_freed(slot.measure, k, slot.size, slot.calls_size);
      slot.size -= freed;
      slot.calls_size -= freed;
      self.total -= freed;
    }
  }

  /// The operations that turn the input into the current state, sorted by index.
  pub fn into_ops(self) -> Vec<Op> {
    let mut ops = Vec::with_capacity(
      self
        .slots
        .iter()
        .filter(|s| s.removed || s.content_replaced())
        .count(),
    );
    for (i, slot) in self.slots.into_iter().enumerate() {
      if slot.removed && !slot.summarized {
        ops.push(Op::Remove { index: i });
        continue;
      }
      if let Some((placeholder, strategy)) = slot.cleared {
        ops.push(Op::ClearToolResult {
          index: i,
          placeholder,
          strategy,
        });
      } else if let Some((keep, marker)) = slot.truncated {
        ops.push(Op::TruncateToolResult {
          index: i,
          keep,
          marker,
          strategy: TRUNCATE_STRATEGY,
        });
      }
      if slot.removed_thinking {
        ops.push(Op::RemoveThinking { index: i });
      }
      let m = &self.msgs[i];
      let cleared: Vec<usize> = slot
        .cleared_args
        .difference(&slot.removed_calls)
        .copied()
        .collect();
      if !cleared.is_empty() {
        ops.push(clear_inputs_op(m, i, cleared));
      }
      if !slot.removed_calls.is_empty() {
        let call_indices: Vec<usize> = slot.removed_calls.iter().copied().collect();
        let tool_call_ids = call_indices
          .iter()
          .map(|&k| m.tool_calls[k].id.clone())
          .collect();
        ops.push(Op::RemoveToolCalls {
          index: i,
          call_indices,
          tool_call_ids,
        });
      }
      if slot.removed {
        ops.push(Op::Remove { index: i });
      }
    }
    ops
  }
}

/// What clearing the arguments of call `k` frees from an assistant message measured `measure`,
/// whose size and calls' part of it are now `size` and `calls_size` (never more than either).
pub(crate) fn args_freed(measure: &Measure, k: usize, size: u64, calls_size: u64) -> u64 {
  measure.args[k]
    .saturating_sub(measure.empty_args)
    .min(size)
    .min(calls_size)
}

/// The operation that clears the arguments of the calls at `call_indices` (ascending) of assistant
/// message `m` (at `index`): their ids, and the message's complete new `cleared_tool_inputs` list.
pub(crate) fn clear_inputs_op(m: &Message, index: usize, call_indices: Vec<usize>) -> Op {
  let tool_call_ids: Vec<String> = call_indices
    .iter()
    .map(|&k| m.tool_calls[k].id.clone())
    .collect();
  let all: BTreeSet<String> = m
    .cleared_tool_inputs
    .iter()
    .chain(tool_call_ids.iter())
    .cloned()
    .collect();
  Op::ClearToolInputs {
    index,
    call_indices,
    tool_call_ids,
    cleared_tool_inputs: all.into_iter().collect(),
  }
}

/// The pinned messages: those marked (by `pinned` or a rule), with what keeps them valid: a pinned tool result
/// pins the assistant message that called it, and a pinned assistant message pins every result of
/// its calls (so no edit can separate a pinned message from its pair).
fn pinned_closure(mut pinned: Vec<bool>, pairs: &[Option<CallRef>]) -> Vec<bool> {
  for (i, pair) in pairs.iter().enumerate() {
    if let Some((ai, _)) = pair {
      if pinned[i] {
        pinned[*ai] = true;
      }
    }
  }
  for (i, pair) in pairs.iter().enumerate() {
    if let Some((ai, _)) = pair {
      if pinned[*ai] {
        pinned[i] = true;
      }
    }
  }
  pinned
}

/// Warnings for tool calls that have no result (APIs reject such requests).
pub(crate) fn dangling_warnings(draft: &Draft<'_, '_>) -> Vec<Warning> {
  let pairs = draft.pair();
  draft
    .dangling_calls(&pairs)
    .into_iter()
    .map(|call| dangling_warning(draft.msgs, call))
    .collect()
}

/// The warning of call `k` of message `i`, which no tool result answers.
pub(crate) fn dangling_warning(msgs: &[Message], (i, k): CallRef) -> Warning {
  Warning {
    code: "dangling_tool_call",
    message: format!(
      "tool call `{}` has no tool result after it",
      msgs[i].tool_calls[k].id
    ),
    index: Some(i),
  }
}
