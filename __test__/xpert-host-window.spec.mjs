// A `fraction` trigger in a real Xpert host finds the model's window without `maxInputTokens` in the
// options. The host is the NestJS wiring of fixtures/xpert-host with the real @xpert-ai/plugin-sdk
// 3.7.2; the model is built the way Xpert's model providers build theirs: `metadata: { profile }`,
// where the profile is what the SDK's own `AIModel.getModelProfile` makes of a model schema
// (`maxInputTokens` = the schema's `context_size`). On @langchain/core 1.x the model is the SDK's
// `ChatOAICompatReasoningModel` (its OpenAI-compatible chat model), raw and after `bindTools()`.
// Below: where else the limit comes from (LangChain profile, the table of context windows) and
// that the report says which.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as Messages1 from '@langchain/core/messages'
import { BaseChatModel as BaseChatModel03 } from '@langchain/core-03/language_models/chat_models'
import { bootHost, callModel } from './fixtures/xpert-host/host.mjs'
import { conversation, snapshot, assertUnchanged } from './fixtures/xpert-host/scenarios.mjs'
import { contextEditingMiddlewareObject } from 'context-editor/xpert'
import { contextWindowOf } from '../dist/windows.js'
import { ChatOpenAI } from '@langchain/openai'
import { tool } from 'langchain'
import { z } from 'zod'
import { OVERFLOWS, OTHER_ERRORS } from './support/provider-errors.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const sdk = require('@xpert-ai/plugin-sdk')
const M03 = require('@langchain/core-03/messages')

/** The profile the SDK makes of a model schema, by its own code. */
function sdkProfile(contextSize) {
  const schema = { model: 'acme-chat-7', model_properties: { context_size: contextSize }, features: ['tool-call'] }
  return sdk.LargeLanguageModel.prototype.getModelProfile.call({ getModelSchema: () => schema }, 'acme-chat-7', {})
}

/** A chat model of @langchain/core 0.3.72 (the host's pin) built like a provider's: `metadata: { profile }`. */
class HostChatModel extends BaseChatModel03 {
  _llmType() {
    return 'host-chat-model'
  }
  async _generate() {
    throw new Error('not called')
  }
  bindTools(tools) {
    return this.withConfig({ tools })
  }
}

const WINDOW = 32000
const readFile = tool(async () => 'x', { name: 'read_file', description: 'Read a file.', schema: z.object({ path: z.string() }) })
const toolResults = (messages) => messages.filter((m) => m._getType() === 'tool')
const cleared = (messages) => toolResults(messages).filter((m) => m.content === '[cleared]').length

/** 10 results of ~2,000 tokens each: ~20,000 tokens, above half of a 32,000 window. */
const history = (M) => conversation(M, { turns: 10, size: 8000 })

describe('Xpert host: a fraction trigger fires from the copilot model profile (no maxInputTokens in the options)', () => {
  let host
  before(async () => {
    host = await bootHost([{ name: 'context-editor', dir: root }])
  })
  after(async () => {
    await host?.close()
  })

  test("the SDK makes the profile from the schema's context_size", () => {
    assert.equal(sdkProfile(WINDOW).maxInputTokens, WINDOW)
  })

  const models = [
    ['@langchain/core 0.3.72 chat model', M03, () => new HostChatModel({ metadata: { profile: sdkProfile(WINDOW) } })],
    ['@langchain/core 0.3.72 chat model after bindTools()', M03, () => new HostChatModel({ metadata: { profile: sdkProfile(WINDOW) } }).bindTools([])],
    [
      "the SDK's ChatOAICompatReasoningModel (@langchain/core 1.x)",
      Messages1,
      () =>
        new sdk.ChatOAICompatReasoningModel({
          model: 'acme-chat-7',
          apiKey: 'test',
          configuration: { baseURL: 'http://fake.invalid/v1' },
          metadata: { profile: sdkProfile(WINDOW) },
        }),
    ],
    [
      "the SDK's ChatOAICompatReasoningModel after bindTools()",
      Messages1,
      () =>
        new sdk.ChatOAICompatReasoningModel({
          model: 'acme-chat-7',
          apiKey: 'test',
          configuration: { baseURL: 'http://fake.invalid/v1' },
          metadata: { profile: sdkProfile(WINDOW) },
        }).bindTools([{ type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: {} } } }]),
    ],
  ]
  for (const [label, M, makeModel] of models) {
    test(label, async () => {
      const strategy = host.registry.get('ContextEditingMiddleware')
      const mw = strategy.createMiddleware({ trigger: { fraction: 0.5 }, keep: { messages: 2 }, maxInputTokens: null }, {})
      const messages = history(M)
      const before = snapshot(messages)
      const { result } = await callModel([mw], { messages, model: makeModel() }, async (sent) => sent)
      assert.equal(cleared(result), 10 - 2, 'the fraction trigger fired: all but the newest 2 results cleared')
      assertUnchanged(messages, before)

      // The same model with a larger window: half of it is not reached, nothing is cleared.
      const roomy = { messages: history(M), model: makeModel() }
      const bigger = makeModel.toString().includes('HostChatModel')
        ? new HostChatModel({ metadata: { profile: sdkProfile(400000) } })
        : new sdk.ChatOAICompatReasoningModel({
            model: 'acme-chat-7',
            apiKey: 'test',
            configuration: { baseURL: 'http://fake.invalid/v1' },
            metadata: { profile: sdkProfile(400000) },
          })
      const { result: untouched } = await callModel([mw], { ...roomy, model: bigger }, async (sent) => sent)
      assert.equal(cleared(untouched), 0)
    })
  }

  test('a provider\'s "too long" on the host\'s model call is recovered once; a rate limit is not', async () => {
    const strategy = host.registry.get('ContextEditingMiddleware')
    const mw = strategy.createMiddleware({ trigger: null, keep: null }, {})
    // LangChain 0.3 (the host's pin) lets the openai SDK's own error through.
    const overflow = await OVERFLOWS.find((o) => o.name.startsWith('DeepSeek through the raw openai SDK')).make()
    const messages = history(M03)
    const before = snapshot(messages)
    const sent = []
    const { result } = await callModel([mw], { messages, model: new HostChatModel({}) }, async (input) => {
      sent.push(input)
      if (sent.length === 1) throw overflow
      return new M03.AIMessage({ content: 'ok' })
    })
    assert.equal(sent.length, 2)
    assert.equal(cleared(sent[0]), 0)
    assert.ok(cleared(sent[1]) > 0, 'the retry is re-edited')
    const record = result.response_metadata.context_editor.recovery
    assert.equal(record.limit, 131072 - 8192)
    assert.equal(record.actual, 122942)
    assertUnchanged(messages, before)

    const limited = await OTHER_ERRORS[0].make()
    let calls = 0
    await assert.rejects(
      callModel([mw], { messages: history(M03), model: new HostChatModel({}) }, async () => {
        calls++
        throw limited
      }),
      (e) => e === limited,
    )
    assert.equal(calls, 1)
  })

  test('without a profile, an unknown model name and no maxInputTokens: the fraction trigger cannot fire', async () => {
    const mw = host.registry.get('ContextEditingMiddleware').createMiddleware({ trigger: { fraction: 0.5 }, keep: { messages: 2 } }, {})
    const { result } = await callModel([mw], { messages: history(M03), model: new HostChatModel({}) }, async (sent) => sent)
    assert.equal(cleared(result), 0)
  })
})

describe('where the input limit comes from, and the report says so', () => {
  const run = async (model, options = {}) => {
    const reports = []
    const mw = contextEditingMiddlewareObject({ trigger: { fraction: 0.5 }, keep: { messages: 2 }, ...options, onReport: (r) => reports.push(r) })
    const sent = await mw.wrapModelCall({ messages: history(Messages1), model }, async (request) => request.messages)
    return { report: reports[0], sent }
  }

  test('options win over every profile', async () => {
    const { report } = await run({ profile: { maxInputTokens: 64000 }, metadata: { profile: { maxInputTokens: 32000 } } }, { maxInputTokens: 1000000 })
    assert.equal(report.maxInputTokens, 1000000)
    assert.equal(report.maxInputTokensSource, 'options')
    assert.equal(report.triggered, false)
  })

  test('the LangChain profile wins over the Xpert one', async () => {
    const { report } = await run({ profile: { maxInputTokens: 30000 }, metadata: { profile: { maxInputTokens: 1000000 } } })
    assert.equal(report.maxInputTokens, 30000)
    assert.equal(report.maxInputTokensSource, 'profile')
    assert.equal(report.triggered, true)
  })

  test('the Xpert profile, through a binding', async () => {
    const { report } = await run({ bound: { metadata: { profile: { maxInputTokens: 32000 } } }, kwargs: {} })
    assert.equal(report.maxInputTokens, 32000)
    assert.equal(report.maxInputTokensSource, 'xpert-profile')
  })

  test('the table, by model name', async () => {
    const { report } = await run({ model: 'deepseek-chat' })
    assert.equal(report.maxInputTokens, 131072)
    assert.equal(report.maxInputTokensSource, 'table')
    assert.equal(report.triggered, false)
  })

  test('an unknown name and no profile: no limit, no source, and the fraction does not fire', async () => {
    const { report } = await run({ model: 'acme-chat-7' })
    assert.equal(report.maxInputTokens ?? undefined, undefined)
    assert.equal(report.maxInputTokensSource, undefined)
    assert.equal(report.triggered, false)
  })

  test('profile values that are no limit are ignored (0, negative, fractional, strings, NaN)', async () => {
    for (const bad of [0, -5, 1.5, '32000', Number.NaN, Infinity]) {
      const { report } = await run({ profile: { maxInputTokens: bad }, metadata: { profile: { maxInputTokens: bad } }, model: 'acme-chat-7' })
      assert.equal(report.maxInputTokensSource, undefined, String(bad))
    }
  })
})

describe('a model wrapped several times is still read (profile, Xpert profile, name)', () => {
  const run = async (model) => {
    const reports = []
    const mw = contextEditingMiddlewareObject({ trigger: { fraction: 0.5 }, keep: { messages: 2 }, onReport: (r) => reports.push(r) })
    await mw.wrapModelCall({ messages: history(Messages1), model }, async (request) => request.messages)
    return reports[0]
  }
  const hostModel = (fields) => new HostChatModel(fields)

  test('LangChain 1.x: bindTools().withRetry().withConfig() and withFallbacks() keep the LangChain profile', async () => {
    const model = new ChatOpenAI({ model: 'gpt-4.1', apiKey: 'test' })
    const limit = model.profile.maxInputTokens
    for (const wrapped of [
      model
        .bindTools([readFile])
        .withRetry()
        .withConfig({ tags: ['a'] }),
      model.withFallbacks([model]),
      model.withRetry().withFallbacks([model]),
    ]) {
      const report = await run(wrapped)
      assert.equal(report.maxInputTokens, limit, wrapped.constructor.name)
      assert.equal(report.maxInputTokensSource, 'profile')
    }
  })

  test("@langchain/core 0.3 (the host's pin): the Xpert profile through bindTools().withRetry() and withFallbacks() (before: not found, the fraction never fired)", async () => {
    const model = hostModel({ metadata: { profile: { maxInputTokens: WINDOW } } })
    for (const wrapped of [
      model.bindTools([]).withRetry(),
      model.withFallbacks({ fallbacks: [model] }),
      model
        .bindTools([])
        .withConfig({ tags: ['x'] })
        .withRetry(),
    ]) {
      const report = await run(wrapped)
      assert.equal(report.maxInputTokens, WINDOW, wrapped.constructor.name)
      assert.equal(report.maxInputTokensSource, 'xpert-profile')
      assert.equal(report.triggered, true)
    }
  })

  test("@langchain/core 0.3: the model's name through a binding finds the table (before: no name, no limit)", async () => {
    const model = hostModel({})
    model.model = 'deepseek-chat'
    const report = await run(model.bindTools([]).withRetry())
    assert.equal(report.maxInputTokens, 131072)
    assert.equal(report.maxInputTokensSource, 'table')
  })
})

describe('the table of context windows', () => {
  const rows = [
    ['gpt-4o', 128000],
    ['openai:gpt-4o-mini', 128000],
    ['gpt-4.1-mini', 1047576],
    ['gpt-5', 272000],
    ['gpt-5-mini', 272000],
    ['o3', 200000],
    ['o4-mini', 200000],
    ['gpt-3.5-turbo', 16385],
    ['gpt-oss-120b', 131072],
    ['claude-sonnet-4-5', 200000],
    ['claude-3-5-haiku-latest', 200000],
    ['anthropic/claude-opus-4-1', 200000],
    ['gemini-2.5-pro', 1048576],
    ['gemini-1.5-pro', 2097152],
    ['models/gemini-2.0-flash', 1048576],
    ['gemma3:27b', 131072],
    ['google/gemma-3-1b-it', 32768],
    ['gemma2:9b', 8192],
    ['deepseek-chat', 131072],
    ['deepseek-reasoner', 131072],
    ['deepseek-ai/DeepSeek-V3', 131072],
    ['deepseek-r1:14b', 131072],
    ['qwen-max', 32768],
    ['qwen-plus', 131072],
    ['qwen3-235b-a22b-instruct-2507', 262144],
    ['qwen-turbo', 1000000],
    ['qwen3-max', 262144],
    ['Qwen/Qwen3-8B', 131072],
    ['qwen2.5:7b', 131072],
    ['qwen3-coder-plus', 1000000],
    ['llama3.1:8b', 131072],
    ['meta-llama/Llama-3.3-70B-Instruct', 131072],
    ['accounts/fireworks/models/llama-v3p1-70b-instruct', 131072],
    ['llama3:8b', 8192],
    ['mistral-large-latest', 131072],
    ['mistral-small-3.1', 131072],
    ['codestral-latest', 262144],
    ['mixtral-8x7b', 32768],
    ['open-mixtral-8x22b', 65536],
    ['devstral-small-2505', 131072],
    ['devstral-medium', 131072],
    ['devstral-small-2', 262144],
    ['glm-4-plus', 128000],
    ['glm-4.5-air', 131072],
    ['glm-4.6', 204800],
    ['glm-4.7', 204800],
    ['glm-4.5v', 65536],
    ['glm-4.6v', 131072],
  ]
  for (const [name, tokens] of rows) {
    test(`${name}: ${tokens}`, () => assert.equal(contextWindowOf(name), tokens))
  }
  test('unknown names and non-strings have none', () => {
    for (const name of ['acme-chat-7', '', 'gpt', 'claud', null, undefined, 42, 'x'.repeat(300)]) assert.equal(contextWindowOf(name), undefined, String(name))
  })
})
