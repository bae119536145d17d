// Where a model's input limit comes from, for `fraction` triggers and keeps, when the options do not
// give `maxInputTokens`. In order:
//
// 1. the LangChain model profile, `model.profile.maxInputTokens` (LangChain 1.x chat models carry one);
// 2. the Xpert copilot model profile, `model.metadata.profile.maxInputTokens`: Xpert 3.7.x model
//    providers build their chat models with `metadata: { profile: getModelProfile(...) }`, whose
//    `maxInputTokens` is the model schema's `context_size` (@xpert-ai/plugin-sdk `AIModel`). Both are
//    also read through bindings, several deep (`bindTools()`, `withConfig()`, `withRetry()`: `bound`,
//    `config.metadata`; `withFallbacks()`: its first `runnable`);
// 3. the table below, by model name: context windows of the model families hosts run.
//
// The table is maintained by hand from the providers' model pages (checked 2026-11). Where a provider
// states a separate input limit (OpenAI's GPT-5: 400k context, 272k input) that is the figure; where a
// family has several windows (Qwen3 open weights: 32k native, 128k with YaRN) it is the one a host
// runs by default. A name matches the first row whose pattern it contains, so longer names come
// first. The report says where the limit came from (`maxInputTokensSource`).

import { field } from './wire.js'

/** Where the input limit of a call came from. */
export type LimitSource = 'options' | 'profile' | 'xpert-profile' | 'table' | 'core' | 'error'

/** A model's input limit and where it was found. */
export interface FoundLimit {
  tokens: number
  source: LimitSource
}

/** Context windows by model name: `[pattern, tokens]`; the first pattern found in the name wins. */
const WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  // OpenAI
  [/gpt-5(\.\d+)?-chat/, 128_000],
  [/gpt-5(\.\d+)?-?(mini|nano|codex|pro)?/, 272_000],
  [/gpt-4\.1/, 1_047_576],
  [/gpt-4\.5/, 128_000],
  [/gpt-4o|chatgpt-4o|gpt-4-turbo|gpt-4-1106|gpt-4-0125|gpt-4-vision/, 128_000],
  [/gpt-4-32k/, 32_768],
  [/gpt-4(?![.\w])|gpt-4-0613/, 8_192],
  [/gpt-3\.5-turbo-instruct|gpt-3\.5-turbo-0613|gpt-3\.5-turbo-0301/, 4_096],
  [/gpt-3\.5-turbo/, 16_385],
  [/gpt-oss/, 131_072],
  [/(^|[^\w])o1-(mini|preview)/, 128_000],
  [/(^|[^\w])o[134](-mini|-pro)?($|[^\w])/, 200_000],
  // Anthropic: every Claude 3, 3.5, 3.7, 4, 4.1 and 4.5 model
  [/claude-instant|claude-2\.0|claude-2($|[^.\w])/, 100_000],
  [/claude/, 200_000],
  // Google
  [/gemini-1\.5-pro/, 2_097_152],
  // Gemini 1.0 ("gemini-pro" is its old name): 30,720 input tokens.
  [/gemini-1\.0|gemini-pro($|-vision|-0|[^-\w])/, 30_720],
  [/gemini/, 1_048_576],
  [/gemma-?3n/, 32_768],
  [/gemma-?3[:-]?1b/, 32_768],
  [/gemma-?3/, 131_072],
  [/gemma/, 8_192],
  // DeepSeek (API and open weights, V3 / V3.1 / V3.2 / R1)
  [/deepseek/, 131_072],
  // Qwen: DashScope API names first, then open weights
  [/qwen-long/, 10_000_000],
  [/qwen-turbo|qwen2\.5-turbo|qwen-flash|qwen3-coder-plus|qwen3-coder-flash/, 1_000_000],
  [/qwen3-max|qwen3-.*2507|qwen3-coder|qwen3-next/, 262_144],
  // qwen-plus: 131,072 in Model Studio's table (its newest snapshots go to 1M: give maxInputTokens).
  [/qwen-plus/, 131_072],
  [/qwen-max/, 32_768],
  [/qwen3|qwen2\.5|qwen2|qwq/, 131_072],
  [/qwen/, 32_768],
  // Meta Llama
  [/llama-?4.*scout/, 10_000_000],
  [/llama-?4/, 1_048_576],
  [/llama-?3\.[123]/, 131_072],
  [/llama-?3/, 8_192],
  [/llama-?2/, 4_096],
  // Mistral
  // Devstral 1.x (2505, 2507, medium) 128k; Devstral 2 (2512, small-2) 256k.
  [/devstral-(small|medium)-25(05|07)|devstral-(small|medium)(?!-2)/, 131_072],
  [/codestral|devstral/, 262_144],
  [/mixtral-8x22b/, 65_536],
  [/mixtral|mistral-7b|mistral:7b/, 32_768],
  [/mistral|ministral|magistral|pixtral/, 131_072],
  // Zhipu GLM
  [/glm-4\.5v/, 65_536],
  [/glm-4\.[56]|glm-5/, 131_072],
  [/glm-4-long/, 1_000_000],
  [/glm-z1/, 32_768],
  [/glm-4|chatglm/, 128_000],
  // xAI Grok, Moonshot Kimi
  [/grok-4/, 256_000],
  [/grok-3|grok-2/, 131_072],
  [/moonshot-v1-8k/, 8_192],
  [/moonshot-v1-32k/, 32_768],
  [/moonshot-v1-128k/, 131_072],
  [/kimi-k2-(0905|turbo|thinking)/, 262_144],
  [/kimi-k2/, 131_072],
]

/** The GLM 4.6 and 4.7 windows are larger than 4.5's: 200k (not GLM-4.6V's 128k). */
const OVERRIDES: ReadonlyArray<readonly [RegExp, number]> = [
  [/glm-4\.[67](?!v)/, 204_800],
  [/gpt-4o-mini-audio|gpt-4o-audio/, 128_000],
]

/** A model name in the form the table reads: lower case, without a provider prefix or tag. */
function normalized(name: string): string {
  let n = name.toLowerCase().trim()
  // `openai:gpt-4o`, `accounts/fireworks/models/llama-v3p1`, `meta-llama/Llama-3.3-70B`, `qwen3:8b`
  const colon = n.indexOf(':')
  if (colon > 0 && /^[a-z-]+$/.test(n.slice(0, colon)) && !/^(qwen|gemma|llama|mistral|deepseek|glm|phi)/.test(n)) n = n.slice(colon + 1)
  n = n.slice(n.lastIndexOf('/') + 1)
  return n.replace(/llama-v(\d)p(\d)/, 'llama-$1.$2').replace(/_/g, '-')
}

/** Names looked up before (a process serves a few models, asked on every call), at most `KNOWN_MAX`. */
const known = new Map<string, number | undefined>()
const KNOWN_MAX = 256

/** The context window of a known model name (the table above), or `undefined`. */
export function contextWindowOf(name: string | undefined | null): number | undefined {
  if (typeof name !== 'string' || name.length === 0 || name.length > 256) return undefined
  if (known.has(name)) return known.get(name)
  const tokens = lookUp(normalized(name))
  if (known.size >= KNOWN_MAX) known.clear()
  known.set(name, tokens)
  return tokens
}

function lookUp(n: string): number | undefined {
  for (const [pattern, tokens] of OVERRIDES) if (pattern.test(n)) return tokens
  for (const [pattern, tokens] of WINDOWS) if (pattern.test(n)) return tokens
  return undefined
}

/**
 * A profile's limit: a positive integer. Anything else (0, negative, NaN, fractions, a string such
 * as "32000" or "128k": LangChain and the Xpert SDK type it as a number) is no limit, and the next
 * source is asked.
 */
function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined
}

/**
 * A field of a host's model object. A getter or Proxy trap that throws is not caught here: the
 * middleware makes it the caller's `INVALID_CONTEXT` at `model` (the model is not called).
 */
function objectField(o: unknown, key: string): unknown {
  return o !== null && typeof o === 'object' ? field(o, key) : undefined
}

/** How many bindings deep a model is looked for (`bindTools().withRetry().withConfig()` is three). */
const MAX_BINDINGS = 4

/**
 * The model and what it wraps, outermost first: a binding's `bound` (`bindTools()`, `withConfig()`,
 * `withRetry()`) and a fallback chain's first `runnable` (`withFallbacks()`), at most `MAX_BINDINGS` deep.
 */
export function layers(model: unknown): unknown[] {
  const out: unknown[] = []
  for (let m = model; m !== null && typeof m === 'object' && out.length <= MAX_BINDINGS && !out.includes(m);) {
    out.push(m)
    m = objectField(m, 'bound') ?? objectField(m, 'runnable')
  }
  return out
}

/** `model.profile.maxInputTokens` (LangChain), also through bindings. */
export function langchainProfileLimit(model: unknown): number | undefined {
  for (const m of layers(model)) {
    const max = positive(objectField(objectField(m, 'profile'), 'maxInputTokens'))
    if (max !== undefined) return max
  }
  return undefined
}

/** `model.metadata.profile.maxInputTokens` (Xpert 3.7.x copilot models), also through bindings. */
export function xpertProfileLimit(model: unknown): number | undefined {
  for (const m of layers(model)) {
    for (const metadata of [objectField(m, 'metadata'), objectField(objectField(m, 'config'), 'metadata')]) {
      const max = positive(objectField(objectField(metadata, 'profile'), 'maxInputTokens'))
      if (max !== undefined) return max
    }
  }
  return undefined
}

/**
 * The input limit of a call: the options' `maxInputTokens`, else the model's LangChain profile,
 * else its Xpert profile, else the table by model name. `undefined` when none knows it (the core
 * then tries tiktoken's list of OpenAI names, reported as `'core'`).
 */
export function findLimit(configured: number | undefined, model: unknown, name: string | undefined): FoundLimit | undefined {
  if (configured !== undefined) return { tokens: configured, source: 'options' }
  const profile = langchainProfileLimit(model)
  if (profile !== undefined) return { tokens: profile, source: 'profile' }
  const xpert = xpertProfileLimit(model)
  if (xpert !== undefined) return { tokens: xpert, source: 'xpert-profile' }
  const table = contextWindowOf(name)
  if (table !== undefined) return { tokens: table, source: 'table' }
  return undefined
}
