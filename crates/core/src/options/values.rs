//! Readers of JSON option values, from scalars to the shapes several edits share (key sets,
//! triggers, keep measures): each returns the value in the option's Rust type or an
//! `InvalidOptions` error naming the option path and what was expected.

use serde_json::{Map, Value};

use super::spec::{Group, TRIGGER};
use super::types::Trigger;
use crate::error::{Error, Result};

/// A field, treating JSON `null` as absent (the Xpert UI sends `null` for unset fields).
pub(super) fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
  obj.get(key).filter(|v| !v.is_null())
}

pub(super) fn opt_string(
  obj: &Map<String, Value>,
  key: &str,
  path: &str,
) -> Result<Option<String>> {
  match field(obj, key) {
    None => Ok(None),
    Some(Value::String(s)) => Ok(Some(s.clone())),
    Some(other) => Err(Error::invalid_option(
      path,
      format!("expected a string, got {}", show(other)),
    )),
  }
}

pub(super) fn string_list(value: &Value, path: &str) -> Result<Vec<String>> {
  let Value::Array(list) = value else {
    return Err(Error::invalid_option(
      path,
      format!("expected a list of tool names, got {}", show(value)),
    ));
  };
  list
    .iter()
    .enumerate()
    .map(|(i, v)| match v {
      Value::String(s) => Ok(s.clone()),
      other => Err(Error::invalid_option(
        format!("{path}[{i}]"),
        format!("expected a string, got {}", show(other)),
      )),
    })
    .collect()
}

pub(super) fn number(value: &Value, path: &str) -> Result<f64> {
  match value.as_f64() {
    Some(n) if n.is_finite() => Ok(n),
    _ => Err(Error::invalid_option(
      path,
      format!("expected a number, got {}", show(value)),
    )),
  }
}

pub(super) fn positive_number(value: &Value, path: &str) -> Result<f64> {
  let n = number(value, path)?;
  if n > 0.0 {
    Ok(n)
  } else {
    Err(Error::invalid_option(
      path,
      format!("expected a number > 0, got {}", show(value)),
    ))
  }
}

pub(super) fn non_negative_int(value: &Value, path: &str) -> Result<u64> {
  if let Some(n) = value.as_u64() {
    return Ok(n);
  }
  match value.as_f64() {
    // 5.0 from JavaScript is an integer.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(f) if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f <= 9_007_199_254_740_991.0 => {
      Ok(f as u64)
    }
    _ => Err(Error::invalid_option(
      path,
      format!("expected an integer >= 0, got {}", show(value)),
    )),
  }
}

pub(super) fn positive_int(value: &Value, path: &str) -> Result<u64> {
  match non_negative_int(value, path) {
    Ok(n) if n > 0 => Ok(n),
    _ => Err(Error::invalid_option(
      path,
      format!("expected an integer > 0, got {}", show(value)),
    )),
  }
}

/// A short rendering of a JSON value for error messages.
pub(super) fn show(value: &Value) -> String {
  let s = value.to_string();
  if s.len() > 40 {
    let mut end = 40;
    while !s.is_char_boundary(end) {
      end -= 1;
    }
    format!("{}…", &s[..end])
  } else {
    s
  }
}

pub(super) fn type_name(value: &Value) -> &'static str {
  match value {
    Value::Null => "null",
    Value::Bool(_) => "a boolean",
    Value::Number(_) => "a number",
    Value::String(_) => "a string",
    Value::Array(_) => "an array",
    Value::Object(_) => "an object",
  }
}

/// Rejects keys of an edit object that are not `type` or keys of `allowed`.
pub(super) fn only_keys(
  obj: &Map<String, Value>,
  allowed: &Group,
  kind: &str,
  path: &str,
) -> Result<()> {
  for key in obj.keys() {
    if key != "type" && allowed.parsed(key).is_none() {
      return Err(Error::invalid_option(
        format!("{path}.{key}"),
        format!(
          "unknown option of `{kind}` (expected one of {})",
          allowed.parsed_names().join(", ")
        ),
      ));
    }
  }
  Ok(())
}

/// An optional `trigger` (absent = `None`): one condition or a list of them.
pub(super) fn optional_trigger(
  obj: &Map<String, Value>,
  path: &str,
) -> Result<Option<Vec<Trigger>>> {
  match field(obj, "trigger") {
    None => Ok(None),
    Some(Value::Array(list)) => {
      // An empty list is an OR of nothing: the edit never fires.
      list
        .iter()
        .enumerate()
        .map(|(i, v)| parse_trigger(v, &format!("{path}.trigger[{i}]")))
        .collect::<Result<Vec<_>>>()
        .map(Some)
    }
    Some(other) => Ok(Some(vec![parse_trigger(
      other,
      &format!("{path}.trigger"),
    )?])),
  }
}

/// One trigger condition: an object with at least one of its keys.
pub(super) fn parse_trigger(value: &Value, path: &str) -> Result<Trigger> {
  let Value::Object(obj) = value else {
    return Err(Error::invalid_option(
      path,
      format!(
        "expected an object with {}, got {}",
        TRIGGER.listed_or(),
        type_name(value)
      ),
    ));
  };
  let mut t = Trigger::default();
  for (key, v) in obj {
    if v.is_null() {
      continue;
    }
    let at = format!("{path}.{key}");
    match key.as_str() {
      "tokens" => t.tokens = Some(positive_number(v, &at)?),
      "messages" => t.messages = Some(positive_int(v, &at)?),
      "toolUses" => t.tool_uses = Some(positive_int(v, &at)?),
      "turns" => t.turns = Some(positive_int(v, &at)?),
      "fraction" => {
        let f = number(v, &at)?;
        if !(f > 0.0 && f <= 1.0) {
          return Err(Error::invalid_option(
            at,
            format!("expected a number in (0, 1], got {}", show(v)),
          ));
        }
        t.fraction = Some(f);
      }
      _ => {
        return Err(Error::invalid_option(
          at,
          format!(
            "unknown trigger condition (expected {})",
            TRIGGER.listed_or()
          ),
        ))
      }
    }
  }
  if t == Trigger::default() {
    return Err(Error::invalid_option(
      path,
      format!(
        "expected at least one of {}",
        TRIGGER.parsed_names().join(", ")
      ),
    ));
  }
  Ok(t)
}

/// The one measure set in a `keep` object (`null` = unset), among the keys of `measures`: its
/// name, its value and its path.
pub(super) fn keep_measure<'v>(
  value: &'v Value,
  path: &str,
  measures: &Group,
) -> Result<(&'v str, &'v Value, String)> {
  let listed = measures.parsed_names().join(", ");
  let Value::Object(obj) = value else {
    return Err(Error::invalid_option(
      path,
      format!(
        "expected an object with exactly one of {listed}, got {}",
        type_name(value)
      ),
    ));
  };
  let mut set = Vec::new();
  for (key, v) in obj {
    if v.is_null() {
      continue;
    }
    if measures.parsed(key).is_none() {
      return Err(Error::invalid_option(
        format!("{path}.{key}"),
        format!("unknown keep measure (expected {})", measures.listed_or()),
      ));
    }
    set.push((key.as_str(), v));
  }
  let [(key, v)] = set[..] else {
    let got = if set.is_empty() {
      "none".to_owned()
    } else {
      set.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
    };
    return Err(Error::invalid_option(
      path,
      format!("exactly one of {listed} (got {got})"),
    ));
  };
  Ok((key, v, format!("{path}.{key}")))
}

/// `keep.tokens`: a number >= 0.
pub(super) fn keep_tokens(value: &Value, path: &str) -> Result<f64> {
  let n = number(value, path)?;
  if n < 0.0 {
    return Err(Error::invalid_option(
      path,
      format!("expected a number >= 0, got {}", show(value)),
    ));
  }
  Ok(n)
}

/// `keep.fraction`: a number in [0, 1].
pub(super) fn keep_fraction(value: &Value, path: &str) -> Result<f64> {
  let f = number(value, path)?;
  if !(0.0..=1.0).contains(&f) {
    return Err(Error::invalid_option(
      path,
      format!("expected a number in [0, 1], got {}", show(value)),
    ));
  }
  Ok(f)
}
