//! Images counted by their provider's formula: a message's `image_tokens` (computed by the caller
//! from the image sizes: OpenAI's tiles, Anthropic's `w * h / 750`) replaces `images * IMAGE_TOKENS`
//! in every counting mode, and goes with the content when a result is cleared.

use context_editor_core::{Context, ContextEditor, Message, IMAGE_TOKENS};
use serde_json::json;

fn with_images(images: u32, image_tokens: Option<u64>) -> Message {
  let mut m = Message::user("look");
  m.images = images;
  m.image_tokens = image_tokens;
  m
}

#[test]
fn image_tokens_replace_the_constant_in_every_mode() {
  for method in ["model", "approx"] {
    let e = ContextEditor::from_json(&json!({ "tokenCountMethod": method })).unwrap();
    let count = |m: Message| e.count_tokens(&[m], &Context::default()).unwrap().total;
    let base = count(with_images(0, None));
    assert_eq!(count(with_images(1, None)) - base, IMAGE_TOKENS, "{method}");
    assert_eq!(
      count(with_images(2, Some(1105 + 255))) - base,
      1360,
      "{method}"
    );
  }
}

#[test]
fn a_cleared_result_loses_its_image_tokens_and_too_large_a_count_is_refused() {
  let e = ContextEditor::from_json(
    &json!({ "trigger": { "tokens": 1 }, "keep": { "messages": 0 }, "tokenCountMethod": "model" }),
  )
  .unwrap();
  let mut result = Message::tool("c1", "screenshot", "");
  result.images = 1;
  result.image_tokens = Some(1366);
  let msgs = vec![
    Message::user("go"),
    Message::assistant("", &[("c1", "screenshot", "{}")]),
    result,
  ];
  let plan = e.plan(&msgs, &Context::default()).unwrap();
  let out = plan.apply(&msgs);
  assert_eq!(out[2].image_tokens, None);
  assert_eq!(
    e.count_tokens(&out, &Context::default()).unwrap().total,
    plan.report.tokens_after
  );
  assert!(plan.report.tokens_before - plan.report.tokens_after >= 1366 - 10);
  let mut huge = with_images(1, Some(u64::from(u32::MAX) + 1));
  huge.images = 1;
  let err = e.count_tokens(&[huge], &Context::default()).unwrap_err();
  assert_eq!(err.path(), Some("imageTokens"));
}
