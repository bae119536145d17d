//! Unit tests of the fast counter's parts: pieces against the regex, segments, packing, classes.

use std::sync::OnceLock;

use proptest::prelude::*;

use super::merge::{pack, pack_at};
use super::parallel::segments;
use super::pretokenize::{class_ranges, Classes, ASCII};
use super::{for_encoding, pieces, KeptPieces};
use crate::tokenizer::Encoding;

/// tiktoken-rs 0.12.1's `cl100k_base` pattern (not exported as a constant there).
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

/// Pieces of words and symbols for [`batch_texts`].
const BITS: &[&str] = &[
  " the",
  "ing",
  "Server",
  "'s",
  "2024",
  "3.14159",
  "中文本",
  "한국어",
  "😀",
  "!!",
  "...",
  "\n\n",
  "  ",
  "é",
  "{\"a\": 1}",
  " antidisestablishment",
  "ZZZZ",
  "qwertyuiop",
];

/// Texts for batches: random words (thousands of distinct pieces, many not one token, so merged),
/// digits, CJK and punctuation runs, and words each encoding splits its own way.
fn batch_texts(seed: u64, texts: usize) -> Vec<String> {
  let mut state = seed | 1;
  let mut next = move |n: usize| {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    usize::try_from(state % n as u64).unwrap_or(0)
  };
  (0..texts)
    .map(|_| {
      let mut t = String::new();
      for _ in 0..=next(60) {
        if next(2) == 0 {
          for _ in 0..=next(10) {
            let c = char::from(b'a' + u8::try_from(next(26)).unwrap_or(0));
            t.push(if next(6) == 0 {
              c.to_ascii_uppercase()
            } else {
              c
            });
          }
        } else {
          t.push_str(BITS[next(BITS.len())]);
        }
        if next(3) == 0 {
          t.push(' ');
        }
      }
      t
    })
    .collect()
}

#[test]
fn kept_pieces_give_the_counts_of_a_fresh_count() {
  // One editor's kept pieces through many small batches (counted on the calling thread), the
  // encodings taking turns: a batch must count as tiktoken-rs does whatever the batches before it
  // counted, in its encoding or another's (a piece can be one token in one and merge in another),
  // and after the kept pieces outgrow their bound and are dropped.
  let mut kept = KeptPieces::default();
  let encodings = [
    Encoding::O200kBase,
    Encoding::Cl100kBase,
    Encoding::O200kHarmony,
    Encoding::O200kBase,
  ];
  let (mut dropped, mut held) = (0, 0);
  for round in 0..40u64 {
    // Five rounds per encoding; the third and fifth count the texts of the round before again (all
    // their pieces kept), the others new texts.
    let turn = round / 5;
    let enc = encodings[usize::try_from(turn % 4).unwrap_or(0)];
    let fast = for_encoding(enc.as_str()).expect("a fast encoding");
    let texts = batch_texts(
      if round % 5 == 2 || round % 5 == 4 {
        round
      } else {
        round + 1
      },
      150,
    );
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let counts = fast.count_many_kept(&refs, &mut kept, enc.seed());
    for (t, n) in refs.iter().zip(&counts) {
      assert_eq!(
        *n,
        enc.count_reference(t),
        "{} count of {t:?} (round {round})",
        enc.as_str()
      );
    }
    // The kept pieces grow within an encoding's rounds until their bound drops them.
    assert!(kept.merged() <= 1 << 13, "{} pieces kept", kept.merged());
    if kept.merged() < held && round % 5 != 0 {
      dropped += 1;
    }
    held = kept.merged();
  }
  assert!(dropped > 0, "the kept pieces never reached their bound");
}
