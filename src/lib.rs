//! Node.js binding of `context-editor-core`: the `NativeContextEditor` class and its plain-data wire
//! types. Thin by design: convert, call the core, convert back. The public, message-shape-aware
//! `ContextEditor` lives in the TypeScript shim (`ts/editor.ts`).
//!
//! - `columns`: wire messages as columns (lengths-only conversations, no JSON).
//! - `input`: JavaScript arguments to wire values, with errors naming the culprit (`code`, `path`,
//!   `messageIndex`); `message`: wire messages and context to the core's types, checked.
//! - `editor`: `NativeContextEditor`. Each method has a synchronous form (`plan`) and one on the
//!   libuv thread pool (`planAsync`), which both run the same function; the pool's side is the one
//!   generic `Background` task below.
//! - `plan`, `report`: the core's plan and report in wire form; `packed`: the plan of a session
//!   call, packed to cross cheaply.
//! - `tokenizers`: Hugging Face tokenizers the shim loads for exact counts of open models.
//! - `text`: the lone-surrogate check of long strings (the shim's own helper, not in the public types).
//! - `error`: core errors to JavaScript errors; `hooks`: test hooks (not in the public types);
//!   `wasi`: what the WebAssembly build needs to behave as the native one; `wire`: option types.

pub mod arena;
mod columns;
mod editor;
mod error;
pub mod hooks;
mod input;
mod message;
mod numbers;
mod packed;
mod plan;
mod report;
mod sessions;
mod shim_function;
pub mod text;
pub mod tokenizers;
pub mod wasi;
pub mod wire;

use std::panic::{catch_unwind, AssertUnwindSafe};

use context_editor_core as core;
use napi::bindgen_prelude::*;

use crate::error::{to_js_error, CoreResult};
/// Registered with Node by `#[napi]`; named here so that the compiler sees them used.
pub use crate::input::set_prototype_check;
pub use crate::numbers::set_number_list;

/// mimalloc for the native side: planning a long history allocates and frees a few large buffers
/// and many small strings per call; with glibc's malloc that took more than half of a plan. Not on
/// WebAssembly, where the C library cannot be built without a WASI sysroot.
#[cfg(not(target_family = "wasm"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// On WebAssembly, the C library's allocator (dlmalloc, one lock) with a cache of small blocks per
/// thread in front of it, so that counting threads do not wait on each other (crates/alloc).
#[cfg(target_family = "wasm")]
#[global_allocator]
static GLOBAL: context_editor_alloc::ThreadCached = context_editor_alloc::ThreadCached;

/// Runs `f`, turning a panic into an `INTERNAL` error so that no Rust panic ever reaches Node.
fn guarded<T>(f: impl FnOnce() -> CoreResult<T>) -> CoreResult<T> {
  catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
    let what = payload
      .downcast_ref::<&str>()
      .map(|s| (*s).to_owned())
      .or_else(|| payload.downcast_ref::<String>().cloned())
      .unwrap_or_else(|| "unknown panic".to_owned());
    Err(core::Error::internal(format!(
      "context-editor panicked: {what} (please report this bug)"
    )))
  })
}

fn to_json(what: &str, value: &impl serde::Serialize) -> CoreResult<String> {
  serde_json::to_string(value)
    .map_err(|e| core::Error::internal(format!("serializing the {what}: {e}")))
}

/// The asynchronous form of every method: `run` on a thread of the libuv pool (at background
/// priority, see `core::in_background`), then `finish` on the event loop to make the JavaScript
/// value. The arguments were converted on the calling thread before (napi values cannot leave it).
pub struct Background<T, J> {
  run: Option<Box<dyn FnOnce() -> CoreResult<T> + Send>>,
  finish: fn(&Env, T) -> Result<J>,
}

impl<T, J> Background<T, J> {
  fn task(
    run: impl FnOnce() -> CoreResult<T> + Send + 'static,
    finish: fn(&Env, T) -> Result<J>,
  ) -> AsyncTask<Self>
  where
    Self: Task,
  {
    AsyncTask::new(Self {
      run: Some(Box::new(run)),
      finish,
    })
  }
}

impl<T: Send + 'static, J: ToNapiValue + TypeName> Task for Background<T, J> {
  type Output = CoreResult<T>;
  type JsValue = J;

  fn compute(&mut self) -> Result<Self::Output> {
    let run = self
      .run
      .take()
      .ok_or_else(|| Error::from_reason("an asynchronous task ran twice"))?;
    Ok(core::in_background(run))
  }

  fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
    let value = output.map_err(|e| to_js_error(&env, &e))?;
    (self.finish)(&env, value)
  }
}
