//! The plan of a conversation that only grew, at the cost of what is new (issue #19).
//!
//! An agent calls the model again and again with the same history plus a turn. With the pipeline
//! most hosts run, one `clear_tool_uses` edit under LangChain's rule, a session's whole plan is a
//! function of a few running figures and of one decision per tool result that never changes once
//! made: whether the result is cleared when it leaves the kept window, and to what size. [`Grown`]
//! keeps those figures and decisions across a session's calls, so a next call reads only the new
//! messages and the results that left the window since, not every message of the history; the
//! plan is the same as the whole pipeline's (`tests/properties/sessions.rs` compares them on
//! random conversations, options and growth).
//!
//! What it covers ([`simple_clearing`]): one `clear_tool_uses` edit, whatever it keeps (results,
//! tokens, a fraction of the input limit: a window that may grow again when the limit does),
//! with or without `clearToolInputs` (what clearing a call's arguments frees is decided with its
//! result) and `clearAtLeast` (the kept results it clears are decided afresh on every call), without
//! `stable`, `cacheBreakpoints` or `prefer`, and no pin rule. A session with an orphaned tool result
//! or a pinned message is planned whole (the pipeline removes orphans and skips pins).
//!
//! A message's measure never changes once a message follows it, so decisions and the running sum
//! hold; the last message's measure may (a chat template can frame a last message differently:
//! Qwen 3 does an assistant's), so it is never stored: it is read, and decided, afresh.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::draft::{args_freed, clear_inputs_op, dangling_warning, CallRef};
use crate::edits::{filled, fraction_unknown, keep_count_by, slotted, tool_name};
use crate::measure::{Measure, Meter};
use crate::message::{Message, Role};
use crate::options::{ClearToolUses, Edit, Pin};
use crate::pipeline::close_report;
use crate::plan::{
  AppliedEdit, ClearedInput, ClearedResult, EditPlan, Op, Report, Warning, CLEARED_AT_LEAST,
  CLEARED_OLD, CLEAR_TOOL_USES_STRATEGY,
};
use crate::trigger::{is_triggered, Facts};

/// The edit a grown session can plan from its running figures, when the pipeline is one that
/// [`Grown`] covers (see the module's comment).
pub(crate) fn simple_clearing<'a>(edits: &'a [Edit], pin: &Pin) -> Option<&'a ClearToolUses> {
  let [Edit::ClearToolUses(edit)] = edits else {
    return None;
  };
  let simple = edit.stable.is_none()
    && !edit.cache_breakpoints
    && !edit.prefer.any()
    && pin.tools.is_empty()
    && !pin.current_run;
  simple.then_some(edit)
}

/// A tool result the edit clears once it leaves the kept window, decided once.
#[derive(Debug)]
struct Decided {
  index: usize,
  /// Its measure, and its measure once cleared.
  size: u64,
  cleared_size: u64,
  placeholder: Arc<str>,
  tool_call_id: Arc<str>,
  tool_name: Arc<str>,
  /// Its call's arguments, cleared with it (`clearToolInputs`).
  inputs: Option<Inputs>,
}

/// Bytes an operation clearing call arguments holds on the heap.
fn op_bytes(op: &Op) -> usize {
  let strings = |list: &[String]| {
    list
      .iter()
      .map(|s| s.len() + std::mem::size_of::<String>())
      .sum::<usize>()
  };
  match op {
    Op::ClearToolInputs {
      call_indices,
      tool_call_ids,
      cleared_tool_inputs,
      ..
    } => {
      call_indices.len() * std::mem::size_of::<usize>()
        + strings(tool_call_ids)
        + strings(cleared_tool_inputs)
    }
    _ => 0,
  }
}

/// The arguments of a cleared result's call, cleared with it.
#[derive(Debug, Clone, Copy)]
struct Inputs {
  /// The call: its assistant message and its position there.
  call: CallRef,
  /// What clearing them frees, after the results decided before (nothing when one of them
  /// answered the same call).
  freed: u64,
  /// Whether the report lists them (not when a result decided before answered the same call).
  first: bool,
}

/// An assistant message whose calls' arguments decided results clear: its measure and its calls'
/// part of it after them, and which calls (ascending, as `Draft::clear_args` keeps them), with the
/// operation that clears them all (made once: a next call lists it again as it was).
#[derive(Debug)]
struct Args {
  size: u64,
  calls_size: u64,
  cleared: Vec<usize>,
  op: Option<Op>,
}

impl Args {
  /// The arguments of no call cleared yet.
  fn of(measure: &Measure) -> Self {
    Self {
      size: measure.total,
      calls_size: measure.calls_total,
      cleared: Vec::new(),
      op: None,
    }
  }

  /// Clears the arguments of call `k` (`keep`: for good, else only measured): what that frees,
  /// and whether they were not cleared before.
  fn clear(&mut self, measure: &Measure, k: usize, keep: bool) -> (u64, bool) {
    let Err(at) = self.cleared.binary_search(&k) else {
      return (0, false);
    };
    let freed = args_freed(measure, k, self.size, self.calls_size);
    if keep {
      self.size -= freed;
      self.calls_size -= freed;
      self.cleared.insert(at, k);
    }
    (freed, true)
  }
}

/// What one call plans with: the pipeline's only edit, the session's messages, their measures
/// and pairing (one entry per message at least), and the call's meter (adjusted).
pub(crate) struct Job<'a> {
  pub edit: &'a ClearToolUses,
  pub msgs: &'a [Message],
  pub measures: &'a [Measure],
  pub pairs: &'a [Option<CallRef>],
  pub meter: &'a Meter<'a>,
}

impl Job<'_> {
  /// Whether the edit clears result `i` when it leaves the kept window, and how: `None` when it is
  /// cleared already, unpaired or of an excluded tool (as `Clearing::clear` decides).
  fn decision(&self, i: usize, shared: &Arc<str>, slots: Option<&[Box<str>]>) -> Option<Decided> {
    let m = &self.msgs[i];
    let call = self.pairs[i]?;
    let name = tool_name(self.msgs, i, call);
    if m.cleared || self.edit.excludes(name) {
      return None;
    }
    let tool_call_id = m.tool_call_id.as_deref().unwrap_or_default();
    let placeholder = match slots {
      None => Arc::clone(shared),
      Some(parts) => filled(parts, tool_call_id),
    };
    Some(Decided {
      index: i,
      size: self.measures[i].total,
      cleared_size: self.meter.cleared_size(m, &self.measures[i], &placeholder),
      placeholder,
      tool_call_id: tool_call_id.into(),
      tool_name: name.into(),
      inputs: None,
    })
  }

  /// The call whose arguments clearing result `d` clears too (`clearToolInputs`), if any.
  fn inputs_call(&self, d: &Decided) -> Option<CallRef> {
    if self.edit.clear_tool_inputs.applies_to(&d.tool_name) {
      self.pairs[d.index]
    } else {
      None
    }
  }
}

/// A session's running figures for [`simple_clearing`] pipelines: what its messages up to `len`
/// hold (tool results, user turns, unanswered calls) and the clearing decided for its oldest
/// results.
#[derive(Debug, Default)]
pub(crate) struct Grown {
  /// Messages read.
  len: usize,
  /// Positions of the tool results.
  tools: Vec<usize>,
  /// User messages.
  users: usize,
  /// Calls no result answers yet, in order.
  dangling: Vec<CallRef>,
  /// An orphaned result or a pinned message was read: the session is planned whole.
  blocked: bool,
  /// The results of `tools[..decided]` that the edit clears, in order.
  cleared: Vec<Decided>,
  decided: usize,
  /// The assistant messages whose calls' arguments `cleared` clears (`clearToolInputs`), by index.
  args: FxHashMap<usize, Args>,
  /// Bytes `args` holds on the heap (its calls and operations).
  args_bytes: usize,
  /// The edit's placeholder, shared by every result it clears (unless it names the call).
  placeholder: Option<Arc<str>>,
  /// Bytes of the strings `cleared` holds.
  text_bytes: usize,
  /// The sum of the measures of the messages before `summed`, never the last one (a chat
  /// template may frame a last message differently: its measure changes when it is followed).
  sum: u64,
  summed: usize,
}

impl Grown {
  /// Messages read: a session cut below it drops its figures.
  pub fn len(&self) -> usize {
    self.len
  }

  /// Bytes held, for the session's bound.
  pub fn bytes(&self) -> usize {
    self.tools.capacity() * std::mem::size_of::<usize>()
      + self.dangling.capacity() * std::mem::size_of::<CallRef>()
      + self.cleared.capacity() * std::mem::size_of::<Decided>()
      + self.args.capacity() * (std::mem::size_of::<(usize, Args)>() + 8)
      + self.args_bytes
      + self.text_bytes
  }

  /// Reads the messages after those read before (`pairs`: the session's pairing, one entry per
  /// message at least). Returns whether the figures can plan `msgs` (no orphan, no pin).
  pub fn read(&mut self, msgs: &[Message], pairs: &[Option<CallRef>]) -> bool {
    for (j, m) in msgs.iter().enumerate().skip(self.len) {
      self.blocked |= m.pinned;
      match m.role {
        Role::Tool => match pairs[j] {
          None => self.blocked = true,
          Some(call) => {
            self.tools.push(j);
            // A result answers the newest open calls, near the end of the list.
            if let Some(at) = self.dangling.iter().rposition(|&d| d == call) {
              self.dangling.remove(at);
            }
          }
        },
        Role::User => self.users += 1,
        Role::Assistant => self
          .dangling
          .extend((0..m.tool_calls.len()).map(|k| (j, k))),
        Role::System => {}
      }
    }
    self.len = self.len.max(msgs.len());
    !self.blocked && self.len == msgs.len()
  }

  /// Decides the results of `tools[decided..split]`, as `Clearing::clear` would clear them; not
  /// the last message's (see the module's comment).
  fn decide(&mut self, job: &Job<'_>, split: usize) {
    let split = match split.checked_sub(1) {
      Some(k) if self.tools[k] + 1 == job.msgs.len() => k,
      _ => split,
    };
    if split <= self.decided {
      return;
    }
    let shared = self.shared_placeholder(job.edit);
    let slots = slotted(&job.edit.placeholder);
    for k in self.decided..split {
      if let Some(mut d) = job.decision(self.tools[k], &shared, slots.as_deref()) {
        d.inputs = self.inputs(job, &d, true);
        self.text_bytes += d.tool_call_id.len() + d.tool_name.len();
        if slots.is_some() {
          self.text_bytes += d.placeholder.len();
        }
        self.cleared.push(d);
      }
    }
    self.decided = split;
  }

  /// Whether clearing result `d` clears its call's arguments too, and what that frees after the
  /// results decided before it (in `self.args`), as `Clearing::clear` and `Draft::clear_args`
  /// count it. `keep`: `d` is decided for good, and `self.args` moves past it.
  fn inputs(&mut self, job: &Job<'_>, d: &Decided, keep: bool) -> Option<Inputs> {
    let call @ (ai, k) = job.inputs_call(d)?;
    let measure = &job.measures[ai];
    let state = self.args.entry(ai).or_insert_with(|| Args::of(measure));
    let (freed, first) = state.clear(measure, k, keep);
    if keep && first {
      self.args_bytes += std::mem::size_of::<usize>();
      if let Some(op) = state.op.take() {
        self.args_bytes -= op_bytes(&op);
      }
    }
    Some(Inputs { call, freed, first })
  }

  /// `clearAtLeast`: clears kept results too, newest first, while the request's measure `total`
  /// has freed less than the edit asks since `start` (tokens), as `clear_oldest` does. The first
  /// `n` decided results were cleared before them. Decided afresh on every call (the window moves
  /// on), their arguments measured after what this call cleared before them. Returns the
  /// request's measure afterwards.
  #[allow(clippy::too_many_arguments)]
  fn clear_kept(
    &mut self,
    job: &Job<'_>,
    (split, n): (usize, usize),
    start: u64,
    mut total: u64,
    report: &mut Report,
    ops: &mut Vec<Op>,
    calls: &mut Vec<CallRef>,
  ) -> u64 {
    let shared = self.shared_placeholder(job.edit);
    let slots = slotted(&job.edit.placeholder);
    // The assistant messages whose arguments this call's results clear, as those leave them.
    let mut touched: Vec<(usize, Args)> = Vec::new();
    let mut kept_ops = Vec::new();
    for k in (split..self.tools.len()).rev() {
      if start.saturating_sub(job.meter.total_tokens(total)) >= job.edit.clear_at_least {
        break;
      }
      let Some(mut d) = job.decision(self.tools[k], &shared, slots.as_deref()) else {
        continue;
      };
      if let Some(call @ (ai, k)) = job.inputs_call(&d) {
        let at = touched
          .iter()
          .position(|(a, _)| *a == ai)
          .unwrap_or_else(|| {
            touched.push((ai, self.args_after(job, ai, n)));
            touched.len() - 1
          });
        let (freed, first) = touched[at].1.clear(&job.measures[ai], k, true);
        d.inputs = Some(Inputs { call, freed, first });
      }
      total = Self::clear(
        job.meter,
        total,
        [&d].into_iter(),
        CLEARED_AT_LEAST,
        report,
        &mut kept_ops,
        calls,
      );
    }
    // Operations go by index: these were made newest first.
    ops.extend(kept_ops.into_iter().rev());
    total
  }

  /// The arguments of assistant message `ai` once the first `n` decided results are cleared.
  fn args_after(&self, job: &Job<'_>, ai: usize, n: usize) -> Args {
    let measure = &job.measures[ai];
    if n == self.cleared.len() {
      return self.args.get(&ai).map_or_else(
        || Args::of(measure),
        |a| Args {
          size: a.size,
          calls_size: a.calls_size,
          cleared: a.cleared.clone(),
          op: None,
        },
      );
    }
    let mut args = Args::of(measure);
    for d in &self.cleared[..n] {
      if let Some(Inputs { call: (a, k), .. }) = d.inputs {
        if a == ai {
          args.clear(measure, k, true);
        }
      }
    }
    args
  }

  /// The edit's placeholder, shared by the results it clears (unless it names the call).
  fn shared_placeholder(&mut self, edit: &ClearToolUses) -> Arc<str> {
    Arc::clone(
      self
        .placeholder
        .get_or_insert_with(|| Arc::from(edit.placeholder.as_str())),
    )
  }

  /// The sum of the measures (a running sum of all but the last, which may change).
  fn measured(&mut self, measures: &[Measure]) -> u64 {
    let last = measures.len().saturating_sub(1);
    if self.summed < last {
      self.sum += measures[self.summed..last]
        .iter()
        .map(|m| m.total)
        .sum::<u64>();
      self.summed = last;
    }
    self.sum + measures[last..].iter().map(|m| m.total).sum::<u64>()
  }

  /// Clears `results` in order from a request of `total` (its measure): their entries of the
  /// report (with the tokens each frees from there, and the arguments cleared with them), their
  /// operations, and the calls whose arguments they clear. Returns the request's measure
  /// afterwards.
  fn clear<'d>(
    meter: &Meter<'_>,
    mut total: u64,
    results: impl Iterator<Item = &'d Decided>,
    reason: &'static str,
    report: &mut Report,
    ops: &mut Vec<Op>,
    calls: &mut Vec<CallRef>,
  ) -> u64 {
    for d in results {
      let before = meter.total_tokens(total);
      total = (total + d.cleared_size).saturating_sub(d.size);
      if let Some(inputs) = d.inputs {
        total = total.saturating_sub(inputs.freed);
        calls.push(inputs.call);
        if inputs.first {
          report.cleared_tool_inputs.push(ClearedInput {
            index: inputs.call.0,
            call_index: inputs.call.1,
            tool_call_id: Arc::clone(&d.tool_call_id),
          });
        }
      }
      let after = meter.total_tokens(total);
      report.cleared.push(ClearedResult {
        index: d.index,
        tool_call_id: Arc::clone(&d.tool_call_id),
        tool_name: Arc::clone(&d.tool_name),
        tokens_freed: before.saturating_sub(after),
        reason,
      });
      ops.push(Op::ClearToolResult {
        index: d.index,
        placeholder: Arc::clone(&d.placeholder),
        strategy: CLEAR_TOOL_USES_STRATEGY,
      });
    }
    total
  }

  /// `ops` (clearing results, by index) with the operations that clear the arguments of `calls`,
  /// one per assistant message, in index order as the pipeline lists them.
  fn with_input_ops(&mut self, msgs: &[Message], ops: Vec<Op>, mut calls: Vec<CallRef>) -> Vec<Op> {
    calls.sort_unstable();
    calls.dedup();
    let mut inputs = calls
      .chunk_by(|a, b| a.0 == b.0)
      .map(|group| {
        let ai = group[0].0;
        let ks = group.iter().map(|&(_, k)| k);
        match self.args.get_mut(&ai) {
          // Every call whose arguments decided results clear: the operation made before.
          Some(state) if ks.clone().eq(state.cleared.iter().copied()) => state
            .op
            .get_or_insert_with(|| {
              let op = clear_inputs_op(&msgs[ai], ai, state.cleared.clone());
              self.args_bytes += op_bytes(&op);
              op
            })
            .clone(),
          _ => clear_inputs_op(&msgs[ai], ai, ks.collect()),
        }
      })
      .peekable();
    let mut out = Vec::with_capacity(ops.len() + calls.len());
    for op in ops {
      while let Some(input) = inputs.next_if(|x| x.index() < op.index()) {
        out.push(input);
      }
      out.push(op);
    }
    out.extend(inputs);
    out
  }

  /// What a triggered edit clears from a request of `total` (its measure), into `report`: the
  /// results outside the kept window, then those `clearAtLeast` asks for. Returns the request's
  /// measure afterwards and the operations.
  fn clear_triggered(
    &mut self,
    job: &Job<'_>,
    max_input_tokens: Option<u64>,
    mut total: u64,
    report: &mut Report,
  ) -> (u64, Vec<Op>) {
    let (edit, meter) = (job.edit, job.meter);
    // Each result counted on its own, as the pipeline's `keep_count` does.
    let keep = keep_count_by(edit.keep, &self.tools, max_input_tokens, |i| {
      meter.tokens_of(job.measures[i].total)
    });
    let kept = usize::try_from(keep).unwrap_or(usize::MAX);
    let split = self.tools.len().saturating_sub(kept);
    self.decide(job, split);
    // The decided results below the window (a window measured in tokens may have grown), and
    // the last message when it left the window too (decided afresh on every call).
    let below = self.tools.get(split).map_or(usize::MAX, |&b| b);
    let n = self.cleared.partition_point(|d| d.index < below);
    let last = if split > self.decided {
      let shared = self.shared_placeholder(edit);
      let slots = slotted(&edit.placeholder);
      let mut d = job.decision(self.tools[split - 1], &shared, slots.as_deref());
      if let Some(d) = &mut d {
        d.inputs = self.inputs(job, d, false);
      }
      d
    } else {
      None
    };
    let start = report.tokens_before;
    report.cleared.reserve(n + 1);
    let mut ops = Vec::with_capacity(n + 1);
    let mut calls = Vec::new();
    let results = self.cleared[..n].iter().chain(last.as_ref());
    total = Self::clear(
      meter,
      total,
      results,
      CLEARED_OLD,
      report,
      &mut ops,
      &mut calls,
    );
    // As in LangChain, `clearAtLeast` does nothing when every result is kept or none is.
    if edit.clear_at_least > 0 && kept > 0 && kept < self.tools.len() {
      total = self.clear_kept(job, (split, n), start, total, report, &mut ops, &mut calls);
    }
    if !calls.is_empty() {
      ops = self.with_input_ops(job.msgs, ops, calls);
    }
    (total, ops)
  }

  /// The plan of `job`'s messages, what the pipeline plans, once [`read`](Self::read) found that
  /// the figures can plan them. `fixed` is the measure of the system prompt and tools.
  pub fn plan(
    &mut self,
    edits: &[Edit],
    job: &Job<'_>,
    fixed: u64,
    max_input_tokens: Option<u64>,
    warnings: Vec<Warning>,
  ) -> EditPlan {
    let (edit, msgs, meter) = (job.edit, job.msgs, job.meter);
    let mut total = fixed + self.measured(job.measures);
    let mut report = Report {
      token_count_method: meter.method.as_str(),
      warnings,
      encoding: Some(meter.tokenizer),
      max_input_tokens,
      tokens_before: meter.total_tokens(total),
      messages_before: msgs.len(),
      ..Report::default()
    };
    let mut facts = Facts {
      tokens: report.tokens_before,
      messages: msgs.len(),
      tool_uses: self.tools.len(),
      turns: self.users,
      max_input_tokens,
    };
    report
      .warnings
      .extend(fraction_unknown(edit, max_input_tokens));
    let mut applied = AppliedEdit::new("clear_tool_uses");
    let mut ops = Vec::new();
    if is_triggered(&edit.trigger, &facts) {
      applied.triggered = true;
      let start = report.tokens_before;
      (total, ops) = self.clear_triggered(job, max_input_tokens, total, &mut report);
      applied.cleared_tool_uses = report.cleared.len() as u64;
      if !report.cleared.is_empty() {
        applied.cleared_input_tokens = start.saturating_sub(meter.total_tokens(total));
      }
    }
    report.triggered = applied.triggered;
    report.applied_edits.push(applied);
    facts.tokens = meter.total_tokens(total);
    let dangling = self
      .dangling
      .iter()
      .map(|&call| dangling_warning(msgs, call))
      .collect();
    close_report(edits, &mut report, dangling, None, &facts);
    EditPlan {
      ops,
      summary: None,
      report,
    }
  }
}
