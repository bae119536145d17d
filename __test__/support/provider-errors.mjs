// Real context-length errors of each provider, made by the providers' own client classes (the
// LangChain chat models and the SDKs under them) against a fake endpoint: `fetch` is injected, so
// the error objects are built by the real code path (status, body parsing, LangChain's wrapping),
// with no network. Bodies are the providers' documented / observed responses (see ts/overflow.ts).
import { ChatOpenAI } from '@langchain/openai'
import { ChatAnthropic } from '@langchain/anthropic'
import { ChatGoogleGenerativeAI } from '@langchain/google-genai'
import { ChatOllama } from '@langchain/ollama'
import { ChatDeepSeek } from '@langchain/deepseek'
import OpenAI from 'openai'

/** A `fetch` that answers every request with `status` and the JSON `body`. */
export function answering(status, body) {
  return async () =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', 'x-request-id': 'req_1', 'request-id': 'req_1' },
    })
}

// vLLM's OpenAI-compatible server (`ErrorResponse`, nested under `error` as OpenAI's are).
const vllmBody = (message) => ({ error: { message, type: 'BadRequestError', param: null, code: 400 } })

const openaiBody = (message, code = 'context_length_exceeded', type = 'invalid_request_error') => ({ error: { message, type, param: 'messages', code } })

/** What `model.invoke()` throws. */
async function thrown(model) {
  try {
    await model.invoke('hello')
  } catch (e) {
    return e
  }
  throw new Error('the fake endpoint did not make the model throw')
}

async function googleThrown(status, body) {
  const real = globalThis.fetch
  globalThis.fetch = answering(status, body)
  try {
    return await thrown(new ChatGoogleGenerativeAI({ model: 'gemini-2.5-pro', apiKey: 'test', maxRetries: 0 }))
  } finally {
    globalThis.fetch = real
  }
}

/** A ChatOpenAI (any OpenAI-compatible server: DashScope, vLLM, GLM, xAI, Mistral) answering `status`/`body`. */
export const openaiCompatible = (status, body, model = 'gpt-4o') =>
  new ChatOpenAI({ model, apiKey: 'test', maxRetries: 0, configuration: { baseURL: 'http://fake.invalid/v1', fetch: answering(status, body) } })

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
    make: () =>
      thrown(
        new ChatAnthropic({
          model: 'claude-sonnet-4-5',
          apiKey: 'test',
          maxRetries: 0,
          clientOptions: {
            fetch: answering(400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' } }),
          },
        }),
      ),
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
    make: () =>
      thrown(
        openaiCompatible(
          400,
          {
            error: {
              code: 'invalid_parameter_error',
              message: '<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 129024]',
              param: null,
              type: 'invalid_request_error',
            },
          },
          'qwen-plus',
        ),
      ),
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
    make: () =>
      thrown(
        new ChatAnthropic({
          model: 'claude-sonnet-4-5',
          apiKey: 'test',
          maxRetries: 0,
          clientOptions: { fetch: answering(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) },
        }),
      ),
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

// More servers and wrappings (R2's red-team pass): each a real client class where one is installed,
// else the error object its SDK builds (Bedrock's ValidationException, Cohere's CohereError).

/** A `fetch` answering with a server-sent event stream of `events` (`[event, data]`). */
function streaming(events) {
  return async () =>
    new Response(events.map(([event, data]) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`).join(''), {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_1', 'request-id': 'req_1' },
    })
}

const anthropicModel = (fetch, streamingOn = false) =>
  new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 'test', maxRetries: 0, streaming: streamingOn, clientOptions: { fetch } })

/** An AWS SDK v3 service error as @aws-sdk/client-bedrock-runtime throws it (no AWS package is installed). */
function awsValidation(message) {
  const e = new Error(message)
  e.name = 'ValidationException'
  e.$fault = 'client'
  e.$metadata = { httpStatusCode: 400, requestId: 'r1', attempts: 1 }
  return e
}

OVERFLOWS.push(
  {
    name: '@langchain/anthropic (input + max_tokens exceed the context limit)',
    limit: 200000 - 21333,
    actual: 188240,
    make: () =>
      thrown(
        anthropicModel(
          answering(400, {
            type: 'error',
            error: {
              type: 'invalid_request_error',
              message: 'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again',
            },
          }),
        ),
      ),
  },
  {
    name: '@langchain/anthropic streaming (an error event: no HTTP status)',
    limit: 200000,
    actual: 204000,
    make: () =>
      thrown(
        anthropicModel(
          streaming([['error', { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 204000 tokens > 200000 maximum' } }]]),
          true,
        ),
      ),
  },
  {
    name: '@langchain/openai streaming (an error chunk: no HTTP status)',
    limit: 128000,
    actual: 140000,
    make: () =>
      thrown(
        new ChatOpenAI({
          model: 'gpt-4o',
          apiKey: 'test',
          maxRetries: 0,
          streaming: true,
          configuration: {
            fetch: streaming([
              [
                null,
                {
                  error: {
                    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 140000 tokens.",
                    type: 'invalid_request_error',
                    code: 'context_length_exceeded',
                  },
                },
              ],
            ]),
          },
        }),
      ),
  },
  {
    name: 'Hugging Face TGI / Together (422: inputs + max_new_tokens)',
    limit: 32769 - 4000,
    actual: 30000,
    make: () =>
      thrown(
        openaiCompatible(
          422,
          {
            error: 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 32769. Given: 30000 `inputs` tokens and 4000 `max_new_tokens`',
            error_type: 'validation',
          },
          'meta-llama/Llama-3.3-70B-Instruct-Turbo',
        ),
      ),
  },
  {
    name: 'Fireworks ("The prompt is too long: N, model maximum context length: M")',
    limit: 32768,
    actual: 33180,
    make: () =>
      thrown(
        openaiCompatible(400, {
          error: { object: 'error', type: 'invalid_request_error', message: 'The prompt is too long: 33180, model maximum context length: 32768' },
        }),
      ),
  },
  {
    name: 'SGLang ("The input (N tokens) is longer than the model\'s context length")',
    limit: 32768,
    actual: 40000,
    make: () => thrown(openaiCompatible(400, vllmBody("The input (40000 tokens) is longer than the model's context length (32768 tokens)."))),
  },
  {
    name: 'llama.cpp server (exceed_context_size_error with n_ctx)',
    limit: 4096,
    actual: 5000,
    make: () =>
      thrown(
        openaiCompatible(400, {
          error: {
            code: 400,
            message: 'the request exceeds the available context size, try increasing it',
            type: 'exceed_context_size_error',
            n_prompt_tokens: 5000,
            n_ctx: 4096,
          },
        }),
      ),
  },
  {
    name: 'OpenRouter ("you requested about N tokens (A of text input, B in the output)")',
    limit: 200000 - 10000,
    actual: 240000,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          openaiBody(
            'This endpoint\'s maximum context length is 200000 tokens. However, you requested about 250000 tokens (240000 of text input, 10000 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
            400,
          ),
          'anthropic/claude-sonnet-4.5',
        ),
      ),
  },
  {
    name: 'LiteLLM proxy (ContextWindowExceededError)',
    make: () =>
      thrown(
        openaiCompatible(400, {
          error: {
            message: 'litellm.ContextWindowExceededError: litellm.BadRequestError: VertexAIException - context window exceeded',
            type: null,
            param: null,
            code: '400',
          },
        }),
      ),
  },
  {
    name: 'Groq (context_length_exceeded, no sizes)',
    make: () => thrown(openaiCompatible(400, openaiBody('Please reduce the length of the messages or completion.'), 'llama-3.3-70b-versatile')),
  },
  {
    name: 'Bedrock ValidationException (Claude)',
    make: async () => awsValidation('The model returned the following errors: Input is too long for requested model.'),
  },
  {
    name: 'Bedrock ValidationException (Amazon Nova)',
    make: async () => awsValidation('Input Tokens Exceeded: Number of input tokens exceeds maximum length. Please reduce the length of the input.'),
  },
  {
    name: 'Cohere (CohereError: statusCode 400, "too many tokens")',
    limit: 4081,
    actual: 5000,
    make: async () => {
      const body = {
        message:
          'too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 5000. Try using a shorter prompt, or enabling prompt truncating.',
      }
      return Object.assign(new Error(`Status code: 400\nBody: ${JSON.stringify(body, null, 2)}`), { name: 'CohereError', statusCode: 400, body })
    },
  },
  {
    name: "a ContextOverflowError wrapped again by the caller's code (cause of a cause)",
    limit: 128000,
    actual: 130512,
    make: async () => new Error('agent step failed', { cause: await OVERFLOWS[0].make() }),
  },
)

OTHER_ERRORS.push(
  {
    name: 'Groq 413 tokens-per-minute limit ("Request too large ... Limit 6000, Requested 7107")',
    make: () =>
      thrown(
        openaiCompatible(
          413,
          openaiBody(
            'Request too large for model `llama-3.3-70b-versatile` in organization `org_x` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 7107, please reduce your message size and try again.',
            'rate_limit_exceeded',
            'tokens',
          ),
        ),
      ),
  },
  {
    name: 'OpenAI 400 max_tokens too large for the model (an output limit)',
    make: () =>
      thrown(
        openaiCompatible(
          400,
          openaiBody(
            'max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.',
            'invalid_value',
            'invalid_request_error',
          ),
        ),
      ),
  },
  {
    name: 'Anthropic 400 max_tokens above the output maximum',
    make: () =>
      thrown(
        anthropicModel(
          answering(400, {
            type: 'error',
            error: {
              type: 'invalid_request_error',
              message: 'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929',
            },
          }),
        ),
      ),
  },
  {
    name: 'vLLM max_tokens alone at least the window (no input cut can help)',
    make: () =>
      thrown(
        openaiCompatible(
          400,
          vllmBody(
            "'max_tokens' or 'max_completion_tokens' is too large: 40000. This model's maximum context length is 32768 tokens and your request has 100 input tokens (40000 > 32768 - 100).",
          ),
        ),
      ),
  },
  {
    name: 'DeepSeek completion alone above the window',
    make: () =>
      thrown(
        openaiCompatible(
          400,
          openaiBody(
            "This model's maximum context length is 65536 tokens. However, you requested 70010 tokens (10 in the messages, 70000 in the completion). Please reduce the length of the messages or completion.",
            'invalid_request_error',
          ),
          'deepseek-chat',
        ),
      ),
  },
  {
    name: 'an Error whose cause is a 429 rate limit',
    make: async () => new Error('model call failed', { cause: Object.assign(new Error('prompt is too long: 5 tokens > 4 maximum'), { status: 429 }) }),
  },
  {
    name: 'an Error whose cause is an abort',
    make: async () => {
      const abort = new DOMException('This operation was aborted', 'AbortError')
      return Object.assign(new Error('prompt is too long: 5 tokens > 4 maximum', { cause: abort }), { status: 400 })
    },
  },
)
