//! A wire `Message` read as napi-rs's derived reader reads it, field by field in declaration order
//! with the same conversions and the same errors, but with property keys made once per call.
//!
//! The derived reader passes each field's name as a C string to `napi_get_named_property`, and V8
//! then makes a string of it and looks it up in its string table: for every field of every message
//! (`perf`: about a fifth of reading a lengths-only message). A key made once is internalized on
//! its first lookup and found at once after that. Everything else is the derive's own code path:
//! `from_raw_required_field` / `from_raw_optional_field` convert and decorate the errors
//! ("... on Message.<field>"), so `napi_field` names the field as before. Adding a field to
//! `Message` fails to compile here until it is read here too, in its place.

use napi::bindgen_prelude::{from_raw_optional_field, from_raw_required_field, Result};
use napi::{check_status, sys, Env, JsValue};

use crate::message::Message;

/// The wire `Message` fields, in declaration order (src/message.rs), as JavaScript names them.
const FIELDS: [&str; 18] = [
  "role",
  "content",
  "contentLength",
  "other",
  "otherLength",
  "thinking",
  "thinkingLength",
  "images",
  "imageTokens",
  "toolCalls",
  "toolCallsLength",
  "toolCallId",
  "name",
  "cleared",
  "truncated",
  "clearedToolInputs",
  "tokens",
  "pinned",
];

/// The property keys of one call (valid in its handle scope).
pub struct Keys([sys::napi_value; FIELDS.len()]);

impl Keys {
  pub fn new(env: &Env) -> Result<Self> {
    let mut keys = [std::ptr::null_mut(); FIELDS.len()];
    for (key, name) in keys.iter_mut().zip(FIELDS) {
      *key = env.create_string(name)?.raw();
    }
    Ok(Self(keys))
  }
}

/// The value of `obj[key]`, `None` when it is `undefined` (as `get_named_property_raw`).
///
/// # Safety
/// `env`, `obj` and `key` are live handles of the current call.
unsafe fn get(
  env: sys::napi_env,
  obj: sys::napi_value,
  key: sys::napi_value,
) -> Result<Option<sys::napi_value>> {
  let mut value = std::ptr::null_mut();
  // SAFETY: live handles (the caller's contract); `value` is written by napi.
  check_status!(
    unsafe { sys::napi_get_property(env, obj, key, &raw mut value) },
    "Failed to get property"
  )?;
  let mut ty = 0;
  // SAFETY: as above; `value` was just returned by napi.
  check_status!(
    unsafe { sys::napi_typeof(env, value, &raw mut ty) },
    "Failed to get property type"
  )?;
  Ok((ty != sys::ValueType::napi_undefined).then_some(value))
}

/// Reads a wire message.
///
/// # Safety
/// `env` and `obj` are live handles of the current call, `keys` were made in it.
pub unsafe fn read(env: sys::napi_env, obj: sys::napi_value, keys: &Keys) -> Result<Message> {
  let k = &keys.0;
  // SAFETY: live handles (the caller's contract); the values converted were just read from `obj`.
  unsafe {
    // Struct fields are evaluated in the order written: the derive's order, so the first bad
    // field is the one named.
    Ok(Message {
      role: from_raw_required_field(env, get(env, obj, k[0])?, "Message", FIELDS[0])?,
      content: from_raw_optional_field(env, get(env, obj, k[1])?, "Message", FIELDS[1])?,
      content_length: from_raw_optional_field(env, get(env, obj, k[2])?, "Message", FIELDS[2])?,
      other: from_raw_optional_field(env, get(env, obj, k[3])?, "Message", FIELDS[3])?,
      other_length: from_raw_optional_field(env, get(env, obj, k[4])?, "Message", FIELDS[4])?,
      thinking: from_raw_optional_field(env, get(env, obj, k[5])?, "Message", FIELDS[5])?,
      thinking_length: from_raw_optional_field(env, get(env, obj, k[6])?, "Message", FIELDS[6])?,
      images: from_raw_optional_field(env, get(env, obj, k[7])?, "Message", FIELDS[7])?,
      image_tokens: from_raw_optional_field(env, get(env, obj, k[8])?, "Message", FIELDS[8])?,
      tool_calls: from_raw_optional_field(env, get(env, obj, k[9])?, "Message", FIELDS[9])?,
      tool_calls_length: from_raw_optional_field(
        env,
        get(env, obj, k[10])?,
        "Message",
        FIELDS[10],
      )?,
      tool_call_id: from_raw_optional_field(env, get(env, obj, k[11])?, "Message", FIELDS[11])?,
      name: from_raw_optional_field(env, get(env, obj, k[12])?, "Message", FIELDS[12])?,
      cleared: from_raw_optional_field(env, get(env, obj, k[13])?, "Message", FIELDS[13])?,
      truncated: from_raw_optional_field(env, get(env, obj, k[14])?, "Message", FIELDS[14])?,
      cleared_tool_inputs: from_raw_optional_field(
        env,
        get(env, obj, k[15])?,
        "Message",
        FIELDS[15],
      )?,
      tokens: from_raw_optional_field(env, get(env, obj, k[16])?, "Message", FIELDS[16])?,
      pinned: from_raw_optional_field(env, get(env, obj, k[17])?, "Message", FIELDS[17])?,
    })
  }
}
