// The usage every provider package really puts on its AI messages, made by the real client classes
// against a fake endpoint (no network), streamed and not: what the usage anchor reads from each
// (input = what the provider counted of the request, cached tokens included; output = what the
// answer adds to the next request, without reasoning the message does not carry).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { ChatOpenAI } from '@langchain/openai'
import { ChatAnthropic } from '@langchain/anthropic'
import { ChatGoogleGenerativeAI } from '@langchain/google-genai'
import { ChatDeepSeek } from '@langchain/deepseek'
import { concat } from '@langchain/core/utils/stream'
import { usageOf } from '../dist/usage.js'
import { answering } from './support/provider-fakes.mjs'

/** A `fetch` answering with a server-sent event stream (`[event, data]`, data JSON or a raw string). */
function streaming(events) {
  const body = events.map(([event, data]) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('')
  return async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'request-id': 'r', 'x-request-id': 'r' } })
}

const openaiCompletion = (message, usage) => ({
  id: 'c1',
  object: 'chat.completion',
  created: 1764000000,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, logprobs: null, finish_reason: 'stop' }],
  usage,
})

describe('usage as each provider package reports it', () => {
  test('@langchain/openai: prompt_tokens (cached tokens are part of them), reasoning tokens not sent again taken off', async () => {
    const usage = {
      prompt_tokens: 5000,
      completion_tokens: 900,
      total_tokens: 5900,
      prompt_tokens_details: { cached_tokens: 4096 },
      completion_tokens_details: { reasoning_tokens: 700 },
    }
    const model = new ChatOpenAI({
      model: 'o4-mini',
      apiKey: 't',
      maxRetries: 0,
      configuration: { fetch: answering(200, openaiCompletion({ content: 'hi' }, usage)) },
    })
    const m = await model.invoke('q')
    assert.deepEqual(usageOf(m), { input: 5000, output: 200, source: 'usage_metadata' })
  })

  test('@langchain/openai streamed chunks (stream_options.include_usage: the last chunk carries the usage), concatenated', async () => {
    const chunk = (delta, extra = {}) => ({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o',
      choices: [{ index: 0, delta, finish_reason: null }],
      ...extra,
    })
    const fetch = streaming([
      [null, chunk({ role: 'assistant', content: 'Hel' })],
      [null, chunk({ content: 'lo' })],
      [
        null,
        {
          id: 'c1',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'gpt-4o',
          choices: [],
          usage: { prompt_tokens: 1234, completion_tokens: 2, total_tokens: 1236 },
        },
      ],
      [null, '[DONE]'],
    ])
    const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 't', maxRetries: 0, streamUsage: true, configuration: { fetch } })
    // The chunks as an agent streaming them concatenates them (invoke() with streaming: true would
    // also estimate the prompt with js-tiktoken, which downloads its ranks).
    let m
    for await (const chunk of await model.stream('q')) m = m === undefined ? chunk : concat(m, chunk)
    assert.equal(m.content, 'Hello')
    assert.deepEqual(usageOf(m), { input: 1234, output: 2, source: 'usage_metadata' })
  })

  test('@langchain/anthropic: input_tokens + cache creation + cache read, streamed too', async () => {
    const raw = { input_tokens: 12, cache_creation_input_tokens: 3000, cache_read_input_tokens: 40000, output_tokens: 55 }
    const plain = new ChatAnthropic({
      model: 'claude-sonnet-4-5',
      apiKey: 't',
      maxRetries: 0,
      clientOptions: {
        fetch: answering(200, {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: 'hi' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: raw,
        }),
      },
    })
    assert.deepEqual(usageOf(await plain.invoke('q')), { input: 43012, output: 55, source: 'usage_metadata' })
    const events = [
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...raw, output_tokens: 1 },
          },
        },
      ],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 55 } }],
      ['message_stop', { type: 'message_stop' }],
    ]
    const streamed = new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: 't', maxRetries: 0, streaming: true, clientOptions: { fetch: streaming(events) } })
    const m = await streamed.invoke('q')
    // LangChain sums the stream's output counts: message_start's 1 and message_delta's 55 (a total).
    assert.deepEqual(usageOf(m), { input: 43012, output: 56, source: 'usage_metadata' })
  })

  test('an older @langchain/anthropic (cached tokens left out of usage_metadata, raw usage of the first stream event): Anthropic input, the stream’s output', () => {
    const m = {
      _getType: () => 'ai',
      content: 'hi',
      usage_metadata: { input_tokens: 12, output_tokens: 55, total_tokens: 67 },
      response_metadata: { usage: { input_tokens: 12, cache_creation_input_tokens: 3000, cache_read_input_tokens: 40000, output_tokens: 1 } },
    }
    assert.deepEqual(usageOf(m), { input: 43012, output: 55, source: 'response_metadata.usage' })
  })

  test('@langchain/google-genai: promptTokenCount (cached content included), candidatesTokenCount; thoughts are not sent again', async () => {
    const real = globalThis.fetch
    globalThis.fetch = answering(200, {
      candidates: [{ content: { parts: [{ text: 'hi' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 120000, cachedContentTokenCount: 100000, candidatesTokenCount: 30, thoughtsTokenCount: 800, totalTokenCount: 120830 },
    })
    try {
      const m = await new ChatGoogleGenerativeAI({ model: 'gemini-2.5-pro', apiKey: 't', maxRetries: 0 }).invoke('q')
      assert.deepEqual(usageOf(m), { input: 120000, output: 30, source: 'usage_metadata' })
    } finally {
      globalThis.fetch = real
    }
  })

  test('@langchain/deepseek: prompt_tokens (cache hits are part of them); reasoning_content is not sent back, so its tokens are taken off', async () => {
    const usage = {
      prompt_tokens: 9000,
      completion_tokens: 1500,
      total_tokens: 10500,
      prompt_cache_hit_tokens: 8960,
      prompt_cache_miss_tokens: 40,
      completion_tokens_details: { reasoning_tokens: 1400 },
    }
    const body = openaiCompletion({ content: 'answer', reasoning_content: 'long thoughts' }, usage)
    const model = new ChatDeepSeek({ model: 'deepseek-reasoner', apiKey: 't', maxRetries: 0, configuration: { fetch: answering(200, body) } })
    const m = await model.invoke('q')
    assert.equal(m.additional_kwargs.reasoning_content, 'long thoughts')
    assert.deepEqual(usageOf(m), { input: 9000, output: 100, source: 'usage_metadata' })
  })
})
