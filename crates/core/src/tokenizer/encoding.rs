//! The BPE encodings whose ranks tiktoken-rs embeds, and exact token counts with them: the fast
//! counter of `fastbpe` where it has a hand-written pre-tokenizer, plain tiktoken-rs elsewhere
//! (and as the oracle the fast counter is tested against).

use tiktoken_rs::tokenizer::{get_tokenizer, Tokenizer};
use tiktoken_rs::CoreBPE;

use super::counter::Counter;
use super::fastbpe;
use super::KeptPieces;

/// A BPE encoding whose ranks are embedded in the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Encoding {
  /// GPT-4o, GPT-4.1, GPT-4.5, GPT-5, o-series.
  O200kBase,
  /// gpt-oss.
  O200kHarmony,
  /// GPT-4, GPT-3.5-turbo, text-embedding-3.
  Cl100kBase,
  /// Codex and text-davinci-002/003.
  P50kBase,
  /// The edit models.
  P50kEdit,
  /// GPT-3 (davinci, …) and GPT-2.
  R50kBase,
}

impl Encoding {
  /// Every encoding, in the order of their names in error messages.
  pub const ALL: [Self; 6] = [
    Self::O200kBase,
    Self::O200kHarmony,
    Self::Cl100kBase,
    Self::P50kBase,
    Self::P50kEdit,
    Self::R50kBase,
  ];

  /// Parses an encoding name such as `o200k_base`.
  #[must_use]
  pub fn parse(name: &str) -> Option<Self> {
    Self::ALL.into_iter().find(|e| e.as_str() == name)
  }

  /// The encoding's name.
  #[must_use]
  pub const fn as_str(self) -> &'static str {
    match self {
      Self::O200kBase => "o200k_base",
      Self::O200kHarmony => "o200k_harmony",
      Self::Cl100kBase => "cl100k_base",
      Self::P50kBase => "p50k_base",
      Self::P50kEdit => "p50k_edit",
      Self::R50kBase => "r50k_base",
    }
  }

  /// The encoding OpenAI uses for `model`, or `None` for a model tiktoken does not know.
  ///
  /// # Examples
  /// ```
  /// use context_editor_core::Encoding;
  /// assert_eq!(Encoding::for_model("gpt-4o-mini"), Some(Encoding::O200kBase));
  /// assert_eq!(Encoding::for_model("gpt-4"), Some(Encoding::Cl100kBase));
  /// assert_eq!(Encoding::for_model("deepseek-chat"), None);
  /// ```
  #[must_use]
  pub fn for_model(model: &str) -> Option<Self> {
    Some(match get_tokenizer(model)? {
      Tokenizer::O200kBase => Self::O200kBase,
      Tokenizer::O200kHarmony => Self::O200kHarmony,
      Tokenizer::Cl100kBase => Self::Cl100kBase,
      Tokenizer::P50kBase => Self::P50kBase,
      Tokenizer::P50kEdit => Self::P50kEdit,
      Tokenizer::R50kBase | Tokenizer::Gpt2 => Self::R50kBase,
    })
  }

  /// The shared encoder, built once per process on first use.
  #[must_use]
  pub fn bpe(self) -> &'static CoreBPE {
    match self {
      Self::O200kBase => tiktoken_rs::o200k_base_singleton(),
      Self::O200kHarmony => tiktoken_rs::o200k_harmony_singleton(),
      Self::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
      Self::P50kBase => tiktoken_rs::p50k_base_singleton(),
      Self::P50kEdit => tiktoken_rs::p50k_edit_singleton(),
      Self::R50kBase => tiktoken_rs::r50k_base_singleton(),
    }
  }

  /// The exact number of tokens of `text` (special-token text is counted as plain text).
  ///
  /// # Examples
  /// ```
  /// use context_editor_core::Encoding;
  /// assert_eq!(Encoding::O200kBase.count("hello world"), 2);
  /// ```
  #[must_use]
  pub fn count(self, text: &str) -> u64 {
    if text.is_empty() {
      return 0;
    }
    match fastbpe::for_encoding(self.as_str()) {
      Some(fast) => fast.count(text),
      None => self.count_reference(text),
    }
  }

  /// The token count of plain tiktoken-rs (`CoreBPE::encode_ordinary(text).len()`), the oracle
  /// [`Encoding::count`] is tested against; one thread, no cache.
  #[must_use]
  pub fn count_reference(self, text: &str) -> u64 {
    self.bpe().encode_ordinary(text).len() as u64
  }

  /// Exact token counts of many strings (each equal to [`Encoding::count`]), across every core
  /// when the batch is large (256 KB or more).
  #[must_use]
  pub fn count_many(self, texts: &[&str]) -> Vec<u64> {
    match fastbpe::for_encoding(self.as_str()) {
      Some(fast) => fast.count_many(texts),
      None => texts.iter().map(|t| self.count(t)).collect(),
    }
  }

  /// The encoding's position in [`Encoding::ALL`] (its declaration order).
  pub(crate) const fn position(self) -> usize {
    self as usize
  }

  /// Seed of the cache keys of this encoding's counts (two encodings never share an entry).
  pub(crate) const fn seed(self) -> u64 {
    self as u64 + 1
  }
}

impl Counter for Encoding {
  fn count(&self, text: &str) -> u64 {
    Encoding::count(*self, text)
  }

  fn count_many(&self, texts: &[&str]) -> Vec<u64> {
    Encoding::count_many(*self, texts)
  }

  fn count_many_kept(&self, texts: &[&str], kept: &mut KeptPieces) -> Vec<u64> {
    match fastbpe::for_encoding(self.as_str()) {
      Some(fast) => fast.count_many_kept(texts, kept, self.seed()),
      None => Encoding::count_many(*self, texts),
    }
  }

  fn cache_seed(&self) -> Option<u64> {
    Some(self.seed())
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn pinned_counts_per_encoding() {
    // Golden values from tiktoken's reference encodings.
    assert_eq!(Encoding::O200kBase.count("hello world"), 2);
    assert_eq!(Encoding::Cl100kBase.count("hello world"), 2);
    assert_eq!(
      Encoding::O200kBase.count("The quick brown fox jumps over the lazy dog."),
      10
    );
    assert_eq!(
      Encoding::Cl100kBase.count("The quick brown fox jumps over the lazy dog."),
      10
    );
    assert_eq!(Encoding::O200kBase.count("你好，世界"), 3);
    assert_eq!(Encoding::Cl100kBase.count("你好，世界"), 6);
    assert_eq!(Encoding::O200kBase.count(""), 0);
  }

  #[test]
  fn model_names_pick_encodings() {
    assert_eq!(Encoding::for_model("gpt-4o"), Some(Encoding::O200kBase));
    assert_eq!(
      Encoding::for_model("gpt-4.1-mini"),
      Some(Encoding::O200kBase)
    );
    assert_eq!(Encoding::for_model("gpt-5"), Some(Encoding::O200kBase));
    assert_eq!(Encoding::for_model("o3-mini"), Some(Encoding::O200kBase));
    assert_eq!(
      Encoding::for_model("gpt-3.5-turbo"),
      Some(Encoding::Cl100kBase)
    );
    assert_eq!(
      Encoding::for_model("text-embedding-3-small"),
      Some(Encoding::Cl100kBase)
    );
    assert_eq!(Encoding::for_model("qwen-max"), None);
  }
}
