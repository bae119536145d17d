//! Caches of token counts. Counting a long string exactly costs far more than hashing it, and an
//! agent sends the same history again and again: long strings go through the editor's bounded
//! [`TokenCache`], keyed by a 128-bit hash of the text seeded per counter. Short strings (names,
//! placeholders, markers) repeat within every call: a per-thread memo keeps their counts.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_128_with_seed;

use crate::tokenizer::Counter;

/// Strings shorter than this are tokenized directly; longer ones go through the cache.
pub(super) const CACHE_MIN_BYTES: usize = 64;
/// Strings up to this size (names, placeholders, markers) are counted through a per-thread memo:
/// every call measures them again for each message that carries them.
pub(super) const SHORT_BYTES: usize = 48;
/// Entries per thread before the memo starts afresh.
const SHORT_MEMO_ENTRIES: usize = 4096;

/// A bounded map from string hashes to token counts.
///
/// Two generations: lookups hit either; inserts go to the young one; when the young one reaches half
/// the bound, the old one is dropped and the young one becomes old. Memory stays below the bound and
/// recently used entries survive, at O(1) per operation.
#[derive(Debug, Default)]
pub struct TokenCache {
  young: HashMap<u128, u32>,
  old: HashMap<u128, u32>,
  capacity: usize,
}

impl TokenCache {
  /// A cache holding at most `capacity` entries (0 disables it).
  #[must_use]
  pub fn new(capacity: usize) -> Self {
    Self {
      young: HashMap::new(),
      old: HashMap::new(),
      capacity,
    }
  }

  /// Number of entries held.
  #[must_use]
  pub fn len(&self) -> usize {
    self.young.len() + self.old.len()
  }

  /// Whether the cache is empty.
  #[must_use]
  pub fn is_empty(&self) -> bool {
    self.len() == 0
  }

  /// The bound in entries.
  #[must_use]
  pub fn capacity(&self) -> usize {
    self.capacity
  }

  /// Drops every entry, and the memory they took (a cleared editor may never be used again, see
  /// `session::Registry`).
  pub fn clear(&mut self) {
    self.young = HashMap::new();
    self.old = HashMap::new();
  }

  pub(super) fn get(&mut self, key: u128) -> Option<u32> {
    if let Some(v) = self.young.get(&key) {
      return Some(*v);
    }
    let v = self.old.get(&key).copied()?;
    // Promote, so an entry in use survives the next rotation.
    self.insert(key, v);
    Some(v)
  }

  pub(crate) fn insert(&mut self, key: u128, value: u32) {
    if self.capacity == 0 {
      return;
    }
    let half = self.capacity.div_ceil(2);
    if self.young.len() >= half {
      self.old = std::mem::take(&mut self.young);
    }
    self.young.insert(key, value);
  }
}

thread_local! {
  /// Counts of short strings, per counter (by cache seed).
  static SHORT_COUNTS: RefCell<FxHashMap<u64, FxHashMap<Box<str>, u64>>> = RefCell::default();
}

/// The count of a short string (at most [`SHORT_BYTES`]), through the per-thread memo.
pub(super) fn count_short(seed: u64, counter: &dyn Counter, text: &str) -> u64 {
  SHORT_COUNTS.with(|memo| {
    let mut memo = memo.borrow_mut();
    let memo = memo.entry(seed).or_default();
    if let Some(n) = memo.get(text) {
      return *n;
    }
    let n = counter.count(text);
    if memo.len() >= SHORT_MEMO_ENTRIES {
      memo.clear();
    }
    memo.insert(Box::from(text), n);
    n
  })
}

/// The counts of `texts` by `counter`: strings of [`CACHE_MIN_BYTES`] or more through `cache`
/// (when there is one, keyed with `seed`), the rest and the misses in one batch.
pub(super) fn cached_counts(
  cache: Option<&Mutex<TokenCache>>,
  seed: u64,
  counter: &dyn Counter,
  texts: &[&str],
) -> Vec<u64> {
  let mut out = vec![0u64; texts.len()];
  let mut misses: Vec<(usize, u128)> = Vec::new();
  {
    let mut guard = cache.map(|c| c.lock().unwrap_or_else(PoisonError::into_inner));
    for (i, t) in texts.iter().enumerate() {
      if t.len() < CACHE_MIN_BYTES || guard.is_none() {
        continue;
      }
      let key = xxh3_128_with_seed(t.as_bytes(), seed);
      match guard.as_mut().and_then(|g| g.get(key)) {
        Some(n) => out[i] = u64::from(n),
        None => misses.push((i, key)),
      }
    }
  }
  let cached = cache.is_some();
  let todo: Vec<usize> = texts
    .iter()
    .enumerate()
    .filter(|(_, t)| t.len() < CACHE_MIN_BYTES || !cached)
    .map(|(i, _)| i)
    .chain(misses.iter().map(|(i, _)| *i))
    .collect();
  let todo_texts: Vec<&str> = todo.iter().map(|&i| texts[i]).collect();
  for (i, n) in todo.into_iter().zip(counter.count_many(&todo_texts)) {
    out[i] = n;
  }
  if let Some(cache) = cache {
    if !misses.is_empty() {
      let mut g = cache.lock().unwrap_or_else(PoisonError::into_inner);
      for (i, key) in misses {
        g.insert(key, u32::try_from(out[i]).unwrap_or(u32::MAX));
      }
    }
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn cache_rotation_keeps_recent_entries() {
    let mut cache = TokenCache::new(4);
    for k in 0..3u128 {
      cache.insert(k, 1);
    }
    // 0 and 1 rotated into the old generation, 2 young; a lookup of 0 promotes it.
    assert_eq!(cache.get(0), Some(1));
    cache.insert(10, 1);
    cache.insert(11, 1);
    assert!(cache.len() <= 4);
    assert_eq!(cache.get(11), Some(1));
  }
}
