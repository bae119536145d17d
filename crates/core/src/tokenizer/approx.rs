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
  let fixed = r#"{"id":,"name":,"args":}"#.len() as u64;
  fixed + json_string_len(&c.id) + json_string_len(&c.name) + c.args_len()
}

/// UTF-16 length of `JSON.stringify(s)` (the same as `serde_json` writes it): the quotes, two units
/// for `"`, `\\` and the control characters with a short escape (`\b`, `\t`, `\n`, `\f`,
/// `\r`), six for the other control characters (`\u001f`), and every other character as it is.
/// Counted on the bytes, without writing the text (this runs for each tool call a message holds).
pub(crate) fn json_string_len(s: &str) -> u64 {
  let mut extra = 0u64;
  for &b in s.as_bytes() {
    extra += match b {
      b'"' | b'\\' | 0x08 | 0x09 | 0x0A | 0x0C | 0x0D => 1,
      0x00..=0x1F => 5,
      _ => 0,
    };
  }
  2 + utf16_len(s) + extra
}

#[cfg(test)]
mod tests {
  use super::*;
  use proptest::prelude::*;

  /// The length `JSON.stringify` (and `serde_json`) gives `s`, by writing it.
  fn written(s: &str) -> u64 {
    utf16_len(&serde_json::Value::String(s.to_owned()).to_string())
  }

  #[test]
  fn escapes_count_as_written() {
    for s in [
      "",
      "call_1",
      "say \"hi\"",
      "a\\b",
      "\u{8}\t\n\u{c}\r",
      "\u{0}\u{1}\u{1f}",
      "\u{7f}",
      "\u{2028}\u{2029}",
      "日本語",
      "😀 and 𝕏",
      "</script>",
    ] {
      assert_eq!(json_string_len(s), written(s), "{s:?}");
    }
  }

  proptest! {
    #[test]
    fn any_string_counts_as_written(s in "(?s).{0,40}", ctl in proptest::collection::vec(0u8..0x20, 0..6)) {
      let mut t = s.clone();
      for c in ctl {
        t.push(char::from(c));
        t.push_str(&s);
      }
      prop_assert_eq!(json_string_len(&t), written(&t));
    }
  }
}
