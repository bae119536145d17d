// Summaries that build on each other, and a failing summarizer that backs off, through a real
// LangChain `createAgent` (with a fake chat model) and through the Xpert summarization strategy in
// the fixture host.
// - Building: on the second and later triggers, the prompt carries the previous summary once, in
//   <previous_summary>, and lists only the messages written since it: no message is listed twice,
//   in one prompt or across prompts.
// - Backoff: after a failed summary the summarizer is asked again only after `retryAfter.calls`
//   model calls or `retryAfter.seconds`, whichever comes first; `onReport` shows where it stands.
import { test, describe, beforeEach, afterEach, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAgent } from 'langchain'
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { summarizationMiddleware } from '../dist/langchain/index.js'
import { bootHost, callModel } from './fixtures/xpert-host/host.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const isPrompt = (messages) => messages.length === 1 && typeof messages[0].content === 'string' && messages[0].content.includes('Messages to summarize:')

/** Answers each agent call with `answer k`; answers summary prompts by `outcome(k)` (`ok` or `throw`). */
class Model extends BaseChatModel {
  constructor(outcome = () => 'ok') {
    super({})
    this.outcome = outcome
    this.prompts = []
    this.calls = 0
  }
  _llmType() {
    return 'scripted'
  }
  bindTools() {
    return this
  }
  async _generate(messages) {
    let text
    if (isPrompt(messages)) {
      const k = this.prompts.push(messages[0].content)
      if (this.outcome(k) === 'throw') throw new Error('summarizer quota exceeded')
      text = `SUMMARY-${k}`
    } else {
      this.calls++
      text = `answer ${this.calls}`
    }
    return { generations: [{ text, message: new AIMessage({ content: text, id: `a${this.calls}-${this.prompts.length}` }) }] }
  }
}

/** The lines of a prompt's conversation that are messages (`Human: …`, `AI: …`). */
const listed = (prompt) =>
  prompt
    .split('Messages to summarize:\n')[1]
    .split('\n</messages>')[0]
    .split('\n')
    .filter((l) => /^(Human|AI|Tool): /.test(l))

let warnings
let originalWarn
let originalNow
beforeEach(() => {
  warnings = []
  originalWarn = console.warn
  originalNow = Date.now
  console.warn = (...args) => warnings.push(args)
})
afterEach(() => {
  console.warn = originalWarn
  Date.now = originalNow
})

async function run(model, options, turns) {
  const reports = []
  const agent = createAgent({
    model,
    tools: [],
    systemPrompt: 'You plan trips.',
    checkpointer: new MemorySaver(),
    middleware: [summarizationMiddleware({ trigger: { messages: 8 }, keep: { messages: 3 }, onReport: (r) => reports.push(r), ...options })],
  })
  const config = { configurable: { thread_id: 't' } }
  let state
  for (let u = 0; u < turns; u++) {
    state = await agent.invoke({ messages: [new HumanMessage({ content: `question ${u}`, id: `u${u}` })] }, config)
  }
  return { reports, final: state.messages }
}

describe('createAgent: each summary builds on the previous one', () => {
  test('the second and later prompts carry the previous summary once and only the newer messages', async () => {
    const model = new Model()
    await run(model, {}, 16)
    assert.ok(model.prompts.length >= 3, `${model.prompts.length} summaries`)
    assert.doesNotMatch(model.prompts[0], /<previous_summary>/)
    const everListed = new Set()
    model.prompts.forEach((prompt, k) => {
      const lines = listed(prompt)
      for (const line of lines) {
        assert.ok(!everListed.has(line), `prompt ${k + 1} lists ${line} again`)
        everListed.add(line)
      }
      assert.doesNotMatch(prompt, /Here is a summary of the conversation to date/, 'the summary is not summarized as a message')
      if (k > 0) {
        assert.equal(prompt.split(`SUMMARY-${k}`).length - 1, 1, `prompt ${k + 1} carries SUMMARY-${k} once`)
        assert.ok(prompt.includes(`<previous_summary>\nSUMMARY-${k}\n</previous_summary>`))
        for (let j = 1; j < k; j++) assert.ok(!prompt.includes(`SUMMARY-${j}\n`), `an older summary SUMMARY-${j} in prompt ${k + 1}`)
        assert.ok(lines.length > 0)
      }
    })
    assert.equal(warnings.length, 0)
  })
})

describe('createAgent: a failing summarizer backs off', () => {
  test('always failing: asked once, then again only after retryAfter.calls model calls; onReport shows the back-off', async () => {
    const model = new Model(() => 'throw')
    const { reports, final } = await run(model, { retryAfter: { calls: 4 } }, 32)
    assert.equal(model.calls, 32)
    // Every planning call after the first failure reports the back-off.
    const due = reports.filter((r) => r.summaryBackoff !== null || r.summaryWritten)
    assert.ok(due.length >= 20, `${due.length} calls with a summary due`)
    const skipped = due.map((r) => r.summaryBackoff.skippedCalls)
    // Asked (skippedCalls back to 0, one more failure), then 4 calls left alone, and again.
    assert.deepEqual(skipped.slice(0, 11), [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0])
    assert.equal(model.prompts.length, due.at(-1).summaryBackoff.failures)
    assert.equal(model.prompts.length, Math.ceil(due.length / 5))
    assert.deepEqual(
      due.slice(0, 5).map((r) => r.summaryBackoff.retryInCalls),
      [4, 3, 2, 1, 0],
    )
    assert.equal(warnings.length, 1, 'one warning for the kind of failure')
    // Nothing is lost.
    assert.equal(final.filter((m) => m._getType() === 'human').length, 32)
  })

  test('the default waits 5 calls: far fewer requests than model calls', async () => {
    const model = new Model(() => 'throw')
    const { reports } = await run(model, {}, 32)
    const due = reports.filter((r) => r.summaryBackoff !== null).length
    assert.equal(model.prompts.length, Math.ceil(due / 6))
    assert.ok(model.prompts.length <= 5, `${model.prompts.length} failed summary requests in 32 turns`)
  })

  test('retryAfter.seconds: once that much time has passed the summarizer is asked on the next call', async () => {
    let now = 1_000_000
    Date.now = () => now
    const model = new Model((k) => (k === 1 ? 'throw' : 'ok'))
    const reports = []
    const agent = createAgent({
      model,
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [
        summarizationMiddleware({
          trigger: { messages: 6 },
          keep: { messages: 2 },
          retryAfter: { calls: 1000, seconds: 60 },
          onReport: (r) => reports.push(r),
        }),
      ],
    })
    const config = { configurable: { thread_id: 't' } }
    const ask = (u) => agent.invoke({ messages: [new HumanMessage({ content: `question ${u}`, id: `u${u}` })] }, config)
    let u = 0
    while (model.prompts.length === 0) await ask(u++)
    const failedAt = reports.at(-1)
    assert.equal(failedAt.summaryBackoff.failures, 1)
    assert.equal(failedAt.summaryBackoff.retryAt, new Date(now + 60_000).toISOString())
    for (let i = 0; i < 3; i++) await ask(u++)
    assert.equal(model.prompts.length, 1, 'left alone within the 60 seconds')
    now += 60_000
    await ask(u++)
    assert.equal(model.prompts.length, 2, 'asked again once the time passed')
    assert.equal(reports.at(-1).summaryWritten, true)
    assert.equal(reports.at(-1).summaryBackoff, null, 'a success ends the back-off')
  })

  test('retryAfter { calls: 0 } asks on every call; bad values are INVALID_OPTIONS naming the field', async () => {
    const model = new Model(() => 'throw')
    const { reports } = await run(model, { retryAfter: { calls: 0 } }, 8)
    const due = reports.filter((r) => r.summaryBackoff !== null).length
    assert.equal(model.prompts.length, due)
    for (const [retryAfter, path] of [
      [{ calls: -1 }, 'retryAfter.calls'],
      [{ seconds: 1.5 }, 'retryAfter.seconds'],
      [{ minutes: 1 }, 'retryAfter.minutes'],
      [5, 'retryAfter'],
    ]) {
      assert.throws(
        () => summarizationMiddleware({ retryAfter }),
        (e) => e.code === 'INVALID_OPTIONS' && e.path === path,
        JSON.stringify(retryAfter),
      )
    }
  })
})

describe('Xpert host: ContextEditorSummarizationMiddleware builds on its summaries and backs off', () => {
  let host
  before(async () => {
    host = await bootHost([{ name: 'context-editor', dir: root }])
  })
  after(async () => {
    await host?.close()
  })

  /** The host's agent step: beforeModel, the model call through wrapModelCall, afterModel. */
  async function step(mw, state, model) {
    const reduce = (current, update) => (update[0]?._getType?.() === 'remove' && update[0].id === '__remove_all__' ? update.slice(1) : [...current, ...update])
    const b = await mw.beforeModel(state, {})
    if (b) state = { messages: reduce(state.messages, b.messages) }
    const { result } = await callModel([mw], { messages: state.messages, systemMessage: new SystemMessage('sys'), model, tools: [] }, (messages) =>
      model.invoke(messages),
    )
    state = { messages: [...state.messages, result] }
    const a = await mw.afterModel(state, {})
    if (a) state = { messages: reduce(state.messages, a.messages) }
    return state
  }

  test('summaries build on each other', async () => {
    const mw = await host.registry.get('ContextEditorSummarizationMiddleware').createMiddleware({ trigger: { messages: 8 }, keep: { messages: 3 } }, {})
    const model = new Model()
    let state = { messages: [] }
    for (let u = 0; u < 16; u++) {
      state = { messages: [...state.messages, new HumanMessage({ content: `question ${u}`, id: `u${u}` })] }
      state = await step(mw, state, model)
    }
    assert.ok(model.prompts.length >= 3)
    const everListed = new Set()
    model.prompts.forEach((prompt, k) => {
      for (const line of listed(prompt)) {
        assert.ok(!everListed.has(line), `prompt ${k + 1} lists ${line} again`)
        everListed.add(line)
      }
      if (k > 0) assert.equal(prompt.split(`SUMMARY-${k}`).length - 1, 1)
    })
  })

  test('a failing summarizer is retried only per retryAfter', async () => {
    const mw = await host.registry
      .get('ContextEditorSummarizationMiddleware')
      .createMiddleware({ trigger: { messages: 6 }, keep: { messages: 2 }, retryAfter: { calls: 3 } }, {})
    const model = new Model(() => 'throw')
    let state = { messages: [] }
    let due = 0
    for (let u = 0; u < 20; u++) {
      state = { messages: [...state.messages, new HumanMessage({ content: `question ${u}`, id: `u${u}` })] }
      if (state.messages.length >= 6) due++
      state = await step(mw, state, model)
    }
    assert.equal(model.prompts.length, Math.ceil(due / 4))
    assert.equal(state.messages.filter((m) => m._getType() === 'human').length, 20)
  })
})
