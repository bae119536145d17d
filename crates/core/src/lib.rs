//! # context-editor-core
//!
//! Keeps an LLM agent's conversation inside its context window: decides which old tool results to
//! clear, counts tokens exactly (tiktoken ranks embedded, no network) or approximately (LangChain's
//! `chars / 4`), and reports what it did. Pure Rust: no I/O, no Node.js types; the napi binding and
//! the TypeScript shim are thin layers on top.
//!
//! ## Plans, not rewritten messages
//!
//! [`ContextEditor::plan`] takes wire [`Message`]s and returns an [`EditPlan`]: index-based
//! [`Op`]s (`Remove`, `ClearToolResult`, `ClearToolInputs`) plus a [`Report`]. The caller applies the
//! operations to *its own* message objects, so ids, metadata, unknown fields and class identity
//! survive, and the input is never mutated. [`EditPlan::apply`] is the reference application on wire
//! messages.
//!
//! ## Counting
//!
//! Every message is measured once per call and totals are updated incrementally as results are
//! cleared, so a call is linear in the size of the conversation (LangChain recounts the whole history
//! after each clear). In `approx` mode the measure is UTF-16 code units, exactly LangChain's
//! `countTokensApproximately`; in `model` mode it is BPE tokens plus OpenAI's per-message framing,
//! and long strings go through a bounded per-editor cache keyed by a 128-bit content hash, so a
//! growing conversation only tokenizes what is new.
//!
//! ## Edge-case policy
//!
//! Orphaned tool results (no earlier call) are removed on every call and reported. Malformed input is
//! an [`Error`] naming the message index and field; oddities that do not prevent a correct edit
//! (dangling calls, unknown model names, an unknown input limit) are [`Warning`]s in the report.
//!
//! ## Layout
//!
//! The modules form layers; each uses only those listed before it (`tests/module_graph.rs` fails
//! on an import cycle):
//!
//! - `error`, `message`: the error type and the wire message model.
//! - `tokenizer`: what a text costs, behind one `Counter` interface (exact BPE, the estimate;
//!   LangChain's approximation beside them).
//! - `options`: the typed options and their JSON parser; `trigger`: when an edit fires.
//! - `plan`: what a call returns (operations and report); `measure`: what a message costs, with
//!   the token caches.
//! - `draft`: the working state of one call, which the `edits` transform in turn.
//! - `pipeline`: one planning call (orphans, edits, report, cache breakpoints); `session`: the
//!   histories kept between calls; `editor`: the public [`ContextEditor`].
#![warn(missing_docs)]

mod context;
mod draft;
mod editor;
mod edits;
mod error;
mod grown;
mod measure;
mod message;
mod options;
mod pipeline;
mod plan;
mod registry;
mod session;
mod tokenizer;
mod trigger;

pub use editor::{validate_context, Context, ContextEditor, TokenCount};
pub use edits::truncation_marker;
pub use error::{Error, ErrorKind, Result};
pub use measure::{
  TokenCache, IMAGE_TOKENS, MESSAGE_OVERHEAD, NAME_OVERHEAD, REPLY_PRIMING, TOOL_CALL_OVERHEAD,
  TOOL_DEFINITION_OVERHEAD,
};
pub use message::{utf16_len, Message, Role, ToolCall, EMPTY_ARGS};
/// The one declaration of the options, their JSON Schema and their defaults (see `options/spec.rs`).
pub use options::{json_schema as options_json_schema, option_defaults, spec as option_spec};
pub use options::{
  ClearInputs, ClearMedia, ClearThinking, ClearToolUses, Edit, Gate, Keep, LastN, MediaKeep,
  Options, Stable, Summarize, SummaryKeep, SummaryRole, ThinkingKeep, TokenCountMethod, Trigger,
  TrimTurns, TruncateToolResults, DEEPAGENTS_KEEP_FRACTION, DEEPAGENTS_KEEP_MESSAGES,
  DEEPAGENTS_TRIGGER_FRACTION, DEEPAGENTS_TRIGGER_TOKENS, DEFAULT_KEEP_MESSAGES, DEFAULT_MAX_TURNS,
  DEFAULT_MEDIA_PLACEHOLDER, DEFAULT_PLACEHOLDER, DEFAULT_STEP_RESULTS, DEFAULT_STEP_TOKENS,
  DEFAULT_SUMMARY_PREFIX, DEFAULT_SUMMARY_PROMPT, DEFAULT_THINKING_TURNS, DEFAULT_TOKEN_CACHE_SIZE,
  DEFAULT_TOOL_TRIM_LIMIT, DEFAULT_TRIGGER_TOKENS, DEFAULT_TRIM_TOKENS_TO_SUMMARIZE, EDIT_TYPES,
};
pub use options::{
  Pin, Prefer, ResourceTool, Supersede, DEFAULT_READERS, DEFAULT_RESOURCE_ARGS, DEFAULT_WRITERS,
};
pub use pipeline::MAX_CACHE_BREAKPOINTS;
pub use plan::{
  AppliedEdit, ClearedInput, ClearedResult, EditPlan, Op, RemovedOrphan, Report, SummaryRequest,
  Warning, CLEAR_TOOL_USES_STRATEGY, TRUNCATE_STRATEGY,
};
pub use registry::MAX_PROCESS_SESSION_BYTES;
pub use session::{session_capacity, MAX_SESSIONS, MAX_SESSION_BYTES};
#[doc(hidden)]
pub use tokenizer::{in_background, pieces, set_counting_threads};
pub use tokenizer::{
  load_tokenizer, tokenizer_by_source, tokenizer_loaded, Encoding, Family, Framing, HfTokenizer,
  TokenizerOption, CHARS_PER_TOKEN,
};
