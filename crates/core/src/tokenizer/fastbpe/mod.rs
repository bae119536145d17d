//! Exact token counts for `o200k_base` (and `o200k_harmony`'s ordinary text) and `cl100k_base`,
//! equal to tiktoken-rs `encode_ordinary(text).len()` but several times faster.
//!
//! tiktoken-rs stays the source of the ranks (read once through `CoreBPE::decode_bytes`) and the
//! oracle (the differential tests in `tests/fastbpe_differential.rs`). What changes, one part each:
//!
//! - [`pretokenize`]: a hand-written scanner returns the pieces of tiktoken's backtracking regex
//!   (60–80 % of tiktoken's time), with the regex's own Unicode tables.
//! - [`merge`]: a piece that is one token (most words) costs one hash lookup; other pieces are
//!   merged with tiktoken's own algorithm (counting only) and memoized for one batch of strings;
//!   an editor keeps what its small batches memoized for its next ones ([`KeptPieces`]: a next
//!   call counts a few new messages, whose pieces mostly came before). A new editor starts with
//!   nothing kept, so a "cold" count is really cold.
//! - [`parallel`]: a large batch is split across threads (strings are independent); a small batch
//!   stays on the calling thread.

mod merge;
mod parallel;
mod pretokenize;
#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use tiktoken_rs::{CoreBPE, Rank};

use merge::{pack_at, PieceCache, Pieces, Ranks};
pub use pretokenize::pieces;
use pretokenize::{Pattern, Text};

/// The ranks of one encoding and its pattern.
pub(crate) struct FastBpe {
  ranks: Ranks,
  pattern: Pattern,
}

impl FastBpe {
  /// Reads the ordinary tokens of `bpe` (every rank that decodes, minus special tokens); `tokens`
  /// is their expected number (the table's initial capacity).
  fn from_core(bpe: &CoreBPE, pattern: Pattern, tokens: usize) -> Self {
    let special: Vec<Vec<u8>> = bpe
      .special_tokens()
      .into_iter()
      .map(|s| s.as_bytes().to_vec())
      .collect();
    let mut ranks = Ranks::with_capacity(tokens);
    let mut misses = 0;
    let mut rank: Rank = 0;
    // Ranks are dense below the special tokens; stop after a long run of unknown ranks.
    while misses < 4096 {
      match bpe.decode_bytes(&[rank]) {
        Ok(bytes) if !special.contains(&bytes) => {
          ranks.insert(bytes, rank);
          misses = 0;
        }
        _ => misses += 1,
      }
      rank += 1;
    }
    Self { ranks, pattern }
  }

  /// The number of ordinary tokens of `text`.
  pub(crate) fn count(&self, text: &str) -> u64 {
    let mut cache = PieceCache::default();
    self.count_with(text, &mut cache)
  }

  fn count_with<'a>(&self, text: &'a str, cache: &mut PieceCache<'a>) -> u64 {
    let t = Text::new(text);
    let bytes = text.as_bytes();
    let mut s = 0;
    let mut n: u64 = 0;
    while s < bytes.len() {
      let e = self.pattern.next_end(&t, s);
      debug_assert!(e > s);
      let piece = &bytes[s..e];
      n += u64::from(self.ranks.piece_count(piece, pack_at(bytes, s, e), cache));
      s = e;
    }
    n
  }

  /// Token counts of many strings: on the calling thread when the batch is small, else across
  /// every core (see [`parallel`]).
  pub(crate) fn count_many(&self, texts: &[&str]) -> Vec<u64> {
    parallel::count_many(texts, None, |text, cache| self.count_with(text, cache))
  }

  /// [`count_many`](Self::count_many), a small batch starting from the pieces `kept` holds of the
  /// encoding with cache seed `seed`, and leaving there the pieces it counted.
  pub(crate) fn count_many_kept(
    &self,
    texts: &[&str],
    kept: &mut KeptPieces,
    seed: u64,
  ) -> Vec<u64> {
    parallel::count_many(texts, Some(kept.of(seed)), |text, cache| {
      self.count_with(text, cache)
    })
  }
}

/// The pieces an editor's batches counted, kept for its next batches (the editor's token cache
/// holds it; see `Counter::count_many_kept`): what merging a piece that is not one token gave, and
/// the front table of recent pieces. A piece's count depends on the encoding only, so these are
/// the pieces of one encoding, named by its cache seed; another's starts them afresh.
#[derive(Default)]
pub(crate) struct KeptPieces {
  seed: u64,
  pieces: Pieces,
}

impl std::fmt::Debug for KeptPieces {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    f.debug_struct("KeptPieces")
      .field("seed", &self.seed)
      .field("bytes", &self.bytes())
      .finish_non_exhaustive()
  }
}

impl KeptPieces {
  /// The pieces of the encoding with cache seed `seed` (none if they were another's).
  fn of(&mut self, seed: u64) -> &mut Pieces {
    if self.seed != seed {
      self.seed = seed;
      self.pieces = Pieces::default();
    }
    &mut self.pieces
  }

  /// Bytes held.
  pub(crate) fn bytes(&self) -> usize {
    self.pieces.bytes()
  }

  /// The short non-token pieces held.
  #[cfg(test)]
  fn merged(&self) -> usize {
    self.pieces.merged()
  }
}

/// The fast counter of an encoding name, built on first use from tiktoken-rs's ranks; `None` for
/// encodings without a hand-written pattern (p50k, r50k).
pub(crate) fn for_encoding(name: &str) -> Option<&'static FastBpe> {
  static O200K: OnceLock<FastBpe> = OnceLock::new();
  static CL100K: OnceLock<FastBpe> = OnceLock::new();
  match name {
    "o200k_base" | "o200k_harmony" => Some(O200K.get_or_init(|| {
      FastBpe::from_core(tiktoken_rs::o200k_base_singleton(), Pattern::O200k, 200_000)
    })),
    "cl100k_base" => Some(CL100K.get_or_init(|| {
      FastBpe::from_core(
        tiktoken_rs::cl100k_base_singleton(),
        Pattern::Cl100k,
        100_300,
      )
    })),
    _ => None,
  }
}
