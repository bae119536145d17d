//! JSON parsing: option blocks as LangChain, Anthropic and the Xpert form write them, into the
//! typed [`Options`]. Unknown keys, wrong types and out-of-range values are errors that name the
//! option path (`edits[1].keep.tokens`) and what is allowed; `null` means "unset" everywhere (the
//! Xpert form sends `null` for empty fields).

use serde_json::{Map, Value};

use super::spec::{
  CLEAR_MEDIA, CLEAR_THINKING, CLEAR_TOOL_USES, EDITOR, EDIT_TYPES, KEEP, LAST_N, MEDIA_KEEP,
  STABLE, STRIP_AND_TRUNCATE, STRIP_TOOL_CALLS, SUMMARIZE, SUMMARY_KEEP, THINKING_KEEP, TRIM_TURNS,
  TRUNCATE_TOOL_RESULTS,
};
use super::types::{
  ClearInputs, ClearMedia, ClearThinking, ClearToolUses, Edit, Gate, Keep, LastN, MediaKeep,
  Options, Stable, Summarize, SummaryKeep, SummaryRole, ThinkingKeep, TokenCountMethod, Trigger,
  TrimTurns, TruncateToolResults, DEFAULT_MAX_TURNS, DEFAULT_MEDIA_PLACEHOLDER,
  DEFAULT_THINKING_TURNS, DEFAULT_TOOL_TRIM_LIMIT,
};
use super::values::{
  field, keep_fraction, keep_measure, keep_tokens, non_negative_int, only_keys, opt_string,
  optional_trigger, parse_trigger, positive_int, positive_number, show, string_list, type_name,
};
use crate::error::{Error, Result};
use crate::tokenizer::{Encoding, TokenizerOption};

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
    check_top_level_keys(obj)?;
    let mut options = Self::default();
    read_counting(obj, &mut options)?;
    if let Some(v) = field(obj, "pin") {
      options.pin = super::prefer::parse_pin(v, "pin")?;
    }
    options.edits = match field(obj, "edits") {
      Some(edits) => parse_edit_list(obj, edits)?,
      None => vec![Edit::ClearToolUses(parse_clear_tool_uses(obj, "")?)],
    };
    Ok(options)
  }
}

/// Rejects a top-level key that is neither a global option nor a shorthand clearing option.
fn check_top_level_keys(obj: &Map<String, Value>) -> Result<()> {
  for key in obj.keys() {
    if CLEAR_TOOL_USES.parsed(key).is_none() && EDITOR.parsed(key).is_none() {
      return Err(Error::invalid_option(
        key.clone(),
        format!(
          "unknown option (expected one of {})",
          [EDITOR.parsed_names(), CLEAR_TOOL_USES.parsed_names()]
            .concat()
            .join(", ")
        ),
      ));
    }
  }
  Ok(())
}

/// Reads how to count: `tokenCountMethod`, `model`, `encoding`, `tokenizer`, `tokenCacheSize`.
fn read_counting(obj: &Map<String, Value>, options: &mut Options) -> Result<()> {
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
  if let Some(v) = field(obj, "tokenizer") {
    options.tokenizer = TokenizerOption::from_json(v)?;
  }
  if let Some(v) = field(obj, "tokenCacheSize") {
    options.token_cache_size =
      usize::try_from(non_negative_int(v, "tokenCacheSize")?).unwrap_or(usize::MAX);
  }
  Ok(())
}

/// The `edits` pipeline: no shorthand clearing keys beside it, and `summarize` only last.
fn parse_edit_list(obj: &Map<String, Value>, edits: &Value) -> Result<Vec<Edit>> {
  let shorthand = CLEAR_TOOL_USES.parsed_names();
  if let Some(first) = shorthand.iter().find(|k| field(obj, k).is_some()) {
    return Err(Error::invalid_option(
      *first,
      "top-level clearing options are a shorthand for a single `clear_tool_uses` edit (move them into `edits`)",
    ));
  }
  let Value::Array(list) = edits else {
    return Err(Error::invalid_option(
      "edits",
      format!("expected an array of edits, got {}", type_name(edits)),
    ));
  };
  let edits = list
    .iter()
    .enumerate()
    .map(|(i, e)| parse_edit(e, &format!("edits[{i}]")))
    .collect::<Result<Vec<_>>>()?;
  if let Some(i) = edits.iter().position(|e| matches!(e, Edit::Summarize(_))) {
    if i + 1 != edits.len() {
      return Err(Error::invalid_option(
        format!("edits[{i}].type"),
        "`summarize` must be the last edit (its result is written by the model after planning)",
      ));
    }
  }
  Ok(edits)
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
        format!(
          "missing edit type (expected one of {})",
          EDIT_TYPES.join(", ")
        ),
      ))
    }
  };
  match kind {
    "clear_tool_uses" => {
      only_keys(obj, &CLEAR_TOOL_USES, kind, path)?;
      Ok(Edit::ClearToolUses(parse_clear_tool_uses(
        obj,
        &format!("{path}."),
      )?))
    }
    other => parse_structural_edit(other, obj, path),
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
  match kind {
    "clear_thinking" => parse_clear_thinking(obj, path).map(Edit::ClearThinking),
    "last_n" | "strip_and_truncate" => {
      only_keys(
        obj,
        if kind == "last_n" {
          &LAST_N
        } else {
          &STRIP_AND_TRUNCATE
        },
        kind,
        path,
      )?;
      let edit = LastN {
        trigger: optional_trigger(obj, path)?,
        n: required_n(obj, kind, path)?,
      };
      Ok(if kind == "last_n" {
        Edit::LastN(edit)
      } else {
        Edit::StripAndTruncate(edit)
      })
    }
    "strip_tool_calls" => {
      only_keys(obj, &STRIP_TOOL_CALLS, kind, path)?;
      Ok(Edit::StripToolCalls(Gate {
        trigger: optional_trigger(obj, path)?,
      }))
    }
    "trim_turns" => parse_trim_turns(obj, path).map(Edit::TrimTurns),
    "truncate_tool_results" => parse_truncate(obj, path).map(Edit::TruncateToolResults),
    "summarize" => parse_summarize(obj, path).map(Edit::Summarize),
    "clear_media" => parse_clear_media(obj, path).map(Edit::ClearMedia),
    other => Err(Error::invalid_option(
      format!("{path}.type"),
      format!(
        "unknown edit type `{other}` (expected one of {})",
        EDIT_TYPES.join(", ")
      ),
    )),
  }
}

fn parse_clear_thinking(obj: &Map<String, Value>, path: &str) -> Result<ClearThinking> {
  only_keys(obj, &CLEAR_THINKING, "clear_thinking", path)?;
  let keep = match field(obj, "keep") {
    None => ThinkingKeep::Turns(DEFAULT_THINKING_TURNS),
    Some(Value::String(s)) if s == "all" => ThinkingKeep::All,
    Some(Value::Object(k)) => {
      only_keys(
        k,
        &THINKING_KEEP,
        "clear_thinking.keep",
        &format!("{path}.keep"),
      )?;
      match field(k, "thinkingTurns") {
        Some(v) => ThinkingKeep::Turns(non_negative_int(v, &format!("{path}.keep.thinkingTurns"))?),
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
  Ok(ClearThinking {
    trigger: optional_trigger(obj, path)?,
    keep,
  })
}

fn parse_trim_turns(obj: &Map<String, Value>, path: &str) -> Result<TrimTurns> {
  only_keys(obj, &TRIM_TURNS, "trim_turns", path)?;
  let max_turns = match field(obj, "maxTurns") {
    Some(v) => positive_int(v, &format!("{path}.maxTurns"))?,
    None => DEFAULT_MAX_TURNS,
  };
  Ok(TrimTurns {
    trigger: optional_trigger(obj, path)?,
    max_turns,
  })
}

fn parse_truncate(obj: &Map<String, Value>, path: &str) -> Result<TruncateToolResults> {
  only_keys(obj, &TRUNCATE_TOOL_RESULTS, "truncate_tool_results", path)?;
  let max_chars = match field(obj, "maxChars") {
    Some(v) => positive_int(v, &format!("{path}.maxChars"))?,
    None => DEFAULT_TOOL_TRIM_LIMIT,
  };
  let exclude_tools = match field(obj, "excludeTools") {
    Some(v) => string_list(v, &format!("{path}.excludeTools"))?,
    None => Vec::new(),
  };
  Ok(TruncateToolResults {
    trigger: optional_trigger(obj, path)?,
    max_chars,
    exclude_tools,
  })
}

fn parse_summarize(obj: &Map<String, Value>, path: &str) -> Result<Summarize> {
  only_keys(obj, &SUMMARIZE, "summarize", path)?;
  let mut s = Summarize {
    // LangChain (JS and Python) accepts an empty list: no condition, so it never fires.
    trigger: optional_trigger(obj, path)?,
    ..Summarize::default()
  };
  if let Some(k) = field(obj, "keep") {
    s.keep = Some(parse_summary_keep(k, &format!("{path}.keep"))?);
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

fn parse_clear_media(obj: &Map<String, Value>, path: &str) -> Result<ClearMedia> {
  only_keys(obj, &CLEAR_MEDIA, "clear_media", path)?;
  let keep = match field(obj, "keep") {
    None => MediaKeep::Media(3),
    Some(value) => {
      let at = format!("{path}.keep");
      let (key, v, at) = keep_measure(value, &at, &MEDIA_KEEP)?;
      if key == "media" {
        MediaKeep::Media(non_negative_int(v, &at)?)
      } else {
        MediaKeep::Tokens(keep_tokens(v, &at)?)
      }
    }
  };
  let formula = match field(obj, "formula") {
    None => "openai".to_owned(),
    Some(Value::String(s)) if s == "openai" || s == "anthropic" => s.clone(),
    Some(other) => {
      return Err(Error::invalid_option(
        format!("{path}.formula"),
        format!("expected \"openai\" or \"anthropic\", got {}", show(other)),
      ))
    }
  };
  Ok(ClearMedia {
    trigger: optional_trigger(obj, path)?,
    keep,
    placeholder: opt_string(obj, "placeholder", &format!("{path}.placeholder"))?
      .unwrap_or_else(|| DEFAULT_MEDIA_PLACEHOLDER.to_owned()),
    formula,
  })
}

fn parse_summary_keep(value: &Value, path: &str) -> Result<SummaryKeep> {
  let (key, v, at) = keep_measure(value, path, &SUMMARY_KEEP)?;
  Ok(match key {
    "messages" => SummaryKeep::Messages(non_negative_int(v, &at)?),
    "turns" => SummaryKeep::Turns(non_negative_int(v, &at)?),
    "tokens" => SummaryKeep::Tokens(keep_tokens(v, &at)?),
    _ => SummaryKeep::Fraction(keep_fraction(v, &at)?),
  })
}

fn parse_clear_tool_uses(obj: &Map<String, Value>, prefix: &str) -> Result<ClearToolUses> {
  let mut c = ClearToolUses::default();
  let p = |k: &str| format!("{prefix}{k}");
  if let Some(t) = field(obj, "trigger") {
    c.trigger = match t {
      // An empty list is an OR of nothing: it never fires (as LangChain's `ClearToolUsesEdit`).
      Value::Array(list) => list
        .iter()
        .enumerate()
        .map(|(i, v)| parse_trigger(v, &format!("{prefix}trigger[{i}]")))
        .collect::<Result<_>>()?,
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
    c.clear_tool_inputs = parse_clear_inputs(v, &p("clearToolInputs"))?;
  }
  if let Some(v) = field(obj, "clearAtLeast") {
    c.clear_at_least = non_negative_int(v, &p("clearAtLeast"))?;
  }
  if let Some(v) = field(obj, "stable") {
    c.stable = parse_stable(v, &p("stable"))?;
  }
  if let Some(v) = field(obj, "cacheBreakpoints") {
    c.cache_breakpoints = parse_cache_breakpoints(v, &p("cacheBreakpoints"))?;
  }
  if let Some(v) = field(obj, "prefer") {
    c.prefer = super::prefer::parse_prefer(v, &p("prefer"))?;
  }
  Ok(c)
}

/// `clearToolInputs: boolean | string[]`.
fn parse_clear_inputs(value: &Value, path: &str) -> Result<ClearInputs> {
  match value {
    Value::Bool(true) => Ok(ClearInputs::All),
    Value::Bool(false) => Ok(ClearInputs::None),
    Value::Array(_) => Ok(ClearInputs::Tools(string_list(value, path)?)),
    other => Err(Error::invalid_option(
      path,
      format!(
        "expected a boolean or a list of tool names, got {}",
        show(other)
      ),
    )),
  }
}

/// `cacheBreakpoints: boolean | "anthropic"`.
fn parse_cache_breakpoints(value: &Value, path: &str) -> Result<bool> {
  match value {
    Value::Bool(b) => Ok(*b),
    Value::String(s) if s == "anthropic" => Ok(true),
    other => Err(Error::invalid_option(
      path,
      format!("expected a boolean or \"anthropic\", got {}", show(other)),
    )),
  }
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
          _ => {
            return Err(Error::invalid_option(
              at,
              format!(
                "unknown option of `stable` (expected {})",
                STABLE.listed_or()
              ),
            ))
          }
        }
      }
      Ok(Some(s))
    }
    other => Err(Error::invalid_option(
      path,
      format!(
        "expected a boolean or {{ {} }}, got {}",
        STABLE
          .parsed_names()
          .iter()
          .map(|k| format!("{k}?"))
          .collect::<Vec<_>>()
          .join(", "),
        show(other)
      ),
    )),
  }
}

fn parse_keep(value: &Value, path: &str) -> Result<Keep> {
  let (key, v, at) = keep_measure(value, path, &KEEP)?;
  Ok(match key {
    "messages" => Keep::Messages(non_negative_int(v, &at)?),
    "tokens" => Keep::Tokens(keep_tokens(v, &at)?),
    _ => Keep::Fraction(keep_fraction(v, &at)?),
  })
}
