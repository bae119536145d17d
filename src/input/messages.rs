//! Wire messages, as an array of objects or as JSON text.

use context_editor_core as core;
use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};

use super::keyed::{self, Keys};
use super::polluted::Polluted;
use super::{describe, grouped, napi_field, Fail, MAX_ITEMS, MAX_MESSAGES};
use crate::error::{caller_error, coded_error, take_exception, thrown_text};
use crate::message::Message;

/// The fields of a wire `ToolCall`, as napi reads them.
const CALL_FIELDS: [&str; 4] = ["id", "name", "args", "argsLength"];

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
  let (list, len) = message_list(env, value).map_err(whole)?;
  let polluted = Polluted::check(env).map_err(|e| whole(Fail::unreadable(env, "messages", &e)))?;
  let keys = Keys::new(env).map_err(|e| whole(Fail::unreadable(env, "messages", &e)))?;
  // Holes and non-objects end the conversion at once, so the length alone never sizes anything.
  let mut out = Vec::with_capacity((len as usize).min(4096));
  for i in 0..len {
    out.push(message_from_js(
      env,
      &list,
      i,
      offset + i as usize,
      polluted.as_ref(),
      &keys,
    )?);
  }
  Ok(out)
}

/// The array of messages and its length, checked before anything walks it.
fn message_list<'v>(env: &Env, value: Unknown<'v>) -> std::result::Result<(Object<'v>, u32), Fail> {
  let read = |e: Error| Fail::unreadable(env, "messages", &e);
  let ty = value.get_type().map_err(read)?;
  let is_array = ty == ValueType::Object && value.is_array().map_err(read)?;
  if !is_array {
    return Err(Fail::new(
      "messages",
      format!("expected an array of messages, got {}", describe(ty)),
    ));
  }
  let list = value.coerce_to_object().map_err(read)?;
  let len = list.get_array_length().map_err(read)?;
  if len > MAX_MESSAGES {
    return Err(Fail::new(
      "messages",
      format!(
        "expected at most {} messages, got {}",
        grouped(MAX_MESSAGES),
        grouped(len)
      ),
    ));
  }
  Ok((list, len))
}

/// Entry `i` of `list`, message `index` of the conversation, converted as napi converts it.
fn message_from_js(
  env: &Env,
  list: &Object<'_>,
  i: u32,
  index: usize,
  polluted: Option<&Polluted<'_>>,
  keys: &Keys,
) -> Result<Message> {
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
  if polluted.is_some() && Polluted::hole(list, i).map_err(unreadable)? {
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
  let target = match polluted {
    Some(p) => p
      .view(env, &obj, &MESSAGE_FIELDS, &MESSAGE_LISTS, &CALL_FIELDS, "")
      .map_err(fail)?,
    None => obj,
  };
  check_lists(env, &target).map_err(fail)?;
  // SAFETY: `target` is a live object of this call's environment, `keys` were made in it.
  unsafe { keyed::read(env.raw(), target.raw(), keys) }.map_err(|e| {
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
  })
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
    .and_then(napi::JsString::into_utf8)
    .and_then(napi::JsStringUtf8::into_owned)
    .map_err(|e| fail(Fail::unreadable(env, "messages", &e)))
}
