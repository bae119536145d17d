//! Differential test: `Encoding::count` (our pre-tokenizer + rank lookups + piece cache) must equal
//! plain tiktoken-rs `encode_ordinary(text).len()` (`Encoding::count_reference`) on every string.

// Generated text sizes are small: casts between integer widths cannot truncate.
#![allow(clippy::cast_possible_truncation)]

use context_editor_core::Encoding;
use proptest::prelude::*;

const FAST: [Encoding; 3] = [
  Encoding::O200kBase,
  Encoding::O200kHarmony,
  Encoding::Cl100kBase,
];

fn assert_equal_counts(text: &str) {
  for enc in FAST {
    assert_eq!(
      enc.count(text),
      enc.count_reference(text),
      "{} count of {text:?}",
      enc.as_str()
    );
  }
}

/// Fragments on the edges of the patterns and of BPE: contractions in both cases (and `ſ`),
/// digit runs, CJK, Hangul, Thai, Arabic with marks, emoji with modifiers and ZWJ, combining marks,
/// \r\n mixes, exotic white space, lone punctuation, code and JSON, special-token text.
const FRAGMENTS: &[&str] = &[
  "a",
  "Z",
  "the",
  " the",
  "The",
  "HTTP",
  "Server",
  "'s",
  "'S",
  "'ſ",
  "'t",
  "'T",
  "'re",
  "'RE",
  "'Re",
  "'ve",
  "'VE",
  "'m",
  "'M",
  "'ll",
  "'LL",
  "'lL",
  "'d",
  "'D",
  "'",
  "''",
  "don't",
  "I'M",
  "0",
  "7",
  "42",
  "123",
  "2024",
  "3.14159",
  "1,000,000",
  "٣٤٥",
  "Ⅻ",
  "½",
  "中",
  "文本",
  "日本語",
  "ー",
  "한국어",
  "ภาษาไทย",
  "العربية",
  "\u{64b}",
  "é",
  "e\u{301}",
  "\u{301}",
  "\u{20dd}",
  "ǅ",
  "ʰ",
  "😀",
  "👍🏽",
  "👨\u{200d}👩\u{200d}👧",
  "\u{200d}",
  "ß",
  "İ",
  "ﬀ",
  "Ω",
  "\u{1d400}",
  "\u{10428}",
  "\u{e000}",
  "\u{fffd}",
  " ",
  "  ",
  "    ",
  "\t",
  "\n",
  "\n\n",
  "\r",
  "\r\n",
  "\r\n\r\n",
  "\u{a0}",
  "\u{3000}",
  "\u{85}",
  "\u{2028}",
  "\u{b}",
  "\u{c}",
  "\u{0}",
  "\u{1f}",
  ".",
  ",",
  "!",
  "?",
  "/",
  "//",
  "-",
  "--",
  "->",
  "=>",
  "\"",
  "{",
  "}",
  "[",
  "]",
  "(",
  ")",
  "_",
  "$",
  "#",
  "@",
  "*",
  "`",
  "```",
  "<|endoftext|>",
  "<|im_start|>",
  "fn main() {",
  "let x = vec![1, 2, 3];",
  "{\"key\": \"value\"}",
  "https://example.com/a/b?c=d",
  "C:\\Users\\x",
  "€",
  "£",
  "±",
  "→",
];

fn fragments() -> impl Strategy<Value = String> {
  prop::collection::vec(prop::sample::select(FRAGMENTS), 0..48).prop_map(|v| v.concat())
}

proptest! {
  #![proptest_config(ProptestConfig::with_cases(1500))]
  #[test]
  fn counts_equal_tiktoken_on_fragment_mixes(text in fragments()) {
    assert_equal_counts(&text);
  }

  #[test]
  fn counts_equal_tiktoken_on_any_unicode(text in "\\PC{0,40}") {
    assert_equal_counts(&text);
  }

  #[test]
  fn counts_equal_tiktoken_on_ascii_soup(text in "[ -~\t\n\r]{0,200}") {
    assert_equal_counts(&text);
  }
}

#[test]
fn counts_equal_tiktoken_on_long_pieces() {
  // Pieces of 100 bytes or more go through the heap-based merge; the piece cache must not mix up
  // pieces that share a prefix.
  let mut texts = vec![
    "a".repeat(1000),
    "ab".repeat(700),
    format!(" {}", "x".repeat(150)),
    "supercalifragilisticexpialidocious".repeat(20),
    "中文".repeat(200),
    "日本語のテキストです".repeat(30),
    "😀".repeat(100),
    "e\u{301}".repeat(120),
    "1234567890".repeat(50),
    "!@#$%^&*()".repeat(40),
    " ".repeat(500),
    "\n".repeat(300),
    " \r\n".repeat(100),
    format!("{}x", " ".repeat(300)),
    "QUITE LOUD TEXT ".repeat(40),
  ];
  // A base64-like blob and a long identifier soup, deterministic.
  let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
  let mut next = move || {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    seed
  };
  let b64: Vec<u8> = (0..4000)
    .map(|_| {
      b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(next() % 64) as usize]
    })
    .collect();
  texts.push(String::from_utf8(b64).unwrap());
  for t in &texts {
    assert_equal_counts(t);
  }
}

#[test]
fn counts_equal_tiktoken_on_samples() {
  for text in [
    "",
    "hello world",
    "The quick brown fox jumps over the lazy dog.",
    "你好，世界",
    "It's the CEO's call; they're sure we'll win, I'd say. DON'T PANIC!",
    "fn main() {\n    println!(\"{}\", 1 + 2);\n}\n\n",
    "{\"id\": 17, \"tags\": [\"a\", \"b\"], \"ok\": true}\r\n",
    "trailing spaces   ",
    "trailing newline\n",
    "   leading",
    "tab\tseparated\tvalues\n1\t2\t3",
    "mixed\r\n\r\nline\rendings\n\r",
    "Ünïcödé wörds ànd ĆĄPŚ",
    "Ελληνικά και Русский текст",
    "2024-01-01T12:00:00Z 1234567 3.14e-10",
  ] {
    assert_equal_counts(text);
  }
}

#[test]
fn batch_counts_equal_tiktoken_across_threads() {
  // More than 256 KB in total, so `count_many` splits the batch across threads and each worker's
  // piece cache (with its direct-mapped front table) sees thousands of distinct pieces.
  let mut seed = 0x2545_f491_4f6c_dd1d_u64;
  let mut next = move |n: usize| {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    (seed % n as u64) as usize
  };
  let mut texts: Vec<String> = Vec::new();
  let mut total = 0;
  while total < 700_000 {
    let mut t = String::new();
    let parts = 1 + next(400);
    for _ in 0..parts {
      if next(3) == 0 {
        // A random lowercase/uppercase word: thousands of distinct pieces, many not one token.
        let len = 1 + next(12);
        for _ in 0..len {
          let c = (b'a' + next(26) as u8) as char;
          t.push(if next(5) == 0 {
            c.to_ascii_uppercase()
          } else {
            c
          });
        }
      } else {
        t.push_str(FRAGMENTS[next(FRAGMENTS.len())]);
      }
      if next(2) == 0 {
        t.push(' ');
      }
    }
    total += t.len();
    texts.push(t);
  }
  texts.push(String::new());
  let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
  for enc in FAST {
    let counts = enc.count_many(&refs);
    for (t, n) in refs.iter().zip(&counts) {
      assert_eq!(
        *n,
        enc.count_reference(t),
        "{} batch count of {t:?}",
        enc.as_str()
      );
    }
    // As background work (asynchronous calls): only lower-priority workers count, the same counts.
    assert_eq!(
      context_editor_core::in_background(|| enc.count_many(&refs)),
      counts,
      "{} batch counted in the background",
      enc.as_str()
    );
  }
  // One long multi-line string, counted in segments by several threads.
  let long: String = refs
    .iter()
    .take(400)
    .flat_map(|t| [*t, "\n"])
    .collect::<String>();
  assert!(
    long.len() > 300_000,
    "above the parallel and split thresholds"
  );
  for enc in FAST {
    assert_eq!(
      enc.count_many(&[long.as_str()]),
      vec![enc.count_reference(&long)],
      "{} count of one long string",
      enc.as_str()
    );
  }
  // Encodings without a hand-written pattern fall back to tiktoken-rs itself.
  let few = &refs[..20];
  assert_eq!(
    Encoding::P50kBase.count_many(few),
    few
      .iter()
      .map(|t| Encoding::P50kBase.count_reference(t))
      .collect::<Vec<_>>()
  );
}
