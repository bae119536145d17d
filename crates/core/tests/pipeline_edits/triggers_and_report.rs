//! The `turns` and `toolUses` triggers (§5, §6), evaluated on the output of the previous edits, and
//! what the report says each edit did.

use super::clear_thinking::thinking_history;
use super::trim_and_truncate::truncation;
use super::*;

// ---------------------------------------------------------------------------------------------
// triggers: turns and toolUses (SEMANTICS §5, §6)

#[test]
fn a_turns_trigger_fires_at_that_many_turns() {
  let options = one(json!({ "type": "last_n", "n": 2, "trigger": { "turns": 4 } }));
  let (p, _) = run(options.clone(), &turns(3));
  assert!(p.ops.is_empty() && !p.report.applied_edits[0].triggered && !p.report.triggered);
  let (p, out) = run(options, &turns(4));
  assert!(p.report.applied_edits[0].triggered);
  assert_eq!(texts(&out), vec!["sys", "u3", "a3"]);
}

#[test]
fn a_tool_uses_trigger_counts_tool_results() {
  let mut msgs = vec![Message::user("go")];
  for k in 0..3 {
    let id = format!("c{k}");
    msgs.push(ai("", &[&id]));
    msgs.push(tool(&id, &"r".repeat(900)));
  }
  let options = one(json!({ "type": "truncate_tool_results", "trigger": { "toolUses": 4 } }));
  let (p, _) = run(options, &msgs);
  assert!(p.ops.is_empty(), "3 results < 4");
  let options = one(json!({ "type": "truncate_tool_results", "trigger": { "toolUses": 3 } }));
  let (p, _) = run(options, &msgs);
  assert_eq!(truncation(&p).len(), 3);
  // Clearing takes it too (Anthropic `trigger: {tool_uses}`).
  let (p, _) = run(
    json!({ "trigger": { "toolUses": 3 }, "keep": { "messages": 1 } }),
    &msgs,
  );
  assert_eq!(p.report.cleared.len(), 2);
}

#[test]
fn triggers_are_evaluated_on_the_result_of_the_previous_edits() {
  // After trimming to 2 turns, a `turns: 3` trigger of the next edit no longer holds.
  let msgs = thinking_history();
  let (p, _) = run(
    json!({ "edits": [
      { "type": "trim_turns", "maxTurns": 2 },
      { "type": "clear_thinking", "keep": { "thinkingTurns": 0 }, "trigger": { "turns": 3 } },
    ] }),
    &msgs,
  );
  assert!(p.report.applied_edits[0].triggered);
  assert!(!p.report.applied_edits[1].triggered);
  assert!(removed_thinking(&p).is_empty());
}

// ---------------------------------------------------------------------------------------------
// the report, per edit

#[test]
fn each_edit_reports_what_it_did_and_the_tokens_it_freed() {
  let mut msgs = vec![Message::system("sys")];
  for k in 0..6 {
    let id = format!("c{k}");
    msgs.push(Message::user(format!("u{k}")));
    let mut a = ai(&format!("a{k}"), &[&id]);
    a.thinking = Some("t".repeat(200));
    msgs.push(a);
    msgs.push(tool(&id, &"r".repeat(1200)));
    msgs.push(ai(&format!("done{k}"), &[]));
  }
  let (p, out) = run(
    json!({ "edits": [
      { "type": "trim_turns", "maxTurns": 4 },
      { "type": "clear_thinking" },
      { "type": "truncate_tool_results", "maxChars": 200 },
      { "type": "clear_tool_uses", "trigger": { "messages": 1 }, "keep": { "messages": 2 } },
      { "type": "strip_and_truncate", "n": 6 },
    ] }),
    &msgs,
  );
  let e = &p.report.applied_edits;
  let types: Vec<&str> = e.iter().map(|a| a.edit_type).collect();
  assert_eq!(
    types,
    vec![
      "trim_turns",
      "clear_thinking",
      "truncate_tool_results",
      "clear_tool_uses",
      "strip_and_truncate"
    ]
  );
  assert!(e.iter().all(|a| a.triggered));
  assert_eq!(e[0].removed_messages, 8);
  assert_eq!(e[1].cleared_thinking_turns, 3);
  assert_eq!(e[2].truncated_tool_results, 4, "the 4 kept turns' results");
  assert_eq!(e[3].cleared_tool_uses, 2);
  // Strip: the 4 results go, the 4 calling messages keep their text; then the last 6 of 12.
  assert_eq!(e[4].removed_messages, 4 + 6);
  assert_eq!(e[4].removed_tool_calls, 4);
  // Each edit's freed tokens add up to before − after (no orphans here).
  let freed: u64 = e.iter().map(|a| a.cleared_input_tokens).sum();
  assert_eq!(freed, p.report.tokens_before - p.report.tokens_after);
  assert!(e.iter().all(|a| a.cleared_input_tokens > 0));
  assert_eq!(p.report.messages_after, out.len());
  assert_eq!(texts(&out)[0], "sys");
  assert!(out
    .iter()
    .all(|m| m.tool_calls.is_empty() && m.role != Role::Tool));
}
