//! Wire messages as columns: the lengths-only form in which the shim sends a conversation when
//! no text needs to cross (approx counting).
//!
//! Objects cost napi one property read per field (18 per message), and JSON costs a stringify in
//! JavaScript plus a parse here. Columns cost one JavaScript walk that writes numbers into typed
//! arrays and ids into one string, and here one copy of each array and a loop that builds the
//! core's messages. The columns say exactly what a wire message says (a length absent is `NaN`,
//! not 0), so a conversation gives the same core messages, hence the same plan and errors, in any
//! of the three forms.
//!
//! Per message `i`:
//! - `ints[3i..3i+3]`: its flags (below), its number of tool calls, its number of
//!   `clearedToolInputs` ids;
//! - `nums[7i..7i+7]`: `contentLength`, `otherLength`, `thinkingLength`, `images`, `imageTokens`,
//!   `toolCallsLength`, `tokens` (`NaN`: absent);
//! - `args[j]`: the `argsLength` of the conversation's `j`-th tool call (`NaN`: absent);
//! - strings, in this order, each present only when its flag (or count) says so: `toolCallId`,
//!   `name`, `content`, `other`, then per call its `id`, `name` and `args`, then the
//!   `clearedToolInputs` ids. They are joined in `strings`, or listed there one by one (an array:
//!   the shim's text columns natively, see `Joined::List`); `lengths` holds their UTF-16 lengths.

use context_editor_core as core;
use napi::bindgen_prelude::{Float64Array, Uint32Array};
use napi_derive::napi;

use crate::error::CoreResult;

/// A conversation (or a piece of one) as columns: what `planColumns`, `planSessionColumns` and
/// `appendSessionColumns` take. Per message `i`: `ints[3i..3i+3]` are its flags (role in the low
/// two bits, then cleared, truncated, pinned, toolCallId, name, content, other, args as text), its
/// tool calls and its `clearedToolInputs` ids; `nums[7i..7i+7]` are `contentLength`, `otherLength`,
/// `thinkingLength`, `images`, `imageTokens`, `toolCallsLength` and `tokens` (`NaN`: absent);
/// `args` holds each call's `argsLength`; `strings` joins the message's strings (`toolCallId`,
/// `name`, `content`, `other`, each call's `id`, `name`, `args`, the cleared ids), or lists them
/// one by one as an array, and `lengths` holds their UTF-16 lengths. The package's
/// `ContextEditor` writes them (ts/wire/columns.ts).
// Declares the TypeScript type: `input::columns_from_js` reads the object column by column, with
// errors that name the column.
#[allow(dead_code)]
#[napi(object)]
pub struct WireColumns {
  pub ints: Uint32Array,
  pub nums: Float64Array,
  pub args: Float64Array,
  #[napi(ts_type = "string | Array<string>")]
  pub strings: String,
  pub lengths: Uint32Array,
}

/// Bits of a message's flags.
pub mod flag {
  /// The role: the low two bits (`ROLES`).
  pub const ROLE: u32 = 0b11;
  pub const CLEARED: u32 = 1 << 2;
  pub const TRUNCATED: u32 = 1 << 3;
  pub const PINNED: u32 = 1 << 4;
  pub const TOOL_CALL_ID: u32 = 1 << 5;
  pub const NAME: u32 = 1 << 6;
  /// `content` crosses as text (else as `contentLength`, if any).
  pub const CONTENT: u32 = 1 << 7;
  /// `other` crosses as text.
  pub const OTHER: u32 = 1 << 8;
  /// Each tool call's `args` cross as text (else as `argsLength`).
  pub const ARGS: u32 = 1 << 9;
  /// Every flag defined.
  pub const ALL: u32 = (1 << 10) - 1;
}

/// The roles, by the value of the flags' low two bits.
const ROLES: [core::Role; 4] = [
  core::Role::System,
  core::Role::User,
  core::Role::Assistant,
  core::Role::Tool,
];
/// Numbers per message in `nums`.
pub const NUMS: usize = 7;
/// Integers per message in `ints`.
pub const INTS: usize = 3;

/// A conversation (or a piece of one) in columns, copied out of JavaScript.
pub struct Columns {
  pub ints: Vec<u32>,
  pub nums: Vec<f64>,
  pub args: Vec<f64>,
  /// The strings: joined, or one by one.
  pub strings: Joined,
  pub lengths: Vec<u32>,
}

/// The `strings` column, copied out as UTF-16 code units (natively, where napi copies them at
/// once) or as UTF-8 (on WebAssembly, where the shim's encoder writes UTF-8 natively and emnapi
/// copies code units one at a time). Its `lengths` are UTF-16 code units either way.
pub enum Joined {
  Units(Vec<u16>),
  /// Text that held no lone surrogate (the reader of the column keeps code units otherwise, so that
  /// it is refused as natively). Made by the WebAssembly build's reader only.
  #[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
  Utf8(String),
  /// The strings one by one (`strings` given as an array: the shim's text columns natively), each
  /// with its length in UTF-16 code units, which must be the one `lengths` gives it. Read as wire
  /// objects' strings are: a lone surrogate becomes U+FFFD (the shim refuses those before;
  /// docs/reliability.md).
  List(Vec<(String, usize)>),
}

impl Joined {
  /// The code units, or bytes, held.
  fn len(&self) -> usize {
    match self {
      Joined::Units(units) => units.len(),
      Joined::Utf8(text) => text.len(),
      Joined::List(list) => list.len(),
    }
  }
}

/// Reads the columns in order, message by message.
struct Reader<'c> {
  cols: &'c Columns,
  /// The strings of a `Joined::List`, taken one by one.
  list: &'c mut [(String, usize)],
  /// The next string's index in `lengths` and its first code unit (or byte) in `strings`.
  string: usize,
  unit: usize,
  call: usize,
}

impl Columns {
  /// The core's messages, the first of which has index `offset` in the conversation.
  ///
  /// # Errors
  /// `INVALID_MESSAGE`: at path `messages` when the columns do not fit together (their sizes, a
  /// count past the end, a string that is not UTF-16 text), else naming the message and field.
  pub fn into_core(mut self, offset: usize) -> CoreResult<Vec<core::Message>> {
    let n = self.ints.len() / INTS;
    if !self.ints.len().is_multiple_of(INTS) || self.nums.len() != n * NUMS {
      return Err(mismatch(format!(
        "ints holds {} values and nums {}: expected {INTS} and {NUMS} per message",
        self.ints.len(),
        self.nums.len()
      )));
    }
    let strings_len = self.strings.len();
    let mut list = match &mut self.strings {
      Joined::List(list) => std::mem::take(list),
      _ => Vec::new(),
    };
    let mut reader = Reader {
      cols: &self,
      list: &mut list,
      string: 0,
      unit: 0,
      call: 0,
    };
    // With a session's room to grow, so that a new session keeps this list as it is.
    let mut out = Vec::with_capacity(core::session_capacity(n));
    for i in 0..n {
      out.push(reader.message(i, offset + i)?);
    }
    if reader.string != self.lengths.len()
      || reader.unit != strings_len
      || reader.call != self.args.len()
    {
      return Err(mismatch(
        "strings, lengths or args hold more than the messages use".to_owned(),
      ));
    }
    Ok(out)
  }
}

impl Reader<'_> {
  fn message(&mut self, i: usize, index: usize) -> CoreResult<core::Message> {
    let [flags, calls, inputs] = [0, 1, 2].map(|k| self.cols.ints[i * INTS + k]);
    if flags & !flag::ALL != 0 {
      return Err(mismatch(format!(
        "message {index} has unknown flags {flags:#x}"
      )));
    }
    let num = |k: usize, field: &str| number(index, field, self.cols.nums[i * NUMS + k]);
    let has = |bit: u32| flags & bit != 0;
    let mut m = core::Message::new(ROLES[(flags & flag::ROLE) as usize], String::new());
    m.content = None;
    m.content_length = num(0, "contentLength")?;
    m.other_length = num(1, "otherLength")?;
    m.thinking_length = num(2, "thinkingLength")?;
    m.images = num(3, "images")?.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
    m.image_tokens = num(4, "imageTokens")?;
    m.tool_calls_length = num(5, "toolCallsLength")?;
    m.tokens = num(6, "tokens")?;
    m.cleared = has(flag::CLEARED);
    m.truncated = has(flag::TRUNCATED);
    m.pinned = has(flag::PINNED);
    m.tool_call_id = self.string_if(has(flag::TOOL_CALL_ID))?;
    m.name = self.string_if(has(flag::NAME))?;
    m.content = self.string_if(has(flag::CONTENT))?;
    m.other = self.string_if(has(flag::OTHER))?;
    m.tool_calls = Vec::with_capacity(calls.min(64) as usize);
    for k in 0..calls as usize {
      let args_length = self.cols.args.get(self.call).copied().ok_or_else(|| {
        mismatch(format!(
          "message {index} has more tool calls than args holds"
        ))
      })?;
      self.call += 1;
      m.tool_calls.push(core::ToolCall {
        id: self.string()?,
        name: self.string()?,
        args: self.string_if(has(flag::ARGS))?,
        args_length: number_or(index, args_length, || format!("toolCalls[{k}].argsLength"))?,
      });
    }
    m.cleared_tool_inputs = (0..inputs)
      .map(|_| self.string())
      .collect::<CoreResult<_>>()?;
    Ok(m)
  }

  /// The next string.
  fn string(&mut self) -> CoreResult<String> {
    let len = *self
      .cols
      .lengths
      .get(self.string)
      .ok_or_else(|| mismatch("the messages use more strings than lengths holds".to_owned()))?
      as usize;
    let past_end = || mismatch("lengths add up to more than strings holds".to_owned());
    let not_utf16 = || {
      mismatch(format!(
        "string {} is not valid UTF-16 (a lone surrogate)",
        self.string
      ))
    };
    let (text, taken) = match &self.cols.strings {
      Joined::Units(all) => {
        let units = all.get(self.unit..self.unit + len).ok_or_else(past_end)?;
        (utf16_to_string(units).ok_or_else(not_utf16)?, len)
      }
      Joined::Utf8(all) => match utf8_prefix(&all[self.unit..], len) {
        Prefix::Text(text) => (text.to_owned(), text.len()),
        Prefix::PastEnd => return Err(past_end()),
        Prefix::HalfAPair => return Err(not_utf16()),
      },
      Joined::List(_) => {
        let (text, units) = std::mem::take(self.list.get_mut(self.unit).ok_or_else(past_end)?);
        if units != len {
          return Err(mismatch(format!(
            "string {} is {units} UTF-16 code units long, lengths says {len}",
            self.string
          )));
        }
        (text, 1)
      }
    };
    self.string += 1;
    self.unit += taken;
    Ok(text)
  }

  fn string_if(&mut self, present: bool) -> CoreResult<Option<String>> {
    present.then(|| self.string()).transpose()
  }
}

/// What the first `units` UTF-16 code units of some UTF-8 text are.
#[derive(Debug, PartialEq)]
enum Prefix<'t> {
  Text(&'t str),
  /// The text holds fewer.
  PastEnd,
  /// They end between the two halves of a character's surrogate pair: a lone surrogate.
  HalfAPair,
}

/// The prefix of `text` that holds `units` UTF-16 code units. ASCII (ids, names, most text) is one
/// byte a unit and checked at once; other text is walked a character at a time.
fn utf8_prefix(text: &str, units: usize) -> Prefix<'_> {
  let bytes = text.as_bytes();
  if bytes.len() >= units && bytes[..units].is_ascii() {
    return Prefix::Text(&text[..units]);
  }
  let mut counted = 0;
  for (at, c) in text.char_indices() {
    if counted == units {
      return Prefix::Text(&text[..at]);
    }
    counted += c.len_utf16();
    if counted > units {
      return Prefix::HalfAPair;
    }
  }
  if counted == units {
    Prefix::Text(text)
  } else {
    Prefix::PastEnd
  }
}

/// `units` as a `String`, `None` when they hold a lone surrogate.
fn utf16_to_string(units: &[u16]) -> Option<String> {
  decode_units(units, false)
}

/// Code units decoded per run: a run of ASCII (ids, names, most text) is narrowed a unit to a byte
/// (vectorized); other runs are decoded a character at a time. Decoding whole strings a character
/// at a time (`String::from_utf16`) was 4 % of a cold plan's native time at 2,000 messages, and a
/// single character past ASCII in a long text sent the whole of it down that path.
const RUN: usize = 32;

/// `units` as text: a lone surrogate becomes U+FFFD with `lossy`, else the answer is `None`.
pub fn decode_units(units: &[u16], lossy: bool) -> Option<String> {
  let mut out: Vec<u8> = Vec::with_capacity(units.len());
  let mut at = 0;
  while at < units.len() {
    let mut end = (at + RUN).min(units.len());
    let run = &units[at..end];
    if run.iter().fold(0u16, |any, &u| any | u) < 0x80 {
      #[allow(clippy::cast_possible_truncation)]
      out.extend(run.iter().map(|&u| u as u8));
      at = end;
      continue;
    }
    // A pair cut by the run's end is decoded with it.
    if end < units.len() && is_high(units[end - 1]) && is_low(units[end]) {
      end += 1;
    }
    let mut buf = [0u8; 4];
    for c in char::decode_utf16(units[at..end].iter().copied()) {
      let c = match c {
        Ok(c) => c,
        Err(_) if lossy => char::REPLACEMENT_CHARACTER,
        Err(_) => return None,
      };
      out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }
    at = end;
  }
  // Whole characters only were written: never fails.
  String::from_utf8(out).ok()
}

fn is_high(u: u16) -> bool {
  u & 0xFC00 == 0xD800
}

fn is_low(u: u16) -> bool {
  u & 0xFC00 == 0xDC00
}

/// A length or count: `NaN` is absent; else a non-negative integer (a safe one: the core checks
/// the range it accepts, as it does for JSON).
fn number(index: usize, field: &str, n: f64) -> CoreResult<Option<u64>> {
  number_or(index, n, || field.to_owned())
}

/// `number`, with the field's name made only for the error (a tool call's name is formatted).
fn number_or(index: usize, n: f64, field: impl FnOnce() -> String) -> CoreResult<Option<u64>> {
  if n.is_nan() {
    return Ok(None);
  }
  if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    return Ok(Some(n as u64));
  }
  Err(core::Error::invalid_message(
    index,
    field(),
    format!("expected a non-negative integer, got {n}"),
  ))
}

fn mismatch(what: String) -> core::Error {
  core::Error::invalid_messages(format!("columns: {what}"))
}
