//! The estimator's run classification as it was before the speed work of session 2 (a verbatim
//! copy of `Features::of` and its helpers from `crates/core/src/estimate.rs` at commit 5c6d731):
//! `estimator-tool check` compares the shipped `Features::of` with it, so faster code cannot
//! change an estimate unnoticed.
#![allow(clippy::all, dead_code)]

use context_editor_core::Features;

/// Byte classes of ASCII.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ascii {
  Lower,
  Upper,
  Digit,
  Space,
  Newline,
  Punct,
  Control,
}

const fn ascii_class(b: u8) -> Ascii {
  match b {
    b'a'..=b'z' => Ascii::Lower,
    b'A'..=b'Z' => Ascii::Upper,
    b'0'..=b'9' => Ascii::Digit,
    b' ' | b'\t' | 0x0b | 0x0c => Ascii::Space,
    b'\n' | b'\r' => Ascii::Newline,
    0x21..=0x7e => Ascii::Punct,
    _ => Ascii::Control,
  }
}

const ASCII: [Ascii; 128] = {
  let mut t = [Ascii::Control; 128];
  let mut i = 0;
  while i < 128 {
    #[allow(clippy::cast_possible_truncation)]
    {
      t[i] = ascii_class(i as u8);
    }
    i += 1;
  }
  t
};

/// Classes of non-ASCII characters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wide {
  Han,
  Hiragana,
  Katakana,
  Hangul,
  CjkPunct,
  LatinExt,
  Script,
  Other,
}

fn wide_class(c: char) -> Wide {
  match c {
    '\u{4E00}'..='\u{9FFF}'
    | '\u{3400}'..='\u{4DBF}'
    | '\u{F900}'..='\u{FAFF}'
    | '\u{20000}'..='\u{2FA1F}'
    | '\u{3005}' => Wide::Han,
    '\u{3040}'..='\u{309F}' => Wide::Hiragana,
    '\u{30A0}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9F}' => Wide::Katakana,
    '\u{AC00}'..='\u{D7AF}' | '\u{1100}'..='\u{11FF}' | '\u{3130}'..='\u{318F}' => Wide::Hangul,
    '\u{3000}'..='\u{303F}' | '\u{FF00}'..='\u{FF65}' | '\u{FE30}'..='\u{FE4F}' => Wide::CjkPunct,
    '\u{00D7}' | '\u{00F7}' => Wide::Other,
    '\u{00C0}'..='\u{024F}' | '\u{1E00}'..='\u{1EFF}' => Wide::LatinExt,
    // Greek, Cyrillic, Armenian, Hebrew, Arabic letters without the general lookup.
    '\u{0388}'..='\u{03F5}'
    | '\u{03F7}'..='\u{0481}'
    | '\u{048A}'..='\u{052F}'
    | '\u{05D0}'..='\u{05EA}'
    | '\u{0620}'..='\u{064A}' => Wide::Script,
    _ if c.is_alphabetic() => Wide::Script,
    _ => Wide::Other,
  }
}

/// Counts a letter piece of `n` letters: pieces up to 13 letters into a length histogram (a store,
/// not a branch per length), longer ones by letters.
#[inline]
fn piece(f: &mut Features, hist: &mut [u64; 14], n: usize) {
  if n < 14 {
    hist[n] += 1;
  } else {
    f.long_letters += n as u64;
  }
}

/// Moves the length histogram into the length buckets.
fn fold_pieces(f: &mut Features, hist: &[u64; 14]) {
  f.w1 += hist[1];
  f.w2 += hist[2];
  f.w3 += hist[3];
  f.w4 += hist[4];
  f.w5 += hist[5];
  f.w6 += hist[6];
  f.w7 += hist[7];
  f.w8 += hist[8];
  f.w9_10 += hist[9] + hist[10];
  f.w11_13 += hist[11] + hist[12] + hist[13];
}

/// Splits an ASCII letter run into o200k's pieces: `[A-Z]*[a-z]+` or `[A-Z]+`.
fn letter_pieces(f: &mut Features, hist: &mut [u64; 14], run: &[u8]) {
  let mut i = 0;
  while i < run.len() {
    let start = i;
    while i < run.len() && run[i].is_ascii_uppercase() {
      i += 1;
    }
    let upper = i - start;
    while i < run.len() && run[i].is_ascii_lowercase() {
      i += 1;
    }
    let n = i - start;
    piece(f, hist, n);
    if upper == n && upper >= 2 {
      f.caps_letters += n as u64;
    }
  }
}

/// An ASCII run of letters and digits: a hex or base64-like blob, or words and digit groups.
fn alnum_run(f: &mut Features, hist: &mut [u64; 14], run: &[u8]) {
  let digits = run.iter().filter(|b| b.is_ascii_digit()).count();
  let n = run.len();
  if digits > 0 && digits < n {
    if n >= 8 && run.iter().all(u8::is_ascii_hexdigit) {
      f.hex_chars += n as u64;
      return;
    }
    if n >= 16 {
      f.b64_chars += n as u64;
      return;
    }
  }
  let mut i = 0;
  while i < n {
    let start = i;
    if run[i].is_ascii_digit() {
      while i < n && run[i].is_ascii_digit() {
        i += 1;
      }
      f.digit_groups += ((i - start) as u64).div_ceil(3);
    } else {
      while i < n && run[i].is_ascii_alphabetic() {
        i += 1;
      }
      letter_pieces(f, hist, &run[start..i]);
    }
  }
}

pub fn features_of(text: &str) -> Features {
  let mut f = Features::default();
  let mut hist = [0u64; 14];
  let bytes = text.as_bytes();
  let n = bytes.len();
  let mut i = 0;
  while i < n {
    let b = bytes[i];
    if b >= 0x80 {
      i = wide_run(&mut f, text, i);
      continue;
    }
    match ASCII[b as usize] {
      Ascii::Lower | Ascii::Upper | Ascii::Digit => {
        // Words separated by single spaces are handled here without going back to the
        // dispatch: prose is mostly that.
        loop {
          let start = i;
          i = skip_lowercase(bytes, i);
          let plain = i > start && (i == n || !bytes[i].is_ascii_alphanumeric());
          if !plain {
            i = skip_alnum(bytes, i);
          }
          if i < n && bytes[i] >= 0x80 && starts_letter_word(text, i) {
            i = mixed_word(&mut f, text, start);
            break;
          } else if plain {
            piece(&mut f, &mut hist, i - start);
          } else {
            alnum_run(&mut f, &mut hist, &bytes[start..i]);
          }
          // Common separators are handled without going back to the dispatch (the same rules
          // as the branches below): a single space joins the next word; a single punctuation
          // character before a letter joins it (`self.x`, `snake_case`); a single one before a
          // space (`, ` and `. `) is a punctuation run.
          if i + 2 >= n {
            break;
          }
          let (c0, c1) = (bytes[i], bytes[i + 1]);
          if c0 == b' ' && c1.is_ascii_alphanumeric() {
            if c1.is_ascii_digit() {
              f.lone_spaces += 1;
            }
            i += 1;
          } else if ASCII[usize::from(c0 & 0x7f)] == Ascii::Punct && c0 < 0x80 {
            if c1.is_ascii_alphabetic() {
              if c0 == b'_' {
                f.underscore_prefix += 1;
              } else {
                f.punct_prefix += 1;
              }
              i += 1;
            } else if c1 == b' ' && bytes[i + 2].is_ascii_alphanumeric() {
              f.punct_runs += 1;
              f.punct_chars += 1;
              if bytes[i + 2].is_ascii_digit() {
                f.lone_spaces += 1;
              }
              i += 2;
            } else {
              break;
            }
          } else {
            break;
          }
        }
      }
      Ascii::Space if b == b' ' && i + 1 < n && bytes[i + 1].is_ascii_alphabetic() => {
        // A single space joins the word after it.
        i += 1;
      }
      Ascii::Space => {
        let start = i;
        while i < n && ASCII.get(bytes[i] as usize) == Some(&Ascii::Space) {
          i += 1;
        }
        if i == n {
          f.space_runs += 1;
        } else if ASCII.get(bytes[i] as usize) == Some(&Ascii::Newline) {
          // Trailing spaces go into the line-break token.
        } else if i - start >= 2 {
          f.space_runs += 1;
        } else if bytes[i].is_ascii_digit() {
          f.lone_spaces += 1;
        }
      }
      Ascii::Newline => {
        let mut breaks = 0u64;
        let mut last = i;
        let mut j = i;
        loop {
          j = skip_spaces(bytes, j);
          let Some(&c) = bytes.get(j) else { break };
          match ASCII[usize::from(c & 0x7f)] {
            Ascii::Newline if c < 0x80 => {
              // "\r\n" is one break.
              if !(c == b'\n' && j > 0 && bytes[j - 1] == b'\r') {
                breaks += 1;
              }
              last = j;
            }
            Ascii::Space if c < 0x80 => {}
            _ => break,
          }
          j += 1;
        }
        f.newline_runs += 1;
        f.newline_extra += breaks.saturating_sub(2);
        // Indentation after the last break is a space run of its own (the rules of the
        // `Ascii::Space` branch, applied here directly).
        let tail = j - last - 1;
        if tail > 0 {
          if j == n || tail >= 2 {
            f.space_runs += 1;
          } else if bytes[j].is_ascii_digit() {
            f.lone_spaces += 1;
          }
        }
        i = j;
      }
      Ascii::Punct => {
        let start = i;
        i = skip_punct(bytes, i);
        let len = (i - start) as u64;
        if len == 1 && i < n && starts_letter(text, i) {
          if b == b'_' {
            f.underscore_prefix += 1;
          } else {
            f.punct_prefix += 1;
          }
        } else if len >= 4 && bytes[start..i].iter().all(|&c| c == b) {
          f.repeat_runs += 1;
          f.repeat_chars += len;
        } else {
          f.punct_runs += 1;
          f.punct_chars += len;
          if i < n && ASCII.get(bytes[i] as usize) == Some(&Ascii::Newline) {
            f.punct_newline += 1;
          }
        }
      }
      Ascii::Control => {
        f.other_chars += 1;
        f.other_bytes += 1;
        i += 1;
      }
    }
  }
  fold_pieces(&mut f, &hist);
  f
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// High bit of each byte of `v` set when the byte is ASCII and `lo <= byte <= hi` (`hi < 0x7f`).
#[inline]
const fn in_range(v: u64, lo: u8, hi: u8) -> u64 {
  ((v | HIGH).wrapping_sub(ONES * lo as u64))
    & !((v | HIGH).wrapping_sub(ONES * (hi as u64 + 1)))
    & !v
    & HIGH
}

/// High bit of each byte of `v` set when the byte is an ASCII letter or digit.
#[inline]
const fn alnum_bytes(v: u64) -> u64 {
  // `| 0x20` folds upper case onto lower case and leaves digits alone.
  in_range(v | (ONES * 0x20), b'a', b'z') | in_range(v, b'0', b'9')
}

/// The end of the run of ASCII punctuation (`Ascii::Punct`) starting at `i`, eight bytes at a time.
#[inline]
fn skip_punct(bytes: &[u8], mut i: usize) -> usize {
  while let Some(chunk) = bytes.get(i..i + 8) {
    let v = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
    let punct = in_range(v, 0x21, 0x7e) & !alnum_bytes(v);
    let run = (!punct & HIGH).trailing_zeros() as usize / 8;
    i += run;
    if run < 8 {
      return i;
    }
  }
  while i < bytes.len() && ASCII.get(bytes[i] as usize) == Some(&Ascii::Punct) {
    i += 1;
  }
  i
}

/// The end of the run of ASCII letters and digits starting at `i`, eight bytes at a time.
#[inline]
fn skip_alnum(bytes: &[u8], mut i: usize) -> usize {
  while let Some(chunk) = bytes.get(i..i + 8) {
    let v = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
    let alnum = alnum_bytes(v);
    let run = (!alnum & HIGH).trailing_zeros() as usize / 8;
    i += run;
    if run < 8 {
      return i;
    }
  }
  while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
    i += 1;
  }
  i
}

/// The end of the run of `' '` starting at `i`, eight bytes at a time (indentation).
#[inline]
fn skip_spaces(bytes: &[u8], mut i: usize) -> usize {
  while let Some(chunk) = bytes.get(i..i + 8) {
    let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])) ^ (ONES * u64::from(b' '));
    // High bit of each byte set when the byte is not a space (no carries between bytes).
    let other = (((x & !HIGH) + !HIGH) | x) & HIGH;
    let run = other.trailing_zeros() as usize / 8;
    i += run;
    if run < 8 {
      return i;
    }
  }
  while i < bytes.len() && bytes[i] == b' ' {
    i += 1;
  }
  i
}

/// The end of the run of ASCII lowercase letters starting at `i`, eight bytes at a time: most words
/// end within one step, so the loop exit is not a per-word branch miss.
#[inline]
fn skip_lowercase(bytes: &[u8], mut i: usize) -> usize {
  while let Some(chunk) = bytes.get(i..i + 8) {
    let v = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
    // High bit of each byte set when 'a' <= byte <= 'z' (and the byte is ASCII).
    let ge_a = (v | HIGH).wrapping_sub(ONES * u64::from(b'a'));
    let ge_brace = (v | HIGH).wrapping_sub(ONES * u64::from(b'z' + 1));
    let lower = ge_a & !ge_brace & !v & HIGH;
    let run = (!lower & HIGH).trailing_zeros() as usize / 8;
    i += run;
    if run < 8 {
      return i;
    }
  }
  while i < bytes.len() && bytes[i].is_ascii_lowercase() {
    i += 1;
  }
  i
}

fn char_at(text: &str, i: usize) -> char {
  text[i..].chars().next().unwrap_or('\0')
}

/// Whether a letter starts at `i` (ASCII or a letter of any script).
fn starts_letter(text: &str, i: usize) -> bool {
  let b = text.as_bytes()[i];
  if b < 0x80 {
    return b.is_ascii_alphabetic();
  }
  char_at(text, i).is_alphabetic()
}

/// Whether a non-CJK letter word (accented Latin or another alphabet) starts at `i`.
fn starts_letter_word(text: &str, i: usize) -> bool {
  matches!(wide_class(char_at(text, i)), Wide::LatinExt | Wide::Script)
}

/// A word mixing ASCII letters/digits with accented Latin or other-script letters, from `start`.
fn mixed_word(f: &mut Features, text: &str, start: usize) -> usize {
  let mut script = false;
  let mut chars = 0u64;
  let mut end = start;
  for (off, c) in text[start..].char_indices() {
    let keep = if c.is_ascii() {
      c.is_ascii_alphanumeric()
    } else {
      match wide_class(c) {
        Wide::LatinExt => true,
        Wide::Script => {
          script = true;
          true
        }
        _ => false,
      }
    };
    if !keep {
      break;
    }
    chars += 1;
    end = start + off + c.len_utf8();
  }
  if script {
    f.script_words += 1;
    f.script_chars += chars;
  } else {
    f.ext_words += 1;
    f.ext_chars += chars;
  }
  end
}

/// A run starting with a non-ASCII character at `i`; returns where it ends.
fn wide_run(f: &mut Features, text: &str, i: usize) -> usize {
  let c = char_at(text, i);
  match wide_class(c) {
    Wide::Han | Wide::Hiragana | Wide::Katakana => {
      let (mut han, mut kana) = (0u64, false);
      let mut end = i;
      for c in text[i..].chars() {
        match wide_class(c) {
          Wide::Han => han += 1,
          Wide::Hiragana => {
            f.hiragana += 1;
            kana = true;
          }
          Wide::Katakana => {
            f.katakana += 1;
            kana = true;
          }
          _ => break,
        }
        end += c.len_utf8();
      }
      f.cjk_runs += 1;
      if i > 0 && text.as_bytes()[i - 1] == b' ' {
        f.cjk_after_space += 1;
      }
      if kana {
        f.han_ja += han;
      } else {
        f.han_zh += han;
      }
      end
    }
    Wide::Hangul => {
      f.hangul += 1;
      i + c.len_utf8()
    }
    Wide::CjkPunct => {
      f.cjk_punct += 1;
      i + c.len_utf8()
    }
    Wide::LatinExt | Wide::Script => mixed_word(f, text, i),
    Wide::Other => {
      f.other_chars += 1;
      f.other_bytes += c.len_utf8() as u64;
      i + c.len_utf8()
    }
  }
}
