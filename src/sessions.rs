//! The session methods of `NativeContextEditor`: conversations the editor holds between calls, so
//! that a call sends and counts only what is new (`planSession`, `countSession`, `countHeld`,
//! `appendSession`). Each converts its arguments on the calling thread, as the rest of the class
//! does (src/editor.rs), then runs one function of this module there or on the thread pool.

use std::sync::Arc;

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::columns::Columns;
use crate::editor::{packed_to_js, parse_wire_json, same, NativeContextEditor};
use crate::error::{to_js_error, CoreResult};
use crate::message::{self, EditContext, Message};
use crate::packed::{self, Packed, PackedPlan};
use crate::report::TokenCountResult;
use crate::{guarded, input, Background};

/// The arguments of a session call: session, messages reused, the new tail.
type SessionArgs = (u32, u32, Tail);

fn session_args(
  env: &Env,
  session: Unknown<'_>,
  reuse: Unknown<'_>,
  tail: Either<String, Unknown<'_>>,
) -> Result<SessionArgs> {
  let session = input::index_from_js(env, session, "session")?;
  let reuse = input::index_from_js(env, reuse, "reuse")?;
  let tail = match tail {
    Either::A(json) => Tail::Json(json),
    Either::B(value) => Tail::Wire(input::messages_from_js(env, value, reuse as usize)?),
  };
  Ok((session, reuse, tail))
}

/// The arguments of a session call whose tail is columns.
fn session_columns(
  env: &Env,
  session: Unknown<'_>,
  reuse: Unknown<'_>,
  columns: Unknown<'_>,
) -> Result<SessionArgs> {
  let session = input::index_from_js(env, session, "session")?;
  let reuse = input::index_from_js(env, reuse, "reuse")?;
  let tail = Tail::Columns(input::columns_from_js(env, columns)?);
  Ok((session, reuse, tail))
}

#[napi]
impl NativeContextEditor {
  /// Plans a conversation seen before, sending only what is new: the first `reuse` messages are
  /// those session `session` held after its previous call (already converted and measured) and
  /// `tail` (wire messages, as an array or as one JSON string) follows them. Returns the plan as
  /// a `PackedPlan`, or `null` on a miss (unknown or evicted session, or fewer than `reuse` messages
  /// held): send the whole conversation with `reuse` 0, which always succeeds. Never run two calls
  /// on one session at once. The package's `ContextEditor` does all this for you.
  ///
  /// @throws {Error} with `code` `INVALID_MESSAGE` (`messageIndex` counts from the start of the
  /// conversation; the session is dropped) or `INVALID_CONTEXT`.
  #[napi]
  pub fn plan_session(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "string | Array<Message>")] tail: Either<String, Unknown<'_>>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<Option<PackedPlan>> {
    let args = session_args(&env, session, reuse, tail)?;
    let context = input::context_from_js(&env, context)?;
    let packed = plan_session(&self.inner, args, context).map_err(|e| to_js_error(&env, &e))?;
    packed_to_js(&env, packed)
  }

  /// `planSession` with the counting and planning on the libuv thread pool (the tail is copied on
  /// the calling thread: send a long history in pieces with `appendSession`).
  #[napi(ts_return_type = "Promise<PackedPlan | null>")]
  pub fn plan_session_async(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "string | Array<Message>")] tail: Either<String, Unknown<'_>>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<AsyncTask<Background<Option<Packed>, Option<PackedPlan>>>> {
    let args = session_args(&env, session, reuse, tail)?;
    let context = input::context_from_js(&env, context)?;
    let editor = Arc::clone(&self.inner);
    Ok(Background::task(
      move || plan_session(&editor, args, context),
      packed_to_js,
    ))
  }

  /// `planSession` with the tail as columns (`WireColumns`, see `planColumns`).
  ///
  /// @throws {Error} as `planSession`.
  #[napi]
  pub fn plan_session_columns(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "WireColumns")] columns: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<Option<PackedPlan>> {
    let args = session_columns(&env, session, reuse, columns)?;
    let context = input::context_from_js(&env, context)?;
    let packed = plan_session(&self.inner, args, context).map_err(|e| to_js_error(&env, &e))?;
    packed_to_js(&env, packed)
  }

  /// `planSessionColumns` with the counting and planning on the libuv thread pool.
  #[napi(ts_return_type = "Promise<PackedPlan | null>")]
  pub fn plan_session_columns_async(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "WireColumns")] columns: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<AsyncTask<Background<Option<Packed>, Option<PackedPlan>>>> {
    let args = session_columns(&env, session, reuse, columns)?;
    let context = input::context_from_js(&env, context)?;
    let editor = Arc::clone(&self.inner);
    Ok(Background::task(
      move || plan_session(&editor, args, context),
      packed_to_js,
    ))
  }

  /// Counts a conversation a session holds, sending only what is new: the first `reuse` messages
  /// are all those session `session` holds (converted and measured by its plans), and `tail` (wire
  /// messages, as an array or as one JSON string) follows them. Only `tail` is measured; the
  /// session is left as it was, so the next `planSession` continues from what it held. Returns the
  /// count `countTokens` gives for the whole conversation, or `null` on a miss (unknown or evicted
  /// session, another number of messages held than `reuse`, or counted another way): then count
  /// the whole conversation. Never run it while another call is on the session.
  ///
  /// @throws {Error} with `code` `INVALID_MESSAGE` (`messageIndex` counts from the start of the
  /// conversation) or `INVALID_CONTEXT`, as `countTokens`; the session stays as it was.
  #[napi]
  pub fn count_session(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "string | Array<Message>")] tail: Either<String, Unknown<'_>>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<Option<TokenCountResult>> {
    let args = session_args(&env, session, reuse, tail)?;
    let context = input::context_from_js(&env, context)?;
    count_session(&self.inner, args, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `countSession` with the tail as columns (`WireColumns`, see `planColumns`).
  ///
  /// @throws {Error} as `countSession`.
  #[napi]
  pub fn count_session_columns(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "WireColumns")] columns: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<Option<TokenCountResult>> {
    let args = session_columns(&env, session, reuse, columns)?;
    let context = input::context_from_js(&env, context)?;
    count_session(&self.inner, args, context).map_err(|e| to_js_error(&env, &e))
  }

  /// Counts a conversation through session `session`, which then holds it: the first `reuse`
  /// messages are those the session holds (`reuse` 0 starts it afresh) and `tail` (wire
  /// messages, as an array or as one JSON string) follows them. Only what the session has not
  /// measured is measured. Returns the count `countTokens` gives for the whole conversation, or
  /// `null` on a miss (`reuse` above 0 and the session unknown, evicted or shorter than `reuse`):
  /// count again with `reuse` 0, which always succeeds. Unlike `countSession`, the count moves the
  /// conversation on: the next `countHeld` or `planSession` continues from it. Never run two calls
  /// on one session at once.
  ///
  /// @throws {Error} with `code` `INVALID_MESSAGE` (`messageIndex` counts from the start of the
  /// conversation) or `INVALID_CONTEXT`, as `countTokens`; the session stays as it was.
  #[napi]
  pub fn count_held(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "string | Array<Message>")] tail: Either<String, Unknown<'_>>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<Option<TokenCountResult>> {
    let args = session_args(&env, session, reuse, tail)?;
    let context = input::context_from_js(&env, context)?;
    count_held(&self.inner, args, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `countHeld` on the libuv thread pool (the tail is copied on the calling thread).
  #[napi(ts_return_type = "Promise<TokenCountResult | null>")]
  pub fn count_held_async(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "string | Array<Message>")] tail: Either<String, Unknown<'_>>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<AsyncTask<Background<Option<TokenCountResult>, Option<TokenCountResult>>>> {
    let args = session_args(&env, session, reuse, tail)?;
    let context = input::context_from_js(&env, context)?;
    let editor = Arc::clone(&self.inner);
    Ok(Background::task(
      move || count_held(&editor, args, context),
      same,
    ))
  }

  /// `countHeld` with the tail as columns (`WireColumns`, see `planColumns`).
  ///
  /// @throws {Error} as `countHeld`.
  #[napi]
  pub fn count_held_columns(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "WireColumns")] columns: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<Option<TokenCountResult>> {
    let args = session_columns(&env, session, reuse, columns)?;
    let context = input::context_from_js(&env, context)?;
    count_held(&self.inner, args, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `countHeldColumns` on the libuv thread pool (the columns are copied on the calling thread).
  #[napi(ts_return_type = "Promise<TokenCountResult | null>")]
  pub fn count_held_columns_async(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "WireColumns")] columns: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<AsyncTask<Background<Option<TokenCountResult>, Option<TokenCountResult>>>> {
    let args = session_columns(&env, session, reuse, columns)?;
    let context = input::context_from_js(&env, context)?;
    let editor = Arc::clone(&self.inner);
    Ok(Background::task(
      move || count_held(&editor, args, context),
      same,
    ))
  }

  /// `appendSession` with the tail as columns.
  ///
  /// @throws {Error} as `appendSession`.
  #[napi]
  pub fn append_session_columns(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "WireColumns")] columns: Unknown<'_>,
  ) -> Result<bool> {
    let args = session_columns(&env, session, reuse, columns)?;
    append(&self.inner, args).map_err(|e| to_js_error(&env, &e))
  }

  /// Adds `tail` to session `session` after its first `reuse` messages, without planning (nor
  /// counting: that happens in the next `planSession`). Returns `false` on a miss.
  ///
  /// @throws {Error} with `code` `INVALID_MESSAGE`, as `planSession`.
  #[napi]
  pub fn append_session(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "string | Array<Message>")] tail: Either<String, Unknown<'_>>,
  ) -> Result<bool> {
    let args = session_args(&env, session, reuse, tail)?;
    append(&self.inner, args).map_err(|e| to_js_error(&env, &e))
  }

  /// Forgets session `session` (a no-op when unknown).
  #[napi]
  pub fn drop_session(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
  ) -> Result<()> {
    let session = input::index_from_js(&env, session, "session")?;
    self.inner.drop_session(u64::from(session));
    Ok(())
  }

  /// Number of sessions held (at most 64; least recently used go first).
  #[napi(getter)]
  pub fn session_count(&self) -> u32 {
    u32::try_from(self.inner.session_count()).unwrap_or(u32::MAX)
  }
}

/// New messages for a session: JSON text (parsed off the event loop when async), wire objects or
/// columns (both converted on the calling thread, built into the core's messages where they run).
pub enum Tail {
  Json(String),
  Wire(Vec<Message>),
  Columns(Columns),
}

impl Tail {
  fn into_core(self, offset: usize) -> CoreResult<Vec<core::Message>> {
    match self {
      Self::Json(text) => parse_wire_json(&text),
      Self::Wire(messages) => message::messages_from_wire(messages, offset),
      Self::Columns(columns) => columns.into_core(offset),
    }
  }
}

fn append(editor: &core::ContextEditor, (session, reuse, tail): SessionArgs) -> CoreResult<bool> {
  guarded(|| {
    let tail = tail.into_core(reuse as usize)?;
    editor.append_session(u64::from(session), reuse as usize, tail)
  })
}

fn count_session(
  editor: &core::ContextEditor,
  (session, reuse, tail): SessionArgs,
  context: Option<EditContext>,
) -> CoreResult<Option<TokenCountResult>> {
  guarded(|| {
    let tail = tail.into_core(reuse as usize)?;
    let context = message::context_from_wire(context)?;
    editor
      .count_session(u64::from(session), reuse as usize, tail, &context)
      .map(|c| c.map(TokenCountResult::from))
  })
}

fn count_held(
  editor: &core::ContextEditor,
  (session, reuse, tail): SessionArgs,
  context: Option<EditContext>,
) -> CoreResult<Option<TokenCountResult>> {
  guarded(|| {
    let tail = tail.into_core(reuse as usize)?;
    let context = message::context_from_wire(context)?;
    editor
      .count_held(u64::from(session), reuse as usize, tail, &context)
      .map(|c| c.map(TokenCountResult::from))
  })
}

fn plan_session(
  editor: &core::ContextEditor,
  (session, reuse, tail): SessionArgs,
  context: Option<EditContext>,
) -> CoreResult<Option<Packed>> {
  guarded(|| {
    let tail = tail.into_core(reuse as usize)?;
    let context = message::context_from_wire(context)?;
    let Some(plan) = editor.plan_session(u64::from(session), reuse as usize, tail, &context)?
    else {
      return Ok(None);
    };
    packed::pack(plan).map(Some)
  })
}
