//! What a request costs: every message measured once per call, in the counting method's unit,
//! with what each edit could free (its reasoning, each tool call, each call's arguments), so that
//! editing updates totals incrementally instead of recounting.
//!
//! Approx mode measures UTF-16 code units and divides the whole request by 4 at the end, exactly
//! LangChain's `countTokensApproximately`. Model and estimate modes add the text counts of a
//! [`Counter`] (exact BPE or the estimate) to OpenAI's chat framing: tokens per message, per name,
//! per tool call and tool definition, images at a fixed price, and the reply priming. Exact counts
//! of long strings go through the editor's [`TokenCache`].

mod adjust;
mod cache;
mod rendered;
mod template;
mod tojson;

use std::sync::Mutex;

use crate::context::Context;

use crate::message::{utf16_len, Message, Role, ToolCall, EMPTY_ARGS};
use crate::options::TokenCountMethod;
use crate::tokenizer::{self, approx, Counter, Encoding, Framing, HfTokenizer, CHARS_PER_TOKEN};

use adjust::Adjust;
pub use cache::TokenCache;
use cache::{cached_counts, count_short, SHORT_BYTES};
use template::{Place, Request};

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

/// Measures messages for one call: a method, the counter it selects with the chat framing counted
/// around messages, and optionally the editor's cache.
#[derive(Clone)]
pub(crate) struct Meter<'a> {
  pub method: TokenCountMethod,
  /// What counts the text: the encoding's name, or the Hugging Face tokenizer's.
  pub tokenizer: &'static str,
  counter: &'static dyn Counter,
  framing: Framing,
  cache: Option<&'a Mutex<TokenCache>>,
  /// How request totals are corrected (the call's usage anchor and correction; see `adjust.rs`).
  adjust: Adjust,
  /// What the request holds beside the messages (for chat templates).
  request: Request,
}

impl<'a> Meter<'a> {
  /// A meter counting with `method` and `encoding` (exact counts in model and estimate modes, which
  /// approx mode never needs), with OpenAI's framing.
  pub fn new(
    method: TokenCountMethod,
    encoding: Encoding,
    cache: Option<&'a Mutex<TokenCache>>,
  ) -> Self {
    // `estimate` is an alias of `model`: both count exactly.
    let counter = tokenizer::exact(encoding);
    let mut framing = Framing::OPENAI;
    if method != TokenCountMethod::Approx {
      // Each role name is one token in o200k and cl100k; counted for the older encodings.
      let role = |r: Role| MESSAGE_OVERHEAD + counter.count(r.as_str());
      framing.system = role(Role::System);
      framing.user = role(Role::User);
      framing.assistant = role(Role::Assistant);
      framing.tool = role(Role::Tool);
    }
    Self {
      method,
      tokenizer: encoding.as_str(),
      counter,
      framing,
      cache,
      adjust: Adjust::default(),
      request: Request::default(),
    }
  }

  /// A meter counting exactly with a Hugging Face tokenizer, reported as `name`, and `framing`
  /// (its family's chat template), in model and estimate modes alike.
  pub fn with_tokenizer(
    method: TokenCountMethod,
    hf: &'static HfTokenizer,
    (name, framing): (&'static str, Framing),
    cache: Option<&'a Mutex<TokenCache>>,
  ) -> Self {
    Self {
      method,
      tokenizer: name,
      counter: hf,
      framing,
      cache,
      adjust: Adjust::default(),
      request: Request::default(),
    }
  }
}

impl Meter<'_> {
  /// This meter for a request with (or without) a system prompt and tool definitions beside the
  /// messages: chat templates render the messages differently then.
  #[must_use]
  pub fn for_request(self, system_prompt: bool, tools: bool) -> Self {
    Self {
      request: Request {
        system_prompt,
        tools,
      },
      ..self
    }
  }

  /// What of the request beside the messages changes how this meter frames them (a chat
  /// template's system prompt and tools), as a key: messages measured under another key are stale.
  pub fn request_key(&self) -> u8 {
    match self.framing.template {
      Some(_) => u8::from(self.request.system_prompt) | (u8::from(self.request.tools) << 1),
      None => 0,
    }
  }

  /// Whether `m`'s framing depends on being the request's last message (Qwen 3 writes an empty
  /// `<think>` block in a last assistant message): measured again once messages follow it.
  pub fn frames_last(&self, m: &Message) -> bool {
    self.framed_last() == Some(m.role)
  }

  /// The role whose messages [`frames_last`](Self::frames_last) frames apart as the last, if any.
  pub fn framed_last(&self) -> Option<Role> {
    (self.framing.template == Some(tokenizer::Family::Qwen3)).then_some(Role::Assistant)
  }

  /// Tokens of one string: exact in model mode, estimated in estimate mode.
  fn count(&self, text: &str) -> u64 {
    match self.counter.cache_seed() {
      Some(seed) if text.len() <= SHORT_BYTES => count_short(seed, self.counter, text),
      _ => self.counter.count(text),
    }
  }

  /// Token counts of many strings: exact ones through the cache for long strings; estimates
  /// directly (an estimate costs less than the cache's hash).
  fn count_strings(&self, texts: &[&str]) -> Vec<u64> {
    match self.counter.cache_seed() {
      Some(seed) => cached_counts(self.cache, seed, self.counter, texts),
      None => self.counter.count_many(texts),
    }
  }

  /// Measures every message: approx mode in UTF-16 code units, model and estimate modes in tokens
  /// (estimate mode: the estimate of each string plus the same framing constants as model mode).
  pub fn measure(&self, messages: &[Message]) -> Vec<Measure> {
    self.measure_from(messages, 0)
  }

  /// Measures `messages[from..]`, the messages before them as their context (a chat template
  /// frames a message by what came before it).
  pub fn measure_from(&self, messages: &[Message], from: usize) -> Vec<Measure> {
    let from = from.min(messages.len());
    match (self.method, self.framing.template) {
      (TokenCountMethod::Approx, _) => messages[from..].iter().map(approx_measure).collect(),
      (_, Some(family)) => self.template_measures(family, messages, from),
      (TokenCountMethod::Model | TokenCountMethod::Estimate, None) => {
        self.model_measures(&messages[from..])
      }
    }
  }

  fn model_measures(&self, messages: &[Message]) -> Vec<Measure> {
    // Gather every string once so the cache is locked twice per call, not per string.
    let texts = texts_of(messages);
    let counts = self.count_strings(&texts);
    let empty_args = self.count(EMPTY_ARGS);
    let mut it = counts.into_iter();
    messages
      .iter()
      .map(|m| self.model_measure(m, &mut it, empty_args))
      .collect()
  }

  /// The measure of `m` from the counts of its strings, in the order of [`texts_of`].
  fn model_measure(
    &self,
    m: &Message,
    it: &mut impl Iterator<Item = u64>,
    empty_args: u64,
  ) -> Measure {
    let mut next = || it.next().unwrap_or(0);
    if let Some(t) = m.tokens {
      let args: Vec<u64> = m.tool_calls.iter().map(|_| next()).collect();
      let calls: Vec<u64> = args.iter().map(|a| self.framing.tool_call + a).collect();
      return Measure {
        total: t,
        calls_total: calls.iter().sum(),
        calls,
        args,
        empty_args,
        thinking: 0,
        ..Measure::default()
      };
    }
    let text = next();
    let other = next();
    let thinking = next();
    let name = next();
    let mut total = self.message_framing(m.role) + text + other + thinking + image_tokens(m);
    if let Some(per_name) = self.name_framing(m) {
      total += per_name + name;
    }
    let mut args = Vec::with_capacity(m.tool_calls.len());
    let mut calls = Vec::with_capacity(m.tool_calls.len());
    for _ in &m.tool_calls {
      let call_name = next();
      let a = next();
      let call = self.framing.tool_call + call_name + a;
      total += call;
      args.push(a);
      calls.push(call);
    }
    Measure {
      total,
      calls_total: calls.iter().sum(),
      calls,
      args,
      empty_args,
      thinking,
      ..Measure::default()
    }
  }

  /// The chat template's tokens around a message of `role` (OpenAI: 3 plus the role's token).
  fn message_framing(&self, role: Role) -> u64 {
    match role {
      Role::System => self.framing.system,
      Role::User => self.framing.user,
      Role::Assistant => self.framing.assistant,
      Role::Tool => self.framing.tool,
    }
  }

  /// The framing of `m`'s name when it has one and the template renders names.
  fn name_framing(&self, m: &Message) -> Option<u64> {
    self
      .framing
      .name
      .filter(|_| m.name.as_deref().is_some_and(|n| !n.is_empty()))
  }

  /// The size of a measure in tokens, for a single message counted on its own.
  pub fn tokens_of(&self, size: u64) -> u64 {
    match self.method {
      TokenCountMethod::Approx => approx::tokens(size),
      TokenCountMethod::Model | TokenCountMethod::Estimate => size,
    }
  }

  /// The size of a whole request (sum of measures plus fixed parts) in tokens.
  pub fn total_tokens(&self, size: u64) -> u64 {
    self.adjust.apply(self.base_total(size))
  }

  /// This meter with the context's usage anchor and correction applied to request totals;
  /// `fixed` and `measures` are the request's, measured by this meter.
  #[must_use]
  pub fn adjusted(&self, context: &Context, fixed: u64, measures: &[Measure]) -> Self {
    self.adjusted_by(context, fixed, measures.len(), |i| measures[i].total)
  }

  /// [`adjusted`](Self::adjusted) from the messages' sizes alone (`totals[i]`: message `i`'s).
  #[must_use]
  pub fn adjusted_totals(&self, context: &Context, fixed: u64, totals: &[u64]) -> Self {
    self.adjusted_by(context, fixed, totals.len(), |i| totals[i])
  }

  fn adjusted_by(
    &self,
    context: &Context,
    fixed: u64,
    len: usize,
    total: impl Fn(usize) -> u64,
  ) -> Self {
    Self {
      adjust: Adjust::for_call(
        context,
        len,
        |i| fixed + (0..=i).map(&total).sum::<u64>(),
        |size| self.base_total(size),
      ),
      ..self.clone()
    }
  }

  /// A request's size in tokens as counted, uncorrected.
  fn base_total(&self, size: u64) -> u64 {
    match self.method {
      TokenCountMethod::Approx => approx::tokens(size),
      TokenCountMethod::Model | TokenCountMethod::Estimate => {
        size + self.framing.start + self.framing.reply
      }
    }
  }

  /// The measure of a cleared tool result: the placeholder text and the call id.
  pub fn cleared_size(&self, m: &Message, measure: &Measure, placeholder: &str) -> u64 {
    if let (Some(family), false) = (
      self.framing.template,
      self.method == TokenCountMethod::Approx,
    ) {
      return self.rendered_size(family, m, measure, placeholder);
    }
    match self.method {
      TokenCountMethod::Approx => {
        utf16_len(placeholder) + m.tool_call_id.as_deref().map_or(0, utf16_len)
      }
      TokenCountMethod::Model | TokenCountMethod::Estimate => {
        let mut total = self.message_framing(m.role) + self.count(placeholder);
        if let Some(per_name) = self.name_framing(m) {
          total += per_name + self.count(m.name.as_deref().unwrap_or(""));
        }
        total
      }
    }
  }

  /// The measure of a tool result whose text became `head` + `marker` (non-text parts dropped).
  pub fn truncated_size(
    &self,
    m: &Message,
    measure: &Measure,
    (head, head_len): (&str, u64),
    marker: &str,
  ) -> u64 {
    if let (Some(family), false) = (
      self.framing.template,
      self.method == TokenCountMethod::Approx,
    ) {
      return self.rendered_size(family, m, measure, &format!("{head}{marker}"));
    }
    match self.method {
      TokenCountMethod::Approx => {
        head_len + utf16_len(marker) + m.tool_call_id.as_deref().map_or(0, utf16_len)
      }
      TokenCountMethod::Model | TokenCountMethod::Estimate => {
        let mut total = self.message_framing(m.role) + self.count(head) + self.count(marker);
        if let Some(per_name) = self.name_framing(m) {
          total += per_name + self.count(m.name.as_deref().unwrap_or(""));
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
      TokenCountMethod::Model | TokenCountMethod::Estimate if self.framing.template.is_some() => {
        self.template_fixed_size(system_prompt, tools)
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
          self.message_framing(Role::System) + counts[tools.len()]
        });
        tools_total + system
      }
    }
  }
}

/// Every string of `messages` that model and estimate modes count, in message order: text,
/// other blocks, reasoning, name, then each call's name and arguments. A message with a
/// caller-supplied count contributes only its calls' arguments (the parts an edit can remove).
fn texts_of(messages: &[Message]) -> Vec<&str> {
  let mut texts: Vec<&str> = Vec::new();
  for m in messages {
    if m.tokens.is_some() {
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
  texts
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
  /// What the chat template writes once per request before the first message, counted with it
  /// (stays counted when the message is removed: the template writes it for the next one).
  pub lead: u64,
  /// Where the message sits, for its chat template.
  pub place: Place,
  /// The size of an assistant message once every call is removed, when its chat template
  /// renders it differently then (not just without the calls).
  pub plain: Option<u64>,
  /// The size of the request's last message once messages follow it, when its chat template
  /// frames a last message differently (a session's next call takes it).
  pub unlast: Option<u64>,
}

/// Tokens of a message's images: as the caller counted them by the provider's formula, else
/// [`IMAGE_TOKENS`] each.
fn image_tokens(m: &Message) -> u64 {
  m.image_tokens
    .unwrap_or_else(|| u64::from(m.images) * IMAGE_TOKENS)
}

fn approx_measure(m: &Message) -> Measure {
  let thinking = m.thinking_len();
  let mut total = m.text_len() + m.other_len() + thinking + image_tokens(m) * CHARS_PER_TOKEN;
  if m.tokens.is_some() {
    total = 0;
  }
  let args: Vec<u64> = m.tool_calls.iter().map(ToolCall::args_len).collect();
  let calls: Vec<u64> = m
    .tool_calls
    .iter()
    .map(|c| approx::call_json_len(c) + 1)
    .collect();
  let mut calls_total = 0;
  if m.role == Role::Assistant && !m.tool_calls.is_empty() {
    calls_total = m
      .tool_calls_length
      .unwrap_or_else(|| approx::default_tool_calls_len(&m.tool_calls));
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
    ..Measure::default()
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn counter(method: TokenCountMethod) -> Meter<'static> {
    Meter::new(method, Encoding::O200kBase, None)
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
    let c = Meter::new(TokenCountMethod::Model, Encoding::O200kBase, Some(&cache));
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
}
