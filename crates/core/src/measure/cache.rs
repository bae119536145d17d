//! Caches of token counts. Counting a long string exactly costs far more than hashing it, and an
//! agent sends the same history again and again: long strings go through the editor's bounded
//! [`TokenCache`], keyed by a 128-bit hash of the text seeded per counter. Short strings (names,
//! placeholders, markers) repeat within every call: a per-thread memo keeps their counts.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_128_with_seed;

use crate::tokenizer::{Counter, KeptPieces};

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
///
/// It also keeps what counting the editor's small batches learnt of the pieces its texts split into
/// ([`KeptPieces`]): a next call counts a few new messages, whose pieces mostly came before.
#[derive(Debug, Default)]
pub struct TokenCache {
  young: HashMap<u128, u32>,
  old: HashMap<u128, u32>,
  capacity: usize,
  pieces: KeptPieces,
  /// How many times the cache was cleared: kept pieces taken out before a clear are not put back
  /// after it (the registry counted the cleared cache as empty).
  clears: u64,
}

impl TokenCache {
  /// A cache holding at most `capacity` entries (0 disables it).
  #[must_use]
  pub fn new(capacity: usize) -> Self {
    Self {
      young: HashMap::new(),
      old: HashMap::new(),
      capacity,
      pieces: KeptPieces::default(),
      clears: 0,
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

  /// Bytes held: `entry_bytes` per entry, and the kept pieces' own.
  #[must_use]
  pub fn bytes(&self, entry_bytes: usize) -> usize {
    self.len() * entry_bytes + self.pieces.bytes()
  }

  /// Drops every entry and the kept pieces, and the memory they took (a cleared editor may never
  /// be used again, see `session::Registry`).
  pub fn clear(&mut self) {
    self.young = HashMap::new();
    self.old = HashMap::new();
    self.pieces = KeptPieces::default();
    self.clears += 1;
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
  // The kept pieces are taken out while counting (the lock is not held then); a call counting at
  // the same time on another thread starts without them, and a clear meanwhile drops them.
  let mut kept: Option<(KeptPieces, u64)> = None;
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
    if let Some(g) = guard.as_mut().filter(|g| g.capacity > 0) {
      kept = Some((std::mem::take(&mut g.pieces), g.clears));
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
  let counts = match kept.as_mut() {
    Some((kept, _)) if !todo_texts.is_empty() => counter.count_many_kept(&todo_texts, kept),
    _ => counter.count_many(&todo_texts),
  };
  for (i, n) in todo.into_iter().zip(counts) {
    out[i] = n;
  }
  if let Some(cache) = cache {
    if !misses.is_empty() || kept.is_some() {
      let mut g = cache.lock().unwrap_or_else(PoisonError::into_inner);
      for (i, key) in misses {
        g.insert(key, u32::try_from(out[i]).unwrap_or(u32::MAX));
      }
      if let Some((kept, _)) = kept.filter(|&(_, clears)| clears == g.clears) {
        g.pieces = kept;
      }
    }
  }
  out
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::tokenizer::Encoding;

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

  /// Counts with o200k's kept pieces, clearing `cache` (as `clearCache` or the registry's eviction
  /// on another thread) while it counts.
  struct ClearingCounter<'c>(&'c Mutex<TokenCache>);

  impl Counter for ClearingCounter<'_> {
    fn count(&self, text: &str) -> u64 {
      Encoding::O200kBase.count(text)
    }

    fn count_many_kept(&self, texts: &[&str], kept: &mut KeptPieces) -> Vec<u64> {
      let counts = Counter::count_many_kept(&Encoding::O200kBase, texts, kept);
      self.0.lock().unwrap().clear();
      counts
    }
  }

  #[test]
  fn kept_pieces_are_kept_and_a_clear_meanwhile_drops_them() {
    let texts = [
      "an antidisestablishmentarian 2024 中文本",
      "qwertyuiop ZZZZ!! ...",
    ];
    let seed = Encoding::O200kBase.seed();
    let want: Vec<u64> = texts
      .iter()
      .map(|t| Encoding::O200kBase.count_reference(t))
      .collect();
    let cache = Mutex::new(TokenCache::new(16));
    assert_eq!(
      cached_counts(Some(&cache), seed, &Encoding::O200kBase, &texts),
      want
    );
    let held = cache.lock().unwrap().bytes(0);
    assert!(held > 0, "the pieces are kept");
    assert_eq!(
      cached_counts(Some(&cache), seed, &ClearingCounter(&cache), &texts),
      want
    );
    assert_eq!(
      cache.lock().unwrap().bytes(0),
      0,
      "cleared while counting: nothing put back"
    );
    assert_eq!(
      cached_counts(Some(&cache), seed, &Encoding::O200kBase, &texts),
      want
    );
    assert_eq!(
      cache.lock().unwrap().bytes(0),
      held,
      "kept again by the next count"
    );
    // No cache, or a cache of size 0 (`tokenCacheSize: 0`): nothing kept.
    let off = Mutex::new(TokenCache::new(0));
    assert_eq!(
      cached_counts(Some(&off), seed, &Encoding::O200kBase, &texts),
      want
    );
    assert_eq!(off.lock().unwrap().bytes(0), 0);
  }
}
