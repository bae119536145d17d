//! Node.js binding of `context-editor-core`: the `NativeContextEditor` class and its plain-data wire
//! types. Thin by design: convert, call the core, convert back. The public, message-shape-aware
//! `ContextEditor` lives in the TypeScript shim (`ts/editor.ts`).
#![deny(clippy::all)]
// napi passes owned values across the boundary, so taking `String`/`Vec` by value is the norm here.
#![allow(clippy::needless_pass_by_value)]

mod error;
mod input;
mod wire;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{to_js_error, CoreResult};
use crate::wire::{EditContext, EditPlan, Message, TokenCountResult};

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

/// The native editor: plans edits on wire messages. Most users want the `ContextEditor` class of
/// the package entry, which accepts LangChain and OpenAI messages and applies the plan for you.
#[napi]
pub struct NativeContextEditor {
  inner: Arc<core::ContextEditor>,
}

#[napi]
impl NativeContextEditor {
  /// Creates an editor. `options` use the LangChain/Xpert names (`trigger`, `keep`, `excludeTools`,
  /// `placeholder`, `clearToolInputs`, `clearAtLeast`, `tokenCountMethod`, `model`, `encoding`,
  /// `tokenCacheSize`, `edits`).
  ///
  /// @throws {Error} with `code` `INVALID_OPTIONS` or `UNKNOWN_ENCODING` and a message naming the option path.
  #[napi(constructor)]
  pub fn new(
    env: Env,
    #[napi(ts_arg_type = "EditorOptions | null | undefined")] options: Option<Unknown<'_>>,
  ) -> Result<Self> {
    let value = input::options_from_js(&env, options)?;
    guarded(|| core::ContextEditor::from_json(&value))
      .map(|inner| Self {
        inner: Arc::new(inner),
      })
      .map_err(|e| to_js_error(&env, &e))
  }

  /// Plans the edits for `messages` (wire form) on the calling thread.
  ///
  /// @throws {Error} with `code` `INVALID_MESSAGE` (and `messageIndex`) or `INVALID_CONTEXT`.
  #[napi]
  pub fn plan_sync(
    &self,
    env: Env,
    #[napi(ts_arg_type = "Array<Message>")] messages: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | undefined | null")] context: Option<Unknown<'_>>,
  ) -> Result<EditPlan> {
    let messages = input::messages_from_js(&env, messages)?;
    let context = input::context_from_js(&env, context)?;
    plan_impl(&self.inner, messages, context).map_err(|e| to_js_error(&env, &e))
  }

  /// Plans the edits on the libuv thread pool, keeping the event loop free. Converting the messages
  /// still happens on the calling thread; for short histories `planSync` is faster.
  #[napi(ts_return_type = "Promise<EditPlan>")]
  pub fn plan(
    &self,
    env: Env,
    #[napi(ts_arg_type = "Array<Message>")] messages: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | undefined | null")] context: Option<Unknown<'_>>,
  ) -> Result<AsyncTask<PlanTask>> {
    let messages = input::messages_from_js(&env, messages)?;
    let context = input::context_from_js(&env, context)?;
    Ok(AsyncTask::new(PlanTask {
      editor: Arc::clone(&self.inner),
      input: Some((messages, context)),
    }))
  }

  /// `planSync` with the messages as one JSON string (`JSON.stringify` of wire messages) and the
  /// plan returned as JSON text: two string copies instead of one property read per field, which is
  /// what the package's `ContextEditor` uses when only lengths cross the boundary.
  ///
  /// @throws {Error} with `code` `INVALID_MESSAGE` when the JSON is not an array of wire messages.
  #[napi]
  pub fn plan_json_sync(
    &self,
    env: Env,
    messages_json: String,
    #[napi(ts_arg_type = "EditContext | undefined | null")] context: Option<Unknown<'_>>,
  ) -> Result<String> {
    let context = input::context_from_js(&env, context)?;
    plan_json_impl(&self.inner, &messages_json, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `planJsonSync` on the libuv thread pool: parsing, planning and serializing leave the event loop.
  #[napi(ts_return_type = "Promise<string>")]
  pub fn plan_json(
    &self,
    env: Env,
    messages_json: String,
    #[napi(ts_arg_type = "EditContext | undefined | null")] context: Option<Unknown<'_>>,
  ) -> Result<AsyncTask<PlanJsonTask>> {
    let context = input::context_from_js(&env, context)?;
    Ok(AsyncTask::new(PlanJsonTask {
      editor: Arc::clone(&self.inner),
      input: Some((messages_json, context)),
    }))
  }

  /// Counts the tokens of `messages` (wire form) with the editor's method and encoding.
  #[napi]
  pub fn count_tokens_sync(
    &self,
    env: Env,
    #[napi(ts_arg_type = "Array<Message>")] messages: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | undefined | null")] context: Option<Unknown<'_>>,
  ) -> Result<TokenCountResult> {
    let messages = input::messages_from_js(&env, messages)?;
    let context = input::context_from_js(&env, context)?;
    count_impl(&self.inner, messages, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `countTokensSync` on the libuv thread pool.
  #[napi(ts_return_type = "Promise<TokenCountResult>")]
  pub fn count_tokens(
    &self,
    env: Env,
    #[napi(ts_arg_type = "Array<Message>")] messages: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | undefined | null")] context: Option<Unknown<'_>>,
  ) -> Result<AsyncTask<CountTask>> {
    let messages = input::messages_from_js(&env, messages)?;
    let context = input::context_from_js(&env, context)?;
    Ok(AsyncTask::new(CountTask {
      editor: Arc::clone(&self.inner),
      input: Some((messages, context)),
    }))
  }

  /// Number of entries in the token cache (model mode caches counts of long strings).
  #[napi(getter)]
  pub fn cache_size(&self) -> u32 {
    u32::try_from(self.inner.cache_len()).unwrap_or(u32::MAX)
  }

  /// Empties the token cache.
  #[napi]
  pub fn clear_cache(&self) {
    self.inner.clear_cache();
  }
}

fn plan_impl(
  editor: &core::ContextEditor,
  messages: Vec<Message>,
  context: Option<EditContext>,
) -> CoreResult<EditPlan> {
  guarded(|| {
    let messages = wire::messages_from_wire(messages)?;
    let context = wire::context_from_wire(context)?;
    editor.plan(&messages, &context).map(EditPlan::from)
  })
}

fn count_impl(
  editor: &core::ContextEditor,
  messages: Vec<Message>,
  context: Option<EditContext>,
) -> CoreResult<TokenCountResult> {
  guarded(|| {
    let messages = wire::messages_from_wire(messages)?;
    let context = wire::context_from_wire(context)?;
    editor
      .count_tokens(&messages, &context)
      .map(TokenCountResult::from)
  })
}

fn plan_json_impl(
  editor: &core::ContextEditor,
  messages_json: &str,
  context: Option<EditContext>,
) -> CoreResult<String> {
  guarded(|| {
    let messages: Vec<core::Message> = serde_json::from_str(messages_json).map_err(|e| {
      core::Error::invalid_messages(format!("not a JSON array of wire messages ({e})"))
    })?;
    let context = wire::context_from_wire(context)?;
    let plan = editor.plan(&messages, &context).map(EditPlan::from)?;
    serde_json::to_string(&plan)
      .map_err(|e| core::Error::internal(format!("serializing the plan: {e}")))
  })
}

/// Async `planJson`.
pub struct PlanJsonTask {
  editor: Arc<core::ContextEditor>,
  input: Option<(String, Option<EditContext>)>,
}

impl Task for PlanJsonTask {
  type Output = CoreResult<String>;
  type JsValue = String;

  fn compute(&mut self) -> Result<Self::Output> {
    let (messages, context) = self.input.take().unwrap_or_default();
    Ok(plan_json_impl(&self.editor, &messages, context))
  }

  fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
    output.map_err(|e| to_js_error(&env, &e))
  }
}

/// Async `plan`.
pub struct PlanTask {
  editor: Arc<core::ContextEditor>,
  input: Option<(Vec<Message>, Option<EditContext>)>,
}

impl Task for PlanTask {
  type Output = CoreResult<EditPlan>;
  type JsValue = EditPlan;

  fn compute(&mut self) -> Result<Self::Output> {
    let (messages, context) = self.input.take().unwrap_or_default();
    Ok(plan_impl(&self.editor, messages, context))
  }

  fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
    output.map_err(|e| to_js_error(&env, &e))
  }
}

/// Async `countTokens`.
pub struct CountTask {
  editor: Arc<core::ContextEditor>,
  input: Option<(Vec<Message>, Option<EditContext>)>,
}

impl Task for CountTask {
  type Output = CoreResult<TokenCountResult>;
  type JsValue = TokenCountResult;

  fn compute(&mut self) -> Result<Self::Output> {
    let (messages, context) = self.input.take().unwrap_or_default();
    Ok(count_impl(&self.editor, messages, context))
  }

  fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
    output.map_err(|e| to_js_error(&env, &e))
  }
}

/// Test hook: panics inside the same guard every entry point uses, to prove a panic becomes an
/// `Error` with `code` `INTERNAL` instead of aborting the process. Not part of the public API.
#[napi(js_name = "__panicForTests")]
pub fn panic_for_tests(env: Env) -> Result<()> {
  guarded(|| -> CoreResult<()> { panic!("forced panic for tests") })
    .map_err(|e| to_js_error(&env, &e))
}
