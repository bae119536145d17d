//! The message model the editor reasons about: roles, text, tool calls and their results.
//!
//! This is a *wire* model, not a chat library's message class: it carries only what decisions and
//! token counts need. Callers (the TypeScript shim, the CLI) convert their own messages into it and
//! apply the returned [`EditPlan`](crate::EditPlan) to their originals, so ids, metadata and class
//! identity survive.

#[cfg(feature = "serde")]
use serde::Deserialize;

use crate::error::{Error, Result};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
  feature = "serde",
  derive(Deserialize),
  serde(rename_all = "lowercase")
)]
pub enum Role {
  /// A system (or developer) instruction.
  System,
  /// The human turn (LangChain `human`).
  User,
  /// The model's turn (LangChain `ai`); may carry tool calls.
  Assistant,
  /// The result of one tool call.
  Tool,
}

impl Role {
  /// Parses the role names of LangChain (`human`, `ai`), OpenAI (`user`, `assistant`, `developer`)
  /// and this crate (`system`, `tool`).
  #[must_use]
  pub fn parse(name: &str) -> Option<Self> {
    match name {
      "system" | "developer" => Some(Self::System),
      "user" | "human" => Some(Self::User),
      "assistant" | "ai" => Some(Self::Assistant),
      "tool" => Some(Self::Tool),
      _ => None,
    }
  }

  /// The OpenAI role name, which is also what the per-message token overhead tokenizes.
  #[must_use]
  pub const fn as_str(self) -> &'static str {
    match self {
      Self::System => "system",
      Self::User => "user",
      Self::Assistant => "assistant",
      Self::Tool => "tool",
    }
  }
}

/// One tool call requested by an assistant message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(
  feature = "serde",
  derive(Deserialize),
  serde(rename_all = "camelCase", deny_unknown_fields)
)]
pub struct ToolCall {
  /// The call id that the matching tool message repeats in `tool_call_id`.
  pub id: String,
  /// The tool's name.
  #[cfg_attr(feature = "serde", serde(default))]
  pub name: String,
  /// The arguments as JSON text (as `JSON.stringify(args)` writes them).
  #[cfg_attr(feature = "serde", serde(default))]
  pub args: Option<String>,
  /// Length of the arguments JSON in UTF-16 code units, when `args` is not sent (approx counting).
  #[cfg_attr(feature = "serde", serde(default))]
  pub args_length: Option<u64>,
}

impl ToolCall {
  /// Length of the arguments JSON in UTF-16 code units (`"{}"` when absent).
  #[must_use]
  pub fn args_len(&self) -> u64 {
    match (&self.args, self.args_length) {
      (_, Some(n)) => n,
      (Some(a), None) => utf16_len(a),
      (None, None) => EMPTY_ARGS.len() as u64,
    }
  }
}

/// The JSON text of cleared tool-call arguments.
pub const EMPTY_ARGS: &str = "{}";

/// One message of a conversation, in wire form.
///
/// Text is given either as `content` (needed for exact counting) or only as `content_length`
/// (UTF-16 code units, enough for approximate counting): the caller chooses what to send.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
  feature = "serde",
  derive(Deserialize),
  serde(rename_all = "camelCase", deny_unknown_fields)
)]
pub struct Message {
  /// Who wrote it.
  pub role: Role,
  /// The text: string content, or the concatenation of the text blocks.
  #[cfg_attr(feature = "serde", serde(default))]
  pub content: Option<String>,
  /// UTF-16 length of the text, when `content` is omitted.
  #[cfg_attr(feature = "serde", serde(default))]
  pub content_length: Option<u64>,
  /// Serialized non-text content blocks (JSON, documents, `tool_use` inputs that no tool call mirrors).
  #[cfg_attr(feature = "serde", serde(default))]
  pub other: Option<String>,
  /// UTF-16 length of `other`, when `other` is omitted.
  #[cfg_attr(feature = "serde", serde(default))]
  pub other_length: Option<u64>,
  /// Reasoning the model produced: serialized `thinking` / `redacted_thinking` blocks and reasoning
  /// kept in `additional_kwargs` (removable by the `clear_thinking` edit).
  #[cfg_attr(feature = "serde", serde(default))]
  pub thinking: Option<String>,
  /// UTF-16 length of `thinking`, when `thinking` is omitted.
  #[cfg_attr(feature = "serde", serde(default))]
  pub thinking_length: Option<u64>,
  /// Number of image blocks (each counted as [`IMAGE_TOKENS`](crate::IMAGE_TOKENS), unless
  /// `image_tokens` is given).
  #[cfg_attr(feature = "serde", serde(default))]
  pub images: u32,
  /// Tokens of the message's images, when the caller counted them by the provider's formula from
  /// their sizes (OpenAI's tiles, Anthropic's `w * h / 750`); replaces `images * IMAGE_TOKENS`.
  #[cfg_attr(feature = "serde", serde(default))]
  pub image_tokens: Option<u64>,
  /// Tool calls of an assistant message.
  #[cfg_attr(feature = "serde", serde(default))]
  pub tool_calls: Vec<ToolCall>,
  /// UTF-16 length of `JSON.stringify(tool_calls)` exactly as the caller holds them, for approx
  /// counting that matches LangChain to the character. Computed from `tool_calls` when absent.
  #[cfg_attr(feature = "serde", serde(default))]
  pub tool_calls_length: Option<u64>,
  /// The call this tool message answers.
  #[cfg_attr(feature = "serde", serde(default))]
  pub tool_call_id: Option<String>,
  /// The message's `name` (for a tool message: the tool's name).
  #[cfg_attr(feature = "serde", serde(default))]
  pub name: Option<String>,
  /// Whether `response_metadata.context_editing.cleared` is already set.
  #[cfg_attr(feature = "serde", serde(default))]
  pub cleared: bool,
  /// Whether `response_metadata.context_editing.truncated` is already set.
  #[cfg_attr(feature = "serde", serde(default))]
  pub truncated: bool,
  /// Ids already listed in `response_metadata.context_editing.cleared_tool_inputs`.
  #[cfg_attr(feature = "serde", serde(default))]
  pub cleared_tool_inputs: Vec<String>,
  /// A token count supplied by the caller's own counter; used instead of counting this message.
  #[cfg_attr(feature = "serde", serde(default))]
  pub tokens: Option<u64>,
  /// Pinned: no edit clears, truncates, trims or summarizes it (nor its tool call or results).
  /// Shims set it from the `pin` rules (message ids, a marker, tool names, the current run).
  #[cfg_attr(feature = "serde", serde(default))]
  pub pinned: bool,
}

impl Message {
  /// A message with a role and text, and nothing else.
  #[must_use]
  pub fn new(role: Role, content: impl Into<String>) -> Self {
    Self {
      role,
      content: Some(content.into()),
      content_length: None,
      other: None,
      other_length: None,
      thinking: None,
      thinking_length: None,
      images: 0,
      image_tokens: None,
      tool_calls: Vec::new(),
      tool_calls_length: None,
      tool_call_id: None,
      name: None,
      cleared: false,
      truncated: false,
      cleared_tool_inputs: Vec::new(),
      tokens: None,
      pinned: false,
    }
  }

  /// A system message.
  #[must_use]
  pub fn system(content: impl Into<String>) -> Self {
    Self::new(Role::System, content)
  }

  /// A user message.
  #[must_use]
  pub fn user(content: impl Into<String>) -> Self {
    Self::new(Role::User, content)
  }

  /// An assistant message with text and tool calls `(id, name, args JSON)`.
  #[must_use]
  pub fn assistant(content: impl Into<String>, calls: &[(&str, &str, &str)]) -> Self {
    let mut m = Self::new(Role::Assistant, content);
    m.tool_calls = calls
      .iter()
      .map(|(id, name, args)| ToolCall {
        id: (*id).into(),
        name: (*name).into(),
        args: Some((*args).into()),
        args_length: None,
      })
      .collect();
    m
  }

  /// A tool result for `tool_call_id`, from tool `name`.
  #[must_use]
  pub fn tool(
    tool_call_id: impl Into<String>,
    name: impl Into<String>,
    content: impl Into<String>,
  ) -> Self {
    let mut m = Self::new(Role::Tool, content);
    m.tool_call_id = Some(tool_call_id.into());
    let name = name.into();
    if !name.is_empty() {
      m.name = Some(name);
    }
    m
  }

  /// UTF-16 length of the text.
  #[must_use]
  pub fn text_len(&self) -> u64 {
    match (&self.content, self.content_length) {
      (Some(c), _) => utf16_len(c),
      (None, Some(n)) => n,
      (None, None) => 0,
    }
  }

  /// UTF-16 length of the reasoning (`thinking`).
  #[must_use]
  pub fn thinking_len(&self) -> u64 {
    match (&self.thinking, self.thinking_length) {
      (Some(c), _) => utf16_len(c),
      (None, Some(n)) => n,
      (None, None) => 0,
    }
  }

  /// Whether the message carries reasoning.
  #[must_use]
  pub fn has_thinking(&self) -> bool {
    self.thinking_len() > 0
  }

  /// UTF-16 length of the serialized non-text blocks.
  #[must_use]
  pub fn other_len(&self) -> u64 {
    match (&self.other, self.other_length) {
      (Some(c), _) => utf16_len(c),
      (None, Some(n)) => n,
      (None, None) => 0,
    }
  }

  /// Checks what the editor relies on; `index` is the message's position, for the error.
  ///
  /// # Errors
  /// [`ErrorKind::InvalidMessage`](crate::ErrorKind::InvalidMessage) naming the field when a tool
  /// message has no `toolCallId`, tool calls sit on a non-assistant message, or a call has no id.
  pub fn validate(&self, index: usize) -> Result<()> {
    if self.role == Role::Tool {
      match &self.tool_call_id {
        None => {
          return Err(Error::invalid_message(
            index,
            "toolCallId",
            "tool message without `tool_call_id`",
          ))
        }
        Some(id) if id.is_empty() => {
          return Err(Error::invalid_message(
            index,
            "toolCallId",
            "tool message with an empty `tool_call_id`",
          ))
        }
        Some(_) => {}
      }
    }
    if !self.tool_calls.is_empty() && self.role != Role::Assistant {
      return Err(Error::invalid_message(
        index,
        "toolCalls",
        format!(
          "only assistant messages carry tool calls, this one is `{}`",
          self.role.as_str()
        ),
      ));
    }
    for (k, call) in self.tool_calls.iter().enumerate() {
      if call.id.is_empty() {
        return Err(Error::invalid_message(
          index,
          format!("toolCalls[{k}].id"),
          "tool call without an id",
        ));
      }
      check_supplied(
        index,
        || format!("toolCalls[{k}].argsLength"),
        call.args_length,
      )?;
    }
    check_supplied(index, || "contentLength".into(), self.content_length)?;
    check_supplied(index, || "otherLength".into(), self.other_length)?;
    check_supplied(index, || "toolCallsLength".into(), self.tool_calls_length)?;
    check_supplied(index, || "tokens".into(), self.tokens)?;
    check_supplied(index, || "imageTokens".into(), self.image_tokens)?;
    Ok(())
  }
}

/// Largest size a caller may supply instead of text (`contentLength`, `tokens`, …): what a 32-bit
/// wire field holds. With it no sum over a conversation can overflow a `u64`.
pub const MAX_SUPPLIED_SIZE: u64 = u32::MAX as u64;

fn check_supplied(index: usize, field: impl FnOnce() -> String, value: Option<u64>) -> Result<()> {
  match value {
    Some(n) if n > MAX_SUPPLIED_SIZE => Err(Error::invalid_message(
      index,
      field(),
      format!("expected at most {MAX_SUPPLIED_SIZE}, got {n}"),
    )),
    _ => Ok(()),
  }
}

/// Length of `s` in UTF-16 code units, which is what JavaScript's `String.length` counts.
#[must_use]
pub fn utf16_len(s: &str) -> u64 {
  // ASCII fast path: one code unit per byte.
  if s.is_ascii() {
    return s.len() as u64;
  }
  // Counted on the bytes, not by decoding characters: every byte but a continuation byte starts a
  // character (one code unit), and a lead byte of 0xF0 or above starts one outside the BMP (a
  // surrogate pair, one more). Exact for valid UTF-8, which `s` is. Summed in `u8` over blocks of
  // 127 bytes (at most 2 per byte: no overflow), which the compiler vectorizes: about 15x faster
  // than decoding on CJK text.
  let mut units = 0u64;
  for block in s.as_bytes().chunks(127) {
    let mut n = 0u8;
    for &b in block {
      n += u8::from(b & 0xC0 != 0x80) + u8::from(b >= 0xF0);
    }
    units += u64::from(n);
  }
  units
}

/// The longest prefix of `text` of at most `keep` UTF-16 units that does not split a surrogate pair.
pub(crate) fn utf16_prefix(text: &str, keep: u64) -> (&str, u64) {
  let mut units = 0u64;
  for (byte, ch) in text.char_indices() {
    let w = ch.len_utf16() as u64;
    if units + w > keep {
      return (&text[..byte], units);
    }
    units += w;
  }
  (text, units)
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn utf16_length_matches_javascript() {
    assert_eq!(utf16_len("abc"), 3);
    assert_eq!(utf16_len("日本"), 2);
    assert_eq!(utf16_len("😀"), 2);
  }

  /// The byte count equals decoding, for every Unicode scalar value alone and for all of them in
  /// one string (each width 1-4 bytes, each boundary: U+007F/U+0080, U+07FF/U+0800, U+FFFF/U+10000).
  #[test]
  fn utf16_length_counts_every_character_as_decoding_does() {
    let all: String = (0..=0x0010_FFFF_u32).filter_map(char::from_u32).collect();
    for c in all.chars() {
      let mut buf = [0u8; 4];
      let one = c.encode_utf8(&mut buf);
      assert_eq!(utf16_len(one), c.len_utf16() as u64, "{:#x}", c as u32);
    }
    assert_eq!(utf16_len(&all), all.encode_utf16().count() as u64);
    let mixed = "a\u{7f}\u{80}é\u{7ff}\u{800}日\u{ffff}\u{10000}😀\u{10ffff}z".repeat(37);
    assert_eq!(utf16_len(&mixed), mixed.encode_utf16().count() as u64);
  }

  #[test]
  fn roles_accept_every_vocabulary() {
    assert_eq!(Role::parse("human"), Some(Role::User));
    assert_eq!(Role::parse("ai"), Some(Role::Assistant));
    assert_eq!(Role::parse("developer"), Some(Role::System));
    assert_eq!(Role::parse("robot"), None);
  }

  #[test]
  fn validate_names_the_field() {
    let mut m = Message::tool("x", "t", "out");
    m.tool_call_id = None;
    let e = m.validate(7).unwrap_err();
    assert_eq!(e.message_index(), Some(7));
    assert_eq!(e.path(), Some("toolCallId"));
    let m = Message {
      tool_calls: vec![ToolCall::default()],
      ..Message::user("hi")
    };
    assert_eq!(m.validate(0).unwrap_err().path(), Some("toolCalls"));
  }

  #[test]
  fn prefix_never_splits_a_surrogate_pair() {
    let text = "ab😀cd";
    assert_eq!(utf16_prefix(text, 3), ("ab", 2));
    assert_eq!(utf16_prefix(text, 4), ("ab😀", 4));
    assert_eq!(utf16_prefix(text, 99), (text, 6));
  }
}
