//! Token counting: LangChain's character approximation, exact BPE counts from the tiktoken ranks
//! embedded in `tiktoken-rs` (no network, ever) with a bounded per-editor cache, and the fast
//! script-aware estimate of [`crate::estimate_tokens`].

use std::collections::HashMap;
use std::sync::Mutex;

use xxhash_rust::xxh3::xxh3_128_with_seed;

use crate::encoding::Encoding;
use crate::estimate::estimate_tokens;
use crate::message::{utf16_len, Message, Role, ToolCall, EMPTY_ARGS};
use crate::options::TokenCountMethod;

/// Characters per token of LangChain's `countTokensApproximately` (`charsPerToken = 4`).
pub const CHARS_PER_TOKEN: u64 = 4;
/// Framing tokens of every chat message (`tokens_per_message` in the OpenAI cookbook, tiktoken-rs and
/// LangChain `getNumTokensFromMessages`).
pub const MESSAGE_OVERHEAD: u64 = 3;
/// Extra token when a message has a `name` (`tokens_per_name` in the OpenAI cookbook).
pub const NAME_OVERHEAD: u64 = 1;
/// Tokens that prime every reply (`<|start|>assistant<|message|>`, tiktoken-rs `REPLY_PRIMING`).
pub const REPLY_PRIMING: u64 = 3;
/// Framing tokens per tool call (tiktoken-rs `FUNCTION_CALL_OVERHEAD`).
pub const TOOL_CALL_OVERHEAD: u64 = 1;
/// Framing tokens per tool definition sent beside the messages (a heuristic: the definitions are
/// rendered into the prompt as text; the JSON schema is counted exactly, this covers the framing).
pub const TOOL_DEFINITION_OVERHEAD: u64 = 3;
/// Tokens charged per image block: OpenAI's high-detail price of a 1024×1024 image
/// (85 base + 4 tiles × 170), a documented middle estimate since the real size is not known here.
pub const IMAGE_TOKENS: u64 = 765;
/// Strings shorter than this are tokenized directly; longer ones go through the cache.
const CACHE_MIN_BYTES: usize = 64;

/// A bounded map from string hashes to token counts.
///
/// Two generations: lookups hit either; inserts go to the young one; when the young one reaches half
/// the bound, the old one is dropped and the young one becomes old. Memory stays below the bound and
/// recently used entries survive, at O(1) per operation.
#[derive(Debug, Default)]
pub struct TokenCache {
  young: HashMap<u128, u32>,
  old: HashMap<u128, u32>,
  capacity: usize,
}

impl TokenCache {
  /// A cache holding at most `capacity` entries (0 disables it).
  #[must_use]
  pub fn new(capacity: usize) -> Self {
    Self {
      young: HashMap::new(),
      old: HashMap::new(),
      capacity,
    }
  }

  /// Number of entries held.
  #[must_use]
  pub fn len(&self) -> usize {
    self.young.len() + self.old.len()
  }

  /// Whether the cache is empty.
  #[must_use]
  pub fn is_empty(&self) -> bool {
    self.len() == 0
  }

  /// The bound in entries.
  #[must_use]
  pub fn capacity(&self) -> usize {
    self.capacity
  }

  /// Drops every entry.
  pub fn clear(&mut self) {
    self.young.clear();
    self.old.clear();
  }

  fn get(&mut self, key: u128) -> Option<u32> {
    if let Some(v) = self.young.get(&key) {
      return Some(*v);
    }
    let v = self.old.get(&key).copied()?;
    // Promote, so an entry in use survives the next rotation.
    self.insert(key, v);
    Some(v)
  }

  fn insert(&mut self, key: u128, value: u32) {
    if self.capacity == 0 {
      return;
    }
    let half = self.capacity.div_ceil(2);
    if self.young.len() >= half {
      self.old = std::mem::take(&mut self.young);
    }
    self.young.insert(key, value);
  }
}

/// Strings up to this size (names, placeholders, markers) are counted through a per-thread memo:
/// every call measures them again for each message that carries them.
const SHORT_BYTES: usize = 48;
/// Entries per thread before the memo starts afresh.
const SHORT_MEMO_ENTRIES: usize = 4096;

thread_local! {
  static SHORT_COUNTS: std::cell::RefCell<rustc_hash::FxHashMap<Encoding, rustc_hash::FxHashMap<Box<str>, u64>>> =
    std::cell::RefCell::default();
}

fn count_short(encoding: Encoding, text: &str) -> u64 {
  SHORT_COUNTS.with(|memo| {
    let mut memo = memo.borrow_mut();
    let memo = memo.entry(encoding).or_default();
    if let Some(n) = memo.get(text) {
      return *n;
    }
    let n = encoding.count(text);
    if memo.len() >= SHORT_MEMO_ENTRIES {
      memo.clear();
    }
    memo.insert(Box::from(text), n);
    n
  })
}

/// Counts tokens for one call: a method, an encoding, and optionally the editor's cache.
pub(crate) struct Counter<'a> {
  pub method: TokenCountMethod,
  pub encoding: Encoding,
  pub cache: Option<&'a Mutex<TokenCache>>,
}

impl Counter<'_> {
  /// Tokens of one string: exact in model mode, estimated in estimate mode.
  fn count(&self, text: &str) -> u64 {
    match self.method {
      TokenCountMethod::Estimate => estimate_tokens(text, self.encoding),
      TokenCountMethod::Approx | TokenCountMethod::Model if text.len() <= SHORT_BYTES => {
        count_short(self.encoding, text)
      }
      TokenCountMethod::Approx | TokenCountMethod::Model => self.encoding.count(text),
    }
  }

  /// Token counts of many strings: exact ones through the cache for long strings; estimates
  /// directly (an estimate costs less than the cache's hash).
  fn count_strings(&self, texts: &[&str]) -> Vec<u64> {
    if self.method == TokenCountMethod::Estimate {
      return texts.iter().map(|t| self.count(t)).collect();
    }
    let mut out = vec![0u64; texts.len()];
    let mut misses: Vec<(usize, u128)> = Vec::new();
    {
      let mut guard = self
        .cache
        .map(|c| c.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
      for (i, t) in texts.iter().enumerate() {
        if t.len() < CACHE_MIN_BYTES || guard.is_none() {
          continue;
        }
        let key = xxh3_128_with_seed(t.as_bytes(), self.encoding.seed());
        match guard.as_mut().and_then(|g| g.get(key)) {
          Some(n) => out[i] = u64::from(n),
          None => misses.push((i, key)),
        }
      }
    }
    let cached = self.cache.is_some();
    let todo: Vec<usize> = texts
      .iter()
      .enumerate()
      .filter(|(_, t)| t.len() < CACHE_MIN_BYTES || !cached)
      .map(|(i, _)| i)
      .chain(misses.iter().map(|(i, _)| *i))
      .collect();
    let todo_texts: Vec<&str> = todo.iter().map(|&i| texts[i]).collect();
    for (i, n) in todo.into_iter().zip(self.encoding.count_many(&todo_texts)) {
      out[i] = n;
    }
    if let Some(cache) = self.cache {
      if !misses.is_empty() {
        let mut g = cache
          .lock()
          .unwrap_or_else(std::sync::PoisonError::into_inner);
        for (i, key) in misses {
          g.insert(key, u32::try_from(out[i]).unwrap_or(u32::MAX));
        }
      }
    }
    out
  }

  /// Measures every message: approx mode in UTF-16 code units, model and estimate modes in tokens
  /// (estimate mode: the estimate of each string plus the same framing constants as model mode).
  pub fn measure(&self, messages: &[Message]) -> Vec<Measure> {
    match self.method {
      TokenCountMethod::Approx => messages.iter().map(approx_measure).collect(),
      TokenCountMethod::Model | TokenCountMethod::Estimate => self.model_measures(messages),
    }
  }

  fn model_measures(&self, messages: &[Message]) -> Vec<Measure> {
    // Gather every string once so the cache is locked twice per call, not per string.
    let mut texts: Vec<&str> = Vec::new();
    for m in messages {
      if m.tokens.is_some() {
        // A caller-supplied count still needs the parts an edit can remove.
        for c in &m.tool_calls {
          texts.push(c.args.as_deref().unwrap_or(EMPTY_ARGS));
        }
        continue;
      }
      texts.push(m.content.as_deref().unwrap_or(""));
      texts.push(m.other.as_deref().unwrap_or(""));
      texts.push(m.thinking.as_deref().unwrap_or(""));
      texts.push(m.name.as_deref().unwrap_or(""));
      for c in &m.tool_calls {
        texts.push(&c.name);
        texts.push(c.args.as_deref().unwrap_or(EMPTY_ARGS));
      }
    }
    let counts = self.count_strings(&texts);
    let empty_args = self.count(EMPTY_ARGS);
    let mut it = counts.into_iter();
    messages
      .iter()
      .map(|m| {
        if let Some(t) = m.tokens {
          let args: Vec<u64> = m
            .tool_calls
            .iter()
            .map(|_| it.next().unwrap_or(0))
            .collect();
          let calls: Vec<u64> = args.iter().map(|a| TOOL_CALL_OVERHEAD + a).collect();
          return Measure {
            total: t,
            calls_total: calls.iter().sum(),
            calls,
            args,
            empty_args,
            thinking: 0,
          };
        }
        let text = it.next().unwrap_or(0);
        let other = it.next().unwrap_or(0);
        let thinking = it.next().unwrap_or(0);
        let name = it.next().unwrap_or(0);
        let mut total = MESSAGE_OVERHEAD
          + self.role_tokens(m.role)
          + text
          + other
          + thinking
          + u64::from(m.images) * IMAGE_TOKENS;
        if m.name.as_deref().is_some_and(|n| !n.is_empty()) {
          total += NAME_OVERHEAD + name;
        }
        let mut args = Vec::with_capacity(m.tool_calls.len());
        let mut calls = Vec::with_capacity(m.tool_calls.len());
        for _ in &m.tool_calls {
          let call_name = it.next().unwrap_or(0);
          let a = it.next().unwrap_or(0);
          total += TOOL_CALL_OVERHEAD + call_name + a;
          args.push(a);
          calls.push(TOOL_CALL_OVERHEAD + call_name + a);
        }
        Measure {
          total,
          calls_total: calls.iter().sum(),
          calls,
          args,
          empty_args,
          thinking,
        }
      })
      .collect()
  }

  fn role_tokens(&self, role: Role) -> u64 {
    // Every role name is a single token in every embedded encoding; counted for honesty in model
    // mode (estimate mode must not load the ranks).
    match self.method {
      TokenCountMethod::Model => self.encoding.count(role.as_str()),
      TokenCountMethod::Approx | TokenCountMethod::Estimate => 1,
    }
  }

  /// The size of a measure in tokens, for a single message counted on its own.
  pub fn tokens_of(&self, size: u64) -> u64 {
    match self.method {
      TokenCountMethod::Approx => size.div_ceil(CHARS_PER_TOKEN),
      TokenCountMethod::Model | TokenCountMethod::Estimate => size,
    }
  }

  /// The size of a whole request (sum of measures plus fixed parts) in tokens.
  pub fn total_tokens(&self, size: u64) -> u64 {
    match self.method {
      TokenCountMethod::Approx => size.div_ceil(CHARS_PER_TOKEN),
      TokenCountMethod::Model | TokenCountMethod::Estimate => size + REPLY_PRIMING,
    }
  }

  /// The measure of a cleared tool result: the placeholder text and the call id.
  pub fn cleared_size(&self, m: &Message, placeholder: &str) -> u64 {
    match self.method {
      TokenCountMethod::Approx => {
        utf16_len(placeholder) + m.tool_call_id.as_deref().map_or(0, utf16_len)
      }
      TokenCountMethod::Model | TokenCountMethod::Estimate => {
        let mut total = MESSAGE_OVERHEAD + self.role_tokens(m.role) + self.count(placeholder);
        if m.name.as_deref().is_some_and(|n| !n.is_empty()) {
          total += NAME_OVERHEAD + self.count(m.name.as_deref().unwrap_or(""));
        }
        total
      }
    }
  }

  /// The measure of a tool result whose text became `head` + `marker` (non-text parts dropped).
  pub fn truncated_size(&self, m: &Message, head: &str, head_len: u64, marker: &str) -> u64 {
    match self.method {
      TokenCountMethod::Approx => {
        head_len + utf16_len(marker) + m.tool_call_id.as_deref().map_or(0, utf16_len)
      }
      TokenCountMethod::Model | TokenCountMethod::Estimate => {
        let mut total =
          MESSAGE_OVERHEAD + self.role_tokens(m.role) + self.count(head) + self.count(marker);
        if m.name.as_deref().is_some_and(|n| !n.is_empty()) {
          total += NAME_OVERHEAD + self.count(m.name.as_deref().unwrap_or(""));
        }
        total
      }
    }
  }

  /// The measure of a system prompt and tool definitions sent beside the messages.
  pub fn fixed_size(&self, system_prompt: Option<&str>, tools: &[String]) -> u64 {
    match self.method {
      TokenCountMethod::Approx => {
        system_prompt.map_or(0, utf16_len) + tools.iter().map(|t| utf16_len(t)).sum::<u64>()
      }
      TokenCountMethod::Model | TokenCountMethod::Estimate => {
        let mut texts: Vec<&str> = tools.iter().map(String::as_str).collect();
        if let Some(s) = system_prompt {
          texts.push(s);
        }
        let counts = self.count_strings(&texts);
        let tools_total: u64 = counts[..tools.len()]
          .iter()
          .map(|n| n + TOOL_DEFINITION_OVERHEAD)
          .sum();
        let system = system_prompt.map_or(0, |_| {
          MESSAGE_OVERHEAD + self.role_tokens(Role::System) + counts[tools.len()]
        });
        tools_total + system
      }
    }
  }
}

/// The size of one message, in the counting method's unit, with what clearing its calls' arguments frees.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Measure {
  /// Characters (approx) or tokens (model).
  pub total: u64,
  /// Per tool call: the size of its arguments.
  pub args: Vec<u64>,
  /// The size of `{}`, what cleared arguments become.
  pub empty_args: u64,
  /// The size of the reasoning, what `clear_thinking` frees.
  pub thinking: u64,
  /// Per tool call: its whole size (approx: its JSON plus a separator).
  pub calls: Vec<u64>,
  /// The size of the tool-calls part of the message.
  pub calls_total: u64,
}

fn approx_measure(m: &Message) -> Measure {
  let thinking = m.thinking_len();
  let mut total =
    m.text_len() + m.other_len() + thinking + u64::from(m.images) * IMAGE_TOKENS * CHARS_PER_TOKEN;
  if m.tokens.is_some() {
    total = 0;
  }
  let args: Vec<u64> = m.tool_calls.iter().map(ToolCall::args_len).collect();
  let calls: Vec<u64> = m.tool_calls.iter().map(|c| call_json_len(c) + 1).collect();
  let mut calls_total = 0;
  if m.role == Role::Assistant && !m.tool_calls.is_empty() {
    calls_total = m
      .tool_calls_length
      .unwrap_or_else(|| default_tool_calls_len(&m.tool_calls));
    total += calls_total;
  }
  if m.role == Role::Tool {
    total += m.tool_call_id.as_deref().map_or(0, utf16_len);
  }
  if let Some(t) = m.tokens {
    // A caller-supplied count, expressed in characters so the whole-request sum stays in one unit.
    total = t * CHARS_PER_TOKEN;
  }
  Measure {
    total,
    args,
    empty_args: EMPTY_ARGS.len() as u64,
    thinking: if m.tokens.is_some() { 0 } else { thinking },
    calls,
    calls_total,
  }
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

#[cfg(test)]
mod tests {
  use super::*;

  fn counter(method: TokenCountMethod) -> Counter<'static> {
    Counter {
      method,
      encoding: Encoding::O200kBase,
      cache: None,
    }
  }

  #[test]
  fn approx_is_langchains_formula() {
    let ai = Message::assistant("hi", &[("c1", "search", r#"{"q":"x"}"#)]);
    let m = approx_measure(&ai);
    // "hi" + [{"id":"c1","name":"search","args":{"q":"x"}}]
    assert_eq!(
      m.total,
      2 + r#"[{"id":"c1","name":"search","args":{"q":"x"}}]"#.len() as u64
    );
    let tool = Message::tool("c1", "search", "result!");
    assert_eq!(approx_measure(&tool).total, 7 + 2);
    let c = counter(TokenCountMethod::Approx);
    assert_eq!(c.total_tokens(9), 3);
  }

  #[test]
  fn model_measure_includes_overheads() {
    let c = counter(TokenCountMethod::Model);
    let m = c.measure(&[Message::user("hello world")]);
    // 3 framing + 1 role + 2 text
    assert_eq!(m[0].total, 6);
    let ai = Message::assistant("", &[("c1", "search", r#"{"q":"x"}"#)]);
    let m = c.measure(&[ai]);
    let args = Encoding::O200kBase.count(r#"{"q":"x"}"#);
    assert_eq!(
      m[0].total,
      3 + 1 + 1 + Encoding::O200kBase.count("search") + args
    );
    assert_eq!(m[0].args, vec![args]);
  }

  #[test]
  fn cache_hits_and_bound() {
    let cache = Mutex::new(TokenCache::new(4));
    let c = Counter {
      method: TokenCountMethod::Model,
      encoding: Encoding::O200kBase,
      cache: Some(&cache),
    };
    let long: Vec<String> = (0..10)
      .map(|i| format!("{i} {}", "lorem ipsum dolor sit amet ".repeat(5)))
      .collect();
    let refs: Vec<&str> = long.iter().map(String::as_str).collect();
    let first = c.count_strings(&refs);
    assert!(cache.lock().unwrap().len() <= 4, "bounded");
    let again = c.count_strings(&refs);
    assert_eq!(first, again);
    let direct: Vec<u64> = refs.iter().map(|s| Encoding::O200kBase.count(s)).collect();
    assert_eq!(first, direct);
  }

  #[test]
  fn cache_rotation_keeps_recent_entries() {
    let mut cache = TokenCache::new(4);
    for k in 0..3u128 {
      cache.insert(k, 1);
    }
    // 0 and 1 rotated into the old generation, 2 young; a lookup of 0 promotes it.
    assert_eq!(cache.get(0), Some(1));
    cache.insert(10, 1);
    cache.insert(11, 1);
    assert!(cache.len() <= 4);
    assert_eq!(cache.get(11), Some(1));
  }
}
