//! The lexer of the module-graph check: code without comments and literals, as tokens, without
//! test modules, and the paths in it.

use std::collections::BTreeSet;

/// The code of `source` with comments removed and string/char literals emptied.
pub fn strip(source: &str) -> String {
  let s: Vec<char> = source.chars().collect();
  let ident = |c: char| c.is_alphanumeric() || c == '_';
  let mut out = String::with_capacity(source.len());
  let mut i = 0;
  while i < s.len() {
    let c = s[i];
    let next = s.get(i + 1).copied();
    if c == '/' && next == Some('/') {
      while i < s.len() && s[i] != '\n' {
        i += 1;
      }
    } else if c == '/' && next == Some('*') {
      i += 2;
      while i + 1 < s.len() && !(s[i] == '*' && s[i + 1] == '/') {
        i += 1;
      }
      i += 2;
    } else if c == 'r'
      && matches!(next, Some('"' | '#'))
      && (i == 0 || !ident(s[i - 1]) || (s[i - 1] == 'b' && (i < 2 || !ident(s[i - 2]))))
    {
      // A raw string `r#"…"#` (or `br"…"`): ends at a quote followed by as many hashes.
      let mut j = i + 1;
      let mut hashes = 0;
      while j < s.len() && s[j] == '#' {
        hashes += 1;
        j += 1;
      }
      if s.get(j) != Some(&'"') {
        out.push(c);
        i += 1;
        continue;
      }
      j += 1;
      while j < s.len() && !(s[j] == '"' && (1..=hashes).all(|h| s.get(j + h) == Some(&'#'))) {
        j += 1;
      }
      i = j + 1 + hashes;
      out.push_str("\"\"");
    } else if c == '"' {
      i += 1;
      while i < s.len() && s[i] != '"' {
        i += if s[i] == '\\' { 2 } else { 1 };
      }
      i += 1;
      out.push_str("\"\"");
    } else if c == '\'' {
      // A char literal (`'x'`, `'\n'`, `'\u{41}'`) or a lifetime (`'a`), which is kept.
      let end = if next == Some('\\') {
        (i + 2..s.len()).find(|&j| s[j] == '\'')
      } else if s.get(i + 2) == Some(&'\'') {
        Some(i + 2)
      } else {
        None
      };
      if let Some(e) = end {
        out.push_str("' '");
        i = e + 1;
      } else {
        out.push(c);
        i += 1;
      }
    } else {
      out.push(c);
      i += 1;
    }
  }
  out
}

/// The code as tokens: identifiers, `::`, and single punctuation characters.
pub fn tokens(code: &str) -> Vec<String> {
  let s: Vec<char> = code.chars().collect();
  let mut out = Vec::new();
  let mut i = 0;
  while i < s.len() {
    let c = s[i];
    if c.is_alphanumeric() || c == '_' {
      let start = i;
      while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
        i += 1;
      }
      out.push(s[start..i].iter().collect());
    } else if c == ':' && s.get(i + 1) == Some(&':') {
      out.push("::".to_owned());
      i += 2;
    } else {
      if !c.is_whitespace() {
        out.push(c.to_string());
      }
      i += 1;
    }
  }
  out
}

/// `tokens` without the test modules: `#[cfg(test)] mod name { … }` blocks are dropped, and the
/// names of `#[cfg(test)] mod name;` files are returned.
pub fn without_tests(tokens: &[String]) -> (Vec<String>, BTreeSet<String>) {
  const ATTRIBUTE: [&str; 7] = ["#", "[", "cfg", "(", "test", ")", "]"];
  let mut out = Vec::with_capacity(tokens.len());
  let mut test_files = BTreeSet::new();
  let mut i = 0;
  while i < tokens.len() {
    let is_test_mod = tokens
      .get(i..i + ATTRIBUTE.len())
      .is_some_and(|t| t == ATTRIBUTE)
      && tokens.get(i + ATTRIBUTE.len()).map(String::as_str) == Some("mod");
    if !is_test_mod {
      out.push(tokens[i].clone());
      i += 1;
      continue;
    }
    let name = i + ATTRIBUTE.len() + 1;
    if tokens.get(name + 1).map(String::as_str) == Some(";") {
      test_files.insert(tokens[name].clone());
      i = name + 2;
      continue;
    }
    // Skip to the brace that closes the module.
    let mut depth = 0;
    i = name + 1;
    while i < tokens.len() {
      match tokens[i].as_str() {
        "{" => depth += 1,
        "}" => {
          depth -= 1;
          if depth == 0 {
            i += 1;
            break;
          }
        }
        _ => {}
      }
      i += 1;
    }
  }
  (out, test_files)
}

/// The paths of a path expression starting at `tokens[*at]` (an identifier followed by `::`),
/// with `{…}` groups expanded: `a::{b, c::d}` is `a::b` and `a::c::d`.
pub fn paths_at(tokens: &[String], at: &mut usize) -> Vec<Vec<String>> {
  let mut prefix = Vec::new();
  loop {
    let Some(t) = tokens.get(*at) else {
      return vec![prefix];
    };
    if t == "{" {
      *at += 1;
      let mut all = Vec::new();
      while let Some(t) = tokens.get(*at) {
        match t.as_str() {
          "}" => {
            *at += 1;
            break;
          }
          "," => *at += 1,
          _ => {
            for tail in paths_at(tokens, at) {
              all.push([prefix.clone(), tail].concat());
            }
          }
        }
      }
      return all;
    }
    if !(t.chars().all(|c| c.is_alphanumeric() || c == '_') || t == "*") {
      return vec![prefix];
    }
    prefix.push(t.clone());
    *at += 1;
    if tokens.get(*at).map(String::as_str) != Some("::") {
      return vec![prefix];
    }
    *at += 1;
  }
}
