//! A call's usage anchor and correction (`Context::anchor`, `Context::correction`): the request is
//! counted as the provider's reported size through the anchored message plus the counted size of what
//! follows, and totals are multiplied by a learned correction; triggers, reports and what edits free
//! follow from that total. Per-message counts are never adjusted.

use context_editor_core::{validate_context, Context, ContextEditor, ErrorKind};
use serde_json::json;

// `editor` there takes its options by value, as the rule-by-rule crates call it.
#[allow(clippy::needless_pass_by_value)]
#[path = "common/plans.rs"]
mod plans;
use plans::read_history;

fn editor(method: &str, trigger: u64) -> ContextEditor {
  ContextEditor::from_json(&json!({
    "tokenCountMethod": method,
    "trigger": { "tokens": trigger },
    "keep": { "messages": 1 }
  }))
  .unwrap()
}

fn with(anchor: Option<(usize, u64)>, correction: Option<f64>) -> Context {
  Context {
    anchor,
    correction,
    ..Context::default()
  }
}

#[test]
fn anchored_total_is_the_report_plus_what_follows() {
  let messages = read_history(4);
  for method in ["approx", "model", "estimate"] {
    let e = editor(method, 1_000_000_000);
    let counts = e.count_tokens(&messages, &Context::default()).unwrap();
    // The newest assistant message is at index 7; the tool result after it is counted.
    let after: u64 = counts.messages[8..].iter().sum();
    let plan = e.plan(&messages, &with(Some((7, 50_000)), None)).unwrap();
    if method == "approx" {
      // Whole-request rounding (ceil of chars / 4) can differ from per-message rounding by one.
      assert!(
        plan.report.tokens_before.abs_diff(50_000 + after) <= 1,
        "{method}"
      );
    } else {
      assert_eq!(plan.report.tokens_before, 50_000 + after, "{method}");
    }
    let total = e
      .count_tokens(&messages, &with(Some((7, 50_000)), None))
      .unwrap();
    assert_eq!(
      total.total, plan.report.tokens_before,
      "{method}: count_tokens agrees"
    );
    assert_eq!(
      total.messages, counts.messages,
      "{method}: per-message counts are not adjusted"
    );
  }
}

#[test]
fn anchor_past_the_messages_is_ignored() {
  let messages = read_history(2);
  let e = editor("model", 1_000_000_000);
  let plain = e.plan(&messages, &Context::default()).unwrap();
  let past = e.plan(&messages, &with(Some((5, 99_999)), None)).unwrap();
  assert_eq!(past.report.tokens_before, plain.report.tokens_before);
}

#[test]
fn triggers_fire_on_the_anchored_size_and_edits_free_counted_tokens() {
  let messages = read_history(4);
  let e = editor("model", 20_000);
  let plain = e.plan(&messages, &Context::default()).unwrap();
  assert!(
    !plain.report.triggered,
    "{} tokens counted",
    plain.report.tokens_before
  );
  let anchored = e.plan(&messages, &with(Some((7, 30_000)), None)).unwrap();
  assert!(anchored.report.triggered);
  assert!(!anchored.ops.is_empty());
  // What the clearing freed is the same number of counted tokens as without the anchor.
  let unanchored = editor("model", 1)
    .plan(&messages, &Context::default())
    .unwrap();
  assert_eq!(
    anchored.report.tokens_before - anchored.report.tokens_after,
    unanchored.report.tokens_before - unanchored.report.tokens_after
  );
}

#[test]
fn correction_multiplies_totals() {
  let messages = read_history(3);
  let e = editor("model", 1_000_000_000);
  let plain = e
    .count_tokens(&messages, &Context::default())
    .unwrap()
    .total;
  let doubled = e
    .count_tokens(&messages, &with(None, Some(2.0)))
    .unwrap()
    .total;
  assert_eq!(doubled, plain * 2);
  let trigger = editor("model", plain + 1);
  assert!(
    !trigger
      .plan(&messages, &Context::default())
      .unwrap()
      .report
      .triggered
  );
  assert!(
    trigger
      .plan(&messages, &with(None, Some(1.5)))
      .unwrap()
      .report
      .triggered
  );
  let fewer = e
    .count_tokens(&messages, &with(None, Some(0.5)))
    .unwrap()
    .total;
  assert_eq!(fewer, plain.div_ceil(2));
}

#[test]
fn correction_scales_only_what_follows_an_anchor() {
  let messages = read_history(4);
  let e = editor("model", 1_000_000_000);
  let counts = e.count_tokens(&messages, &Context::default()).unwrap();
  let after: u64 = counts.messages[8..].iter().sum();
  let total = e
    .count_tokens(&messages, &with(Some((7, 40_000)), Some(2.0)))
    .unwrap()
    .total;
  assert!(
    total.abs_diff(40_000 + 2 * after) <= 1,
    "{total} vs {}",
    40_000 + 2 * after
  );
}

#[test]
fn bad_corrections_are_invalid_context_and_never_applied() {
  let e = editor("model", 1_000_000_000);
  let messages = read_history(1);
  let plain = e
    .count_tokens(&messages, &Context::default())
    .unwrap()
    .total;
  for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 101.0] {
    let err = validate_context(&with(None, Some(bad))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidContext, "{bad}");
    assert!(err.to_string().contains("tokenCorrection"), "{err}");
    // A caller that skips validation gets the plain count, never a scaled one.
    assert_eq!(
      e.count_tokens(&messages, &with(None, Some(bad)))
        .unwrap()
        .total,
      plain,
      "{bad}"
    );
  }
  assert!(validate_context(&with(Some((0, 10)), Some(1.25))).is_ok());
}
