//! The call context and the index arguments of session calls.

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use napi_derive::napi;

use super::polluted::Polluted;
use super::{describe, grouped, Fail, MAX_ITEMS};
use crate::error::{caller_error, coded_error, take_exception, thrown_text};
use crate::message::EditContext;

/// The fields of the call context.
const CONTEXT_FIELDS: [&str; 10] = [
  "maxInputTokens",
  "systemPrompt",
  "tools",
  "systemPromptLength",
  "toolLengths",
  "model",
  "cacheBreakpointsInUse",
  "anchorIndex",
  "anchorTokens",
  "tokenCorrection",
];

/// A call context read once and kept native: every call given it reads no field of an object. A
/// host that sends the same context on every model call holds it once (the package's sessions
/// do, per conversation: `ts/sessions.ts`), and a call then takes a copy of what was read instead
/// of reading about 40 values through Node-API (on the WebAssembly build, each is emnapi's
/// JavaScript). What it holds is checked against the editor when a call uses it, as the object's
/// fields are (`INVALID_CONTEXT` naming the field).
#[napi]
pub struct HeldContext {
  context: Option<EditContext>,
}

#[napi]
impl HeldContext {
  /// Reads `context` (an `EditContext`, another `HeldContext`, `undefined` or `null`) now.
  ///
  /// @throws {Error} with `code` `INVALID_CONTEXT` naming the field that cannot be read or is of
  /// the wrong type, as a call given the object would.
  #[napi(constructor)]
  pub fn new(
    env: Env,
    #[napi(ts_arg_type = "EditContext | HeldContext | undefined | null")] context: Option<
      Unknown<'_>,
    >,
  ) -> Result<Self> {
    Ok(Self {
      context: context_from_js(&env, context)?,
    })
  }
}

/// The call context: `undefined`/`null` = none; a `HeldContext`, what it read; anything but an
/// object, or a field that cannot be converted or read, is `INVALID_CONTEXT` naming the field.
pub fn context_from_js(env: &Env, value: Option<Unknown<'_>>) -> Result<Option<EditContext>> {
  let Some(value) = value else {
    return Ok(None);
  };
  let fail = |f: Fail| caller_error(env, &core::Error::invalid_context(f.path, f.what), f.cause);
  let whole = |f: Fail| whole_error(env, f);
  let ty = value
    .get_type()
    .map_err(|e| whole(Fail::unreadable(env, "context", &e)))?;
  if ty == ValueType::Object {
    if let Some(held) = held(env, &value) {
      return Ok(held.context.clone());
    }
  }
  let Some(obj) = context_object(env, value, ty)? else {
    return Ok(None);
  };
  let polluted = Polluted::check(env).map_err(|e| whole(Fail::unreadable(env, "context", &e)))?;
  let obj = match &polluted {
    Some(p) => p
      .view(
        env,
        &obj,
        &CONTEXT_FIELDS,
        &["tools", "toolLengths"],
        &[],
        "",
      )
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
    system_prompt_length: number("systemPromptLength")?,
    tool_lengths: tool_lengths_from_js(env, &obj).map_err(fail)?,
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

/// The object `value` as a `HeldContext`, when it is one (an object that napi wrapped as one;
/// another object, even one whose prototype claims the class, is not).
fn held<'v>(env: &Env, value: &Unknown<'v>) -> Option<ClassInstance<'v, HeldContext>> {
  // SAFETY: `value` is a live value of this call's environment; a failed unwrap sets no exception.
  unsafe { ClassInstance::<HeldContext>::from_napi_value(env.raw(), value.raw()) }.ok()
}

/// An error about the context as a whole: its message says `context: …` (a field's says
/// `context.<field>: …`).
fn whole_error(env: &Env, f: Fail) -> Error {
  coded_error(
    env,
    "INVALID_CONTEXT",
    &format!("context: {}", f.what),
    Some("context"),
    None,
    f.cause,
  )
}

/// The context (of type `ty`) as an object: `None` for `undefined`/`null`; anything but a
/// (non-array) object is `INVALID_CONTEXT`.
fn context_object<'v>(env: &Env, value: Unknown<'v>, ty: ValueType) -> Result<Option<Object<'v>>> {
  let whole = |f: Fail| whole_error(env, f);
  let is_array = ty == ValueType::Object
    && value
      .is_array()
      .map_err(|e| whole(Fail::unreadable(env, "context", &e)))?;
  match ty {
    ValueType::Undefined | ValueType::Null => Ok(None),
    ValueType::Object if !is_array => value
      .coerce_to_object()
      .map(Some)
      .map_err(|e| whole(Fail::unreadable(env, "context", &e))),
    _ => Err(whole(Fail::new(
      "context",
      format!("expected an object, got {}", describe(ty)),
    ))),
  }
}

/// `context.tools`: at most 100,000 JSON strings, each read and checked on its own.
fn tools_from_js(env: &Env, obj: &Object<'_>) -> std::result::Result<Option<Vec<String>>, Fail> {
  list_from_js(
    env,
    obj,
    "tools",
    "JSON strings",
    "tool definitions",
    |item, ty, at| {
      if ty != ValueType::String {
        return Err(Fail::new(
          at,
          format!("expected a JSON string, got {}", describe(ty)),
        ));
      }
      item
        .coerce_to_string()
        .and_then(napi::JsString::into_utf8)
        .and_then(napi::JsStringUtf8::into_owned)
        .map_err(|e| Fail::unreadable(env, at, &e))
    },
  )
}

/// `context.toolLengths`: at most 100,000 numbers (checked as lengths by `context_from_wire`).
fn tool_lengths_from_js(
  env: &Env,
  obj: &Object<'_>,
) -> std::result::Result<Option<Vec<f64>>, Fail> {
  list_from_js(
    env,
    obj,
    "toolLengths",
    "numbers",
    "lengths",
    |item, ty, at| {
      if ty != ValueType::Number {
        return Err(Fail::new(
          at,
          format!("expected a number, got {}", describe(ty)),
        ));
      }
      item
        .coerce_to_number()
        .and_then(|n| n.get_double())
        .map_err(|e| Fail::unreadable(env, at, &e))
    },
  )
}

/// `context.<name>`: `undefined`/`null` (none) or an array of at most 100,000 entries (its length
/// is checked before any entry is read), each read by `item` with its type and path.
fn list_from_js<T>(
  env: &Env,
  obj: &Object<'_>,
  name: &str,
  entries: &str,
  what: &str,
  item: impl Fn(Unknown<'_>, ValueType, String) -> std::result::Result<T, Fail>,
) -> std::result::Result<Option<Vec<T>>, Fail> {
  let value: Option<Unknown<'_>> = obj.get(name).map_err(|e| Fail::unreadable(env, name, &e))?;
  let Some(value) = value else {
    return Ok(None);
  };
  let ty = value
    .get_type()
    .map_err(|e| Fail::unreadable(env, name, &e))?;
  if matches!(ty, ValueType::Undefined | ValueType::Null) {
    return Ok(None);
  }
  if ty != ValueType::Object
    || !value
      .is_array()
      .map_err(|e| Fail::unreadable(env, name, &e))?
  {
    return Err(Fail::new(
      name,
      format!("expected an array of {entries}, got {}", describe(ty)),
    ));
  }
  let list = value
    .coerce_to_object()
    .map_err(|e| Fail::unreadable(env, name, &e))?;
  let len = list
    .get_array_length()
    .map_err(|e| Fail::unreadable(env, name, &e))?;
  if len > MAX_ITEMS {
    return Err(Fail::new(
      name,
      format!(
        "expected at most {} {what}, got {}",
        grouped(MAX_ITEMS),
        grouped(len)
      ),
    ));
  }
  let mut out = Vec::with_capacity(len as usize);
  for i in 0..len {
    let at = format!("{name}[{i}]");
    let entry: Unknown<'_> = list
      .get_element(i)
      .map_err(|e| Fail::unreadable(env, at.clone(), &e))?;
    let ty = entry
      .get_type()
      .map_err(|e| Fail::unreadable(env, at.clone(), &e))?;
    out.push(item(entry, ty, at)?);
  }
  Ok(Some(out))
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
