//! Measures by chat template: each message rendered by its family's template (`template.rs`) and
//! every piece counted whole, through the editor's cache, so that a request costs what the
//! template's rendering of it costs.

use super::cache::{count_short, CACHE_MIN_BYTES};
use super::template::{self, Rendered};
use super::{image_tokens, Measure, Meter, TOOL_DEFINITION_OVERHEAD};
use crate::message::{Message, EMPTY_ARGS};
use crate::tokenizer::Family;

/// Counts of the pieces, taken in the order they were gathered.
struct Counts(std::vec::IntoIter<u64>);

impl Counts {
  fn one(&mut self) -> u64 {
    self.0.next().unwrap_or(0)
  }

  fn sum(&mut self, pieces: &[String]) -> u64 {
    pieces.iter().map(|_| self.one()).sum()
  }
}

/// One message rendered, with the variants edits and sessions need.
struct Renders {
  place: template::Place,
  main: Rendered,
  plain: Option<Rendered>,
  followed: Option<Rendered>,
}

impl Meter<'_> {
  /// Each of `messages[from..]` rendered by the family's template, with the variants edits need.
  fn render_all(&self, family: Family, messages: &[Message], from: usize) -> Vec<Renders> {
    let places = template::places(messages, from, self.request);
    messages[from..]
      .iter()
      .zip(places)
      .map(|(m, place)| {
        let render = |m: &Message, place| template::render(family, m, place, self.request, None);
        let supplied = m.tokens.is_some();
        Renders {
          main: render(m, place),
          // Without its calls, for when an edit removes them all.
          plain: (!supplied && !m.tool_calls.is_empty()).then(|| {
            let bare = Message {
              tool_calls: Vec::new(),
              ..m.clone()
            };
            render(&bare, place)
          }),
          // A last message framed as once messages follow it.
          followed: (!supplied && place.last && self.frames_last(m)).then(|| {
            render(
              m,
              template::Place {
                last: false,
                ..place
              },
            )
          }),
          place,
        }
      })
      .collect()
  }

  /// Measures by rendering each message with the family's chat template (see `template.rs`):
  /// every piece is counted whole, through the cache.
  pub(super) fn template_measures(
    &self,
    family: Family,
    messages: &[Message],
    from: usize,
  ) -> Vec<Measure> {
    let renders = self.render_all(family, messages, from);
    let mut texts: Vec<&str> = Vec::new();
    for (m, r) in messages[from..].iter().zip(&renders) {
      for variant in [&r.plain, &r.followed].into_iter().flatten() {
        texts.extend(variant.body.iter().map(String::as_str));
      }
      if m.tokens.is_none() {
        texts.push(r.main.lead.as_deref().unwrap_or(""));
        texts.extend(r.main.body.iter().map(String::as_str));
        texts.extend(r.main.without_thinking.iter().flatten().map(String::as_str));
        texts.push(m.other.as_deref().unwrap_or(""));
      }
      for (call, cleared) in &r.main.calls {
        texts.push(call);
        texts.push(cleared);
      }
    }
    let counts = self.count_pieces(&texts);
    let empty_args = self.count(EMPTY_ARGS);
    let mut counts = Counts(counts.into_iter());
    messages[from..]
      .iter()
      .zip(renders)
      .map(|(m, r)| {
        let without_calls = r.plain.map(|b| counts.sum(&b.body));
        let followed = r.followed.map(|b| counts.sum(&b.body));
        let mut measure = Measure {
          empty_args,
          place: r.place,
          ..Measure::default()
        };
        if m.tokens.is_none() {
          measure.lead = counts.one();
          let body = counts.sum(&r.main.body);
          let unthought = r.main.without_thinking.as_deref().map(|w| counts.sum(w));
          measure.thinking = unthought.map_or(0, |b| body.saturating_sub(b));
          let rest = counts.one() + image_tokens(m);
          measure.total = measure.lead + body + rest;
          measure.plain = without_calls.map(|b| measure.lead + b + rest);
          measure.unlast = followed.map(|b| measure.lead + b + rest);
        }
        for _ in &r.main.calls {
          let (call, cleared) = (counts.one(), counts.one());
          measure.calls.push(call);
          measure.args.push(call.saturating_sub(cleared) + empty_args);
        }
        measure.calls_total = measure.calls.iter().sum();
        measure.unlast = measure.unlast.map(|u| u + measure.calls_total);
        measure.total = m.tokens.unwrap_or(measure.total + measure.calls_total);
        measure
      })
      .collect()
  }

  /// Counts of `texts`: the short ones (framing pieces recur on every call: `<|im_end|>\n`, a
  /// call with `{}`) through the per-thread memo, the rest through the cache.
  fn count_pieces(&self, texts: &[&str]) -> Vec<u64> {
    let Some(seed) = self.counter.cache_seed() else {
      return self.count_strings(texts);
    };
    let long: Vec<&str> = texts
      .iter()
      .copied()
      .filter(|t| t.len() >= CACHE_MIN_BYTES)
      .collect();
    let mut long = self.count_strings(&long).into_iter();
    texts
      .iter()
      .map(|t| match t.len() {
        0 => 0,
        n if n < CACHE_MIN_BYTES => count_short(seed, self.counter, t),
        _ => long.next().unwrap_or(0),
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
