//! The one place where core errors become JavaScript errors with a stable `code`.

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi::{sys, JsValue, ValueType};

pub type CoreResult<T> = std::result::Result<T, core::Error>;

/// Builds a JS `Error` with `code` (`INVALID_OPTIONS`, `INVALID_MESSAGE`, `INVALID_CONTEXT`,
/// `UNKNOWN_ENCODING`, `INTERNAL`), plus `messageIndex` and `path` when known.
pub fn to_js_error(env: &Env, e: &core::Error) -> Error {
  caller_error(env, e, None)
}

/// `to_js_error` for an error the caller's code caused by throwing (a getter, a Proxy trap):
/// `cause` is what it threw.
pub fn caller_error(env: &Env, e: &core::Error, cause: Option<sys::napi_value>) -> Error {
  coded_error(
    env,
    e.code(),
    &e.to_string(),
    e.path(),
    e.message_index(),
    cause,
  )
}

/// A JS `Error` with `message`, `code`, and `path`, `messageIndex` and `cause` when given.
pub fn coded_error(
  env: &Env,
  code: &str,
  message: &str,
  path: Option<&str>,
  index: Option<usize>,
  cause: Option<sys::napi_value>,
) -> Error {
  let build = || -> Result<Error> {
    let mut obj = env.create_error(Error::new(Status::GenericFailure, message.to_owned()))?;
    obj.set_named_property("code", code)?;
    if let Some(index) = index {
      obj.set_named_property("messageIndex", u32::try_from(index).unwrap_or(u32::MAX))?;
    }
    if let Some(path) = path {
      obj.set_named_property("path", path)?;
    }
    if let Some(cause) = cause {
      // SAFETY: `cause` was taken from this environment during the current call.
      let cause = unsafe { Unknown::from_raw_unchecked(env.raw(), cause) };
      obj.set_named_property("cause", cause)?;
    }
    // Kept as the thrown value itself (not rebuilt from its message), on WebAssembly too, where
    // `Error::from` keeps only the message and would lose `code`, `messageIndex` and `path`.
    Ok(Error::from_unknown_without_coercion(obj.into_unknown(env)?))
  };
  build().unwrap_or_else(|_| {
    take_exception(env);
    Error::new(Status::GenericFailure, format!("[{code}] {message}"))
  })
}

/// Takes the JavaScript exception a failed napi call left pending (the caller's getter or Proxy
/// trap threw), clearing it; `None` when nothing is pending. Left pending, napi would rethrow it
/// as it is, without our `code` and `path`.
pub fn take_exception(env: &Env) -> Option<sys::napi_value> {
  let mut pending = false;
  // SAFETY: `env` is the environment of the call in progress.
  let asked = unsafe { sys::napi_is_exception_pending(env.raw(), &raw mut pending) };
  if asked != sys::Status::napi_ok || !pending {
    return None;
  }
  let mut exception = std::ptr::null_mut();
  // SAFETY: as above; an exception is pending.
  let taken = unsafe { sys::napi_get_and_clear_last_exception(env.raw(), &raw mut exception) };
  (taken == sys::Status::napi_ok && !exception.is_null()).then_some(exception)
}

/// What a thrown value says (its `message`, or the string thrown), for an error message. Reading
/// it may throw again (a `message` getter): that is cleared, and the value described instead.
pub fn thrown_text(env: &Env, thrown: sys::napi_value) -> String {
  // SAFETY: `thrown` was taken from this environment during the current call.
  let value = unsafe { Unknown::from_raw_unchecked(env.raw(), thrown) };
  let text = (|| -> Result<Option<String>> {
    let ty = value.get_type()?;
    let text = if ty == ValueType::String {
      value
    } else if ty == ValueType::Object {
      let message: Unknown<'_> = value.coerce_to_object()?.get_named_property("message")?;
      if message.get_type()? != ValueType::String {
        return Ok(None);
      }
      message
    } else {
      return Ok(None);
    };
    Ok(Some(text.coerce_to_string()?.into_utf8()?.into_owned()?))
  })();
  take_exception(env);
  text
    .ok()
    .flatten()
    .unwrap_or_else(|| "a value that is not an Error".to_owned())
}
