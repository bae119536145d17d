//! The [`ContextEditor`]: options, a token cache, and the calls `plan` and `count_tokens`.

use std::sync::Mutex;

use serde_json::Value;

use std::collections::BTreeSet;

use crate::clear::clear_tool_uses;
use crate::draft::CallRef;
use crate::draft::{dangling_warnings, Draft};
use crate::error::{Error, Result};
use crate::measure::{Measure, Meter, TokenCache};
use crate::message::{Message, Role};
use crate::options::Trigger;
use crate::options::{Edit, Options, TokenCountMethod};
use crate::plan::AppliedEdit;
use crate::plan::{EditPlan, Op, RemovedOrphan, Report, Warning};
use crate::session::SessionStore;
use crate::strategies::{
  clear_thinking, gate, last_n, strip_tool_calls, trim_turns, truncate_tool_results,
};
use crate::summarize::{answered, plan_summary};
use crate::tokenizer::Encoding;
use crate::trigger::{is_triggered, summary_triggered, Facts};

/// What the model sees besides the messages, and what the editor should know about the model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
  /// The model's input limit in tokens, for `fraction` options. When absent, the limit of a known
  /// OpenAI model name is used; otherwise fraction triggers do not fire (and the report says so).
  pub max_input_tokens: Option<u64>,
  /// The system prompt sent beside the messages; its tokens count toward the trigger.
  pub system_prompt: Option<String>,
  /// Tool definitions sent with the request, each as JSON text; their tokens count toward the trigger.
  pub tools: Vec<String>,
  /// Model name for this call (chooses the encoding in model mode); overrides the option.
  pub model: Option<String>,
  /// Prompt-cache breakpoints the request already carries (system prompt, tools, messages): the
  /// `cacheBreakpoints` option adds at most [`MAX_CACHE_BREAKPOINTS`](crate::MAX_CACHE_BREAKPOINTS)
  /// minus this many.
  pub cache_breakpoints_in_use: u32,
}

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
  /// The encoding resolved for the call (`encoding`, else the model's, else o200k_base): model
  /// mode counts with it, estimate mode uses its rates; always set, approx mode included.
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
  cache: Mutex<TokenCache>,
  sessions: Mutex<SessionStore>,
}

impl ContextEditor {
  /// An editor with `options`.
  #[must_use]
  pub fn new(options: Options) -> Self {
    let cache = Mutex::new(TokenCache::new(options.token_cache_size));
    Self {
      options,
      cache,
      sessions: Mutex::new(SessionStore::default()),
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
  }

  fn lock_cache(&self) -> std::sync::MutexGuard<'_, TokenCache> {
    self
      .cache
      .lock()
      .unwrap_or_else(std::sync::PoisonError::into_inner)
  }

  fn meter(&self, context: &Context, warnings: &mut Vec<Warning>) -> Meter<'_> {
    let model = context.model.as_deref().or(self.options.model.as_deref());
    let encoding = self.options.encoding.unwrap_or_else(|| match model {
      Some(name) => Encoding::for_model(name).unwrap_or_else(|| {
        if self.options.token_count_method != TokenCountMethod::Approx {
          warnings.push(Warning {
            code: "unknown_model",
            message: format!("no known encoding for model `{name}`; counting with o200k_base (set `encoding` to choose)"),
            index: None,
          });
        }
        Encoding::O200kBase
      }),
      None => Encoding::O200kBase,
    });
    let cache = (self.options.token_cache_size > 0).then_some(&self.cache);
    Meter::new(self.options.token_count_method, encoding, cache)
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
    self.plan_with(messages, &measures, &meter, warnings, context)
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
    session.measure(&meter);
    let plan = self.plan_with(
      &session.messages,
      &session.measures,
      &meter,
      warnings,
      context,
    );
    self.sessions().put(id, session);
    plan.map(Some)
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
    self.sessions().put(id, session);
    Ok(true)
  }

  /// Session `id` cut to `reuse` messages (taken out of the store) with `tail` appended; `None` on
  /// a miss. On an invalid tail the session stays out: it is dropped.
  fn continued(
    &self,
    id: u64,
    reuse: usize,
    tail: Vec<Message>,
  ) -> Result<Option<crate::session::Session>> {
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

  fn sessions(&self) -> std::sync::MutexGuard<'_, SessionStore> {
    self
      .sessions
      .lock()
      .unwrap_or_else(std::sync::PoisonError::into_inner)
  }

  fn plan_with(
    &self,
    messages: &[Message],
    measures: &[Measure],
    meter: &Meter<'_>,
    warnings: Vec<Warning>,
    context: &Context,
  ) -> Result<EditPlan> {
    let fixed = meter.fixed_size(context.system_prompt.as_deref(), &context.tools);
    // The previous model call saw the history up to the newest assistant message (its reply).
    // Planning that history too doubles the work, so it is done only for cache-aware clearing.
    let cache_aware = self
      .options
      .edits
      .iter()
      .any(|e| matches!(e, Edit::ClearToolUses(c) if c.stable.is_some() || c.cache_breakpoints));
    let previous = if cache_aware {
      messages.iter().rposition(|m| m.role == Role::Assistant)
    } else {
      None
    };
    let before = previous.and_then(|p| {
      self
        .plan_measured(
          &messages[..p],
          context,
          meter,
          fixed,
          &measures[..p],
          Vec::new(),
          None,
        )
        .ok()
        .map(|(plan, _, boundaries)| (p, plan, boundaries))
    });
    // The boundary the previous request marked: at a step, its cache entry is what this call reads.
    let previous_boundary = before.as_ref().and_then(|(_, _, b)| b.first().copied());
    let (mut plan, sizes, _) = self.plan_measured(
      messages,
      context,
      meter,
      fixed,
      measures,
      warnings,
      previous_boundary,
    )?;
    if let Some((p, before, _)) = before {
      let j = first_difference(&plan, &before, p);
      let kept = sizes[..j].iter().flatten();
      plan.report.stable_prefix_messages = kept.clone().count();
      plan.report.stable_prefix_tokens = meter.tokens_of(fixed + kept.sum::<u64>());
    }
    Ok(plan)
  }

  /// Plans with measures already taken; also returns each message's final size (`None` = removed)
  /// and the cleared boundaries (current first). `previous_boundary` is the boundary of the
  /// previous request, marked too when there is room.
  #[allow(clippy::too_many_arguments)]
  fn plan_measured(
    &self,
    messages: &[Message],
    context: &Context,
    meter: &Meter<'_>,
    fixed: u64,
    measures: &[Measure],
    warnings: Vec<Warning>,
    previous_boundary: Option<usize>,
  ) -> Result<(EditPlan, Vec<Option<u64>>, Vec<usize>)> {
    let mut report = Report {
      token_count_method: self.options.token_count_method.as_str(),
      warnings,
      ..Report::default()
    };
    // Always, as the README lists it: model mode counts with it, estimate mode uses its rates,
    // approx mode (chars / 4) needs none but names the one model mode would use.
    report.encoding = Some(meter.encoding.as_str());
    let max_input_tokens = self.max_input_tokens(context);
    report.max_input_tokens = max_input_tokens;
    let mut draft = Draft::with_measures(messages, meter, fixed, measures);
    report.tokens_before = draft.tokens();
    report.messages_before = messages.len();

    // Orphans first, always: a tool result without an earlier call breaks every provider's API.
    let pairs = draft.pair();
    for (i, m) in messages.iter().enumerate() {
      if m.role == Role::Tool && pairs[i].is_none() {
        draft.remove(i);
        let tool_call_id = m.tool_call_id.clone().unwrap_or_default();
        report.warnings.push(Warning {
          code: "orphaned_tool_result",
          message: format!("tool result for `{tool_call_id}` has no earlier tool call; removed"),
          index: Some(i),
        });
        report.removed_orphans.push(RemovedOrphan {
          index: i,
          tool_call_id,
        });
      }
    }

    // Calls that have results now (removing orphans left the pairing as it was); edits that
    // remove messages must not leave them dangling. Built only if such an edit runs.
    let answered_now = std::cell::OnceCell::new();
    let mut summary = None;
    let mut boundaries = Vec::new();
    let mut breakpoints = false;
    for edit in &self.options.edits {
      let mut applied = AppliedEdit::new(edit.type_name());
      let before = draft.tokens();
      match edit {
        Edit::ClearToolUses(c) => {
          applied = clear_tool_uses(
            c,
            &mut draft,
            max_input_tokens,
            &mut report.cleared,
            &mut report.cleared_tool_inputs,
            &mut report.warnings,
            &mut boundaries,
          );
          breakpoints |= c.cache_breakpoints;
        }
        Edit::Summarize(s) => {
          summary = plan_summary(s, &mut draft, max_input_tokens, &mut applied)?
        }
        other => {
          if gate(edit_trigger(other), &draft, max_input_tokens) {
            applied.triggered = true;
            let answered = answered_now.get_or_init(|| answered(&pairs));
            run_structural(other, &mut draft, answered, &mut applied);
            applied.cleared_input_tokens = before.saturating_sub(draft.tokens());
          }
        }
      }
      report.triggered |= applied.triggered;
      report.applied_edits.push(applied);
    }

    report.warnings.extend(dangling_warnings(&draft));
    report.tokens_after = draft.tokens();
    report.messages_after = draft.alive_count();
    let facts = draft.facts(max_input_tokens);
    report.still_triggered = report.triggered
      && self
        .options
        .edits
        .iter()
        .any(|e| edit_trigger(e).is_some_and(|t| holds(e, t, &facts)));
    // Warn only when a size condition still holds: count conditions stay met by design.
    let over_budget = report.triggered
      && self
        .options
        .edits
        .iter()
        .any(|e| edit_trigger(e).is_some_and(|t| is_over_budget(e, t, &facts)));
    if over_budget {
      report.warnings.push(Warning {
        code: "still_over_trigger",
        message: format!(
          "{} tokens after editing still meet a trigger; these edits cannot bring this request under budget (add a summarize or trimming edit)",
          report.tokens_after
        ),
        index: None,
      });
    }
    report.over_max_input_tokens = max_input_tokens.is_some_and(|max| report.tokens_after > max);
    if report.over_max_input_tokens {
      report.warnings.push(Warning {
        code: "over_max_input_tokens",
        message: format!(
          "{} tokens exceed the model's input limit of {}",
          report.tokens_after,
          max_input_tokens.unwrap_or(0)
        ),
        index: None,
      });
    }
    let sizes: Vec<Option<u64>> = draft
      .slots
      .iter()
      .map(|slot| (!slot.removed).then_some(slot.size))
      .collect();
    let marks = if breakpoints {
      let mut wanted = boundaries.clone();
      if let Some(b) = previous_boundary {
        wanted.insert(wanted.len().min(1), b);
      }
      cache_breakpoints(&draft, &wanted, context.cache_breakpoints_in_use)
    } else {
      Vec::new()
    };
    let mut ops = draft.into_ops();
    if !marks.is_empty() {
      for index in marks {
        // After the other operations on the same message.
        let at = ops.partition_point(|op| op.index() <= index);
        ops.insert(at, Op::CacheBreakpoint { index });
      }
    }
    Ok((
      EditPlan {
        ops,
        summary,
        report,
      },
      sizes,
      boundaries,
    ))
  }

  /// Counts the tokens of a request with the editor's method and encoding.
  ///
  /// # Errors
  /// As [`ContextEditor::plan`].
  pub fn count_tokens(&self, messages: &[Message], context: &Context) -> Result<TokenCount> {
    validate(messages, 0)?;
    let mut warnings = Vec::new();
    let meter = self.meter(context, &mut warnings);
    let fixed = meter.fixed_size(context.system_prompt.as_deref(), &context.tools);
    let measures = meter.measure(messages);
    let sum: u64 = measures.iter().map(|m| m.total).sum::<u64>() + fixed;
    Ok(TokenCount {
      total: meter.total_tokens(sum),
      messages: measures.iter().map(|m| meter.tokens_of(m.total)).collect(),
      fixed: meter.tokens_of(fixed),
      method: meter.method.as_str(),
      encoding: Some(meter.encoding.as_str()),
      warnings,
    })
  }
}

/// Where breakpoints go, most useful first: the end of the request (the next call reads it), the
/// current cleared boundary, the previous request's (a step's call reads the prefix cached there),
/// the previous step's; at most `MAX_CACHE_BREAKPOINTS - in_use`, on messages still there.
fn cache_breakpoints(draft: &Draft<'_, '_>, boundaries: &[usize], in_use: u32) -> Vec<usize> {
  let room = crate::clear::MAX_CACHE_BREAKPOINTS.saturating_sub(in_use) as usize;
  let mut marks: Vec<usize> = Vec::new();
  let end = draft.alive().last();
  for i in end.into_iter().chain(boundaries.iter().copied()) {
    if marks.len() >= room {
      break;
    }
    if !draft.slots[i].removed && !marks.contains(&i) {
      marks.push(i);
    }
  }
  marks.sort_unstable();
  marks
}

/// The first input index below `end` where `plan` and `before` (the plan of `messages[..end]`) do
/// different things (cache breakpoints aside), or where a summary goes.
fn first_difference(plan: &EditPlan, before: &EditPlan, end: usize) -> usize {
  let mut limit = end;
  for s in [&plan.summary, &before.summary].into_iter().flatten() {
    limit = limit.min(s.insert_at);
  }
  fn content(p: &EditPlan, limit: usize) -> Vec<&Op> {
    p.ops
      .iter()
      .filter(|op| !matches!(op, Op::CacheBreakpoint { .. }) && op.index() < limit)
      .collect()
  }
  let (a, b) = (content(plan, limit), content(before, limit));
  let n = a.len().min(b.len());
  match (0..n).find(|&k| a[k] != b[k]) {
    Some(k) => a[k].index().min(b[k].index()),
    None => match (a.get(n), b.get(n)) {
      (Some(op), _) | (None, Some(op)) => op.index(),
      (None, None) => limit,
    },
  }
}

/// Whether a trigger still holds *by size*: conditions on `tokens` or `fraction` that are met.
/// Count-only conditions (`messages`, `toolUses`, `turns`) are left out: clearing cannot lower
/// them, so they would report every call as over budget.
fn is_over_budget(edit: &Edit, trigger: &[Trigger], facts: &Facts) -> bool {
  trigger
    .iter()
    .filter(|t| t.tokens.is_some() || t.fraction.is_some())
    .any(|t| holds(edit, std::slice::from_ref(t), facts))
}

/// Whether `edit`'s trigger holds: summarization reads a fraction as LangChain's
/// `shouldSummarize` does, the other edits as `ClearToolUsesEdit`.
fn holds(edit: &Edit, trigger: &[Trigger], facts: &Facts) -> bool {
  match edit {
    Edit::Summarize(_) => summary_triggered(trigger, facts),
    _ => is_triggered(trigger, facts),
  }
}

/// The trigger that decides an edit, if it has one (`None` = always applies).
fn edit_trigger(edit: &Edit) -> Option<&[Trigger]> {
  match edit {
    Edit::ClearToolUses(c) => Some(&c.trigger),
    Edit::ClearThinking(c) => c.trigger.as_deref(),
    Edit::LastN(c) | Edit::StripAndTruncate(c) => c.trigger.as_deref(),
    Edit::StripToolCalls(c) => c.trigger.as_deref(),
    Edit::TrimTurns(c) => c.trigger.as_deref(),
    Edit::TruncateToolResults(c) => c.trigger.as_deref(),
    Edit::Summarize(c) => c.trigger.as_deref(),
  }
}

/// Runs an edit that needs no model and no clearing bookkeeping.
fn run_structural(
  edit: &Edit,
  draft: &mut Draft<'_, '_>,
  answered: &BTreeSet<CallRef>,
  applied: &mut AppliedEdit,
) {
  match edit {
    Edit::ClearThinking(c) => clear_thinking(draft, c.keep, applied),
    Edit::LastN(c) => last_n(draft, c.n, answered, applied),
    Edit::StripToolCalls(_) => strip_tool_calls(draft, answered, applied),
    Edit::StripAndTruncate(c) => {
      strip_tool_calls(draft, answered, applied);
      last_n(draft, c.n, answered, applied);
    }
    Edit::TrimTurns(c) => trim_turns(draft, c.max_turns, answered, applied),
    Edit::TruncateToolResults(c) => {
      let pairs = draft.pair();
      truncate_tool_results(draft, c.max_chars, &c.exclude_tools, &pairs, applied);
    }
    Edit::ClearToolUses(_) | Edit::Summarize(_) => {}
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

/// Rejects a context whose `max_input_tokens` is 0.
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
  Ok(())
}
