//! Editor options: what to edit, when, and how to count. [`spec`] declares every key once (JSON
//! type, allowed values, default, doc line) and [`schema`] writes the JSON Schema from it; [`types`]
//! holds the typed options with their defaults; [`parse`] reads them from JSON with errors that
//! name the option path, asking the declaration which keys exist; `values` holds the readers of
//! single JSON values.
//!
//! The option names and defaults mirror LangChain.js `ClearToolUsesEdit` and the Xpert
//! `ContextEditingMiddleware` plugin (same algorithm), so a JSON option block written for either
//! works unchanged. Mirrors langchainjs `libs/langchain/src/agents/middleware/contextEditing.ts`
//! (langchain 1.5.14) and the `contextSizeSchema`/`keepSchema` of `summarization.ts`.

mod declare;
mod parse;
mod prefer;
mod schema;
pub mod spec;
#[cfg(test)]
mod spec_tests;
#[cfg(test)]
mod tests;
mod types;
mod values;

pub use schema::json_schema;
pub use spec::{defaults as option_defaults, EDIT_TYPES};
pub use types::{
  ClearInputs, ClearMedia, ClearThinking, ClearToolUses, Edit, Gate, Keep, LastN, MediaKeep,
  Options, Stable, Summarize, SummaryKeep, SummaryRole, ThinkingKeep, TokenCountMethod, Trigger,
  TrimTurns, TruncateToolResults, DEEPAGENTS_KEEP_FRACTION, DEEPAGENTS_KEEP_MESSAGES,
  DEEPAGENTS_TRIGGER_FRACTION, DEEPAGENTS_TRIGGER_TOKENS, DEFAULT_KEEP_MESSAGES, DEFAULT_MAX_TURNS,
  DEFAULT_MEDIA_PLACEHOLDER, DEFAULT_PLACEHOLDER, DEFAULT_STEP_RESULTS, DEFAULT_STEP_TOKENS,
  DEFAULT_SUMMARY_PREFIX, DEFAULT_SUMMARY_PROMPT, DEFAULT_THINKING_TURNS, DEFAULT_TOKEN_CACHE_SIZE,
  DEFAULT_TOOL_TRIM_LIMIT, DEFAULT_TRIGGER_TOKENS, DEFAULT_TRIM_TOKENS_TO_SUMMARIZE,
};
pub use types::{
  Pin, Prefer, ResourceTool, Supersede, DEFAULT_READERS, DEFAULT_RESOURCE_ARGS, DEFAULT_WRITERS,
};
