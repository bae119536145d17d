//! Converting JavaScript arguments with errors that name the culprit.
//!
//! napi's own conversions fail with its status names (`InvalidArg`, `StringExpected`, …) and
//! without the message index, and its JSON conversion cannot say *which* option is `NaN`. Every
//! entry point converts through here instead, so a bad argument always becomes an error with a
//! stable `code` (`INVALID_OPTIONS`, `INVALID_MESSAGE`, `INVALID_CONTEXT`), a `path` and, for
//! messages, a `messageIndex`.

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use serde_json::{Map, Number, Value};

use crate::error::to_js_error;
use crate::wire::{EditContext, Message};

/// Options are a small JSON object; anything deeper is a mistake (or a cycle).
const MAX_OPTIONS_DEPTH: usize = 64;

/// Editor options as JSON: `undefined`/`null` = defaults; `NaN`, `Infinity`, functions, symbols,
/// BigInts, lone surrogates, cycles and depth bombs are `INVALID_OPTIONS` naming the path.
pub fn options_from_js(env: &Env, value: Option<Unknown<'_>>) -> Result<Value> {
  let Some(value) = value else {
    return Ok(Value::Null);
  };
  json_from_js(value, "", 0)
    .map(Option::unwrap_or_default)
    .map_err(|(path, what)| {
      let path = if path.is_empty() {
        "options".to_owned()
      } else {
        path
      };
      to_js_error(env, &core::Error::invalid_option(path, what))
    })
}

fn join(path: &str, key: &str) -> String {
  if path.is_empty() {
    key.to_owned()
  } else {
    format!("{path}.{key}")
  }
}

/// `Ok(None)` for `undefined` (an absent field, as in `JSON.stringify`).
fn json_from_js(
  v: Unknown<'_>,
  path: &str,
  depth: usize,
) -> std::result::Result<Option<Value>, (String, String)> {
  let fail = |what: String| (path.to_owned(), what);
  let read = |e: Error| (path.to_owned(), format!("could not be read ({})", e.reason));
  let ty = v.get_type().map_err(read)?;
  let value = match ty {
    ValueType::Undefined => return Ok(None),
    ValueType::Null => Value::Null,
    ValueType::Boolean => Value::Bool(v.coerce_to_bool().map_err(read)?),
    ValueType::Number => {
      let n = v
        .coerce_to_number()
        .and_then(|n| n.get_double())
        .map_err(read)?;
      let shown = if n.is_nan() {
        "NaN"
      } else if n > 0.0 {
        "Infinity"
      } else {
        "-Infinity"
      };
      Value::Number(
        json_number(n).ok_or_else(|| fail(format!("expected a finite number, got {shown}")))?,
      )
    }
    ValueType::String => {
      let s = v
        .coerce_to_string()
        .and_then(|s| s.into_utf16())
        .map_err(read)?;
      // `as_str` fails exactly when the UTF-16 text has a lone surrogate.
      Value::String(
        s.as_str()
          .map_err(|_| fail("contains a lone UTF-16 surrogate (not valid Unicode)".to_owned()))?,
      )
    }
    ValueType::Object => {
      if depth >= MAX_OPTIONS_DEPTH {
        return Err(fail(format!(
          "nested more than {MAX_OPTIONS_DEPTH} levels deep (a cycle?)"
        )));
      }
      let obj = v.coerce_to_object().map_err(read)?;
      if v.is_array().map_err(read)? {
        let len = obj.get_array_length().map_err(read)?;
        let mut list = Vec::with_capacity(len.min(1024) as usize);
        for i in 0..len {
          let at = format!("{path}[{i}]");
          let item: Unknown<'_> = obj
            .get_element(i)
            .map_err(|e| (at.clone(), format!("could not be read ({})", e.reason)))?;
          list.push(json_from_js(item, &at, depth + 1)?.unwrap_or(Value::Null));
        }
        Value::Array(list)
      } else {
        let mut map = Map::new();
        for key in own_keys(&obj).map_err(read)? {
          let at = join(path, &key);
          let item: Option<Unknown<'_>> = obj
            .get(&key)
            .map_err(|e| (at.clone(), format!("could not be read ({})", e.reason)))?;
          if let Some(item) = item {
            if let Some(value) = json_from_js(item, &at, depth + 1)? {
              map.insert(key, value);
            }
          }
        }
        Value::Object(map)
      }
    }
    ValueType::BigInt => return Err(fail("expected a number, got a bigint".to_owned())),
    ValueType::Function => return Err(fail("expected JSON data, got a function".to_owned())),
    ValueType::Symbol => return Err(fail("expected JSON data, got a symbol".to_owned())),
    _ => return Err(fail("expected JSON data".to_owned())),
  };
  Ok(Some(value))
}

/// Own enumerable string keys, as `JSON.stringify` and `Object.keys` see them (napi's
/// `Object::keys` also walks the prototype chain, so inherited keys would count as options).
fn own_keys(obj: &Object<'_>) -> Result<Vec<String>> {
  let names = obj.get_all_property_names(
    KeyCollectionMode::OwnOnly,
    KeyFilter::Enumerable,
    KeyConversion::NumbersToStrings,
  )?;
  let len = names.get_array_length()?;
  let mut keys = Vec::with_capacity(len as usize);
  for i in 0..len {
    let key: Unknown<'_> = names.get_element(i)?;
    if key.get_type()? == ValueType::String {
      keys.push(key.coerce_to_string()?.into_utf8()?.into_owned()?);
    }
  }
  Ok(keys)
}

/// A JS number as JSON, integers as integers (what the option validator checks); `None` for
/// `NaN` and the infinities.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn json_number(n: f64) -> Option<Number> {
  if !n.is_finite() {
    return None;
  }
  if n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_991.0 {
    return Some(if n >= 0.0 {
      Number::from(n as u64)
    } else {
      Number::from(n as i64)
    });
  }
  Number::from_f64(n)
}

/// The field named by one of napi's conversion errors (`… on Message.toolCalls`,
/// "Missing field `role`"), for the error's `path`.
fn napi_field(reason: &str, type_name: &str) -> Option<String> {
  let marker = format!(" on {type_name}.");
  if let Some(at) = reason.rfind(&marker) {
    let field: String = reason[at + marker.len()..]
      .chars()
      .take_while(|c| c.is_alphanumeric() || *c == '_')
      .collect();
    if !field.is_empty() {
      return Some(field);
    }
  }
  let start = reason.find("field `")? + "field `".len();
  let end = reason[start..].find('`')?;
  Some(reason[start..start + end].to_owned())
}

fn raw_error(env: &Env, code: &str, path: &str, message: String) -> Error {
  let build = || -> Result<Error> {
    let mut obj = env.create_error(Error::new(Status::InvalidArg, message.clone()))?;
    obj.set_named_property("code", code)?;
    obj.set_named_property("path", path)?;
    Ok(Error::from(obj.into_unknown(env)?))
  };
  build().unwrap_or_else(|_| Error::new(Status::InvalidArg, format!("[{code}] {message}")))
}

fn describe(ty: ValueType) -> &'static str {
  match ty {
    ValueType::Undefined => "undefined",
    ValueType::Null => "null",
    ValueType::Boolean => "a boolean",
    ValueType::Number => "a number",
    ValueType::String => "a string",
    ValueType::Symbol => "a symbol",
    ValueType::Object => "an object",
    ValueType::Function => "a function",
    ValueType::BigInt => "a bigint",
    _ => "an unknown value",
  }
}

/// Wire messages: a non-array is `INVALID_MESSAGE` at path `messages`; a message napi cannot
/// convert is `INVALID_MESSAGE` with its index (plus `offset`, the index of the first one in the
/// conversation) and field.
pub fn messages_from_js(env: &Env, value: Unknown<'_>, offset: usize) -> Result<Vec<Message>> {
  let ty = value.get_type()?;
  if ty != ValueType::Object || !value.is_array()? {
    return Err(raw_error(
      env,
      "INVALID_MESSAGE",
      "messages",
      format!(
        "messages: expected an array of messages, got {}",
        describe(ty)
      ),
    ));
  }
  let list = value.coerce_to_object()?;
  let len = list.get_array_length()?;
  let mut out = Vec::with_capacity(len as usize);
  for i in 0..len {
    let item: Unknown<'_> = list.get_element(i)?;
    let ty = item.get_type()?;
    let index = offset + i as usize;
    if ty != ValueType::Object || item.is_array()? {
      return Err(to_js_error(
        env,
        &core::Error::invalid_message(
          index,
          "role",
          format!("expected a message object, got {}", describe(ty)),
        ),
      ));
    }
    let message: Message = list.get_element(i).map_err(|e| {
      let field = napi_field(&e.reason, "Message").unwrap_or_else(|| "role".to_owned());
      to_js_error(
        env,
        &core::Error::invalid_message(index, field, e.reason.clone()),
      )
    })?;
    out.push(message);
  }
  Ok(out)
}

/// The call context: `undefined`/`null` = none; anything but an object, or a field napi cannot
/// convert, is `INVALID_CONTEXT` naming the field.
pub fn context_from_js(env: &Env, value: Option<Unknown<'_>>) -> Result<Option<EditContext>> {
  let Some(value) = value else {
    return Ok(None);
  };
  let ty = value.get_type()?;
  match ty {
    ValueType::Undefined | ValueType::Null => return Ok(None),
    ValueType::Object if !value.is_array()? => {}
    _ => {
      return Err(raw_error(
        env,
        "INVALID_CONTEXT",
        "context",
        format!("context: expected an object, got {}", describe(ty)),
      ))
    }
  }
  let obj = value.coerce_to_object()?;
  let field =
    |name: &'static str, e: Error| to_js_error(env, &core::Error::invalid_context(name, e.reason));
  Ok(Some(EditContext {
    max_input_tokens: obj
      .get::<Option<f64>>("maxInputTokens")
      .map_err(|e| field("maxInputTokens", e))?
      .flatten(),
    system_prompt: obj
      .get::<Option<String>>("systemPrompt")
      .map_err(|e| field("systemPrompt", e))?
      .flatten(),
    tools: obj
      .get::<Option<Vec<String>>>("tools")
      .map_err(|e| field("tools", e))?
      .flatten(),
    model: obj
      .get::<Option<String>>("model")
      .map_err(|e| field("model", e))?
      .flatten(),
    cache_breakpoints_in_use: obj
      .get::<Option<u32>>("cacheBreakpointsInUse")
      .map_err(|e| field("cacheBreakpointsInUse", e))?
      .flatten(),
  }))
}
