// Real context-length errors of each provider, made by the providers' own client classes (the
// LangChain chat models and the SDKs under them) against a fake endpoint: `fetch` is injected, so
// the error objects are built by the real code path (status, body parsing, LangChain's wrapping),
// with no network. Bodies are the providers' documented / observed responses (see ts/overflow.ts).
import { ChatOpenAI } from '@langchain/openai'
import { ChatGoogleGenerativeAI } from '@langchain/google-genai'
import { ChatOllama } from '@langchain/ollama'
import { ChatDeepSeek } from '@langchain/deepseek'
import OpenAI from 'openai'
import { anthropicAnswering, answering, dashscopeError, openaiBody, openaiCompatible, thrown, vllmBody } from './provider-fakes.mjs'
import { MORE_OTHER_ERRORS, MORE_OVERFLOWS } from './provider-errors-servers.mjs'
import { WORDING_OTHERS, WORDING_OVERFLOWS } from './provider-errors-wordings.mjs'

export { answering, openaiCompatible }

async function googleThrown(status, body) {
  const real = globalThis.fetch
  globalThis.fetch = answering(status, body)
  try {
    return await thrown(new ChatGoogleGenerativeAI({ model: 'gemini-2.5-pro', apiKey: 'test', maxRetries: 0 }))
  } finally {
    globalThis.fetch = real
  }
}

/** The raw `openai` SDK client (what LangChain 0.3, the Xpert host's pin, lets through unwrapped). */
async function openaiSdkThrown(status, body) {
  const client = new OpenAI({ apiKey: 'test', baseURL: 'http://fake.invalid/v1', maxRetries: 0, fetch: answering(status, body) })
  try {
    await client.chat.completions.create({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'hello' }] })
  } catch (e) {
    return e
  }
  throw new Error('no error')
}

/**
 * Every provider's overflow: `{ name, make, limit, actual }` where `make()` resolves to the error
 * object (a fresh one per call) and `limit` / `actual` are what the error says (undefined: it does not).
 */
export const OVERFLOWS = [
  {
    name: '@langchain/openai (context_length_exceeded)',
    limit: 128000,
    actual: 130512,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          openaiBody(
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens (including 88 in the functions). Please reduce the length of the messages or functions.",
          ),
        ),
      ),
  },
  {
    name: '@langchain/openai, Responses API wording',
    make: () => thrown(openaiCompatible(400, openaiBody('Your input exceeds the context window of this model. Please adjust your input and try again.'))),
  },
  {
    name: '@langchain/openai, Azure configured limit',
    limit: 272000,
    actual: 280311,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          openaiBody(
            'Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 280311 tokens. Please reduce the length of the messages.',
          ),
        ),
      ),
  },
  {
    name: '@langchain/anthropic ("prompt is too long: N tokens > M maximum")',
    limit: 200000,
    actual: 208310,
    make: () => thrown(anthropicAnswering(400, 'invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum')),
  },
  {
    name: '@langchain/google-genai (Gemini)',
    limit: 1048576,
    actual: 1200293,
    make: () =>
      googleThrown(400, {
        error: { code: 400, message: 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' },
      }),
  },
  {
    name: 'Vertex AI (@langchain/google-common "Google request failed")',
    limit: 131072,
    actual: 317740,
    // @langchain/google-common's `_throwRequestError`, verbatim: a plain Error with `response`.
    make: async () => {
      const body = JSON.stringify({
        error: { code: 400, message: 'The input token count (317740) exceeds the maximum number of tokens allowed (131072).', status: 'INVALID_ARGUMENT' },
      })
      const error = new Error(`Google request failed with status code 400: ${body}`)
      error.response = { status: 400, statusText: 'Bad Request' }
      error.details = {
        url: 'https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
      }
      return error
    },
  },
  {
    name: '@langchain/deepseek (messages + completion)',
    limit: 65536 - 4000,
    actual: 66000,
    make: () =>
      thrown(
        new ChatDeepSeek({
          model: 'deepseek-chat',
          apiKey: 'test',
          maxRetries: 0,
          configuration: {
            fetch: answering(
              400,
              openaiBody(
                "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (66000 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.",
                'invalid_request_error',
              ),
            ),
          },
        }),
      ),
  },
  {
    name: 'DeepSeek through the raw openai SDK (LangChain 0.3 lets it through)',
    limit: 131072 - 8192,
    actual: 122942,
    make: () =>
      openaiSdkThrown(
        400,
        openaiBody(
          "This model's maximum context length is 131072 tokens. However, you requested 131134 tokens (122942 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
          'invalid_request_error',
        ),
      ),
  },
  {
    name: 'Qwen / DashScope (OpenAI-compatible mode)',
    limit: 129024,
    make: () => thrown(dashscopeError('Range of input length should be [1, 129024]')),
  },
  {
    name: '@langchain/ollama (ollama ResponseError)',
    make: () => thrown(new ChatOllama({ model: 'qwen3:8b', fetch: answering(400, { error: 'the input length exceeds the context length' }) })),
  },
  {
    name: 'vLLM (input tokens)',
    limit: 32768,
    actual: 40000,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          vllmBody(
            "This model's maximum context length is 32768 tokens. However, your request has 40000 input tokens. Please reduce the length of the input messages.",
          ),
          'Qwen/Qwen3-8B',
        ),
      ),
  },
  {
    name: 'vLLM (max_tokens too large)',
    limit: 32768 - 4096,
    actual: 30000,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          vllmBody(
            "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context length is 32768 tokens and your request has 30000 input tokens (4096 > 32768 - 30000).",
          ),
          'meta-llama/Llama-3.1-8B-Instruct',
        ),
      ),
  },
  {
    name: 'vLLM (prompt too long to fit)',
    limit: 4096,
    actual: 25938,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          vllmBody(
            'The prompt (total length 25938) is too long to fit into the model (context length 4096). Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens.',
          ),
          'google/gemma-3-27b-it',
        ),
      ),
  },
  {
    name: 'Zhipu GLM (code 1261)',
    make: () => thrown(openaiCompatible(400, { error: { code: '1261', message: 'Prompt exceeds max length' } }, 'glm-4.5-air')),
  },
  {
    name: 'xAI Grok',
    limit: 131072,
    actual: 136973,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          { code: 'Client specified an invalid argument', error: "This model's maximum prompt length is 131072 but the request contains 136973 tokens." },
          'grok-3',
        ),
      ),
  },
]

/** Errors that are not overflows, made the same way: `{ name, make }`. */
export const OTHER_ERRORS = [
  {
    name: 'OpenAI 429 (tokens per minute: "Limit 30000, Requested 50000")',
    make: () =>
      thrown(
        openaiCompatible(
          429,
          openaiBody(
            'Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 50000. The input or output tokens must be reduced in order to run successfully.',
            'rate_limit_exceeded',
            'tokens',
          ),
        ),
      ),
  },
  {
    name: 'OpenAI 401',
    make: () => thrown(openaiCompatible(401, openaiBody('Incorrect API key provided: sk-test.', 'invalid_api_key'))),
  },
  {
    name: 'OpenAI 404 model not found',
    make: () => thrown(openaiCompatible(404, openaiBody('The model `gpt-9` does not exist or you do not have access to it.', 'model_not_found'))),
  },
  {
    name: 'a 500 whose text reads like an overflow',
    make: () =>
      thrown(
        openaiCompatible(
          500,
          openaiBody("This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", 'server_error', 'server_error'),
        ),
      ),
  },
  {
    name: 'Ollama 500 "the input length exceeds the context length" (a server fault, not a 400)',
    make: () => thrown(new ChatOllama({ model: 'qwen3:8b', fetch: answering(500, { error: 'the input length exceeds the context length' }) })),
  },
  {
    name: 'Anthropic 529 overloaded',
    make: () => thrown(anthropicAnswering(529, 'overloaded_error', 'Overloaded')),
  },
  {
    name: 'OpenAI 400 tool_calls without results (INVALID_TOOL_RESULTS)',
    make: () =>
      thrown(
        openaiCompatible(
          400,
          openaiBody(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_1",
            null,
          ),
        ),
      ),
  },
  {
    name: 'an aborted call (AbortController)',
    make: async () => {
      const controller = new AbortController()
      const model = new ChatOpenAI({
        model: 'gpt-4o',
        apiKey: 'test',
        maxRetries: 0,
        configuration: { fetch: (_url, init) => new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason))) },
      })
      const pending = model.invoke('hello', { signal: controller.signal }).catch((e) => e)
      controller.abort()
      return pending
    },
  },
  { name: 'a TypeError from a bug', make: async () => new TypeError("Cannot read properties of undefined (reading 'maximum context length')") },
  {
    name: 'a plain Error saying "prompt is too long" with a 429 status',
    make: async () => Object.assign(new Error('prompt is too long: 5 tokens > 4 maximum'), { status: 429 }),
  },
  { name: 'a thrown string', make: async () => 'prompt is too long: 5 tokens > 4 maximum' },
  { name: 'a thrown null', make: async () => null },
]

OVERFLOWS.push(...MORE_OVERFLOWS, ...WORDING_OVERFLOWS)
OTHER_ERRORS.push(...MORE_OTHER_ERRORS, ...WORDING_OTHERS)
