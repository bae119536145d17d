//! The chat templates of the open-weight families, rendered piece by piece: counting the pieces
//! with the family's own tokenizer gives what the template's whole rendering counts.
//!
//! A template's rendering is text with the family's special tokens in it (`<|im_start|>`,
//! `<｜User｜>`, `[INST]`…). The tokenizer matches special tokens before anything else, so the
//! text between two of them is tokenized on its own: a piece that begins and ends at special
//! tokens (or where the pre-tokenizer always splits) counts the same alone as in the whole. Each
//! message is rendered into such pieces, with the template text that touches its content in the
//! same piece as the content (`\n</tool_response>` after a tool result merges with its last
//! characters: `}\n` is one token in Qwen's vocabulary), so a message's count is exact whatever
//! its content. What a template writes once for a run of messages (Qwen's `<|im_start|>user` …
//! `<|im_end|>` around consecutive tool results) goes with the run's first message; what it writes
//! once per request (Qwen 2.5's default system prompt when the request has none) goes with the
//! first message as its `lead`, which stays counted when an edit removes that message (the
//! template writes it for the new first message). The framing therefore depends only on the
//! messages before a message, so a session's measures stay valid as the conversation grows.
//!
//! Where the templates are not deterministic about a message, or leave out something a real
//! request carries, the choice is written where the family is rendered and in
//! `docs/token-counting.md`; `__test__/tokenizer-templates.spec.mjs` renders seeded random
//! conversations with each package's `chat_template` and pins every difference.

use super::tojson::spaced_json;
use crate::message::{Message, Role};
use crate::tokenizer::Family;

/// Qwen 2.5's system prompt when a request has none.
pub(crate) const QWEN25_DEFAULT_SYSTEM: &str =
  "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";
const QWEN_TOOLS_HEAD: &str = "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n";
const QWEN_TOOLS_TAIL: &str = "</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n";

/// What the request holds beside the messages, as far as templates care.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Request {
  /// A system prompt is sent before the messages.
  pub system_prompt: bool,
  /// Tool definitions are sent.
  pub tools: bool,
}

/// Where a message sits, as far as templates care.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)] // independent facts, not a state machine
pub(crate) struct Place {
  /// The first message of the request (no system prompt before it).
  pub first: bool,
  /// The role of the message before, if any.
  pub prev: Option<Role>,
  /// The first system message of the request (no system prompt before it).
  pub first_system: bool,
  /// An earlier assistant message has tool calls and no text (`DeepSeek`'s template renders the
  /// first such call of a conversation differently).
  pub calls_before: bool,
  /// After the last user query (Qwen 3 renders reasoning there).
  pub after_query: bool,
  /// The last message of the request.
  pub last: bool,
}

/// Where each of `messages[from..]` sits.
pub(crate) fn places(messages: &[Message], from: usize, request: Request) -> Vec<Place> {
  let query = messages
    .iter()
    .rposition(|m| {
      m.role == Role::User && {
        let c = m.content.as_deref().unwrap_or("");
        !(c.starts_with("<tool_response>") && c.ends_with("</tool_response>"))
      }
    })
    .unwrap_or(messages.len().saturating_sub(1));
  let mut out = Vec::with_capacity(messages.len().saturating_sub(from));
  let mut system_seen = request.system_prompt;
  let mut calls_before = false;
  for (i, m) in messages.iter().enumerate() {
    let place = Place {
      first: i == 0 && !request.system_prompt,
      prev: i.checked_sub(1).map(|p| messages[p].role),
      first_system: m.role == Role::System && !system_seen,
      calls_before,
      after_query: i > query,
      last: i + 1 == messages.len(),
    };
    system_seen |= m.role == Role::System;
    calls_before |= m.role == Role::Assistant && !m.tool_calls.is_empty() && text(m).is_empty();
    if i >= from {
      out.push(place);
    }
  }
  out
}

/// A message rendered into pieces, each counted whole.
#[derive(Debug, Default)]
pub(crate) struct Rendered {
  /// What the template writes once per request, before the first message (see the module notes).
  pub lead: Option<String>,
  /// The message's own pieces.
  pub body: Vec<String>,
  /// The body without the reasoning, for templates that render it (what `clear_thinking` frees).
  pub without_thinking: Option<Vec<String>>,
  /// Each tool call as rendered, and the same with `{}` arguments.
  pub calls: Vec<(String, String)>,
}

fn text(m: &Message) -> &str {
  m.content.as_deref().unwrap_or("")
}

/// Renders `m` (its content replaced by `content` when given: a cleared or truncated result).
pub(crate) fn render(
  family: Family,
  m: &Message,
  place: Place,
  request: Request,
  content: Option<&str>,
) -> Rendered {
  let c = content.unwrap_or_else(|| text(m));
  let mut r = Rendered::default();
  match family {
    Family::Qwen25 | Family::Qwen3 => qwen(family == Family::Qwen3, m, c, place, request, &mut r),
    Family::DeepSeekV3 => deepseek(m, c, place, &mut r),
    Family::Llama3 | Family::Gemma3 => headers(family, m, c, place, &mut r),
    Family::MistralTekken => mistral(m, c, place, &mut r),
    Family::Glm4 => glm(m, c, &mut r),
  }
  r
}

/// The pieces the request's own system prompt and tool definitions render to, or `None` when the
/// family counts tool definitions as their JSON plus a fixed overhead (its template does not
/// render them); the system prompt is then the first piece.
pub(crate) fn fixed(
  family: Family,
  system_prompt: Option<&str>,
  tools: &[String],
) -> (Vec<String>, bool) {
  let mut out = Vec::new();
  let qwen = matches!(family, Family::Qwen25 | Family::Qwen3);
  let mistral_tools = (family == Family::MistralTekken && !tools.is_empty())
    .then(|| mistral_tools(tools))
    .flatten();
  if let Some(s) = system_prompt {
    out.push(match family {
      Family::Qwen25 | Family::Qwen3 if !tools.is_empty() => format!("<|im_start|>system\n{s}\n\n"),
      Family::Qwen25 | Family::Qwen3 => format!("<|im_start|>system\n{s}<|im_end|>\n"),
      Family::DeepSeekV3 => s.to_owned(),
      Family::Llama3 => format!(
        "<|start_header_id|>system<|end_header_id|>\n\n{}<|eot_id|>",
        s.trim()
      ),
      Family::Gemma3 | Family::MistralTekken => format!("{s}\n\n"),
      Family::Glm4 if s.is_empty() => String::new(),
      Family::Glm4 => format!("<|system|>\n{s}"),
    });
  }
  if qwen && !tools.is_empty() {
    out.push(QWEN_TOOLS_HEAD.to_owned());
    out.extend(tools.iter().map(|t| format!("{}\n", spaced_json(t))));
    out.push(QWEN_TOOLS_TAIL.to_owned());
  }
  let renders = qwen || mistral_tools.is_some();
  out.extend(mistral_tools);
  (out, renders)
}

/// Mistral's `[AVAILABLE_TOOLS][…][/AVAILABLE_TOOLS]` (before the last user message): each
/// definition's `function` entries, strings unquoted as the template writes them. `None` when a
/// definition is not OpenAI's `{"type": "function", "function": {…}}`.
fn mistral_tools(tools: &[String]) -> Option<String> {
  let mut defs = Vec::with_capacity(tools.len());
  for t in tools {
    let v: serde_json::Value = serde_json::from_str(t).ok()?;
    let entries: Vec<String> = v
      .get("function")?
      .as_object()?
      .iter()
      .filter(|(k, _)| k.as_str() != "return")
      .map(|(k, v)| match v {
        serde_json::Value::String(s) => format!("\"{k}\": \"{s}\""),
        v => format!("\"{k}\": {}", spaced_json(&v.to_string())),
      })
      .collect();
    defs.push(format!(
      "{{\"type\": \"function\", \"function\": {{{}}}}}",
      entries.join(", ")
    ));
  }
  Some(format!(
    "[AVAILABLE_TOOLS][{}][/AVAILABLE_TOOLS]",
    defs.join(", ")
  ))
}

fn qwen(qwen3: bool, m: &Message, c: &str, place: Place, request: Request, r: &mut Rendered) {
  if place.first && m.role != Role::System {
    r.lead = match (qwen3, request.tools) {
      (false, false) => Some(format!(
        "<|im_start|>system\n{QWEN25_DEFAULT_SYSTEM}<|im_end|>\n"
      )),
      (false, true) => Some(format!("<|im_start|>system\n{QWEN25_DEFAULT_SYSTEM}\n\n")),
      (true, true) => Some("<|im_start|>system\n".to_owned()),
      (true, false) => None,
    };
  }
  match m.role {
    Role::System if place.first && request.tools => {
      r.body.push(format!("<|im_start|>system\n{c}\n\n"));
    }
    Role::System | Role::User => {
      r.body
        .push(format!("<|im_start|>{}\n{c}<|im_end|>\n", m.role.as_str()));
    }
    Role::Assistant if qwen3 => qwen3_assistant(m, c, place, r),
    Role::Assistant => {
      let calls = !m.tool_calls.is_empty();
      r.body.push(match (calls, c.is_empty()) {
        (false, _) => format!("<|im_start|>assistant\n{c}<|im_end|>\n"),
        (true, true) => "<|im_start|>assistant\n".to_owned(),
        (true, false) => format!("<|im_start|>assistant\n{c}\n"),
      });
      if calls {
        r.body.push("<|im_end|>\n".to_owned());
        qwen_calls(m, r);
      }
    }
    Role::Tool => {
      // Consecutive results share one user turn. Qwen 3's `<tool_response>` tags are special
      // tokens; Qwen 2.5's are text, where `>\n` is one token: each result takes the line feed
      // that follows it (the last one's `>\n` counts as its `>` would before `<|im_end|>`).
      let open = place.prev != Some(Role::Tool);
      let head = if open { "<|im_start|>user" } else { "" };
      r.body.push(if qwen3 {
        format!("{head}\n<tool_response>\n{c}\n</tool_response>")
      } else {
        let head = if open { "<|im_start|>user\n" } else { "" };
        format!("{head}<tool_response>\n{c}\n</tool_response>\n")
      });
      if open {
        r.body.push("<|im_end|>\n".to_owned());
      }
    }
  }
}

/// Qwen's tool calls: `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`, the arguments as
/// the template's `tojson` writes an object (`, ` and `: ` separators), after a line feed between
/// calls.
fn qwen_calls(m: &Message, r: &mut Rendered) {
  for (k, call) in m.tool_calls.iter().enumerate() {
    let sep = if k > 0 { "\n" } else { "" };
    let render = |args: &str| {
      format!(
        "{sep}<tool_call>\n{{\"name\": \"{}\", \"arguments\": {args}}}\n</tool_call>",
        call.name
      )
    };
    let args = spaced_json(call.args.as_deref().unwrap_or("{}"));
    r.calls.push((render(&args), render("{}")));
  }
}

/// Qwen 3 writes the reasoning of the assistant messages after the last user query (and an empty
/// `<think>` block in a last assistant message), and only there; reasoning kept in the content
/// between `<think>` tags is split out the same way.
fn qwen3_assistant(m: &Message, c: &str, place: Place, r: &mut Rendered) {
  let thinking = m.thinking.as_deref().filter(|t| !t.is_empty());
  let head = |reasoning: Option<&str>| {
    let (content, reasoning) = qwen3_split(c, reasoning);
    let think = place.after_query && (place.last || !reasoning.is_empty());
    let mut s = if think {
      format!(
        "<|im_start|>assistant\n<think>\n{}\n</think>\n\n{}",
        reasoning.trim_matches('\n'),
        content.trim_start_matches('\n')
      )
    } else {
      format!("<|im_start|>assistant\n{content}")
    };
    if !m.tool_calls.is_empty() && !content.is_empty() {
      s.push('\n');
    }
    s.push_str("<|im_end|>\n");
    s
  };
  r.body.push(head(thinking));
  if thinking.is_some() {
    r.without_thinking = Some(vec![head(None)]);
  }
  qwen_calls(m, r);
}

/// Qwen 3's (content, reasoning) of an assistant message: the reasoning given, else what the
/// content holds before `</think>`.
fn qwen3_split<'a>(c: &'a str, reasoning: Option<&'a str>) -> (&'a str, &'a str) {
  if let Some(r) = reasoning {
    return (c, r);
  }
  match (c.find("</think>"), c.rfind("</think>")) {
    (Some(first), Some(last)) => {
      let content = c[last + "</think>".len()..].trim_start_matches('\n');
      let before = c[..first].trim_end_matches('\n');
      let reasoning = before
        .rsplit("<think>")
        .next()
        .unwrap_or(before)
        .trim_start_matches('\n');
      (content, reasoning)
    }
    _ => (c, ""),
  }
}

const DS_CALL: &str = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>";

/// `DeepSeek` V3's template (the package's): system prompts joined at the top, `<｜User｜>`,
/// `<｜Assistant｜>` … `<｜end▁of▁sentence｜>`, tool outputs in `<｜tool▁output▁begin｜>` tags.
fn deepseek(m: &Message, c: &str, place: Place, r: &mut Rendered) {
  match m.role {
    Role::System if place.first_system => r.body.push(c.to_owned()),
    Role::System => r.body.push(format!("\n\n{c}")),
    Role::User => r.body.push(format!("<｜User｜>{c}")),
    // Outputs after the first: `\n` between two special tokens, one token like the first's
    // `<｜tool▁outputs▁begin｜>`.
    Role::Tool => r
      .body
      .push(format!("\n<｜tool▁output▁begin｜>{c}<｜tool▁output▁end｜>")),
    Role::Assistant if m.tool_calls.is_empty() || !c.is_empty() => {
      r.body
        .push(format!("<｜Assistant｜>{c}<｜end▁of▁sentence｜>"));
      // The package's template drops the calls of a message with text; the later templates
      // (V3-0324, R1-0528) and the API send them: counted as those write them.
      let last = m.tool_calls.len().saturating_sub(1);
      for (k, call) in m.tool_calls.iter().enumerate() {
        let open = if k == 0 {
          "<｜tool▁calls▁begin｜>"
        } else {
          "\n"
        };
        let close = if k == last {
          "<｜tool▁calls▁end｜>"
        } else {
          ""
        };
        let render = |args: &str| {
          format!(
            "{open}{DS_CALL}{}\n```json\n{args}\n```<｜tool▁call▁end｜>{close}",
            call.name
          )
        };
        r.calls
          .push((render(call.args.as_deref().unwrap_or("{}")), render("{}")));
      }
    }
    Role::Assistant => {
      // Only the conversation's first call opens `<｜Assistant｜><｜tool▁calls▁begin｜>`; every
      // later one is followed by `<｜tool▁calls▁end｜><｜end▁of▁sentence｜>` (the template's state).
      for (k, call) in m.tool_calls.iter().enumerate() {
        let first = k == 0 && !place.calls_before;
        let render = |args: &str| {
          let body = format!(
            "{DS_CALL}{}\n```json\n{args}\n```<｜tool▁call▁end｜>",
            call.name
          );
          if first {
            format!("<｜Assistant｜><｜tool▁calls▁begin｜>{body}")
          } else {
            format!("\n{body}<｜tool▁calls▁end｜><｜end▁of▁sentence｜>")
          }
        };
        r.calls
          .push((render(call.args.as_deref().unwrap_or("{}")), render("{}")));
      }
    }
  }
}

/// Llama 3's and Gemma 3's templates: a header per message and the content trimmed. Neither
/// renders tool calls: they are counted as Llama 3.1's tool-calling template writes one
/// (`{"name": …, "parameters": …}`), more than the package's template says.
fn headers(family: Family, m: &Message, c: &str, place: Place, r: &mut Rendered) {
  if family == Family::Gemma3 {
    match m.role {
      // The first system message is the prefix of the first user turn, not trimmed.
      Role::System if place.first => r.body.push(format!("{c}\n\n")),
      role => {
        let role = if role == Role::Assistant {
          "model"
        } else {
          role.as_str()
        };
        r.body.push(format!(
          "<start_of_turn>{role}\n{}<end_of_turn>\n",
          c.trim()
        ));
      }
    }
  } else {
    let (role, c) = (m.role.as_str(), c.trim());
    r.body.push(format!(
      "<|start_header_id|>{role}<|end_header_id|>\n\n{c}<|eot_id|>"
    ));
  }
  for call in &m.tool_calls {
    let render = |args: &str| format!("{{\"name\": \"{}\", \"parameters\": {args}}}", call.name);
    r.calls.push((
      render(&spaced_json(call.args.as_deref().unwrap_or("{}"))),
      render("{}"),
    ));
  }
}

/// Mistral's tekken template: `[INST]…[/INST]`, the system prompt before the last user message's
/// text, `[TOOL_CALLS][…]</s>` (the message's text left out), `[TOOL_RESULTS]{"content": …}`.
fn mistral(m: &Message, c: &str, place: Place, r: &mut Rendered) {
  match m.role {
    Role::System if place.first => r.body.push(format!("{c}\n\n")),
    // The template refuses other system messages; counted as user turns.
    Role::System | Role::User => r.body.push(format!("[INST]{c}[/INST]")),
    Role::Assistant if m.tool_calls.is_empty() => r.body.push(format!("{c}</s>")),
    Role::Assistant => {
      r.body.push("[TOOL_CALLS]</s>".to_owned());
      let last = m.tool_calls.len() - 1;
      for (k, call) in m.tool_calls.iter().enumerate() {
        // Cut before the space of `, {`, where the pre-tokenizer splits.
        let open = if k == 0 { "[" } else { " " };
        let close = if k == last { "]" } else { "," };
        let name = serde_json::to_string(&call.name).unwrap_or_default();
        let render = |args: &str| {
          format!(
            "{open}{{\"name\": {name}, \"arguments\": {args}, \"id\": \"{}\"}}{close}",
            call.id
          )
        };
        r.calls.push((
          render(&spaced_json(call.args.as_deref().unwrap_or("{}"))),
          render("{}"),
        ));
      }
    }
    Role::Tool => {
      let id = m.tool_call_id.as_deref().unwrap_or("");
      r.body.push(format!(
        "[TOOL_RESULTS]{{\"content\": {c}, \"call_id\": \"{id}\"}}[/TOOL_RESULTS]"
      ));
    }
  }
}

/// GLM-4's template (`glm-4-9b-chat`): `<|{role}|>\n{content}` for every message with content
/// (tool results as `observation`), a call as `<|assistant|>{name}\n{arguments}`.
fn glm(m: &Message, c: &str, r: &mut Rendered) {
  if !c.is_empty() {
    let role = if m.role == Role::Tool {
      "observation"
    } else {
      m.role.as_str()
    };
    r.body.push(format!("<|{role}|>\n{c}"));
  }
  for call in &m.tool_calls {
    let render = |args: &str| format!("<|assistant|>{}\n{args}", call.name);
    r.calls.push((
      render(&spaced_json(call.args.as_deref().unwrap_or("{}"))),
      render("{}"),
    ));
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn places_see_only_what_came_before_but_the_query() {
    let msgs = [
      Message::user("q"),
      Message::assistant("", &[("c1", "f", "{}")]),
      Message::tool("c1", "f", "r"),
      Message::tool("c1", "f", "r"),
    ];
    let p = places(&msgs, 0, Request::default());
    assert!(p[0].first && !p[1].first);
    assert_eq!(p[3].prev, Some(Role::Tool));
    assert!(p[2].calls_before && !p[1].calls_before);
    assert!(!p[0].after_query && p[1].after_query && p[3].last);
    assert_eq!(places(&msgs, 2, Request::default()), p[2..]);
    let with_prompt = Request {
      system_prompt: true,
      tools: false,
    };
    assert!(!places(&msgs, 0, with_prompt)[0].first);
  }

  #[test]
  fn qwen3_splits_reasoning_out_of_the_content() {
    assert_eq!(
      qwen3_split("<think>\nr\n</think>\n\nanswer", None),
      ("answer", "r")
    );
    assert_eq!(qwen3_split("plain", None), ("plain", ""));
    assert_eq!(qwen3_split("c", Some("given")), ("c", "given"));
  }
}
