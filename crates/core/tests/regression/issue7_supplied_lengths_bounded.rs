//! Sizes a caller supplies instead of text (`content_length`, `other_length`, `tool_calls_length`,
//! `args_length`, `tokens`) were summed unchecked: two messages with `content_length = u64::MAX`
//! overflowed the request total (a panic in debug builds, a wrapped total in release). The binding
//! only ever sends 32-bit values; larger ones are now an `INVALID_MESSAGE` naming the field, so
//! no sum over a conversation can overflow.

use context_editor_core::{Context, ContextEditor, ErrorKind, Message, ToolCall};

fn sized(f: impl FnOnce(&mut Message)) -> Message {
  let mut m = Message::user("");
  m.content = None;
  f(&mut m);
  m
}

#[test]
fn lengths_above_32_bits_are_invalid_messages_naming_the_field() {
  let editor = ContextEditor::default();
  let cases: Vec<(Message, &str)> = vec![
    (
      sized(|m| m.content_length = Some(u64::MAX)),
      "contentLength",
    ),
    (sized(|m| m.other_length = Some(1 << 40)), "otherLength"),
    (
      sized(|m| m.tokens = Some(u64::from(u32::MAX) + 1)),
      "tokens",
    ),
    (
      {
        let mut m = Message::assistant("", &[]);
        m.tool_calls = vec![ToolCall {
          id: "a".into(),
          args_length: Some(u64::MAX),
          ..ToolCall::default()
        }];
        m
      },
      "toolCalls[0].argsLength",
    ),
    (
      {
        let mut m = Message::assistant("", &[("a", "t", "{}")]);
        m.tool_calls_length = Some(u64::MAX);
        m
      },
      "toolCallsLength",
    ),
  ];
  for (m, field) in cases {
    let history = vec![Message::user("hi"), m];
    for result in [
      editor.plan(&history, &Context::default()).map(|_| ()),
      editor
        .count_tokens(&history, &Context::default())
        .map(|_| ()),
    ] {
      let e = result.unwrap_err();
      assert_eq!(e.kind(), ErrorKind::InvalidMessage, "{field}: {e}");
      assert_eq!(e.message_index(), Some(1));
      assert_eq!(e.path(), Some(field));
      assert!(
        e.to_string().starts_with(&format!("messages[1].{field}: ")),
        "{e}"
      );
    }
  }
}

#[test]
fn the_largest_32_bit_lengths_still_sum_without_overflow() {
  let editor = ContextEditor::default();
  let big = sized(|m| m.content_length = Some(u64::from(u32::MAX)));
  let history = vec![big.clone(), big.clone(), big];
  let count = editor.count_tokens(&history, &Context::default()).unwrap();
  assert!(
    count.total >= 3 * u64::from(u32::MAX) / 4,
    "{}",
    count.total
  );
}
