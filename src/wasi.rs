//! What the WebAssembly build (wasm32-wasip1-threads) needs to behave as the native one.
//!
//! - Strings: on WebAssembly, Node-API is emnapi's JavaScript, whose `napi_get_value_string_utf8`
//!   encodes a lone UTF-16 surrogate by pairing it with the next code unit: `"a\u{d800}b"` arrives
//!   as `"a\u{10062}"`, the `b` gone. Node replaces a lone surrogate by U+FFFD and keeps the rest.
//!   build.rs links every call of `napi_get_value_string_utf8` (napi's string conversions) to the
//!   function below (`--wrap`), which reads the UTF-16 code units and encodes them as Node does.
//! - Panics: Rust's standard library for WebAssembly cannot unwind, so a panic aborts the call (a
//!   WebAssembly trap, thrown in JavaScript as `RuntimeError: unreachable`) instead of becoming an
//!   `INTERNAL` error in `guarded`. The panic's message is kept here for the JavaScript side
//!   (ts/wasi.ts), which turns the trap into the same `INTERNAL` error.

#[cfg(target_family = "wasm")]
use std::os::raw::c_char;

#[cfg(target_family = "wasm")]
use napi::sys;
use napi_derive::napi;

/// The message of the last panic not yet taken (WebAssembly only; native panics are caught where
/// they happen and never recorded). Not part of the public API.
#[napi(js_name = "__takePanicMessage")]
#[must_use]
pub fn take_panic_message() -> Option<String> {
  #[cfg(target_family = "wasm")]
  {
    LAST_PANIC.lock().ok().and_then(|mut last| last.take())
  }
  #[cfg(not(target_family = "wasm"))]
  {
    None
  }
}

#[cfg(target_family = "wasm")]
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Records each panic's message, then reports it as Rust's default hook does (stderr).
#[cfg(target_family = "wasm")]
#[napi_derive::module_init]
fn record_panics() {
  let report = std::panic::take_hook();
  std::panic::set_hook(Box::new(move |info| {
    let payload = info.payload();
    let what = payload
      .downcast_ref::<&str>()
      .map(|s| (*s).to_owned())
      .or_else(|| payload.downcast_ref::<String>().cloned())
      .unwrap_or_else(|| "unknown panic".to_owned());
    if let Ok(mut last) = LAST_PANIC.lock() {
      *last = Some(what);
    }
    report(info);
  }));
}

/// `napi_get_value_string_utf8` with Node's semantics: without a buffer, the UTF-8 length;
/// with one, at most `bufsize - 1` bytes, never part of a character, then a NUL.
///
/// # Safety
/// The Node-API contract: `buf` holds `bufsize` bytes when not null; `result` is writable when not
/// null.
#[cfg(target_family = "wasm")]
#[no_mangle]
pub unsafe extern "C" fn __wrap_napi_get_value_string_utf8(
  env: sys::napi_env,
  value: sys::napi_value,
  buf: *mut c_char,
  bufsize: usize,
  result: *mut usize,
) -> sys::napi_status {
  let mut len = 0;
  // SAFETY: a length query (null buffer) into a local.
  let status =
    unsafe { sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &mut len) };
  if status != sys::Status::napi_ok {
    return status;
  }
  let mut units = vec![0u16; len + 1];
  let mut read = 0;
  // SAFETY: `units` holds `len + 1` code units.
  let status =
    unsafe { sys::napi_get_value_string_utf16(env, value, units.as_mut_ptr(), len + 1, &mut read) };
  if status != sys::Status::napi_ok {
    return status;
  }
  units.truncate(read);
  let text: String = char::decode_utf16(units)
    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
    .collect();
  if buf.is_null() {
    if result.is_null() {
      return sys::Status::napi_invalid_arg;
    }
    // SAFETY: `result` is writable (contract).
    unsafe { *result = text.len() };
    return sys::Status::napi_ok;
  }
  let mut copied = 0;
  if bufsize > 0 {
    copied = text.len().min(bufsize - 1);
    while !text.is_char_boundary(copied) {
      copied -= 1;
    }
    // SAFETY: `buf` holds `bufsize` bytes (contract) and `copied < bufsize`.
    unsafe {
      std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), copied);
      *buf.add(copied) = 0;
    }
  }
  if !result.is_null() {
    // SAFETY: `result` is writable (contract).
    unsafe { *result = copied };
  }
  sys::Status::napi_ok
}
