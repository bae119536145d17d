//! Converting JavaScript arguments with errors that name the culprit.
//!
//! napi's own conversions fail with its status names (`InvalidArg`, `StringExpected`, …) and
//! without the message index, and its JSON conversion cannot say *which* option is `NaN`. Every
//! entry point converts through here instead, so a bad argument always becomes an error with a
//! stable `code` (`INVALID_OPTIONS`, `INVALID_MESSAGE`, `INVALID_CONTEXT`), a `path` and, for
//! messages, a `messageIndex`. When the caller's own code throws while its value is read (a getter,
//! a Proxy trap, a revoked Proxy), that is the caller's error too: same code and path, with what
//! was thrown as `cause`. Lists are checked for length before they are walked: a sparse array
//! (`length = 2 ** 32 - 1`) costs nothing to make and minutes to walk.
//!
//! napi reads a field through the object's prototype chain, which ends at `Object.prototype`: a
//! key someone put there (`Object.prototype.cleared = true`, by a bug or an attack) would become a
//! field of every message, call and context that lacks one. When `Object.prototype` holds keys
//! beyond its standard members (checked once per call, see `Polluted`), messages and the context
//! are read through a view that holds what the object and its class give it, never what
//! `Object.prototype` holds (as the shim's `field` does). Options are read by their own keys anyway.

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi::{sys, JsValue, ValueType};
use serde_json::{Map, Number, Value};

use crate::error::{caller_error, coded_error, take_exception, thrown_text};
use crate::message::{EditContext, Message};

/// Options are a small JSON object; anything deeper is a mistake (or a cycle).
const MAX_OPTIONS_DEPTH: usize = 64;
/// Longest option list (`excludeTools`, `edits`, a trigger list); the shim has the same bound.
const MAX_OPTIONS_LIST: u32 = 100_000;
/// Longest conversation (the shim's `MAX_MESSAGES`).
const MAX_MESSAGES: u32 = 10_000_000;
/// Most tool calls or cleared-input ids in one wire message, tool definitions in one call (the
/// shim's `MAX_ITEMS`).
const MAX_ITEMS: u32 = 100_000;

/// Why a value could not be converted: where, what, and what the caller's code threw, if it did.
struct Fail {
  path: String,
  what: String,
  cause: Option<sys::napi_value>,
}

impl Fail {
  fn new(path: impl Into<String>, what: impl Into<String>) -> Self {
    Self {
      path: path.into(),
      what: what.into(),
      cause: None,
    }
  }

  /// A napi call on the value at `path` failed: when the caller's code threw, that is the cause.
  fn unreadable(env: &Env, path: impl Into<String>, e: &Error) -> Self {
    let cause = take_exception(env);
    let text = cause.map_or_else(|| e.reason.clone(), |thrown| thrown_text(env, thrown));
    Self {
      path: path.into(),
      what: format!("could not be read ({text})"),
      cause,
    }
  }
}

/// `n` with thousands separators, as the shim writes counts in its messages.
fn grouped(n: u32) -> String {
  let digits = n.to_string();
  let mut out = String::with_capacity(digits.len() + digits.len() / 3);
  for (k, c) in digits.chars().enumerate() {
    if k > 0 && (digits.len() - k).is_multiple_of(3) {
      out.push(',');
    }
    out.push(c);
  }
  out
}

/// The members every `Object.prototype` has; any other key on it is pollution.
const STANDARD_MEMBERS: [&str; 12] = [
  "constructor",
  "__defineGetter__",
  "__defineSetter__",
  "hasOwnProperty",
  "__lookupGetter__",
  "__lookupSetter__",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toString",
  "valueOf",
  "__proto__",
  "toLocaleString",
];

/// The fields of a wire `ToolCall`, as napi reads them.
const CALL_FIELDS: [&str; 4] = ["id", "name", "args", "argsLength"];

/// The fields of the call context.
const CONTEXT_FIELDS: [&str; 5] = [
  "maxInputTokens",
  "systemPrompt",
  "tools",
  "model",
  "cacheBreakpointsInUse",
];

/// `Object.prototype`, when it holds keys beyond its standard members (see the module's comment).
struct Polluted<'e>(Object<'e>);

impl<'e> Polluted<'e> {
  /// `Some` when `Object.prototype` holds a string key beyond its standard members.
  fn check(env: &'e Env) -> Result<Option<Self>> {
    let prototype = Object::new(env)?.get_prototype()?.coerce_to_object()?;
    let names = prototype.get_all_property_names(
      KeyCollectionMode::OwnOnly,
      KeyFilter::SkipSymbols,
      KeyConversion::NumbersToStrings,
    )?;
    for i in 0..names.get_array_length()? {
      let key: Unknown<'_> = names.get_element(i)?;
      if key.get_type()? != ValueType::String {
        continue;
      }
      let key = key.coerce_to_string()?.into_utf8()?.into_owned()?;
      if !STANDARD_MEMBERS.contains(&key.as_str()) {
        return Ok(Some(Self(prototype)));
      }
    }
    Ok(None)
  }

  /// Whether reading `key` on `obj` would find it on `Object.prototype`, not on `obj` or its class.
  fn lends(&self, env: &Env, obj: &Object<'_>, key: &str) -> Result<bool> {
    if obj.has_own_property(key)? {
      return Ok(false);
    }
    let mut proto = obj.get_prototype()?;
    while matches!(proto.get_type()?, ValueType::Object | ValueType::Function) {
      let holder = proto.coerce_to_object()?;
      if env.strict_equals(holder, self.0)? {
        return Ok(true);
      }
      if holder.has_own_property(key)? {
        return Ok(false);
      }
      proto = holder.get_prototype()?;
    }
    Ok(false)
  }

  /// A new object holding `fields` of `obj` as the object and its class give them (`undefined`
  /// where only `Object.prototype` would); `lists` name the fields whose arrays are viewed the
  /// same way, entry by entry (objects in them through `entry_fields`).
  fn view<'v>(
    &self,
    env: &'v Env,
    obj: &Object<'_>,
    fields: &[&str],
    lists: &[&str],
    entry_fields: &[&str],
    path: &str,
  ) -> std::result::Result<Object<'v>, Fail> {
    let mut out = Object::new(env).map_err(|e| Fail::unreadable(env, path, &e))?;
    for &key in fields {
      let at = join(path, key);
      let read = |e: Error| Fail::unreadable(env, at.clone(), &e);
      if self.lends(env, obj, key).map_err(read)? {
        out.set(key, ()).map_err(read)?;
        continue;
      }
      let value: Unknown<'_> = obj.get_named_property_unchecked(key).map_err(read)?;
      if lists.contains(&key)
        && value.get_type().map_err(read)? == ValueType::Object
        && value.is_array().map_err(read)?
      {
        let list = self.list_view(
          env,
          &value.coerce_to_object().map_err(read)?,
          entry_fields,
          &at,
        )?;
        out.set(key, list).map_err(read)?;
      } else {
        out.set(key, value).map_err(read)?;
      }
    }
    Ok(out)
  }

  /// The array `list` entry by entry: holes stay empty (whatever a prototype holds at that
  /// index), objects are viewed through `fields`. Longer than `MAX_ITEMS`: left as it is, for the
  /// length check to reject.
  fn list_view<'v>(
    &self,
    env: &'v Env,
    list: &Object<'_>,
    fields: &[&str],
    path: &str,
  ) -> std::result::Result<Unknown<'v>, Fail> {
    let read = |e: Error| Fail::unreadable(env, path, &e);
    let len = list.get_array_length().map_err(read)?;
    if len > MAX_ITEMS {
      return Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), list.raw()) });
    }
    let mut out = env.create_array(len).map_err(read)?;
    for i in 0..len {
      let at = format!("{path}[{i}]");
      let read = |e: Error| Fail::unreadable(env, at.clone(), &e);
      if !list.has_own_property(&i.to_string()).map_err(read)? {
        continue;
      }
      let item: Unknown<'_> = list.get_element(i).map_err(read)?;
      if item.get_type().map_err(read)? == ValueType::Object
        && !item.is_array().map_err(read)?
        && !fields.is_empty()
      {
        let view = self.view(
          env,
          &item.coerce_to_object().map_err(read)?,
          fields,
          &[],
          &[],
          &at,
        )?;
        out.set(i, view).map_err(read)?;
      } else {
        out.set(i, item).map_err(read)?;
      }
    }
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), out.raw()) })
  }

  /// Whether `list[i]` is a hole (whatever a prototype holds at that index).
  fn hole(list: &Object<'_>, i: u32) -> Result<bool> {
    Ok(!list.has_own_property(&i.to_string())?)
  }
}

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

fn join(path: &str, key: &str) -> String {
  if path.is_empty() {
    key.to_owned()
  } else {
    format!("{path}.{key}")
  }
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
        Value::Array(list)
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

/// The fields of a wire `Message`, in the order napi reads them (to find one whose getter throws).
const MESSAGE_FIELDS: [&str; 16] = [
  "role",
  "content",
  "contentLength",
  "other",
  "otherLength",
  "thinking",
  "thinkingLength",
  "images",
  "toolCalls",
  "toolCallsLength",
  "toolCallId",
  "name",
  "cleared",
  "truncated",
  "clearedToolInputs",
  "tokens",
];

/// The lists of a wire `Message` napi would allocate for by their length.
const MESSAGE_LISTS: [&str; 2] = ["toolCalls", "clearedToolInputs"];

/// Wire messages: a non-array is `INVALID_MESSAGE` at path `messages`; a message napi cannot
/// convert is `INVALID_MESSAGE` with its index (plus `offset`, the index of the first one in the
/// conversation) and field.
pub fn messages_from_js(env: &Env, value: Unknown<'_>, offset: usize) -> Result<Vec<Message>> {
  let whole = |f: Fail| caller_error(env, &core::Error::invalid_messages(f.what), f.cause);
  let ty = value
    .get_type()
    .map_err(|e| whole(Fail::unreadable(env, "messages", &e)))?;
  let is_array = ty == ValueType::Object
    && value
      .is_array()
      .map_err(|e| whole(Fail::unreadable(env, "messages", &e)))?;
  if !is_array {
    return Err(whole(Fail::new(
      "messages",
      format!("expected an array of messages, got {}", describe(ty)),
    )));
  }
  let list = value
    .coerce_to_object()
    .map_err(|e| whole(Fail::unreadable(env, "messages", &e)))?;
  let len = list
    .get_array_length()
    .map_err(|e| whole(Fail::unreadable(env, "messages", &e)))?;
  if len > MAX_MESSAGES {
    return Err(whole(Fail::new(
      "messages",
      format!(
        "expected at most {} messages, got {}",
        grouped(MAX_MESSAGES),
        grouped(len)
      ),
    )));
  }
  let polluted = Polluted::check(env).map_err(|e| whole(Fail::unreadable(env, "messages", &e)))?;
  // Holes and non-objects end the conversion at once, so the length alone never sizes anything.
  let mut out = Vec::with_capacity((len as usize).min(4096));
  for i in 0..len {
    let index = offset + i as usize;
    let fail = |f: Fail| {
      caller_error(
        env,
        &core::Error::invalid_message(index, f.path, f.what),
        f.cause,
      )
    };
    // The message itself cannot be read (an index getter, a revoked Proxy): no field to name.
    let unreadable = |e: Error| {
      let f = Fail::unreadable(env, "", &e);
      coded_error(
        env,
        "INVALID_MESSAGE",
        &format!("messages[{index}]: {}", f.what),
        None,
        Some(index),
        f.cause,
      )
    };
    // A hole, whatever `Object.prototype` holds at its index (see `Polluted`).
    if polluted.is_some() && Polluted::hole(&list, i).map_err(unreadable)? {
      return Err(fail(Fail::new(
        "role",
        "expected a message object, got undefined",
      )));
    }
    let item: Unknown<'_> = list.get_element(i).map_err(unreadable)?;
    let ty = item.get_type().map_err(unreadable)?;
    let is_array = item.is_array().map_err(unreadable)?;
    if ty != ValueType::Object || is_array {
      return Err(fail(Fail::new(
        "role",
        format!("expected a message object, got {}", describe(ty)),
      )));
    }
    let obj = item.coerce_to_object().map_err(unreadable)?;
    // Read as napi reads it, through a view without what `Object.prototype` lends (see `Polluted`).
    let target = match &polluted {
      Some(p) => p
        .view(env, &obj, &MESSAGE_FIELDS, &MESSAGE_LISTS, &CALL_FIELDS, "")
        .map_err(fail)?,
      None => obj,
    };
    check_lists(env, &target).map_err(fail)?;
    let message = unsafe { Message::from_napi_value(env.raw(), target.raw()) }.map_err(|e| {
      let cause = take_exception(env);
      fail(match cause {
        // A getter or Proxy trap threw: name the field by reading them again, one by one.
        Some(thrown) => Fail {
          path: throwing_field(env, &obj).unwrap_or_else(|| "role".to_owned()),
          what: format!("could not be read ({})", thrown_text(env, thrown)),
          cause,
        },
        None => Fail::new(
          napi_field(&e.reason, "Message").unwrap_or_else(|| "role".to_owned()),
          e.reason.clone(),
        ),
      })
    })?;
    out.push(message);
  }
  Ok(out)
}

/// Rejects a list field of a message longer than napi should allocate for, before napi sees it.
fn check_lists(env: &Env, obj: &Object<'_>) -> std::result::Result<(), Fail> {
  for field in MESSAGE_LISTS {
    let value: Option<Unknown<'_>> = obj
      .get(field)
      .map_err(|e| Fail::unreadable(env, field, &e))?;
    let Some(value) = value else { continue };
    let is_list = value
      .get_type()
      .map_err(|e| Fail::unreadable(env, field, &e))?
      == ValueType::Object
      && value
        .is_array()
        .map_err(|e| Fail::unreadable(env, field, &e))?;
    if !is_list {
      continue;
    }
    let len = value
      .coerce_to_object()
      .and_then(|list| list.get_array_length())
      .map_err(|e| Fail::unreadable(env, field, &e))?;
    if len > MAX_ITEMS {
      return Err(Fail::new(
        field,
        format!(
          "expected at most {} entries, got {}",
          grouped(MAX_ITEMS),
          grouped(len)
        ),
      ));
    }
  }
  Ok(())
}

/// The first field of a message whose read throws (its exception is cleared), if any does: a
/// top-level field, or one inside `toolCalls` or `clearedToolInputs`.
fn throwing_field(env: &Env, obj: &Object<'_>) -> Option<String> {
  let throws = |read: Result<Option<Unknown<'_>>>| {
    let threw = read.is_err();
    if threw {
      take_exception(env);
    }
    threw
  };
  for field in MESSAGE_FIELDS {
    if throws(obj.get(field)) {
      return Some(field.to_owned());
    }
  }
  for field in MESSAGE_LISTS {
    let Ok(Some(list)) = obj.get::<Object<'_>>(field) else {
      take_exception(env);
      continue;
    };
    let len = list.get_array_length().unwrap_or(0).min(MAX_ITEMS);
    for i in 0..len {
      let item: Result<Unknown<'_>> = list.get_element(i);
      let Ok(item) = item else {
        take_exception(env);
        return Some(format!("{field}[{i}]"));
      };
      if item.get_type().ok() != Some(ValueType::Object) {
        continue;
      }
      let Ok(call) = item.coerce_to_object() else {
        continue;
      };
      for inner in ["id", "name", "args", "argsLength"] {
        if throws(call.get(inner)) {
          return Some(format!("{field}[{i}].{inner}"));
        }
      }
    }
  }
  None
}

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
  Ok(Some(EditContext {
    max_input_tokens: obj
      .get::<Option<f64>>("maxInputTokens")
      .map_err(|e| field("maxInputTokens", e))?
      .flatten(),
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
        .and_then(|s| s.into_utf8())
        .and_then(|s| s.into_owned())
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

/// Wire messages as JSON text (`planJson`): anything but a string is `INVALID_MESSAGE` at path
/// `messages`.
pub fn json_text_from_js(env: &Env, value: Unknown<'_>) -> Result<String> {
  let fail = |f: Fail| caller_error(env, &core::Error::invalid_messages(f.what), f.cause);
  let ty = value
    .get_type()
    .map_err(|e| fail(Fail::unreadable(env, "messages", &e)))?;
  if ty != ValueType::String {
    return Err(fail(Fail::new(
      "messages",
      format!(
        "expected the wire messages as JSON text, got {}",
        describe(ty)
      ),
    )));
  }
  value
    .coerce_to_string()
    .and_then(|s| s.into_utf8())
    .and_then(|s| s.into_owned())
    .map_err(|e| fail(Fail::unreadable(env, "messages", &e)))
}
