// The summarization middleware's `maxTokens` bounds the summarizing call on the wire, for the
// models people use: ChatOpenAI (v1) answers through its own `completions` / `responses` models,
// which keep their own `maxTokens`, so the bound must reach them (it used to be set on the outer
// model only and never sent). Checked on the request body ChatOpenAI sends (a local fetch, no
// network): `max_tokens` for chat completions, `max_output_tokens` for the Responses API. A model
// whose limit field is `maxOutputTokens` (Google's) is bounded too; a model with no such field is
// used as it is and the middleware says so once. The caller's model is never changed.
import { test, describe, beforeEach, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { ChatOpenAI } from '@langchain/openai'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { summarizationMiddleware } from '../dist/langchain/index.js'

const history = () => [
  new HumanMessage({ content: 'Plan a week in Lisbon.', id: 'h0' }),
  new AIMessage({ content: 'Day 1: Alfama. Day 2: Belém.', id: 'a0' }),
  new HumanMessage({ content: 'And food?', id: 'h1' }),
]

/** A fetch that answers as the OpenAI API would, recording each request body. */
function openAiFetch(bodies) {
  return async (url, init) => {
    const body = JSON.parse(init.body)
    bodies.push({ url: String(url), body })
    const answer = String(url).endsWith('/responses')
      ? {
          id: 'resp_1',
          object: 'response',
          created_at: 1,
          status: 'completed',
          model: body.model,
          output: [
            {
              type: 'message',
              id: 'msg_1',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text: 'They planned Lisbon.', annotations: [] }],
            },
          ],
          usage: { input_tokens: 10, output_tokens: 4, total_tokens: 14 },
        }
      : {
          id: 'chatcmpl_1',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'They planned Lisbon.' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 },
        }
    return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } })
  }
}

let warnings
let originalWarn
beforeEach(() => {
  warnings = []
  originalWarn = console.warn
  console.warn = (...args) => warnings.push(args)
})
afterEach(() => {
  console.warn = originalWarn
})

describe('maxTokens reaches the summarizing call', () => {
  for (const [api, useResponsesApi, field] of [
    ['chat completions', false, 'max_tokens'],
    ['the Responses API', true, 'max_output_tokens'],
  ]) {
    test(`ChatOpenAI, ${api}: the request carries ${field}, the model keeps its own setting`, async () => {
      const bodies = []
      const model = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'sk-test', maxRetries: 0, useResponsesApi, configuration: { fetch: openAiFetch(bodies) } })
      const update = await summarizationMiddleware({ model, trigger: { messages: 3 }, keep: { messages: 1 }, maxTokens: 400 }).beforeModel(
        { messages: history() },
        {},
      )
      assert.equal(update.messages[1].content, 'Here is a summary of the conversation to date:\n\nThey planned Lisbon.')
      assert.equal(bodies.length, 1)
      assert.equal(bodies[0].body[field], 400)
      // Without the option, nothing is sent; and the caller's model was never changed.
      await summarizationMiddleware({ model, trigger: { messages: 3 }, keep: { messages: 1 } }).beforeModel({ messages: history() }, {})
      assert.equal(bodies[1].body[field], undefined)
      assert.equal(model.maxTokens, undefined)
      assert.equal((useResponsesApi ? model.responses : model.completions).maxTokens, undefined)
      assert.deepEqual(warnings, [])
    })
  }

  test('a model bounded by maxOutputTokens (Google) gets it on a copy', async () => {
    const seen = []
    const model = {
      maxOutputTokens: undefined,
      async invoke() {
        seen.push(this.maxOutputTokens)
        return { content: 'They planned Lisbon.' }
      },
    }
    await summarizationMiddleware({ model, trigger: { messages: 3 }, keep: { messages: 1 }, maxTokens: 300 }).beforeModel({ messages: history() }, {})
    assert.deepEqual(seen, [300])
    assert.equal(model.maxOutputTokens, undefined)
  })

  test('a model with no limit field is used as it is, and the middleware says so once', async () => {
    let calls = 0
    const model = {
      async invoke() {
        calls++
        return { content: 'They planned Lisbon.' }
      },
    }
    const mw = summarizationMiddleware({ model, trigger: { messages: 3 }, keep: { messages: 1 }, maxTokens: 300 })
    for (let k = 0; k < 2; k++) {
      const update = await mw.beforeModel({ messages: history() }, {})
      assert.match(update.messages[1].content, /They planned Lisbon\.$/)
    }
    assert.equal(calls, 2)
    assert.equal(warnings.length, 1)
    assert.match(warnings[0][0], /maxTokens: .*not bounded \(max_tokens_unsupported\)/)
  })
})
