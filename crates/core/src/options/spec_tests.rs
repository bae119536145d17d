//! The declaration and the parser agree: every declared key is accepted where it is declared, with
//! every shape and bound the declaration gives (and rejected just outside a bound); an undeclared
//! key is rejected in every object; every declared default is what the parser assumes without it.

use serde_json::{json, Map, Value};

use super::spec::{Group, Type, CLEAR_TOOL_USES, EDITOR, EDITS};
use super::{json_schema, option_defaults, Options};
use crate::tokenizer::Encoding;

/// Values of `ty` the declaration allows (at least one).
fn valid(ty: &Type) -> Vec<Value> {
  match ty {
    Type::Bool => vec![json!(true), json!(false)],
    Type::String => vec![json!(""), json!("x")],
    Type::Literal(s) => vec![json!(s)],
    Type::Enum(values) => values.iter().map(|v| json!(v)).collect(),
    Type::Encoding => Encoding::ALL.iter().map(|e| json!(e.as_str())).collect(),
    Type::Tokenizer => vec![json!(crate::tokenizer::hf::tiny_tokenizer())],
    Type::Int { min } => vec![json!(min), json!(min + 7)],
    Type::Number {
      min,
      exclusive,
      max,
    } => {
      let low = if *exclusive { min + 0.25 } else { *min };
      let mut out = vec![json!(low)];
      if let Some(max) = max {
        out.push(json!(max));
      } else {
        out.push(json!(low + 1000.5));
      }
      out
    }
    Type::Names => vec![json!([]), json!(["a", "b"])],
    Type::Object(group) | Type::ExactlyOne(group) => one_key_objects(group),
    Type::OneOrList(group) => {
      let mut out = one_key_objects(group);
      out.push(Value::Array(one_key_objects(group)));
      out
    }
    Type::AnyOf(types) => types.iter().flat_map(valid).collect(),
    Type::Edits => EDITS
      .iter()
      .map(|e| json!([minimal_edit(e.type_name, e.group)]))
      .collect(),
  }
}

/// Values just outside the declared type or bounds.
fn invalid(ty: &Type) -> Vec<Value> {
  match ty {
    Type::Bool => vec![json!("true")],
    Type::String => vec![json!(5)],
    Type::Literal(_) | Type::Enum(_) | Type::Encoding => vec![json!("not-a-declared-value")],
    Type::Tokenizer => vec![json!(5), json!("")],
    Type::Int { min } => {
      let mut out = vec![json!(1.5), json!(9_007_199_254_740_992.0)];
      if *min > 0 {
        out.push(json!(min - 1));
      }
      out
    }
    Type::Number {
      min,
      exclusive,
      max,
    } => {
      let mut out = vec![json!("1")];
      out.push(json!(if *exclusive { *min } else { min - 0.5 }));
      if let Some(max) = max {
        out.push(json!(max + 0.5));
      }
      out
    }
    Type::Names => vec![json!("a"), json!([1])],
    Type::Object(group) | Type::ExactlyOne(group) | Type::OneOrList(group) => {
      vec![
        json!({ "notDeclared": 1 }),
        json!({ group.keys[0].name: "wrong" }),
      ]
    }
    Type::AnyOf(_) => vec![json!(12.5)],
    Type::Edits => vec![json!([{ "type": "not_declared" }])],
  }
}

fn one_key_objects(group: &Group) -> Vec<Value> {
  group
    .keys
    .iter()
    .flat_map(|k| valid(&k.ty).into_iter().map(|v| json!({ k.name: v })))
    .collect()
}

/// An edit object with its `type` and its required keys.
fn minimal_edit(type_name: &str, group: &Group) -> Value {
  let mut edit = Map::new();
  edit.insert("type".to_owned(), json!(type_name));
  for key in group.keys.iter().filter(|k| k.required) {
    edit.insert(key.name.to_owned(), valid(&key.ty).remove(0));
  }
  Value::Object(edit)
}

/// `{ edits: [edit + { key: value }] }`, or the top level for the editor's own keys.
fn options_with(type_name: Option<&str>, group: &Group, key: &str, value: Value) -> Value {
  match type_name {
    None => json!({ key: value }),
    Some(t) => {
      let mut edit = minimal_edit(t, group);
      edit[key] = value;
      json!({ "edits": [edit] })
    }
  }
}

/// Every object the declaration declares keys of: the top level and each edit.
fn places() -> Vec<(Option<&'static str>, &'static Group)> {
  let mut out: Vec<(Option<&'static str>, &'static Group)> =
    vec![(None, &EDITOR), (None, &CLEAR_TOOL_USES)];
  out.extend(EDITS.iter().map(|e| (Some(e.type_name), e.group)));
  out
}

#[test]
fn every_declared_key_and_value_is_accepted_where_declared() {
  let mut checked = 0;
  for (type_name, group) in places() {
    for key in group.keys.iter().filter(|k| k.scope.parsed()) {
      for v in valid(&key.ty) {
        let options = options_with(type_name, group, key.name, v);
        if let Err(e) = Options::from_json(&options) {
          panic!("{options}: {e}");
        }
        checked += 1;
      }
    }
  }
  assert!(checked > 150, "{checked}");
}

#[test]
fn values_outside_the_declaration_are_rejected_with_the_key_s_path() {
  for (type_name, group) in places() {
    for key in group.keys.iter().filter(|k| k.scope.parsed()) {
      for v in invalid(&key.ty) {
        let options = options_with(type_name, group, key.name, v);
        let e = Options::from_json(&options).expect_err(&options.to_string());
        assert!(
          e.path().unwrap_or_default().contains(key.name),
          "{options}: {e}"
        );
      }
    }
  }
}

#[test]
fn undeclared_keys_and_middleware_keys_are_rejected_everywhere() {
  for (type_name, group) in places() {
    for key in ["notDeclared", "maxInputTokens"] {
      let options = options_with(type_name, group, key, json!(1));
      let e = Options::from_json(&options).expect_err(&options.to_string());
      assert!(e.to_string().contains("unknown option"), "{options}: {e}");
      for listed in group.parsed_names() {
        assert!(e.to_string().contains(listed), "{e} lists {listed}");
      }
    }
  }
}

#[test]
fn declared_defaults_are_the_parser_s_defaults() {
  let mut checked = 0;
  for (type_name, group) in places() {
    for key in group.keys {
      let Some(default) = key.default else { continue };
      let base = match type_name {
        None => json!({}),
        Some(t) => json!({ "edits": [minimal_edit(t, group)] }),
      };
      let with = options_with(type_name, group, key.name, default());
      assert_eq!(
        Options::from_json(&with).unwrap(),
        Options::from_json(&base).unwrap(),
        "{} of {}",
        key.name,
        group.name
      );
      checked += 1;
    }
  }
  assert!(checked >= 16, "{checked}");
  let d = option_defaults();
  assert_eq!(d["clear_tool_uses"]["placeholder"], "[cleared]");
  assert_eq!(
    d["clear_tool_uses"]["trigger"],
    json!({ "tokens": 100_000.0 })
  );
  assert_eq!(d["editor"]["tokenCountMethod"], "approx");
}

#[test]
fn the_schema_has_every_declared_key() {
  let schema = json_schema();
  let top = schema["properties"].as_object().unwrap();
  for group in [&EDITOR, &CLEAR_TOOL_USES] {
    for key in group
      .keys
      .iter()
      .filter(|k| k.name != "edits" || group.name == "EditorOptions")
    {
      assert!(top.contains_key(key.name), "{}", key.name);
    }
  }
  for edit in &EDITS {
    let def = &schema["$defs"][edit.group.name];
    assert_eq!(def["properties"]["type"]["const"], edit.type_name);
    for key in edit.group.keys {
      assert!(
        def["properties"].get(key.name).is_some(),
        "{}.{}",
        edit.group.name,
        key.name
      );
    }
  }
  assert!(schema["$defs"]["TriggerCondition"]["properties"]
    .get("turns")
    .is_some());
}
