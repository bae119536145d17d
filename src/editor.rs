//! `NativeContextEditor`: plans edits on wire messages.
//!
//! Every method converts its arguments on the calling thread (`input`), then runs one function of
//! this module, either there (`plan`) or on the thread pool (`planAsync`, a `Background` task).
//! Synchronous names are the plain ones, as on the package's `ContextEditor`.

use std::sync::Arc;

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::columns::Columns;
use crate::error::{to_js_error, CoreResult};
use crate::message::{self, EditContext, Message};
use crate::packed::{Packed, PackedPlan};
use crate::plan::EditPlan;
use crate::report::TokenCountResult;
use crate::{guarded, input, to_json, Background};

/// The native editor: plans edits on wire messages. Most users want the `ContextEditor` class of
/// the package entry, which accepts LangChain and OpenAI messages and applies the plan for you.
#[napi]
pub struct NativeContextEditor {
  pub(crate) inner: Arc<core::ContextEditor>,
}

/// Wire messages and the context, converted on the calling thread.
type Request = (Vec<Message>, Option<EditContext>);

fn request(env: &Env, messages: Unknown<'_>, context: Option<Unknown<'_>>) -> Result<Request> {
  Ok((
    input::messages_from_js(env, messages, 0)?,
    input::context_from_js(env, context)?,
  ))
}

/// The `finish` of a task whose value needs no environment (a `Background::finish` pointer).
#[allow(clippy::unnecessary_wraps)]
pub(crate) fn same<T>(_: &Env, value: T) -> Result<T> {
  Ok(value)
}

pub(crate) fn packed_to_js(env: &Env, packed: Option<Packed>) -> Result<Option<PackedPlan>> {
  packed.map(|p| p.into_js(env)).transpose()
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
  pub fn plan(
    &self,
    env: Env,
    #[napi(ts_arg_type = "Array<Message>")] messages: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<EditPlan> {
    let (messages, context) = request(&env, messages, context)?;
    plan(&self.inner, messages, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `plan` on the libuv thread pool, keeping the event loop free. Converting the messages still
  /// happens on the calling thread; for short histories `plan` is faster.
  #[napi(ts_return_type = "Promise<EditPlan>")]
  pub fn plan_async(
    &self,
    env: Env,
    #[napi(ts_arg_type = "Array<Message>")] messages: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<AsyncTask<Background<EditPlan, EditPlan>>> {
    let (messages, context) = request(&env, messages, context)?;
    let editor = Arc::clone(&self.inner);
    Ok(Background::task(
      move || plan(&editor, messages, context),
      same,
    ))
  }

  /// `plan` with the messages as one JSON string (`JSON.stringify` of wire messages) and the plan
  /// returned as JSON text: two string copies instead of one property read per field, which is
  /// what the package's `ContextEditor` uses when only lengths cross the boundary.
  ///
  /// @throws {Error} with `code` `INVALID_MESSAGE` when the JSON is not an array of wire messages.
  #[napi]
  pub fn plan_json(
    &self,
    env: Env,
    #[napi(ts_arg_type = "string")] messages_json: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<String> {
    let messages_json = input::json_text_from_js(&env, messages_json)?;
    let context = input::context_from_js(&env, context)?;
    plan_json(&self.inner, &messages_json, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `planJson` on the libuv thread pool: parsing, planning and serializing leave the event loop.
  #[napi(ts_return_type = "Promise<string>")]
  pub fn plan_json_async(
    &self,
    env: Env,
    #[napi(ts_arg_type = "string")] messages_json: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<AsyncTask<Background<String, String>>> {
    let messages_json = input::json_text_from_js(&env, messages_json)?;
    let context = input::context_from_js(&env, context)?;
    let editor = Arc::clone(&self.inner);
    Ok(Background::task(
      move || plan_json(&editor, &messages_json, context),
      same,
    ))
  }

  /// `planJson` with the messages as columns (`WireColumns`: typed arrays of lengths and flags,
  /// and their ids in one string) instead of JSON text: what the package's `ContextEditor` sends
  /// when only lengths cross the boundary. Same plan, same errors.
  ///
  /// @throws {Error} with `code` `INVALID_MESSAGE` when the columns do not fit together.
  #[napi]
  pub fn plan_columns(
    &self,
    env: Env,
    #[napi(ts_arg_type = "WireColumns")] columns: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<String> {
    let columns = input::columns_from_js(&env, columns)?;
    let context = input::context_from_js(&env, context)?;
    plan_columns(&self.inner, columns, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `planColumns` on the libuv thread pool (the columns are copied on the calling thread).
  #[napi(ts_return_type = "Promise<string>")]
  pub fn plan_columns_async(
    &self,
    env: Env,
    #[napi(ts_arg_type = "WireColumns")] columns: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<AsyncTask<Background<String, String>>> {
    let columns = input::columns_from_js(&env, columns)?;
    let context = input::context_from_js(&env, context)?;
    let editor = Arc::clone(&self.inner);
    Ok(Background::task(
      move || plan_columns(&editor, columns, context),
      same,
    ))
  }

  /// `countTokens` with the messages as columns (`WireColumns`, see `planColumns`): what the
  /// package's `ContextEditor` sends when only lengths cross the boundary. Same count, same errors.
  ///
  /// @throws {Error} with `code` `INVALID_MESSAGE` when the columns do not fit together.
  #[napi]
  pub fn count_tokens_columns(
    &self,
    env: Env,
    #[napi(ts_arg_type = "WireColumns")] columns: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<TokenCountResult> {
    let columns = input::columns_from_js(&env, columns)?;
    let context = input::context_from_js(&env, context)?;
    count_columns(&self.inner, columns, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `countTokensColumns` on the libuv thread pool (the columns are copied on the calling thread).
  #[napi(ts_return_type = "Promise<TokenCountResult>")]
  pub fn count_tokens_columns_async(
    &self,
    env: Env,
    #[napi(ts_arg_type = "WireColumns")] columns: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<AsyncTask<Background<TokenCountResult, TokenCountResult>>> {
    let columns = input::columns_from_js(&env, columns)?;
    let context = input::context_from_js(&env, context)?;
    let editor = Arc::clone(&self.inner);
    Ok(Background::task(
      move || count_columns(&editor, columns, context),
      same,
    ))
  }

  /// Counts the tokens of `messages` (wire form) with the editor's method and encoding.
  #[napi]
  pub fn count_tokens(
    &self,
    env: Env,
    #[napi(ts_arg_type = "Array<Message>")] messages: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<TokenCountResult> {
    let (messages, context) = request(&env, messages, context)?;
    count(&self.inner, messages, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `countTokens` on the libuv thread pool.
  #[napi(ts_return_type = "Promise<TokenCountResult>")]
  pub fn count_tokens_async(
    &self,
    env: Env,
    #[napi(ts_arg_type = "Array<Message>")] messages: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<AsyncTask<Background<TokenCountResult, TokenCountResult>>> {
    let (messages, context) = request(&env, messages, context)?;
    let editor = Arc::clone(&self.inner);
    Ok(Background::task(
      move || count(&editor, messages, context),
      same,
    ))
  }

  /// Number of entries in the token cache (model mode caches counts of long strings).
  #[napi(getter)]
  pub fn cache_size(&self) -> u32 {
    u32::try_from(self.inner.cache_len()).unwrap_or(u32::MAX)
  }

  /// Empties the token cache and forgets every session.
  #[napi]
  pub fn clear_cache(&self) {
    self.inner.clear_cache();
  }
}

pub(crate) fn parse_wire_json(text: &str) -> CoreResult<Vec<core::Message>> {
  serde_json::from_str(text)
    .map_err(|e| core::Error::invalid_messages(format!("not a JSON array of wire messages ({e})")))
}

fn plan(
  editor: &core::ContextEditor,
  messages: Vec<Message>,
  context: Option<EditContext>,
) -> CoreResult<EditPlan> {
  guarded(|| {
    let messages = message::messages_from_wire(messages, 0)?;
    let context = message::context_from_wire(context)?;
    editor.plan(&messages, &context).map(EditPlan::from)
  })
}

fn plan_json(
  editor: &core::ContextEditor,
  messages_json: &str,
  context: Option<EditContext>,
) -> CoreResult<String> {
  guarded(|| {
    let messages = parse_wire_json(messages_json)?;
    let context = message::context_from_wire(context)?;
    to_json("plan", &EditPlan::from(editor.plan(&messages, &context)?))
  })
}

fn plan_columns(
  editor: &core::ContextEditor,
  columns: Columns,
  context: Option<EditContext>,
) -> CoreResult<String> {
  guarded(|| {
    let messages = columns.into_core(0)?;
    let context = message::context_from_wire(context)?;
    to_json("plan", &EditPlan::from(editor.plan(&messages, &context)?))
  })
}

fn count(
  editor: &core::ContextEditor,
  messages: Vec<Message>,
  context: Option<EditContext>,
) -> CoreResult<TokenCountResult> {
  guarded(|| {
    let messages = message::messages_from_wire(messages, 0)?;
    let context = message::context_from_wire(context)?;
    editor
      .count_tokens(&messages, &context)
      .map(TokenCountResult::from)
  })
}

fn count_columns(
  editor: &core::ContextEditor,
  columns: Columns,
  context: Option<EditContext>,
) -> CoreResult<TokenCountResult> {
  guarded(|| {
    let messages = columns.into_core(0)?;
    let context = message::context_from_wire(context)?;
    editor
      .count_tokens(&messages, &context)
      .map(TokenCountResult::from)
  })
}
