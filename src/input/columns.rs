//! Wire messages as columns (`WireColumns`, see `crate::columns`): an object of four typed arrays
//! and one string, each copied out at once. Anything else is `INVALID_MESSAGE` at path
//! `messages`, naming the column.

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};

use super::{describe, grouped, Fail, MAX_MESSAGES};
use crate::columns::{decode_units, Columns, Joined, INTS};
use crate::error::caller_error;

/// `columns` (a `WireColumns` object), copied: the typed arrays are the caller's to reuse once the
/// call returns.
pub fn columns_from_js(env: &Env, value: Unknown<'_>) -> Result<Columns> {
  let fail = |f: Fail| caller_error(env, &core::Error::invalid_messages(f.what), f.cause);
  let read = |e: Error| fail(Fail::unreadable(env, "columns", &e));
  let ty = value.get_type().map_err(read)?;
  #[cfg(target_family = "wasm")]
  if ty == ValueType::String {
    if let Some((ints, nums, args, lengths)) = crate::arena::take_arena_columns() {
      if ints.len() / INTS > MAX_MESSAGES as usize {
        return Err(fail(too_many()));
      }
      let strings = joined_text(env, &value).map_err(fail)?;
      return Ok(Columns {
        ints,
        nums,
        args,
        strings,
        lengths,
      });
    }
  }
  if ty != ValueType::Object || value.is_array().map_err(read)? {
    return Err(fail(Fail::new(
      "columns",
      format!(
        "columns: expected a WireColumns object, got {}",
        describe(ty)
      ),
    )));
  }
  let obj = value.coerce_to_object().map_err(read)?;
  let ints: Uint32ArraySlice<'_> = column(env, &obj, "ints").map_err(fail)?;
  if ints.len() / INTS > MAX_MESSAGES as usize {
    return Err(fail(too_many()));
  }
  let nums: Float64ArraySlice<'_> = column(env, &obj, "nums").map_err(fail)?;
  let args: Float64ArraySlice<'_> = column(env, &obj, "args").map_err(fail)?;
  let lengths: Uint32ArraySlice<'_> = column(env, &obj, "lengths").map_err(fail)?;
  let strings = joined(env, &obj, &lengths).map_err(fail)?;
  Ok(Columns {
    ints: ints.to_vec(),
    nums: nums.to_vec(),
    args: args.to_vec(),
    strings,
    lengths: lengths.to_vec(),
  })
}

/// The `strings` column: one string (joined, cut by `lengths`), or an array of the strings one
/// by one (the shim's text columns natively: no join in JavaScript; see `string_list`).
fn joined(env: &Env, obj: &Object<'_>, lengths: &[u32]) -> std::result::Result<Joined, Fail> {
  let value: Unknown<'_> = column(env, obj, "strings")?;
  if value
    .is_array()
    .map_err(|e| Fail::unreadable(env, "columns", &e))?
  {
    return Ok(Joined::List(string_list(env, &value, lengths)?));
  }
  joined_text(env, &value)
}

/// The strings of an array, each with its length in UTF-16 code units. Each is copied out as code
/// units in one napi call, into a buffer sized by the length `lengths` gives it (two more units: a
/// longer string shows), and decoded here, where a run of ASCII is narrowed at once. Read as UTF-8,
/// napi took two calls a string, and V8 two passes over its text (one to measure the UTF-8, one to
/// write it), then a third here to check its UTF-16 length against `lengths`.
fn string_list(
  env: &Env,
  value: &Unknown<'_>,
  lengths: &[u32],
) -> std::result::Result<Vec<(String, usize)>, Fail> {
  let holding_else = || {
    crate::error::take_exception(env);
    Fail::new(
      "columns",
      "columns.strings: expected a string or an array of strings, got an array holding something else".to_owned(),
    )
  };
  let (raw_env, array) = (env.raw(), value.raw());
  let mut n = 0u32;
  // SAFETY: `array` is a live array of this call's environment.
  if unsafe { sys::napi_get_array_length(raw_env, array, &raw mut n) } != sys::Status::napi_ok {
    return Err(holding_else());
  }
  let mut list = Vec::with_capacity(n as usize);
  let mut units: Vec<u16> = Vec::new();
  for k in 0..n {
    let mut item = std::ptr::null_mut();
    // SAFETY: as above; `item` receives a value of this environment.
    if unsafe { sys::napi_get_element(raw_env, array, k, &raw mut item) } != sys::Status::napi_ok {
      return Err(holding_else());
    }
    // A string past `lengths` is refused when the columns are read; its length is asked for.
    let room = lengths.get(k as usize).map_or(0, |&len| len as usize + 2);
    units.clear();
    units.reserve(room);
    let mut copied = 0usize;
    let buffer = if room == 0 {
      std::ptr::null_mut()
    } else {
      units.as_mut_ptr()
    };
    // SAFETY: `buffer` holds `room` units (or is null, and the length is written to `copied`).
    let status =
      unsafe { sys::napi_get_value_string_utf16(raw_env, item, buffer, room, &raw mut copied) };
    if status != sys::Status::napi_ok {
      return Err(holding_else());
    }
    if room == 0 {
      list.push((String::new(), copied));
      continue;
    }
    // SAFETY: napi wrote `copied` units (at most `room - 1`, then a terminating zero).
    unsafe { units.set_len(copied) };
    let mut length = copied;
    if copied + 1 == room {
      // Longer than `lengths` says: its length, for the error.
      // SAFETY: a null buffer asks for the length.
      let status = unsafe {
        sys::napi_get_value_string_utf16(raw_env, item, std::ptr::null_mut(), 0, &raw mut length)
      };
      if status != sys::Status::napi_ok {
        return Err(holding_else());
      }
    }
    list.push((decode_units(&units, true).unwrap_or_default(), length));
  }
  Ok(list)
}

/// `joined` of a string: its UTF-16 code units, as napi copies them at once.
#[cfg(not(target_family = "wasm"))]
fn joined_text(env: &Env, value: &Unknown<'_>) -> std::result::Result<Joined, Fail> {
  // SAFETY: `value` is a live value of this call's environment.
  let units = unsafe { Utf16String::from_napi_value(env.raw(), value.raw()) }.map_err(|_| {
    crate::error::take_exception(env);
    not_strings(value)
  })?;
  Ok(Joined::Units(units.to_vec()))
}

/// The error for a `strings` column that is neither a string nor an array.
fn not_strings(value: &Unknown<'_>) -> Fail {
  let ty = value.get_type().unwrap_or(ValueType::Unknown);
  Fail::new(
    "columns",
    format!(
      "columns.strings: expected a string or an array of strings, got {}",
      describe(ty)
    ),
  )
}

/// More messages than a conversation may have.
fn too_many() -> Fail {
  Fail::new(
    "columns",
    format!(
      "columns: expected at most {} messages",
      grouped(MAX_MESSAGES)
    ),
  )
}

/// `joined` of a string on WebAssembly: its UTF-8, which the shim's encoder writes natively (emnapi
/// copies UTF-16 a code unit at a time, 20 times slower). The encoder writes a lone surrogate as
/// U+FFFD: text holding one is read again as code units, so that the column is refused as natively.
#[cfg(target_family = "wasm")]
fn joined_text(env: &Env, value: &Unknown<'_>) -> std::result::Result<Joined, Fail> {
  let wrong = || not_strings(value);
  // SAFETY: `value` is a live value of this call's environment.
  let text = unsafe { String::from_napi_value(env.raw(), value.raw()) }.map_err(|_| wrong())?;
  if !text.contains(char::REPLACEMENT_CHARACTER) {
    return Ok(Joined::Utf8(text));
  }
  // SAFETY: as above.
  let units =
    unsafe { Utf16String::from_napi_value(env.raw(), value.raw()) }.map_err(|_| wrong())?;
  Ok(Joined::Units(units.to_vec()))
}

/// Column `key` of `obj`, of type `T` (a typed array, or the string).
fn column<T: FromNapiValue>(
  env: &Env,
  obj: &Object<'_>,
  key: &str,
) -> std::result::Result<T, Fail> {
  let value: Option<Unknown<'_>> = obj
    .get(key)
    .map_err(|e| Fail::unreadable(env, "columns", &e))?;
  let wrong = |ty: ValueType| {
    Fail::new(
      "columns",
      format!(
        "columns.{key}: expected {}, got {}",
        expected(key),
        describe(ty)
      ),
    )
  };
  let Some(value) = value else {
    return Err(wrong(ValueType::Undefined));
  };
  let ty = value
    .get_type()
    .map_err(|e| Fail::unreadable(env, "columns", &e))?;
  // SAFETY: `value` is a live value of this call's environment.
  unsafe { T::from_napi_value(env.raw(), value.raw()) }.map_err(|_| {
    // A typed array of another kind (or a thrown getter, cleared with it).
    crate::error::take_exception(env);
    wrong(ty)
  })
}

fn expected(key: &str) -> &'static str {
  match key {
    "ints" | "lengths" => "a Uint32Array",
    "nums" | "args" => "a Float64Array",
    _ => "a string or an array of strings",
  }
}
