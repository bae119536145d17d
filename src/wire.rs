//! The options at the boundary. They cross as one JSON value (`NativeContextEditor`'s constructor
//! reads it with `input::options_from_js`) and the core parses them, so unknown keys and bad values
//! are reported with their path in the core's words. Their TypeScript types are not written here:
//! the core declares every option once (`crates/core/src/options/spec.rs`), `npm run gen:options`
//! writes `ts/generated/options.ts` from its JSON Schema, and `binding.d.cts` carries that file as
//! its header (`napi.dtsHeaderFile` in package.json). This module exposes the declaration's
//! products to JavaScript: the JSON Schema and the defaults.

use context_editor_core as core;
use napi_derive::napi;

/// The JSON Schema (draft 2020-12) of the editor options, from the core's declaration: `$defs` holds
/// every option object by its TypeScript name; `null` is allowed wherever a value is (unset).
#[napi(ts_return_type = "OptionsJsonSchema")]
#[must_use]
pub fn options_schema() -> serde_json::Value {
  core::options_json_schema()
}

/// The declared defaults, by edit type (`editor` for the top-level keys): what the core assumes for
/// an option left out (`{ clear_tool_uses: { placeholder: '[cleared]', ... }, ... }`).
#[napi(ts_return_type = "OptionDefaults")]
#[must_use]
pub fn option_defaults() -> serde_json::Value {
  core::option_defaults()
}
