//! The JSON Schema (draft 2020-12) of the options, written from [`spec`](super::spec). Every group
//! is a `$defs` entry named as the generated TypeScript type (`TriggerCondition`, `KeepPolicy`,
//! `SummarizeEdit`, ...); `null` is allowed wherever a value is (it means "unset"); each property
//! carries its doc line as `description`, its `default`, and `x-scope` when the core does not read
//! it (`middleware`) or reads it as a deprecated alias (`deprecated: true`).

use serde_json::{json, Map, Value};

use super::spec::{Group, Key, Scope, Type, CLEAR_TOOL_USES, EDITOR, EDITS, MIDDLEWARE_GROUPS};
use crate::tokenizer::Encoding;

/// `Number.MAX_SAFE_INTEGER`: the largest integer the core accepts.
const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// The options' JSON Schema: the root is `EditorOptions` (the top-level keys and the clearing
/// shorthand); `$defs` holds every group of the declaration.
#[must_use]
pub fn json_schema() -> Value {
  let mut defs = Map::new();
  for key in EDITOR.keys.iter().chain(CLEAR_TOOL_USES.keys) {
    collect(&key.ty, &mut defs);
  }
  for group in MIDDLEWARE_GROUPS {
    collect(&Type::Object(group), &mut defs);
  }
  // The top level takes the editor's keys and the clearing shorthand (the keys of `clear_tool_uses`).
  let mut top = Map::new();
  for key in CLEAR_TOOL_USES.keys.iter().chain(EDITOR.keys) {
    top.insert(key.name.to_owned(), property(key));
  }
  json!({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "context-editor/options",
    "title": EDITOR.name,
    "description": EDITOR.doc,
    "type": "object",
    "properties": top,
    "additionalProperties": false,
    "$defs": defs,
  })
}

/// Adds to `defs` every group `ty` reaches (each once, by name): nested option objects, measures
/// (exactly one key) and edits, so a group added to the declaration needs no listing here.
fn collect(ty: &Type, defs: &mut Map<String, Value>) {
  let (group, rule) = match ty {
    Type::Object(g) => (*g, None),
    Type::OneOrList(g) => (*g, Some("anyOf")),
    Type::ExactlyOne(g) => (*g, Some("oneOf")),
    Type::AnyOf(types) => {
      for t in *types {
        collect(t, defs);
      }
      return;
    }
    Type::Edits => {
      for edit in &EDITS {
        if !defs.contains_key(edit.group.name) {
          defs.insert(
            edit.group.name.to_owned(),
            object(edit.group, Some(edit.type_name)),
          );
          for key in edit.group.keys {
            collect(&key.ty, defs);
          }
        }
      }
      return;
    }
    _ => return,
  };
  if defs.contains_key(group.name) {
    return;
  }
  let mut def = object(group, None);
  match rule {
    // A condition needs at least one key set (an empty one is an error, not "always").
    Some("anyOf") => def["anyOf"] = one_key_set(group, false),
    // A measure, exactly one.
    Some(_) => {
      def["oneOf"] = one_key_set(group, true);
      def["x-exactly-one"] = json!(true);
    }
    None => {}
  }
  defs.insert(group.name.to_owned(), def);
  for key in group.keys {
    collect(&key.ty, defs);
  }
}

/// A group as an object schema; `edit_type` adds the `type` key of an edit.
fn object(group: &Group, edit_type: Option<&str>) -> Value {
  let mut props = Map::new();
  if let Some(t) = edit_type {
    props.insert("type".to_owned(), json!({ "const": t }));
  }
  let mut required = Vec::new();
  for key in group.keys {
    props.insert(key.name.to_owned(), property(key));
    if key.required {
      required.push(key.name);
    }
  }
  // Inside `edits` every edit names its `type` (the top-level shorthand is `EditorOptions`).
  if edit_type.is_some() {
    required.insert(0, "type");
  }
  let mut out = json!({
    "title": group.name,
    "description": group.doc,
    "type": "object",
    "properties": props,
    "additionalProperties": false,
  });
  if !required.is_empty() {
    out["required"] = json!(required);
  }
  out
}

fn property(key: &Key) -> Value {
  // `null` is "unset": a required key cannot be unset.
  let mut schema = if key.required {
    value_schema(&key.ty)
  } else {
    nullable(value_schema(&key.ty))
  };
  schema["description"] = json!(key.doc);
  if let Some(default) = key.default {
    schema["default"] = default();
  }
  match key.scope {
    Scope::Editor => {}
    Scope::Deprecated => schema["deprecated"] = json!(true),
    Scope::Middleware => schema["x-scope"] = json!("middleware"),
    Scope::Shim => schema["x-scope"] = json!("shim"),
  }
  schema
}

/// `schema`, or `null` (unset).
fn nullable(schema: Value) -> Value {
  if let Value::Object(mut union) = schema {
    if union.len() == 1 {
      if let Some(Value::Array(members)) = union.get_mut("anyOf") {
        members.push(json!({ "type": "null" }));
        return Value::Object(union);
      }
    }
    return nullable_value(Value::Object(union));
  }
  nullable_value(schema)
}

fn nullable_value(schema: Value) -> Value {
  let mut any_of = Map::new();
  any_of.insert(
    "anyOf".to_owned(),
    Value::Array(vec![schema, json!({ "type": "null" })]),
  );
  Value::Object(any_of)
}

fn reference(group: &Group) -> Value {
  json!({ "$ref": format!("#/$defs/{}", group.name) })
}

fn value_schema(ty: &Type) -> Value {
  match ty {
    Type::Bool => json!({ "type": "boolean" }),
    Type::String => json!({ "type": "string" }),
    Type::Literal(s) => json!({ "const": s }),
    Type::Enum(values) => json!({ "enum": values }),
    Type::Encoding => json!({ "enum": Encoding::ALL.map(Encoding::as_str) }),
    Type::Tokenizer => json!({ "type": "string", "minLength": 1 }),
    Type::Int { min } => json!({ "type": "integer", "minimum": min, "maximum": MAX_SAFE_INTEGER }),
    Type::Number {
      min,
      exclusive,
      max,
    } => {
      let mut s = json!({ "type": "number" });
      s[if *exclusive {
        "exclusiveMinimum"
      } else {
        "minimum"
      }] = json!(min);
      if let Some(max) = max {
        s["maximum"] = json!(max);
      }
      s
    }
    Type::Names => json!({ "type": "array", "items": { "type": "string" } }),
    // A measure's "exactly one key" is in its `$defs` entry (`oneOf`).
    Type::Object(group) | Type::ExactlyOne(group) => reference(group),
    Type::OneOrList(group) => json!({
      "anyOf": [reference(group), { "type": "array", "items": reference(group) }]
    }),
    Type::AnyOf(types) => json!({ "anyOf": types.iter().map(value_schema).collect::<Vec<_>>() }),
    Type::Edits => json!({
      "type": "array",
      "items": { "anyOf": EDITS.iter().map(|e| reference(e.group)).collect::<Vec<_>>() }
    }),
  }
}

/// One alternative per key of the group: that key set (not `null`), and with `exclusive` the others
/// absent or `null`. As `oneOf` (exclusive): exactly one key set; as `anyOf`: at least one.
fn one_key_set(group: &Group, exclusive: bool) -> Value {
  let one_of: Vec<Value> = group
    .keys
    .iter()
    .map(|k| {
      let props: Map<String, Value> = group
        .keys
        .iter()
        .filter(|o| exclusive || o.name == k.name)
        .map(|o| {
          let allowed = if o.name == k.name {
            json!({ "not": { "type": "null" } })
          } else {
            json!({ "type": "null" })
          };
          (o.name.to_owned(), allowed)
        })
        .collect();
      json!({ "required": [k.name], "properties": props })
    })
    .collect();
  Value::Array(one_of)
}
