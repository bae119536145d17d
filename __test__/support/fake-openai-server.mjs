// A fake OpenAI chat-completions endpoint, as a `fetch` function for a real `ChatOpenAI`
// (`configuration: { fetch }`): no network. It counts a request's "true" size with its own
// tokenizer (`sizeOf`, by default characters / 3 of the messages and tools as sent, which differs
// from any counter of ours), answers with a scripted tool call per step and then a final answer,
// and reports `usage` (`prompt_tokens` = the true size) like OpenAI does, unless `usage: false`.
//
// `refuse(request)` decides, per request, whether to answer with OpenAI's real context-length error
// instead: it returns the limit to state, or undefined.

/** The size of a request as this server counts it. */
export const charsOver3 = (body) => Math.ceil(JSON.stringify({ messages: body.messages, tools: body.tools ?? [] }).length / 3)

/**
 * @param {{ steps: number, tool: string, args: (step: number) => object, answer?: string,
 *           sizeOf?: (body: object) => number, refuse?: (info: { body: object, size: number, step: number }) => number | undefined,
 *           completionTokens?: number, usage?: boolean }} script
 */
export function fakeOpenAI(script) {
  const sizeOf = script.sizeOf ?? charsOver3
  const server = {
    /** Every request: `{ body, size, step, refusedWith }`. */
    requests: [],
    fetch: async (url, init) => {
      if (!String(url).endsWith('/chat/completions')) return json(404, { error: { message: `no route ${url}`, type: 'invalid_request_error', code: null } })
      const body = JSON.parse(init.body)
      const size = sizeOf(body)
      // The step: how many tool results the request carries after the last user message.
      const lastUser = body.messages.map((m) => m.role).lastIndexOf('user')
      const step = body.messages.slice(lastUser + 1).filter((m) => m.role === 'tool').length
      const limit = script.refuse?.({ body, size, step })
      server.requests.push({ body, size, step, refusedWith: limit })
      if (limit !== undefined) {
        return json(400, {
          error: {
            message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${size} tokens. Please reduce the length of the messages.`,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        })
      }
      const done = step >= script.steps
      const message = done
        ? { role: 'assistant', content: script.answer ?? 'done', refusal: null }
        : {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: [
              { id: `call_${step}_${server.requests.length}`, type: 'function', function: { name: script.tool, arguments: JSON.stringify(script.args(step)) } },
            ],
          }
      const completion = script.completionTokens ?? 12
      return json(200, {
        id: `chatcmpl-${server.requests.length}`,
        object: 'chat.completion',
        created: 1764000000,
        model: body.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: done ? 'stop' : 'tool_calls' }],
        ...(script.usage === false
          ? {}
          : { usage: { prompt_tokens: size, completion_tokens: completion, total_tokens: size + completion, prompt_tokens_details: { cached_tokens: 0 } } }),
      })
    },
  }
  return server
}

function json(status, body) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-request-id': 'req_fake' } })
}
