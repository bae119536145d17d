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
  /// The strings one by one (`strings` given as an array: the shim's text columns natively). A
  /// string's length must be the one `lengths` gives it. napi reads each as wire objects' strings
  /// are read: a lone surrogate becomes U+FFFD (the shim refuses those before; docs/reliability.md).
  List(Vec<String>),
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
  list: &'c mut [String],
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
        let text = std::mem::take(self.list.get_mut(self.unit).ok_or_else(past_end)?);
        if utf16_len(&text) != len {
          return Err(mismatch(format!(
            "string {} is {} UTF-16 code units long, lengths says {len}",
            self.string,
            utf16_len(&text)
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

/// The UTF-16 length of `text`: a unit per character, two for one past U+FFFF (a character is
/// a byte that is no continuation byte; four-byte ones start at 0xF0). Vectorized.
fn utf16_len(text: &str) -> usize {
  text
    .as_bytes()
    .iter()
    .map(|&b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
    .sum()
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

/// `units` as a `String`, `None` when they hold a lone surrogate. Ids and names are nearly always
/// ASCII: those are narrowed a unit to a byte (vectorized) instead of decoded a character at a time
/// (`String::from_utf16` was 4 % of a cold plan's native time at 2,000 messages).
fn utf16_to_string(units: &[u16]) -> Option<String> {
  if units.iter().fold(0u16, |any, &u| any | u) < 0x80 {
    #[allow(clippy::cast_possible_truncation)]
    let bytes: Vec<u8> = units.iter().map(|&u| u as u8).collect();
    return String::from_utf8(bytes).ok();
  }
  String::from_utf16(units).ok()
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
