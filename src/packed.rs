//! The packed plan: what a session call returns, shaped to cross the boundary cheaply.
//!
//! A plan of a long history is mostly `clear_tool_result` ops with one of a few placeholders.
//! Building one JavaScript object per op (or one JSON object per op) costs more than planning, so
//! ops cross as four numbers each, `[kind, index, a, b]`, in one `Uint32Array`; the strings they
//! name are interned, and cross as their UTF-8 bytes one after another (`stringBytes`, with where
//! each ends in `stringEnds`): a placeholder that names its call (the recall tool's) is a string of
//! its own for every cleared result, and as JSON they were escaped here and parsed there on every
//! call, where a next call reads only the few its new operations name. An op with lists
//! (`clear_tool_inputs`, `remove_tool_calls`, `truncate_tool_result`) crosses as its JSON text, one
//! more string of the table: a next call compares it as bytes with the previous call's, and parses
//! only those past what it reuses (with `clearToolInputs` there is one per cleared result's call,
//! and as one JSON list they were all written, parsed and applied again on every call).
//! The report stays native until read (see `PackedReport` for its bound). `PackedOpKind` names
//! the kinds on both sides (the shim's `unpack` in `ts/wire/packed.ts` reads the const enum napi
//! generates into `binding.d.cts`).
//!
//! Node runs a Node-API finalizer on a later turn of the event loop, never during the garbage
//! collection that finds the object dead. A synchronous loop of calls (a batch job editing
//! thousands of stored conversations) never gives it that turn, so unread reports piled up for
//! the whole loop: about 170 KB a call at 2,000 messages. The typed arrays piled up too, more
//! slowly (about 16 KB a call): natively they are now the engine's own (`engine_arrays`).

use std::sync::atomic::{AtomicI64, Ordering};

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::error::{to_js_error, CoreResult};
use crate::plan::{PlanOp, SummaryRequest};
use crate::report::EditReport;
use crate::{guarded, to_json};

/// The first of an op's four numbers in `PackedPlan.ops`.
#[napi]
pub enum PackedOpKind {
  /// `remove`: `a` and `b` unused.
  Remove = 0,
  /// `clear_tool_result`: `a` and `b` are its placeholder and strategy, by position in the
  /// plan's strings (`stringEnds`).
  ClearToolResult = 1,
  /// `remove_thinking`: `a` and `b` unused.
  RemoveThinking = 2,
  /// `cache_breakpoint`: `a` and `b` unused.
  CacheBreakpoint = 3,
  /// Any other op: `a` is the position of its JSON text (a `PlanOp`) in the plan's strings, `b`
  /// unused.
  Other = 9,
}

/// A plan in a form that is cheap to cross the boundary (see the module's comment).
#[napi(object, object_from_js = false)]
pub struct PackedPlan {
  /// Four numbers per operation, `[kind, index, a, b]`; `kind` is a `PackedOpKind`.
  #[napi(ts_type = "Uint32Array")]
  pub ops: Made,
  /// The strings ops name (a placeholder or strategy once, however many ops name it), in the order
  /// first named: their UTF-8 bytes, one after another.
  #[napi(ts_type = "Uint8Array")]
  pub string_bytes: Made,
  /// Where each string ends in `stringBytes` (the `k`-th is `stringEnds[k - 1]..stringEnds[k]`).
  #[napi(ts_type = "Uint32Array")]
  pub string_ends: Made,
  /// JSON text of `{ summary?: SummaryRequest }`.
  pub extra: String,
  /// The report, kept native until read (it lists every cleared result: building its text on
  /// every model call would cost more than planning). Absent when `reportJson` holds it.
  pub report: Option<PackedReport>,
  /// JSON text of the `EditReport`, made at once instead for a small report (`SMALL_REPORT`:
  /// totals and a few entries), and for any while the reports kept native and not yet read or
  /// collected hold `NATIVE_REPORTS_CAP` bytes (see `PackedReport`).
  pub report_json: Option<String>,
}

/// A report this small (by `report_bytes`: its totals and a few entries) crosses as its JSON text at
/// once: writing it costs less than the native object that would keep it, with its finalizer (on
/// the WebAssembly build, emnapi's wrap and a `FinalizationRegistry` entry per call). A next call
/// that clears nothing new reports no more than this.
pub const SMALL_REPORT: i64 = 1024;

/// The bytes of reports kept native, process-wide, not yet read nor finalized.
static NATIVE_REPORTS: AtomicI64 = AtomicI64::new(0);

/// At most this many bytes of unread reports are kept native (128 MiB): past it, a plan's report
/// crosses as JSON text, which V8 owns and collects with the plan. Twice what V8 lets external
/// memory grow by before it collects, so that a server, whose reports are finalized on the turn
/// after each collection, stays under it.
pub const NATIVE_REPORTS_CAP: i64 = 128 << 20;

/// The report of a `PackedPlan`, converted only when read. Its native size is reported to V8 as
/// external memory, so unread reports are collected as promptly as the strings they would have been.
///
/// Node frees it in a finalizer, which runs on a later turn of the event loop: in a loop of
/// synchronous calls none does, and every unread report stayed until the loop ended. So the
/// reports kept native are counted (`NATIVE_REPORTS`), and a plan made while they hold
/// `NATIVE_REPORTS_CAP` bytes gets its report as JSON text at once (about 0.5 ms at 2,000
/// messages, where keeping it native costs nothing): memory stays bounded in such a loop, and a
/// server, whose event loop turns between calls, never reaches the cap.
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
      to_json("report", &EditReport::from(report))
    })
    .map_err(|e| to_js_error(&env, &e));
    self.release(&env)?;
    out
  }

  fn release(&mut self, env: &Env) -> Result<()> {
    if self.bytes != 0 {
      NATIVE_REPORTS.fetch_sub(self.bytes, Ordering::Relaxed);
      let bytes = std::mem::take(&mut self.bytes);
      env.adjust_external_memory(-bytes)?;
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
  string_bytes: Vec<u8>,
  string_ends: Vec<u32>,
  extra: String,
  report: core::Report,
}

impl Packed {
  /// The JavaScript-facing plan, its report kept native (its size announced to V8) unless unread
  /// native reports hold `NATIVE_REPORTS_CAP` bytes.
  pub fn into_js(self, env: &Env) -> Result<PackedPlan> {
    let bytes = report_bytes(&self.report);
    let (report, report_json) = if bytes <= SMALL_REPORT
      || NATIVE_REPORTS.load(Ordering::Relaxed).saturating_add(bytes) > NATIVE_REPORTS_CAP
    {
      let text = guarded(|| to_json("report", &EditReport::from(self.report)))
        .map_err(|e| to_js_error(env, &e))?;
      (None, Some(text))
    } else {
      env.adjust_external_memory(bytes)?;
      NATIVE_REPORTS.fetch_add(bytes, Ordering::Relaxed);
      let handle = PackedReport {
        report: Some(self.report),
        bytes,
      };
      (Some(handle), None)
    };
    let (ops, string_bytes, string_ends) =
      engine_arrays(env, &self.ops, &self.string_bytes, &self.string_ends)?;
    Ok(PackedPlan {
      ops,
      string_bytes,
      string_ends,
      extra: self.extra,
      report,
      report_json,
    })
  }
}

/// A typed array made for the call's result: a JavaScript value of the call's own scope, which the
/// plan hands back as it is.
pub struct Made(sys::napi_value);

impl TypeName for Made {
  fn type_name() -> &'static str {
    "TypedArray"
  }

  fn value_type() -> ValueType {
    ValueType::Object
  }
}

impl ToNapiValue for Made {
  unsafe fn to_napi_value(_env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
    Ok(val.0)
  }
}

/// The plan's typed arrays (`ops`, `stringBytes`, `stringEnds`), their memory the engine's own (a
/// copy). napi-rs makes a `Vec` an external buffer, freed by a Node-API finalizer: on a later turn
/// of the event loop, so a synchronous loop of calls kept every plan's arrays (about 16 KB a call
/// at 2,000 messages: 689 MiB of RSS after 18,800 calls, still growing). The engine frees its own
/// at once when it collects them.
#[cfg(not(target_family = "wasm"))]
fn engine_arrays(env: &Env, ops: &[u32], bytes: &[u8], ends: &[u32]) -> Result<Arrays> {
  Ok((
    made(
      env,
      Uint32ArraySlice::copy_from(env, ops)?.into_typed_array(env)?,
    )?,
    made(
      env,
      Uint8ArraySlice::copy_from(env, bytes)?.into_typed_array(env)?,
    )?,
    made(
      env,
      Uint32ArraySlice::copy_from(env, ends)?.into_typed_array(env)?,
    )?,
  ))
}

/// `array` as the value it is in this call's scope.
#[cfg(not(target_family = "wasm"))]
fn made(env: &Env, array: impl ToNapiValue) -> Result<Made> {
  // SAFETY: `env` is the environment of the call that made `array`.
  unsafe { ToNapiValue::to_napi_value(env.raw(), array).map(Made) }
}

/// On WebAssembly, emnapi makes an external buffer a copy in JavaScript anyway, and keeps the
/// `Vec` in the WebAssembly memory until the copy's finalizer runs (in a synchronous loop, never:
/// 32 MiB of array buffers and as much of that memory per 1,850 calls at 2,000 messages). A
/// copy through napi-rs's typed-array slices costs a round trip through that memory instead (a
/// 200-message next call took 170 µs instead of 65). Here the three arrays are written one after
/// another into one `Vec`, which `napi_create_buffer_copy` copies out of the WebAssembly memory
/// into a new `ArrayBuffer` (no finalizer, nothing kept in that memory), and the three typed
/// arrays are made on that buffer. The `ArrayBuffer` is read as the copy's `buffer` (the typed
/// arrays' own getter: `Object.prototype` cannot reach it): `napi_get_typedarray_info` would check
/// it at the cost of two caught exceptions (about 26 µs), and asked for the data too, would give
/// the buffer a place in the WebAssembly memory.
#[cfg(target_family = "wasm")]
fn engine_arrays(env: &Env, ops: &[u32], bytes: &[u8], ends: &[u32]) -> Result<Arrays> {
  let words = size_of_val(ops);
  let after = words + size_of_val(ends);
  let mut all = Vec::with_capacity(after + bytes.len());
  all.extend(ops.iter().flat_map(|w| w.to_ne_bytes()));
  all.extend(ends.iter().flat_map(|w| w.to_ne_bytes()));
  all.extend_from_slice(bytes);
  let raw = env.raw();
  let array_buffer = array_buffer_copy(env, &all)?;
  let view = |kind: sys::napi_typedarray_type, len: usize, at: usize| -> Result<Made> {
    let mut array = std::ptr::null_mut();
    // SAFETY: `array_buffer` holds `all.len()` bytes; `at` is a multiple of 4 and `len`
    // elements from it end within them.
    unsafe {
      napi::check_status!(
        sys::napi_create_typedarray(raw, kind, len, array_buffer, at, &raw mut array),
        "making a plan's array"
      )?;
    }
    Ok(Made(array))
  };
  Ok((
    view(sys::TypedarrayType::uint32_array, ops.len(), 0)?,
    view(sys::TypedarrayType::uint8_array, bytes.len(), after)?,
    view(sys::TypedarrayType::uint32_array, ends.len(), words)?,
  ))
}

/// A new `ArrayBuffer` holding a copy of `bytes` from offset 0, made by `napi_create_buffer_copy`
/// out of the WebAssembly memory (no finalizer, nothing kept in that memory) and read as the
/// copy's `buffer` (see `engine_arrays`). Typed arrays of any element size can be made on it.
#[cfg(target_family = "wasm")]
pub(crate) fn array_buffer_copy(env: &Env, bytes: &[u8]) -> Result<sys::napi_value> {
  let raw = env.raw();
  let mut buffer = std::ptr::null_mut();
  let mut array_buffer = std::ptr::null_mut();
  // SAFETY: `bytes` is a live slice of `bytes.len()` bytes; every out-pointer is a local.
  unsafe {
    napi::check_status!(
      sys::napi_create_buffer_copy(
        raw,
        bytes.len(),
        bytes.as_ptr().cast(),
        std::ptr::null_mut(),
        &raw mut buffer
      ),
      "copying arrays out of the WebAssembly memory"
    )?;
    napi::check_status!(
      sys::napi_get_named_property(raw, buffer, c"buffer".as_ptr(), &raw mut array_buffer),
      "reading the copied arrays"
    )?;
  }
  Ok(array_buffer)
}

/// `ops`, `stringBytes` and `stringEnds` of a `PackedPlan`.
type Arrays = (Made, Made, Made);

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
struct PackedExtra {
  #[serde(skip_serializing_if = "Option::is_none")]
  summary: Option<SummaryRequest>,
}

/// Whether `op` packs into its four numbers alone (its strings, if any, interned as they are).
fn packs_bare(op: &core::Op) -> bool {
  matches!(
    op,
    core::Op::Remove { .. }
      | core::Op::ClearToolResult { .. }
      | core::Op::RemoveThinking { .. }
      | core::Op::CacheBreakpoint { .. }
  )
}

fn word(n: usize) -> u32 {
  u32::try_from(n).unwrap_or(u32::MAX)
}

/// The strings packed ops name, in the order first named: each placeholder and strategy once
/// (`intern`), and each op's JSON text as it comes (`push`).
struct Strings<'a> {
  list: Vec<&'a str>,
  /// The positions of the interned strings, while there are at most `SCANNED` of them.
  scanned: Vec<u32>,
  /// The positions of the interned strings, once there are more.
  positions: FxHashMap<&'a str, u32>,
  /// The map's room once it is built: a placeholder per op, and a strategy.
  most: usize,
}

impl<'a> Strings<'a> {
  /// Appends `s` without looking it up: a string no other op names (an op's JSON text, which
  /// names the op's index). Were an interned string equal to it, it would get a position of its
  /// own, which costs only its bytes.
  fn push(&mut self, s: &'a str) -> u32 {
    self.list.push(s);
    word(self.list.len() - 1)
  }

  /// The position of `s`: by a scan while the table holds at most `SCANNED` interned strings (the
  /// usual plan: one placeholder, one strategy), where it beats hashing each op's strings; by hash
  /// after. A placeholder with a `{tool_call_id}` slot (the recall tool's) is a string of its own
  /// for every cleared result, and a scan for each made packing quadratic in them (a next call at
  /// 10,000 messages took 10x as long as with a shared placeholder; `benchmark/cold.mjs`, its
  /// recall row).
  /// Hashed with FxHash, not SipHash: the strings are ours (placeholders and strategy names), and
  /// SipHash of each was a tenth of such a next call.
  fn intern(&mut self, s: &'a str) -> u32 {
    const SCANNED: usize = 8;
    if self.scanned.len() <= SCANNED {
      if let Some(&k) = self.scanned.iter().find(|&&k| self.list[k as usize] == s) {
        return k;
      }
      let k = self.push(s);
      self.scanned.push(k);
      if self.scanned.len() > SCANNED {
        self.positions = FxHashMap::with_capacity_and_hasher(self.most, FxBuildHasher);
        let list = &self.list;
        self
          .positions
          .extend(self.scanned.iter().map(|&k| (list[k as usize], k)));
      }
      return k;
    }
    let list = &mut self.list;
    *self.positions.entry(s).or_insert_with(|| {
      list.push(s);
      word(list.len() - 1)
    })
  }
}

/// Packs a plan (see the module's comment).
pub fn pack(mut plan: core::EditPlan) -> CoreResult<Packed> {
  // The JSON text of each op the four numbers cannot hold, by op (appended to the strings below):
  // the op's lists move into its text, leaving a bare op in its place.
  let texts = plan
    .ops
    .iter_mut()
    .map(|op| {
      if packs_bare(op) {
        return Ok(None);
      }
      let taken = std::mem::replace(op, core::Op::Remove { index: op.index() });
      to_json("plan", &PlanOp::from(taken)).map(Some)
    })
    .collect::<CoreResult<Vec<_>>>()?;
  let mut words = Vec::with_capacity(plan.ops.len() * 4);
  let mut strings = Strings {
    list: Vec::new(),
    scanned: Vec::new(),
    positions: FxHashMap::default(),
    most: plan.ops.len() + 1,
  };
  for (op, text) in plan.ops.iter().zip(&texts) {
    let index = word(op.index());
    let packed = match (op, text) {
      // Its own string (the text names the op's index): nothing to look up.
      (_, Some(text)) => [PackedOpKind::Other as u32, index, strings.push(text), 0],
      (core::Op::Remove { .. }, None) => [PackedOpKind::Remove as u32, index, 0, 0],
      (
        core::Op::ClearToolResult {
          placeholder,
          strategy,
          ..
        },
        None,
      ) => [
        PackedOpKind::ClearToolResult as u32,
        index,
        strings.intern(placeholder),
        strings.intern(strategy),
      ],
      (core::Op::RemoveThinking { .. }, None) => [PackedOpKind::RemoveThinking as u32, index, 0, 0],
      (core::Op::CacheBreakpoint { .. }, None) => {
        [PackedOpKind::CacheBreakpoint as u32, index, 0, 0]
      }
      (_, None) => {
        return Err(core::Error::internal(
          "packing the plan: an op with lists and no text",
        ))
      }
    };
    words.extend_from_slice(&packed);
  }
  let extra = PackedExtra {
    summary: plan.summary.map(SummaryRequest::from),
  };
  let mut string_bytes = Vec::with_capacity(strings.list.iter().map(|s| s.len()).sum());
  let mut string_ends = Vec::with_capacity(strings.list.len());
  for s in &strings.list {
    string_bytes.extend_from_slice(s.as_bytes());
    let end = u32::try_from(string_bytes.len())
      .map_err(|_| core::Error::internal("the plan's strings exceed 4 GiB"))?;
    string_ends.push(end);
  }
  Ok(Packed {
    ops: words,
    string_bytes,
    string_ends,
    extra: to_json("plan", &extra)?,
    report: plan.report,
  })
}
