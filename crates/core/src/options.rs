//! Editor options: what to edit, when, and how to count; parsed from JSON with errors that name the
//! option path.
//!
//! The option names and defaults mirror LangChain.js `ClearToolUsesEdit` and the Xpert
//! `ContextEditingMiddleware` plugin (same algorithm), so a JSON option block written for either
//! works unchanged. Mirrors langchainjs `libs/langchain/src/agents/middleware/contextEditing.ts`
//! (langchain 1.5.14) and the `contextSizeSchema`/`keepSchema` of `summarization.ts`.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::tokenizer::Encoding;

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
  /// A fast script-aware estimate of the BPE count (no tokenizer tables, see
  /// [`estimate_tokens`](crate::estimate_tokens)), plus the same per-message overhead as `Model`.
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
    }
  }
}

/// Every edit `type` name, for error messages.
pub const EDIT_TYPES: &[&str] = &[
  "clear_tool_uses",
  "clear_thinking",
  "last_n",
  "strip_tool_calls",
  "strip_and_truncate",
  "trim_turns",
  "truncate_tool_results",
  "summarize",
];

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
  /// Bound of the token cache in entries; 0 disables caching.
  pub token_cache_size: usize,
}

impl Default for Options {
  /// One `clear_tool_uses` edit with LangChain's defaults, approximate counting.
  fn default() -> Self {
    Self {
      edits: vec![Edit::ClearToolUses(ClearToolUses::default())],
      token_count_method: TokenCountMethod::Approx,
      model: None,
      encoding: None,
      token_cache_size: DEFAULT_TOKEN_CACHE_SIZE,
    }
  }
}

/// Top-level keys that configure the shorthand `clear_tool_uses` edit.
const CLEAR_KEYS: &[&str] = &[
  "trigger",
  "keep",
  "excludeTools",
  "placeholder",
  "clearToolInputs",
  "clearAtLeast",
  "triggerTokens",
  "keepMessages",
  "stable",
  "cacheBreakpoints",
];
/// Top-level keys that configure counting and caching.
const GLOBAL_KEYS: &[&str] = &[
  "tokenCountMethod",
  "model",
  "encoding",
  "tokenCacheSize",
  "edits",
];

impl Options {
  /// Parses options from a JSON value (`null`/absent = all defaults). `null` fields mean "unset".
  ///
  /// # Errors
  /// [`ErrorKind::InvalidOptions`](crate::ErrorKind::InvalidOptions) naming the option path and what
  /// is allowed, for unknown keys, wrong types and out-of-range values;
  /// [`ErrorKind::UnknownEncoding`](crate::ErrorKind::UnknownEncoding) for an unknown `encoding`.
  ///
  /// # Examples
  /// ```
  /// use context_editor_core::{Options, Keep};
  /// let o = Options::from_json(&serde_json::json!({ "keep": { "messages": 5 } })).unwrap();
  /// let context_editor_core::Edit::ClearToolUses(c) = &o.edits[0] else { unreachable!() };
  /// assert_eq!(c.keep, Keep::Messages(5));
  /// let e = Options::from_json(&serde_json::json!({ "keep": { "messages": 5, "tokens": 9 } })).unwrap_err();
  /// assert_eq!(e.to_string(), "keep: exactly one of messages, tokens, fraction (got messages, tokens)");
  /// ```
  pub fn from_json(value: &Value) -> Result<Self> {
    let obj = match value {
      Value::Null => return Ok(Self::default()),
      Value::Object(o) => o,
      other => {
        return Err(Error::invalid_option(
          "options",
          format!("expected an object, got {}", type_name(other)),
        ))
      }
    };
    for key in obj.keys() {
      if !CLEAR_KEYS.contains(&key.as_str()) && !GLOBAL_KEYS.contains(&key.as_str()) {
        return Err(Error::invalid_option(
          key.clone(),
          format!(
            "unknown option (expected one of {})",
            [GLOBAL_KEYS, CLEAR_KEYS].concat().join(", ")
          ),
        ));
      }
    }
    let mut options = Self::default();
    if let Some(v) = field(obj, "tokenCountMethod") {
      options.token_count_method = match v.as_str() {
        Some("approx") => TokenCountMethod::Approx,
        Some("model") => TokenCountMethod::Model,
        Some("estimate") => TokenCountMethod::Estimate,
        _ => {
          return Err(Error::invalid_option(
            "tokenCountMethod",
            format!(
              "expected \"approx\", \"model\" or \"estimate\", got {}",
              show(v)
            ),
          ))
        }
      };
    }
    options.model = opt_string(obj, "model", "model")?;
    if let Some(name) = opt_string(obj, "encoding", "encoding")? {
      options.encoding =
        Some(Encoding::parse(&name).ok_or_else(|| Error::unknown_encoding("encoding", &name))?);
    }
    if let Some(v) = field(obj, "tokenCacheSize") {
      options.token_cache_size =
        usize::try_from(non_negative_int(v, "tokenCacheSize")?).unwrap_or(usize::MAX);
    }
    let has_clear_keys = CLEAR_KEYS.iter().any(|k| field(obj, k).is_some());
    if let Some(edits) = field(obj, "edits") {
      if has_clear_keys {
        let first = CLEAR_KEYS
          .iter()
          .find(|k| field(obj, k).is_some())
          .copied()
          .unwrap_or("trigger");
        return Err(Error::invalid_option(
          first,
          "top-level clearing options are a shorthand for a single `clear_tool_uses` edit (move them into `edits`)",
        ));
      }
      let Value::Array(list) = edits else {
        return Err(Error::invalid_option(
          "edits",
          format!("expected an array of edits, got {}", type_name(edits)),
        ));
      };
      options.edits = list
        .iter()
        .enumerate()
        .map(|(i, e)| parse_edit(e, &format!("edits[{i}]")))
        .collect::<Result<_>>()?;
      if let Some(i) = options
        .edits
        .iter()
        .position(|e| matches!(e, Edit::Summarize(_)))
      {
        if i + 1 != options.edits.len() {
          return Err(Error::invalid_option(
            format!("edits[{i}].type"),
            "`summarize` must be the last edit (its result is written by the model after planning)",
          ));
        }
      }
    } else {
      options.edits = vec![Edit::ClearToolUses(parse_clear_tool_uses(obj, "")?)];
    }
    Ok(options)
  }
}

fn parse_edit(value: &Value, path: &str) -> Result<Edit> {
  let Value::Object(obj) = value else {
    return Err(Error::invalid_option(
      path,
      format!(
        "expected an edit object with a `type`, got {}",
        type_name(value)
      ),
    ));
  };
  let kind = match obj.get("type") {
    Some(Value::String(s)) => s.as_str(),
    Some(other) => {
      return Err(Error::invalid_option(
        format!("{path}.type"),
        format!("expected a string, got {}", show(other)),
      ))
    }
    None => {
      return Err(Error::invalid_option(
        format!("{path}.type"),
        "missing edit type (expected one of clear_tool_uses, clear_thinking, last_n, strip_tool_calls, strip_and_truncate, trim_turns, truncate_tool_results, summarize)",
      ))
    }
  };
  match kind {
    "clear_tool_uses" => {
      for key in obj.keys() {
        if key != "type" && !CLEAR_KEYS.contains(&key.as_str()) {
          return Err(Error::invalid_option(
            format!("{path}.{key}"),
            format!(
              "unknown option of `clear_tool_uses` (expected one of {})",
              CLEAR_KEYS.join(", ")
            ),
          ));
        }
      }
      Ok(Edit::ClearToolUses(parse_clear_tool_uses(
        obj,
        &format!("{path}."),
      )?))
    }
    other => parse_structural_edit(other, obj, path),
  }
}

/// Rejects keys of an edit object that are not `type` or in `allowed`.
fn only_keys(obj: &Map<String, Value>, allowed: &[&str], kind: &str, path: &str) -> Result<()> {
  for key in obj.keys() {
    if key != "type" && !allowed.contains(&key.as_str()) {
      return Err(Error::invalid_option(
        format!("{path}.{key}"),
        format!(
          "unknown option of `{kind}` (expected one of {})",
          allowed.join(", ")
        ),
      ));
    }
  }
  Ok(())
}

fn optional_trigger(obj: &Map<String, Value>, path: &str) -> Result<Option<Vec<Trigger>>> {
  match field(obj, "trigger") {
    None => Ok(None),
    Some(Value::Array(list)) => {
      // An empty list is an OR of nothing: the edit never fires.
      list
        .iter()
        .enumerate()
        .map(|(i, v)| parse_trigger(v, &format!("{path}.trigger[{i}]")))
        .collect::<Result<Vec<_>>>()
        .map(Some)
    }
    Some(other) => Ok(Some(vec![parse_trigger(
      other,
      &format!("{path}.trigger"),
    )?])),
  }
}

fn required_n(obj: &Map<String, Value>, kind: &str, path: &str) -> Result<u64> {
  match field(obj, "n") {
    Some(v) => non_negative_int(v, &format!("{path}.n")),
    None => Err(Error::invalid_option(
      format!("{path}.n"),
      format!("`{kind}` needs `n`, the number of non-system messages to keep"),
    )),
  }
}

fn parse_structural_edit(kind: &str, obj: &Map<String, Value>, path: &str) -> Result<Edit> {
  let trigger = || optional_trigger(obj, path);
  match kind {
    "clear_thinking" => {
      only_keys(obj, &["trigger", "keep"], kind, path)?;
      let keep = match field(obj, "keep") {
        None => ThinkingKeep::Turns(DEFAULT_THINKING_TURNS),
        Some(Value::String(s)) if s == "all" => ThinkingKeep::All,
        Some(Value::Object(k)) => {
          only_keys(
            k,
            &["thinkingTurns"],
            "clear_thinking.keep",
            &format!("{path}.keep"),
          )?;
          match field(k, "thinkingTurns") {
            Some(v) => {
              ThinkingKeep::Turns(non_negative_int(v, &format!("{path}.keep.thinkingTurns"))?)
            }
            None => ThinkingKeep::Turns(DEFAULT_THINKING_TURNS),
          }
        }
        Some(other) => {
          return Err(Error::invalid_option(
            format!("{path}.keep"),
            format!(
              "expected {{ thinkingTurns: N }} or \"all\", got {}",
              show(other)
            ),
          ))
        }
      };
      Ok(Edit::ClearThinking(ClearThinking {
        trigger: trigger()?,
        keep,
      }))
    }
    "last_n" | "strip_and_truncate" => {
      only_keys(obj, &["trigger", "n"], kind, path)?;
      let edit = LastN {
        trigger: trigger()?,
        n: required_n(obj, kind, path)?,
      };
      Ok(if kind == "last_n" {
        Edit::LastN(edit)
      } else {
        Edit::StripAndTruncate(edit)
      })
    }
    "strip_tool_calls" => {
      only_keys(obj, &["trigger"], kind, path)?;
      Ok(Edit::StripToolCalls(Gate {
        trigger: trigger()?,
      }))
    }
    "trim_turns" => {
      only_keys(obj, &["trigger", "maxTurns"], kind, path)?;
      let max_turns = match field(obj, "maxTurns") {
        Some(v) => positive_int(v, &format!("{path}.maxTurns"))?,
        None => DEFAULT_MAX_TURNS,
      };
      Ok(Edit::TrimTurns(TrimTurns {
        trigger: trigger()?,
        max_turns,
      }))
    }
    "truncate_tool_results" => {
      only_keys(obj, &["trigger", "maxChars", "excludeTools"], kind, path)?;
      let max_chars = match field(obj, "maxChars") {
        Some(v) => positive_int(v, &format!("{path}.maxChars"))?,
        None => DEFAULT_TOOL_TRIM_LIMIT,
      };
      let exclude_tools = match field(obj, "excludeTools") {
        Some(v) => string_list(v, &format!("{path}.excludeTools"))?,
        None => Vec::new(),
      };
      Ok(Edit::TruncateToolResults(TruncateToolResults {
        trigger: trigger()?,
        max_chars,
        exclude_tools,
      }))
    }
    "summarize" => parse_summarize(obj, path).map(Edit::Summarize),
    other => Err(Error::invalid_option(
      format!("{path}.type"),
      format!(
        "unknown edit type `{other}` (expected one of {})",
        EDIT_TYPES.join(", ")
      ),
    )),
  }
}

const SUMMARIZE_KEYS: &[&str] = &[
  "trigger",
  "keep",
  "trimTokensToSummarize",
  "toolTrimLimit",
  "summaryPrompt",
  "summaryPrefix",
  "summaryRole",
  "model",
  "maxTokens",
];

fn parse_summarize(obj: &Map<String, Value>, path: &str) -> Result<Summarize> {
  only_keys(obj, SUMMARIZE_KEYS, "summarize", path)?;
  let trigger = match field(obj, "trigger") {
    // LangChain (JS and Python) accepts an empty list: no condition, so it never fires.
    Some(Value::Array(list)) if list.is_empty() => Some(Vec::new()),
    _ => optional_trigger(obj, path)?,
  };
  let mut s = Summarize {
    trigger,
    ..Summarize::default()
  };
  if let Some(k) = field(obj, "keep") {
    let at = format!("{path}.keep");
    let Value::Object(map) = k else {
      return Err(Error::invalid_option(
        at,
        format!(
          "expected an object with exactly one of messages, tokens, fraction, turns, got {}",
          type_name(k)
        ),
      ));
    };
    let set: Vec<(&String, &Value)> = map.iter().filter(|(_, v)| !v.is_null()).collect();
    for (key, _) in &set {
      if !matches!(key.as_str(), "messages" | "tokens" | "fraction" | "turns") {
        return Err(Error::invalid_option(
          format!("{at}.{key}"),
          "unknown keep measure (expected messages, tokens, fraction or turns)",
        ));
      }
    }
    if set.len() != 1 {
      let got = if set.is_empty() {
        "none".to_owned()
      } else {
        set
          .iter()
          .map(|(k, _)| k.as_str())
          .collect::<Vec<_>>()
          .join(", ")
      };
      return Err(Error::invalid_option(
        at,
        format!("exactly one of messages, tokens, fraction, turns (got {got})"),
      ));
    }
    let (key, v) = set[0];
    let kat = format!("{at}.{key}");
    s.keep = Some(match key.as_str() {
      "messages" => SummaryKeep::Messages(non_negative_int(v, &kat)?),
      "turns" => SummaryKeep::Turns(non_negative_int(v, &kat)?),
      "tokens" => {
        let n = number(v, &kat)?;
        if n < 0.0 {
          return Err(Error::invalid_option(
            kat,
            format!("expected a number >= 0, got {}", show(v)),
          ));
        }
        SummaryKeep::Tokens(n)
      }
      _ => {
        let f = number(v, &kat)?;
        if !(0.0..=1.0).contains(&f) {
          return Err(Error::invalid_option(
            kat,
            format!("expected a number in [0, 1], got {}", show(v)),
          ));
        }
        SummaryKeep::Fraction(f)
      }
    });
  }
  if let Some(v) = field(obj, "trimTokensToSummarize") {
    s.trim_tokens_to_summarize = non_negative_int(v, &format!("{path}.trimTokensToSummarize"))?;
  }
  if let Some(v) = field(obj, "toolTrimLimit") {
    s.tool_trim_limit = Some(positive_int(v, &format!("{path}.toolTrimLimit"))?);
  }
  if let Some(v) = opt_string(obj, "summaryPrompt", &format!("{path}.summaryPrompt"))? {
    s.summary_prompt = v;
  }
  if let Some(v) = opt_string(obj, "summaryPrefix", &format!("{path}.summaryPrefix"))? {
    s.summary_prefix = v;
  }
  if let Some(v) = field(obj, "summaryRole") {
    s.summary_role = match v.as_str() {
      Some("user" | "human") => SummaryRole::User,
      Some("assistant" | "ai") => SummaryRole::Assistant,
      _ => {
        return Err(Error::invalid_option(
          format!("{path}.summaryRole"),
          format!("expected \"user\" or \"assistant\", got {}", show(v)),
        ))
      }
    };
  }
  s.model = opt_string(obj, "model", &format!("{path}.model"))?;
  if let Some(v) = field(obj, "maxTokens") {
    s.max_tokens = Some(positive_int(v, &format!("{path}.maxTokens"))?);
  }
  Ok(s)
}

fn parse_clear_tool_uses(obj: &Map<String, Value>, prefix: &str) -> Result<ClearToolUses> {
  let mut c = ClearToolUses::default();
  let p = |k: &str| format!("{prefix}{k}");
  let trigger = field(obj, "trigger");
  if let Some(t) = trigger {
    c.trigger = match t {
      Value::Array(list) => {
        // An empty list is an OR of nothing: it never fires (as LangChain's `ClearToolUsesEdit`).
        list
          .iter()
          .enumerate()
          .map(|(i, v)| parse_trigger(v, &format!("{prefix}trigger[{i}]")))
          .collect::<Result<_>>()?
      }
      other => vec![parse_trigger(other, &p("trigger"))?],
    };
  } else if let Some(v) = field(obj, "triggerTokens") {
    // Deprecated LangChain alias, used only when `trigger` is absent (as LangChain does).
    c.trigger = vec![Trigger {
      tokens: Some(positive_number(v, &p("triggerTokens"))?),
      ..Trigger::default()
    }];
  }
  if let Some(k) = field(obj, "keep") {
    c.keep = parse_keep(k, &p("keep"))?;
  } else if let Some(v) = field(obj, "keepMessages") {
    c.keep = Keep::Messages(non_negative_int(v, &p("keepMessages"))?);
  }
  if let Some(v) = field(obj, "excludeTools") {
    c.exclude_tools = string_list(v, &p("excludeTools"))?;
  }
  if let Some(v) = field(obj, "placeholder") {
    c.placeholder = match v {
      Value::String(s) => s.clone(),
      other => {
        return Err(Error::invalid_option(
          p("placeholder"),
          format!("expected a string, got {}", show(other)),
        ))
      }
    };
  }
  if let Some(v) = field(obj, "clearToolInputs") {
    c.clear_tool_inputs = match v {
      Value::Bool(true) => ClearInputs::All,
      Value::Bool(false) => ClearInputs::None,
      Value::Array(_) => ClearInputs::Tools(string_list(v, &p("clearToolInputs"))?),
      other => {
        return Err(Error::invalid_option(
          p("clearToolInputs"),
          format!(
            "expected a boolean or a list of tool names, got {}",
            show(other)
          ),
        ))
      }
    };
  }
  if let Some(v) = field(obj, "clearAtLeast") {
    c.clear_at_least = non_negative_int(v, &p("clearAtLeast"))?;
  }
  if let Some(v) = field(obj, "stable") {
    c.stable = parse_stable(v, &p("stable"))?;
  }
  if let Some(v) = field(obj, "cacheBreakpoints") {
    c.cache_breakpoints = match v {
      Value::Bool(b) => *b,
      Value::String(s) if s == "anthropic" => true,
      other => {
        return Err(Error::invalid_option(
          p("cacheBreakpoints"),
          format!("expected a boolean or \"anthropic\", got {}", show(other)),
        ))
      }
    };
  }
  Ok(c)
}

/// `stable: true | false | { stepRatio?, stepTokens?, stepResults?, maxTokens? }`.
fn parse_stable(value: &Value, path: &str) -> Result<Option<Stable>> {
  match value {
    Value::Bool(false) => Ok(None),
    Value::Bool(true) => Ok(Some(Stable::default())),
    Value::Object(obj) => {
      let mut s = Stable::default();
      let rules: Vec<&str> = ["stepRatio", "stepTokens", "stepResults"]
        .into_iter()
        .filter(|k| field(obj, k).is_some())
        .collect();
      if rules.len() > 1 {
        return Err(Error::invalid_option(
          format!("{path}.{}", rules[1]),
          format!(
            "give one of stepRatio, stepTokens or stepResults, not {}",
            rules.join(" and ")
          ),
        ));
      }
      for (key, v) in obj {
        if v.is_null() {
          continue;
        }
        let at = format!("{path}.{key}");
        match key.as_str() {
          "stepResults" => {
            s.step_results = positive_int(v, &at)?;
            s.step_ratio = None;
          }
          "stepTokens" => {
            s.step_tokens = Some(positive_int(v, &at)?);
            s.step_ratio = None;
          }
          "stepRatio" => s.step_ratio = Some(positive_number(v, &at)?),
          "maxTokens" => s.max_tokens = Some(positive_int(v, &at)?),
          _ => return Err(Error::invalid_option(
            at,
            "unknown option of `stable` (expected stepRatio, stepTokens, stepResults or maxTokens)",
          )),
        }
      }
      Ok(Some(s))
    }
    other => Err(Error::invalid_option(
      path,
      format!(
        "expected a boolean or {{ stepRatio?, stepTokens?, stepResults?, maxTokens? }}, got {}",
        show(other)
      ),
    )),
  }
}

fn parse_trigger(value: &Value, path: &str) -> Result<Trigger> {
  let Value::Object(obj) = value else {
    return Err(Error::invalid_option(
      path,
      format!(
        "expected an object with tokens, messages, fraction, toolUses or turns, got {}",
        type_name(value)
      ),
    ));
  };
  let mut t = Trigger::default();
  for (key, v) in obj {
    if v.is_null() {
      continue;
    }
    let at = format!("{path}.{key}");
    match key.as_str() {
      "tokens" => t.tokens = Some(positive_number(v, &at)?),
      "messages" => t.messages = Some(positive_int(v, &at)?),
      "toolUses" => t.tool_uses = Some(positive_int(v, &at)?),
      "turns" => t.turns = Some(positive_int(v, &at)?),
      "fraction" => {
        let f = number(v, &at)?;
        if !(f > 0.0 && f <= 1.0) {
          return Err(Error::invalid_option(
            at,
            format!("expected a number in (0, 1], got {}", show(v)),
          ));
        }
        t.fraction = Some(f);
      }
      _ => {
        return Err(Error::invalid_option(
          at,
          "unknown trigger condition (expected tokens, messages, fraction, toolUses or turns)",
        ))
      }
    }
  }
  if t == Trigger::default() {
    return Err(Error::invalid_option(
      path,
      "expected at least one of tokens, messages, fraction, toolUses, turns",
    ));
  }
  Ok(t)
}

fn parse_keep(value: &Value, path: &str) -> Result<Keep> {
  let Value::Object(obj) = value else {
    return Err(Error::invalid_option(
      path,
      format!(
        "expected an object with exactly one of messages, tokens, fraction, got {}",
        type_name(value)
      ),
    ));
  };
  let mut set = Vec::new();
  for (key, v) in obj {
    if v.is_null() {
      continue;
    }
    if !matches!(key.as_str(), "messages" | "tokens" | "fraction") {
      return Err(Error::invalid_option(
        format!("{path}.{key}"),
        "unknown keep measure (expected messages, tokens or fraction)",
      ));
    }
    set.push((key.as_str(), v));
  }
  if set.len() != 1 {
    let got = if set.is_empty() {
      "none".to_owned()
    } else {
      set.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
    };
    return Err(Error::invalid_option(
      path,
      format!("exactly one of messages, tokens, fraction (got {got})"),
    ));
  }
  let (key, v) = set[0];
  let at = format!("{path}.{key}");
  Ok(match key {
    "messages" => Keep::Messages(non_negative_int(v, &at)?),
    "tokens" => {
      let n = number(v, &at)?;
      if n < 0.0 {
        return Err(Error::invalid_option(
          at,
          format!("expected a number >= 0, got {}", show(v)),
        ));
      }
      Keep::Tokens(n)
    }
    _ => {
      let f = number(v, &at)?;
      if !(0.0..=1.0).contains(&f) {
        return Err(Error::invalid_option(
          at,
          format!("expected a number in [0, 1], got {}", show(v)),
        ));
      }
      Keep::Fraction(f)
    }
  })
}

/// A field, treating JSON `null` as absent (the Xpert UI sends `null` for unset fields).
fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
  obj.get(key).filter(|v| !v.is_null())
}

fn opt_string(obj: &Map<String, Value>, key: &str, path: &str) -> Result<Option<String>> {
  match field(obj, key) {
    None => Ok(None),
    Some(Value::String(s)) => Ok(Some(s.clone())),
    Some(other) => Err(Error::invalid_option(
      path,
      format!("expected a string, got {}", show(other)),
    )),
  }
}

fn string_list(value: &Value, path: &str) -> Result<Vec<String>> {
  let Value::Array(list) = value else {
    return Err(Error::invalid_option(
      path,
      format!("expected a list of tool names, got {}", show(value)),
    ));
  };
  list
    .iter()
    .enumerate()
    .map(|(i, v)| match v {
      Value::String(s) => Ok(s.clone()),
      other => Err(Error::invalid_option(
        format!("{path}[{i}]"),
        format!("expected a string, got {}", show(other)),
      )),
    })
    .collect()
}

fn number(value: &Value, path: &str) -> Result<f64> {
  match value.as_f64() {
    Some(n) if n.is_finite() => Ok(n),
    _ => Err(Error::invalid_option(
      path,
      format!("expected a number, got {}", show(value)),
    )),
  }
}

fn positive_number(value: &Value, path: &str) -> Result<f64> {
  let n = number(value, path)?;
  if n > 0.0 {
    Ok(n)
  } else {
    Err(Error::invalid_option(
      path,
      format!("expected a number > 0, got {}", show(value)),
    ))
  }
}

fn non_negative_int(value: &Value, path: &str) -> Result<u64> {
  if let Some(n) = value.as_u64() {
    return Ok(n);
  }
  match value.as_f64() {
    // 5.0 from JavaScript is an integer.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Some(f) if f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f <= 9_007_199_254_740_991.0 => {
      Ok(f as u64)
    }
    _ => Err(Error::invalid_option(
      path,
      format!("expected an integer >= 0, got {}", show(value)),
    )),
  }
}

fn positive_int(value: &Value, path: &str) -> Result<u64> {
  match non_negative_int(value, path) {
    Ok(n) if n > 0 => Ok(n),
    _ => Err(Error::invalid_option(
      path,
      format!("expected an integer > 0, got {}", show(value)),
    )),
  }
}

/// A short rendering of a JSON value for error messages.
pub(crate) fn show(value: &Value) -> String {
  let s = value.to_string();
  if s.len() > 40 {
    let mut end = 40;
    while !s.is_char_boundary(end) {
      end -= 1;
    }
    format!("{}…", &s[..end])
  } else {
    s
  }
}

pub(crate) fn type_name(value: &Value) -> &'static str {
  match value {
    Value::Null => "null",
    Value::Bool(_) => "a boolean",
    Value::Number(_) => "a number",
    Value::String(_) => "a string",
    Value::Array(_) => "an array",
    Value::Object(_) => "an object",
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use serde_json::json;

  fn clear(v: Value) -> ClearToolUses {
    match Options::from_json(&v).unwrap().edits.remove(0) {
      Edit::ClearToolUses(c) => c,
      other => panic!("expected clear_tool_uses, got {other:?}"),
    }
  }

  fn err(v: Value) -> String {
    Options::from_json(&v).unwrap_err().to_string()
  }

  #[test]
  fn defaults_match_langchain() {
    let c = clear(json!({}));
    assert_eq!(
      c.trigger,
      vec![Trigger {
        tokens: Some(100_000.0),
        ..Trigger::default()
      }]
    );
    assert_eq!(c.keep, Keep::Messages(3));
    assert_eq!(c.placeholder, "[cleared]");
    assert_eq!(c.clear_tool_inputs, ClearInputs::None);
    assert_eq!(c.clear_at_least, 0);
    assert_eq!(
      Options::from_json(&Value::Null).unwrap(),
      Options::default()
    );
  }

  #[test]
  fn null_fields_are_unset() {
    let c = clear(
      json!({ "trigger": null, "keep": { "messages": null, "tokens": 50 }, "placeholder": null }),
    );
    assert_eq!(c.keep, Keep::Tokens(50.0));
    assert_eq!(c.placeholder, "[cleared]");
  }

  #[test]
  fn trigger_array_and_aliases() {
    let c = clear(json!({ "trigger": [{ "tokens": 10, "messages": 2 }, { "fraction": 0.5 }] }));
    assert_eq!(c.trigger.len(), 2);
    assert_eq!(c.trigger[0].messages, Some(2));
    let c = clear(json!({ "triggerTokens": 7, "keepMessages": 1 }));
    assert_eq!(c.trigger[0].tokens, Some(7.0));
    assert_eq!(c.keep, Keep::Messages(1));
  }

  #[test]
  fn errors_name_the_path() {
    assert_eq!(
      err(json!({ "keep": {} })),
      "keep: exactly one of messages, tokens, fraction (got none)"
    );
    assert_eq!(
      err(json!({ "trigger": [{ "tokens": 5 }, { "fraction": 2 }] })),
      "trigger[1].fraction: expected a number in (0, 1], got 2"
    );
    assert_eq!(
      err(json!({ "trigger": { "tokens": -1 } })),
      "trigger.tokens: expected a number > 0, got -1"
    );
    assert_eq!(
      err(json!({ "trigger": { "messages": 1.5 } })),
      "trigger.messages: expected an integer > 0, got 1.5"
    );
    assert_eq!(
      err(json!({ "excludeTools": ["a", 3] })),
      "excludeTools[1]: expected a string, got 3"
    );
    assert!(err(json!({ "keepp": 1 })).starts_with("keepp: unknown option (expected one of"));
    assert_eq!(
      err(json!({ "tokenCountMethod": "exact" })),
      "tokenCountMethod: expected \"approx\", \"model\" or \"estimate\", got \"exact\""
    );
    assert!(err(json!({ "encoding": "gpt9" })).contains("unknown encoding `gpt9`"));
    assert_eq!(
      err(json!({ "trigger": {} })),
      "trigger: expected at least one of tokens, messages, fraction, toolUses, turns"
    );
    assert_eq!(err(json!([])), "options: expected an object, got an array");
  }

  #[test]
  fn edits_pipeline_and_conflicts() {
    let o = Options::from_json(
      &json!({ "edits": [{ "type": "clear_tool_uses", "keep": { "messages": 1 } }] }),
    )
    .unwrap();
    assert_eq!(o.edits.len(), 1);
    assert!(err(json!({ "edits": [], "keep": { "messages": 1 } }))
      .starts_with("keep: top-level clearing options"));
    assert_eq!(
      err(json!({ "edits": [{ "type": "zap" }] })),
      "edits[0].type: unknown edit type `zap` (expected one of clear_tool_uses, clear_thinking, last_n, strip_tool_calls, strip_and_truncate, trim_turns, truncate_tool_results, summarize)"
    );
    assert_eq!(
      err(json!({ "edits": [{ "type": "summarize" }, { "type": "last_n", "n": 3 }] })),
      "edits[0].type: `summarize` must be the last edit (its result is written by the model after planning)"
    );
    assert_eq!(
      err(json!({ "edits": [{ "type": "last_n" }] })),
      "edits[0].n: `last_n` needs `n`, the number of non-system messages to keep"
    );
    assert_eq!(
      err(json!({ "edits": [{ "type": "clear_thinking", "keep": 2 }] })),
      "edits[0].keep: expected { thinkingTurns: N } or \"all\", got 2"
    );
    assert!(err(
      json!({ "edits": [{ "type": "summarize", "keep": { "turns": 1, "messages": 2 } }] })
    )
    .starts_with("edits[0].keep: exactly one of messages, tokens, fraction, turns"));
    assert!(
      err(json!({ "edits": [{ "type": "clear_tool_uses", "kep": 1 }] }))
        .starts_with("edits[0].kep: unknown option")
    );
  }

  #[test]
  fn clear_tool_inputs_accepts_a_list() {
    let c = clear(json!({ "clearToolInputs": ["search"] }));
    assert!(c.clear_tool_inputs.applies_to("search"));
    assert!(!c.clear_tool_inputs.applies_to("read"));
  }
}
