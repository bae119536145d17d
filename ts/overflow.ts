// Telling a provider's "the request is too long" apart from every other failure of a model call, and
// reading what it says about the sizes.
//
// The shapes come from the providers' SDKs and the LangChain integrations (checked 2026-11):
// - LangChain 1.x wraps context overflows of OpenAI and Anthropic in `ContextOverflowError`
//   (@langchain/core/errors, name `ContextOverflowError`, the provider's error as `cause`);
//   @langchain/anthropic adds `lc_error_code: "CONTEXT_OVERFLOW"`. LangChain 0.3 (the Xpert host's
//   pin) throws the SDK's error as it is.
// - OpenAI (`openai` `BadRequestError`, status 400): `code: "context_length_exceeded"`, message
//   "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512
//   tokens (including 80 in the functions). ..."; the Responses API: "Your input exceeds the context
//   window of this model."; Azure: "Input tokens exceed the configured limit of 272000 tokens. Your
//   messages resulted in 280000 tokens."
// - DeepSeek and older OpenAI-compatible servers: "This model's maximum context length is 65536
//   tokens. However, you requested 70000 tokens (66000 in the messages, 4000 in the completion)."
//   (code `invalid_request_error`).
// - vLLM: "This model's maximum context length is 32768 tokens. However, your request has 40000 input
//   tokens."; "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context
//   length is 32768 tokens and your request has 30000 input tokens (4096 > 32768 - 30000)."; "The prompt
//   (total length 25938) is too long to fit into the model (context length 4096)."
// - Anthropic (`@anthropic-ai/sdk` `BadRequestError`, 400): "prompt is too long: 208310 tokens > 200000
//   maximum"; Bedrock: "Input is too long for requested model."
// - Google Gemini / Vertex (`GoogleGenerativeAIFetchError` status 400, @langchain/google-common's "Google
//   request failed with status code 400: ..."): "The input token count (1200293) exceeds the maximum
//   number of tokens allowed (1048576)."
// - Qwen / DashScope (also its OpenAI-compatible mode): "<400> InternalError.Algo.InvalidParameter: Range
//   of input length should be [1, 129024]".
// - Ollama: "the input length exceeds the context length" (400); older runners: "prompt too long;
//   exceeded max context length by 1200 tokens".
// - Zhipu GLM: `code: "1261"`, "Prompt exceeds max length"; xAI: "This model's maximum prompt length is
//   131072 but the request contains 136973 tokens."; Mistral: "Prompt contains 40000 tokens ... too
//   large for model with 32768 maximum context length".
//
// - Anthropic when the input fits but input + `max_tokens` does not: "input length and `max_tokens`
//   exceed context limit: 188240 + 21333 > 200000" (the limit read is the window minus max_tokens).
// - Hugging Face TGI (Together, HF endpoints): "`inputs` tokens + `max_new_tokens` must be <= 32769.
//   Given: 30000 `inputs` tokens and 4000 `max_new_tokens`" (422); Fireworks: "The prompt is too
//   long: 33180, model maximum context length: 32768"; SGLang: "The input (40000 tokens) is longer
//   than the model's context length (32768 tokens)."; llama.cpp server: "the request exceeds the
//   available context size" (`n_prompt_tokens`, `n_ctx` in the body); LM Studio: "the model is
//   loaded with context length of only 4096 tokens"; OpenRouter: "... you requested about 250000
//   tokens"; Cohere: "too many tokens: total number of tokens in the prompt cannot exceed 4081 -
//   received 5000"; Amazon Nova on Bedrock: "Input Tokens Exceeded"; LiteLLM's proxy:
//   `ContextWindowExceededError` (wrapping the backend's message); Groq: `context_length_exceeded`.
// - vLLM 0.9+: "This model's maximum context length is 32768 tokens. However, you requested 8192 output
//   tokens and your prompt contains at least 24577 input tokens, for a total of at least 32769 tokens."
//   (the input limit is the window minus those output tokens); its engine: "The decoder prompt (length
//   12324) is longer than the maximum model length of 8192."; OpenAI's completions wording that older
//   servers keep: "you requested 4500 tokens (4000 in your prompt; 500 for the completion)"; Kimi /
//   Moonshot: "Your request exceeded model token limit: 262144 (requested: 291351)"; GitHub Copilot:
//   "prompt token count of 139451 exceeds the limit of 128000"; Amazon Titan: "Too many input tokens.
//   Max input tokens: 8192, request input token count: 9279"; LM Studio: "The number of tokens to keep
//   from the initial prompt is greater than the context length"; MiniMax: "invalid params, context
//   window exceeds limit"; Ollama also "prompt too long; exceeded context length by N tokens";
//   SiliconFlow (code 20015): "length of prompt_tokens (68957) must be less than max_seq_len (65536).";
//   Cerebras: an empty 400 or 413 (the OpenAI SDK: "400 status code (no body)", which is also how it
//   reports any body without an `error` field, SiliconFlow's among them); and last, the wordings many
//   servers share ("context length exceeded", "token limit exceeded", "too many tokens", "reduce the
//   length of the messages", "input is too long"), unless they speak of output tokens or a rate.
// - Limits on size rather than tokens, which the same re-edit usually cures (the request is large
//   because of what tool results hold): Anthropic's 413 `request_too_large` ("Request exceeds the
//   maximum allowed number of bytes."), Gemini's "Request payload size exceeds the limit", OpenAI's
//   `string_above_max_length` ("string too long. Expected a string with maximum length 10485760"),
//   and a proxy's "request entity too large" / "payload too large". They state no token limit: the
//   re-edit aims under the size that was refused, and when it cannot shrink it, the error is the
//   caller's as it is.
//
// Not overflows, on purpose: a rate limit that counts tokens (OpenAI 429 / Groq 413 "Request too
// large ... tokens per min (TPM): Limit 30000, Requested 50000": the request fits the model, the
// quota is spent), and an output limit alone ("max_tokens is too large", "max_tokens: 100000 >
// 64000, which is the maximum allowed number of output tokens", or a max_tokens that is itself at
// least the window): cutting the input cannot make those succeed, so a retry would only repeat them.
//
// Only a provider's answer is read: an error carrying HTTP status 400, 413 or 422 (`status`,
// `status_code`, `statusCode`, `response.status`, `$metadata.httpStatusCode`; a number or a numeric
// string; on it or anywhere down its `cause` chain), an SDK's error for a failure the API reported
// inside a stream (no status, but an API error body: `type` / `code` `invalid_request_error` or
// `context_length_exceeded`), or LangChain's `ContextOverflowError`. Never an overflow, whatever the text says: an abort or
// timeout (`AbortError`, `ModelAbortError`, `APIUserAbortError`, `TimeoutError`), any other status
// (rate limits, authentication, not found, 5xx), an error with no status (a bug's TypeError, a
// tool's failure) and anything that is not an object.

/** What an overflow error says about the request. */
export interface Overflow {
  /** The model's input limit, when the error gives it (a window minus the completion it reserved). */
  limit?: number
  /** The request's true input size in tokens, when the error gives it. */
  actual?: number
  /** Which shape matched (for the report): `context-overflow-error`, `openai`, `anthropic`, ... */
  kind: string
}

const NOT_OVERFLOW_NAMES = new Set([
  'AbortError',
  'ModelAbortError',
  'APIUserAbortError',
  'TimeoutError',
  'APIConnectionTimeoutError',
  'GoogleGenerativeAIAbortError',
])

/** Reads a field without running more than a plain property read (a throwing getter reads as nothing). */
function read(o: unknown, key: string): unknown {
  if (o === null || (typeof o !== 'object' && typeof o !== 'function')) return undefined
  try {
    return (o as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v.slice(0, 4000)
  if (v !== null && typeof v === 'object') {
    try {
      const s = JSON.stringify(v)
      return typeof s === 'string' ? s.slice(0, 4000) : undefined
    } catch {
      return undefined
    }
  }
  return undefined
}

/** The HTTP status an error carries (`status`, `status_code`, `statusCode`, `response.status`). */
function statusOf(e: unknown): number | undefined {
  for (let v of [
    read(e, 'status'),
    read(e, 'status_code'),
    read(e, 'statusCode'),
    read(read(e, 'response'), 'status'),
    read(read(e, '$metadata'), 'httpStatusCode'),
  ]) {
    if (typeof v === 'string' && /^\d{3}$/.test(v.trim())) v = Number(v)
    if (typeof v === 'number' && Number.isInteger(v)) return v
  }
  return undefined
}

function num(s: string | undefined): number | undefined {
  if (s === undefined) return undefined
  const n = Number(s.replace(/[,_]/g, ''))
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/** Sizes read from a message; `undefined`: not this shape; `null`: this shape, and not an overflow. */
type Reader = (m: string) => Omit<Overflow, 'kind'> | undefined | null

const N = '(\\d[\\d,]*)'

const re = (source: string, flags = 'i') => new RegExp(source, flags)

/** A window with a reserved completion: the input limit, or `null` when the completion alone fills it. */
function minusCompletion(window: number | undefined, completion: number | undefined, actual: number | undefined): Omit<Overflow, 'kind'> | null {
  if (window !== undefined && completion !== undefined && completion >= window) return null
  return { actual, limit: window !== undefined && completion !== undefined ? window - completion : window }
}

/** The message shapes, most specific first; each returns the sizes it reads (possibly none). */
const SHAPES: ReadonlyArray<readonly [string, Reader]> = [
  [
    'anthropic',
    (m) => {
      let r = re(`prompt is too long: ${N} tokens > ${N} maximum`).exec(m)
      if (r) return { actual: num(r[1]), limit: num(r[2]) }
      // The input fits, the input plus max_tokens does not.
      r = re(`input length and .?max_tokens.? exceed context limit: ${N} \\+ ${N} > ${N}`).exec(m)
      if (r) return minusCompletion(num(r[3]), num(r[2]), num(r[1]))
      // Fireworks: "The prompt is too long: 33180, model maximum context length: 32768".
      r = re(`prompt is too long: ${N}, model maximum context length: ${N}`).exec(m)
      if (r) return { actual: num(r[1]), limit: num(r[2]) }
      return /prompt is too long|input is too long for requested model/i.test(m) ? {} : undefined
    },
  ],
  [
    'google',
    (m) => {
      const r = re(`input token count \\(${N}\\) exceeds the maximum number of tokens allowed \\(${N}\\)`).exec(m)
      if (r) return { actual: num(r[1]), limit: num(r[2]) }
      const l = re(`input token count.{0,40}exceeds the maximum number of tokens allowed\\D{0,4}${N}?`).exec(m)
      return l ? { limit: num(l[1]) } : undefined
    },
  ],
  [
    'vllm',
    (m) => {
      // max_tokens too large: the input fits, the input plus the reserved completion does not.
      let r = re(`maximum context length is ${N} tokens and your request has ${N} input tokens \\(${N} > `).exec(m)
      if (r) return minusCompletion(num(r[1]), num(r[3]), num(r[2]))
      // vLLM 0.9+: "However, you requested 8192 output tokens and your prompt contains at least 24577 input tokens".
      r = re(`maximum context length is ${N} tokens\\. However, you requested ${N} output tokens and your prompt contains at least ${N} input tokens`).exec(m)
      if (r) return minusCompletion(num(r[1]), num(r[2]), num(r[3]))
      // vLLM's engine: "The decoder prompt (length 12324) is longer than the maximum model length of 8192."
      r = re(`(?:decoder |encoder )?prompt \\(length ${N}\\) is longer than the maximum model length of ${N}`).exec(m)
      if (r) return { actual: num(r[1]), limit: num(r[2]) }
      r = re(`prompt \\(total length ${N}\\) is too long to fit into the model \\(context length ${N}\\)`).exec(m)
      if (r) return { actual: num(r[1]), limit: num(r[2]) }
      r = re(`input prompt \\(${N} tokens\\) is too long and exceeds limit of ${N}`).exec(m)
      return r ? { actual: num(r[1]), limit: num(r[2]) } : undefined
    },
  ],
  [
    'tgi',
    (m) => {
      // Hugging Face text-generation-inference (Together, HF endpoints).
      let r = re(`inputs.? tokens \\+ .?max_new_tokens.? must be <= ${N}\\. Given: ${N} .?inputs.? tokens and ${N} .?max_new_tokens`).exec(m)
      if (r) return minusCompletion(num(r[1]), num(r[3]), num(r[2]))
      r = re(`inputs.? must have less than ${N} tokens\\. Given: ${N}`).exec(m)
      return r ? { limit: num(r[1]), actual: num(r[2]) } : undefined
    },
  ],
  [
    'sglang',
    (m) => {
      let r = re(`input \\(${N} tokens\\) is longer than the model's context length \\(${N} tokens\\)`).exec(m)
      if (r) return { actual: num(r[1]), limit: num(r[2]) }
      r = re(
        `maximum context length of ${N} tokens\\. You requested a total of ${N} tokens: ${N} tokens from the input messages and ${N} tokens for the completion`,
      ).exec(m)
      return r ? minusCompletion(num(r[1]), num(r[4]), num(r[3])) : undefined
    },
  ],
  [
    'openai',
    (m) => {
      const limitMatch =
        re(`maximum context length is ${N} tokens`).exec(m) ??
        re(`exceed the configured limit of ${N} tokens`).exec(m) ??
        re(`maximum context length of ${N} tokens`).exec(m)
      if (!limitMatch && !/context_length_exceeded|exceeds the context window|maximum context length/i.test(m)) return undefined
      let limit = num(limitMatch?.[1])
      let actual: number | undefined
      let r: RegExpExecArray | null
      // "you requested 70000 tokens (66000 in the messages, 80 in the functions, and 4000 in the completion)"
      const parts = re(`you requested (?:about )?${N} tokens \\(${N} in the messages,(?: ${N} in the functions,)?(?: and)? ${N} in the completion\\)`).exec(m)
      if (parts) {
        const completion = num(parts[4]) ?? 0
        actual = (num(parts[2]) ?? 0) + (num(parts[3]) ?? 0) || undefined
        if (limit !== undefined && completion >= limit) return null
        if (limit !== undefined && completion > 0) limit -= completion
      } else if ((r = re(`you requested ${N} tokens \\(${N} in your prompt; ${N} for the completion\\)`).exec(m))) {
        // OpenAI's completions wording, kept by older OpenAI-compatible servers.
        const completion = num(r[3]) ?? 0
        actual = num(r[2])
        if (limit !== undefined && completion >= limit) return null
        if (limit !== undefined && completion > 0) limit -= completion
      } else if ((r = re(`you requested about ${N} tokens \\(${N} of text input,(?: ${N} of tool input,)? ${N} in the output\\)`).exec(m))) {
        // OpenRouter: "(240000 of text input, 10000 in the output)".
        const completion = num(r[4]) ?? 0
        actual = (num(r[2]) ?? 0) + (num(r[3]) ?? 0) || undefined
        if (limit !== undefined && completion >= limit) return null
        if (limit !== undefined && completion > 0) limit -= completion
      } else {
        const r = re(`(?:your messages resulted in|your request has|you requested(?: about)?) ${N}(?: input)? tokens`).exec(m)
        actual = num(r?.[1])
      }
      return { limit, actual }
    },
  ],
  [
    'xai',
    (m) => {
      const r = re(`maximum prompt length is ${N} but the request contains ${N} tokens`).exec(m)
      return r ? { limit: num(r[1]), actual: num(r[2]) } : undefined
    },
  ],
  [
    'mistral',
    (m) => {
      const r = re(`prompt contains ${N} tokens.*?too large for model with ${N} maximum context length`, 'is').exec(m)
      return r ? { actual: num(r[1]), limit: num(r[2]) } : undefined
    },
  ],
  [
    'cohere',
    (m) => {
      const r = re(`total number of tokens in the prompt cannot exceed ${N} - received ${N}`).exec(m)
      if (r) return { limit: num(r[1]), actual: num(r[2]) }
      return /too many tokens: size limit exceeded by/i.test(m) ? {} : undefined
    },
  ],
  [
    'dashscope',
    (m) => {
      const r = re(`range of input length should be \\[1, ?${N}\\]`).exec(m)
      return r ? { limit: num(r[1]) } : undefined
    },
  ],
  [
    'ollama',
    (m) => {
      if (re(`prompt too long; exceeded (?:max )?context length by ${N} tokens`).test(m)) return {}
      return /input length exceeds (?:the )?(?:maximum )?context length/i.test(m) ? {} : undefined
    },
  ],
  [
    'moonshot',
    (m) => {
      // Kimi: "Your request exceeded model token limit: 262144 (requested: 291351)".
      const r = re(`exceeded model token limit: ${N}(?: \\(requested: ${N}\\))?`).exec(m)
      return r ? { limit: num(r[1]), actual: num(r[2]) } : undefined
    },
  ],
  [
    'copilot',
    (m) => {
      // GitHub Copilot (model_max_prompt_tokens_exceeded): "prompt token count of 139451 exceeds the limit of 128000".
      const r = re(`prompt token count of ${N} exceeds the limit of ${N}`).exec(m)
      return r ? { actual: num(r[1]), limit: num(r[2]) } : undefined
    },
  ],
  [
    'bedrock-titan',
    (m) => {
      const r = re(`too many input tokens\\. max input tokens: ${N}, request input token count: ${N}`).exec(m)
      return r ? { limit: num(r[1]), actual: num(r[2]) } : undefined
    },
  ],
  [
    'context-size',
    (m) => {
      // "Prompt has 5000 tokens, but the configured context size is 4096 tokens"; OpenRouter's
      // Poolside: "exceeds the maximum allowed input length of 128000 tokens".
      let r = re(`prompt has ${N} tokens?, but the configured context size is ${N} tokens?`).exec(m)
      if (r) return { actual: num(r[1]), limit: num(r[2]) }
      r = re(`exceeds the maximum allowed input length of ${N} tokens?`).exec(m)
      return r ? { limit: num(r[1]) } : undefined
    },
  ],
  // LM Studio: "The number of tokens to keep from the initial prompt is greater than the context length".
  ['lm-studio', (m) => (/tokens to keep from the initial prompt is greater than the context length/i.test(m) ? {} : undefined)],
  // MiniMax (2013): "invalid params, context window exceeds limit".
  ['minimax', (m) => (/context window exceeds limit/i.test(m) ? {} : undefined)],
  [
    'llama.cpp',
    (m) => {
      if (/exceeds the available context size|exceed_context_size_error/i.test(m)) {
        const ctx = re(`"n_ctx":\\s*${N}`).exec(m)
        const prompt = re(`"n_prompt_tokens":\\s*${N}`).exec(m)
        return { limit: num(ctx?.[1]), actual: num(prompt?.[1]) }
      }
      const r = re(`loaded with context length of only ${N} tokens`).exec(m)
      return r ? { limit: num(r[1]) } : undefined
    },
  ],
  ['bedrock', (m) => (/input tokens exceeded|number of input tokens exceeds/i.test(m) ? {} : undefined)],
  ['glm', (m) => (/prompt exceeds max length/i.test(m) ? {} : undefined)],
  ['litellm', (m) => (/ContextWindowExceededError/.test(m) ? {} : undefined)],
  [
    'siliconflow',
    (m) => {
      // SiliconFlow (code 20015; hosts DeepSeek, Qwen, GLM): "length of prompt_tokens (68957) must be
      // less than max_seq_len (65536)."
      const r = re(`length of prompt[_ ]?tokens \\(${N}\\) (?:must be less than|exceeds) (?:the )?max_seq_len \\(${N}\\)`).exec(m)
      return r ? { actual: num(r[1]), limit: num(r[2]) } : undefined
    },
  ],
  [
    'request-size',
    (m) =>
      /request_too_large|exceeds the maximum allowed number of bytes|request payload size exceeds the limit|request entity too large|payload too large|expected a string with maximum length/i.test(
        m,
      ) && !OUTPUT_OR_RATE.test(m)
        ? {}
        : undefined,
  ],
  ['generic', generic],
]

/**
 * The wordings many servers share (the phrases agent frameworks match), read last: "context length
 * exceeded", "token limit exceeded", "too many tokens", "exceeds the context window of N", "reduce
 * the length of the messages", "input is too long", "context window full", "prompt length (N)
 * exceeds context length (M)". Never when the text speaks of output tokens or a rate (an output limit
 * or a quota: less input cannot make those succeed).
 */
function generic(m: string): Omit<Overflow, 'kind'> | undefined {
  if (OUTPUT_OR_RATE.test(m)) return undefined
  let r = re(`prompt length \\(${N}\\) exceeds (?:the )?context length \\(${N}\\)`).exec(m)
  if (r) return { actual: num(r[1]), limit: num(r[2]) }
  r = re(`(?:requested|prompt|input) tokens \\(${N}\\) exceeds? (?:the )?(?:model's )?context (?:window|length|size) of ${N}`).exec(m)
  if (r) return { actual: num(r[1]), limit: num(r[2]) }
  if (!GENERIC_OVERFLOW.test(m)) return undefined
  r = re(`(?:context (?:window|length|size)|token limit)(?: of| is)? ${N}(?: tokens)?`).exec(m)
  return r ? { limit: num(r[1]) } : {}
}

const GENERIC_OVERFLOW =
  /context[_ ]length[_ ]exceeded|token limit exceeded|exceeds? (?:the )?(?:model's )?(?:maximum )?token limit|too many tokens|exceeds? (?:the )?(?:model's )?(?:maximum )?context (?:window|length|size)|reduce the length of the messages|input is too long|context window (?:is )?full/i

/** An output limit, a rate or another list's size, which a generic wording must not be taken for. */
const OUTPUT_OR_RATE =
  /logit_bias|max_(?:new_|completion_|output_)?tokens|max(?:imum)? output tokens|output tokens|completion tokens|per min|per minute|per day|per hour|\bTP[MD]\b|\bRPM\b|rate limit|quota|please wait/i

/** The error and its `cause` chain (at most 5 deep, no cycles). */
function chainOf(e: unknown): unknown[] {
  const out: unknown[] = []
  for (let c: unknown = e; c !== null && typeof c === 'object' && out.length < 5 && !out.includes(c); c = read(c, 'cause')) out.push(c)
  return out
}

/** The texts the chain carries: each error's message and its API body. */
function textsOf(chain: readonly unknown[]): string[] {
  const out: string[] = []
  const add = (v: unknown) => {
    const t = text(v)
    if (t) out.push(t)
  }
  for (const e of chain) {
    add(read(e, 'message'))
    add(read(read(e, 'error'), 'message'))
    add(read(e, 'error'))
    add(read(e, 'errorDetails'))
  }
  return out
}

function codesOf(chain: readonly unknown[]): unknown[] {
  const out: unknown[] = []
  for (const e of chain) {
    const body = read(e, 'error')
    out.push(read(e, 'code'), read(body, 'code'), read(read(body, 'error'), 'code'), read(e, 'lc_error_code'))
    // An API error's type: the SDK's own `type` field, its body's, an Anthropic envelope's.
    out.push(read(e, 'type'), read(body, 'type'), read(read(body, 'error'), 'type'))
  }
  return out
}

/** Types and codes with which only an API reports an error (a stream's error event has no status). */
const API_ERROR_CODES = ['invalid_request_error', 'context_length_exceeded', 'InvalidRequestError']

/**
 * Whether `error` is a provider's context-length error, and what it says: `undefined` for every
 * other error. Reads only the error's own data (name, status, code, message, API body, the `cause`
 * chain); never throws.
 */
export function classifyOverflow(error: unknown): Overflow | undefined {
  if (error === null || typeof error !== 'object') return undefined
  const chain = chainOf(error)
  const names = chain.map((e) => text(read(e, 'name')))
  if (names.some((n) => n !== undefined && NOT_OVERFLOW_NAMES.has(n))) return undefined
  let status: number | undefined
  for (const e of chain) if ((status = statusOf(e)) !== undefined) break
  if (status !== undefined && status !== 400 && status !== 413 && status !== 422) return undefined
  const codes = codesOf(chain)
  const declared = names.includes('ContextOverflowError') || codes.includes('CONTEXT_OVERFLOW')
  // Only a provider's answer is read: an HTTP 400/413/422, an API error body (a stream's error
  // event), or LangChain's own overflow error. An error with none of them (a bug's TypeError, a
  // tool's failure) is never an overflow, whatever it says.
  if (status === undefined && !declared && !API_ERROR_CODES.some((c) => codes.includes(c))) return undefined
  // One text: a body's numbers (llama.cpp's n_ctx) complete a message's words.
  const all = textsOf(chain).join('\n')
  for (const [kind, shape] of SHAPES) {
    const found = shape(all)
    if (found === null) return undefined
    if (found) return clean({ ...found, kind })
  }
  if (declared) return { kind: 'context-overflow-error' }
  // Cerebras answers an overflow with an empty 400 or 413 (the SDK's "400 status code (no body)").
  if ((status === 400 || status === 413) && chain.some((e) => /^\s*4(?:00|13) status code \(no body\)\s*$/i.test(text(read(e, 'message')) ?? ''))) {
    return { kind: 'no-body' }
  }
  if (codes.includes('context_length_exceeded')) return { kind: 'openai' }
  if (codes.includes('1261') || codes.includes(1261)) return { kind: 'glm' }
  return undefined
}

function clean(o: Overflow): Overflow {
  const out: Overflow = { kind: o.kind }
  if (o.limit !== undefined) out.limit = o.limit
  if (o.actual !== undefined) out.actual = o.actual
  return out
}
