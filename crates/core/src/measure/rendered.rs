//! Measures by chat template: each message rendered by its family's template (`template.rs`) and
//! every piece counted whole, through the editor's cache, so that a request costs what the
//! template's rendering of it costs.

use super::template::{self, Rendered};
use super::{image_tokens, Measure, Meter, TOOL_DEFINITION_OVERHEAD};
use crate::message::{Message, EMPTY_ARGS};
use crate::tokenizer::Family;

impl Meter<'_> {
  /// Measures by rendering each message with the family's chat template (see `template.rs`):
  /// every piece is counted whole, through the cache.
  pub(super) fn template_measures(
    &self,
    family: Family,
    messages: &[Message],
    from: usize,
  ) -> Vec<Measure> {
    let places = template::places(messages, from, self.request);
    let rendered: Vec<Rendered> = messages[from..]
      .iter()
      .zip(&places)
      .map(|(m, p)| template::render(family, m, *p, self.request, None))
      .collect();
    // An assistant message rendered without its calls, for when an edit removes them all.
    let plain: Vec<Option<Rendered>> = messages[from..]
      .iter()
      .zip(&places)
      .map(|(m, p)| {
        (m.tokens.is_none() && !m.tool_calls.is_empty()).then(|| {
          let bare = Message {
            tool_calls: Vec::new(),
            ..m.clone()
          };
          template::render(family, &bare, *p, self.request, None)
        })
      })
      .collect();
    let mut texts: Vec<&str> = Vec::new();
    for ((m, r), bare) in messages[from..].iter().zip(&rendered).zip(&plain) {
      texts.extend(bare.iter().flat_map(|b| b.body.iter().map(String::as_str)));
      if m.tokens.is_none() {
        texts.push(r.lead.as_deref().unwrap_or(""));
        texts.extend(r.body.iter().map(String::as_str));
        texts.extend(r.without_thinking.iter().flatten().map(String::as_str));
        texts.push(m.other.as_deref().unwrap_or(""));
      }
      for (call, cleared) in &r.calls {
        texts.push(call);
        texts.push(cleared);
      }
    }
    let counts = self.count_strings(&texts);
    let empty_args = self.count(EMPTY_ARGS);
    let mut it = counts.into_iter();
    let mut next = || it.next().unwrap_or(0);
    messages[from..]
      .iter()
      .zip(rendered)
      .zip(places)
      .zip(plain)
      .map(|(((m, r), place), bare)| {
        let without_calls = bare.map(|b| b.body.iter().map(|_| next()).sum::<u64>());
        let mut measure = Measure {
          empty_args,
          place,
          ..Measure::default()
        };
        if m.tokens.is_none() {
          measure.lead = next();
          let body: u64 = r.body.iter().map(|_| next()).sum();
          let unthought: Option<u64> = r
            .without_thinking
            .as_ref()
            .map(|w| w.iter().map(|_| next()).sum());
          measure.thinking = unthought.map_or(0, |b| body.saturating_sub(b));
          let rest = next() + image_tokens(m);
          measure.total = measure.lead + body + rest;
          measure.plain = without_calls.map(|b| measure.lead + b + rest);
        }
        for _ in &r.calls {
          let (call, cleared) = (next(), next());
          measure.calls.push(call);
          measure.args.push(call.saturating_sub(cleared) + empty_args);
        }
        measure.calls_total = measure.calls.iter().sum();
        measure.total = m.tokens.unwrap_or(measure.total + measure.calls_total);
        measure
      })
      .collect()
  }

  /// The measure of message `m` (measured as `measure`) rendered with `content` instead of its
  /// own, by the family's template.
  pub(super) fn rendered_size(
    &self,
    family: Family,
    m: &Message,
    measure: &Measure,
    content: &str,
  ) -> u64 {
    let r = template::render(family, m, measure.place, self.request, Some(content));
    measure.lead + r.body.iter().map(|b| self.count(b)).sum::<u64>()
  }

  /// The system prompt and tool definitions as the family's template renders them; tool
  /// definitions its template leaves out are counted as their JSON plus
  /// [`TOOL_DEFINITION_OVERHEAD`].
  pub(super) fn template_fixed_size(&self, system_prompt: Option<&str>, tools: &[String]) -> u64 {
    let Some(family) = self.framing.template else {
      return 0;
    };
    let (pieces, renders_tools) = template::fixed(family, system_prompt, tools);
    let mut texts: Vec<&str> = pieces.iter().map(String::as_str).collect();
    if !renders_tools {
      texts.extend(tools.iter().map(String::as_str));
    }
    let counts = self.count_strings(&texts);
    let unrendered = if renders_tools { 0 } else { tools.len() };
    counts.iter().sum::<u64>() + unrendered as u64 * TOOL_DEFINITION_OVERHEAD
  }
}
