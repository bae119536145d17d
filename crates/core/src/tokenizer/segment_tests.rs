use super::*;
use crate::tokenizer::hf;
use serde_json::{json, Value};
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::pre_tokenizers::split::Split;
use tokenizers::{OffsetReferential, OffsetType, PreTokenizedString, PreTokenizer};

#[test]
fn long_texts_are_cut_only_after_a_line_feed_before_a_word() {
  let line = "fn main() {\n    let x = \"日本語\";\n}\n\n  \n";
  let text = line.repeat(40_000);
  let parts: Vec<&str> = segments(&text).collect();
  assert!(parts.len() > 3, "{}", parts.len());
  assert_eq!(parts.concat(), text);
  for p in &parts[..parts.len() - 1] {
    assert!(
      p.ends_with('\n') && p.len() >= SEGMENT_BYTES,
      "{:?}",
      &p[p.len() - 5..]
    );
  }
  for w in parts.windows(2) {
    assert!(w[1].starts_with(char::is_alphanumeric));
  }
  // No place to cut (a line feed before white space or punctuation only): one segment.
  let flat = "word \n ".repeat(100_000);
  assert_eq!(segments(&flat).count(), 1);
  let comments = "};\n// a comment;\n".repeat(30_000);
  assert_eq!(segments(&comments).count(), 1);
  assert_eq!(segments("").count(), 0);
}

/// Texts of atoms that meet at every place a cut can fall: line breaks of every kind, white space
/// of every kind before and after them, letters of several scripts and cases, contractions, digits,
/// combining marks, punctuation, symbols, emoji. A seeded xorshift: the same texts every run.
fn texts(seed: u64, n: usize) -> Vec<String> {
  const ATOMS: [&str; 48] = [
    "\n",
    "\n",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    " ",
    "  ",
    "\t",
    "\u{a0}",
    "\u{3000}",
    "\u{85}",
    "\u{2028}",
    "a",
    "Hello",
    "WORLD",
    "mIxEd",
    "'s",
    "'LL",
    "'",
    "1",
    "123",
    "45678",
    "٣٤",
    "日本語",
    "ひらがな",
    "カタカナ",
    "中文",
    "한국어",
    "é",
    "e\u{301}",
    "\u{301}",
    ".",
    ",",
    "!!",
    "?",
    "/",
    "//",
    "{",
    "}",
    "\"",
    "`",
    "-",
    "_",
    "😀",
    "👍🏽",
    "\u{200b}",
    "\u{feff}",
  ];
  let mut x = seed | 1;
  let mut next = move || {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
  };
  (0..n)
    .map(|_| {
      let len = 20 + next() % 100;
      (0..len)
        .map(|_| ATOMS[usize::try_from(next() % ATOMS.len() as u64).unwrap_or(0)])
        .collect()
    })
    .collect()
}

fn pieces(p: &dyn PreTokenizer, text: &str) -> Vec<String> {
  let mut s = PreTokenizedString::from(text);
  p.pre_tokenize(&mut s).expect("pre-tokenizes");
  s.get_splits(OffsetReferential::Original, OffsetType::Byte)
    .into_iter()
    .map(|(piece, _, _)| piece.to_owned())
    .collect()
}

/// The first place in `texts` where a cut (after a line feed, before a character `starts`)
/// changes the pieces of `p`: the text and the cut.
fn first_difference(
  p: &dyn PreTokenizer,
  texts: &[String],
  starts: fn(char) -> bool,
) -> Option<(String, usize)> {
  for text in texts {
    let whole = pieces(p, text);
    for (i, _) in text.match_indices('\n') {
      let cut = i + 1;
      if !text[cut..].chars().next().is_some_and(starts) {
        continue;
      }
      let mut parts = pieces(p, &text[..cut]);
      parts.extend(pieces(p, &text[cut..]));
      if parts != whole {
        return Some((text.clone(), cut));
      }
    }
  }
  None
}

fn split(pattern: &str) -> Split {
  Split::new(
    SplitPattern::Regex(pattern.to_owned()),
    SplitDelimiterBehavior::Isolated,
    false,
  )
  .expect("a valid pattern")
}

fn byte_level(use_regex: bool) -> ByteLevel {
  ByteLevel::new(false, true, use_regex)
}

#[test]
fn every_listed_pattern_keeps_its_pieces_at_every_cut() {
  let corpus = texts(0x5eed, 400);
  for pattern in BOUNDARY_PATTERNS {
    let p = Sequence::new(vec![split(pattern).into(), byte_level(false).into()]);
    assert_eq!(
      first_difference(&p, &corpus, starts_segment),
      None,
      "{pattern}"
    );
    // With the neutral splits before it, as DeepSeek's file has them.
    let p = Sequence::new(vec![
      split(NEUTRAL_PATTERNS[0]).into(),
      split(NEUTRAL_PATTERNS[1]).into(),
      split(pattern).into(),
      byte_level(false).into(),
    ]);
    assert_eq!(
      first_difference(&p, &corpus, starts_segment),
      None,
      "{pattern} after the neutral splits"
    );
  }
}

#[test]
fn the_check_sees_what_changes_pieces() {
  let corpus = texts(0x5eed, 400);
  let seen = |p: &dyn PreTokenizer| first_difference(p, &corpus, starts_segment).is_some();
  // GPT-2's byte-level regex: "  \n" before a word is "  ", "\n"; at the end of a text, one piece.
  assert!(seen(&byte_level(true)));
  // A pattern whose pieces take the line feed with the word after it.
  assert!(seen(&split(r"\s*\S+")));
  // No split at all: the whole text is one piece.
  assert!(seen(&byte_level(false)));
  // Cut before any character but white space (the rule before), Mistral tekken's and o200k's
  // pieces change: ";\n//" is one piece.
  for pattern in [BOUNDARY_PATTERNS[2], BOUNDARY_PATTERNS[3]] {
    let p = Sequence::new(vec![split(pattern).into(), byte_level(false).into()]);
    assert!(
      first_difference(&p, &corpus, |c| !c.is_whitespace()).is_some(),
      "{pattern}"
    );
  }
}

/// A byte-level BPE `tokenizer.json` with `pre_tokenizer`, `added_tokens` and `merges` (pairs of
/// byte-level symbols; each merge's result joins the vocabulary).
fn byte_level_bpe(pre_tokenizer: &Value, added_tokens: &Value, merges: &[(&str, &str)]) -> Vec<u8> {
  let mut alphabet: Vec<char> = ByteLevel::alphabet().into_iter().collect();
  alphabet.sort_unstable();
  let mut vocab = serde_json::Map::new();
  for c in alphabet {
    vocab.insert(c.to_string(), json!(vocab.len()));
  }
  for (a, b) in merges {
    vocab.insert(format!("{a}{b}"), json!(vocab.len()));
  }
  for t in added_tokens.as_array().into_iter().flatten() {
    vocab.insert(t["content"].as_str().unwrap().to_owned(), t["id"].clone());
  }
  let merges: Vec<String> = merges.iter().map(|(a, b)| format!("{a} {b}")).collect();
  json!({
    "version": "1.0", "truncation": null, "padding": null, "added_tokens": added_tokens,
    "normalizer": { "type": "NFC" }, "pre_tokenizer": pre_tokenizer, "post_processor": null, "decoder": null,
    "model": { "type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": null, "end_of_word_suffix": null,
      "fuse_unk": false, "byte_fallback": false, "ignore_merges": false, "vocab": vocab, "merges": merges }
  })
  .to_string()
  .into_bytes()
}

fn split_json(pattern: &str) -> Value {
  json!({ "type": "Split", "pattern": { "Regex": pattern }, "behavior": "Isolated", "invert": false })
}

fn byte_level_json(use_regex: bool) -> Value {
  json!({ "type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": use_regex })
}

fn added(id: usize, content: &str, lstrip: bool) -> Value {
  json!({ "id": id, "content": content, "single_word": false, "lstrip": lstrip, "rstrip": false, "normalized": false, "special": true })
}

/// A name, a pre-tokenizer, added tokens, merges, a line and whether it is counted in segments.
type Case<'a> = (
  &'a str,
  Value,
  Value,
  Vec<(&'a str, &'a str)>,
  &'a str,
  bool,
);

#[test]
fn a_tokenizer_json_of_any_shape_counts_a_long_text_as_its_whole() {
  // Byte-level symbols: "Ġ" is a space, "Ċ" a line feed. Each case: the pre-tokenizer, added
  // tokens, merges and a line repeated past the segment size, so that every cut meets that line's end.
  let sequence = |p: Vec<Value>| json!({ "type": "Sequence", "pretokenizers": p });
  let cl100k = || split_json(BOUNDARY_PATTERNS[0]);
  let no_added = || json!([]);
  let cases: Vec<Case> = vec![
    // Segmented before, and off by a token at each cut: GPT-2's regex takes "  \n" whole at a segment's end.
    (
      "gpt-2 byte-level regex",
      byte_level_json(true),
      no_added(),
      vec![("Ġ", "Ġ"), ("ĠĠ", "Ċ")],
      "word and more words  \n",
      false,
    ),
    (
      "byte level without a split",
      sequence(vec![byte_level_json(false)]),
      no_added(),
      vec![("Ċ", "w")],
      "words.\n",
      false,
    ),
    (
      "a sequence of nothing",
      sequence(vec![]),
      no_added(),
      vec![("Ċ", "w")],
      "words.\n",
      false,
    ),
    (
      "an unlisted split",
      sequence(vec![split_json(r"\s*\S+"), byte_level_json(false)]),
      no_added(),
      vec![("Ċ", "m")],
      "more words\n",
      false,
    ),
    (
      "an added token stripping the line feed before it",
      sequence(vec![cl100k(), byte_level_json(false)]),
      json!([added(300, "<mask>", true)]),
      vec![],
      "<mask> words\n",
      false,
    ),
    (
      "an added token holding a line feed before a word",
      sequence(vec![cl100k(), byte_level_json(false)]),
      json!([added(300, "\nwo", false)]),
      vec![],
      "words\n",
      false,
    ),
    // Still segmented: GLM-4's shape (cl100k's split, byte level, special tokens).
    (
      "glm-4's shape",
      sequence(vec![cl100k(), byte_level_json(false)]),
      json!([added(300, "[gMASK]", false), added(301, "<|user|>", false)]),
      vec![("Ġ", "Ġ"), ("ĠĠ", "Ċ"), ("Ċ", "w")],
      "<|user|>\nword and more  \n",
      true,
    ),
  ];
  for (name, pre_tokenizer, added_tokens, merges, line, expected) in cases {
    let text = line.repeat(2 * SEGMENT_BYTES / line.len() + 1000);
    let source = format!("segment-test-{name}.json");
    let t = hf::load(
      &source,
      &byte_level_bpe(&pre_tokenizer, &added_tokens, &merges),
      None,
    )
    .expect(name);
    assert_eq!(t.counts_in_segments(), expected, "{name}");
    assert_eq!(
      t.count(&text),
      t.count_reference(&text),
      "{name}: the count of the whole text"
    );
  }
}

#[test]
fn added_tokens_are_checked_for_line_feeds_before_words() {
  assert!(line_feed_before_word("\nHuman:"));
  assert!(line_feed_before_word("a\n\nb"));
  assert!(!line_feed_before_word("\n"));
  assert!(!line_feed_before_word("\n\n"));
  assert!(!line_feed_before_word("x\n"));
  assert!(!line_feed_before_word("\n \t"));
  assert!(!line_feed_before_word("<|im_start|>"));
}
