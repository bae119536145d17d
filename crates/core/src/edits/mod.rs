//! The edits. Each one is a function of the `Draft` (`crate::draft`): it reads the current
//! state (what earlier edits of the pipeline left), removes, clears or truncates through the
//! draft's operations (which keep every total exact), and returns its entry of `applied_edits`.
//! None of them touches a message: the draft becomes the plan's operations at the end.
//!
//! - `clear`: `clear_tool_uses`, LangChain's rule or, with `stable`, the cache-aware one
//!   (`stable`), both on the shared `clearing` bookkeeping; `prefer` finds the stale results
//!   (superseded, duplicate) that go first.
//! - `structural`: the edits that remove messages, calls or reasoning, or truncate results, and
//!   the pair repair that keeps every call with its results.
//! - `pins`: pinned messages, which every edit skips, and the warning when they alone are over
//!   budget.
//! - `summarize`: where to cut and what to ask the summarizing model; the model call is the
//!   shim's.

mod clear;
mod clearing;
mod pins;
mod prefer;
mod stable;
mod structural;
mod summarize;

use std::collections::BTreeSet;

use crate::draft::{CallRef, Draft};
use crate::options::{Edit, Trigger};
use crate::plan::AppliedEdit;

pub(crate) use clear::clear_tool_uses;
pub(crate) use clear::fraction_unknown;
pub(crate) use clearing::{filled, keep_count_by, slotted, tool_name};
pub(crate) use pins::pins_over_budget;
pub use structural::truncation_marker;
pub(crate) use structural::{answered, gate};
pub(crate) use summarize::plan_summary;

/// The trigger that decides an edit, if it has one (`None` = always applies, or not the core's).
pub(crate) fn trigger_of(edit: &Edit) -> Option<&[Trigger]> {
  match edit {
    Edit::ClearToolUses(c) => Some(&c.trigger),
    Edit::ClearThinking(c) => c.trigger.as_deref(),
    Edit::LastN(c) | Edit::StripAndTruncate(c) => c.trigger.as_deref(),
    Edit::StripToolCalls(c) => c.trigger.as_deref(),
    Edit::TrimTurns(c) => c.trigger.as_deref(),
    Edit::TruncateToolResults(c) => c.trigger.as_deref(),
    Edit::Summarize(c) => c.trigger.as_deref(),
    // Its trigger is the shim's, checked before planning (see `Edit::ClearMedia`).
    Edit::ClearMedia(_) => None,
  }
}

/// Runs an edit that needs no model and no clearing bookkeeping.
pub(crate) fn run_structural(
  edit: &Edit,
  draft: &mut Draft<'_, '_>,
  answered: &BTreeSet<CallRef>,
  applied: &mut AppliedEdit,
) {
  match edit {
    Edit::ClearThinking(c) => structural::clear_thinking(draft, c.keep, applied),
    Edit::LastN(c) => structural::last_n(draft, c.n, answered, applied),
    Edit::StripToolCalls(_) => structural::strip_tool_calls(draft, answered, applied),
    Edit::StripAndTruncate(c) => {
      structural::strip_tool_calls(draft, answered, applied);
      structural::last_n(draft, c.n, answered, applied);
    }
    Edit::TrimTurns(c) => structural::trim_turns(draft, c.max_turns, answered, applied),
    Edit::TruncateToolResults(c) => {
      let pairs = draft.pair();
      structural::truncate_tool_results(draft, c.max_chars, &c.exclude_tools, &pairs, applied);
    }
    // `clear_media` was applied by the shim before planning (it replaces blocks the wire does not
    // carry); the core only checks its options.
    Edit::ClearToolUses(_) | Edit::Summarize(_) | Edit::ClearMedia(_) => {}
  }
}
