// `summarizationMiddleware` in a real `createAgent` over a long conversation on one thread: 12 user
// turns, 48 model steps with single and parallel tool calls, a checkpointer, and a summarizer that
// succeeds, fails in every way (throws, answers empty, answers with reasoning only) or alternates.
// On every turn's state: tool calls and results are intact, ids are unique and each id keeps its
// content, there is at most one summary. Over the run: every summary written is persisted once, in
// order, and nothing else is; no summary prompt lists a message twice; the model never receives an
// empty summary; and when the summarizer always fails, the whole history is still there.
import { test, describe, beforeEach, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { createAgent, createMiddleware, tool } from 'langchain'
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { z } from 'zod'
import { summarizationMiddleware } from '../dist/langchain/index.js'

const USER_TURNS = 12

const readFile = tool(async ({ path }) => `// ${path}\n${'x'.repeat(300)}`, {
  name: 'read_file',
  description: 'Read a file.',
  schema: z.object({ path: z.string() }),
})

const isSummary = (m) => m.additional_kwargs?.lc_source === 'summarization'
const isPrompt = (messages) => messages.length === 1 && typeof messages[0].content === 'string' && messages[0].content.includes('Messages to summarize:')

/**
 * The agent's model, which also answers summarization prompts by `outcomes` in turn: `ok` (a
 * summary), `throw`, `empty`, `reasoning` (thinking blocks only). Every 4th step answers; the others
 * call `read_file`, every 3rd step twice in parallel.
 */
class Model extends BaseChatModel {
  constructor(outcomes) {
    super({})
    this.outcomes = outcomes
    this.prompts = []
    this.written = []
    this.calls = []
  }
  _llmType() {
    return 'long-run'
  }
  bindTools() {
    return this
  }
  async _generate(messages) {
    let message
    if (isPrompt(messages)) {
      const k = this.prompts.push(messages[0].content)
      const outcome = this.outcomes[(k - 1) % this.outcomes.length]
      if (outcome === 'throw') throw new Error('summarizer unavailable (503)')
      if (outcome === 'empty') message = new AIMessage('')
      else if (outcome === 'reasoning') message = new AIMessage({ content: [{ type: 'thinking', thinking: 'Let me think…', signature: 'sig' }] })
      else {
        message = new AIMessage(`SUMMARY-${k}`)
        this.written.push(`SUMMARY-${k}`)
      }
    } else {
      this.calls.push(messages.map((m) => ({ type: m._getType(), content: m.content })))
      const step = this.calls.length
      message =
        step % 4 === 0
          ? new AIMessage(`answer ${step}`)
          : new AIMessage({
              content: `step ${step}`,
              tool_calls: (step % 3 === 0 ? [1, 2] : [1]).map((j) => ({
                id: `call_${step}_${j}`,
                name: 'read_file',
                args: { path: `f${step}_${j}.ts` },
                type: 'tool_call',
              })),
            })
    }
    return { generations: [{ text: '', message }] }
  }
}

/** Every tool result follows its call, and every call is answered before the conversation moves on. */
function assertPairsIntact(messages, where) {
  const open = new Map()
  messages.forEach((m, i) => {
    const type = m._getType()
    if (type === 'tool') {
      assert.ok(open.has(m.tool_call_id), `${where}: tool result ${m.tool_call_id} without its call`)
      open.delete(m.tool_call_id)
      return
    }
    assert.equal(open.size, 0, `${where}: message ${i} (${type}) comes before the results of ${[...open.keys()]}`)
    if (type === 'ai') for (const c of m.tool_calls ?? []) open.set(c.id, i)
  })
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

async function longRun(outcomes, { defaultModel, retryAfter }) {
  const model = new Model(outcomes)
  const seen = []
  const spy = createMiddleware({ name: 'StateSpy', beforeModel: (state) => (seen.push([...state.messages]), undefined) })
  const agent = createAgent({
    model,
    tools: [readFile],
    systemPrompt: 'You review code.',
    checkpointer: new MemorySaver(),
    middleware: [spy, summarizationMiddleware({ ...(defaultModel ? {} : { model }), trigger: { tokens: 900 }, keep: { messages: 5 }, retryAfter })],
  })
  const config = { configurable: { thread_id: 'review' }, recursionLimit: 500 }
  const contentById = new Map()
  const states = []
  for (let u = 0; u < USER_TURNS; u++) {
    const { messages } = await agent.invoke({ messages: [new HumanMessage({ content: `user turn ${u} ${'u'.repeat(200)}`, id: `u${u}` })] }, config)
    const where = `turn ${u}`
    states.push(messages)
    assertPairsIntact(messages, where)
    assert.equal(new Set(messages.map((m) => m.id)).size, messages.length, `${where}: an id twice`)
    assert.ok(messages.filter(isSummary).length <= 1, `${where}: more than one summary`)
    for (const m of messages) {
      if (isSummary(m)) continue
      const content = JSON.stringify(m.content)
      if (contentById.has(m.id)) assert.equal(content, contentById.get(m.id), `${where}: message ${m.id} changed`)
      else contentById.set(m.id, content)
    }
  }
  return { model, seen, states, final: states.at(-1) }
}

/** The summaries (their text) in the order they first appear across the states the agent went through. */
function persisted(seen, states) {
  const texts = [...seen, ...states].flatMap((s) => s.filter(isSummary).map((m) => m.content))
  return [...new Set(texts)].map((c) => c.split('\n\n').slice(1).join('\n\n'))
}

describe('summarizationMiddleware over a long agent run (12 user turns, 48 model steps)', () => {
  for (const defaultModel of [false, true]) {
    const who = defaultModel ? "the agent's own model" : 'a configured model'
    for (const outcomes of [['ok'], ['throw', 'ok'], ['empty', 'reasoning', 'ok'], ['ok', 'throw', 'empty']]) {
      test(`${who}, summarizer outcomes ${outcomes.join(' → ')}: every summary written is persisted once, nothing is lost`, async () => {
        // Asked on every call the trigger holds, whatever failed before (no back-off).
        const { model, seen, states, final } = await longRun(outcomes, { defaultModel, retryAfter: { calls: 0 } })
        assert.equal(model.calls.length, 48)
        assert.ok(model.written.length >= 3, `only ${model.written.length} summaries were written`)
        assert.deepEqual(persisted(seen, states), model.written)
        // No summary prompt lists a message twice.
        for (const prompt of model.prompts) {
          const listed = prompt.split('Messages to summarize:\n')[1].split('\n</messages>')[0]
          const lines = listed.split('\n').filter((l) => /^(Human|AI|Tool): /.test(l))
          assert.equal(new Set(lines).size, lines.length, 'a message listed twice in one prompt')
        }
        // The model never receives an empty summary, and at most one summary.
        for (const sent of model.calls) {
          assert.ok(sent.filter((m) => typeof m.content === 'string' && m.content.startsWith('Here is a summary')).length <= 1)
          for (const m of sent) assert.ok(!(typeof m.content === 'string' && /to date:\s*$/.test(m.content)), 'an empty summary reached the model')
        }
        // The newest messages are verbatim at the end of the final state.
        assert.equal(final.at(-1).content, 'answer 48')
        const failures = model.prompts.length - model.written.length
        assert.equal(warnings.length, failures > 0 ? new Set(outcomes.filter((o) => o !== 'ok').map((o) => (o === 'throw' ? 'failed' : 'empty'))).size : 0)
      })
    }

    test(`${who}, a summarizer that always fails: the whole history is kept, the run completes`, async () => {
      const { model, final } = await longRun(['throw'], { defaultModel })
      assert.equal(model.written.length, 0)
      // Asked again on later steps, but only after the back-off (`retryAfter`, 5 calls by default).
      assert.ok(model.prompts.length >= 2, 'it was asked again on later steps')
      assert.ok(model.prompts.length <= Math.ceil(48 / 6), `${model.prompts.length} failed summary requests in 48 model calls`)
      assert.equal(final.filter(isSummary).length, 0)
      // Every user turn and every model step is still in the state.
      assert.deepEqual(
        final.filter((m) => m._getType() === 'human').map((m) => m.id),
        Array.from({ length: USER_TURNS }, (_, u) => `u${u}`),
      )
      assert.equal(final.filter((m) => m._getType() === 'ai').length, 48)
      assert.equal(warnings.length, 1, 'one warning for the kind of failure')
    })
  }
})
