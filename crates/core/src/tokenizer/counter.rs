//! The one interface of every tokenizer that counts text.

use super::KeptPieces;

/// Counts the tokens of text. Shared by every editor and thread, hence `Send + Sync`.
pub(crate) trait Counter: Send + Sync {
  /// The number of tokens of `text`.
  fn count(&self, text: &str) -> u64;

  /// The counts of many texts, each equal to [`count`](Self::count); may use several threads.
  fn count_many(&self, texts: &[&str]) -> Vec<u64> {
    texts.iter().map(|t| self.count(t)).collect()
  }

  /// [`count_many`](Self::count_many) for one editor's batches: a counter that memoizes within a
  /// batch may start from what `kept` holds of its earlier batches, and leave there what it counted
  /// (the counts are the same either way).
  fn count_many_kept(&self, texts: &[&str], kept: &mut KeptPieces) -> Vec<u64> {
    let _ = kept;
    self.count_many(texts)
  }

  /// A seed that keeps this counter's counts apart from other counters' in shared caches, or
  /// `None` when counting costs less than hashing the text (such counts are never cached).
  fn cache_seed(&self) -> Option<u64> {
    None
  }
}
