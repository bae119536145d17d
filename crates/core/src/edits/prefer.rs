//! Stale results first (`prefer` of `clear_tool_uses`): a result is *duplicate* when a later call
//! of the same tool has equal arguments, and *superseded* when a later call of a writer tool names
//! the same file as its own call (`read_file(path)`, then `edit_file(path)`). Such results are
//! cleared before the keep rule counts, whatever their age: the model has a newer copy, or the
//! file changed since.
//!
//! One pass over the calls from the newest back, with the arguments parsed once: for each call the
//! nearest later duplicate or write is found in a hash map, so the cost is linear in the calls. A
//! call sent without its arguments (length only) is never stale: there is nothing to compare.

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::draft::{CallRef, Draft};
use crate::message::{Role, ToolCall};
use crate::options::{Prefer, ResourceTool, DEFAULT_RESOURCE_ARGS};

/// Report reason: a later call of the same tool has equal arguments.
pub(crate) const DUPLICATE: &str = "duplicate";
/// Report reason: a later write names the same file.
pub(crate) const SUPERSEDED: &str = "superseded";

/// Why a result is stale, and the assistant message whose call made it so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stale {
  pub reason: &'static str,
  /// Index of the message holding the later call (the result is stale from there on).
  pub since: usize,
}

/// For each of `candidates` (tool results), whether it is stale; `None` when `prefer` is off.
pub(super) fn stale_results(
  prefer: &Prefer,
  draft: &Draft<'_, '_>,
  pairs: &[Option<CallRef>],
  candidates: &[usize],
) -> Option<Vec<Option<Stale>>> {
  if !prefer.any() {
    return None;
  }
  let calls = stale_calls(prefer, draft);
  Some(
    candidates
      .iter()
      .map(|&i| pairs[i].and_then(|call| calls.get(&call).copied()))
      .collect(),
  )
}

/// The stale calls, by where they are.
fn stale_calls(prefer: &Prefer, draft: &Draft<'_, '_>) -> FxHashMap<CallRef, Stale> {
  let mut stale = FxHashMap::default();
  // The nearest later call with the same tool and arguments / the nearest later write of a file.
  let mut later_same: FxHashMap<(&str, String), usize> = FxHashMap::default();
  let mut later_write: FxHashMap<String, usize> = FxHashMap::default();
  let assistants: Vec<usize> = draft
    .alive()
    .filter(|&i| draft.msgs[i].role == Role::Assistant)
    .collect();
  for &i in assistants.iter().rev() {
    for k in draft.live_calls(i).into_iter().rev() {
      let call = &draft.msgs[i].tool_calls[k];
      let Some(args) = call.args.as_deref() else {
        continue;
      };
      let parsed: Option<Value> = serde_json::from_str(args).ok();
      let resource = prefer.superseded.as_ref().and_then(|s| {
        let writer = find(&s.writers, call);
        let tool = writer.or_else(|| find(&s.readers, call))?;
        Some((resource_of(tool, parsed.as_ref()?)?, writer.is_some()))
      });
      let same = prefer.duplicate.then(|| {
        let key = parsed.as_ref().map_or_else(|| args.to_owned(), canonical);
        (call.name.as_str(), key)
      });
      let by_write = resource
        .as_ref()
        .and_then(|(r, _)| later_write.get(r))
        .map(|&since| Stale {
          reason: SUPERSEDED,
          since,
        });
      let by_same = same
        .as_ref()
        .and_then(|key| later_same.get(key))
        .map(|&since| Stale {
          reason: DUPLICATE,
          since,
        });
      if let Some(s) = by_write.or(by_same) {
        stale.insert((i, k), s);
      }
      if let Some(key) = same {
        later_same.insert(key, i);
      }
      if let Some((r, true)) = resource {
        later_write.insert(r, i);
      }
    }
  }
  stale
}

/// The entry of `tools` for the call's tool, if any.
fn find<'t>(tools: &'t [ResourceTool], call: &ToolCall) -> Option<&'t ResourceTool> {
  tools.iter().find(|t| t.tool == call.name)
}

/// The file a call names: the value at the tool's argument path (or the first default argument
/// present), a string without a leading `./`, other values as canonical JSON.
fn resource_of(tool: &ResourceTool, args: &Value) -> Option<String> {
  let value = match &tool.path {
    Some(path) => path.iter().try_fold(args, |v, key| v.get(key))?,
    None => DEFAULT_RESOURCE_ARGS.iter().find_map(|k| args.get(*k))?,
  };
  match value {
    Value::String(s) => Some(s.strip_prefix("./").unwrap_or(s).to_owned()),
    Value::Null => None,
    other => Some(canonical(other)),
  }
}

/// JSON text with object keys sorted at every level, so equal arguments compare equal whatever
/// the order the model wrote them in.
fn canonical(value: &Value) -> String {
  fn write(value: &Value, out: &mut String) {
    match value {
      Value::Object(map) => {
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort();
        out.push('{');
        for (n, key) in keys.into_iter().enumerate() {
          if n > 0 {
            out.push(',');
          }
          out.push_str(&Value::String(key.clone()).to_string());
          out.push(':');
          write(&map[key], out);
        }
        out.push('}');
      }
      Value::Array(items) => {
        out.push('[');
        for (n, item) in items.iter().enumerate() {
          if n > 0 {
            out.push(',');
          }
          write(item, out);
        }
        out.push(']');
      }
      other => out.push_str(&other.to_string()),
    }
  }
  let mut out = String::new();
  write(value, &mut out);
  out
}
