//! Exact token counts for `o200k_base` (and `o200k_harmony`'s ordinary text) and `cl100k_base`,
//! equal to tiktoken-rs `encode_ordinary(text).len()` but several times faster.
//!
//! tiktoken-rs stays the source of the ranks (read once through `CoreBPE::decode_bytes`) and the
//! oracle (the differential tests in `tests/fastbpe_differential.rs`). What changes:
//!
//! - **Pre-tokenizer.** tiktoken splits text with a backtracking regex (`fancy-regex`), 60–80 % of
//!   its time. [`Pattern::next_end`] is a hand-written scanner that returns the same pieces: each
//!   alternative of the pattern is evaluated in order with the regex's greedy/backtracking
//!   semantics worked out in closed form (comments at each step). Character classes (`\p{L}`,
//!   `\p{Lu}`, `\p{M}`, `\s`, …) come from `regex-syntax`, the same tables the regex uses, so
//!   every Unicode character is classified as the oracle classifies it.
//! - **Pieces.** A piece that is one token (most words) costs one hash lookup. Other pieces are
//!   merged with tiktoken's own algorithm (vendored below, counting only) and memoized in a piece
//!   cache that lives for one batch of strings (so a "cold" count is really cold).
//! - **Both cores.** [`FastBpe::count_many`] splits a large batch across threads (strings are
//!   independent); a small batch stays on the calling thread.

use std::cell::Cell;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use regex_syntax::hir::{Class, HirKind};
use rustc_hash::FxHashMap;
use tiktoken_rs::{CoreBPE, Rank};

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
struct Classes {
  index: Vec<u16>,
  blocks: Vec<u8>,
}

fn class_ranges(pattern: &str) -> Vec<(u32, u32)> {
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
  fn build() -> Self {
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
  fn of(&self, cp: u32) -> u8 {
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
struct Text<'a> {
  b: &'a [u8],
  classes: &'a Classes,
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
const ASCII: [u8; 128] = {
  let mut t = [0u8; 128];
  let mut c = 0;
  while c < 128 {
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
pub(crate) enum Pattern {
  /// `o200k_base` / `o200k_harmony`: tiktoken-rs `O200K_BASE_PAT_STR`.
  O200k,
  /// `cl100k_base`: the pattern of tiktoken-rs 0.12 (possessive quantifiers).
  Cl100k,
}

impl Pattern {
  /// The end (byte offset) of the piece that starts at `s` (a char boundary before the end).
  fn next_end(self, t: &Text<'_>, s: usize) -> usize {
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
  let t = Text {
    b: text.as_bytes(),
    classes: classes(),
  };
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

/// Byte strings of up to 15 bytes packed in a `u128` (bytes little-endian, length in the top byte):
/// hashing and comparing them costs no pointer chase and no `memcmp`.
#[inline(always)]
fn pack(b: &[u8]) -> Option<u128> {
  if b.len() > 15 {
    return None;
  }
  let mut buf = [0u8; 16];
  buf[..b.len()].copy_from_slice(b);
  buf[15] = b.len() as u8;
  Some(u128::from_le_bytes(buf))
}

/// `pack(&bytes[s..e])`, reading 16 bytes at once when the text has them (no `memcpy` call).
#[inline(always)]
fn pack_at(bytes: &[u8], s: usize, e: usize) -> Option<u128> {
  let len = e - s;
  if len > 15 {
    return None;
  }
  match bytes.get(s..s + 16) {
    Some(window) => {
      let mut buf = [0u8; 16];
      buf.copy_from_slice(window);
      let v = u128::from_le_bytes(buf);
      // Keep the piece's `len` bytes, put the length in the top byte.
      let mask = (1u128 << (8 * len)) - 1;
      Some((v & mask) | ((len as u128) << 120))
    }
    None => pack(&bytes[s..e]),
  }
}

/// Token ranks by bytes: short tokens packed, long ones boxed.
#[derive(Default)]
struct Ranks {
  short: FxHashMap<u128, Rank>,
  long: FxHashMap<Box<[u8]>, Rank>,
}

impl Ranks {
  fn insert(&mut self, bytes: Vec<u8>, rank: Rank) {
    match pack(&bytes) {
      Some(k) => {
        self.short.insert(k, rank);
      }
      None => {
        self.long.insert(bytes.into_boxed_slice(), rank);
      }
    }
  }

  #[inline(always)]
  fn get(&self, bytes: &[u8]) -> Option<Rank> {
    match pack(bytes) {
      Some(k) => self.short.get(&k).copied(),
      None => self.long.get(bytes).copied(),
    }
  }
}

/// The ranks of one encoding and its pattern.
pub(crate) struct FastBpe {
  ranks: Ranks,
  pattern: Pattern,
}

/// Non-token pieces memoized for one batch of strings (bounded): short ones packed, long ones by
/// reference into the batch's strings.
///
/// For a batch, `front` is a small direct-mapped table of recent short pieces (tokens or not) and
/// their counts: it stays in the L2 cache while the 200k-entry rank table does not, and natural
/// text repeats its most frequent pieces (" the", ",", "\n") all the time.
#[derive(Default)]
struct PieceCache<'a> {
  short: FxHashMap<u128, u32>,
  long: FxHashMap<&'a [u8], u32>,
  front: Vec<(u128, u32)>,
}

const FRONT_BITS: u32 = 12;

#[inline(always)]
fn front_slot(k: u128) -> usize {
  let x = (k as u64) ^ ((k >> 64) as u64).rotate_left(23);
  (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - FRONT_BITS)) as usize
}

impl<'a> PieceCache<'a> {
  /// A cache with the front table, for batches.
  fn for_batch() -> Self {
    Self {
      front: vec![(0, 0); 1 << FRONT_BITS],
      ..Self::default()
    }
  }

  #[inline]
  fn get(&self, piece: &[u8]) -> Option<u32> {
    match pack(piece) {
      Some(k) => self.short.get(&k).copied(),
      None => self.long.get(piece).copied(),
    }
  }

  fn insert(&mut self, piece: &'a [u8], n: u32) {
    if self.short.len() + self.long.len() >= PIECE_CACHE_MAX {
      self.short.clear();
      self.long.clear();
    }
    match pack(piece) {
      Some(k) => {
        self.short.insert(k, n);
      }
      None => {
        self.long.insert(piece, n);
      }
    }
  }
}
const PIECE_CACHE_MAX: usize = 1 << 16;

thread_local! {
  /// Set by [`in_background`] on the thread running background work.
  static BACKGROUND: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` as background work (an asynchronous call, on a thread of Node's pool): a batch that
/// is counted across threads is counted by worker threads at a lower CPU priority (nice +10), the
/// calling thread only waiting, so that on a machine with few cores the event loop's thread and
/// the garbage collector are not starved while a long history is counted. Synchronous calls keep
/// the normal priority: the caller is waiting for them.
pub fn in_background<T>(f: impl FnOnce() -> T) -> T {
  struct Reset(bool);
  impl Drop for Reset {
    fn drop(&mut self) {
      BACKGROUND.with(|b| b.set(self.0));
    }
  }
  let _reset = Reset(BACKGROUND.with(|b| b.replace(true)));
  f()
}

/// Lowers the calling thread's CPU priority (Linux keeps the nice value per thread). Best effort:
/// where it is not allowed or not supported, the thread keeps its priority.
fn lower_priority() {
  #[cfg(target_os = "linux")]
  {
    let _ = rustix::process::nice(10);
  }
}
/// Batches smaller than this (total bytes) are counted on the calling thread.
pub(crate) const PARALLEL_MIN_BYTES: usize = 256 * 1024;
/// Batches from this size (total bytes) get the front table of the piece cache.
const FRONT_MIN_BYTES: usize = 16 * 1024;
/// Strings at least this long are cut into segments for the workers.
const SPLIT_MIN_BYTES: usize = 128 * 1024;
/// Strings handed to a worker at a time (by total bytes).
const CHUNK_BYTES: usize = 32 * 1024;

impl FastBpe {
  /// Reads the ordinary tokens of `bpe` (every rank that decodes, minus special tokens); `tokens`
  /// is their expected number (the table's initial capacity).
  pub(crate) fn from_core(bpe: &CoreBPE, pattern: Pattern, tokens: usize) -> Self {
    let special: Vec<Vec<u8>> = bpe
      .special_tokens()
      .into_iter()
      .map(|s| s.as_bytes().to_vec())
      .collect();
    let mut ranks = Ranks::default();
    ranks.short.reserve(tokens);
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
    let t = Text {
      b: text.as_bytes(),
      classes: classes(),
    };
    let bytes = text.as_bytes();
    let mut s = 0;
    let mut n: u64 = 0;
    while s < bytes.len() {
      let e = self.pattern.next_end(&t, s);
      debug_assert!(e > s);
      let piece = &bytes[s..e];
      n += u64::from(self.piece_count(piece, pack_at(bytes, s, e), cache));
      s = e;
    }
    n
  }

  #[inline]
  fn piece_count<'a>(&self, piece: &'a [u8], key: Option<u128>, cache: &mut PieceCache<'a>) -> u32 {
    if !cache.front.is_empty() {
      if let Some(k) = key {
        // `pack` never yields 0 for a non-empty piece (its length byte), so 0 marks an empty slot.
        let slot = front_slot(k);
        if cache.front[slot].0 == k {
          return cache.front[slot].1;
        }
        let n = match self.ranks.short.get(&k) {
          Some(_) => 1,
          None => self.miss_count(piece, cache),
        };
        cache.front[slot] = (k, n);
        return n;
      }
    }
    if self.ranks.get(piece).is_some() {
      return 1;
    }
    self.miss_count(piece, cache)
  }

  /// The count of a piece that is not one token: memoized merges.
  fn miss_count<'a>(&self, piece: &'a [u8], cache: &mut PieceCache<'a>) -> u32 {
    if let Some(n) = cache.get(piece) {
      return n;
    }
    let n = u32::try_from(self.merge_count(piece)).unwrap_or(u32::MAX);
    cache.insert(piece, n);
    n
  }

  #[inline]
  fn rank(&self, bytes: &[u8]) -> Rank {
    self.ranks.get(bytes).unwrap_or(Rank::MAX)
  }

  /// tiktoken's `byte_pair_encode(piece).len()` (the same two algorithms, by piece length).
  fn merge_count(&self, piece: &[u8]) -> usize {
    if piece.len() <= 1 {
      return piece.len();
    }
    if piece.len() < 100 {
      self.merge_small(piece)
    } else {
      self.merge_large(piece)
    }
  }

  /// tiktoken's `_byte_pair_merge`: a vector of (start, rank of the pair starting there); merges
  /// the lowest rank (leftmost on ties) until none is left.
  fn merge_small(&self, piece: &[u8]) -> usize {
    let mut parts: Vec<(usize, Rank)> = Vec::with_capacity(piece.len() + 1);
    let mut min_rank: (Rank, usize) = (Rank::MAX, usize::MAX);
    for i in 0..piece.len() - 1 {
      let rank = self.rank(&piece[i..i + 2]);
      if rank < min_rank.0 {
        min_rank = (rank, i);
      }
      parts.push((i, rank));
    }
    parts.push((piece.len() - 1, Rank::MAX));
    parts.push((piece.len(), Rank::MAX));
    let get_rank = |parts: &Vec<(usize, Rank)>, i: usize| {
      if i + 3 < parts.len() {
        self.rank(&piece[parts[i].0..parts[i + 3].0])
      } else {
        Rank::MAX
      }
    };
    while min_rank.0 != Rank::MAX {
      let i = min_rank.1;
      if i > 0 {
        parts[i - 1].1 = get_rank(&parts, i - 1);
      }
      parts[i].1 = get_rank(&parts, i);
      parts.remove(i + 1);
      min_rank = (Rank::MAX, usize::MAX);
      for (i, &(_, rank)) in parts[..parts.len() - 1].iter().enumerate() {
        if rank < min_rank.0 {
          min_rank = (rank, i);
        }
      }
    }
    parts.len() - 1
  }

  /// tiktoken's `_byte_pair_merge_large`: the same merges driven by a heap, for long pieces.
  fn merge_large(&self, piece: &[u8]) -> usize {
    struct State {
      prev: usize,
      end: usize,
      next_end: usize,
      next_rank: Rank,
    }
    #[derive(PartialEq, Eq)]
    struct Merge {
      start: usize,
      rank: Rank,
    }
    impl Ord for Merge {
      fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
          .rank
          .cmp(&self.rank)
          .then_with(|| other.start.cmp(&self.start))
      }
    }
    impl PartialOrd for Merge {
      fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
      }
    }
    let mut state = Vec::with_capacity(piece.len());
    state.push(State {
      prev: usize::MAX,
      end: 1,
      next_end: 2,
      next_rank: Rank::MAX,
    });
    let mut heap = BinaryHeap::with_capacity(piece.len());
    for i in 0..piece.len() - 1 {
      let rank = self.rank(&piece[i..i + 2]);
      if rank != Rank::MAX {
        heap.push(Merge { start: i, rank });
        state[i].next_rank = rank;
      }
      state.push(State {
        prev: i,
        end: i + 2,
        next_end: i + 3,
        next_rank: Rank::MAX,
      });
    }
    let potential_merge =
      |state: &mut Vec<State>, heap: &mut BinaryHeap<Merge>, start: usize, next_end: usize| {
        state[start].next_end = next_end;
        state[start].next_rank = Rank::MAX;
        if next_end <= piece.len() {
          let rank = self.rank(&piece[start..next_end]);
          if rank != Rank::MAX {
            heap.push(Merge { start, rank });
            state[start].next_rank = rank;
          }
        }
      };
    while let Some(left) = heap.pop() {
      if left.rank == Rank::MAX {
        break;
      }
      if left.rank != state[left.start].next_rank {
        continue;
      }
      let left_start = left.start;
      let right_start = state[left_start].end;
      let right_end = state[left_start].next_end;
      let right_next_end = state[right_start].next_end;
      state[left_start].end = right_end;
      potential_merge(&mut state, &mut heap, left_start, right_next_end);
      if right_end < state.len() {
        state[right_end].prev = left_start;
      }
      if left_start > 0 {
        let prev_start = state[left_start].prev;
        potential_merge(&mut state, &mut heap, prev_start, right_end);
      }
      state[right_start].next_rank = Rank::MAX;
    }
    let mut n = 0;
    let mut i = 0;
    while i < state.len() {
      n += 1;
      i = state[i].end;
    }
    n
  }

  /// Token counts of many strings: on the calling thread when the batch is small, else across
  /// every core (strings are independent; each worker keeps its own piece cache).
  pub(crate) fn count_many(&self, texts: &[&str]) -> Vec<u64> {
    static THREADS: OnceLock<usize> = OnceLock::new();
    let total: usize = texts.iter().map(|t| t.len()).sum();
    let threads = if total < PARALLEL_MIN_BYTES {
      1
    } else {
      *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(8)))
    };
    if threads < 2 {
      let mut cache = if total >= FRONT_MIN_BYTES {
        PieceCache::for_batch()
      } else {
        PieceCache::default()
      };
      return texts
        .iter()
        .map(|t| self.count_with(t, &mut cache))
        .collect();
    }
    // Work items: whole strings, and segments of very long ones (cut where a piece always ends, so
    // the segments' counts add up to the string's).
    let mut items: Vec<(usize, &str)> = Vec::with_capacity(texts.len());
    for (i, t) in texts.iter().enumerate() {
      if t.len() >= SPLIT_MIN_BYTES {
        items.extend(segments(t).into_iter().map(|seg| (i, seg)));
      } else {
        items.push((i, t));
      }
    }
    // Chunks of consecutive items of about CHUNK_BYTES, handed out in order.
    let mut bounds = vec![0usize];
    let mut acc = 0;
    for (k, (_, t)) in items.iter().enumerate() {
      acc += t.len();
      if acc >= CHUNK_BYTES {
        bounds.push(k + 1);
        acc = 0;
      }
    }
    if *bounds.last().unwrap_or(&0) != items.len() {
      bounds.push(items.len());
    }
    let next = AtomicUsize::new(0);
    let work = || {
      let mut cache = PieceCache::for_batch();
      let mut done: Vec<(usize, u64)> = Vec::new();
      loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k + 1 >= bounds.len() {
          break;
        }
        for &(i, t) in &items[bounds[k]..bounds[k + 1]] {
          done.push((i, self.count_with(t, &mut cache)));
        }
      }
      done
    };
    let mut out = vec![0u64; texts.len()];
    let mut place = |done: Vec<(usize, u64)>| {
      for (i, n) in done {
        out[i] += n;
      }
    };
    let background = BACKGROUND.with(Cell::get);
    std::thread::scope(|scope| {
      // A thread that cannot be spawned is no error: the chunks it would have taken are taken by
      // the others. The calling thread works too, unless the work is background work (its
      // workers run at a lower priority, and the calling thread is one of Node's pool).
      let spawned = if background { threads } else { threads - 1 };
      let handles: Vec<_> = (0..spawned)
        .filter_map(|_| {
          std::thread::Builder::new()
            .spawn_scoped(scope, || {
              if background {
                lower_priority();
              }
              work()
            })
            .ok()
        })
        .collect();
      if !background || handles.is_empty() {
        place(work());
      }
      for h in handles {
        match h.join() {
          Ok(done) => place(done),
          Err(e) => std::panic::resume_unwind(e),
        }
      }
    });
    out
  }
}

/// Cuts `text` into segments of about `CHUNK_BYTES` at positions where every piece of both
/// patterns ends: after a `\n` and before an ASCII letter or digit. No alternative of either pattern
/// matches across such a point (letter and digit pieces cannot contain `\r`/`\n`, not even as their
/// prefix character; punctuation pieces end their trailing `[\r\n/]*` at a letter or digit; white
/// space pieces stay inside the white space), and matching from a position depends only on the
/// text after it, so the pieces of the segments are the pieces of the text.
fn segments(text: &str) -> Vec<&str> {
  let b = text.as_bytes();
  let mut out = Vec::new();
  let mut start = 0;
  let mut target = CHUNK_BYTES;
  while target < b.len() {
    let Some(p) = (target..b.len()).find(|&p| b[p - 1] == b'\n' && b[p].is_ascii_alphanumeric())
    else {
      break;
    };
    out.push(&text[start..p]);
    start = p;
    target = p + CHUNK_BYTES;
  }
  out.push(&text[start..]);
  out
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

#[cfg(test)]
mod tests {
  use super::*;
  use proptest::prelude::*;

  /// tiktoken-rs 0.12.1's cl100k_base pattern (not exported as a constant there).
  const CL100K_PAT: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";

  fn regex_pieces(pattern: &'static str, text: &str) -> Vec<String> {
    static O200K: OnceLock<fancy_regex::Regex> = OnceLock::new();
    static CL100K: OnceLock<fancy_regex::Regex> = OnceLock::new();
    let cell = if pattern == CL100K_PAT {
      &CL100K
    } else {
      &O200K
    };
    let re = cell.get_or_init(|| fancy_regex::Regex::new(pattern).unwrap());
    re.find_iter(text)
      .map(|m| m.unwrap().as_str().to_owned())
      .collect()
  }

  fn ours(name: &'static str, text: &str) -> Vec<String> {
    pieces(name, text).map(str::to_owned).collect()
  }

  fn assert_same_pieces(text: &str) {
    assert_eq!(
      ours("o200k_base", text),
      regex_pieces(tiktoken_rs::O200K_BASE_PAT_STR, text),
      "o200k pieces of {text:?}"
    );
    assert_eq!(
      ours("cl100k_base", text),
      regex_pieces(CL100K_PAT, text),
      "cl100k pieces of {text:?}"
    );
  }

  /// Characters on every edge of the patterns: each Unicode category the classes distinguish
  /// (Lu, Ll, Lt, Lm, Lo, Mn, Mc, Me, Nd, Nl, No, Zs, Zl, Cc, Cf, Co, Cs-replacement, So, Sm, Pd…),
  /// the contraction letters in both cases, `ſ` and the Kelvin sign (case folds), \r \n and the
  /// other white space, astral letters and emoji.
  const ALPHABET: &[&str] = &[
    "a",
    "Z",
    "s",
    "S",
    "t",
    "T",
    "r",
    "R",
    "e",
    "E",
    "v",
    "V",
    "m",
    "M",
    "l",
    "L",
    "d",
    "D",
    "'",
    "ſ",
    "\u{212a}",
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "\u{a0}",
    "\u{3000}",
    "\u{85}",
    "\u{2028}",
    "\u{b}",
    "\u{c}",
    "\u{1f}",
    "\u{0}",
    "0",
    "7",
    "123",
    "\u{663}",
    "\u{216b}",
    "\u{bd}",
    ".",
    ",",
    "/",
    "//",
    "-",
    "\"",
    "{",
    "}",
    "_",
    "$",
    "中",
    "文",
    "日本",
    "ー",
    "ǅ",
    "ʰ",
    "é",
    "\u{301}",
    "\u{93f}",
    "\u{20dd}",
    "😀",
    "👍🏽",
    "\u{200d}",
    "ß",
    "İ",
    "ﬀ",
    "Ω",
    "ω",
    "\u{1d400}",
    "\u{10400}",
    "\u{10428}",
    "\u{e000}",
    "\u{fffd}",
    "한",
    "ا",
    "ب",
    "\u{64b}",
    "ก",
    "\u{e31}",
    "€",
    "+",
    "=",
    "<|endoftext|>",
    "Hello",
    "WORLD",
    "don't",
    "I'M",
    "they'RE",
    "x'll",
  ];

  fn tricky() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ALPHABET), 0..40).prop_map(|v| v.concat())
  }

  proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn pieces_equal_the_regex(text in tricky()) {
      assert_same_pieces(&text);
    }

    #[test]
    fn pieces_equal_the_regex_on_any_chars(text in "\\PC{0,30}") {
      assert_same_pieces(&text);
    }
  }

  #[test]
  fn pieces_equal_the_regex_on_samples() {
    for text in [
      "",
      "hello world",
      "Hello, WORLD! It's 12345 o'clock\r\n\r\n  ",
      "  \n\n\tx  y   \u{a0}z\u{3000}",
      "HTTPServer's XMLHttpRequest IPhone ǅemal ʰello",
      "e\u{301}te\u{301} \u{301}\u{301}x \u{301}1",
      "fn main() {\n    let x = vec![1, 2, 3];\n}\n",
      "{\"key\": [1.5, -2e10, null], \"path\": \"/usr/bin//\"}\n",
      "中文文本，日本語のテキスト。한국어 텍스트! 😀👍🏽",
      "'s 'S 'ſ 'T 're 'RE 'Ve 'm 'LL 'lL 'd 'x '",
      "   ",
      "\r",
      "a\r\n\r\n b \n",
      "x/\n//\r\n",
      "12345678901234",
    ] {
      assert_same_pieces(text);
    }
  }

  #[test]
  fn segments_of_long_strings_split_where_pieces_end() {
    // Lines of every kind around the cut points: punctuation with trailing \r\n or '/', white space
    // runs ending in \n, CRLF, words, digits, CJK, indented code.
    let lines = [
      "fn main() {",
      "    let x = 1;",
      "}",
      "",
      "  ",
      "# Title",
      "- item's",
      "12345 apples",
      "x.\r",
      "y/",
      "中文行",
      "\tindented",
      "'quoted'",
      "END",
      ".",
      "a  ",
      "ZZZ top",
      "9",
      " \u{a0}",
    ];
    let mut text = String::new();
    let mut k = 0usize;
    while text.len() < 300_000 {
      text.push_str(lines[k % lines.len()]);
      text.push_str(if k.is_multiple_of(7) { "\r\n" } else { "\n" });
      k = k * 31 + 17;
      k %= 1_000_003;
    }
    let segs = segments(&text);
    assert!(segs.len() > 5, "cut into segments");
    assert_eq!(segs.concat(), text);
    for name in ["o200k_base", "cl100k_base"] {
      let whole: Vec<&str> = pieces(name, &text).collect();
      let cut: Vec<&str> = segs.iter().flat_map(|s| pieces(name, s)).collect();
      assert_eq!(whole, cut, "{name} pieces of the segments");
    }
  }

  #[test]
  fn pack_at_equals_pack() {
    let text = "héllo, wörld! 0123456789abcdefghijklmnop 中文 😀";
    let b = text.as_bytes();
    for s in 0..b.len() {
      for e in s + 1..=b.len() {
        assert_eq!(pack_at(b, s, e), pack(&b[s..e]), "{s}..{e}");
      }
    }
  }

  #[test]
  fn ascii_table_agrees_with_unicode_tables() {
    let c = Classes::build();
    for b in 0u32..128 {
      assert_eq!(ASCII[b as usize], c.of(b), "class of {b:#x}");
    }
  }

  #[test]
  fn contraction_letters_fold_as_the_regex_does() {
    // Every code point the regex's case-insensitive class accepts for each contraction letter.
    for (letter, expected) in [
      ('s', vec!['S', 's', 'ſ']),
      ('t', vec!['T', 't']),
      ('r', vec!['R', 'r']),
      ('e', vec!['E', 'e']),
      ('v', vec!['V', 'v']),
      ('m', vec!['M', 'm']),
      ('l', vec!['L', 'l']),
      ('d', vec!['D', 'd']),
    ] {
      let mut got: Vec<char> = Vec::new();
      for (a, b) in class_ranges(&format!("(?i:[{letter}])")) {
        got.extend((a..=b).filter_map(char::from_u32));
      }
      got.sort_unstable();
      let mut expected = expected;
      expected.sort_unstable();
      assert_eq!(got, expected, "case folds of {letter}");
    }
  }
}
