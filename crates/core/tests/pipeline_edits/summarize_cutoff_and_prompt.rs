//! `summarize` planning: where the cut falls (never between a call and its results, after the
//! leading system messages), what the summary prompt receives, and its place in a pipeline.

use super::last_n_and_strip::tool_history;
use super::*;

#[test]
fn summarize_cutoff_never_separates_a_call_from_its_results() {
  // keep 2 would start at t2, in the middle of the exchange: the cut moves back to the call.
  let msgs = vec![
    Message::user("u1"),
    ai("a1", &[]),
    Message::user("u2"),
    ai("", &["c1", "c2"]),
    tool("c1", "t1"),
    tool("c2", "t2"),
    ai("done", &[]),
  ];
  for keep in [2, 3] {
    let (p, out) = run(
      one(
        json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": keep } }),
      ),
      &msgs,
    );
    assert_eq!(summary(&p).replaced, vec![0, 1, 2], "keep {keep}");
    assert_eq!(texts(&out), vec!["", "t1", "t2", "done"]);
  }
  // Token keep landing inside the results moves back the same way.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "tokens": 3 } })),
    &msgs,
  );
  let cut = p.summary.as_ref().map_or(0, |s| s.replaced.len());
  assert!(
    cut <= 3 || cut == msgs.len(),
    "never between 3 and 6: {cut}"
  );
}

#[test]
fn summarize_with_nothing_before_the_cutoff_writes_no_summary() {
  let msgs = vec![ai("", &["c1"]), tool("c1", "t1"), Message::user("u")];
  // keep 2 → cut at t1 → moves back to the call at 0: nothing to summarize.
  let (p, out) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 } })),
    &msgs,
  );
  assert!(p.summary.is_none());
  assert!(p.ops.is_empty());
  assert_eq!(out, msgs);
  assert!(
    p.report.applied_edits[0].triggered,
    "it fired, but found nothing to summarize"
  );
  // keep more than there is: same.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 9 } })),
    &msgs,
  );
  assert!(p.summary.is_none());
}

#[test]
fn summarize_keeps_the_leading_system_messages() {
  let mut msgs = vec![Message::system("s1"), Message::system("s2")];
  msgs.extend(chat(3, 10));
  let (p, out) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 } })),
    &msgs,
  );
  let s = summary(&p);
  assert_eq!(s.replaced, vec![2, 3, 4, 5]);
  assert_eq!(s.insert_at, 2);
  assert!(!s.prompt.contains("System: s1"));
  assert_eq!(texts(&out)[..2], ["s1", "s2"]);
  let written = with_summary(&p, &msgs, "S");
  assert_eq!(written.len(), 5);
  assert_eq!(
    written[2].content.as_deref(),
    Some(&*format!("{DEFAULT_SUMMARY_PREFIX}\n\nS"))
  );
  assert_eq!(written[2].role, Role::User);
}

#[test]
fn summarize_trims_what_it_sends_to_the_newest_that_fit() {
  // Ten 25-token messages; a 60-token budget sends the newest two of the replaced ones.
  let msgs = chat(6, 100);
  let (p, _) = run(
    one(
      json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 }, "trimTokensToSummarize": 60 }),
    ),
    &msgs,
  );
  let s = summary(&p);
  assert_eq!(s.replaced, (0..10).collect::<Vec<_>>());
  assert_eq!(s.summarized, vec![8, 9]);
  assert!(s.prompt.contains("Human: u4") && s.prompt.contains("AI: a4"));
  assert!(!s.prompt.contains("u3"));
  // 0 = no bound.
  let (p, _) = run(
    one(
      json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 }, "trimTokensToSummarize": 0 }),
    ),
    &msgs,
  );
  assert_eq!(summary(&p).summarized, (0..10).collect::<Vec<_>>());
  // The default bound is 4000 tokens: all ten fit.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 } })),
    &msgs,
  );
  assert_eq!(summary(&p).summarized.len(), 10);
}

#[test]
fn summarize_cuts_tool_results_in_the_prompt_to_tool_trim_limit() {
  let long = format!("HEAD{}", "x".repeat(2000));
  let msgs = vec![
    Message::user("u1"),
    ai("", &["c1"]),
    tool("c1", &long),
    ai("a1", &[]),
    Message::user("u2"),
  ];
  let (p, out) = run(
    one(
      json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 1 }, "toolTrimLimit": 10 }),
    ),
    &msgs,
  );
  let s = summary(&p);
  assert!(s.prompt.contains("Tool: HEADxxxxxx…\n"), "{}", s.prompt);
  assert!(!s.prompt.contains(&"x".repeat(11)));
  assert!(s.prompt.contains("Tool call: search({})"));
  assert_eq!(texts(&out), vec!["u2"]);
  // Without the limit the whole result is quoted.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 1 } })),
    &msgs,
  );
  assert!(summary(&p).prompt.contains(&long));
}

#[test]
fn summarize_prompt_replaces_the_messages_placeholder() {
  let msgs = chat(3, 10);
  let (p, _) = run(
    one(
      json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 },
      "summaryPrompt": "Summarize:\n{messages}\nEND", "summaryPrefix": "Earlier:", "model": "gpt-4o-mini", "maxTokens": 400 }),
    ),
    &msgs,
  );
  let s = summary(&p);
  assert_eq!(
    s.prompt,
    format!(
      "Summarize:\nHuman: {}\nAI: {}\nHuman: {}\nAI: {}\nEND",
      texts(&msgs)[0],
      texts(&msgs)[1],
      texts(&msgs)[2],
      texts(&msgs)[3]
    )
  );
  assert_eq!(s.prefix, "Earlier:");
  assert_eq!(s.model.as_deref(), Some("gpt-4o-mini"));
  assert_eq!(s.max_tokens, Some(400));
  // The default prompt is LangChain's, with the conversation in place of `{messages}`.
  let (p, _) = run(
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 } })),
    &msgs,
  );
  let (head, tail) = DEFAULT_SUMMARY_PROMPT.split_once("{messages}").unwrap();
  let prompt = &summary(&p).prompt;
  assert!(prompt.starts_with(head) && prompt.ends_with(tail));
  assert!(prompt.contains(&format!("Human: {}", texts(&msgs)[0])));
}

#[test]
fn summarize_must_be_the_last_edit() {
  let e = ContextEditor::from_json(&json!({ "edits": [
    { "type": "summarize" }, { "type": "last_n", "n": 3 }
  ] }))
  .unwrap_err();
  assert_eq!(e.kind(), ErrorKind::InvalidOptions);
  assert_eq!(e.path(), Some("edits[0].type"));
  assert!(ContextEditor::from_json(&json!({ "edits": [
    { "type": "last_n", "n": 3 }, { "type": "summarize" }
  ] }))
  .is_ok());
}

#[test]
fn summarize_after_another_edit_sees_its_result() {
  // strip first, then summarize what is left: the replaced set skips what strip removed.
  let msgs = tool_history();
  let (p, out) = run(
    json!({ "edits": [
      { "type": "strip_tool_calls" },
      { "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 2 } },
    ] }),
    &msgs,
  );
  let s = summary(&p);
  assert_eq!(s.replaced, vec![1, 4], "u1 and the stripped text message");
  assert_eq!(texts(&out), vec!["sys", "done", "u2"]);
  assert!(
    !s.prompt.contains("Tool call"),
    "stripped calls are not quoted"
  );
}

#[test]
fn summarize_keeps_the_earlier_edits_of_the_messages_it_replaces() {
  // A summary that is never written (no summarizer, or an empty answer) keeps the replaced
  // messages: they must come back as the earlier edits left them (truncated, cleared), so each
  // replaced message carries its edits before its `remove`.
  let msgs = vec![
    Message::user("read both"),
    ai("", &["c1", "c2"]),
    tool("c1", &"x".repeat(800)),
    tool("c2", &"y".repeat(800)),
    ai("done", &[]),
    Message::user("next"),
  ];
  let (p, out) = run(
    json!({ "edits": [
      { "type": "truncate_tool_results", "maxChars": 100 },
      { "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 1 } },
    ] }),
    &msgs,
  );
  assert_eq!(summary(&p).replaced, vec![0, 1, 2, 3, 4]);
  assert_eq!(texts(&out), vec!["next"]);
  for index in [2, 3] {
    let at: Vec<&Op> = p.ops.iter().filter(|op| op.index() == index).collect();
    assert!(
      matches!(at[..], [Op::TruncateToolResult { .. }, Op::Remove { .. }]),
      "message {index}: {at:?}"
    );
  }
  // Without the summary's removals, the plan is the truncation alone.
  let kept = EditPlan {
    ops: p
      .ops
      .iter()
      .filter(|op| !matches!(op, Op::Remove { .. }))
      .cloned()
      .collect(),
    summary: None,
    report: p.report.clone(),
  };
  let without = kept.apply(&msgs);
  assert_eq!(without.len(), msgs.len());
  for (index, head) in [(2, 'x'), (3, 'y')] {
    let text = texts(&without)[index];
    assert!(
      text.starts_with(head)
        && text.ends_with("characters truncated]")
        && text.chars().count() <= 100,
      "{text:?}"
    );
  }
}

#[test]
fn summarize_walks_back_past_a_pair_that_spans_the_conversation() {
  // A call answered only at the very end (a long-running tool): every cutoff after the call would
  // separate it from its result, so the cut walks back to the call, and here nothing is left to
  // summarize before it. 40,000 messages: the walk is linear (it used to rescan the whole
  // conversation at every step).
  let mut msgs = vec![
    Message::user("start"),
    ai("", &["late"]),
    Message::user("q"),
  ];
  for k in 0..20_000 {
    msgs.push(ai(&format!("a{k}"), &[]));
    msgs.push(Message::user(format!("u{k}")));
  }
  msgs.push(tool("late", "finally"));
  let options =
    one(json!({ "type": "summarize", "trigger": { "messages": 1 }, "keep": { "messages": 6 } }));
  let (p, out) = run(options.clone(), &msgs);
  assert_eq!(summary(&p).replaced, vec![0], "only what precedes the call");
  assert_eq!(out.len(), msgs.len() - 1);
  // Without the spanning result, the usual tail of 6 is kept.
  msgs.pop();
  let (p, _) = run(options, &msgs);
  assert_eq!(summary(&p).replaced.len(), msgs.len() - 6);
}
