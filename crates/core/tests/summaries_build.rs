//! Summaries that build on each other (issue 18): when the conversation already starts with a
//! summary this edit wrote, the next summary's prompt carries that summary once, apart, and only
//! the messages after it; no message is rendered twice. Driven over many turns, as an agent would:
//! each plan's summary is written back into the history before the next turns are appended.

use context_editor_core::{
  Context, ContextEditor, EditPlan, Message, Op, Role, DEFAULT_SUMMARY_PREFIX,
};
use serde_json::json;

fn editor(keep: u64, trigger: u64) -> ContextEditor {
  ContextEditor::from_json(&json!({ "edits": [{
    "type": "summarize", "trigger": { "messages": trigger }, "keep": { "messages": keep },
    "summaryPrompt": "S:{messages}", "trimTokensToSummarize": 0,
  }] }))
  .expect("valid options")
}

/// The history after the plan with the summary written where the request says.
fn written(plan: &EditPlan, msgs: &[Message], text: &str) -> Vec<Message> {
  let s = plan.summary.as_ref().expect("a summary request");
  let removed: Vec<usize> = plan
    .ops
    .iter()
    .filter_map(|op| match op {
      Op::Remove { index } => Some(*index),
      _ => None,
    })
    .collect();
  let at = (0..s.insert_at).filter(|i| !removed.contains(i)).count();
  let mut out = plan.apply(msgs);
  out.insert(at, Message::new(s.role, format!("{}\n\n{text}", s.prefix)));
  out
}

#[test]
fn the_second_prompt_holds_the_previous_summary_once_and_each_message_once() {
  let e = editor(2, 6);
  let ctx = Context::default();
  let mut history = vec![Message::system("sys")];
  let mut summaries = 0;
  for turn in 0..40 {
    history.push(Message::user(format!("question-{turn}")));
    history.push(Message::assistant(format!("answer-{turn}"), &[]));
    let plan = e.plan(&history, &ctx).expect("plan");
    let Some(req) = &plan.summary else { continue };
    let prompt = &req.prompt;
    for k in 0..=turn {
      for word in [format!("question-{k}"), format!("answer-{k}")] {
        // `question-1` is a prefix of `question-10`: count whole lines.
        let lines = prompt
          .lines()
          .filter(|l| l.ends_with(&format!(": {word}")))
          .count();
        assert!(lines <= 1, "{word} rendered {lines} times in {prompt}");
      }
    }
    if summaries > 0 {
      let previous = format!("summary-{}", summaries - 1);
      assert_eq!(prompt.matches(&previous).count(), 1, "{prompt}");
      assert!(prompt.contains("<previous_summary>\nsummary-"), "{prompt}");
      // The summary is not rendered as a message to summarize.
      assert!(!prompt.contains(DEFAULT_SUMMARY_PREFIX), "{prompt}");
      // Only the messages after it are.
      let rendered: Vec<&str> = prompt
        .lines()
        .filter(|l| l.starts_with("Human: "))
        .collect();
      assert!(!rendered.is_empty());
    } else {
      assert!(!prompt.contains("<previous_summary>"));
    }
    history = written(&plan, &history, &format!("summary-{summaries}"));
    summaries += 1;
  }
  assert!(summaries >= 5, "the trigger fired {summaries} times");
}

#[test]
fn only_the_previous_summary_before_the_cutoff_writes_nothing() {
  let e = editor(4, 2);
  let history = vec![
    Message::user(format!("{DEFAULT_SUMMARY_PREFIX}\n\nearlier")),
    Message::user("q1"),
    Message::assistant("a1", &[]),
    Message::user("q2"),
    Message::assistant("a2", &[]),
  ];
  let plan = e.plan(&history, &Context::default()).expect("plan");
  assert!(plan.summary.is_none());
  assert!(plan.ops.is_empty());
}

#[test]
fn an_assistant_summary_builds_on_too_and_counts_in_summarized() {
  let e = ContextEditor::from_json(&json!({ "edits": [{
    "type": "summarize", "trigger": { "messages": 3 }, "keep": { "messages": 1 },
    "summaryRole": "assistant", "summaryPrefix": "Summary:", "summaryPrompt": "{messages}",
  }] }))
  .unwrap();
  let history = vec![
    Message::system("sys"),
    Message::assistant("Summary:\n\nthe plan so far", &[]),
    Message::user("next step"),
    Message::assistant("done", &[]),
  ];
  let plan = e.plan(&history, &Context::default()).unwrap();
  let req = plan.summary.as_ref().unwrap();
  assert_eq!(req.role, Role::Assistant);
  assert_eq!(req.replaced, vec![1, 2]);
  assert_eq!(req.summarized, vec![1, 2]);
  assert_eq!(
    req.prompt,
    "<previous_summary>\nthe plan so far\n</previous_summary>\nNew messages since that summary; write one updated summary that keeps what still matters from it and folds these in:\nHuman: next step"
  );
}

#[test]
fn a_message_that_only_looks_like_a_summary_with_another_prefix_is_summarized_as_a_message() {
  let e = editor(1, 3);
  let history = vec![
    Message::user("Summary:\n\nnot ours"),
    Message::user("q"),
    Message::assistant("a", &[]),
  ];
  let plan = e.plan(&history, &Context::default()).unwrap();
  let req = plan.summary.as_ref().unwrap();
  assert_eq!(req.prompt, "S:Human: Summary:\n\nnot ours\nHuman: q");
}
