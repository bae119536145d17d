//! Test and benchmark hooks. They are exported by the addon but not by the package's public types:
//! the shim reaches them through its internal module (`ts/internal.ts`), the tests through
//! `dist/internal.js`.

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{to_js_error, CoreResult};
use crate::guarded;

/// Panics inside the same guard every entry point uses, to prove a panic becomes an `Error` with
/// `code` `INTERNAL` instead of aborting the process.
///
/// # Panics
/// Never: the panic it forces is caught by `guarded`.
#[napi(js_name = "__panicForTests")]
pub fn panic_for_tests(env: Env) -> Result<()> {
  guarded(|| -> CoreResult<()> { panic!("forced panic for tests") })
    .map_err(|e| to_js_error(&env, &e))
}

/// Plain tiktoken-rs `encode_ordinary(text).len()` of each string, on the calling thread and
/// without any cache, the oracle the exact counter is compared with (see `benchmark/bench.mjs` and
/// `__test__/token-differential.spec.mjs`).
#[napi(js_name = "__referenceCountTokens")]
pub fn reference_count_tokens(texts: Vec<String>, encoding: String) -> Result<Vec<u32>> {
  let enc = core::Encoding::parse(&encoding)
    .ok_or_else(|| Error::from_reason(format!("unknown encoding {encoding:?}")))?;
  Ok(
    texts
      .iter()
      .map(|t| u32::try_from(enc.count_reference(t)).unwrap_or(u32::MAX))
      .collect(),
  )
}
