// The `SummarizationMiddleware` strategy inside a real NestJS host wired like the Xpert server, with
// the real @xpert-ai/plugin-sdk 3.7.2, on @langchain/core 0.3.72 (as hosts pin it, CommonJS) and
// on 1.x: the registry resolves it, and its hooks run as the host's agent runs them (beforeModel,
// wrapModelCall chained with reduceRight, afterModel) on real messages, with the agent's own model.
import { test, describe, before, after, beforeEach, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readFileSync } from 'node:fs'
import Ajv from 'ajv'
import * as Messages1 from '@langchain/core/messages'
import * as ChatModels1 from '@langchain/core/language_models/chat_models'
import { bootHost, callModel } from './fixtures/xpert-host/host.mjs'
import { conversation, snapshot, assertUnchanged } from './fixtures/xpert-host/scenarios.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const OPTIONS = JSON.parse(readFileSync(join(root, '__test__/fixtures/summarization/xpert-options.json'), 'utf8'))

const cores = [
  {
    label: '@langchain/core 0.3.72 (CommonJS, as Xpert hosts pin it)',
    M: require('@langchain/core-03/messages'),
    BaseChatModel: require('@langchain/core-03/language_models/chat_models').BaseChatModel,
  },
  { label: '@langchain/core 1.x', M: Messages1, BaseChatModel: ChatModels1.BaseChatModel },
]

/** The agent's model, from the given @langchain/core: answers agent calls and summarization prompts. */
function agentModel({ M, BaseChatModel }, { failSummary = false } = {}) {
  class XpertAgentModel extends BaseChatModel {
    constructor() {
      super({})
      this.sent = []
      this.summaryPrompts = []
    }
    _llmType() {
      return 'xpert-agent-model'
    }
    async _generate(messages) {
      const text = messages.length === 1 && typeof messages[0].content === 'string' ? messages[0].content : ''
      let message
      if (text.includes('Messages to summarize:')) {
        this.summaryPrompts.push(text)
        if (failSummary) throw new Error('copilot quota exceeded')
        message = new M.AIMessage(`SUMMARY #${this.summaryPrompts.length}`)
      } else {
        this.sent.push(messages.map((m) => ({ type: m._getType(), id: m.id, lc_source: m.additional_kwargs?.lc_source })))
        message = new M.AIMessage({ content: 'Next step.', id: `resp${this.sent.length}` })
      }
      return { generations: [{ text: String(message.content), message }] }
    }
  }
  return new XpertAgentModel()
}

/** The host's agent step: beforeModel, then the model call through wrapModelCall, then afterModel. */
async function agentStep(mw, state, model, system) {
  const before = await mw.beforeModel(state, {})
  if (before) state = { messages: reduce(state.messages, before.messages) }
  const { result } = await callModel([mw], { messages: state.messages, systemMessage: system, model, tools: [] }, (messages) => model.invoke(messages))
  state = { messages: [...state.messages, result] }
  const after = await mw.afterModel(state, {})
  if (after) state = { messages: reduce(state.messages, after.messages) }
  return { state, before, after, result }
}

/** LangGraph's messages reducer for what these hooks return: a leading remove-all replaces the list. */
function reduce(current, update) {
  if (update[0]?._getType?.() === 'remove' && update[0].id === '__remove_all__') return update.slice(1)
  return [...current, ...update]
}

const isSummary = (m) => m.additional_kwargs?.lc_source === 'summarization'

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

describe('Xpert host: ContextEditorSummarizationMiddleware strategy', () => {
  let host
  before(async () => {
    host = await bootHost([{ name: 'context-editor', dir: root }])
  })
  after(async () => {
    await host?.close()
  })

  test('the registry resolves ContextEditorSummarizationMiddleware beside ContextEditingMiddleware, with localized meta', () => {
    const strategy = host.registry.get('ContextEditorSummarizationMiddleware')
    assert.ok(strategy)
    assert.notEqual(strategy, host.registry.get('ContextEditingMiddleware'))
    assert.ok(host.registry.list().includes(strategy))
    const { meta } = strategy
    assert.equal(meta.name, 'ContextEditorSummarizationMiddleware')
    for (const lang of ['en_US', 'zh_Hans']) assert.ok(meta.label[lang] && meta.description[lang], lang)
    assert.equal(meta.icon.type, 'svg')
    assert.match(meta.icon.value, /^<svg/)
    const walk = (props, at) => {
      for (const [k, p] of Object.entries(props)) {
        for (const lang of ['en_US', 'zh_Hans']) {
          assert.ok(p.title?.[lang], `${at}${k}: title.${lang}`)
          assert.ok(p.description?.[lang], `${at}${k}: description.${lang}`)
        }
        if (p.properties) walk(p.properties, `${at}${k}.`)
      }
    }
    walk(meta.configSchema.properties, '')
    for (const option of [
      'trigger',
      'keep',
      'summaryPrompt',
      'summaryPrefix',
      'trimTokensToSummarize',
      'toolTrimLimit',
      'summaryRole',
      'maxTokens',
      'tokenCountMethod',
      'maxInputTokens',
    ]) {
      assert.ok(meta.configSchema.properties[option], option)
    }
    assert.ok(host.logs.some((l) => l.msg.includes('ContextEditorSummarizationMiddleware')))
  })

  test('the example options pass the configSchema (nulls dropped, as the UI sends them)', () => {
    const { configSchema } = host.registry.get('ContextEditorSummarizationMiddleware').meta
    const validate = new Ajv({ strict: false, validateSchema: false }).compile(configSchema)
    const withoutNulls = Object.fromEntries(Object.entries(OPTIONS).filter(([, v]) => v !== null))
    assert.ok(validate(withoutNulls), JSON.stringify(validate.errors))
    assert.ok(!validate({ keep: { messages: 1, tokens: 2 } }))
    assert.ok(!validate({ summaryRole: 'system' }))
  })

  test('the configSchema and the core accept and reject the same option sets', () => {
    const strategy = host.registry.get('ContextEditorSummarizationMiddleware')
    const validate = new Ajv({ strict: false, validateSchema: false }).compile(strategy.meta.configSchema)
    const sets = [
      {},
      { trigger: { tokens: 1000 } },
      { trigger: { messages: 10, tokens: 500 } },
      { trigger: { fraction: 0.5 } },
      { trigger: { turns: 5 }, keep: { turns: 2 } },
      { keep: { messages: 0 } },
      { keep: { tokens: 0 } },
      { keep: { fraction: 1 } },
      { summaryRole: 'assistant', summaryPrefix: '', summaryPrompt: 'Summarize {messages}' },
      { trimTokensToSummarize: 0, toolTrimLimit: 0 },
      { maxTokens: 400, tokenCountMethod: 'estimate', maxInputTokens: 128000 },
      { trigger: {} },
      { trigger: { tokens: 0 } },
      { trigger: { messages: 1.5 } },
      { trigger: { fraction: 1.5 } },
      { trigger: { toolUses: 3 } },
      { keep: {} },
      { keep: { messages: 1, tokens: 1 } },
      { keep: { messages: -1 } },
      { keep: { fraction: 2 } },
      { summaryRole: 'system' },
      { tokenCountMethod: 'exact' },
      { trimTokensToSummarize: -1 },
      { maxTokens: 0 },
      { unknown: 1 },
    ]
    for (const options of sets) {
      const ui = validate(options)
      let core = true
      try {
        strategy.createMiddleware(options, {})
      } catch (e) {
        assert.equal(e.code, 'INVALID_OPTIONS', e.message)
        core = false
      }
      assert.equal(ui, core, `${JSON.stringify(options)}: UI schema ${ui ? 'accepts' : 'rejects'}, core ${core ? 'accepts' : 'rejects'}`)
    }
  })

  for (const core of cores) {
    describe(core.label, () => {
      test("first step: the agent's own model writes the summary, the model gets the summarized request, afterModel persists it", async () => {
        const mw = await host.registry.get('ContextEditorSummarizationMiddleware').createMiddleware(OPTIONS, { tenantId: 't', userId: 'u', node: {} })
        assert.equal(mw.name, 'ContextEditorSummarizationMiddleware')
        const { M } = core
        const model = agentModel(core)
        const history = conversation(M, { turns: 5, size: 200 }) // 11 messages: human, then 5 × (AI call, tool result)
        const before = snapshot(history)
        const system = new M.SystemMessage('You review code.')
        const { state, before: b, after: a } = await agentStep(mw, { messages: history }, model, system)
        assert.equal(b, undefined, 'no model known before the first call: the summary is written in wrapModelCall')
        assert.equal(model.summaryPrompts.length, 1)
        assert.match(model.summaryPrompts[0], /Human: Review the repository\./)
        // The model got [system, summary, ...tail]: keep 3 would start at the result t3, so the cut moves
        // back to its call ai3 (LangChain's rule): the tail is ai3, t3, ai4, t4.
        assert.deepEqual(
          model.sent[0].map((m) => m.id ?? m.type),
          ['system', 'h0', 'ai3', 't3', 'ai4', 't4'],
        )
        assert.equal(model.sent[0][1].lc_source, 'summarization')
        // afterModel's update: remove all, then summary + kept tail + the response.
        assert.equal(a.messages[0]._getType(), 'remove')
        assert.equal(a.messages[0].id, '__remove_all__')
        assert.deepEqual(
          state.messages.map((m) => m.id),
          ['h0', 'ai3', 't3', 'ai4', 't4', 'resp1'],
        )
        const summary = state.messages[0]
        assert.ok(summary instanceof M.HumanMessage, 'the summary is a HumanMessage of the conversation’s @langchain/core')
        assert.equal(summary.content, 'Here is a summary of the conversation to date:\n\nSUMMARY #1')
        history.slice(7).forEach((m, k) => assert.equal(state.messages[1 + k], m, `kept message ${k} is the caller's object`))
        assertUnchanged(history, before)
      })

      test('later steps: beforeModel summarizes again once the trigger holds, summary of the summary, written once', async () => {
        const mw = await host.registry.get('ContextEditorSummarizationMiddleware').createMiddleware(OPTIONS, { tenantId: 't', userId: 'u', node: {} })
        const { M } = core
        const model = agentModel(core)
        let { state } = await agentStep(mw, { messages: conversation(M, { turns: 5, size: 200 }) }, model)
        assert.equal(model.summaryPrompts.length, 1)
        // Below the trigger (4 + 2 messages < 8): no new summary.
        state = { messages: [...state.messages, new M.HumanMessage({ content: 'Go on.', id: 'h1' })] }
        ;({ state } = await agentStep(mw, state, model))
        assert.equal(model.summaryPrompts.length, 1)
        assert.equal(state.messages.filter(isSummary).length, 1)
        // Two more rounds: 8 messages → beforeModel writes summary #2 (the old summary is summarized with the rest).
        state = {
          messages: [
            ...state.messages,
            new M.AIMessage({ content: '', id: 'ai9', tool_calls: [{ id: 'call_9', name: 'read_file', args: { path: 'b.ts' } }] }),
            new M.ToolMessage({ content: 'contents of b.ts', tool_call_id: 'call_9', name: 'read_file', id: 't9' }),
          ],
        }
        const kept = state.messages.slice(-3)
        const step = await agentStep(mw, state, model)
        assert.ok(step.before, 'beforeModel returned the state update')
        assert.equal(step.after, undefined)
        assert.equal(model.summaryPrompts.length, 2)
        assert.match(model.summaryPrompts[1], /SUMMARY #1/)
        assert.equal(step.state.messages[0].content, 'Here is a summary of the conversation to date:\n\nSUMMARY #2')
        assert.deepEqual(step.state.messages.slice(1, 4), kept)
        assert.equal(step.state.messages.filter(isSummary).length, 1)
        assert.equal(model.sent.at(-1)[0].lc_source, 'summarization')
      })

      test('a failing model: the step goes through unsummarized, one warning, nothing thrown', async () => {
        const mw = await host.registry.get('ContextEditorSummarizationMiddleware').createMiddleware(OPTIONS, { tenantId: 't', userId: 'u', node: {} })
        const { M } = core
        const model = agentModel(core, { failSummary: true })
        const history = conversation(M, { turns: 5, size: 200 })
        const { state, result } = await agentStep(mw, { messages: history }, model)
        assert.equal(result.content, 'Next step.')
        assert.equal(model.sent[0].length, history.length)
        assert.deepEqual(state.messages.slice(0, -1), history)
        assert.equal(warnings.length, 1)
        assert.match(String(warnings[0][1]), /copilot quota exceeded/)
      })
    })
  }

  test('bad options fail in createMiddleware naming the field; a model cannot be configured (the agent’s is used)', () => {
    const strategy = host.registry.get('ContextEditorSummarizationMiddleware')
    const cases = [
      [{ keep: { messages: 1, tokens: 2 } }, 'keep'],
      [{ trigger: { tokens: 0 } }, 'trigger'],
      [{ summaryRole: 'system' }, 'summaryRole'],
      [{ model: 'gpt-4o' }, 'model'],
      [{ edits: [] }, 'edits'],
      ['fast', 'options'],
    ]
    for (const [options, field] of cases) {
      assert.throws(
        () => strategy.createMiddleware(options, {}),
        (e) => e.code === 'INVALID_OPTIONS' && e.message.includes(field) && e.message.startsWith('ContextEditorSummarizationMiddleware: '),
        JSON.stringify(options),
      )
    }
    // Nulls mean unset: every option null is the DeepAgents default.
    const nulls = Object.fromEntries(Object.keys(strategy.meta.configSchema.properties).map((k) => [k, null]))
    assert.equal(strategy.createMiddleware(nulls, {}).name, 'ContextEditorSummarizationMiddleware')
  })
})

test("errors and warnings on the Xpert path name the configured strategy, not LangChain's middleware; model errors pass untouched", async () => {
  const { SummarizationStrategy } = await import('context-editor/xpert')
  const { HumanMessage, AIMessage } = Messages1
  const strategy = new SummarizationStrategy()
  // A fraction with no known limit: thrown on every call, under our strategy's name.
  const mw = strategy.createMiddleware({ trigger: { fraction: 0.5 } }, {})
  const request = { messages: [new HumanMessage('hi')], model: { invoke: async () => new AIMessage('x') } }
  // As the host runs the hooks: beforeModel (no model known in Xpert's context), then wrapModelCall.
  for (let call = 0; call < 2; call++) {
    const step = async () => {
      await mw.beforeModel({ messages: request.messages }, {})
      return mw.wrapModelCall(request, async () => new AIMessage('ok'))
    }
    await assert.rejects(step(), (e) => {
      assert.match(e.message, /^ContextEditorSummarizationMiddleware: /)
      assert.match(e.message, /Model profile information is required/)
      return true
    })
  }
  // A failing summarizer is logged (once) under our name; the model's own error is not renamed.
  const logged = []
  const warn = console.warn
  console.warn = (m) => logged.push(String(m))
  try {
    const failing = strategy.createMiddleware({ trigger: { messages: 2 }, keep: { messages: 1 } }, {})
    const model = {
      invoke: async () => {
        throw new Error('summarizer down')
      },
    }
    const history = [new HumanMessage('a'), new AIMessage('b'), new HumanMessage('c')]
    await failing.beforeModel({ messages: history }, {})
    const result = await failing.wrapModelCall({ messages: history, model }, async (req) => req.messages.length)
    assert.equal(result, 3, 'the history went through unsummarized')
    assert.ok(
      logged.some((m) => m.startsWith('ContextEditorSummarizationMiddleware: ')),
      logged.join('\n'),
    )
    const modelError = new Error('SummarizationMiddleware: not ours')
    await assert.rejects(
      strategy.createMiddleware({}, {}).wrapModelCall({ messages: history, model }, async () => {
        throw modelError
      }),
      (e) => e === modelError && e.message === 'SummarizationMiddleware: not ours',
    )
  } finally {
    console.warn = warn
  }
})
