// Context-length errors of more servers and newer server versions (provider-errors.mjs appends
// these), each made by the client a host would use: ChatOpenAI against an OpenAI-compatible fake
// endpoint (vLLM, Kimi, MiniMax, GitHub Copilot, LM Studio, older servers), ChatOllama, and the error
// object the AWS SDK throws for Bedrock. The messages are the servers' own, as they print them.
import { ChatOllama } from '@langchain/ollama'
import { anthropicAnswering, answering, dashscopeError, openaiBody, openaiCompatible, thrown, vllmBody } from './provider-fakes.mjs'

/** An AWS SDK v3 service error as @aws-sdk/client-bedrock-runtime throws it (no AWS package is installed). */
function awsValidation(message) {
  return Object.assign(new Error(message), { name: 'ValidationException', $fault: 'client', $metadata: { httpStatusCode: 400, requestId: 'r1', attempts: 1 } })
}

export const WORDING_OVERFLOWS = [
  {
    name: 'vLLM 0.9+ ("you requested N output tokens and your prompt contains at least M input tokens")',
    limit: 32768 - 8192,
    actual: 24577,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          vllmBody(
            "This model's maximum context length is 32768 tokens. However, you requested 8192 output tokens and your prompt contains at least 24577 input tokens, for a total of at least 32769 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=24577)",
          ),
          'Qwen/Qwen3-32B',
        ),
      ),
  },
  {
    name: 'vLLM engine ("The decoder prompt (length N) is longer than the maximum model length of M")',
    limit: 8192,
    actual: 12324,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          vllmBody(
            'The decoder prompt (length 12324) is longer than the maximum model length of 8192. Make sure that `max_model_len` is no smaller than the number of text tokens.',
          ),
          'Qwen/Qwen2.5-VL-7B-Instruct',
        ),
      ),
  },
  {
    name: 'an OpenAI-compatible server with the completions wording ("4000 in your prompt; 500 for the completion")',
    limit: 4097 - 500,
    actual: 4000,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          openaiBody(
            "This model's maximum context length is 4097 tokens, however you requested 4500 tokens (4000 in your prompt; 500 for the completion). Please reduce your prompt; or completion length.",
            null,
          ),
          'text-davinci-003',
        ),
      ),
  },
  {
    name: 'Kimi / Moonshot ("Your request exceeded model token limit: M (requested: N)")',
    limit: 262144,
    actual: 291351,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          { error: { message: 'Invalid request: Your request exceeded model token limit: 262144 (requested: 291351)', type: 'invalid_request_error' } },
          'kimi-k2-0905-preview',
        ),
      ),
  },
  {
    name: 'GitHub Copilot ("prompt token count of N exceeds the limit of M")',
    limit: 128000,
    actual: 139451,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          { error: { message: 'prompt token count of 139451 exceeds the limit of 128000', code: 'model_max_prompt_tokens_exceeded' } },
          'gpt-4.1',
        ),
      ),
  },
  {
    name: 'MiniMax ("invalid params, context window exceeds limit")',
    make: () =>
      thrown(
        openaiCompatible(
          400,
          { type: 'error', error: { type: 'bad_request_error', message: 'invalid params, context window exceeds limit (2013)', http_code: '400' } },
          'MiniMax-M2',
        ),
      ),
  },
  {
    name: 'LM Studio ("tokens to keep from the initial prompt is greater than the context length")',
    make: () =>
      thrown(
        openaiCompatible(
          400,
          {
            error:
              'The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input',
          },
          'qwen3-8b',
        ),
      ),
  },
  {
    name: '@langchain/ollama, older runner ("prompt too long; exceeded context length by N tokens")',
    make: () => thrown(new ChatOllama({ model: 'llama3.1:8b', fetch: answering(400, { error: 'prompt too long; exceeded context length by 1200 tokens' }) })),
  },
  {
    name: 'Bedrock ValidationException (Amazon Titan: "Too many input tokens. Max input tokens: M, request input token count: N")',
    limit: 8192,
    actual: 9279,
    make: async () => awsValidation('400 Bad Request: Too many input tokens. Max input tokens: 8192, request input token count: 9279 '),
  },
  {
    name: 'SiliconFlow through ChatOpenAI (code 20015 at the top of the body: the SDK reads it as "400 status code (no body)")',
    make: () =>
      thrown(
        openaiCompatible(
          400,
          { code: 20015, message: 'length of prompt_tokens (68957) must be less than max_seq_len (65536).', data: null },
          'deepseek-ai/DeepSeek-R1',
        ),
      ),
  },
  {
    name: 'SiliconFlow\'s wording under `error` ("length of prompt_tokens (N) must be less than max_seq_len (M)")',
    limit: 65536,
    actual: 68957,
    make: () =>
      thrown(
        openaiCompatible(
          400,
          { error: { code: 20015, message: 'length of prompt_tokens (68957) must be less than max_seq_len (65536).' } },
          'Qwen/Qwen2.5-72B-Instruct',
        ),
      ),
  },
  { name: 'Cerebras, an empty 400 ("400 status code (no body)")', make: () => thrown(openaiCompatible(400, '', 'llama-3.3-70b')) },
  { name: 'Cerebras, an empty 413 ("413 status code (no body)")', make: () => thrown(openaiCompatible(413, '', 'llama-3.3-70b')) },
  {
    name: 'a server\'s generic wording ("Please reduce the length of the messages or completion.", no code)',
    make: () => thrown(openaiCompatible(400, { error: { message: 'Please reduce the length of the messages or completion.', type: 'invalid_request_error' } })),
  },
  {
    name: 'a server\'s generic wording ("prompt length (N) exceeds context length (M)")',
    limit: 32768,
    actual: 40000,
    make: () => thrown(openaiCompatible(400, { error: 'error: prompt length (40000) exceeds context length (32768)' })),
  },
  {
    name: 'a server\'s generic wording ("Token limit exceeded")',
    make: () => thrown(openaiCompatible(400, { error: { message: 'Token limit exceeded for this model.', type: 'invalid_request_error' } })),
  },
  {
    name: 'a server\'s generic wording ("context length exceeded", 422)',
    make: () => thrown(openaiCompatible(422, { error: { message: 'context length exceeded', type: 'validation_error' } })),
  },
  {
    name: 'a server\'s generic wording ("too many tokens in the input")',
    make: () => thrown(openaiCompatible(400, { error: { message: 'Too many tokens in the input.', type: 'invalid_request_error' } })),
  },
  {
    name: 'OpenAI 400 string too long (a message over 10 MB characters; the re-edit clears the result that holds it)',
    make: () =>
      thrown(
        openaiCompatible(
          400,
          openaiBody(
            "Invalid 'messages[1].content': string too long. Expected a string with maximum length 10485760, but got a string with length 15000000 instead.",
            'string_above_max_length',
          ),
        ),
      ),
  },
  {
    name: "Anthropic 413 request_too_large (the request's bytes: the re-edit clears what holds them)",
    make: () => thrown(anthropicAnswering(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.')),
  },
  {
    name: 'Gemini "Request payload size exceeds the limit" (400)',
    make: () =>
      thrown(openaiCompatible(400, { error: { code: 400, message: 'Request payload size exceeds the limit: 20971520 bytes.', status: 'INVALID_ARGUMENT' } })),
  },
]

export const WORDING_OTHERS = [
  {
    name: 'vLLM 0.9+ output tokens alone above the window (no input cut can help)',
    make: () =>
      thrown(
        openaiCompatible(
          400,
          vllmBody(
            "This model's maximum context length is 32768 tokens. However, you requested 40000 output tokens and your prompt contains at least 10 input tokens, for a total of at least 40010 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
          ),
        ),
      ),
  },
  {
    name: 'an output limit worded like a prompt limit ("max_tokens exceeds the limit of 8192")',
    make: () => thrown(openaiCompatible(400, { error: { message: 'max_tokens exceeds the limit of 8192', type: 'invalid_request_error' } })),
  },
  {
    name: 'DashScope max_tokens range ("Range of max_tokens should be [1, 8192]")',
    make: () => thrown(dashscopeError('Range of max_tokens should be [1, 8192]')),
  },
  {
    name: 'TGI max_new_tokens alone ("`max_new_tokens` must be <= 4096. Given: 8000")',
    make: () => thrown(openaiCompatible(422, { error: 'Input validation error: `max_new_tokens` must be <= 4096. Given: 8000', error_type: 'validation' })),
  },
  {
    name: 'a generic wording of a rate ("too many tokens per minute", 400)',
    make: () =>
      thrown(openaiCompatible(400, { error: { message: 'Too many tokens per minute: limit 10000, requested 12000.', type: 'invalid_request_error' } })),
  },
  {
    name: 'a generic wording of an output limit ("too many tokens: max_tokens 100000 > 8192")',
    make: () => thrown(openaiCompatible(400, { error: { message: 'Too many tokens: max_tokens 100000 > 8192', type: 'invalid_request_error' } })),
  },
  {
    name: 'a generic wording of another list\'s size ("logit_bias: too many tokens")',
    make: () => thrown(openaiCompatible(400, openaiBody("Invalid 'logit_bias': too many tokens (at most 1024).", 'invalid_value'))),
  },
  {
    name: 'a 400 with a body that says nothing of length ("Model does not exist")',
    make: () => thrown(openaiCompatible(400, { error: { code: 20012, message: 'Model does not exist. Please check it carefully.' } })),
  },
  {
    name: 'Bedrock ThrottlingException ("Too many tokens, please wait before trying again", 429)',
    make: async () =>
      Object.assign(new Error('Too many tokens, please wait before trying again.'), {
        name: 'ThrottlingException',
        $fault: 'client',
        $metadata: { httpStatusCode: 429 },
      }),
  },
]
