//! Messages and the request context in wire form, and their checked conversion to the core's types.
//!
//! Numbers arrive as JavaScript doubles; every length and count is checked here (with the message
//! index and field in the error) instead of letting napi's `u32` conversion wrap or zero them.

use context_editor_core as core;
use napi_derive::napi;

use crate::error::CoreResult;

/// One tool call of an assistant message.
#[napi(object)]
#[derive(Default)]
pub struct ToolCall {
  pub id: String,
  pub name: Option<String>,
  /// Arguments as JSON text (`JSON.stringify(args)`); needed for exact counting.
  pub args: Option<String>,
  /// UTF-16 length of the arguments JSON, when `args` is not sent.
  pub args_length: Option<f64>,
}

/// One message in wire form. Send `content` for exact counting, or only `contentLength` (UTF-16
/// code units) when counting approximately.
#[napi(object)]
#[derive(Default)]
pub struct Message {
  #[napi(ts_type = "'system' | 'user' | 'assistant' | 'tool' | 'human' | 'ai' | 'developer'")]
  pub role: String,
  /// Text content (string content or the concatenated text blocks).
  pub content: Option<String>,
  /// UTF-16 length of the text, when `content` is omitted.
  pub content_length: Option<f64>,
  /// Serialized non-text blocks (counted; LangChain counts them as 0).
  pub other: Option<String>,
  /// UTF-16 length of `other`, when `other` is omitted.
  pub other_length: Option<f64>,
  /// Reasoning: serialized `thinking` / `redacted_thinking` blocks and reasoning in `additional_kwargs`.
  pub thinking: Option<String>,
  /// UTF-16 length of `thinking`, when `thinking` is omitted.
  pub thinking_length: Option<f64>,
  /// Number of image blocks.
  pub images: Option<f64>,
  /// Tokens of the images by the provider's formula (sizes known); replaces `images` × 765.
  pub image_tokens: Option<f64>,
  pub tool_calls: Option<Vec<ToolCall>>,
  /// UTF-16 length of `JSON.stringify(tool_calls)` as the caller holds them (exact approx parity).
  pub tool_calls_length: Option<f64>,
  pub tool_call_id: Option<String>,
  pub name: Option<String>,
  /// `response_metadata.context_editing.cleared` is already set.
  pub cleared: Option<bool>,
  /// `response_metadata.context_editing.truncated` is already set.
  pub truncated: Option<bool>,
  /// Ids already in `response_metadata.context_editing.cleared_tool_inputs`.
  pub cleared_tool_inputs: Option<Vec<String>>,
  /// A token count from the caller's own counter, used instead of counting this message.
  pub tokens: Option<f64>,
  /// Pinned: no edit changes or removes it (nor its tool call or results).
  pub pinned: Option<bool>,
}

/// What the model sees besides the messages.
#[napi(object)]
#[derive(Default, Clone)]
pub struct EditContext {
  /// The model's input limit, for `fraction` options.
  pub max_input_tokens: Option<f64>,
  /// The system prompt sent beside the messages (counted toward the trigger).
  pub system_prompt: Option<String>,
  /// Tool definitions, each as JSON text (counted toward the trigger).
  pub tools: Option<Vec<String>>,
  /// The system prompt's length in UTF-16 code units, instead of `systemPrompt`: all that approx
  /// counting reads of it (`tokenCountMethod: "approx"` only; not with `systemPrompt`).
  pub system_prompt_length: Option<f64>,
  /// Each tool definition's length in UTF-16 code units, instead of `tools` (approx only; not
  /// with `tools`).
  pub tool_lengths: Option<Vec<f64>>,
  /// Model name for this call (picks the encoding in model mode).
  pub model: Option<String>,
  /// Prompt-cache breakpoints the request already has (`cache_control` markers); planned
  /// `cache_breakpoint` ops keep the total at 4 or fewer.
  pub cache_breakpoints_in_use: Option<u32>,
  /// Usage anchor: the index of the newest assistant message whose call the provider reported...
  pub anchor_index: Option<f64>,
  /// ...and the reported size of the request through it (its input plus that message's output).
  pub anchor_tokens: Option<f64>,
  /// Ratio of true to counted size learned for the conversation; request totals are multiplied by it.
  pub token_correction: Option<f64>,
}

/// Converts wire messages, the first of which has index `offset` in the conversation.
pub fn messages_from_wire(messages: Vec<Message>, offset: usize) -> CoreResult<Vec<core::Message>> {
  messages
    .into_iter()
    .enumerate()
    .map(|(i, m)| message_from_wire(offset + i, m))
    .collect()
}

fn message_from_wire(i: usize, m: Message) -> CoreResult<core::Message> {
  let role = core::Role::parse(&m.role).ok_or_else(|| {
    core::Error::invalid_message(
      i,
      "role",
      format!(
        "unknown role `{}` (expected system, user, assistant, tool, human, ai or developer)",
        m.role
      ),
    )
  })?;
  Ok(core::Message {
    role,
    content: m.content,
    content_length: size(i, "contentLength", m.content_length)?,
    other: m.other,
    other_length: size(i, "otherLength", m.other_length)?,
    thinking: m.thinking,
    thinking_length: size(i, "thinkingLength", m.thinking_length)?,
    images: size(i, "images", m.images)?.map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
    image_tokens: size(i, "imageTokens", m.image_tokens)?,
    tool_calls: m
      .tool_calls
      .unwrap_or_default()
      .into_iter()
      .enumerate()
      .map(|(k, c)| {
        Ok(core::ToolCall {
          id: c.id,
          name: c.name.unwrap_or_default(),
          args: c.args,
          args_length: size(i, &format!("toolCalls[{k}].argsLength"), c.args_length)?,
        })
      })
      .collect::<CoreResult<Vec<_>>>()?,
    tool_calls_length: size(i, "toolCallsLength", m.tool_calls_length)?,
    tool_call_id: m.tool_call_id,
    name: m.name,
    cleared: m.cleared.unwrap_or(false),
    truncated: m.truncated.unwrap_or(false),
    cleared_tool_inputs: m.cleared_tool_inputs.unwrap_or_default(),
    tokens: size(i, "tokens", m.tokens)?,
    pinned: m.pinned.unwrap_or(false),
  })
}

/// A length or count sent by the caller: a non-negative integer below 2^32 (JavaScript numbers can be
/// `-1`, `NaN` or `2^40`, which napi's `u32` conversion would silently wrap or zero).
fn size(index: usize, field: &str, value: Option<f64>) -> CoreResult<Option<u64>> {
  match value {
    None => Ok(None),
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => {
      Ok(Some(n as u64))
    }
    Some(n) => Err(core::Error::invalid_message(
      index,
      field,
      format!("expected a non-negative integer below 2^32, got {n}"),
    )),
  }
}

pub fn context_from_wire(c: Option<EditContext>) -> CoreResult<core::Context> {
  let c = c.unwrap_or_default();
  let max_input_tokens = match c.max_input_tokens {
    None => None,
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(n) if n.is_finite() && n >= 1.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => {
      Some(n as u64)
    }
    Some(n) => {
      return Err(core::Error::invalid_context(
        "maxInputTokens",
        format!("expected a positive integer, got {n}"),
      ))
    }
  };
  let anchor = match (c.anchor_index, c.anchor_tokens) {
    (None, None) => None,
    (Some(i), Some(t)) => Some((
      context_count(i, "anchorIndex")?,
      u64::try_from(context_count(t, "anchorTokens")?).unwrap_or(u64::MAX),
    )),
    (None, Some(_)) => {
      return Err(core::Error::invalid_context(
        "anchorIndex",
        "missing (anchorTokens is set)",
      ))
    }
    (Some(_), None) => {
      return Err(core::Error::invalid_context(
        "anchorTokens",
        "missing (anchorIndex is set)",
      ))
    }
  };
  let context = core::Context {
    max_input_tokens,
    system_prompt: c.system_prompt,
    tools: c.tools.unwrap_or_default(),
    system_prompt_length: c
      .system_prompt_length
      .map(|n| context_length(n, "systemPromptLength"))
      .transpose()?,
    tool_lengths: c
      .tool_lengths
      .unwrap_or_default()
      .into_iter()
      .enumerate()
      .map(|(k, n)| context_length(n, &format!("toolLengths[{k}]")))
      .collect::<CoreResult<_>>()?,
    model: c.model,
    cache_breakpoints_in_use: c.cache_breakpoints_in_use.unwrap_or(0),
    anchor,
    correction: c.token_correction,
  };
  core::validate_context(&context)?;
  Ok(context)
}

/// A length in the context (`systemPromptLength`, `toolLengths[k]`): a non-negative safe integer.
fn context_length(n: f64, field: &str) -> CoreResult<u64> {
  context_count(n, field).map(|n| u64::try_from(n).unwrap_or(u64::MAX))
}

/// A non-negative safe integer of the context (`anchorIndex`, `anchorTokens`).
fn context_count(n: f64, field: &str) -> CoreResult<usize> {
  #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
  if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 {
    return Ok(usize::try_from(n as u64).unwrap_or(usize::MAX));
  }
  Err(core::Error::invalid_context(
    field,
    format!("expected a non-negative integer, got {n}"),
  ))
}
