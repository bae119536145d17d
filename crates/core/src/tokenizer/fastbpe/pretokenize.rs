//! The pre-tokenizer: tiktoken splits text into pieces with a backtracking regex (`fancy-regex`),
//! 60–80 % of its counting time. [`Pattern::next_end`] is a hand-written scanner that returns the
//! same pieces: each alternative of the pattern is evaluated in order with the regex's
//! greedy/backtracking semantics worked out in closed form (comments at each step). Character
//! classes (`\p{L}`, `\p{Lu}`, `\p{M}`, `\s`, …) come from `regex-syntax`, the same tables the
//! regex uses, so every Unicode character is classified as the oracle classifies it.
// `#[inline(always)]` marks the per-character path (decoding, the ASCII word fast path): measured
// with `benchmark/tokenizers-rs`, the calls it removes cost more than the code they add.
#![allow(clippy::inline_always)]

use std::sync::OnceLock;

use regex_syntax::hir::{Class, HirKind};
use rustc_hash::FxHashMap;

/// `\p{L}`
const LETTER: u8 = 1;
/// `\p{N}`
const NUMBER: u8 = 2;
/// `\s` (Unicode `White_Space`)
const SPACE: u8 = 4;
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`
const UPPERISH: u8 = 8;
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`
const LOWERISH: u8 = 16;

/// Per-code-point class flags in a two-level table (blocks of 256 code points, deduplicated).
pub(super) struct Classes {
  index: Vec<u16>,
  blocks: Vec<u8>,
}

pub(super) fn class_ranges(pattern: &str) -> Vec<(u32, u32)> {
  let hir = regex_syntax::parse(pattern).unwrap_or_else(|e| panic!("class {pattern}: {e}"));
  match hir.kind() {
    HirKind::Class(Class::Unicode(c)) => c
      .ranges()
      .iter()
      .map(|r| (u32::from(r.start()), u32::from(r.end())))
      .collect(),
    _ => panic!("class {pattern} is not a Unicode class"),
  }
}

impl Classes {
  pub(super) fn build() -> Self {
    const N: usize = 0x11_0000;
    let mut flags = vec![0u8; N];
    for (pattern, flag) in [
      (r"\p{L}", LETTER),
      (r"\p{N}", NUMBER),
      (r"\s", SPACE),
      (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", UPPERISH),
      (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", LOWERISH),
    ] {
      for (a, b) in class_ranges(pattern) {
        for f in &mut flags[a as usize..=b as usize] {
          *f |= flag;
        }
      }
    }
    let mut index = Vec::with_capacity(N / 256);
    let mut blocks: Vec<u8> = Vec::new();
    let mut seen: FxHashMap<&[u8], u16> = FxHashMap::default();
    for chunk in flags.chunks(256) {
      let id = *seen.entry(chunk).or_insert_with(|| {
        let id = u16::try_from(blocks.len() / 256).unwrap_or(u16::MAX);
        blocks.extend_from_slice(chunk);
        id
      });
      index.push(id);
    }
    Self { index, blocks }
  }

  #[inline]
  pub(super) fn of(&self, cp: u32) -> u8 {
    let block = self.index[(cp >> 8) as usize] as usize;
    self.blocks[block * 256 + (cp & 0xff) as usize]
  }
}

fn classes() -> &'static Classes {
  static CLASSES: OnceLock<Classes> = OnceLock::new();
  CLASSES.get_or_init(Classes::build)
}

/// One character of the text: its code point, class flags and UTF-8 length.
#[derive(Clone, Copy)]
struct Ch {
  cp: u32,
  flags: u8,
  len: usize,
}

/// The text being split, with character access by byte offset.
pub(super) struct Text<'a> {
  b: &'a [u8],
  classes: &'a Classes,
}

impl<'a> Text<'a> {
  /// `text`, classified with the shared tables.
  pub(super) fn new(text: &'a str) -> Self {
    Self {
      b: text.as_bytes(),
      classes: classes(),
    }
  }
}

impl Text<'_> {
  /// The character starting at byte `i` (a char boundary), or `None` at the end.
  #[inline(always)]
  fn at(&self, i: usize) -> Option<Ch> {
    let b0 = *self.b.get(i)?;
    if b0 < 0x80 {
      return Some(Ch {
        cp: u32::from(b0),
        flags: ASCII[b0 as usize],
        len: 1,
      });
    }
    // The input is a `&str`, so the sequence is valid UTF-8.
    let cont = |k: usize| u32::from(self.b[i + k] & 0x3f);
    let (cp, len) = if b0 < 0xe0 {
      ((u32::from(b0 & 0x1f) << 6) | cont(1), 2)
    } else if b0 < 0xf0 {
      ((u32::from(b0 & 0x0f) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
      (
        (u32::from(b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
        4,
      )
    };
    Some(Ch {
      cp,
      flags: self.classes.of(cp),
      len,
    })
  }

  /// The end of the run of characters whose flags intersect `mask`, from `i`.
  #[inline]
  fn run(&self, mut i: usize, mask: u8) -> usize {
    while let Some(c) = self.at(i) {
      if c.flags & mask == 0 {
        break;
      }
      i += c.len;
    }
    i
  }

  #[inline]
  fn byte(&self, i: usize) -> u8 {
    self.b.get(i).copied().unwrap_or(0)
  }
}

/// ASCII class flags (the Unicode tables agree; a test checks it).
pub(super) const ASCII: [u8; 128] = {
  let mut t = [0u8; 128];
  let mut c = 0;
  while c < 128 {
    #[allow(clippy::cast_possible_truncation)] // c < 128
    let b = c as u8;
    t[c] = if b.is_ascii_uppercase() {
      LETTER | UPPERISH
    } else if b.is_ascii_lowercase() {
      LETTER | LOWERISH
    } else if b.is_ascii_digit() {
      NUMBER
    } else if matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
      SPACE
    } else {
      0
    };
    c += 1;
  }
  t
};

/// `[^\r\n\p{L}\p{N}]`: the optional one-character prefix of a word.
#[inline]
fn is_word_prefix(c: Ch) -> bool {
  c.flags & (LETTER | NUMBER) == 0 && c.cp != u32::from(b'\r') && c.cp != u32::from(b'\n')
}

/// `[^\s\p{L}\p{N}]`: punctuation and symbols.
#[inline]
fn is_punct(c: Ch) -> bool {
  c.flags & (LETTER | NUMBER | SPACE) == 0
}

/// Where ` ?[^\s\p{L}\p{N}]+` starts its punctuation run at `s` (whose character is `c0`), if it matches.
#[inline]
fn punct_start(t: &Text<'_>, s: usize, c0: Ch) -> Option<usize> {
  if c0.cp == u32::from(b' ') && t.at(s + 1).is_some_and(is_punct) {
    Some(s + 1)
  } else if is_punct(c0) {
    Some(s)
  } else {
    None
  }
}

#[inline]
fn is_crlf(c: Ch) -> bool {
  c.cp == u32::from(b'\r') || c.cp == u32::from(b'\n')
}

/// A pre-tokenization pattern of tiktoken, implemented by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pattern {
  /// `o200k_base` / `o200k_harmony`: tiktoken-rs `O200K_BASE_PAT_STR`.
  O200k,
  /// `cl100k_base`: the pattern of tiktoken-rs 0.12 (possessive quantifiers).
  Cl100k,
}

impl Pattern {
  /// The end (byte offset) of the piece that starts at `s` (a char boundary before the end).
  pub(super) fn next_end(self, t: &Text<'_>, s: usize) -> usize {
    match self {
      Self::O200k => o200k_end(t, s),
      Self::Cl100k => cl100k_end(t, s),
    }
  }
}

/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` from `i`: the greedy upper-ish run
/// ends at `u`; if the character at `u` is lower-ish (then `Ll`), the lower-ish run from `u` is the
/// match; otherwise the regex backtracks to the last lower-ish character inside the run (a `Lm`,
/// `Lo` or `M`), and the match ends just after it. `None` when no lower-ish character is reachable.
#[inline]
fn upper_then_lower(t: &Text<'_>, mut i: usize) -> Option<usize> {
  let mut last_lower_end = None;
  while let Some(c) = t.at(i) {
    if c.flags & UPPERISH == 0 {
      if c.flags & LOWERISH != 0 {
        return Some(t.run(i + c.len, LOWERISH));
      }
      break;
    }
    i += c.len;
    if c.flags & LOWERISH != 0 {
      last_lower_end = Some(i);
    }
  }
  last_lower_end
}

/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*` from `i` (both greedy; nothing
/// after them can fail, so no backtracking).
#[inline]
fn upper_plus_lower(t: &Text<'_>, i: usize) -> Option<usize> {
  let u = t.run(i, UPPERISH);
  (u > i).then(|| t.run(u, LOWERISH))
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` at `e`. Case-insensitive under Unicode simple case folding:
/// `s` also matches `ſ` (U+017F); the other letters have no other folds (a test checks it).
#[inline]
fn contraction(t: &Text<'_>, e: usize) -> usize {
  if t.byte(e) != b'\'' {
    return e;
  }
  let lower = |i: usize| t.byte(i).to_ascii_lowercase();
  match lower(e + 1) {
    b's' | b't' | b'm' | b'd' => e + 2,
    0xc5 if t.byte(e + 2) == 0xbf => e + 3, // ſ
    b'r' | b'v' if lower(e + 2) == b'e' => e + 3,
    b'l' if lower(e + 2) == b'l' => e + 3,
    _ => e,
  }
}

/// The whitespace run from `s`: its end, the end of its last `\r`/`\n`, and the start of its last
/// character.
#[inline]
fn space_run(t: &Text<'_>, s: usize) -> (usize, Option<usize>, usize) {
  let mut i = s;
  let mut last_crlf_end = None;
  let mut last_start = s;
  while let Some(c) = t.at(i) {
    if c.flags & SPACE == 0 {
      break;
    }
    last_start = i;
    i += c.len;
    if is_crlf(c) {
      last_crlf_end = Some(i);
    }
  }
  (i, last_crlf_end, last_start)
}

/// The `[^\s\p{L}\p{N}]+` run from `i`.
#[inline]
fn punct_run(t: &Text<'_>, mut i: usize) -> usize {
  while let Some(c) = t.at(i) {
    if !is_punct(c) {
      break;
    }
    i += c.len;
  }
  i
}

/// Up to three `\p{N}` characters from `i` (the first is known to be one).
#[inline]
fn digits(t: &Text<'_>, mut i: usize) -> usize {
  for _ in 0..3 {
    match t.at(i) {
      Some(c) if c.flags & NUMBER != 0 => i += c.len,
      _ => break,
    }
  }
  i
}

/// One piece of `o200k_base`:
/// ```text
/// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
/// |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
/// |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
/// ```
/// Every character is matched by some alternative, so pieces tile the text; the first alternative
/// that matches at `s` wins, each tried first with its optional prefix character, then without.
fn o200k_end(t: &Text<'_>, s: usize) -> usize {
  if let Some(e) = ascii_word(t, s) {
    return e;
  }
  let Some(c0) = t.at(s) else { return s };
  // Alternative 1 (with, then without the prefix), then alternative 2; each needs a letter or mark
  // where it starts (checked first, to skip them quickly for white space, punctuation and digits).
  let wordish = |c: Ch| c.flags & (UPPERISH | LOWERISH) != 0;
  let with_prefix = is_word_prefix(c0) && t.at(s + c0.len).is_some_and(wordish);
  let without_prefix = wordish(c0);
  if with_prefix {
    if let Some(e) = upper_then_lower(t, s + c0.len) {
      return contraction(t, e);
    }
  }
  if without_prefix {
    if let Some(e) = upper_then_lower(t, s) {
      return contraction(t, e);
    }
  }
  if with_prefix {
    if let Some(e) = upper_plus_lower(t, s + c0.len) {
      return contraction(t, e);
    }
  }
  if without_prefix {
    if let Some(e) = upper_plus_lower(t, s) {
      return contraction(t, e);
    }
  }
  // \p{N}{1,3}
  if c0.flags & NUMBER != 0 {
    return digits(t, s);
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  let punct_start = punct_start(t, s, c0);
  if let Some(p) = punct_start {
    let mut e = punct_run(t, p);
    while matches!(t.byte(e), b'\r' | b'\n' | b'/') {
      e += 1;
    }
    return e;
  }
  // Whitespace. `\s*[\r\n]+`: backtracks to the last \r or \n of the run.
  let (w, last_crlf_end, last_start) = space_run(t, s);
  if let Some(e) = last_crlf_end {
    return e;
  }
  // `\s+(?!\S)`: the whole run at the end of the text, else all but its last character.
  if w == t.b.len() {
    return w;
  }
  if last_start > s {
    return last_start;
  }
  // `\s+`
  w.max(s + c0.len)
}

/// The common case of alternative 1 in plain ASCII: an optional prefix byte (ASCII, not a letter,
/// digit, \r or \n), uppercase letters, then at least one lowercase letter, ending at an ASCII byte
/// that is not a lowercase letter. Then the general rules give the same piece (ASCII uppercase
/// letters are `Lu`, lowercase ones `Ll`, so no backtracking is possible). `None` hands every
/// other case (non-ASCII nearby, no lowercase letter) to the general code.
#[inline(always)]
fn ascii_word(t: &Text<'_>, s: usize) -> Option<usize> {
  let b = t.b;
  let b0 = *b.get(s)?;
  let mut i = s;
  if b0 < 0x80 && ASCII[b0 as usize] & (LETTER | NUMBER) == 0 && b0 != b'\r' && b0 != b'\n' {
    i += 1;
  }
  while i < b.len() && b[i].is_ascii_uppercase() {
    i += 1;
  }
  if i >= b.len() || !b[i].is_ascii_lowercase() {
    return None;
  }
  while i < b.len() && b[i].is_ascii_lowercase() {
    i += 1;
  }
  if i < b.len() && b[i] >= 0x80 {
    return None;
  }
  Some(contraction(t, i))
}

/// One piece of `cl100k_base` (tiktoken-rs 0.12's pattern):
/// ```text
/// '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
/// |\s++$|\s*[\r\n]|\s+(?!\S)|\s
/// ```
fn cl100k_end(t: &Text<'_>, s: usize) -> usize {
  let Some(c0) = t.at(s) else { return s };
  // '(?i:[sdmt]|ll|ve|re)
  if c0.cp == u32::from(b'\'') {
    let e = contraction(t, s);
    if e > s {
      return e;
    }
  }
  // [^\r\n\p{L}\p{N}]?+\p{L}++ (possessive: a taken prefix is never given back)
  if is_word_prefix(c0) {
    if t.at(s + c0.len).is_some_and(|c| c.flags & LETTER != 0) {
      return t.run(s + c0.len, LETTER);
    }
  } else if c0.flags & LETTER != 0 {
    return t.run(s, LETTER);
  }
  // \p{N}{1,3}+
  if c0.flags & NUMBER != 0 {
    return digits(t, s);
  }
  // ` ?[^\s\p{L}\p{N}]++[\r\n]*+`
  let punct_start = punct_start(t, s, c0);
  if let Some(p) = punct_start {
    let mut e = punct_run(t, p);
    while matches!(t.byte(e), b'\r' | b'\n') {
      e += 1;
    }
    return e;
  }
  let (w, last_crlf_end, last_start) = space_run(t, s);
  // \s++$
  if w == t.b.len() {
    return w;
  }
  // \s*[\r\n]
  if let Some(e) = last_crlf_end {
    return e;
  }
  // \s+(?!\S)
  if last_start > s {
    return last_start;
  }
  // \s
  s + c0.len
}

/// An iterator over the pieces of `text` under `pattern` (exposed for tests and benchmarks).
#[doc(hidden)]
pub fn pieces<'a>(pattern: &'static str, text: &'a str) -> impl Iterator<Item = &'a str> + 'a {
  let p = match pattern {
    "cl100k_base" => Pattern::Cl100k,
    _ => Pattern::O200k,
  };
  let t = Text::new(text);
  let mut s = 0;
  std::iter::from_fn(move || {
    if s >= text.len() {
      return None;
    }
    let e = p.next_end(&t, s);
    let piece = &text[s..e];
    s = e;
    Some(piece)
  })
}
