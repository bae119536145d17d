//! LangChain's `countTokensApproximately`: a request costs `ceil(chars / 4)` tokens, where chars are
//! the UTF-16 code units of its text, of `JSON.stringify(tool_calls)` and of the tool call ids.
//!
//! Not a [`Counter`](super::Counter): LangChain rounds once per request, not once per text, so in
//! approx mode the measure of a message is its length in code units and the division comes last
//! (see `crate::measure`). This module holds the arithmetic of those lengths.

use crate::message::{utf16_len, ToolCall};

/// Characters per token of LangChain's `countTokensApproximately` (`charsPerToken = 4`).
pub const CHARS_PER_TOKEN: u64 = 4;

/// Tokens of a size in UTF-16 code units: `ceil(units / 4)`.
pub(crate) fn tokens(units: u64) -> u64 {
  units.div_ceil(CHARS_PER_TOKEN)
}

/// UTF-16 length of `JSON.stringify` of `[{"id":…,"name":…,"args":…}, …]`, the shape used when the
/// caller did not send the exact length of its own serialization.
pub(crate) fn default_tool_calls_len(calls: &[ToolCall]) -> u64 {
  let per_call: u64 = calls.iter().map(call_json_len).sum();
  2 + per_call + (calls.len() as u64).saturating_sub(1)
}

/// UTF-16 length of `{"id":<id>,"name":<name>,"args":<args>}` for one call.
pub(crate) fn call_json_len(c: &ToolCall) -> u64 {
  let json_str_len = |s: &str| utf16_len(&serde_json::Value::String(s.to_owned()).to_string());
  let fixed = r#"{"id":,"name":,"args":}"#.len() as u64;
  fixed + json_str_len(&c.id) + json_str_len(&c.name) + c.args_len()
}
