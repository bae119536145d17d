//! Jinja's `tojson` of a tool call's arguments, from the JSON text the message carries: chat
//! templates write the arguments as the parsed object serialized again (`", "` and `": "`
//! separators, strings as `JSON.stringify` writes them), so the text the caller holds (compact
//! from `JSON.stringify`, or a model's own spacing and escapes) is rewritten that way before it is
//! counted.

use std::fmt::Write as _;

/// JSON text as Jinja's `tojson` writes the value: `, ` and `: ` between items, nothing else
/// outside strings, and strings as `JSON.stringify` (Python's `json.dumps(ensure_ascii=False)`)
/// writes them: `\u00e9`, `\/` and escaped surrogate pairs become their characters. Numbers are
/// kept as written. Text that is not JSON comes back with the same rules applied.
pub(super) fn spaced_json(json: &str) -> String {
  let mut out = String::with_capacity(json.len() + json.len() / 8);
  let mut chars = json.chars().peekable();
  let mut in_string = false;
  while let Some(ch) = chars.next() {
    if in_string {
      match ch {
        '\\' => unescape(&mut chars, &mut out),
        '"' => {
          in_string = false;
          out.push(ch);
        }
        c => out.push(c),
      }
      continue;
    }
    match ch {
      '"' => {
        in_string = true;
        out.push(ch);
      }
      ',' => out.push_str(", "),
      ':' => out.push_str(": "),
      c if c.is_ascii_whitespace() => {}
      c => out.push(c),
    }
  }
  out
}

/// One escape of a JSON string (after its `\\`), written as `JSON.stringify` would write the
/// character.
fn unescape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, out: &mut String) {
  let hex = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| -> Option<u32> {
    let digits: String = (0..4)
      .map_while(|_| chars.next_if(char::is_ascii_hexdigit))
      .collect();
    (digits.len() == 4)
      .then(|| u32::from_str_radix(&digits, 16).ok())
      .flatten()
  };
  match chars.next() {
    Some('/') => out.push('/'),
    Some('u') => {
      let Some(mut code) = hex(chars) else {
        out.push_str("\\u");
        return;
      };
      if (0xD800..0xDC00).contains(&code) {
        let mut ahead = chars.clone();
        if ahead.next() == Some('\\') && ahead.next() == Some('u') {
          if let Some(low) = hex(&mut ahead).filter(|l| (0xDC00..0xE000).contains(l)) {
            *chars = ahead;
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
        }
      }
      match char::from_u32(code) {
        Some('"') => out.push_str("\\\""),
        Some('\\') => out.push_str("\\\\"),
        Some(c) if u32::from(c) < 0x20 => out.push_str(&control(c)),
        Some(c) => out.push(c),
        // A lone surrogate stays escaped (lower-case hex, as `JSON.stringify` writes it).
        None => {
          let _ = write!(out, "\\u{code:04x}");
        }
      }
    }
    Some(c) => {
      out.push('\\');
      out.push(c);
    }
    None => out.push('\\'),
  }
}

/// A control character as `JSON.stringify` escapes it.
fn control(c: char) -> String {
  match c {
    '\u{8}' => "\\b".to_owned(),
    '\u{c}' => "\\f".to_owned(),
    '\n' => "\\n".to_owned(),
    '\r' => "\\r".to_owned(),
    '\t' => "\\t".to_owned(),
    c => format!("\\u{:04x}", u32::from(c)),
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn json_is_spaced_like_tojson() {
    assert_eq!(
      spaced_json(r#"{"a":1,"b":[1, 2,{"c:d":"x,y"}],"e":"q\"u:o,te"}"#),
      r#"{"a": 1, "b": [1, 2, {"c:d": "x,y"}], "e": "q\"u:o,te"}"#
    );
    assert_eq!(spaced_json("{}"), "{}");
    assert_eq!(
      spaced_json(r#"{"q":"caf\u00e9 \ud83d\ude00 \/x \u001F \u000a \u0022 \ud800 \n"}"#),
      r#"{"q": "café 😀 /x \u001f \n \" \ud800 \n"}"#
    );
    assert_eq!(spaced_json(" { \"a\" :\n[ ] } "), r#"{"a": []}"#);
  }
}
