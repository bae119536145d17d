//! The call context and the index arguments of session calls.

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};

use super::polluted::Polluted;
use super::{describe, grouped, Fail, MAX_ITEMS};
use crate::error::{caller_error, coded_error, take_exception, thrown_text};
use crate::message::EditContext;

/// The fields of the call context.
const CONTEXT_FIELDS: [&str; 8] = [
  "maxInputTokens",
  "systemPrompt",
  "tools",
  "model",
  "cacheBreakpointsInUse",
  "anchorIndex",
  "anchorTokens",
  "tokenCorrection",
];

/// The call context: `undefined`/`null` = none; anything but an object, or a field that cannot be
/// converted or read, is `INVALID_CONTEXT` naming the field.
pub fn context_from_js(env: &Env, value: Option<Unknown<'_>>) -> Result<Option<EditContext>> {
  let Some(value) = value else {
    return Ok(None);
  };
  let fail = |f: Fail| caller_error(env, &core::Error::invalid_context(f.path, f.what), f.cause);
  // The context as a whole: its message says `context: …` (a field's says `context.<field>: …`).
  let whole = |f: Fail| {
    coded_error(
      env,
      "INVALID_CONTEXT",
      &format!("context: {}", f.what),
      Some("context"),
      None,
      f.cause,
    )
  };
  let ty = value
    .get_type()
    .map_err(|e| whole(Fail::unreadable(env, "context", &e)))?;
  let is_array = ty == ValueType::Object
    && value
      .is_array()
      .map_err(|e| whole(Fail::unreadable(env, "context", &e)))?;
  match ty {
    ValueType::Undefined | ValueType::Null => return Ok(None),
    ValueType::Object if !is_array => {}
    _ => {
      return Err(whole(Fail::new(
        "context",
        format!("expected an object, got {}", describe(ty)),
      )))
    }
  }
  let obj = value
    .coerce_to_object()
    .map_err(|e| whole(Fail::unreadable(env, "context", &e)))?;
  let polluted = Polluted::check(env).map_err(|e| whole(Fail::unreadable(env, "context", &e)))?;
  let obj = match &polluted {
    Some(p) => p
      .view(env, &obj, &CONTEXT_FIELDS, &["tools"], &[], "")
      .map_err(fail)?,
    None => obj,
  };
  let field = |name: &'static str, e: Error| {
    let cause = take_exception(env);
    let what = cause.map_or_else(
      || e.reason.clone(),
      |thrown| format!("could not be read ({})", thrown_text(env, thrown)),
    );
    fail(Fail {
      path: name.to_owned(),
      what,
      cause,
    })
  };
  let number = |name: &'static str| -> Result<Option<f64>> {
    Ok(
      obj
        .get::<Option<f64>>(name)
        .map_err(|e| field(name, e))?
        .flatten(),
    )
  };
  Ok(Some(EditContext {
    max_input_tokens: number("maxInputTokens")?,
    system_prompt: obj
      .get::<Option<String>>("systemPrompt")
      .map_err(|e| field("systemPrompt", e))?
      .flatten(),
    tools: tools_from_js(env, &obj).map_err(fail)?,
    model: obj
      .get::<Option<String>>("model")
      .map_err(|e| field("model", e))?
      .flatten(),
    cache_breakpoints_in_use: obj
      .get::<Option<u32>>("cacheBreakpointsInUse")
      .map_err(|e| field("cacheBreakpointsInUse", e))?
      .flatten(),
    anchor_index: number("anchorIndex")?,
    anchor_tokens: number("anchorTokens")?,
    token_correction: number("tokenCorrection")?,
  }))
}

/// `context.tools`: at most 100,000 JSON strings, each read and checked on its own.
fn tools_from_js(env: &Env, obj: &Object<'_>) -> std::result::Result<Option<Vec<String>>, Fail> {
  let value: Option<Unknown<'_>> = obj
    .get("tools")
    .map_err(|e| Fail::unreadable(env, "tools", &e))?;
  let Some(value) = value else {
    return Ok(None);
  };
  let ty = value
    .get_type()
    .map_err(|e| Fail::unreadable(env, "tools", &e))?;
  if matches!(ty, ValueType::Undefined | ValueType::Null) {
    return Ok(None);
  }
  if ty != ValueType::Object
    || !value
      .is_array()
      .map_err(|e| Fail::unreadable(env, "tools", &e))?
  {
    return Err(Fail::new(
      "tools",
      format!("expected an array of JSON strings, got {}", describe(ty)),
    ));
  }
  let list = value
    .coerce_to_object()
    .map_err(|e| Fail::unreadable(env, "tools", &e))?;
  let len = list
    .get_array_length()
    .map_err(|e| Fail::unreadable(env, "tools", &e))?;
  if len > MAX_ITEMS {
    return Err(Fail::new(
      "tools",
      format!(
        "expected at most {} tool definitions, got {}",
        grouped(MAX_ITEMS),
        grouped(len)
      ),
    ));
  }
  let mut tools = Vec::with_capacity(len as usize);
  for i in 0..len {
    let at = format!("tools[{i}]");
    let item: Unknown<'_> = list
      .get_element(i)
      .map_err(|e| Fail::unreadable(env, at.clone(), &e))?;
    let ty = item
      .get_type()
      .map_err(|e| Fail::unreadable(env, at.clone(), &e))?;
    if ty != ValueType::String {
      return Err(Fail::new(
        at,
        format!("expected a JSON string, got {}", describe(ty)),
      ));
    }
    tools.push(
      item
        .coerce_to_string()
        .and_then(napi::JsString::into_utf8)
        .and_then(napi::JsStringUtf8::into_owned)
        .map_err(|e| Fail::unreadable(env, at.clone(), &e))?,
    );
  }
  Ok(Some(tools))
}

/// A non-negative integer argument below 2^32 (`session`, `reuse`); anything else is
/// `INVALID_CONTEXT` naming the argument.
pub fn index_from_js(env: &Env, value: Unknown<'_>, name: &str) -> Result<u32> {
  let fail = |f: Fail| caller_error(env, &core::Error::invalid_context(f.path, f.what), f.cause);
  let ty = value
    .get_type()
    .map_err(|e| fail(Fail::unreadable(env, name, &e)))?;
  if ty != ValueType::Number {
    return Err(fail(Fail::new(
      name,
      format!("expected a non-negative integer, got {}", describe(ty)),
    )));
  }
  let n = value
    .coerce_to_number()
    .and_then(|n| n.get_double())
    .map_err(|e| fail(Fail::unreadable(env, name, &e)))?;
  if n.fract() != 0.0 || !(0.0..=f64::from(u32::MAX)).contains(&n) {
    return Err(fail(Fail::new(
      name,
      format!("expected a non-negative integer below 2^32, got {n}"),
    )));
  }
  #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
  Ok(n as u32)
}
