//! Conversations seen before. An agent calls the model again and again with the same history plus
//! a new turn; a session keeps that history converted and measured, so the next call sends and
//! counts only what is new. Bounded in sessions and in bytes of text held; least recently used
//! sessions go first.
//!
//! When no edit reads text after counting (model or estimate counting with `clear_tool_uses`
//! without `prefer`, `clear_thinking` and the structural edits), a session keeps the measured
//! messages' lengths instead of their text ([`Session::drop_text`]): a 2,000-message conversation
//! then holds a few hundred KiB, not its 4 MB of text, and 64 of them fit the byte bound instead of
//! evicting one another. Counting them again (another model or encoding) would need the text: that
//! call misses and the caller sends the conversation again.
//!
//! The sessions of every editor are bounded together too, with their token caches
//! (`crate::registry`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use crate::draft::Pairing;
use crate::grown::Grown;
use crate::measure::{Measure, Meter};
use crate::message::{utf16_len, Message, Role};
use crate::options::TokenCountMethod;

/// At most this many sessions are held (one per conversation in flight, typically).
pub const MAX_SESSIONS: usize = 64;
/// At most this many bytes are held across one editor's sessions (text and structures).
pub const MAX_SESSION_BYTES: usize = 256 << 20;
/// Bytes charged per message besides its strings: the message and its measure, and about 64 for
/// its running size, its pairing and the room a session keeps to grow. (It was 160, a third of what
/// a message holds: a dropped editor's sessions held 3.7 times what was counted.)
const MESSAGE_OVERHEAD_BYTES: usize =
  std::mem::size_of::<Message>() + std::mem::size_of::<Measure>() + 64;
/// Bytes charged per tool call besides its strings.
const CALL_OVERHEAD_BYTES: usize = std::mem::size_of::<crate::message::ToolCall>();

/// The capacity a session gives a list of `len` messages: room to grow by an eighth (and 16) before
/// it moves. A caller that builds a new conversation's list with this capacity hands it to the
/// session without a copy ([`Session::extend`]).
#[must_use]
pub const fn session_capacity(len: usize) -> usize {
  len + len / 8 + 16
}

/// One conversation: its messages and, for a prefix of them, their measures.
#[derive(Debug, Default)]
pub(crate) struct Session {
  pub messages: Vec<Message>,
  /// Measures of `messages[..measures.len()]`, taken with `measured_with`.
  pub measures: Vec<Measure>,
  measured_with: Option<(TokenCountMethod, &'static str, u8)>,
  /// Measured by a chat template that frames a last message of this role apart (see
  /// `Meter::frames_last`): such a message measured as a followed one is measured again when a
  /// cut makes it the last (`last_reframed`).
  framed_last: Option<Role>,
  /// The last measure was taken as a followed message's (a cut made its message the last).
  last_followed: bool,
  /// Running sizes: `bytes[i]` is the footprint of `messages[..=i]`.
  bytes: Vec<usize>,
  /// `messages[..text_dropped]` hold lengths instead of their text (see [`Session::drop_text`]).
  text_dropped: usize,
  /// The pairing of tool results with calls of a prefix of `messages` (see [`Session::pair`]).
  pub pairing: Pairing<Box<str>>,
  /// Running figures for planning the session as it grows (see [`Grown`]), when its pipeline is
  /// one they cover; dropped when the session is cut below what they read or measured anew.
  pub grown: Option<Grown>,
  used: u64,
}

impl Session {
  pub(crate) fn footprint(&self) -> usize {
    self.text_footprint() + self.grown.as_ref().map_or(0, Grown::bytes)
  }

  /// The footprint of the messages and their measures.
  fn text_footprint(&self) -> usize {
    self.bytes.last().copied().unwrap_or(0)
  }

  fn truncate(&mut self, len: usize) {
    if len < self.pairing.pairs.len() {
      // Its open calls are those after all of the messages: paired again from the start.
      self.pairing = Pairing::default();
    }
    self.messages.truncate(len);
    if len < self.measures.len() {
      // Its new last message was measured as a followed one (see `framed_last`).
      self.last_followed = len > 0;
    }
    self.measures.truncate(len);
    self.bytes.truncate(len);
    self.text_dropped = self.text_dropped.min(len);
    if self.grown.as_ref().is_some_and(|g| len < g.len()) {
      self.grown = None;
    }
  }

  /// Whether its last message, measured as a followed one (a cut left it last), must be measured
  /// again as the last: a chat template frames a last message of its role apart.
  fn last_reframed(&self) -> bool {
    self.last_followed
      && self.measures.len() == self.messages.len()
      && self.framed_last.is_some()
      && self.framed_last == self.messages.last().map(|m| m.role)
  }

  /// Appends messages (their measures are taken by the next [`measure`](Self::measure)).
  pub fn extend(&mut self, tail: Vec<Message>) {
    let start = self.messages.len();
    let added = tail.len();
    // Room to grow: a conversation grows a turn at a time, so a session filled to exactly its
    // length would move every list to a new, never touched allocation on its first growth
    // (benchmark/cold.mjs, many conversations served in turn: +4 ms of page faults at 2,000
    // messages). Untouched capacity costs no memory until it is used.
    let room = |len: usize| session_capacity(len + added) - len;
    if start == 0 && tail.capacity() >= session_capacity(added) {
      // A new conversation whose list already has room (`session_capacity`) is kept as it came,
      // not copied into a new one.
      self.messages = tail;
    } else {
      if self.messages.capacity() < start + added {
        self.messages.reserve_exact(room(start));
      }
      self.messages.extend(tail);
    }
    if self.measures.capacity() < start + added {
      self.measures.reserve_exact(room(self.measures.len()));
    }
    if self.bytes.capacity() < start + added {
      self.bytes.reserve_exact(room(self.bytes.len()));
    }
    let mut total = self.text_footprint();
    for m in &self.messages[start..] {
      total += message_bytes(m);
      self.bytes.push(total);
    }
  }

  /// Measures the messages not measured yet; all of them when the method or encoding changed (or,
  /// for a chat template, whether a system prompt or tools are sent beside the messages). The
  /// previous last message takes its size as a followed message when its template framed it as
  /// the last one. Returns `false` (nothing measured) when that needs text this session no longer
  /// holds.
  #[must_use]
  pub fn measure(&mut self, meter: &Meter<'_>) -> bool {
    let with = (meter.method, meter.tokenizer, meter.request_key());
    if self.measured_with != Some(with) {
      if self.text_dropped > 0 {
        return false;
      }
      self.measures.clear();
      self.measured_with = Some(with);
      self.framed_last = meter.framed_last();
      // Its decisions hold measures taken another way.
      self.grown = None;
    }
    if self.last_reframed() {
      if self.messages.len() <= self.text_dropped {
        // Its text is gone: a miss, the caller sends the conversation again.
        return false;
      }
      self.measures.pop();
      self.grown = None;
    }
    self.last_followed = false;
    let done = self.measures.len();
    if done < self.messages.len() {
      // The last message measured is followed now: its framing as a followed message.
      if let Some(last) = self.measures.last_mut() {
        if let Some(total) = last.unlast.take() {
          last.total = total;
        }
      }
      let new = meter.measure_from(&self.messages, done);
      self.measures.extend(new);
    }
    true
  }

  /// Whether it holds `len` messages, every one measured by `meter`'s method and encoding (as
  /// [`measure`](Self::measure) would measure them): what a count through it needs.
  pub fn measured_whole(&self, len: usize, meter: &Meter<'_>) -> bool {
    self.messages.len() == len
      && self.measures.len() == len
      && !self.last_reframed()
      && self.measured_with == Some((meter.method, meter.tokenizer, meter.request_key()))
  }

  /// The size of each of its messages followed by `tail` (measured now, `meter` the one its
  /// messages were measured with: see [`measured_whole`](Self::measured_whole)), leaving it as it
  /// was: a count does not move a conversation on. Its last message is sized as a followed one
  /// when `tail` is not empty (a chat template frames the last message apart).
  pub fn sizes_with(&mut self, tail: Vec<Message>, meter: &Meter<'_>) -> Vec<u64> {
    let len = self.messages.len();
    if tail.is_empty() {
      return self.measures.iter().map(|m| m.total).collect();
    }
    let last = self.measures.last().cloned();
    let (grown, last_followed) = (self.grown.take(), self.last_followed);
    self.extend(tail);
    let measured = self.measure(meter);
    debug_assert!(measured, "measured with another meter");
    let sizes = self.measures.iter().map(|m| m.total).collect();
    // Back as it was: its messages, their measures (the last one as it was), its figures.
    self.truncate(len);
    if let (Some(last), Some(slot)) = (last, self.measures.last_mut()) {
      *slot = last;
    }
    self.grown = grown;
    self.last_followed = last_followed;
    sizes
  }

  /// Extends the pairing to every message (see [`Pairing`]): a next call pairs only its new ones.
  pub fn pair(&mut self) {
    self
      .pairing
      .reserve(self.messages.len().saturating_sub(self.pairing.pairs.len()));
    for i in self.pairing.pairs.len()..self.messages.len() {
      self.pairing.push(i, &self.messages[i], |_| false);
    }
  }

  /// Replaces the text of the measured messages by its length (UTF-16 code units, what every
  /// length read gives either way), for editors whose edits read no text after counting.
  pub fn drop_text(&mut self) {
    let end = self.measures.len();
    let from = self.text_dropped.min(end);
    let mut total = if from == 0 { 0 } else { self.bytes[from - 1] };
    for k in from..self.messages.len() {
      if k < end {
        lengths_only(&mut self.messages[k]);
      }
      total += message_bytes(&self.messages[k]);
      self.bytes[k] = total;
    }
    self.text_dropped = end;
  }
}

/// `m` with each text replaced by its length, as a caller counting approximately would send it.
fn lengths_only(m: &mut Message) {
  if let Some(c) = m.content.take() {
    m.content_length = Some(utf16_len(&c));
  }
  if let Some(c) = m.other.take() {
    m.other_length = Some(utf16_len(&c));
  }
  if let Some(c) = m.thinking.take() {
    m.thinking_length = Some(utf16_len(&c));
  }
  for call in &mut m.tool_calls {
    if let Some(a) = call.args.take() {
      call.args_length = Some(call.args_length.unwrap_or_else(|| utf16_len(&a)));
    }
  }
}

fn message_bytes(m: &Message) -> usize {
  let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
  let calls: usize = m
    .tool_calls
    .iter()
    .map(|c| c.id.len() + c.name.len() + text(&c.args) + CALL_OVERHEAD_BYTES)
    .sum();
  MESSAGE_OVERHEAD_BYTES
    + text(&m.content)
    + text(&m.other)
    + text(&m.thinking)
    + text(&m.name)
    + text(&m.tool_call_id)
    + calls
}

/// What the session stores (and token caches) of a process hold together, and the clock that
/// orders their uses across editors: the count `crate::registry` bounds.
#[derive(Debug, Default)]
pub(crate) struct Tally {
  held: AtomicUsize,
  tick: AtomicU64,
}

impl Tally {
  pub const fn new() -> Self {
    Self {
      held: AtomicUsize::new(0),
      tick: AtomicU64::new(0),
    }
  }

  /// Bytes held.
  pub fn held(&self) -> usize {
    self.held.load(Ordering::Relaxed)
  }

  /// Counts `bytes` more held.
  pub fn hold(&self, bytes: usize) {
    self.held.fetch_add(bytes, Ordering::Relaxed);
  }

  /// Counts `bytes` fewer held. Never below zero: a count that wrapped round would evict
  /// everything on every call.
  pub fn release(&self, bytes: usize) {
    let _ = self
      .held
      .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
        Some(held.saturating_sub(bytes))
      });
  }

  /// The next tick of the clock.
  pub fn now(&self) -> u64 {
    self.tick.fetch_add(1, Ordering::Relaxed) + 1
  }
}

/// The sessions of one editor.
#[derive(Debug)]
pub(crate) struct SessionStore {
  map: HashMap<u64, Session>,
  bytes: usize,
  max_sessions: usize,
  max_bytes: usize,
  tally: &'static Tally,
}

impl Drop for SessionStore {
  fn drop(&mut self) {
    self.tally.release(self.bytes);
  }
}

impl SessionStore {
  /// An empty store with these bounds, counted in `tally`.
  pub(crate) fn new(max_sessions: usize, max_bytes: usize, tally: &'static Tally) -> Self {
    Self {
      map: HashMap::new(),
      bytes: 0,
      max_sessions,
      max_bytes,
      tally,
    }
  }

  pub fn len(&self) -> usize {
    self.map.len()
  }

  pub fn clear(&mut self) {
    self.map.clear();
    self.tally.release(self.bytes);
    self.bytes = 0;
  }

  pub fn remove(&mut self, id: u64) -> Option<Session> {
    let s = self.map.remove(&id)?;
    self.bytes -= s.footprint();
    self.tally.release(s.footprint());
    Some(s)
  }

  /// The least recently used session: its id and when it was used.
  pub(crate) fn oldest(&self) -> Option<(u64, u64)> {
    self
      .map
      .iter()
      .map(|(k, s)| (*k, s.used))
      .min_by_key(|(_, used)| *used)
  }

  /// Takes session `id` out, cut to its first `reuse` messages; `reuse == 0` starts afresh.
  /// `None` when it is unknown or shorter than `reuse`.
  pub fn take(&mut self, id: u64, reuse: usize) -> Option<Session> {
    let stored = self.remove(id);
    if reuse == 0 {
      return Some(Session::default());
    }
    let mut s = stored?;
    if s.messages.len() < reuse {
      return None;
    }
    s.truncate(reuse);
    Some(s)
  }

  /// Takes session `id` out as it is when it holds `len` messages measured by `meter` (see
  /// [`Session::measured_whole`]); otherwise leaves it and gives `None`.
  pub fn take_measured(&mut self, id: u64, len: usize, meter: &Meter<'_>) -> Option<Session> {
    if !self.map.get(&id)?.measured_whole(len, meter) {
      return None;
    }
    self.remove(id)
  }

  /// Puts a session (back), evicting the least recently used ones beyond the bounds. A session
  /// larger than the byte bound on its own is not kept.
  pub fn put(&mut self, id: u64, mut session: Session) {
    self.remove(id);
    let size = session.footprint();
    if size > self.max_bytes || self.max_sessions == 0 {
      return;
    }
    while !self.map.is_empty()
      && (self.map.len() >= self.max_sessions || self.bytes + size > self.max_bytes)
    {
      if let Some((k, _)) = self.oldest() {
        self.remove(k);
      }
    }
    session.used = self.tally.now();
    self.bytes += size;
    self.tally.hold(size);
    self.map.insert(id, session);
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn session(n: usize, text: &str) -> Session {
    let mut s = Session::default();
    s.extend((0..n).map(|_| Message::user(text)).collect());
    s
  }

  /// A store with these bounds, counted in a tally of the test's own.
  fn new_store(max_sessions: usize, max_bytes: usize) -> SessionStore {
    SessionStore::new(max_sessions, max_bytes, Box::leak(Box::default()))
  }

  #[test]
  fn take_needs_enough_messages() {
    let mut store = new_store(MAX_SESSIONS, MAX_SESSION_BYTES);
    store.put(1, session(3, "hi"));
    assert!(store.take(1, 4).is_none(), "shorter than reuse: a miss");
    assert!(store.take(1, 1).is_none(), "the miss dropped it");
    store.put(1, session(3, "hi"));
    assert_eq!(store.take(1, 2).map(|s| s.messages.len()), Some(2));
    assert!(store.take(7, 1).is_none(), "unknown id");
    assert_eq!(store.take(7, 0).map(|s| s.messages.len()), Some(0));
  }

  #[test]
  fn evicts_least_recently_used_by_count_and_bytes() {
    let mut store = new_store(2, usize::MAX);
    store.put(1, session(1, "a"));
    store.put(2, session(1, "b"));
    let s = store.take(1, 1).unwrap();
    store.put(1, s); // 1 is now the most recent
    store.put(3, session(1, "c"));
    assert_eq!(store.len(), 2);
    assert!(store.take(2, 1).is_none(), "2 was the least recently used");

    let one = message_bytes(&Message::user("x".repeat(1000)));
    let mut store = new_store(10, 2 * one + 10);
    store.put(1, session(1, &"x".repeat(1000)));
    store.put(2, session(1, &"x".repeat(1000)));
    store.put(3, session(1, &"x".repeat(1000)));
    assert_eq!(store.len(), 2, "the byte bound holds two");
    assert!(store.bytes <= 2 * one + 10);
    store.put(4, session(3, &"x".repeat(1000)));
    assert!(
      store.take(4, 1).is_none(),
      "larger than the bound alone: not kept"
    );
  }
}
