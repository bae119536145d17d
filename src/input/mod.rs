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

mod columns;
mod context;
mod keyed;
mod messages;
mod options;
mod polluted;

use napi::bindgen_prelude::*;
use napi::{sys, ValueType};

use crate::error::{take_exception, thrown_text};

pub use columns::columns_from_js;
pub use context::{context_from_js, index_from_js};
pub use messages::{json_text_from_js, messages_from_js};
pub use options::options_from_js;
pub use polluted::set_prototype_check;

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

fn join(path: &str, key: &str) -> String {
  if path.is_empty() {
    key.to_owned()
  } else {
    format!("{path}.{key}")
  }
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
