//! Editor options as JSON, with the path of whatever cannot be JSON.

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};

use serde_json::{Map, Number, Value};

use super::polluted::Polluted;
use super::{grouped, join, Fail, MAX_OPTIONS_DEPTH, MAX_OPTIONS_LIST};
use crate::error::caller_error;

/// Editor options as JSON: `undefined`/`null` = defaults; `NaN`, `Infinity`, functions, symbols,
/// BigInts, lone surrogates, cycles, depth bombs, lists over 100,000 entries and values that
/// cannot be read are `INVALID_OPTIONS` naming the path.
pub fn options_from_js(env: &Env, value: Option<Unknown<'_>>) -> Result<Value> {
  let Some(value) = value else {
    return Ok(Value::Null);
  };
  let polluted = Polluted::check(env)?.is_some();
  json_from_js(env, value, "", 0, polluted)
    .map(Option::unwrap_or_default)
    .map_err(|f| {
      let path = if f.path.is_empty() {
        "options".to_owned()
      } else {
        f.path
      };
      caller_error(env, &core::Error::invalid_option(path, f.what), f.cause)
    })
}

/// `Ok(None)` for `undefined` (an absent field, as in `JSON.stringify`). `polluted`: a hole of a
/// list is read as one, whatever `Object.prototype` holds at its index (see `Polluted`).
fn json_from_js(
  env: &Env,
  v: Unknown<'_>,
  path: &str,
  depth: usize,
  polluted: bool,
) -> std::result::Result<Option<Value>, Fail> {
  let fail = |what: String| Fail::new(path, what);
  let read = |e: Error| Fail::unreadable(env, path, &e);
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
        .and_then(napi::JsString::into_utf16)
        .map_err(read)?;
      // `as_str` fails exactly when the UTF-16 text has a lone surrogate.
      Value::String(
        s.as_str()
          .map_err(|_| fail("contains a lone UTF-16 surrogate (not valid Unicode)".to_owned()))?,
      )
    }
    ValueType::Object => json_container(env, &v, path, depth, polluted)?,
    ValueType::BigInt => return Err(fail("expected a number, got a bigint".to_owned())),
    ValueType::Function => return Err(fail("expected JSON data, got a function".to_owned())),
    ValueType::Symbol => return Err(fail("expected JSON data, got a symbol".to_owned())),
    _ => return Err(fail("expected JSON data".to_owned())),
  };
  Ok(Some(value))
}

/// An array or object option value, entry by entry (see `json_from_js`).
fn json_container(
  env: &Env,
  v: &Unknown<'_>,
  path: &str,
  depth: usize,
  polluted: bool,
) -> std::result::Result<Value, Fail> {
  let fail = |what: String| Fail::new(path, what);
  let read = |e: Error| Fail::unreadable(env, path, &e);
  if depth >= MAX_OPTIONS_DEPTH {
    return Err(fail(format!(
      "nested more than {MAX_OPTIONS_DEPTH} levels deep (a cycle?)"
    )));
  }
  let obj = v.coerce_to_object().map_err(read)?;
  if v.is_array().map_err(read)? {
    let len = obj.get_array_length().map_err(read)?;
    if len > MAX_OPTIONS_LIST {
      return Err(fail(format!(
        "expected a list of at most {} entries, got {}",
        grouped(MAX_OPTIONS_LIST),
        grouped(len)
      )));
    }
    let mut list = Vec::with_capacity(len as usize);
    for i in 0..len {
      let at = format!("{path}[{i}]");
      let unreadable = |e: Error| Fail::unreadable(env, at.clone(), &e);
      if polluted && Polluted::hole(&obj, i).map_err(unreadable)? {
        list.push(Value::Null);
        continue;
      }
      let item: Unknown<'_> = obj.get_element(i).map_err(unreadable)?;
      list.push(json_from_js(env, item, &at, depth + 1, polluted)?.unwrap_or(Value::Null));
    }
    Ok(Value::Array(list))
  } else {
    let mut map = Map::new();
    for key in own_keys(&obj).map_err(read)? {
      let at = join(path, &key);
      let item: Option<Unknown<'_>> = obj
        .get(&key)
        .map_err(|e| Fail::unreadable(env, at.clone(), &e))?;
      if let Some(item) = item {
        if let Some(value) = json_from_js(env, item, &at, depth + 1, polluted)? {
          map.insert(key, value);
        }
      }
    }
    Ok(Value::Object(map))
  }
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
