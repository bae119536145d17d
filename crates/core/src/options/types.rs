//! The typed options: every edit, its knobs and their defaults. The names and defaults mirror
//! LangChain.js `ClearToolUsesEdit` and `SummarizationMiddleware`, Anthropic's context editing
//! (`clear_tool_uses`, `clear_thinking`), Synaptic's and CE Node's structural edits; each default
//! names where it comes from.

use crate::tokenizer::{Encoding, TokenizerOption};

/// Default token trigger: clear once the conversation reaches this many tokens (LangChain `DEFAULT_TRIGGER_TOKENS`).
pub const DEFAULT_TRIGGER_TOKENS: f64 = 100_000.0;
/// Default number of most recent tool results kept intact (LangChain `DEFAULT_KEEP`).
pub const DEFAULT_KEEP_MESSAGES: u64 = 3;
/// Default text that replaces a cleared tool result (LangChain `DEFAULT_TOOL_PLACEHOLDER`).
pub const DEFAULT_PLACEHOLDER: &str = "[cleared]";
/// Default bound of the per-editor token cache, in entries (one entry per distinct long string).
pub const DEFAULT_TOKEN_CACHE_SIZE: usize = 200_000;

/// How tokens are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum TokenCountMethod {
  /// LangChain's `countTokensApproximately`: `ceil(chars / 4)` over the whole request, where
  /// chars are UTF-16 code units of text + `JSON.stringify(tool_calls)` + `tool_call_id`.
  #[default]
  Approx,
  /// Exact BPE counts from the embedded tiktoken ranks, plus OpenAI's per-message overhead.
  Model,
  /// An alias of `Model` that counts exactly (reported as `"estimate"`): the script-aware
  /// estimator it named was retired, being neither within 5 % of exact counts on every kind of
  /// text nor 10 times faster than them (`docs/performance.md`).
  Estimate,
}

impl TokenCountMethod {
  /// The option value (`"approx"`, `"model"`, `"estimate"`).
  #[must_use]
  pub const fn as_str(self) -> &'static str {
    match self {
      Self::Approx => "approx",
      Self::Model => "model",
      Self::Estimate => "estimate",
    }
  }
}

/// One trigger condition: every key set must hold (AND). A list of them is ORed.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Trigger {
  /// Fires when the request has at least this many tokens.
  pub tokens: Option<f64>,
  /// Fires when there are at least this many messages.
  pub messages: Option<u64>,
  /// Fires at `floor(maxInputTokens * fraction)` tokens; never fires when the limit is unknown.
  pub fraction: Option<f64>,
  /// Fires when there are at least this many tool results (Anthropic `tool_uses`).
  pub tool_uses: Option<u64>,
  /// Fires when there are at least this many turns (a user message and what follows it).
  pub turns: Option<u64>,
}

/// How many tool results to keep intact: exactly one measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Keep {
  /// The last N tool results.
  Messages(u64),
  /// The newest tool results whose own token counts sum to at most this many.
  Tokens(f64),
  /// Like `Tokens` with `floor(maxInputTokens * fraction)`; keeps 3 when the limit is unknown.
  Fraction(f64),
}

impl Default for Keep {
  fn default() -> Self {
    Self::Messages(DEFAULT_KEEP_MESSAGES)
  }
}

/// Which cleared results also get their call's arguments cleared.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ClearInputs {
  /// Never (the default).
  #[default]
  None,
  /// For every cleared result.
  All,
  /// Only for these tools (Anthropic `clear_tool_inputs` as a list of names).
  Tools(Vec<String>),
}

impl ClearInputs {
  /// Whether clearing a result of `tool` also clears its call's arguments.
  #[must_use]
  pub fn applies_to(&self, tool: &str) -> bool {
    match self {
      Self::None => false,
      Self::All => true,
      Self::Tools(names) => names.iter().any(|n| n == tool),
    }
  }
}

/// The `clear_tool_uses` edit: replace old tool results with a placeholder.
#[derive(Debug, Clone, PartialEq)]
pub struct ClearToolUses {
  /// When to edit (ORed list of ANDed conditions).
  pub trigger: Vec<Trigger>,
  /// How many of the newest tool results to keep.
  pub keep: Keep,
  /// Tool names whose results are never cleared.
  pub exclude_tools: Vec<String>,
  /// Text that replaces a cleared result.
  pub placeholder: String,
  /// Whether to also clear the arguments of the cleared calls.
  pub clear_tool_inputs: ClearInputs,
  /// Keep clearing kept results (newest first) until at least this many tokens are freed.
  pub clear_at_least: u64,
  /// Cache-aware clearing: the cleared boundary moves only in steps (`None` = LangChain's behaviour).
  pub stable: Option<Stable>,
  /// Mark the stable boundary and the end of the request with prompt-cache breakpoints.
  pub cache_breakpoints: bool,
  /// Results cleared first, whatever their age, before the keep rule counts (`prefer`).
  pub prefer: Prefer,
}

/// Tool names whose later call makes earlier results about the same file stale (coding agents:
/// OpenAI's and Anthropic's examples, Claude Code, Cline, Cursor, opencode, MCP filesystem).
pub const DEFAULT_WRITERS: &[&str] = &[
  "write_file",
  "edit_file",
  "create_file",
  "Write",
  "Edit",
  "MultiEdit",
  "NotebookEdit",
  "write",
  "edit",
  "write_to_file",
  "replace_in_file",
  "search_replace",
  "apply_diff",
  "str_replace_editor",
  "str_replace_based_edit_tool",
];

/// Tool names whose results a later write of the same file makes stale (besides the writers).
pub const DEFAULT_READERS: &[&str] = &[
  "read_file",
  "Read",
  "read",
  "view_file",
  "view",
  "open_file",
  "cat",
  "read_text_file",
  "read_multiple_files",
  "get_file_contents",
];

/// Argument names a tool given without `:path` names its file by, the first present wins.
pub const DEFAULT_RESOURCE_ARGS: &[&str] = &[
  "path",
  "file_path",
  "filePath",
  "target_file",
  "notebook_path",
  "file",
  "filename",
];

/// Where a tool's call names the resource it reads or writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceTool {
  /// The tool's name.
  pub tool: String,
  /// The argument path (`a.b` = `args.a.b`); `None` = the first of [`DEFAULT_RESOURCE_ARGS`] present.
  pub path: Option<Vec<String>>,
}

impl ResourceTool {
  /// `"tool"` or `"tool:arg.path"`.
  #[must_use]
  pub fn parse(spec: &str) -> Self {
    match spec.split_once(':') {
      Some((tool, path)) if !path.is_empty() => Self {
        tool: tool.to_owned(),
        path: Some(path.split('.').map(str::to_owned).collect()),
      },
      _ => Self {
        tool: spec.trim_end_matches(':').to_owned(),
        path: None,
      },
    }
  }
}

/// Superseded results: a later call of a writer names the same resource as an earlier call of a
/// reader or writer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Supersede {
  /// Tools whose later call makes earlier results about the same resource stale.
  pub writers: Vec<ResourceTool>,
  /// Tools whose results a later write makes stale (the writers' own results are too).
  pub readers: Vec<ResourceTool>,
}

impl Default for Supersede {
  fn default() -> Self {
    let of = |names: &[&str]| names.iter().map(|n| ResourceTool::parse(n)).collect();
    Self {
      writers: of(DEFAULT_WRITERS),
      readers: of(DEFAULT_READERS),
    }
  }
}

/// Which results `clear_tool_uses` clears first, whatever their age (`prefer`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Prefer {
  /// A later call of a writer names the same resource (`None` = off).
  pub superseded: Option<Supersede>,
  /// A later call of the same tool has equal arguments.
  pub duplicate: bool,
}

impl Prefer {
  /// Whether any rule is on.
  #[must_use]
  pub fn any(&self) -> bool {
    self.superseded.is_some() || self.duplicate
  }
}

/// Step of stable clearing by result count, when `stepResults` is given without a value.
pub const DEFAULT_STEP_RESULTS: u64 = 25;
/// A token step for `stepTokens` (the default of `stable: true` before `stepRatio`).
pub const DEFAULT_STEP_TOKENS: u64 = 8000;
/// Default of stable clearing (`stable: true`): a step must free at least 3× the tokens it evicts
/// from the prompt cache. Measured by `benchmark/cache-replay.mjs` (seeds 1–3): the cost is flat
/// between 2.5 and 3.5 and within 0.5 % of the cheapest schedule of steps found offline.
pub const DEFAULT_STEP_RATIO: f64 = 3.0;

/// Stable (cache-aware) clearing: the cleared boundary moves only in steps, so consecutive calls
/// send identical prefixes until the next step. The history is replayed call by call (every
/// assistant message marks an earlier model call), so the boundary is a function of the history
/// alone; a ceiling forces an early step. One of three step rules:
/// - `step_ratio` (the default): step (to the kept window) when the tokens a step frees reach this
///   many times the tokens it evicts from the cache (what the previous call sent after the boundary);
/// - `step_tokens`: step when the uncleared results outside the kept window exceed this many tokens;
/// - `step_results`: the normal count of cleared results, rounded down to a multiple of this.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stable {
  /// The boundary moves in multiples of this many tool results (when neither rule below is set).
  pub step_results: u64,
  /// The boundary moves to the kept window once the results outside it that are not cleared yet
  /// exceed this many tokens.
  pub step_tokens: Option<u64>,
  /// The boundary moves to the kept window once the tokens that frees are at least this many
  /// times the tokens of the previous request it rewrites. Wins over `step_tokens`.
  pub step_ratio: Option<f64>,
  /// Hard ceiling in tokens; `None` = the smallest `tokens` trigger, or `maxInputTokens` if smaller.
  pub max_tokens: Option<u64>,
}

impl Default for Stable {
  fn default() -> Self {
    Self {
      step_results: DEFAULT_STEP_RESULTS,
      step_tokens: None,
      step_ratio: Some(DEFAULT_STEP_RATIO),
      max_tokens: None,
    }
  }
}

impl ClearToolUses {
  /// Whether results of `tool` are never cleared (`excludeTools`).
  #[must_use]
  pub fn excludes(&self, tool: &str) -> bool {
    self.exclude_tools.iter().any(|t| t == tool)
  }
}

impl Default for ClearToolUses {
  /// LangChain's defaults: trigger at 100,000 tokens, keep the last 3 results, `"[cleared]"`.
  fn default() -> Self {
    Self {
      trigger: vec![Trigger {
        tokens: Some(DEFAULT_TRIGGER_TOKENS),
        ..Trigger::default()
      }],
      keep: Keep::default(),
      exclude_tools: Vec::new(),
      placeholder: DEFAULT_PLACEHOLDER.to_owned(),
      clear_tool_inputs: ClearInputs::None,
      clear_at_least: 0,
      stable: None,
      cache_breakpoints: false,
      prefer: Prefer::default(),
    }
  }
}

/// One edit of a pipeline.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Edit {
  /// Clear old tool results (LangChain `ClearToolUsesEdit`, Anthropic `clear_tool_uses`).
  ClearToolUses(ClearToolUses),
  /// Remove reasoning from older assistant messages (Anthropic `clear_thinking`).
  ClearThinking(ClearThinking),
  /// Keep leading system messages and the last `n` others (Synaptic `LastN`), pair-safe.
  LastN(LastN),
  /// Remove tool results and tool-call-only assistant messages (Synaptic `StripToolCalls`).
  StripToolCalls(Gate),
  /// `StripToolCalls`, then `LastN(n)` (Synaptic `StripAndTruncate`).
  StripAndTruncate(LastN),
  /// Keep the last `max_turns` turns (CE Node TRIMMING).
  TrimTurns(TrimTurns),
  /// Cut long tool results to their first `max_chars` characters (CE Node `tool_trim_limit`).
  TruncateToolResults(TruncateToolResults),
  /// Replace older messages with a model-written summary (LangChain/DeepAgents, CE Node SUMMARIZING).
  Summarize(Summarize),
  /// Keep the newest images and documents, replace older ones by a text naming them. Checked
  /// here; applied by the shim (`ContextEditor`) before planning, on the caller's own blocks.
  ClearMedia(ClearMedia),
}

impl Edit {
  /// The edit's `type` name.
  #[must_use]
  pub const fn type_name(&self) -> &'static str {
    match self {
      Self::ClearToolUses(_) => "clear_tool_uses",
      Self::ClearThinking(_) => "clear_thinking",
      Self::LastN(_) => "last_n",
      Self::StripToolCalls(_) => "strip_tool_calls",
      Self::StripAndTruncate(_) => "strip_and_truncate",
      Self::TrimTurns(_) => "trim_turns",
      Self::TruncateToolResults(_) => "truncate_tool_results",
      Self::Summarize(_) => "summarize",
      Self::ClearMedia(_) => "clear_media",
    }
  }
}

/// An optional trigger shared by the structural edits: absent = the edit always applies.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Gate {
  /// When to apply (ORed list of ANDed conditions); `None` = always.
  pub trigger: Option<Vec<Trigger>>,
}

/// How many assistant messages keep their reasoning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingKeep {
  /// The most recent N assistant messages that carry reasoning keep it.
  Turns(u64),
  /// Keep all reasoning (the edit does nothing; useful to keep a prompt cache warm).
  All,
}

/// Default number of assistant turns whose reasoning `clear_thinking` keeps (Anthropic's default).
pub const DEFAULT_THINKING_TURNS: u64 = 1;

/// The `clear_thinking` edit.
#[derive(Debug, Clone, PartialEq)]
pub struct ClearThinking {
  /// When to apply; `None` = always.
  pub trigger: Option<Vec<Trigger>>,
  /// What to keep.
  pub keep: ThinkingKeep,
}

/// The `last_n` / `strip_and_truncate` edits.
#[derive(Debug, Clone, PartialEq)]
pub struct LastN {
  /// When to apply; `None` = always.
  pub trigger: Option<Vec<Trigger>>,
  /// Non-system messages to keep.
  pub n: u64,
}

/// Default number of turns `trim_turns` keeps (CE Node `max_turns`).
pub const DEFAULT_MAX_TURNS: u64 = 8;

/// The `trim_turns` edit.
#[derive(Debug, Clone, PartialEq)]
pub struct TrimTurns {
  /// When to apply; `None` = always.
  pub trigger: Option<Vec<Trigger>>,
  /// Turns to keep.
  pub max_turns: u64,
}

/// Default length tool results are cut to (CE Node `tool_trim_limit`).
pub const DEFAULT_TOOL_TRIM_LIMIT: u64 = 600;

/// The default text of a cleared image or document (`clear_media`).
pub const DEFAULT_MEDIA_PLACEHOLDER: &str = "[{kind} removed: {what}]";

/// `keep` of `clear_media`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MediaKeep {
  /// The newest N images and documents.
  Media(u64),
  /// The newest whose token counts add up to at most this.
  Tokens(f64),
}

/// The `clear_media` edit (applied by the shim; see [`Edit::ClearMedia`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ClearMedia {
  /// When it applies (`None` = always).
  pub trigger: Option<Vec<Trigger>>,
  /// What stays.
  pub keep: MediaKeep,
  /// The replacing text, with `{kind}` and `{what}` slots.
  pub placeholder: String,
  /// How images are counted: `openai` or `anthropic`.
  pub formula: String,
}

/// The `truncate_tool_results` edit.
#[derive(Debug, Clone, PartialEq)]
pub struct TruncateToolResults {
  /// When to apply; `None` = always.
  pub trigger: Option<Vec<Trigger>>,
  /// Longest kept text, in UTF-16 code units (JavaScript string length), marker included when possible.
  pub max_chars: u64,
  /// Tool names whose results are never truncated.
  pub exclude_tools: Vec<String>,
}

/// What `summarize` keeps verbatim after the summary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SummaryKeep {
  /// The last N messages (moved earlier to keep tool calls with their results).
  Messages(u64),
  /// The longest suffix that fits this many tokens.
  Tokens(f64),
  /// The longest suffix that fits `floor(maxInputTokens * fraction)` tokens.
  Fraction(f64),
  /// The last N turns.
  Turns(u64),
}

/// LangChain's default summarization prompt (`DEFAULT_SUMMARY_PROMPT` of langchain 1.5.14
/// `summarization.ts`); `{messages}` is replaced by the rendered conversation.
pub const DEFAULT_SUMMARY_PROMPT: &str = include_str!("summary_prompt.txt");
/// LangChain's summary prefix (`DEFAULT_SUMMARY_PREFIX`).
pub const DEFAULT_SUMMARY_PREFIX: &str = "Here is a summary of the conversation to date:";
/// LangChain's bound on what is sent to the summarizer (`DEFAULT_TRIM_TOKEN_LIMIT`).
pub const DEFAULT_TRIM_TOKENS_TO_SUMMARIZE: u64 = 4000;
/// DeepAgents' trigger with a known input limit: 85 % of it.
pub const DEEPAGENTS_TRIGGER_FRACTION: f64 = 0.85;
/// DeepAgents' keep with a known input limit: 10 % of it.
pub const DEEPAGENTS_KEEP_FRACTION: f64 = 0.10;
/// DeepAgents' trigger without a known input limit.
pub const DEEPAGENTS_TRIGGER_TOKENS: f64 = 170_000.0;
/// DeepAgents' keep without a known input limit.
pub const DEEPAGENTS_KEEP_MESSAGES: u64 = 6;

/// Which role the summary message has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryRole {
  /// A human message with `additional_kwargs.lc_source = "summarization"` (LangChain).
  User,
  /// An assistant message after the system messages (CE Node).
  Assistant,
}

/// The `summarize` edit: the core plans, the shim calls the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Summarize {
  /// When to summarize; `None` = DeepAgents' default (85 % of a known limit, else 170,000 tokens).
  pub trigger: Option<Vec<Trigger>>,
  /// What to keep verbatim; `None` = DeepAgents' default (10 % of a known limit, else 6 messages).
  pub keep: Option<SummaryKeep>,
  /// Token bound of what is sent to the summarizer (newest messages kept); 0 = no bound.
  pub trim_tokens_to_summarize: u64,
  /// Tool results sent to the summarizer are cut to this many characters (CE Node `tool_trim_limit`).
  pub tool_trim_limit: Option<u64>,
  /// The prompt; `{messages}` is replaced by the rendered conversation.
  pub summary_prompt: String,
  /// Text before the summary in the summary message.
  pub summary_prefix: String,
  /// Role of the summary message.
  pub summary_role: SummaryRole,
  /// A model the shim should use instead of the agent's own.
  pub model: Option<String>,
  /// Output bound the shim passes to the summarizing model (CE Node `max_tokens`, default 400 there).
  pub max_tokens: Option<u64>,
}

impl Default for Summarize {
  fn default() -> Self {
    Self {
      trigger: None,
      keep: None,
      trim_tokens_to_summarize: DEFAULT_TRIM_TOKENS_TO_SUMMARIZE,
      tool_trim_limit: None,
      summary_prompt: DEFAULT_SUMMARY_PROMPT.to_owned(),
      summary_prefix: DEFAULT_SUMMARY_PREFIX.to_owned(),
      summary_role: SummaryRole::User,
      model: None,
      max_tokens: None,
    }
  }
}

/// Everything a [`ContextEditor`](crate::ContextEditor) is configured with.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
  /// Edits applied in order.
  pub edits: Vec<Edit>,
  /// How tokens are counted.
  pub token_count_method: TokenCountMethod,
  /// Default model name (chooses the encoding and the known context size); a call's context may override it.
  pub model: Option<String>,
  /// Explicit encoding; wins over the model name.
  pub encoding: Option<Encoding>,
  /// A Hugging Face tokenizer (family or `tokenizer.json`); wins over `encoding` and the model name.
  pub tokenizer: TokenizerOption,
  /// Bound of the token cache in entries; 0 disables caching.
  pub token_cache_size: usize,
  /// Pin rules applied to every edit.
  pub pin: Pin,
}

impl Default for Options {
  /// One `clear_tool_uses` edit with LangChain's defaults, approximate counting.
  fn default() -> Self {
    Self {
      edits: vec![Edit::ClearToolUses(ClearToolUses::default())],
      token_count_method: TokenCountMethod::Approx,
      model: None,
      encoding: None,
      tokenizer: TokenizerOption::default(),
      token_cache_size: DEFAULT_TOKEN_CACHE_SIZE,
      pin: Pin::default(),
    }
  }
}

/// Pin rules (`pin`): the messages they name are never changed or removed by any edit, nor are
/// their tool calls and results. A message can also be pinned one by one (`Message::pinned`, which
/// shims set from a marker or from `ids`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pin {
  /// Results of these tools, and the assistant messages that call them.
  pub tools: Vec<String>,
  /// Everything after the last user message (the agent's current run).
  pub current_run: bool,
  /// Message ids (matched by the shim, which sets `Message::pinned`).
  pub ids: Vec<String>,
}
