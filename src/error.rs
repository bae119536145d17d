//! The one place where core errors become JavaScript errors with a stable `code`.

use context_editor_core as core;
use napi::bindgen_prelude::*;

pub type CoreResult<T> = std::result::Result<T, core::Error>;

/// Builds a JS `Error` with `code` (`INVALID_OPTIONS`, `INVALID_MESSAGE`, `INVALID_CONTEXT`,
/// `UNKNOWN_ENCODING`, `INTERNAL`), plus `messageIndex` and `path` when known.
pub fn to_js_error(env: &Env, e: &core::Error) -> Error {
  let build = || -> Result<Error> {
    let mut obj = env.create_error(Error::new(Status::GenericFailure, e.to_string()))?;
    obj.set_named_property("code", e.code())?;
    if let Some(index) = e.message_index() {
      obj.set_named_property("messageIndex", u32::try_from(index).unwrap_or(u32::MAX))?;
    }
    if let Some(path) = e.path() {
      obj.set_named_property("path", path)?;
    }
    Ok(Error::from(obj.into_unknown(env)?))
  };
  build().unwrap_or_else(|_| Error::new(Status::GenericFailure, format!("[{}] {e}", e.code())))
}
