//! Node.js binding of `context-editor-core`: the `NativeContextEditor` class and its plain-data wire
//! types. Thin by design: convert, call the core, convert back. The public, message-shape-aware
//! `ContextEditor` lives in the TypeScript shim (`ts/editor.ts`).
#![deny(clippy::all)]
// napi passes owned values across the boundary, so taking `String`/`Vec` by value is the norm here.
#![allow(clippy::needless_pass_by_value)]

mod error;
mod input;
mod message;
mod plan;
mod report;
pub mod wasi;
mod wire;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{to_js_error, CoreResult};
use crate::message::{EditContext, Message};
use crate::plan::EditPlan;
use crate::report::TokenCountResult;

/// mimalloc for the native side: planning a long history allocates and frees a few large buffers
/// and many small strings per call; with glibc's malloc that took more than half of a plan. Not on
/// WebAssembly, where the C library cannot be built without a WASI sysroot.
#[cfg(not(target_family = "wasm"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    let messages = input::messages_from_js(&env, messages, 0)?;
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
    let messages = input::messages_from_js(&env, messages, 0)?;
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
    #[napi(ts_arg_type = "string")] messages_json: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | undefined | null")] context: Option<Unknown<'_>>,
  ) -> Result<String> {
    let messages_json = input::json_text_from_js(&env, messages_json)?;
    let context = input::context_from_js(&env, context)?;
    plan_json_impl(&self.inner, &messages_json, context).map_err(|e| to_js_error(&env, &e))
  }

  /// `planJsonSync` on the libuv thread pool: parsing, planning and serializing leave the event loop.
  #[napi(ts_return_type = "Promise<string>")]
  pub fn plan_json(
    &self,
    env: Env,
    #[napi(ts_arg_type = "string")] messages_json: Unknown<'_>,
    #[napi(ts_arg_type = "EditContext | undefined | null")] context: Option<Unknown<'_>>,
  ) -> Result<AsyncTask<PlanJsonTask>> {
    let messages_json = input::json_text_from_js(&env, messages_json)?;
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
    let messages = input::messages_from_js(&env, messages, 0)?;
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
    let messages = input::messages_from_js(&env, messages, 0)?;
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

  /// Empties the token cache and forgets every session.
  #[napi]
  pub fn clear_cache(&self) {
    self.inner.clear_cache();
  }

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
  pub fn plan_session_sync(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "string | Array<Message>")] tail: Either<String, Unknown<'_>>,
    #[napi(ts_arg_type = "EditContext | undefined | null")] context: Option<Unknown<'_>>,
  ) -> Result<Option<PackedPlan>> {
    let session = input::index_from_js(&env, session, "session")?;
    let reuse = input::index_from_js(&env, reuse, "reuse")?;
    let tail = tail_from_js(&env, tail, reuse as usize)?;
    let context = input::context_from_js(&env, context)?;
    plan_session_impl(&self.inner, session, reuse, tail, context)
      .map_err(|e| to_js_error(&env, &e))?
      .map(|p| p.into_js(&env))
      .transpose()
  }

  /// `planSessionSync` with the counting and planning on the libuv thread pool (the tail is
  /// copied on the calling thread: send a long history in pieces with `appendSessionSync`).
  #[napi(ts_return_type = "Promise<PackedPlan | null>")]
  pub fn plan_session(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "string | Array<Message>")] tail: Either<String, Unknown<'_>>,
    #[napi(ts_arg_type = "EditContext | undefined | null")] context: Option<Unknown<'_>>,
  ) -> Result<AsyncTask<PlanSessionTask>> {
    let session = input::index_from_js(&env, session, "session")?;
    let reuse = input::index_from_js(&env, reuse, "reuse")?;
    let tail = tail_from_js(&env, tail, reuse as usize)?;
    let context = input::context_from_js(&env, context)?;
    Ok(AsyncTask::new(PlanSessionTask {
      editor: Arc::clone(&self.inner),
      input: Some((session, reuse, tail, context)),
    }))
  }

  /// Adds `tail` to session `session` after its first `reuse` messages, without planning (nor
  /// counting: that happens in the next `planSession`). Returns `false` on a miss.
  ///
  /// @throws {Error} with `code` `INVALID_MESSAGE`, as `planSessionSync`.
  #[napi]
  pub fn append_session_sync(
    &self,
    env: Env,
    #[napi(ts_arg_type = "number")] session: Unknown<'_>,
    #[napi(ts_arg_type = "number")] reuse: Unknown<'_>,
    #[napi(ts_arg_type = "string | Array<Message>")] tail: Either<String, Unknown<'_>>,
  ) -> Result<bool> {
    let session = input::index_from_js(&env, session, "session")?;
    let reuse = input::index_from_js(&env, reuse, "reuse")?;
    let tail = tail_from_js(&env, tail, reuse as usize)?;
    guarded(|| {
      let tail = tail.into_core(reuse as usize)?;
      self
        .inner
        .append_session(u64::from(session), reuse as usize, tail)
    })
    .map_err(|e| to_js_error(&env, &e))
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

/// New messages for a session: JSON text (parsed off the event loop when async) or wire objects.
pub enum Tail {
  Json(String),
  Wire(Vec<Message>),
}

impl Tail {
  fn into_core(self, offset: usize) -> CoreResult<Vec<core::Message>> {
    match self {
      Self::Json(text) => parse_wire_json(&text),
      Self::Wire(messages) => message::messages_from_wire(messages, offset),
    }
  }
}

fn tail_from_js(env: &Env, tail: Either<String, Unknown<'_>>, offset: usize) -> Result<Tail> {
  Ok(match tail {
    Either::A(json) => Tail::Json(json),
    Either::B(value) => Tail::Wire(input::messages_from_js(env, value, offset)?),
  })
}

fn parse_wire_json(text: &str) -> CoreResult<Vec<core::Message>> {
  serde_json::from_str(text)
    .map_err(|e| core::Error::invalid_messages(format!("not a JSON array of wire messages ({e})")))
}

fn plan_session_impl(
  editor: &core::ContextEditor,
  session: u32,
  reuse: u32,
  tail: Tail,
  context: Option<EditContext>,
) -> CoreResult<Option<Packed>> {
  guarded(|| {
    let tail = tail.into_core(reuse as usize)?;
    let context = message::context_from_wire(context)?;
    let Some(plan) = editor.plan_session(u64::from(session), reuse as usize, tail, &context)?
    else {
      return Ok(None);
    };
    pack(plan).map(Some)
  })
}

/// A plan in a form that is cheap to cross the boundary: the operations as numbers, the rest as
/// JSON text (the report is parsed only if it is read).
#[napi(object, object_from_js = false)]
pub struct PackedPlan {
  /// Four numbers per operation, `[kind, index, a, b]`: kind 0 `remove`, 1 `clear_tool_result`
  /// (`a`, `b`: its placeholder and strategy in `extra.strings`), 2 `remove_thinking`,
  /// 3 `cache_breakpoint`, 9 any other (`a`: its position in `extra.ops`).
  pub ops: Uint32Array,
  /// JSON text of `{ strings: string[], ops: PlanOp[], summary?: SummaryRequest }`.
  pub extra: String,
  /// The report, kept native until read (it lists every cleared result: building its text on
  /// every model call would cost more than planning).
  pub report: PackedReport,
}

/// The report of a `PackedPlan`, converted only when read. Its native size is reported to V8 as
/// external memory, so unread reports are collected as promptly as the strings they would have been.
#[napi(custom_finalize)]
pub struct PackedReport {
  report: Option<core::Report>,
  /// Bytes announced to V8 (given back when read or finalized).
  bytes: i64,
}

#[napi]
impl PackedReport {
  /// JSON text of the `EditReport` (once: the native copy is released).
  ///
  /// @throws {Error} with `code` `INTERNAL` when read twice.
  #[napi]
  pub fn json(&mut self, env: Env) -> Result<String> {
    let out = guarded(|| {
      let report = self
        .report
        .take()
        .ok_or_else(|| core::Error::internal("the report was already read"))?;
      to_json("report", &report::EditReport::from(report))
    })
    .map_err(|e| to_js_error(&env, &e));
    self.release(&env)?;
    out
  }

  fn release(&mut self, env: &Env) -> Result<()> {
    if self.bytes != 0 {
      env.adjust_external_memory(-self.bytes)?;
      self.bytes = 0;
    }
    Ok(())
  }
}

impl ObjectFinalize for PackedReport {
  fn finalize(mut self, env: Env) -> Result<()> {
    self.release(&env)
  }
}

/// `PackedPlan` before it becomes JavaScript values (built off the event loop when async).
pub struct Packed {
  ops: Vec<u32>,
  extra: String,
  report: core::Report,
}

impl Packed {
  /// The JavaScript-facing plan; the report's native size is announced to V8.
  fn into_js(self, env: &Env) -> Result<PackedPlan> {
    let bytes = report_bytes(&self.report);
    env.adjust_external_memory(bytes)?;
    Ok(PackedPlan {
      ops: Uint32Array::new(self.ops),
      extra: self.extra,
      report: PackedReport {
        report: Some(self.report),
        bytes,
      },
    })
  }
}

/// Roughly what a report holds on the native heap.
fn report_bytes(r: &core::Report) -> i64 {
  let cleared: usize = r
    .cleared
    .iter()
    .map(|c| 64 + c.tool_call_id.len() + c.tool_name.len())
    .sum();
  let inputs: usize = r
    .cleared_tool_inputs
    .iter()
    .map(|c| 48 + c.tool_call_id.len())
    .sum();
  let orphans: usize = r
    .removed_orphans
    .iter()
    .map(|o| 40 + o.tool_call_id.len())
    .sum();
  let warnings: usize = r.warnings.iter().map(|w| 64 + w.message.len()).sum();
  i64::try_from(512 + cleared + inputs + orphans + warnings).unwrap_or(i64::MAX)
}

#[derive(serde::Serialize)]
struct PackedExtra<'a> {
  strings: Vec<&'a str>,
  ops: Vec<plan::PlanOp>,
  #[serde(skip_serializing_if = "Option::is_none")]
  summary: Option<plan::SummaryRequest>,
}

fn pack(plan: core::EditPlan) -> CoreResult<Packed> {
  let mut words = Vec::with_capacity(plan.ops.len() * 4);
  let mut strings: Vec<String> = Vec::new();
  let mut intern = |s: &str| -> u32 {
    let at = strings.iter().position(|x| x == s).unwrap_or_else(|| {
      strings.push(s.to_owned());
      strings.len() - 1
    });
    u32::try_from(at).unwrap_or(u32::MAX)
  };
  let mut others = Vec::new();
  for op in plan.ops {
    let index = u32::try_from(op.index()).unwrap_or(u32::MAX);
    let word = match &op {
      core::Op::Remove { .. } => [0, index, 0, 0],
      core::Op::ClearToolResult {
        placeholder,
        strategy,
        ..
      } => [1, index, intern(placeholder), intern(strategy)],
      core::Op::RemoveThinking { .. } => [2, index, 0, 0],
      core::Op::CacheBreakpoint { .. } => [3, index, 0, 0],
      _ => {
        others.push(plan::PlanOp::from(op));
        [
          9,
          index,
          u32::try_from(others.len() - 1).unwrap_or(u32::MAX),
          0,
        ]
      }
    };
    words.extend_from_slice(&word);
  }
  let extra = PackedExtra {
    strings: strings.iter().map(String::as_str).collect(),
    ops: others,
    summary: plan.summary.map(plan::SummaryRequest::from),
  };
  Ok(Packed {
    ops: words,
    extra: to_json("plan", &extra)?,
    report: plan.report,
  })
}

fn to_json(what: &str, value: &impl serde::Serialize) -> CoreResult<String> {
  serde_json::to_string(value)
    .map_err(|e| core::Error::internal(format!("serializing the {what}: {e}")))
}
/// Async `planSession`.
pub struct PlanSessionTask {
  editor: Arc<core::ContextEditor>,
  input: Option<(u32, u32, Tail, Option<EditContext>)>,
}

impl Task for PlanSessionTask {
  type Output = CoreResult<Option<Packed>>;
  type JsValue = Option<PackedPlan>;

  fn compute(&mut self) -> Result<Self::Output> {
    let Some((session, reuse, tail, context)) = self.input.take() else {
      return Ok(Ok(None));
    };
    Ok(core::in_background(|| {
      plan_session_impl(&self.editor, session, reuse, tail, context)
    }))
  }

  fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
    output
      .map_err(|e| to_js_error(&env, &e))?
      .map(|p| p.into_js(&env))
      .transpose()
  }
}

fn plan_impl(
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

fn count_impl(
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

fn plan_json_impl(
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
    Ok(core::in_background(|| {
      plan_json_impl(&self.editor, &messages, context)
    }))
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
    Ok(core::in_background(|| {
      plan_impl(&self.editor, messages, context)
    }))
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
    Ok(core::in_background(|| {
      count_impl(&self.editor, messages, context)
    }))
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

/// Benchmark and test hook: plain tiktoken-rs `encode_ordinary(text).len()` of each string, on the
/// calling thread and without any cache, the oracle the exact counter is compared with (see
/// `benchmark/bench.mjs` and `__test__/token-differential.spec.mjs`). Not part of the public API.
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
