//! One planning call, in order: remove orphaned tool results (always: a result without its call
//! breaks every provider's API), run each edit of the pipeline on the draft, close the report
//! (dangling calls, totals, whether a trigger still holds), and turn the draft into operations,
//! with prompt-cache breakpoints when asked.
//!
//! Cache-aware clearing also plans the history as the previous model call saw it (up to the
//! newest assistant message): the first place the two plans differ bounds the prefix a
//! provider's cache can still serve, and the boundary that call marked is marked again.

use std::cell::OnceCell;
use std::rc::Rc;

use crate::draft::{dangling_warnings, CallRef, Draft};
use crate::edits::{
  answered, clear_tool_uses, gate, pins_over_budget, plan_summary, run_structural, trigger_of,
};
use crate::error::Result;
use crate::measure::{Measure, Meter};
use crate::message::{Message, Role};
use crate::options::{Edit, Pin, Trigger};
use crate::plan::{AppliedEdit, EditPlan, Op, RemovedOrphan, Report, SummaryRequest, Warning};
use crate::trigger::{is_triggered, summary_triggered, Facts};

/// Anthropic's limit of cache breakpoints per request.
pub const MAX_CACHE_BREAKPOINTS: u32 = 4;

/// What one planning call works with, besides the messages.
pub(crate) struct Planner<'a> {
  /// The edits, in order.
  pub edits: &'a [Edit],
  pub meter: &'a Meter<'a>,
  /// The measure of the system prompt and tool definitions.
  pub fixed: u64,
  /// The model's input limit, if known.
  pub max_input_tokens: Option<u64>,
  /// Cache breakpoints the request already carries.
  pub breakpoints_in_use: u32,
  /// Pin rules (`pin`): what no edit may change.
  pub pin: &'a Pin,
  /// The pairing of the messages as given, when known (a session holds it): at least as many
  /// entries as messages.
  pub pairs: Option<&'a [Option<CallRef>]>,
}

/// A plan, with each message's final size (`None` = removed) and the cleared boundaries (current
/// first).
struct Planned {
  plan: EditPlan,
  sizes: Vec<Option<u64>>,
  boundaries: Vec<usize>,
}

/// What running the edits produced besides the report.
struct EditsRun {
  summary: Option<SummaryRequest>,
  boundaries: Vec<usize>,
  /// Whether a `clear_tool_uses` edit asked for cache breakpoints.
  breakpoints: bool,
}

impl Planner<'_> {
  /// The plan of `messages` (measured as `measures`), with its stable prefix when clearing is
  /// cache-aware.
  pub fn plan(
    &self,
    messages: &[Message],
    measures: &[Measure],
    warnings: Vec<Warning>,
  ) -> Result<EditPlan> {
    // The previous model call saw the history up to the newest assistant message (its reply).
    // Planning that history too doubles the work, so it is done only for cache-aware clearing.
    let cache_aware = self
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
        .plan_measured(&messages[..p], &measures[..p], Vec::new(), None)
        .ok()
        .map(|planned| (p, planned))
    });
    // The boundary the previous request marked: at a step, its cache entry is what this call reads.
    let previous_boundary = before
      .as_ref()
      .and_then(|(_, b)| b.boundaries.first().copied());
    let Planned {
      mut plan, sizes, ..
    } = self.plan_measured(messages, measures, warnings, previous_boundary)?;
    if let Some((p, before)) = before {
      let j = first_difference(&plan, &before.plan, p);
      let kept = sizes[..j].iter().flatten();
      plan.report.stable_prefix_messages = kept.clone().count();
      plan.report.stable_prefix_tokens = self.meter.tokens_of(self.fixed + kept.sum::<u64>());
    }
    Ok(plan)
  }

  /// Plans with measures already taken. `previous_boundary` is the boundary of the previous
  /// request, marked too when there is room.
  fn plan_measured(
    &self,
    messages: &[Message],
    measures: &[Measure],
    warnings: Vec<Warning>,
    previous_boundary: Option<usize>,
  ) -> Result<Planned> {
    let mut report = Report {
      token_count_method: self.meter.method.as_str(),
      warnings,
      ..Report::default()
    };
    // Always, as the README lists it: model mode counts with it, estimate mode uses its rates,
    // approx mode (chars / 4) needs none but names the one model mode would use.
    report.encoding = Some(self.meter.tokenizer);
    report.max_input_tokens = self.max_input_tokens;
    let mut draft = Draft::with_measures(messages, self.meter, self.fixed, measures);
    if let Some(pairs) = self.pairs {
      draft.seed_pairs(&pairs[..messages.len()]);
    }
    draft.pin(self.pin);
    report.tokens_before = draft.tokens();
    report.messages_before = messages.len();
    let pairs = remove_orphans(&mut draft, &mut report);
    let run = self.run_edits(&mut draft, &mut report, &pairs)?;
    self.close_report(&draft, &mut report);
    let sizes: Vec<Option<u64>> = draft
      .slots
      .iter()
      .map(|slot| (!slot.removed).then_some(slot.size))
      .collect();
    let marks = if run.breakpoints {
      let mut wanted = run.boundaries.clone();
      if let Some(b) = previous_boundary {
        wanted.insert(wanted.len().min(1), b);
      }
      cache_breakpoints(&draft, &wanted, self.breakpoints_in_use)
    } else {
      Vec::new()
    };
    let mut ops = draft.into_ops();
    for index in marks {
      // After the other operations on the same message.
      let at = ops.partition_point(|op| op.index() <= index);
      ops.insert(at, Op::CacheBreakpoint { index });
    }
    Ok(Planned {
      plan: EditPlan {
        ops,
        summary: run.summary,
        report,
      },
      sizes,
      boundaries: run.boundaries,
    })
  }

  /// Runs each edit of the pipeline on the draft, in order. `pairs` is the pairing of the input:
  /// removing orphans left it as it was, and edits that remove messages must not leave the calls
  /// it answers dangling.
  fn run_edits(
    &self,
    draft: &mut Draft<'_, '_>,
    report: &mut Report,
    pairs: &[Option<CallRef>],
  ) -> Result<EditsRun> {
    // Built only if an edit that removes messages runs.
    let answered_now = OnceCell::new();
    let mut run = EditsRun {
      summary: None,
      boundaries: Vec::new(),
      breakpoints: false,
    };
    for edit in self.edits {
      let mut applied = AppliedEdit::new(edit.type_name());
      let before = draft.tokens();
      match edit {
        Edit::ClearToolUses(c) => {
          applied = clear_tool_uses(c, draft, self.max_input_tokens, report, &mut run.boundaries);
          run.breakpoints |= c.cache_breakpoints;
        }
        Edit::Summarize(s) => {
          run.summary = plan_summary(s, draft, self.max_input_tokens, &mut applied)?;
        }
        // Applied by the shim before planning; its entry keeps the pipeline's positions.
        Edit::ClearMedia(_) => {}
        other => {
          if gate(trigger_of(other), draft, self.max_input_tokens) {
            applied.triggered = true;
            let answered = answered_now.get_or_init(|| answered(pairs));
            run_structural(other, draft, answered, &mut applied);
            applied.cleared_input_tokens = before.saturating_sub(draft.tokens());
          }
        }
      }
      report.triggered |= applied.triggered;
      report.applied_edits.push(applied);
    }
    Ok(run)
  }

  /// The report's closing figures and warnings: dangling calls, totals after the edits, and
  /// whether a trigger still holds or the limit is exceeded.
  fn close_report(&self, draft: &Draft<'_, '_>, report: &mut Report) {
    let triggers: Vec<Trigger> = self
      .edits
      .iter()
      .filter_map(trigger_of)
      .flatten()
      .copied()
      .collect();
    let pins = pins_over_budget(&triggers, draft, self.max_input_tokens);
    let facts = draft.facts(self.max_input_tokens);
    close_report(self.edits, report, dangling_warnings(draft), pins, &facts);
  }
}

/// Closes `report`: the warnings of dangling calls and of pinned messages over budget, the totals
/// after the edits (`facts`: the request as the edits left it), and whether a trigger still holds
/// or the limit is exceeded.
pub(crate) fn close_report(
  edits: &[Edit],
  report: &mut Report,
  dangling: Vec<Warning>,
  pins: Option<Warning>,
  facts: &Facts,
) {
  report.warnings.extend(dangling);
  report.warnings.extend(pins);
  report.tokens_after = facts.tokens;
  report.messages_after = facts.messages;
  report.still_triggered = report.triggered
    && edits
      .iter()
      .any(|e| trigger_of(e).is_some_and(|t| holds(e, t, facts)));
  // Warn only when a size condition still holds: count conditions stay met by design.
  let over_budget = report.triggered
    && edits
      .iter()
      .any(|e| trigger_of(e).is_some_and(|t| is_over_budget(e, t, facts)));
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
  let max_input_tokens = facts.max_input_tokens;
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
}

/// Removes every tool result without an earlier call, with a warning each; returns the pairing
/// of the input.
fn remove_orphans(draft: &mut Draft<'_, '_>, report: &mut Report) -> Rc<[Option<CallRef>]> {
  let pairs = draft.pair();
  let messages = draft.msgs;
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
  pairs
}

/// Where breakpoints go, most useful first: the end of the request (the next call reads it), the
/// current cleared boundary, the previous request's (a step's call reads the prefix cached there),
/// the previous step's; at most `MAX_CACHE_BREAKPOINTS - in_use`, on messages still there.
fn cache_breakpoints(draft: &Draft<'_, '_>, boundaries: &[usize], in_use: u32) -> Vec<usize> {
  let room = MAX_CACHE_BREAKPOINTS.saturating_sub(in_use) as usize;
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
  fn content(p: &EditPlan, limit: usize) -> Vec<&Op> {
    p.ops
      .iter()
      .filter(|op| !matches!(op, Op::CacheBreakpoint { .. }) && op.index() < limit)
      .collect()
  }
  let mut limit = end;
  for s in [&plan.summary, &before.summary].into_iter().flatten() {
    limit = limit.min(s.insert_at);
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
