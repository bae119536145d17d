// The fake endpoints and the way an error is caught from a model, shared by the provider error
// fixtures (provider-errors.mjs, provider-errors-servers.mjs).
import { ChatAnthropic } from '@langchain/anthropic'
import { ChatOpenAI } from '@langchain/openai'

/** A `fetch` that answers every request with `status` and the JSON `body`. */
export function answering(status, body) {
  return async () =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', 'x-request-id': 'req_1', 'request-id': 'req_1' },
    })
}

// vLLM's OpenAI-compatible server (`ErrorResponse`, nested under `error` as OpenAI's are).
export const vllmBody = (message) => ({ error: { message, type: 'BadRequestError', param: null, code: 400 } })

export const openaiBody = (message, code = 'context_length_exceeded', type = 'invalid_request_error') => ({ error: { message, type, param: 'messages', code } })

/** What `model.invoke()` throws. */
export async function thrown(model) {
  try {
    await model.invoke('hello')
  } catch (e) {
    return e
  }
  throw new Error('the fake endpoint did not make the model throw')
}

/** A ChatOpenAI (any OpenAI-compatible server: DashScope, vLLM, GLM, xAI, Mistral) answering `status`/`body`. */
export const openaiCompatible = (status, body, model = 'gpt-4o') =>
  new ChatOpenAI({ model, apiKey: 'test', maxRetries: 0, configuration: { baseURL: 'http://fake.invalid/v1', fetch: answering(status, body) } })

/** A ChatAnthropic whose API answers `status` with an Anthropic error envelope of `type` and `message`. */
export const anthropicAnswering = (status, type, message) =>
  new ChatAnthropic({
    model: 'claude-sonnet-4-5',
    apiKey: 'test',
    maxRetries: 0,
    clientOptions: { fetch: answering(status, { type: 'error', error: { type, message } }) },
  })

/** DashScope's OpenAI-compatible error for `qwen-plus` (`<400> InternalError.Algo.InvalidParameter: …`). */
export const dashscopeError = (message) =>
  openaiCompatible(
    400,
    {
      error: { code: 'invalid_parameter_error', message: `<400> InternalError.Algo.InvalidParameter: ${message}`, param: null, type: 'invalid_request_error' },
    },
    'qwen-plus',
  )
