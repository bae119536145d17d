//! Which tokenizer counts a call: the `tokenizer` option, else the `encoding` option, else the
//! model's tiktoken encoding, else the model family's Hugging Face tokenizer when it was loaded,
//! else `o200k_base` with a warning that says why (a model name is never resolved silently).

use super::encoding::Encoding;
use super::family::{Family, Framing};
use super::hf;
use super::hf::HfTokenizer;

/// What counts a call.
#[derive(Debug)]
pub(crate) struct Choice {
  /// The Hugging Face tokenizer, when one counts.
  pub hf: Option<&'static HfTokenizer>,
  /// What reports say counted: the family's name, or the tokenizer's path, or the encoding's name.
  pub name: &'static str,
  /// The tiktoken encoding otherwise.
  pub encoding: Encoding,
  /// The chat framing to count: the tokenizer's family's, else the model name's family's (a
  /// `tokenizer.json` given by path has no family), else OpenAI's.
  pub framing: Framing,
  /// Why the default was used, when a model name was given but not resolved: a warning's code
  /// (`tokenizer_not_installed`, `unknown_model`) and message.
  pub warning: Option<(&'static str, String)>,
}

/// Chooses the tokenizer of a call (see the module notes).
pub(crate) fn choose(
  tokenizer: Option<(&'static HfTokenizer, Option<Family>)>,
  encoding: Option<Encoding>,
  model: Option<&str>,
) -> Choice {
  let model_family = model.and_then(Family::for_model);
  let explicit = encoding;
  let encoding = encoding.unwrap_or(Encoding::O200kBase);
  let mut choice = Choice {
    hf: None,
    name: encoding.as_str(),
    encoding,
    framing: Framing::OPENAI,
    warning: None,
  };
  if let Some((t, family)) = tokenizer {
    choice.hf = Some(t);
    choice.name = family.map_or(t.source(), Family::as_str);
    choice.framing = family
      .or(model_family)
      .map_or(Framing::OPENAI, Family::framing);
    return choice;
  }
  if explicit.is_some() {
    return choice;
  }
  let Some(name) = model else {
    return choice;
  };
  if let Some(e) = Encoding::for_model(name) {
    choice.encoding = e;
    choice.name = e.as_str();
    return choice;
  }
  let (code, message) = match model_family {
    Some(f) => match hf::loaded_family(f) {
      Some(t) => {
        choice.hf = Some(t);
        choice.name = f.as_str();
        choice.framing = f.framing();
        return choice;
      }
      None => (
        "tokenizer_not_installed",
        format!(
          "model `{name}` is {} but its tokenizer is not loaded; counting with o200k_base ({})",
          f.as_str(),
          f.install_hint()
        ),
      ),
    },
    None => (
      "unknown_model",
      format!("no known tokenizer for model `{name}`; counting with o200k_base (set `tokenizer` or `encoding` to choose)"),
    ),
  };
  choice.warning = Some((code, message));
  choice
}

/// The `tokenizer` option's value as [`Options`](crate::Options) keeps it: a loaded tokenizer
/// (compared by identity) and its family when the option named one.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokenizerOption(Option<(&'static HfTokenizer, Option<Family>)>);

impl TokenizerOption {
  /// The option set to `t`, named as `family` when given.
  #[must_use]
  pub fn new(t: Option<(&'static HfTokenizer, Option<Family>)>) -> Self {
    Self(t)
  }

  /// The tokenizer and its family, when set.
  #[must_use]
  pub fn get(self) -> Option<(&'static HfTokenizer, Option<Family>)> {
    self.0
  }

  /// Parses the JSON option (see [`hf::from_option`]).
  ///
  /// # Errors
  /// As [`hf::from_option`].
  pub fn from_json(value: &serde_json::Value) -> crate::Result<Self> {
    hf::from_option(value).map(Self)
  }
}

impl PartialEq for TokenizerOption {
  fn eq(&self, other: &Self) -> bool {
    match (self.0, other.0) {
      (Some((a, fa)), Some((b, fb))) => std::ptr::eq(a, b) && fa == fb,
      (None, None) => true,
      _ => false,
    }
  }
}
