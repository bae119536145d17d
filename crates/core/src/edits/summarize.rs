//! Summarization planning: when to summarize, where to cut (never between a tool call and its
//! results), and the prompt for the summarizing model. The model call itself belongs to the shim.
//!
//! Mirrors langchainjs `libs/langchain/src/agents/middleware/summarization.ts` (langchain 1.5.14:
//! `shouldSummarize`, `determineCutoffIndex`, `findTokenBasedCutoff`, `findSafeCutoff`,
//! `findSafeCutoffPoint`, `isSafeCutoffPoint`) with two deliberate differences: every leading system
//! message is kept (LangChain summarizes a system message kept in state), and a cutoff that would
//! still separate a call from its results moves earlier.
//!
//! Summaries build on each other: when the first replaced message is a summary this edit wrote
//! (its text starts with the summary prefix), the prompt gives the model that summary once, apart,
//! and only the messages after it to fold in, instead of the summary as one more message to
//! summarize. A cutoff that would replace the previous summary alone writes nothing.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::structural::conversation;
use crate::draft::Draft;
use crate::error::{Error, Result};
use crate::message::{utf16_len, utf16_prefix, Message, Role};
use crate::options::{
  Summarize, SummaryKeep, SummaryRole, Trigger, DEEPAGENTS_KEEP_FRACTION, DEEPAGENTS_KEEP_MESSAGES,
  DEEPAGENTS_TRIGGER_FRACTION, DEEPAGENTS_TRIGGER_TOKENS,
};
use crate::plan::{AppliedEdit, SummaryRequest};
use crate::trigger::summary_triggered;

/// How far around a cutoff LangChain looks for split tool pairs (`SEARCH_RANGE_FOR_TOOL_PAIRS`).
const SEARCH_RANGE_FOR_TOOL_PAIRS: usize = 5;

/// A message in the conversation being cut: what the cutoff rules look at.
struct View<'a> {
  msg: &'a Message,
  /// Ids of the live calls (assistant messages).
  calls: Vec<&'a str>,
}

impl View<'_> {
  fn is_tool(&self) -> bool {
    self.msg.role == Role::Tool
  }
  fn has_calls(&self) -> bool {
    self.msg.role == Role::Assistant && !self.calls.is_empty()
  }
  fn tool_call_id(&self) -> &str {
    self.msg.tool_call_id.as_deref().unwrap_or("")
  }
}

/// `findSafeCutoffPoint`: a cutoff on a run of tool results moves to the assistant message that
/// called any of them (or past the run when none did).
fn find_safe_cutoff_point(v: &[View<'_>], cutoff: usize) -> usize {
  if cutoff >= v.len() || !v[cutoff].is_tool() {
    return cutoff;
  }
  let mut ids = BTreeSet::new();
  let mut idx = cutoff;
  while idx < v.len() && v[idx].is_tool() {
    ids.insert(v[idx].tool_call_id());
    idx += 1;
  }
  for i in (0..cutoff).rev() {
    if v[i].has_calls() && v[i].calls.iter().any(|c| ids.contains(c)) {
      return i;
    }
  }
  idx
}

/// `cutoffSeparatesToolPair` for the assistant message at `ai`.
fn separates(v: &[View<'_>], ai: usize, cutoff: usize) -> bool {
  let ids: BTreeSet<&str> = v[ai].calls.iter().copied().collect();
  v.iter()
    .enumerate()
    .skip(ai + 1)
    .any(|(j, m)| m.is_tool() && ids.contains(m.tool_call_id()) && ((ai < cutoff) != (j < cutoff)))
}

/// `isSafeCutoffPoint`.
fn is_safe_cutoff_point(v: &[View<'_>], cutoff: usize) -> bool {
  if cutoff >= v.len() {
    return true;
  }
  if v[cutoff].has_calls() {
    return false;
  }
  let start = cutoff.saturating_sub(SEARCH_RANGE_FOR_TOOL_PAIRS);
  let end = (cutoff + SEARCH_RANGE_FOR_TOOL_PAIRS).min(v.len());
  (start..end).all(|i| !v[i].has_calls() || !separates(v, i, cutoff))
}

/// `findSafeCutoff` for a target cutoff.
fn safe_from(v: &[View<'_>], target: usize) -> usize {
  let safe = find_safe_cutoff_point(v, target);
  if safe <= target {
    return safe;
  }
  (0..=target)
    .rev()
    .find(|&i| is_safe_cutoff_point(v, i))
    .unwrap_or(0)
}

/// For every cutoff `0..=len` of the conversation `conv` (input indices), whether cutting there
/// separates a call from one of its results: a result at position `r` answering a call at `a`
/// makes every cutoff in `a + 1..=r` unsafe. One pass over the pairs (a difference array), so
/// walking the cutoff back is linear even when a pair spans the whole conversation.
fn unsafe_cutoffs(draft: &Draft<'_, '_>, conv: &[usize]) -> Vec<bool> {
  let len = conv.len();
  let mut pos = vec![usize::MAX; draft.msgs.len()];
  for (j, &i) in conv.iter().enumerate() {
    pos[i] = j;
  }
  let pairs = draft.pair();
  let mut diff = vec![0i64; len + 2];
  for (r, &i) in conv.iter().enumerate() {
    if let Some((ai, _)) = pairs[i] {
      let a = pos[ai];
      if a < r {
        diff[a + 1] += 1;
        diff[r + 1] -= 1;
      }
    }
  }
  let mut open = 0i64;
  (0..=len)
    .map(|c| {
      open += diff[c];
      open > 0
    })
    .collect()
}

/// Plans one `summarize` edit; `Ok(None)` when it does not fire or has nothing to summarize.
pub(crate) fn plan_summary(
  edit: &Summarize,
  draft: &mut Draft<'_, '_>,
  max_input_tokens: Option<u64>,
  applied: &mut AppliedEdit,
) -> Result<Option<SummaryRequest>> {
  let default_trigger = [default_trigger(max_input_tokens)];
  let trigger: &[Trigger] = edit.trigger.as_deref().unwrap_or(&default_trigger);
  let keep = edit.keep.unwrap_or(default_keep(max_input_tokens));
  let uses_fraction =
    trigger.iter().any(|t| t.fraction.is_some()) || matches!(keep, SummaryKeep::Fraction(_));
  if uses_fraction && max_input_tokens.is_none() {
    return Err(Error::invalid_context(
      "maxInputTokens",
      "`summarize` uses a `fraction`, which needs the model's input limit (pass `maxInputTokens`, or use absolute `tokens`)",
    ));
  }
  if !summary_triggered(trigger, &draft.facts(max_input_tokens)) {
    return Ok(None);
  }
  applied.triggered = true;
  let conv = conversation(draft);
  let cutoff = cutoff(draft, &conv, keep, max_input_tokens);
  // Pinned messages before the cutoff stay where they are; the summary replaces the others.
  let replaced: Vec<usize> = conv[..cutoff]
    .iter()
    .copied()
    .filter(|&i| !draft.is_pinned(i))
    .collect();
  if replaced.is_empty() || only_previous_summary(edit, draft, &replaced) {
    return Ok(None);
  }
  Ok(Some(replace(edit, draft, replaced, applied)))
}

/// DeepAgents' trigger: 85 % of a known input limit, else 170,000 tokens.
fn default_trigger(max_input_tokens: Option<u64>) -> Trigger {
  match max_input_tokens {
    Some(_) => Trigger {
      fraction: Some(DEEPAGENTS_TRIGGER_FRACTION),
      ..Trigger::default()
    },
    None => Trigger {
      tokens: Some(DEEPAGENTS_TRIGGER_TOKENS),
      ..Trigger::default()
    },
  }
}

/// DeepAgents' keep: 10 % of a known input limit, else 6 messages.
fn default_keep(max_input_tokens: Option<u64>) -> SummaryKeep {
  match max_input_tokens {
    Some(_) => SummaryKeep::Fraction(DEEPAGENTS_KEEP_FRACTION),
    None => SummaryKeep::Messages(DEEPAGENTS_KEEP_MESSAGES),
  }
}

/// Where to cut the conversation `conv` (input indices): what `keep` asks for (LangChain's
/// `determineCutoffIndex`), moved earlier while it would separate a call from its results.
fn cutoff(
  draft: &Draft<'_, '_>,
  conv: &[usize],
  keep: SummaryKeep,
  max_input_tokens: Option<u64>,
) -> usize {
  let views: Vec<View<'_>> = conv
    .iter()
    .map(|&i| {
      let msg = &draft.msgs[i];
      let calls = draft
        .live_calls(i)
        .into_iter()
        .map(|k| msg.tool_calls[k].id.as_str())
        .collect();
      View { msg, calls }
    })
    .collect();
  let len = views.len();
  let mut cutoff = match keep {
    SummaryKeep::Messages(n) => {
      let n = usize::try_from(n).unwrap_or(usize::MAX);
      if len <= n {
        0
      } else {
        safe_from(&views, len - n)
      }
    }
    SummaryKeep::Turns(n) => turns_cutoff(&views, n),
    SummaryKeep::Tokens(t) => token_cutoff(&views, conv, draft, t.floor()),
    #[allow(clippy::cast_precision_loss)]
    SummaryKeep::Fraction(f) => token_cutoff(
      &views,
      conv,
      draft,
      (max_input_tokens.unwrap_or(0) as f64 * f).floor(),
    ),
  };
  let splits = unsafe_cutoffs(draft, conv);
  while cutoff > 0 && splits[cutoff.min(len)] {
    cutoff -= 1;
  }
  cutoff
}

/// The cutoff that keeps the last `n` turns (a turn starts at a user message).
fn turns_cutoff(views: &[View<'_>], n: u64) -> usize {
  let len = views.len();
  let starts: Vec<usize> = (0..len)
    .filter(|&j| views[j].msg.role == Role::User)
    .collect();
  let n = usize::try_from(n).unwrap_or(usize::MAX);
  if starts.len() <= n {
    0
  } else if n == 0 {
    len
  } else {
    starts[starts.len() - n]
  }
}

/// Removes `replaced` (to be replaced by the summary) and writes the request for the summarizing
/// model: the newest replaced messages that fit its budget go into the prompt.
fn replace(
  edit: &Summarize,
  draft: &mut Draft<'_, '_>,
  replaced: Vec<usize>,
  applied: &mut AppliedEdit,
) -> SummaryRequest {
  let before = draft.tokens();
  let previous = previous_summary(edit, draft, replaced[0]);
  let fresh = &replaced[usize::from(previous.is_some())..];
  let mut summarized = Vec::new();
  let mut used = 0u64;
  for &i in fresh.iter().rev() {
    let t = draft.meter.tokens_of(draft.slots[i].size);
    if edit.trim_tokens_to_summarize > 0
      && used + t > edit.trim_tokens_to_summarize
      && !summarized.is_empty()
    {
      break;
    }
    used += t;
    summarized.push(i);
  }
  summarized.reverse();
  let rendered = render(
    draft,
    &summarized,
    edit.tool_trim_limit,
    edit.trim_tokens_to_summarize,
  );
  let section = match previous {
    Some(text) => format!("{PREVIOUS_SUMMARY_OPEN}\n{text}\n{PREVIOUS_SUMMARY_CLOSE}\n{NEW_MESSAGES_HEADER}\n{rendered}"),
    None => rendered,
  };
  let prompt = edit.summary_prompt.replacen("{messages}", &section, 1);
  if previous.is_some() {
    summarized.insert(0, replaced[0]);
  }
  for &i in &replaced {
    draft.remove(i);
    draft.slots[i].summarized = true;
  }
  applied.removed_messages += replaced.len() as u64;
  let tokens_replaced = before.saturating_sub(draft.tokens());
  applied.cleared_input_tokens += tokens_replaced;
  SummaryRequest {
    insert_at: replaced[0],
    replaced,
    summarized,
    prompt,
    prefix: edit.summary_prefix.clone(),
    role: match edit.summary_role {
      SummaryRole::User => Role::User,
      SummaryRole::Assistant => Role::Assistant,
    },
    model: edit.model.clone(),
    max_tokens: edit.max_tokens,
    tokens_replaced,
  }
}

/// Opens the previous summary in the prompt of a summary that extends it.
const PREVIOUS_SUMMARY_OPEN: &str = "<previous_summary>";
/// Closes it.
const PREVIOUS_SUMMARY_CLOSE: &str = "</previous_summary>";
/// What the model is asked to do with the messages after the previous summary.
const NEW_MESSAGES_HEADER: &str = "New messages since that summary; write one updated summary that keeps what still matters from it and folds these in:";

/// The text of the summary this edit wrote earlier, when message `i` is one: a user or assistant
/// message whose text is `summary_prefix + "\n\n" + summary`.
fn previous_summary<'m>(edit: &Summarize, draft: &Draft<'m, '_>, i: usize) -> Option<&'m str> {
  let m = &draft.msgs[i];
  if !matches!(m.role, Role::User | Role::Assistant) || !m.tool_calls.is_empty() {
    return None;
  }
  let text = m.content.as_deref()?;
  let rest = text
    .strip_prefix(edit.summary_prefix.as_str())?
    .strip_prefix("\n\n")?;
  Some(rest)
}

/// Whether the messages to replace are only a summary this edit wrote: nothing new to fold in.
fn only_previous_summary(edit: &Summarize, draft: &Draft<'_, '_>, replaced: &[usize]) -> bool {
  replaced.len() == 1 && previous_summary(edit, draft, replaced[0]).is_some()
}

/// `findTokenBasedCutoff`: the earliest suffix whose tokens fit `target` (binary search, as LangChain).
fn token_cutoff(views: &[View<'_>], conv: &[usize], draft: &Draft<'_, '_>, target: f64) -> usize {
  let len = views.len();
  if len == 0 {
    return 0;
  }
  #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
  let target = if target <= 0.0 { 1 } else { target as u64 };
  // Suffix sizes, so each probe is O(1).
  let mut suffix = vec![0u64; len + 1];
  for j in (0..len).rev() {
    suffix[j] = suffix[j + 1] + draft.slots[conv[j]].size;
  }
  let tokens = |from: usize| draft.meter.tokens_of(suffix[from]);
  if tokens(0) <= target {
    return 0;
  }
  let (mut left, mut right, mut candidate) = (0usize, len, len);
  let iterations = (usize::BITS - len.leading_zeros()) as usize; // floor(log2(len)) + 1
  for _ in 0..iterations {
    if left >= right {
      break;
    }
    let mid = usize::midpoint(left, right);
    if tokens(mid) <= target {
      candidate = mid;
      right = mid;
    } else {
      left = mid + 1;
    }
  }
  if candidate == len {
    candidate = left;
  }
  if candidate >= len {
    if len == 1 {
      return 0;
    }
    candidate = len - 1;
  }
  let safe = find_safe_cutoff_point(views, candidate);
  if safe <= candidate {
    return safe;
  }
  (0..=candidate)
    .rev()
    .find(|&i| is_safe_cutoff_point(views, i))
    .unwrap_or(0)
}

/// Renders messages for the summarizer as `Role: text` lines (LangChain's `getBufferString` roles).
fn render(
  draft: &Draft<'_, '_>,
  ids: &[usize],
  tool_trim_limit: Option<u64>,
  trim_tokens: u64,
) -> String {
  let mut out = String::new();
  for &i in ids {
    let m = &draft.msgs[i];
    let text = m.content.as_deref().unwrap_or("");
    if !out.is_empty() {
      out.push('\n');
    }
    match m.role {
      Role::System => out.push_str("System: "),
      Role::User => out.push_str("Human: "),
      Role::Assistant => out.push_str("AI: "),
      Role::Tool => out.push_str("Tool: "),
    }
    let limit = match m.role {
      Role::Tool => tool_trim_limit,
      _ => None,
    };
    // A single message larger than the whole budget is cut to it (about 4 characters a token).
    let limit = match (limit, ids.len() == 1 && trim_tokens > 0) {
      (l, true) => Some(l.unwrap_or(u64::MAX).min(trim_tokens.saturating_mul(4))),
      (l, false) => l,
    };
    match limit {
      Some(max) if utf16_len(text) > max => {
        out.push_str(utf16_prefix(text, max).0);
        out.push('…');
      }
      _ => out.push_str(text),
    }
    for k in draft.live_calls(i) {
      let c = &m.tool_calls[k];
      // Writing to a `String` cannot fail.
      let _ = write!(
        out,
        "\nTool call: {}({})",
        c.name,
        c.args.as_deref().unwrap_or("{}")
      );
    }
  }
  out
}
