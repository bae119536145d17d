// More servers and wrappings than provider-errors.mjs's first list (which appends these): each a real
// client class where one is installed, else the error object its SDK builds (Bedrock's
// ValidationException, Cohere's CohereError).
import { ChatAnthropic } from '@langchain/anthropic'
import { ChatOpenAI } from '@langchain/openai'
import { answering, openaiBody, openaiCompatible, thrown, vllmBody } from './provider-fakes.mjs'

const OPENAI_OVERFLOW =
  "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens (including 88 in the functions). Please reduce the length of the messages or functions."

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

export const MORE_OVERFLOWS = [
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
    make: async () => new Error('agent step failed', { cause: await thrown(openaiCompatible(400, openaiBody(OPENAI_OVERFLOW))) }),
  },
]

export const MORE_OTHER_ERRORS = [
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
]
