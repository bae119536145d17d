//! The JSON entry point: arbitrary bytes -> `serde_json` -> `Options::from_json`, wire `Message`s
//! (the core's `serde` feature) and a call context -> `plan` + `count_tokens` + `EditPlan::apply`,
//! with the invariants of `context_editor_fuzz::check_call`.
//!
//! Input shape (anything else still exercises the option parser):
//! `{"options": {...}, "messages": [{"role": "...", ...}], "context": {"maxInputTokens": 1000, ...}}`
#![no_main]

use context_editor_core::{ContextEditor, ErrorKind, Message, Options};
use context_editor_fuzz::{check_call, context_from_json, self_describing};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
  let Ok(value) = serde_json::from_slice::<Value>(data) else {
    return;
  };

  // Any JSON value as options: either parsed or rejected with a path.
  check_options(&value);

  let Value::Object(obj) = &value else {
    return;
  };
  let options = obj.get("options").unwrap_or(&Value::Null);
  let Some(options) = check_options(options) else {
    return;
  };
  let Some(messages) = obj.get("messages") else {
    return;
  };
  let Ok(messages) = serde_json::from_value::<Vec<Message>>(messages.clone()) else {
    return;
  };
  let Some(context) = context_from_json(obj.get("context")) else {
    return;
  };
  let editor = ContextEditor::new(options);
  check_call(&editor, &messages, &context, self_describing(&messages));
});

fn check_options(value: &Value) -> Option<Options> {
  match Options::from_json(value) {
    Ok(options) => {
      assert!(!options.edits.is_empty() || value.get("edits").is_some());
      Some(options)
    }
    Err(e) => {
      assert!(
        matches!(
          e.kind(),
          ErrorKind::InvalidOptions | ErrorKind::UnknownEncoding
        ),
        "options rejected with an undocumented kind: {e:?}"
      );
      assert!(e.path().is_some(), "option error without a path: {e}");
      assert!(e.message_index().is_none());
      None
    }
  }
}
