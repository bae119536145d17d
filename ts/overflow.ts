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
// Only a provider's answer is read: an error carrying HTTP status 400, 413 or 422 (`status`,
// `status_code`, `statusCode`, `response.status`, `$metadata.httpStatusCode`, on it or its `cause`),
// or LangChain's `ContextOverflowError`. Never an overflow, whatever the text says: an abort or
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
  for (const v of [
    read(e, 'status'),
    read(e, 'status_code'),
    read(e, 'statusCode'),
    read(read(e, 'response'), 'status'),
    read(read(e, '$metadata'), 'httpStatusCode'),
  ]) {
    if (typeof v === 'number' && Number.isInteger(v)) return v
  }
  return undefined
}

function num(s: string | undefined): number | undefined {
  if (s === undefined) return undefined
  const n = Number(s.replace(/[,_]/g, ''))
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

type Reader = (m: string) => Omit<Overflow, 'kind'> | undefined

const N = '(\\d[\\d,]*)'

/** The message shapes, most specific first; each returns the sizes it reads (possibly none). */
const SHAPES: ReadonlyArray<readonly [string, Reader]> = [
  [
    'anthropic',
    (m) => {
      const r = new RegExp(`prompt is too long: ${N} tokens > ${N} maximum`, 'i').exec(m)
      return r ? { actual: num(r[1]), limit: num(r[2]) } : /prompt is too long|input is too long for requested model/i.test(m) ? {} : undefined
    },
  ],
  [
    'google',
    (m) => {
      const r = new RegExp(`input token count \\(${N}\\) exceeds the maximum number of tokens allowed \\(${N}\\)`, 'i').exec(m)
      return r ? { actual: num(r[1]), limit: num(r[2]) } : undefined
    },
  ],
  [
    'vllm',
    (m) => {
      // max_tokens too large: the input fits, the input plus the reserved completion does not.
      let r = new RegExp(`maximum context length is ${N} tokens and your request has ${N} input tokens \\(${N} > `, 'i').exec(m)
      if (r) {
        const window = num(r[1])
        const completion = num(r[3])
        return { actual: num(r[2]), limit: window !== undefined && completion !== undefined && window > completion ? window - completion : window }
      }
      r = new RegExp(`prompt \\(total length ${N}\\) is too long to fit into the model \\(context length ${N}\\)`, 'i').exec(m)
      if (r) return { actual: num(r[1]), limit: num(r[2]) }
      r = new RegExp(`input prompt \\(${N} tokens\\) is too long and exceeds limit of ${N}`, 'i').exec(m)
      return r ? { actual: num(r[1]), limit: num(r[2]) } : undefined
    },
  ],
  [
    'openai',
    (m) => {
      const limitMatch =
        new RegExp(`maximum context length is ${N} tokens`, 'i').exec(m) ?? new RegExp(`exceed the configured limit of ${N} tokens`, 'i').exec(m)
      if (!limitMatch && !/context_length_exceeded|exceeds the context window|maximum context length/i.test(m)) return undefined
      let limit = num(limitMatch?.[1])
      let actual: number | undefined
      // "you requested 70000 tokens (66000 in the messages, 80 in the functions, and 4000 in the completion)"
      const parts = new RegExp(`you requested ${N} tokens \\(${N} in the messages,(?: ${N} in the functions,)?(?: and)? ${N} in the completion\\)`, 'i').exec(m)
      if (parts) {
        const completion = num(parts[4]) ?? 0
        actual = (num(parts[2]) ?? 0) + (num(parts[3]) ?? 0) || undefined
        if (limit !== undefined && completion > 0 && limit > completion) limit -= completion
      } else {
        const r = new RegExp(`(?:your messages resulted in|your request has|you requested) ${N}(?: input)? tokens`, 'i').exec(m)
        actual = num(r?.[1])
      }
      return { limit, actual }
    },
  ],
  [
    'xai',
    (m) => {
      const r = new RegExp(`maximum prompt length is ${N} but the request contains ${N} tokens`, 'i').exec(m)
      return r ? { limit: num(r[1]), actual: num(r[2]) } : undefined
    },
  ],
  [
    'mistral',
    (m) => {
      const r = new RegExp(`prompt contains ${N} tokens.*?too large for model with ${N} maximum context length`, 'is').exec(m)
      return r ? { actual: num(r[1]), limit: num(r[2]) } : undefined
    },
  ],
  [
    'dashscope',
    (m) => {
      const r = new RegExp(`range of input length should be \\[1, ?${N}\\]`, 'i').exec(m)
      return r ? { limit: num(r[1]) } : undefined
    },
  ],
  [
    'ollama',
    (m) => {
      const r = new RegExp(`prompt too long; exceeded max context length by ${N} tokens`, 'i').exec(m)
      if (r) return {}
      return /the input length exceeds the context length/i.test(m) ? {} : undefined
    },
  ],
  ['glm', (m) => (/prompt exceeds max length/i.test(m) ? {} : undefined)],
]

/** The texts an error carries: its message, its API body, and the same of its `cause` (one level). */
function textsOf(e: unknown): string[] {
  const out: string[] = []
  const add = (v: unknown) => {
    const t = text(v)
    if (t) out.push(t)
  }
  add(read(e, 'message'))
  add(read(read(e, 'error'), 'message'))
  add(read(e, 'error'))
  add(read(e, 'errorDetails'))
  const cause = read(e, 'cause')
  if (cause !== e) {
    add(read(cause, 'message'))
    add(read(read(cause, 'error'), 'message'))
  }
  return out
}

function codesOf(e: unknown): unknown[] {
  const cause = read(e, 'cause')
  return [read(e, 'code'), read(read(e, 'error'), 'code'), read(cause, 'code'), read(read(cause, 'error'), 'code'), read(e, 'lc_error_code')]
}

/**
 * Whether `error` is a provider's context-length error, and what it says: `undefined` for every
 * other error. Reads only the error's own data (name, status, code, message, API body, `cause`);
 * never throws.
 */
export function classifyOverflow(error: unknown): Overflow | undefined {
  if (error === null || typeof error !== 'object') return undefined
  const name = text(read(error, 'name'))
  if (name !== undefined && NOT_OVERFLOW_NAMES.has(name)) return undefined
  const status = statusOf(error) ?? statusOf(read(error, 'cause'))
  if (status !== undefined && status !== 400 && status !== 413 && status !== 422) return undefined
  const codes = codesOf(error)
  const declared = name === 'ContextOverflowError' || codes.includes('CONTEXT_OVERFLOW')
  // Only a provider's answer is read: an HTTP 400/413/422, or LangChain's own overflow error. An
  // error with neither (a bug's TypeError, a tool's failure) is never an overflow, whatever it says.
  if (status === undefined && !declared) return undefined
  const texts = textsOf(error)
  for (const [kind, shape] of SHAPES) {
    for (const t of texts) {
      const found = shape(t)
      if (found) return clean({ ...found, kind })
    }
  }
  if (declared) return { kind: 'context-overflow-error' }
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
