//! What the token counts count: §2.7 approx counting, the system prompt and tools (a deliberate
//! difference from LangChain), §7.3 the per-result keep budget, model-mode counts pinned for
//! `o200k_base` and `cl100k_base`, and counts supplied by the caller.

use super::*;

// ---------------------------------------------------------------------------------------------
// §2.7 Approx counting

#[test]
fn rule_2_7_approx_is_ceil_of_total_chars_over_four() {
  // Over the whole request, not a sum of per-message ceilings.
  let msgs = vec![Message::user("a"), Message::user("b"), Message::user("c")];
  let c = ContextEditor::default()
    .count_tokens(&msgs, &Context::default())
    .unwrap();
  assert_eq!(c.total, 1);
  assert_eq!(c.messages, vec![1, 1, 1]);
  assert_eq!(c.method, "approx");
  assert_eq!(
    c.encoding,
    Some("o200k_base"),
    "the resolved encoding, as the README lists it"
  );
  assert_eq!(approx(&[Message::user("x".repeat(8))]), 2);
  assert_eq!(approx(&[Message::user("x".repeat(9))]), 3);
  assert_eq!(approx(&[]), 0);
  assert_eq!(approx(&[Message::user("")]), 0);
}

#[test]
fn rule_2_7_approx_counts_utf16_code_units() {
  // 5 emoji: 5 chars, 20 UTF-8 bytes, 10 UTF-16 code units → ceil(10 / 4) = 3.
  assert_eq!(approx(&[Message::user("😀".repeat(5))]), 3);
  // BMP CJK: one unit each.
  assert_eq!(approx(&[Message::user("日本語テキスト")]), 2);
  let mut m = Message::user("");
  m.content = None;
  m.content_length = Some(13);
  assert_eq!(approx(&[m]), 4, "contentLength stands in for content");
}

#[test]
fn rule_2_7_approx_counts_tool_calls_json() {
  let ai = Message::assistant("hi", &[("c1", "search", r#"{"q":"x"}"#)]);
  let json = r#"[{"id":"c1","name":"search","args":{"q":"x"}}]"#;
  let chars = 2 + json.len() as u64;
  assert_eq!(approx(std::slice::from_ref(&ai)), chars.div_ceil(4));
  // Two calls: comma-separated in one array.
  let ai2 = Message::assistant("", &[("c1", "a", "{}"), ("c2", "b", "{}")]);
  let json2 = r#"[{"id":"c1","name":"a","args":{}},{"id":"c2","name":"b","args":{}}]"#;
  assert_eq!(approx(&[ai2]), (json2.len() as u64).div_ceil(4));
  // The caller's exact serialization length wins (LangChain's calls also carry `"type":"tool_call"`).
  let mut exact = ai.clone();
  exact.tool_calls_length = Some(101);
  assert_eq!(approx(&[exact]), (2u64 + 101).div_ceil(4));
  // Args given only by length.
  let mut by_len = ai;
  by_len.tool_calls[0] = ToolCall {
    id: "c1".into(),
    name: "search".into(),
    args: None,
    args_length: Some(9),
  };
  assert_eq!(approx(&[by_len]), chars.div_ceil(4));
}

#[test]
fn rule_2_7_approx_counts_tool_call_id_but_not_names() {
  // "out" + "call_abc" = 11 chars → 3 tokens.
  assert_eq!(approx(&[Message::tool("call_abc", "search", "out")]), 3);
  assert_eq!(approx(&[Message::tool("call_abc", "", "out")]), 3);
  let mut named = Message::user("x".repeat(8));
  named.name = Some("a_very_long_user_name".into());
  assert_eq!(approx(&[named]), 2);
}

#[test]
fn rule_2_7_non_text_blocks_count() {
  // Deliberate difference (§7.9): serialized non-text blocks and images count.
  let mut m = Message::tool("c", "t", "");
  m.other = Some("y".repeat(399));
  assert_eq!(approx(&[m.clone()]), 100);
  m.other = None;
  m.images = 2;
  assert_eq!(approx(&[m]), 2 * IMAGE_TOKENS + 1);
}

// ---------------------------------------------------------------------------------------------
// Deliberate difference: system prompt and tools count

#[test]
fn system_prompt_and_tools_count_toward_trigger() {
  let (msgs, r) = uniform(3, 40);
  let t = approx(&msgs);
  let system = "s".repeat(400);
  let tool = r#"{"type":"function","function":{"name":"search","parameters":{}}}"#;
  let context = Context {
    system_prompt: Some(system.clone()),
    tools: vec![tool.to_owned()],
    ..Context::default()
  };
  let e = editor(json!({ "trigger": { "tokens": t + 50 }, "keep": { "messages": 1 } }));
  assert!(
    !plan(&e, &msgs).report.triggered,
    "messages alone are under"
  );
  let p = plan_in(&e, &msgs, &context);
  assert!(
    p.report.triggered,
    "the model sees the system prompt and tools"
  );
  assert_eq!(cleared(&p), r[..2].to_vec());
  let c = e.count_tokens(&msgs, &context).unwrap();
  let fixed_chars = 400 + tool.len() as u64;
  assert_eq!(c.fixed, fixed_chars.div_ceil(4));
  assert!(c.total >= t + 400 / 4);
  assert_eq!(p.report.tokens_before, c.total);
}

#[test]
fn system_prompt_and_tools_count_in_model_mode() {
  let e = editor(json!({ "tokenCountMethod": "model" }));
  let msgs = vec![Message::user("hello world")];
  let tool = r#"{"name":"search"}"#;
  let context = Context {
    system_prompt: Some("You are a helpful assistant.".into()),
    tools: vec![tool.into()],
    ..Context::default()
  };
  let c = e.count_tokens(&msgs, &context).unwrap();
  // system: 3 framing + 1 role + 6 text; tool: its JSON tokens + 3.
  let tool_tokens = context_editor_core::Encoding::O200kBase.count(tool);
  assert_eq!(
    c.fixed,
    MESSAGE_OVERHEAD + 1 + 6 + tool_tokens + TOOL_DEFINITION_OVERHEAD
  );
  assert_eq!(c.total, c.fixed + 6 + REPLY_PRIMING);
}

// ---------------------------------------------------------------------------------------------
// §7.3 per-result keep budget counts the result alone (model mode)

#[test]
fn defect_7_3_keep_tokens_budget_ignores_system_prompt_in_model_mode() {
  let e = editor(
    json!({ "tokenCountMethod": "model", "trigger": { "messages": 1 }, "keep": { "tokens": 0 } }),
  );
  let (msgs, r) = uniform(5, 60);
  let context = Context {
    system_prompt: Some("You are a careful agent. ".repeat(200)),
    ..Context::default()
  };
  let per = e.count_tokens(&msgs, &context).unwrap().messages;
  let budget = per[r[2]] + per[r[3]] + per[r[4]];
  assert!(e.count_tokens(&msgs, &context).unwrap().fixed > budget * 5);
  let e = editor(
    json!({ "tokenCountMethod": "model", "trigger": { "messages": 1 }, "keep": { "tokens": budget } }),
  );
  let p = plan_in(&e, &msgs, &context);
  assert_eq!(cleared(&p), r[..2].to_vec(), "3 of 3 kept, not 0 of 3");
  let e = editor(
    json!({ "tokenCountMethod": "model", "trigger": { "messages": 1 }, "keep": { "tokens": budget - 1 } }),
  );
  assert_eq!(cleared(&plan_in(&e, &msgs, &context)), r[..3].to_vec());
}

// ---------------------------------------------------------------------------------------------
// Model-mode token counts pinned (o200k_base, cl100k_base)

/// A short weather-agent exchange; literal per-piece counts below were cross-checked with the
/// `tiktoken` npm package (OpenAI's tiktoken compiled to WASM), independent of `tiktoken-rs`.
fn weather() -> Vec<Message> {
  vec![
    Message::system("You are a helpful assistant."),
    Message::user("What is the weather in Paris today?"),
    Message::assistant(
      "I will check.",
      &[(
        "call_1",
        "get_weather",
        r#"{"city":"Paris","unit":"celsius"}"#,
      )],
    ),
    Message::tool(
      "call_1",
      "get_weather",
      "Sunny, 24°C, light wind from the west. 日本語のテキスト 😀",
    ),
  ]
}

#[test]
fn model_counts_pinned_o200k_base() {
  let e = editor(json!({ "tokenCountMethod": "model", "encoding": "o200k_base" }));
  let c = e.count_tokens(&weather(), &Context::default()).unwrap();
  // Pieces (o200k_base): role names 1 each; "You are a helpful assistant." 6;
  // "What is the weather in Paris today?" 8; "I will check." 4; "get_weather" 2;
  // the args JSON 10; the result text 19.
  let m = MESSAGE_OVERHEAD;
  let expected = [
    m + 1 + 6,
    m + 1 + 8,
    m + 1 + 4 + TOOL_CALL_OVERHEAD + 2 + 10,
    m + 1 + 19 + NAME_OVERHEAD + 2,
  ];
  assert_eq!(c.messages, expected);
  assert_eq!(c.messages, [10, 12, 21, 26]);
  assert_eq!(c.total, 10 + 12 + 21 + 26 + REPLY_PRIMING);
  assert_eq!(c.total, 72);
  assert_eq!((c.method, c.encoding), ("model", Some("o200k_base")));
  // The model name alone picks the same encoding.
  let gpt4o = Context {
    model: Some("gpt-4o".into()),
    ..Context::default()
  };
  let by_model = editor(json!({ "tokenCountMethod": "model" }));
  assert_eq!(by_model.count_tokens(&weather(), &gpt4o).unwrap().total, 72);
}

#[test]
fn model_counts_pinned_cl100k_base() {
  let e = editor(json!({ "tokenCountMethod": "model", "encoding": "cl100k_base" }));
  let c = e.count_tokens(&weather(), &Context::default()).unwrap();
  // Same pieces in cl100k_base except the result text: 22 tokens.
  assert_eq!(c.messages, [10, 12, 21, 29]);
  assert_eq!(c.total, 75);
  let gpt4 = Context {
    model: Some("gpt-4".into()),
    ..Context::default()
  };
  assert_eq!(
    editor(json!({ "tokenCountMethod": "model" }))
      .count_tokens(&weather(), &gpt4)
      .unwrap()
      .total,
    75
  );
}

#[test]
fn model_counts_pinned_after_clearing() {
  // Clearing the result and its call's inputs, in exact tokens: "[cleared]" is 4 tokens, "{}" 1.
  let e = editor(json!({
    "tokenCountMethod": "model", "encoding": "o200k_base",
    "trigger": { "messages": 1 }, "keep": { "messages": 0 }, "clearToolInputs": true
  }));
  let p = plan(&e, &weather());
  assert_eq!(p.report.tokens_before, 72);
  // result: 3 + 1 + 4 + 1 + 2 = 11 (was 26); call args: 10 → 1.
  assert_eq!(p.report.tokens_after, 72 - (26 - 11) - (10 - 1));
  assert_eq!(p.report.tokens_after, 48);
  assert_eq!(p.report.cleared[0].tokens_freed, 24);
  let c = e
    .count_tokens(&p.apply(&weather()), &Context::default())
    .unwrap();
  assert_eq!(c.messages, [10, 12, 12, 11]);
}

#[test]
fn model_counts_arguments_of_tool_calls() {
  // §7.4: tool-call arguments count in full (LangChain's counter counted 26 KB of them as 7 tokens).
  let e = editor(json!({ "tokenCountMethod": "model" }));
  let big = format!(r#"{{"text":"{}"}}"#, "lorem ipsum ".repeat(2000));
  let msgs = vec![Message::assistant("", &[("c", "write", big.as_str())])];
  let c = e.count_tokens(&msgs, &Context::default()).unwrap();
  assert!(c.messages[0] > 4000, "{}", c.messages[0]);
}

// ---------------------------------------------------------------------------------------------
// Caller-supplied counts (the host's own counter, like LangChain's `tokenCounter`)

#[test]
fn caller_supplied_counts_replace_counting() {
  for method in ["approx", "model"] {
    let (mut msgs, r) = uniform(3, 10);
    // The host says the first result is 1,000 tokens; the editor believes it.
    msgs[r[0]].tokens = Some(1000);
    let e = editor(
      json!({ "tokenCountMethod": method, "trigger": { "tokens": 1000 }, "keep": { "messages": 2 } }),
    );
    let c = e.count_tokens(&msgs, &Context::default()).unwrap();
    assert_eq!(c.messages[r[0]], 1000, "{method}");
    let p = plan(&e, &msgs);
    assert!(p.report.triggered, "{method}");
    assert_eq!(cleared(&p), vec![r[0]]);
    // Once cleared, the result is measured again (the supplied count described the old content).
    assert!(p.report.cleared[0].tokens_freed >= 990, "{method}");
    assert!(p.report.tokens_after < 100, "{method}");
  }
}

#[test]
fn report_names_the_encoding_in_every_counting_mode_and_on_every_path() {
  // The README lists `encoding` in every report: the encoding resolved for the call (`encoding`,
  // else the model's, else o200k_base), approx mode included; plans, sessions and counts agree.
  let msgs = vec![Message::user("hello"), Message::assistant("hi", &[])];
  let gpt4 = Context {
    model: Some("gpt-4".into()),
    ..Context::default()
  };
  for method in ["approx", "model", "estimate"] {
    let cases = [
      (
        json!({ "tokenCountMethod": method }),
        Context::default(),
        "o200k_base",
      ),
      (
        json!({ "tokenCountMethod": method }),
        gpt4.clone(),
        "cl100k_base",
      ),
      (
        json!({ "tokenCountMethod": method, "encoding": "p50k_base" }),
        gpt4.clone(),
        "p50k_base",
      ),
    ];
    for (options, ctx, want) in cases {
      let e = editor(options);
      let at = format!("{method}, model {:?}", ctx.model);
      assert_eq!(
        plan_in(&e, &msgs, &ctx).report.encoding,
        Some(want),
        "plan: {at}"
      );
      assert_eq!(
        e.count_tokens(&msgs, &ctx).unwrap().encoding,
        Some(want),
        "count: {at}"
      );
      let first = e
        .plan_session(7, 0, msgs.clone(), &ctx)
        .unwrap()
        .expect("new session");
      assert_eq!(first.report.encoding, Some(want), "session: {at}");
      let next = e
        .plan_session(7, msgs.len(), vec![Message::user("more")], &ctx)
        .unwrap()
        .expect("held session");
      assert_eq!(next.report.encoding, Some(want), "session, next call: {at}");
    }
  }
}
