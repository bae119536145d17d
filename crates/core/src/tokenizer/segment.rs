//! Counting a long text in segments, only where the sum is provably the count of the whole.
//!
//! The `tokenizers` crate keeps about 330 bytes per token while it encodes: a 10 MB log took 660 MB
//! and 7 s whole. A text longer than `2 × SEGMENT_BYTES` is cut, about every `SEGMENT_BYTES`, right
//! after a line feed that a letter or a digit follows, and the counts of the pieces are added. That
//! sum is the whole text's count exactly when the tokenizer's pieces never cross such a place and do
//! not depend on where the text starts. (Not before any character but white space: Mistral tekken's
//! and o200k's punctuation pieces end in `[\r\n/]*`, so `";\n//"` is one piece and a cut before a
//! line's `//` changed counts.) A `tokenizer.json` is only counted that way when every part of it is
//! known to keep that property:
//!
//! - the normalizer is none or Unicode (re)composition only (NFC, NFD, NFKC, NFKD: a line feed is a
//!   starter that composes with nothing, so nothing crosses it);
//! - the pre-tokenizer is a sequence of `Split`s with `Isolated` behaviour and no inversion, each of
//!   a pattern listed below, at least one of them a *boundary* pattern, and a `ByteLevel` without a
//!   prefix space and without its own (GPT-2) regex: GPT-2's `\s+(?!\S)` splits `"  \n"` before a
//!   word as `"  "`, `"\n"` but at the end of a text as one piece, so it changes counts;
//! - no added token strips white space on its left (`lstrip` would take the line feed before it)
//!   or holds a line feed followed by a letter or digit (a cut could fall inside).
//!
//! Everything else (Gemma's and Llama 2's `SentencePiece` shapes, `Metaspace`, `WordPiece`, `Unigram`, a
//! split pattern not listed, GPT-2's byte-level regex) is counted whole: exact, with the memory the
//! crate needs. The listed patterns are checked piece by piece on generated text at every place a cut
//! may fall (tests below), and the families' files by the differential test on long texts.

use tokenizers::normalizers::NormalizerWrapper as N;
use tokenizers::pre_tokenizers::split::SplitPattern;
use tokenizers::pre_tokenizers::PreTokenizerWrapper as P;
use tokenizers::{SplitDelimiterBehavior, Tokenizer};

/// Texts longer than twice this are counted in segments of about this size.
pub(super) const SEGMENT_BYTES: usize = 128 * 1024;

/// Split patterns that end a piece at every line feed a letter or digit follows, whatever comes
/// before (no lookbehind, no anchors), and match nothing across it.
const BOUNDARY_PATTERNS: [&str; 6] = [
  // cl100k_base's: Llama 3, GLM-4 (its tiktoken vocabulary converted), DeepSeek-R1's Llama distills.
  r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
  // Qwen 2, 2.5 and 3 (digits one by one).
  r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
  // Mistral tekken.
  r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
  // o200k_base's (gpt-oss and other conversions of it).
  r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
  // DeepSeek V3 and R1 (its third split; the file holds real CR and LF characters here).
  "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
  // The same with escaped CR and LF, as other conversions write it.
  r##"[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"##,
];

/// Split patterns that match neither a line feed nor white space (digits, CJK runs): they cannot
/// cross a cut, and leave the boundary to a boundary pattern.
const NEUTRAL_PATTERNS: [&str; 2] = [r"\p{N}{1,3}", "[一-龥぀-ゟ゠-ヿ]+"];

/// Whether counts of `t` add up over segments (see the module notes); `false`: count whole.
pub(super) fn segmentable(t: &Tokenizer) -> bool {
  fn norm(n: &N) -> bool {
    match n {
      N::NFC(_) | N::NFKC(_) | N::NFD(_) | N::NFKD(_) => true,
      N::Sequence(s) => s.as_ref().iter().all(norm),
      _ => false,
    }
  }
  /// Whether `p` keeps the property; `boundary` becomes true when it has a boundary split.
  fn pre(p: &P, boundary: &mut bool) -> bool {
    match p {
      P::Split(s) => {
        let SplitPattern::Regex(r) = &s.pattern else {
          return false;
        };
        if s.invert || s.behavior != SplitDelimiterBehavior::Isolated {
          return false;
        }
        let r = r.as_str();
        *boundary |= BOUNDARY_PATTERNS.contains(&r);
        BOUNDARY_PATTERNS.contains(&r) || NEUTRAL_PATTERNS.contains(&r)
      }
      P::ByteLevel(b) => !b.add_prefix_space && !b.use_regex,
      P::Sequence(s) => s.as_ref().iter().all(|p| pre(p, boundary)),
      _ => false,
    }
  }
  let mut boundary = false;
  let pre_ok = t.get_pre_tokenizer().is_some_and(|p| pre(p, &mut boundary));
  pre_ok
    && boundary
    && t.get_normalizer().is_none_or(norm)
    && t
      .get_added_tokens_decoder()
      .values()
      .all(|a| !a.lstrip && !line_feed_before_word(&a.content))
}

/// Whether a segment may start with `c` (after a line feed): a letter or a digit of any script.
fn starts_segment(c: char) -> bool {
  c.is_alphanumeric()
}

/// Whether `s` holds a line feed followed by a letter or digit.
fn line_feed_before_word(s: &str) -> bool {
  s.split('\n')
    .skip(1)
    .any(|rest| rest.chars().next().is_some_and(starts_segment))
}

/// `text` cut into segments of about [`SEGMENT_BYTES`], each cut right after a line feed that a
/// letter or digit follows. A text with no such place stays whole.
pub(super) fn segments(text: &str) -> impl Iterator<Item = &str> {
  let mut rest = text;
  std::iter::from_fn(move || {
    if rest.is_empty() {
      return None;
    }
    let cut = if rest.len() > 2 * SEGMENT_BYTES {
      cut_after(rest, SEGMENT_BYTES).unwrap_or(rest.len())
    } else {
      rest.len()
    };
    let (head, tail) = rest.split_at(cut);
    rest = tail;
    Some(head)
  })
}

/// The first position after `from` right after a `\n` followed by a letter or digit.
fn cut_after(text: &str, from: usize) -> Option<usize> {
  let bytes = text.as_bytes();
  let mut i = from;
  while let Some(k) = bytes[i..].iter().position(|&b| b == b'\n') {
    let cut = i + k + 1;
    match text[cut..].chars().next() {
      Some(c) if starts_segment(c) => return Some(cut),
      Some(_) => i = cut,
      None => return None,
    }
  }
  None
}

#[cfg(test)]
#[path = "segment_tests.rs"]
mod tests;
