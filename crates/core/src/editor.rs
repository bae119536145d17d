//! The [`ContextEditor`]: options, a token cache and the sessions, and the calls `plan`,
//! `plan_session` and `count_tokens`. A call validates its messages, resolves the encoding and
//! the input limit from the call's context and the options, measures the messages (once per
//! session for a growing history), and hands them to the `pipeline`. The editor holds no state a
//! plan depends on: the cache and the sessions only save work, so the same input always gets the
//! same plan.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, MutexGuard, PoisonError};

use serde_json::Value;

pub use crate::context::{Context, MAX_CORRECTION};
use crate::draft::CallRef;
use crate::error::{Error, Result};
use crate::grown::{simple_clearing, Grown, Job};
use crate::measure::{Measure, Meter, TokenCache};
use crate::message::Message;
use crate::options::{Edit, Options, TokenCountMethod};
use crate::pipeline::Planner;
use crate::plan::{EditPlan, Warning};
use crate::registry::Held;
use crate::session::{Session, SessionStore};
use crate::tokenizer;

/// Token counts of a request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TokenCount {
  /// The whole request: messages + system prompt + tools (+ reply priming in model mode).
  pub total: u64,
  /// Each message counted on its own.
  pub messages: Vec<u64>,
  /// The system prompt and tool definitions.
  pub fixed: u64,
  /// `approx`, `model` or `estimate`.
  pub method: &'static str,
  /// The tokenizer resolved for the call: a tiktoken encoding (`o200k_base`, …), a model family
  /// (`qwen3`, …) or the path of a `tokenizer.json` (`tokenizer`, else `encoding`, else the
  /// model's, else `o200k_base`, with a warning when a model was named). Model mode counts with
  /// it; always set, approx mode included.
  pub encoding: Option<&'static str>,
  /// Recoverable oddities (e.g. an unknown model name).
  pub warnings: Vec<Warning>,
}

/// Plans context edits for an agent's conversation; cheap to share across threads.
///
/// # Examples
/// ```
/// use context_editor_core::{Context, ContextEditor, Message, Op};
/// let editor = ContextEditor::from_json(&serde_json::json!({
///   "trigger": { "messages": 4 }, "keep": { "messages": 1 }
/// })).unwrap();
/// let history = vec![
///   Message::user("read both files"),
///   Message::assistant("", &[("a", "read", r#"{"path":"a.rs"}"#), ("b", "read", r#"{"path":"b.rs"}"#)]),
///   Message::tool("a", "read", "fn a() {}"),
///   Message::tool("b", "read", "fn b() {}"),
/// ];
/// let plan = editor.plan(&history, &Context::default()).unwrap();
/// assert!(plan.report.triggered);
/// assert!(matches!(plan.ops[0], Op::ClearToolResult { index: 2, .. }));
/// ```
#[derive(Debug)]
pub struct ContextEditor {
  options: Options,
  /// The token cache and the sessions (bounded per editor and, with every editor's, per process).
  held: Arc<Held>,
  /// Session plans made from running figures (see `Grown`).
  grown_plans: AtomicU64,
}

impl ContextEditor {
  /// An editor with `options`.
  #[must_use]
  pub fn new(options: Options) -> Self {
    let held = Held::new(options.token_cache_size);
    Self {
      options,
      held,
      grown_plans: AtomicU64::new(0),
    }
  }

  /// An editor configured from JSON options (see [`Options::from_json`]).
  ///
  /// # Errors
  /// As [`Options::from_json`].
  pub fn from_json(options: &Value) -> Result<Self> {
    Ok(Self::new(Options::from_json(options)?))
  }

  /// The options.
  #[must_use]
  pub fn options(&self) -> &Options {
    &self.options
  }

  /// Entries in the token cache.
  #[must_use]
  pub fn cache_len(&self) -> usize {
    self.lock_cache().len()
  }

  /// Empties the token cache and forgets every session.
  pub fn clear_cache(&self) {
    self.lock_cache().clear();
    self.sessions().clear();
    self.held.used();
  }

  fn lock_cache(&self) -> MutexGuard<'_, TokenCache> {
    self
      .held
      .cache
      .lock()
      .unwrap_or_else(PoisonError::into_inner)
  }

  /// The meter of a call: what counts is resolved by [`tokenizer::choose`] (never silently).
  fn meter(&self, context: &Context, warnings: &mut Vec<Warning>) -> Meter<'_> {
    let method = self.options.token_count_method;
    let model = context.model.as_deref().or(self.options.model.as_deref());
    let choice = tokenizer::choose(self.options.tokenizer.get(), self.options.encoding, model);
    if let Some((code, message)) = choice
      .warning
      .filter(|_| method != TokenCountMethod::Approx)
    {
      warnings.push(Warning {
        code,
        message,
        index: None,
      });
    }
    let cache = (self.options.token_cache_size > 0).then_some(&self.held.cache);
    let meter = match choice.hf {
      Some(hf) => Meter::with_tokenizer(method, hf, (choice.name, choice.framing), cache),
      None => Meter::new(method, choice.encoding, cache),
    };
    meter.for_request(
      context.system_prompt.is_some() || context.system_prompt_length.is_some(),
      !context.tools.is_empty() || !context.tool_lengths.is_empty(),
    )
  }

  fn max_input_tokens(&self, context: &Context) -> Option<u64> {
    context.max_input_tokens.or_else(|| {
      let model = context.model.as_deref().or(self.options.model.as_deref())?;
      tiktoken_rs::model::get_context_size(model).map(|n| n as u64)
    })
  }

  /// Decides the edits for `messages`: orphan removal, then each edit of the pipeline in order.
  ///
  /// Linear in the size of the conversation; each message is measured once.
  ///
  /// # Errors
  /// [`ErrorKind::InvalidMessage`](crate::ErrorKind::InvalidMessage) naming the message index and
  /// field when a message is malformed.
  pub fn plan(&self, messages: &[Message], context: &Context) -> Result<EditPlan> {
    validate(messages, 0)?;
    let mut warnings = Vec::new();
    let meter = self.meter(context, &mut warnings);
    let measures = meter.measure(messages);
    self.held.used();
    self.plan_with(messages, &measures, None, &meter, warnings, context)
  }

  /// [`plan`](Self::plan) for a conversation seen before: the first `reuse` messages are those
  /// the session `id` held after its previous call (already converted and measured), `tail`
  /// follows them. Afterwards the session holds the whole conversation.
  ///
  /// Returns `Ok(None)` — a miss, nothing planned — when the session is unknown (never seen,
  /// evicted, or dropped after an error) or holds fewer than `reuse` messages; the caller then
  /// sends the whole conversation with `reuse = 0`, which always succeeds. The caller must not
  /// run two calls on the same session at once (the second one misses).
  ///
  /// # Errors
  /// As [`plan`](Self::plan), with message indexes counted from the start of the conversation.
  /// The session is dropped.
  pub fn plan_session(
    &self,
    id: u64,
    reuse: usize,
    tail: Vec<Message>,
    context: &Context,
  ) -> Result<Option<EditPlan>> {
    let Some(mut session) = self.continued(id, reuse, tail)? else {
      return Ok(None);
    };
    let mut warnings = Vec::new();
    let meter = self.meter(context, &mut warnings);
    if !session.measure(&meter) {
      // Counted before with another model or encoding, and its text is gone: a miss.
      return Ok(None);
    }
    session.pair();
    let plan = match self.plan_grown(&mut session, &meter, &warnings, context) {
      Ok(Some(plan)) => Ok(plan),
      Ok(None) => self.plan_with(
        &session.messages,
        &session.measures,
        Some(&session.pairing.pairs),
        &meter,
        warnings,
        context,
      ),
      Err(e) => Err(e),
    };
    self.keep_text_needed(&mut session, meter.method);
    self.keep(id, session);
    plan.map(Some)
  }

  /// The plan of a session from its running figures (see `Grown`), when the pipeline is one they
  /// cover and the session allows it; `None` when it must be planned whole.
  fn plan_grown(
    &self,
    session: &mut Session,
    meter: &Meter<'_>,
    warnings: &[Warning],
    context: &Context,
  ) -> Result<Option<EditPlan>> {
    let Some(edit) = simple_clearing(&self.options.edits, &self.options.pin) else {
      return Ok(None);
    };
    let grown = session.grown.get_or_insert_with(Grown::default);
    if !grown.read(&session.messages, &session.pairing.pairs) {
      return Ok(None);
    }
    let fixed = fixed_size(meter, context)?;
    let meter = meter.adjusted(context, fixed, &session.measures);
    let job = Job {
      edit,
      msgs: &session.messages,
      measures: &session.measures,
      pairs: &session.pairing.pairs,
      meter: &meter,
    };
    let plan = grown.plan(
      &self.options.edits,
      &job,
      fixed,
      self.max_input_tokens(context),
      warnings.to_vec(),
    );
    self.grown_plans.fetch_add(1, Ordering::Relaxed);
    Ok(Some(plan))
  }

  /// How many session plans were made from the session's running figures instead of the whole
  /// pipeline (for tests: both give the same plan).
  #[doc(hidden)]
  #[must_use]
  pub fn grown_plans(&self) -> u64 {
    self.grown_plans.load(Ordering::Relaxed)
  }

  /// Whether an edit reads message text after counting: summaries, truncation and `prefer`
  /// (tool-call arguments). Otherwise sessions keep lengths, not text (see `Session::drop_text`).
  fn reads_text(&self) -> bool {
    self.options.edits.iter().any(|e| match e {
      Edit::ClearToolUses(c) => c.prefer.any(),
      Edit::ClearThinking(_)
      | Edit::LastN(_)
      | Edit::StripToolCalls(_)
      | Edit::StripAndTruncate(_)
      | Edit::TrimTurns(_)
      | Edit::ClearMedia(_) => false,
      Edit::TruncateToolResults(_) | Edit::Summarize(_) => true,
    })
  }

  /// Adds messages to the session `id` without planning (a long history can be sent in pieces,
  /// then planned with `plan_session(id, len, [], …)`). Returns `false` on a miss, as
  /// [`plan_session`](Self::plan_session).
  ///
  /// # Errors
  /// As [`plan_session`](Self::plan_session).
  pub fn append_session(&self, id: u64, reuse: usize, tail: Vec<Message>) -> Result<bool> {
    let Some(session) = self.continued(id, reuse, tail)? else {
      return Ok(false);
    };
    self.keep(id, session);
    Ok(true)
  }

  /// Drops the text of `session`'s measured messages when nothing this editor does reads it again
  /// after counting (`method` other than approx, whose sessions hold lengths anyway, and no edit
  /// that reads text: see `Session::drop_text`).
  fn keep_text_needed(&self, session: &mut Session, method: TokenCountMethod) {
    if method != TokenCountMethod::Approx && !self.reads_text() {
      session.drop_text();
    }
  }

  /// Puts session `id` (back) into the store, then keeps what the process's editors hold within
  /// their bound (see `session::Registry`), never evicting this editor's own for it.
  fn keep(&self, id: u64, session: Session) {
    self.sessions().put(id, session);
    self.held.used();
  }

  /// Session `id` cut to `reuse` messages (taken out of the store) with `tail` appended; `None` on
  /// a miss. On an invalid tail the session stays out: it is dropped.
  fn continued(&self, id: u64, reuse: usize, tail: Vec<Message>) -> Result<Option<Session>> {
    let Some(mut session) = self.sessions().take(id, reuse) else {
      return Ok(None);
    };
    validate(&tail, reuse)?;
    session.extend(tail);
    Ok(Some(session))
  }

  /// Forgets the session `id` (a no-op when unknown).
  pub fn drop_session(&self, id: u64) {
    self.sessions().remove(id);
  }

  /// Number of sessions held.
  #[must_use]
  pub fn session_count(&self) -> usize {
    self.sessions().len()
  }

  fn sessions(&self) -> MutexGuard<'_, SessionStore> {
    self
      .held
      .sessions
      .lock()
      .unwrap_or_else(PoisonError::into_inner)
  }

  fn plan_with(
    &self,
    messages: &[Message],
    measures: &[Measure],
    pairs: Option<&[Option<CallRef>]>,
    meter: &Meter<'_>,
    warnings: Vec<Warning>,
    context: &Context,
  ) -> Result<EditPlan> {
    let fixed = fixed_size(meter, context)?;
    let meter = &meter.adjusted(context, fixed, measures);
    let planner = Planner {
      edits: &self.options.edits,
      meter,
      fixed,
      max_input_tokens: self.max_input_tokens(context),
      breakpoints_in_use: context.cache_breakpoints_in_use,
      pin: &self.options.pin,
      pairs,
    };
    planner.plan(messages, measures, warnings)
  }

  /// Counts the tokens of a request with the editor's method and encoding.
  ///
  /// # Errors
  /// As [`ContextEditor::plan`].
  pub fn count_tokens(&self, messages: &[Message], context: &Context) -> Result<TokenCount> {
    validate(messages, 0)?;
    let mut warnings = Vec::new();
    let meter = self.meter(context, &mut warnings);
    let fixed = fixed_size(&meter, context)?;
    let measures = meter.measure(messages);
    self.held.used();
    let sizes: Vec<u64> = measures.iter().map(|m| m.total).collect();
    Ok(token_count(&meter, context, fixed, &sizes, warnings))
  }

  /// [`count_tokens`](Self::count_tokens) of a conversation a session holds: its first `reuse`
  /// messages are all those session `id` holds, measured already, and `tail` follows them. Only
  /// `tail` is measured, and the session is left as it was (a count never moves a conversation
  /// on: the next [`plan_session`](Self::plan_session) continues from what it held).
  ///
  /// Returns `Ok(None)` — a miss, nothing counted — when the session is unknown, holds another
  /// number of messages than `reuse`, or was measured another way (another method, encoding or
  /// chat template's request); the caller then counts the whole conversation.
  ///
  /// # Errors
  /// As [`count_tokens`](Self::count_tokens), with message indexes counted from the start of
  /// the conversation. The session stays as it was.
  pub fn count_session(
    &self,
    id: u64,
    reuse: usize,
    tail: Vec<Message>,
    context: &Context,
  ) -> Result<Option<TokenCount>> {
    self.count_through(id, reuse, tail, context, |editor, tail, meter| {
      if reuse == 0 {
        return None;
      }
      let mut session = editor.sessions().take_measured(id, reuse, meter)?;
      let sizes = session.sizes_with(tail, meter);
      Some((session, sizes))
    })
  }

  /// [`count_tokens`](Self::count_tokens) through session `id`, which then holds the conversation
  /// counted: its first `reuse` messages are those the session holds (`reuse == 0` starts it
  /// afresh), cut back to them when it holds more, and `tail` follows them. Only what the session
  /// has not measured is measured. Unlike [`count_session`](Self::count_session), the count moves
  /// the conversation on: the next count or [`plan_session`](Self::plan_session) continues from
  /// it. For a host that counts a growing conversation every turn without editing it.
  ///
  /// Returns `Ok(None)` — a miss, nothing counted — when `reuse > 0` and the session is unknown,
  /// holds fewer than `reuse` messages, or was measured another way and no longer holds the text
  /// to measure again (then it is dropped); count again with `reuse` 0, which always succeeds.
  ///
  /// # Errors
  /// As [`count_tokens`](Self::count_tokens), with message indexes counted from the start of
  /// the conversation. The session stays as it was.
  pub fn count_held(
    &self,
    id: u64,
    reuse: usize,
    tail: Vec<Message>,
    context: &Context,
  ) -> Result<Option<TokenCount>> {
    self.count_through(id, reuse, tail, context, |editor, tail, meter| {
      let mut session = editor.sessions().take(id, reuse)?;
      session.extend(tail);
      if !session.measure(meter) {
        return None;
      }
      let sizes = session.measures.iter().map(|m| m.total).collect();
      editor.keep_text_needed(&mut session, meter.method);
      Some((session, sizes))
    })
  }

  /// A count through session `id` (`count_session`, `count_held`): `tail` checked and the context
  /// measured first (their errors leave the session as it was), then `sizes` gives the session to
  /// keep and the size of each message of the conversation, or `None` on a miss.
  fn count_through(
    &self,
    id: u64,
    reuse: usize,
    tail: Vec<Message>,
    context: &Context,
    sizes: impl FnOnce(&Self, Vec<Message>, &Meter<'_>) -> Option<(Session, Vec<u64>)>,
  ) -> Result<Option<TokenCount>> {
    validate(&tail, reuse)?;
    let mut warnings = Vec::new();
    let meter = self.meter(context, &mut warnings);
    let fixed = fixed_size(&meter, context)?;
    let Some((session, sizes)) = sizes(self, tail, &meter) else {
      return Ok(None);
    };
    self.keep(id, session);
    Ok(Some(token_count(&meter, context, fixed, &sizes, warnings)))
  }
}

/// The count of a request whose messages have these sizes, and whose system prompt and tools
/// `fixed`, all measured by `meter`.
fn token_count(
  meter: &Meter<'_>,
  context: &Context,
  fixed: u64,
  sizes: &[u64],
  warnings: Vec<Warning>,
) -> TokenCount {
  let meter = meter.adjusted_totals(context, fixed, sizes);
  let sum: u64 = sizes.iter().sum::<u64>() + fixed;
  TokenCount {
    total: meter.total_tokens(sum),
    messages: sizes.iter().map(|&n| meter.tokens_of(n)).collect(),
    fixed: meter.tokens_of(fixed),
    method: meter.method.as_str(),
    encoding: Some(meter.tokenizer),
    warnings,
  }
}

impl Default for ContextEditor {
  fn default() -> Self {
    Self::new(Options::default())
  }
}

/// Validates `messages`, the first of which has index `offset` in the conversation.
fn validate(messages: &[Message], offset: usize) -> Result<()> {
  messages
    .iter()
    .enumerate()
    .try_for_each(|(i, m)| m.validate(offset + i))
}

/// Rejects a context whose `max_input_tokens` is 0, whose correction is out of range, or that
/// gives both a text and its length (system prompt, tools).
///
/// # Errors
/// [`ErrorKind::InvalidContext`](crate::ErrorKind::InvalidContext).
pub fn validate_context(context: &Context) -> Result<()> {
  if context.max_input_tokens == Some(0) {
    return Err(Error::invalid_context(
      "maxInputTokens",
      "expected a positive integer, got 0",
    ));
  }
  if context.system_prompt.is_some() && context.system_prompt_length.is_some() {
    return Err(Error::invalid_context(
      "systemPromptLength",
      "give the system prompt's text or its length, not both",
    ));
  }
  if !context.tools.is_empty() && !context.tool_lengths.is_empty() {
    return Err(Error::invalid_context(
      "toolLengths",
      "give the tool definitions' texts or their lengths, not both",
    ));
  }
  if let Some(c) = context.correction {
    if !(c.is_finite() && c > 0.0 && c <= MAX_CORRECTION) {
      return Err(Error::invalid_context(
        "tokenCorrection",
        format!("expected a ratio above 0 and at most {MAX_CORRECTION}, got {c}"),
      ));
    }
  }
  Ok(())
}

/// The size of what a request sends beside its messages (system prompt, tool definitions):
/// measured from their texts, or, in approx mode, taken from the lengths given instead of them.
fn fixed_size(meter: &Meter<'_>, context: &Context) -> Result<u64> {
  let measured = meter.fixed_size(context.system_prompt.as_deref(), &context.tools);
  if context.system_prompt_length.is_none() && context.tool_lengths.is_empty() {
    return Ok(measured);
  }
  let field = if context.system_prompt_length.is_some() {
    "systemPromptLength"
  } else {
    "toolLengths"
  };
  if meter.method != TokenCountMethod::Approx {
    return Err(Error::invalid_context(
      field,
      "lengths are counted with `tokenCountMethod: \"approx\"` only; send the text (`systemPrompt`, `tools`)",
    ));
  }
  Ok(
    context
      .tool_lengths
      .iter()
      .fold(measured, |sum, &n| sum.saturating_add(n))
      .saturating_add(context.system_prompt_length.unwrap_or(0)),
  )
}
