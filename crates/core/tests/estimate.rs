//! Issue 8: `tokenCountMethod: "estimate"`, a script-aware estimate of exact BPE counts.
//!
//! The samples in `tools/estimator/samples/` are held-out messages (never used for calibration) of
//! each class. The pinned values make a change of rates or run rules a deliberate act: rerun
//! `tools/estimator` (see its README), then update the table below from the failure message.

// Statistics over sample counts: the counts are small, the float conversions exact.
#![allow(
  clippy::cast_possible_truncation,
  clippy::cast_possible_wrap,
  clippy::cast_precision_loss
)]

use context_editor_core::{
  estimate_tokens, Context, ContextEditor, Encoding, Features, Message, MESSAGE_OVERHEAD,
  NAME_OVERHEAD, REPLY_PRIMING, TOOL_CALL_OVERHEAD,
};
use serde_json::json;

macro_rules! sample {
  ($name:literal) => {
    (
      $name,
      include_str!(concat!("../../../tools/estimator/samples/", $name, ".txt")),
    )
  };
}

const SAMPLES: [(&str, &str); 10] = [
  sample!("english"),
  sample!("code"),
  sample!("json"),
  sample!("chinese"),
  sample!("japanese"),
  sample!("mixed-zh-en"),
  sample!("logs"),
  sample!("logs-app"),
  sample!("korean"),
  sample!("symbols"),
];

/// Sample → (`o200k_base` estimate, `cl100k_base` estimate).
const PINNED: [(&str, u64, u64); 10] = [
  ("english", 381, 381),
  ("code", 590, 588),
  ("json", 908, 900),
  ("chinese", 1430, 1787),
  ("japanese", 838, 1057),
  ("mixed-zh-en", 451, 486),
  ("logs", 697, 697),
  ("logs-app", 1142, 1138),
  ("korean", 1155, 1589),
  ("symbols", 637, 711),
];

fn chars_over_4(text: &str) -> u64 {
  (text.encode_utf16().count() as u64).div_ceil(4)
}

fn error(estimate: u64, exact: u64) -> f64 {
  (estimate as f64 - exact as f64) / exact as f64
}

#[test]
fn pinned_estimates_per_class() {
  let actual: Vec<(&str, u64, u64)> = SAMPLES
    .iter()
    .map(|(name, text)| {
      (
        *name,
        estimate_tokens(text, Encoding::O200kBase),
        estimate_tokens(text, Encoding::Cl100kBase),
      )
    })
    .collect();
  assert_eq!(
    actual, PINNED,
    "estimates changed; if the rates changed on purpose, paste:\n{actual:#?}"
  );
}

#[test]
fn held_out_samples_within_ten_percent_of_exact() {
  for (name, text) in SAMPLES {
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
      let exact = encoding.count(text);
      let e = error(estimate_tokens(text, encoding), exact);
      assert!(
        e.abs() <= 0.10,
        "{name} in {}: estimate off by {:+.1} % of {exact}",
        encoding.as_str(),
        e * 100.0
      );
    }
  }
}

#[test]
fn chars_over_four_undercounts_cjk_where_the_estimate_does_not() {
  for name in ["chinese", "japanese", "mixed-zh-en", "korean"] {
    let text = SAMPLES.iter().find(|(n, _)| *n == name).unwrap().1;
    let exact = Encoding::O200kBase.count(text);
    assert!(
      error(chars_over_4(text), exact) < -0.15,
      "{name}: chars/4 = {} vs exact {exact}",
      chars_over_4(text)
    );
    assert!(error(estimate_tokens(text, Encoding::O200kBase), exact).abs() < 0.10);
  }
}

#[test]
fn o200k_harmony_uses_o200k_rates_and_older_encodings_cl100k_rates() {
  let text = SAMPLES[3].1;
  assert_eq!(
    estimate_tokens(text, Encoding::O200kHarmony),
    estimate_tokens(text, Encoding::O200kBase)
  );
  assert_eq!(
    estimate_tokens(text, Encoding::R50kBase),
    estimate_tokens(text, Encoding::Cl100kBase)
  );
}

#[test]
fn small_strings() {
  for (text, expected) in [
    ("", 0),
    ("a", 1),
    ("{}", 1),
    ("hello world", 2),
    ("中文", 2),
  ] {
    assert_eq!(
      estimate_tokens(text, Encoding::O200kBase),
      expected,
      "{text:?}"
    );
  }
}

#[test]
fn features_are_additive_over_independent_parts() {
  let (a, b) = (SAMPLES[0].1, SAMPLES[3].1);
  let mut sum = Features::of(a);
  sum.add(&Features::of(b));
  // A line break between the parts keeps every run of one inside it.
  let joined = Features::of(&format!("{a}\n{b}"));
  let diff: i64 = sum
    .to_array()
    .iter()
    .zip(joined.to_array())
    .map(|(x, y)| (*x as i64 - y as i64).abs())
    .sum();
  assert!(diff <= 2, "{sum:?} vs {joined:?}");
}

fn chinese_chat() -> Vec<Message> {
  let zh = SAMPLES[3].1;
  let mixed = SAMPLES[5].1;
  vec![
    Message::user("请帮我查一下 ac 命令的用法"),
    Message::assistant("", &[("c1", "read_man", r#"{"page":"ac"}"#)]),
    Message::tool("c1", "read_man", zh),
    Message::assistant("", &[("c2", "read_man", r#"{"page":"bash"}"#)]),
    Message::tool("c2", "read_man", mixed),
    Message::assistant(mixed, &[]),
  ]
}

#[test]
fn count_tokens_reports_method_and_encoding() {
  let editor = ContextEditor::from_json(&json!({ "tokenCountMethod": "estimate" })).unwrap();
  let count = editor
    .count_tokens(&chinese_chat(), &Context::default())
    .unwrap();
  assert_eq!(count.method, "estimate");
  assert_eq!(count.encoding, Some("o200k_base"));
  let ctx = Context {
    model: Some("gpt-4".into()),
    ..Context::default()
  };
  let count = editor.count_tokens(&chinese_chat(), &ctx).unwrap();
  assert_eq!(count.encoding, Some("cl100k_base"));
  let ctx = Context {
    model: Some("mystery-model-7b".into()),
    ..Context::default()
  };
  let count = editor.count_tokens(&chinese_chat(), &ctx).unwrap();
  assert_eq!(count.encoding, Some("o200k_base"));
  assert_eq!(count.warnings[0].code, "unknown_model");
}

#[test]
fn estimate_mode_uses_model_mode_framing() {
  let estimate = ContextEditor::from_json(&json!({ "tokenCountMethod": "estimate" })).unwrap();
  let model = ContextEditor::from_json(&json!({ "tokenCountMethod": "model" })).unwrap();
  let msgs = chinese_chat();
  let e = estimate.count_tokens(&msgs, &Context::default()).unwrap();
  let m = model.count_tokens(&msgs, &Context::default()).unwrap();
  // Per message: the estimate of each string plus the same framing as model mode.
  let tool = estimate_tokens(SAMPLES[3].1, Encoding::O200kBase);
  let name = NAME_OVERHEAD + estimate_tokens("read_man", Encoding::O200kBase);
  assert_eq!(e.messages[2], MESSAGE_OVERHEAD + 1 + tool + name);
  let call = MESSAGE_OVERHEAD
    + 1
    + TOOL_CALL_OVERHEAD
    + estimate_tokens("read_man", Encoding::O200kBase)
    + estimate_tokens(r#"{"page":"ac"}"#, Encoding::O200kBase);
  assert_eq!(e.messages[1], call);
  assert_eq!(e.total, e.messages.iter().sum::<u64>() + REPLY_PRIMING);
  // And the request total lands within 10 % of the exact count.
  assert!(
    error(e.total, m.total).abs() <= 0.10,
    "{} vs {}",
    e.total,
    m.total
  );
  // chars/4 (approx mode) is far below it.
  let a = ContextEditor::default()
    .count_tokens(&msgs, &Context::default())
    .unwrap();
  assert!(
    error(a.total, m.total) < -0.25,
    "{} vs {}",
    a.total,
    m.total
  );
}

#[test]
fn estimate_mode_triggers_where_approx_mode_fires_too_late() {
  let msgs = chinese_chat();
  let exact = ContextEditor::from_json(&json!({ "tokenCountMethod": "model" }))
    .unwrap()
    .count_tokens(&msgs, &Context::default())
    .unwrap()
    .total;
  // A trigger 10 % below the real size: the estimate fires, chars/4 does not.
  let trigger = exact * 9 / 10;
  let run = |method: &str| {
    ContextEditor::from_json(&json!({
      "tokenCountMethod": method,
      "trigger": { "tokens": trigger },
      "keep": { "messages": 1 },
    }))
    .unwrap()
    .plan(&msgs, &Context::default())
    .unwrap()
    .report
  };
  let estimate = run("estimate");
  assert!(estimate.triggered);
  assert_eq!(estimate.token_count_method, "estimate");
  assert_eq!(estimate.encoding, Some("o200k_base"));
  assert_eq!(estimate.cleared.len(), 1);
  assert!(estimate.tokens_after < estimate.tokens_before);
  assert!(!run("approx").triggered);
}

#[test]
fn arbitrary_text_never_panics_and_stays_in_bounds() {
  // Deterministic xorshift over characters of every class, including 4-byte ones and controls.
  let pool: Vec<char> =
    "aZ09 _-.,;:(){}[]\"'\t\n\r\u{0}\u{7f}\u{a0}é߷中の한テ，。“”🚀\u{fe0f}\u{10ffff}\u{200b}"
      .chars()
      .collect();
  let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
  let mut next = || {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    seed
  };
  for _ in 0..20_000 {
    let len = (next() % 80) as usize;
    let text: String = (0..len)
      .map(|_| pool[(next() % pool.len() as u64) as usize])
      .collect();
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
      let e = estimate_tokens(&text, encoding);
      if text.is_empty() {
        assert_eq!(e, 0);
      } else {
        // At least one token, and at most two per UTF-8 byte (exact BPE never exceeds one).
        assert!(e >= 1 && e <= 2 * text.len() as u64, "{text:?}: {e} tokens");
      }
    }
  }
}
