//! `pin` of the editor, and `prefer` of `clear_tool_uses`: which stale results go first. The object form is declared in
//! `spec` (`PREFER`, `SUPERSEDE`); the list form `["superseded", "duplicate"]` (the and
//! the docs' short way to turn rules on with the default tool lists) is read here too.

use serde_json::Value;

use super::spec::{PIN, PREFER, SUPERSEDE};
use super::types::{Pin, Prefer, ResourceTool, Supersede};
use super::values::{field, only_keys, show, string_list, type_name};
use crate::error::{Error, Result};

/// The rule names of the list form.
const RULES: &[&str] = &["superseded", "duplicate"];

/// `prefer: ["superseded", "duplicate"] | { superseded?: boolean | { writers?, readers? }, duplicate?: boolean }`.
pub(super) fn parse_prefer(value: &Value, path: &str) -> Result<Prefer> {
  let mut out = Prefer::default();
  match value {
    Value::Array(list) => {
      for (i, rule) in list.iter().enumerate() {
        match rule.as_str() {
          Some("superseded") => out.superseded = Some(Supersede::default()),
          Some("duplicate") => out.duplicate = true,
          _ => {
            return Err(Error::invalid_option(
              format!("{path}[{i}]"),
              format!("expected one of {}, got {}", quoted(RULES), show(rule)),
            ))
          }
        }
      }
    }
    Value::Object(obj) => {
      only_keys(obj, &PREFER, "clear_tool_uses.prefer", path)?;
      if let Some(v) = field(obj, "duplicate") {
        out.duplicate = bool_of(v, &format!("{path}.duplicate"))?;
      }
      if let Some(v) = field(obj, "superseded") {
        out.superseded = parse_superseded(v, &format!("{path}.superseded"))?;
      }
    }
    other => {
      return Err(Error::invalid_option(
        path,
        format!(
          "expected a list of {} or {{ superseded?, duplicate? }}, got {}",
          quoted(RULES),
          type_name(other)
        ),
      ))
    }
  }
  Ok(out)
}

fn parse_superseded(value: &Value, path: &str) -> Result<Option<Supersede>> {
  match value {
    Value::Bool(on) => Ok(on.then(Supersede::default)),
    Value::Object(obj) => {
      only_keys(obj, &SUPERSEDE, "clear_tool_uses.prefer.superseded", path)?;
      let mut s = Supersede::default();
      if let Some(v) = field(obj, "writers") {
        s.writers = tools(v, &format!("{path}.writers"))?;
      }
      if let Some(v) = field(obj, "readers") {
        s.readers = tools(v, &format!("{path}.readers"))?;
      }
      Ok(Some(s))
    }
    other => Err(Error::invalid_option(
      path,
      format!(
        "expected a boolean or {{ writers?, readers? }}, got {}",
        show(other)
      ),
    )),
  }
}

/// A list of `tool` or `tool:arg.path` entries.
fn tools(value: &Value, path: &str) -> Result<Vec<ResourceTool>> {
  let names = string_list(value, path)?;
  for (i, name) in names.iter().enumerate() {
    let ok = match name.split_once(':') {
      Some((tool, arg)) => !tool.is_empty() && arg.split('.').all(|s| !s.is_empty()),
      None => !name.is_empty(),
    };
    if !ok {
      return Err(Error::invalid_option(
        format!("{path}[{i}]"),
        format!("expected a tool name or `tool:arg.path`, got {name:?}"),
      ));
    }
  }
  Ok(names.iter().map(|n| ResourceTool::parse(n)).collect())
}

/// `pin: { tools?, currentRun?, ids? }`.
pub(super) fn parse_pin(value: &Value, path: &str) -> Result<Pin> {
  let Value::Object(obj) = value else {
    return Err(Error::invalid_option(
      path,
      format!(
        "expected {{ tools?, currentRun?, ids? }}, got {}",
        type_name(value)
      ),
    ));
  };
  only_keys(obj, &PIN, "pin", path)?;
  let mut pin = Pin::default();
  if let Some(v) = field(obj, "tools") {
    pin.tools = string_list(v, &format!("{path}.tools"))?;
  }
  if let Some(v) = field(obj, "currentRun") {
    pin.current_run = bool_of(v, &format!("{path}.currentRun"))?;
  }
  if let Some(v) = field(obj, "ids") {
    pin.ids = string_list(v, &format!("{path}.ids"))?;
  }
  Ok(pin)
}

fn bool_of(value: &Value, path: &str) -> Result<bool> {
  value
    .as_bool()
    .ok_or_else(|| Error::invalid_option(path, format!("expected a boolean, got {}", show(value))))
}

fn quoted(names: &[&str]) -> String {
  names
    .iter()
    .map(|n| format!("\"{n}\""))
    .collect::<Vec<_>>()
    .join(", ")
}
