//! The call's context: what the model sees besides the messages (system prompt, tools), what the
//! editor should know about the model (its input limit and name), and what the provider reported
//! (a usage anchor, a correction ratio). A leaf module: the editor and the meter both read it.

/// What the model sees besides the messages, and what the editor should know about the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Context {
  /// The model's input limit in tokens, for `fraction` options. When absent, the limit of a known
  /// OpenAI model name is used; otherwise fraction triggers do not fire (and the report says so).
  pub max_input_tokens: Option<u64>,
  /// The system prompt sent beside the messages; its tokens count toward the trigger.
  pub system_prompt: Option<String>,
  /// Tool definitions sent with the request, each as JSON text; their tokens count toward the trigger.
  pub tools: Vec<String>,
  /// The system prompt's length in UTF-16 code units, given instead of its text: all that approx
  /// counting reads of it. Approx counting only (the other methods count the text), and not
  /// together with `system_prompt`.
  pub system_prompt_length: Option<u64>,
  /// Each tool definition's length in UTF-16 code units, given instead of `tools` (see
  /// `system_prompt_length`).
  pub tool_lengths: Vec<u64>,
  /// Model name for this call (chooses the encoding in model mode); overrides the option.
  pub model: Option<String>,
  /// Prompt-cache breakpoints the request already carries (system prompt, tools, messages): the
  /// `cacheBreakpoints` option adds at most [`MAX_CACHE_BREAKPOINTS`](crate::MAX_CACHE_BREAKPOINTS)
  /// minus this many.
  pub cache_breakpoints_in_use: u32,
  /// What the provider reported for an earlier call, as `(index, tokens)`: the request through
  /// message `index` (the newest assistant message) has `tokens` tokens. The request is then
  /// counted as `tokens` plus the counted size of the messages after `index` (what edits free is
  /// still counted). The caller makes sure nothing at or before `index` changed since; an index
  /// past the messages is ignored.
  pub anchor: Option<(usize, u64)>,
  /// Ratio of true to counted size learned for this conversation (from a provider's report or a
  /// context-length error): request totals are multiplied by it (not the anchored part). `None` = 1.
  pub correction: Option<f64>,
}

/// The largest correction ratio a context may carry (a count off by more is no count).
pub const MAX_CORRECTION: f64 = 100.0;
