//! What the WebAssembly build (wasm32-wasip1-threads) needs to behave as the native one.
//!
//! - Strings: on WebAssembly, Node-API is emnapi's JavaScript, whose `napi_get_value_string_utf8`
//!   encodes a lone UTF-16 surrogate by pairing it with the next code unit: `"a\u{d800}b"` arrives
//!   as `"a\u{10062}"`, the `b` gone. Node replaces a lone surrogate by U+FFFD and keeps the rest.
//!   build.rs links every call of `napi_get_value_string_utf8` (napi's string conversions) to the
//!   function below (`--wrap`), which gives Node's text: written by the shim's encoder
//!   (`TextEncoder.encodeInto`, installed by ts/wasi.ts), else emnapi's own UTF-8 where that is
//!   Node's (no surrogate in the string), else the UTF-16 code units encoded as Node does.
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
/// napi's string conversions ask for the length, then read into a buffer of that size: the text
/// read for the length is kept (`LAST_READ`) and copied by the read that follows, so each string is
/// converted once, not twice.
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
  let key = (env as usize, value as usize);
  let kept = LAST_READ
    .with_borrow_mut(Option::take)
    .filter(|(k, _)| *k == key);
  let text = match kept {
    Some((_, text)) => text,
    // SAFETY: the caller's `env` and `value` (contract).
    None => match unsafe { node_utf8(env, value) } {
      Ok(text) => text,
      Err(status) => return status,
    },
  };
  if buf.is_null() {
    if result.is_null() {
      return sys::Status::napi_invalid_arg;
    }
    // SAFETY: `result` is writable (contract).
    unsafe { *result = text.len() };
    LAST_READ.with_borrow_mut(|last| *last = Some((key, text)));
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

#[cfg(target_family = "wasm")]
thread_local! {
  /// The text of the last string whose length was asked for (by `env` and `napi_value`), until the
  /// next read: napi's conversions read a string right after asking for its length. Any other read
  /// (another value, or none asked before) converts its string afresh.
  static LAST_READ: std::cell::RefCell<Option<((usize, usize), String)>> =
    const { std::cell::RefCell::new(None) };
}

#[cfg(target_family = "wasm")]
extern "C" {
  /// emnapi's own `napi_get_value_string_utf8` (the linker's `--wrap` names it so).
  fn __real_napi_get_value_string_utf8(
    env: sys::napi_env,
    value: sys::napi_value,
    buf: *mut c_char,
    bufsize: usize,
    result: *mut usize,
  ) -> sys::napi_status;
}

/// The string `value` as Node encodes it in UTF-8 (a lone surrogate as U+FFFD).
///
/// First through the shim's encoder (`TextEncoder.encodeInto`, see `set_string_encoder`), which
/// writes Node's text natively. Without it (or for a string over `ALONE_MAX_UNITS`), through
/// emnapi's UTF-8 read: a JavaScript loop into the memory, about 30 ns a character, exact for text without
/// surrogates. emnapi reads every surrogate code unit, lone or not, as the first half of a pair,
/// which it writes as one four-byte sequence: text it wrote without a four-byte sequence held no
/// surrogate, and is Node's. Otherwise (emoji, other astral characters, a lone surrogate) the
/// string is read again as UTF-16 code units and decoded as Node does: emnapi copies those a unit
/// at a time, each through a fresh view of the shared memory (about 20 times slower still).
///
/// # Safety
/// The Node-API contract for `env` and `value`.
#[cfg(target_family = "wasm")]
unsafe fn node_utf8(
  env: sys::napi_env,
  value: sys::napi_value,
) -> Result<String, sys::napi_status> {
  // SAFETY: as above.
  if let Some(text) = unsafe { encoded_by_shim(env, value) } {
    return Ok(text);
  }
  // SAFETY: as above.
  let bytes = unsafe { emnapi_utf8(env, value) }?;
  if !bytes.iter().any(|&b| b >= 0xf0) {
    if let Ok(text) = String::from_utf8(bytes) {
      return Ok(text);
    }
  }
  // SAFETY: as above.
  unsafe { utf16_to_node_utf8(env, value) }
}

/// emnapi's UTF-8 of `value`: a length query, then a read of that length.
///
/// # Safety
/// The Node-API contract for `env` and `value`.
#[cfg(target_family = "wasm")]
unsafe fn emnapi_utf8(
  env: sys::napi_env,
  value: sys::napi_value,
) -> Result<Vec<u8>, sys::napi_status> {
  let mut len = 0;
  // SAFETY: a length query (null buffer) into a local.
  let status =
    unsafe { __real_napi_get_value_string_utf8(env, value, std::ptr::null_mut(), 0, &raw mut len) };
  if status != sys::Status::napi_ok {
    return Err(status);
  }
  let mut bytes = vec![0u8; len + 1];
  // SAFETY: as above.
  let written = unsafe { emnapi_read(env, value, &mut bytes) }?;
  bytes.truncate(written);
  Ok(bytes)
}

/// emnapi's UTF-8 of `value` into `buf`: at most `buf.len() - 1` bytes, then a NUL. Returns the
/// bytes written before the NUL.
///
/// # Safety
/// The Node-API contract for `env` and `value`.
#[cfg(target_family = "wasm")]
unsafe fn emnapi_read(
  env: sys::napi_env,
  value: sys::napi_value,
  buf: &mut [u8],
) -> Result<usize, sys::napi_status> {
  let mut written = 0;
  // SAFETY: `buf` holds `buf.len()` bytes.
  let status = unsafe {
    __real_napi_get_value_string_utf8(
      env,
      value,
      buf.as_mut_ptr().cast(),
      buf.len(),
      &raw mut written,
    )
  };
  if status == sys::Status::napi_ok {
    Ok(written)
  } else {
    Err(status)
  }
}

/// The string `value` read as UTF-16 code units, a lone surrogate replaced by U+FFFD (as Node's
/// `napi_get_value_string_utf8` does).
///
/// # Safety
/// The Node-API contract for `env` and `value`.
#[cfg(target_family = "wasm")]
unsafe fn utf16_to_node_utf8(
  env: sys::napi_env,
  value: sys::napi_value,
) -> Result<String, sys::napi_status> {
  let mut len = 0;
  // SAFETY: a length query (null buffer) into a local.
  let status =
    unsafe { sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &raw mut len) };
  if status != sys::Status::napi_ok {
    return Err(status);
  }
  let mut units = vec![0u16; len + 1];
  let mut read = 0;
  // SAFETY: `units` holds `len + 1` code units.
  let status = unsafe {
    sys::napi_get_value_string_utf16(env, value, units.as_mut_ptr(), len + 1, &raw mut read)
  };
  if status != sys::Status::napi_ok {
    return Err(status);
  }
  units.truncate(read);
  Ok(
    char::decode_utf16(units)
      .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
      .collect(),
  )
}

/// Installs the shim's string encoder (ts/wasi.ts; WebAssembly only, a no-op that returns `false`
/// on native builds). `make` is called once with a `Uint8Array` over a buffer in the WebAssembly
/// memory and returns the encoder: a function of a string that writes, from the buffer's fifth
/// byte, the string's UTF-8 as `TextEncoder.encodeInto` writes it (a lone surrogate as U+FFFD, as
/// Node does), and in its first four bytes the bytes written (little-endian; `0xFFFF_FFFF` when the
/// string does not fit, `0xFFFF_FFFE` when the encoder failed). Returns whether it was installed.
/// Not part of the public API.
#[napi(js_name = "__setStringEncoder")]
#[must_use]
#[allow(clippy::needless_pass_by_value)] // the value is only read
pub fn set_string_encoder(env: napi::Env, make: napi::Unknown<'_>) -> bool {
  #[cfg(target_family = "wasm")]
  {
    use napi::JsValue as _;
    // SAFETY: `make` is a live value of this call's environment.
    unsafe { install_encoder(env.raw(), make.raw()) }
  }
  #[cfg(not(target_family = "wasm"))]
  {
    let _ = (env, make);
    false
  }
}

/// Bytes of the buffer the shim's encoder writes into (1 MiB, the count included): a longer string
/// is written into a buffer of its own (`encoded_alone`).
#[cfg(target_family = "wasm")]
const ENCODED_BYTES: usize = 1 << 20;

/// The longest string (in UTF-16 code units) written into a buffer of its own, three bytes a unit:
/// 64 M units, a 192 MiB buffer. A longer one is read through emnapi.
#[cfg(target_family = "wasm")]
const ALONE_MAX_UNITS: usize = 64 << 20;

/// The shim's encoder (a reference to the function) and the buffer it writes into, once installed:
/// `ENCODED_BYTES` bytes, held by a raw pointer only (JavaScript writes into them during a call);
/// and `make`, which makes an encoder for another buffer.
#[cfg(target_family = "wasm")]
struct ShimEncoder {
  encode: sys::napi_ref,
  buffer: *mut u8,
  make: sys::napi_ref,
}

#[cfg(target_family = "wasm")]
thread_local! {
  /// The encoder of the thread that installed it (the JavaScript thread, where strings are read).
  static ENCODER: std::cell::RefCell<Option<ShimEncoder>> = const { std::cell::RefCell::new(None) };
}

#[cfg(target_family = "wasm")]
extern "C" {
  /// emnapi's typed array over WebAssembly memory (`emnapi_memory_view_type`: 1 is `Uint8Array`).
  fn emnapi_create_memory_view(
    env: sys::napi_env,
    typedarray_type: i32,
    external_data: *mut std::ffi::c_void,
    byte_length: usize,
    finalize_cb: sys::napi_finalize,
    finalize_hint: *mut std::ffi::c_void,
    result: *mut sys::napi_value,
  ) -> sys::napi_status;
}

/// Makes the buffer, its view, and the encoder from `make`; keeps them for this thread.
///
/// # Safety
/// The Node-API contract for `env` and `make`.
#[cfg(target_family = "wasm")]
unsafe fn install_encoder(env: sys::napi_env, make: sys::napi_value) -> bool {
  if ENCODER.with_borrow(Option::is_some) {
    return true;
  }
  // Never freed: the view the encoder keeps points into it for the life of the instance.
  let buffer = Box::leak(vec![0u8; ENCODED_BYTES].into_boxed_slice()).as_mut_ptr();
  let mut reference = std::ptr::null_mut();
  let mut maker = std::ptr::null_mut();
  // SAFETY: the buffer lives as long as the instance; the encoder made for it and `make` are
  // referenced (count 1: kept alive) in this call's environment.
  let ok = unsafe {
    let encode = encoder_for(env, make, buffer, ENCODED_BYTES);
    !encode.is_null()
      && sys::napi_create_reference(env, encode, 1, &raw mut reference) == sys::Status::napi_ok
      && sys::napi_create_reference(env, make, 1, &raw mut maker) == sys::Status::napi_ok
  };
  if !ok {
    // SAFETY: clears what `make` may have thrown, so that the caller's call goes on.
    unsafe { clear_exception(env) };
    return false;
  }
  ENCODER.with_borrow_mut(|slot| {
    *slot = Some(ShimEncoder {
      encode: reference,
      buffer,
      make: maker,
    });
  });
  true
}

/// The encoder `make` makes for the `len` bytes at `buffer` (a `Uint8Array` over them); null when
/// it could not be made (a pending exception is left to the caller).
///
/// # Safety
/// The Node-API contract for `env` and `make`; `buffer` holds `len` bytes for as long as the
/// encoder is called.
#[cfg(target_family = "wasm")]
unsafe fn encoder_for(
  env: sys::napi_env,
  make: sys::napi_value,
  buffer: *mut u8,
  len: usize,
) -> sys::napi_value {
  let mut encode = std::ptr::null_mut();
  // SAFETY: the view covers the caller's `len` bytes at `buffer`; a local as out-parameter.
  let ok = unsafe {
    memory_view(env, buffer, len).is_some_and(|view| {
      sys::napi_call_function(env, make, make, 1, &raw const view, &raw mut encode)
        == sys::Status::napi_ok
    })
  };
  if ok {
    encode
  } else {
    std::ptr::null_mut()
  }
}

/// A `Uint8Array` over the `len` bytes of the WebAssembly memory at `ptr` (emnapi's memory view:
/// emnapi reads it in place, and makes it anew over a grown memory); `None` when it could not be
/// made.
///
/// # Safety
/// The Node-API contract for `env`; the `len` bytes at `ptr` stay allocated for as long as the
/// view is written or read.
#[cfg(target_family = "wasm")]
pub(crate) unsafe fn memory_view(
  env: sys::napi_env,
  ptr: *mut u8,
  len: usize,
) -> Option<sys::napi_value> {
  let mut view = std::ptr::null_mut();
  // SAFETY: the caller's `env`, `ptr` and `len`; a local as out-parameter.
  let status = unsafe {
    emnapi_create_memory_view(
      env,
      1,
      ptr.cast(),
      len,
      None,
      std::ptr::null_mut(),
      &raw mut view,
    )
  };
  (status == sys::Status::napi_ok).then_some(view)
}

/// Calls `encode` with `value` and reads what it wrote into `buffer` (`len` bytes, the count
/// first): `Ok(None)` when the string does not fit (or `value` is no string), `Err(())` when the
/// call or the encoder failed.
///
/// # Safety
/// The Node-API contract for `env`, `encode` and `value`; `encode` writes into the `len` bytes at
/// `buffer`, which nothing else reaches during the call.
#[cfg(target_family = "wasm")]
unsafe fn call_encoder(
  env: sys::napi_env,
  encode: sys::napi_value,
  value: sys::napi_value,
  buffer: *mut u8,
  len: usize,
) -> Result<Option<String>, ()> {
  // "Does not fit" until the encoder writes its count: a count left from an earlier string is
  // never taken.
  // SAFETY: the buffer holds `len >= 4` bytes, only reached through this pointer.
  unsafe { std::ptr::copy_nonoverlapping(u32::MAX.to_le_bytes().as_ptr(), buffer, 4) };
  // SAFETY: the caller's `env`, `encode` and `value`.
  let called = unsafe {
    sys::napi_call_function(
      env,
      encode,
      encode,
      1,
      &raw const value,
      std::ptr::null_mut(),
    ) == sys::Status::napi_ok
  };
  // SAFETY: as above; the encoder has returned, nothing writes into the buffer while it is read.
  let written = unsafe { std::slice::from_raw_parts(buffer, len) };
  let count = u32::from_le_bytes([written[0], written[1], written[2], written[3]]);
  if !called || count == 0xFFFF_FFFE {
    return Err(());
  }
  Ok(
    usize::try_from(count)
      .ok()
      .filter(|&n| n <= len - 4)
      .and_then(|n| String::from_utf8(written[4..4 + n].to_vec()).ok()),
  )
}

/// The string `value` as the shim's encoder writes it (Node's UTF-8); `None` when no encoder is
/// installed, or `value` is no string. A string too long for the encoder's buffer is written into
/// one of its own (`encoded_alone`). An encoder that fails is dropped, and strings are read through
/// emnapi from then on.
///
/// # Safety
/// The Node-API contract for `env` and `value`.
#[cfg(target_family = "wasm")]
unsafe fn encoded_by_shim(env: sys::napi_env, value: sys::napi_value) -> Option<String> {
  ENCODER.with(|cell| {
    // Never while a read through it is under way (the encoder calls nothing of ours).
    let mut slot = cell.try_borrow_mut().ok()?;
    let encoder = slot.as_mut()?;
    let mut encode = std::ptr::null_mut();
    // SAFETY: the reference is this thread's, made in this environment; `value` is live; the
    // buffer holds `ENCODED_BYTES` bytes and is only reached through its pointer.
    let read = unsafe {
      if sys::napi_get_reference_value(env, encoder.encode, &raw mut encode) == sys::Status::napi_ok
        && !encode.is_null()
      {
        match call_encoder(env, encode, value, encoder.buffer, ENCODED_BYTES) {
          Ok(None) => Ok(encoded_alone(env, encoder.make, value)),
          other => other,
        }
      } else {
        Err(())
      }
    };
    read.unwrap_or_else(|()| {
      // SAFETY: as above.
      unsafe { clear_exception(env) };
      *slot = None;
      None
    })
  })
}

/// A string too long for the encoder's buffer, written by an encoder made for a buffer of its own
/// (three bytes a UTF-16 code unit, the most UTF-8 takes), freed once read: emnapi's own read would
/// copy it a character at a time. `None` for a value that is no string, a string over
/// `ALONE_MAX_UNITS`, or an encoder that could not be made (then emnapi reads it).
///
/// # Safety
/// The Node-API contract for `env` and `value`; `make` is a reference of this environment.
#[cfg(target_family = "wasm")]
unsafe fn encoded_alone(
  env: sys::napi_env,
  make: sys::napi_ref,
  value: sys::napi_value,
) -> Option<String> {
  let mut units = 0;
  let mut make_fn = std::ptr::null_mut();
  // SAFETY: a length query (null buffer) into a local; the reference is this environment's.
  let known = unsafe {
    sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &raw mut units)
      == sys::Status::napi_ok
      && sys::napi_get_reference_value(env, make, &raw mut make_fn) == sys::Status::napi_ok
      && !make_fn.is_null()
  };
  if !known || units > ALONE_MAX_UNITS {
    return None;
  }
  let len = units * 3 + 4;
  let mut buffer = vec![0u8; len];
  // SAFETY: `buffer` holds `len` bytes and outlives both calls; the encoder made for it is a value
  // of this call only (nothing keeps it, so nothing writes there once `buffer` is freed).
  let text = unsafe {
    let encode = encoder_for(env, make_fn, buffer.as_mut_ptr(), len);
    if encode.is_null() {
      None
    } else {
      call_encoder(env, encode, value, buffer.as_mut_ptr(), len)
        .ok()
        .flatten()
    }
  };
  if text.is_none() {
    // SAFETY: clears what the encoder may have thrown: emnapi reads the string instead.
    unsafe { clear_exception(env) };
  }
  drop(buffer);
  text
}

/// Clears a pending JavaScript exception, if any.
///
/// # Safety
/// The Node-API contract for `env`.
#[cfg(target_family = "wasm")]
unsafe fn clear_exception(env: sys::napi_env) {
  let mut pending = false;
  let mut error = std::ptr::null_mut();
  // SAFETY: locals as out-parameters.
  unsafe {
    if sys::napi_is_exception_pending(env, &raw mut pending) == sys::Status::napi_ok && pending {
      sys::napi_get_and_clear_last_exception(env, &raw mut error);
    }
  }
}
