// `summarizationMiddleware` (context-editor/langchain) inside LangChain v1 `createAgent` with a real
// tool-calling chat model that also writes the summaries: the summary is written once per trigger,
// persists in the agent's state, the kept tail is the agent's own messages, the model receives the
// summarized context, and a failing summarizer never breaks the run.
import { test, describe, beforeEach, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { createAgent, createMiddleware, tool, countTokensApproximately } from 'langchain'
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import { MemorySaver } from '@langchain/langgraph'
import { z } from 'zod'
import { summarizationMiddleware } from '../dist/langchain/index.js'
import { ContextEditorError } from '../dist/index.js'
import { AgentModel, FailingSummarizer } from './fixtures/summarization/models.mjs'

const readFile = tool(async ({ path }) => `// ${path}\n${'x'.repeat(400)}`, {
  name: 'read_file',
  description: 'Read a file of the repository under review.',
  schema: z.object({ path: z.string() }),
})

/** Records the state each model step starts from (put it before the middleware under test). */
function stateSpy() {
  const seen = []
  const mw = createMiddleware({
    name: 'StateSpy',
    beforeModel: (state) => {
      seen.push([...state.messages])
      return undefined
    },
  })
  return { mw, seen }
}

const isSummary = (m) => m.additional_kwargs?.lc_source === 'summarization'
const view = (m) => ({ type: m._getType(), id: m.id, content: m.content })

function longHistory(turns, size = 600) {
  const out = []
  for (let k = 0; k < turns; k++) {
    out.push(new HumanMessage({ content: `old question ${k} ${'q'.repeat(size)}`, id: `h${k}` }))
    out.push(new AIMessage({ content: `old answer ${k}`, id: `a${k}` }))
  }
  return out
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

describe('summarizationMiddleware in createAgent', () => {
  test('a long run: one summary per trigger, persisted, kept tail intact, the model sees the summarized context', async () => {
    const model = new AgentModel({ turns: 14 })
    const spy = stateSpy()
    const TRIGGER = 600
    const agent = createAgent({
      model,
      tools: [readFile],
      systemPrompt: 'You review code.',
      middleware: [spy.mw, summarizationMiddleware({ model, trigger: { tokens: TRIGGER }, keep: { messages: 4 } })],
    })
    const states = []
    for await (const state of await agent.stream(
      { messages: [new HumanMessage({ content: 'Review the repository.', id: 'start' })] },
      { streamMode: 'values', recursionLimit: 200 },
    )) {
      states.push(state.messages)
    }
    const final = states.at(-1)

    // Exactly one summary per step whose state reached the trigger, and there were several.
    const triggered = spy.seen.filter((messages) => countTokensApproximately(messages) >= TRIGGER).length
    assert.ok(triggered >= 3, `the trigger held ${triggered} times`)
    assert.equal(model.summaryCalls.length, triggered)

    // Every summary written was persisted: it shows up in the state and in the model's input, in order.
    const inState = [...new Set(states.flatMap((s) => s.filter(isSummary).map((m) => m.content)))]
    assert.deepEqual(
      inState.map((c) => c.split('\n\n')[1]),
      model.summaryCalls.map((_, k) => `SUMMARY #${k + 1}`),
    )
    // After each summary, the tail kept is the previous state's newest messages, verbatim.
    for (let i = 1; i < states.length; i++) {
      const [prev, next] = [states[i - 1], states[i]]
      if (!isSummary(next[0]) || next[0].content === prev[0]?.content) continue
      const kept = next.slice(1)
      assert.equal(kept.length, 4)
      assert.deepEqual(kept.map(view), prev.slice(-4).map(view), `state ${i}: kept tail changed`)
      kept.forEach((m, k) => assert.equal(m, prev[prev.length - 4 + k], `state ${i}: kept message ${k} is a copy`))
    }
    // The model got [system, summary, ...] after the first summary, and never more than one summary.
    const firstSummarized = model.calls.findIndex((sent) => sent.some((m) => m.lc_source === 'summarization'))
    assert.ok(firstSummarized > 0)
    for (const sent of model.calls.slice(firstSummarized)) {
      assert.equal(sent[0].type, 'system')
      assert.equal(sent[1].lc_source, 'summarization')
      assert.equal(sent.filter((m) => m.lc_source === 'summarization').length, 1)
    }
    // The final state starts with the latest summary (a HumanMessage marked lc_source), then the tail.
    assert.ok(final[0] instanceof HumanMessage)
    assert.equal(final[0].content, `Here is a summary of the conversation to date:\n\nSUMMARY #${model.summaryCalls.length}`)
    assert.equal(final.filter(isSummary).length, 1)
    assert.equal(final.at(-1).content, 'Done.')
    assert.deepEqual(warnings, [])
  })

  test("default model: the agent's own model writes the summary, once, even on the run's first call", async () => {
    const model = new AgentModel({ turns: 1 })
    const checkpointer = new MemorySaver()
    const agent = createAgent({
      model,
      tools: [readFile],
      checkpointer,
      middleware: [summarizationMiddleware({ trigger: { tokens: 1500 }, keep: { messages: 3 } })],
    })
    const history = longHistory(12)
    const config = { configurable: { thread_id: 't1' }, recursionLimit: 50 }
    const out = await agent.invoke({ messages: [...history, new HumanMessage({ content: 'And now?', id: 'now' })] }, config)
    assert.equal(model.summaryCalls.length, 1)
    // The first model call already got the summarized context: summary + the last 3 messages.
    assert.deepEqual(
      model.calls[0].map((m) => m.id),
      ['h0', 'h11', 'a11', 'now'],
    )
    assert.equal(model.calls[0][0].lc_source, 'summarization')
    // Persisted: the state holds the summary (with the first replaced message's id, as LangChain) and the tail.
    assert.deepEqual(
      out.messages.slice(0, 4).map((m) => m.id),
      ['h0', 'h11', 'a11', 'now'],
    )
    assert.ok(isSummary(out.messages[0]))
    assert.match(out.messages[0].content, /SUMMARY #1$/)
    // The summarizer saw the replaced messages, not the kept ones.
    assert.match(model.summaryCalls[0], /old question 0/)
    assert.doesNotMatch(model.summaryCalls[0], /And now\?/)
    // A follow-up turn on the same thread, below the trigger: no new summary, the old one stays.
    const again = await agent.invoke({ messages: [new HumanMessage({ content: 'Thanks.', id: 'thanks' })] }, config)
    assert.equal(model.summaryCalls.length, 1)
    assert.equal(again.messages.filter(isSummary).length, 1)
    assert.equal(again.messages[0].id, 'h0')
    assert.deepEqual(warnings, [])
  })

  test('a leading system message in state is kept before the summary (LangChain would summarize it)', async () => {
    const model = new AgentModel({ turns: 0 })
    const agent = createAgent({ model, tools: [], middleware: [summarizationMiddleware({ model, trigger: { messages: 8 }, keep: { messages: 2 } })] })
    const system = new SystemMessage({ content: 'House rules: be brief.', id: 'sys' })
    const out = await agent.invoke({ messages: [system, ...longHistory(5, 50), new HumanMessage({ content: 'Q', id: 'q' })] })
    assert.deepEqual(out.messages.map((m) => m.id).slice(0, 4), ['sys', 'h0', 'a4', 'q'])
    assert.equal(out.messages[0].content, 'House rules: be brief.')
    assert.ok(isSummary(out.messages[1]))
    assert.doesNotMatch(model.summaryCalls[0], /House rules/)
  })

  test('summaryRole "assistant" writes an AIMessage (CE Node), summaryPrefix and summaryPrompt are used', async () => {
    const model = new AgentModel({ turns: 0 })
    const agent = createAgent({
      model,
      tools: [],
      middleware: [
        summarizationMiddleware({
          model,
          trigger: { messages: 6 },
          keep: { turns: 1 },
          summaryRole: 'assistant',
          summaryPrefix: 'Earlier:',
          summaryPrompt: 'SUMMARIZE: {messages}',
        }),
      ],
    })
    const out = await agent.invoke({ messages: [...longHistory(4, 20), new HumanMessage({ content: 'Q', id: 'q' })] })
    assert.ok(out.messages[0] instanceof AIMessage)
    assert.equal(out.messages[0].content, 'Earlier:\n\nSUMMARY #1')
    assert.ok(isSummary(out.messages[0]))
    assert.equal(out.messages[1].id, 'q')
    assert.match(model.summaryCalls[0], /^SUMMARIZE: Human: old question 0/)
  })

  test('a failing summarizer: the run completes unsummarized, one warning with the error, nothing thrown', async () => {
    const model = new AgentModel({ turns: 3 })
    const failing = new FailingSummarizer()
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [summarizationMiddleware({ model: failing, trigger: { tokens: 500 }, keep: { messages: 2 } })],
    })
    const history = longHistory(3)
    const out = await agent.invoke({ messages: [...history, new HumanMessage({ content: 'Go.', id: 'go' })] }, { recursionLimit: 50 })
    assert.equal(out.messages.at(-1).content, 'Done.')
    assert.equal(failing.calls, 1, 'asked once: the later steps are within its back-off (retryAfter, 5 calls)')
    assert.equal(out.messages.filter(isSummary).length, 0)
    assert.deepEqual(
      out.messages.slice(0, history.length).map((m) => m.id),
      history.map((m) => m.id),
    )
    // The model got the full history.
    assert.equal(model.calls[0].length, history.length + 1)
    assert.equal(warnings.length, 1)
    assert.match(String(warnings[0][0]), /SummarizationMiddleware: the summarizing model failed; the request goes through unsummarized/)
    assert.match(String(warnings[0][1]), /summarizer unavailable \(503\)/)
  })

  test("a failing default model (the agent's own) on the first call: same, the answer still comes", async () => {
    const model = new AgentModel({ turns: 0, failSummary: true })
    const agent = createAgent({ model, tools: [], middleware: [summarizationMiddleware({ trigger: { tokens: 500 }, keep: { messages: 1 } })] })
    const out = await agent.invoke({ messages: [...longHistory(4), new HumanMessage({ content: 'Go.', id: 'go' })] })
    assert.equal(out.messages.at(-1).content, 'Done.')
    assert.equal(model.summaryCalls.length, 1)
    assert.equal(out.messages.filter(isSummary).length, 0)
    assert.equal(warnings.length, 1)
  })

  test('DeepAgents defaults: with a known input limit {fraction 0.85}/{fraction 0.1}, else {tokens 170000}/{messages 6}', async () => {
    const history = [...longHistory(10, 600), new HumanMessage({ content: 'Q', id: 'q' })]
    const tokens = countTokensApproximately(history)
    // Known limit (model profile): 0.85 * limit is just below the history → fires; keeps <= 10 % of the limit.
    const limit = Math.ceil(tokens / 0.85) - 10
    const small = new AgentModel({ turns: 0, profile: { maxInputTokens: limit } })
    const out = await createAgent({ model: small, tools: [], middleware: [summarizationMiddleware()] }).invoke({ messages: history })
    assert.equal(small.summaryCalls.length, 1)
    const kept = out.messages.slice(1, -1)
    assert.ok(kept.length >= 1 && countTokensApproximately(kept) <= Math.floor(limit * 0.1), `kept ${countTokensApproximately(kept)} tokens`)
    // maxInputTokens given explicitly works the same.
    const explicit = new AgentModel({ turns: 0 })
    await createAgent({ model: explicit, tools: [], middleware: [summarizationMiddleware({ maxInputTokens: limit })] }).invoke({ messages: history })
    assert.equal(explicit.summaryCalls.length, 1)
    // Unknown limit: 170000 tokens → this history does not fire.
    const unknown = new AgentModel({ turns: 0 })
    await createAgent({ model: unknown, tools: [], middleware: [summarizationMiddleware()] }).invoke({ messages: history })
    assert.equal(unknown.summaryCalls.length, 0)
    // ... and with a messages trigger, keep defaults to the last 6 messages.
    const six = new AgentModel({ turns: 0 })
    const out6 = await createAgent({ model: six, tools: [], middleware: [summarizationMiddleware({ trigger: { messages: 10 } })] }).invoke({
      messages: history,
    })
    assert.deepEqual(
      out6.messages.slice(1, 7).map((m) => m.id),
      history.slice(-6).map((m) => m.id),
    )
  })

  test('maxTokens bounds the summary call (on a copy of the model), the agent model keeps its own setting', async () => {
    const model = new AgentModel({ turns: 0 })
    await createAgent({ model, tools: [], middleware: [summarizationMiddleware({ trigger: { messages: 4 }, keep: { messages: 1 }, maxTokens: 400 })] }).invoke({
      messages: [...longHistory(3, 10), new HumanMessage({ content: 'Q', id: 'q' })],
    })
    assert.deepEqual(model.summaryMaxTokens, [400])
    assert.equal(model.maxTokens, undefined)
  })

  test('a custom tokenCounter (LangChain option) drives the trigger and the kept budget', async () => {
    const model = new AgentModel({ turns: 0 })
    const counted = []
    const tokenCounter = (messages) => {
      counted.push(messages.length)
      return 100 * messages.length
    }
    const out = await createAgent({
      model,
      tools: [],
      middleware: [summarizationMiddleware({ model, trigger: { tokens: 700 }, keep: { tokens: 250 }, tokenCounter })],
    }).invoke({
      messages: [...longHistory(3, 1), new HumanMessage({ content: 'Q', id: 'q' })],
    })
    assert.equal(model.summaryCalls.length, 1)
    assert.deepEqual(
      out.messages.slice(1, 3).map((m) => m.id),
      ['a2', 'q'],
    )
    assert.ok(
      counted.every((n) => n === 1),
      'called once per message',
    )
  })

  test('the README example runs (imported by package name)', async () => {
    const { summarizationMiddleware: fromPackage } = await import('context-editor/langchain')
    const model = new AgentModel({ turns: 45 })
    const tools = [readFile]
    // --- README: Summarization (LangChain) ---
    const agent = createAgent({
      model, // also writes the summaries, unless `model` is given below
      tools,
      middleware: [
        fromPackage({
          trigger: { tokens: 4000 }, // or a list: [{ messages: 50 }, { fraction: 0.8 }]
          keep: { messages: 20 },
        }),
      ],
    })
    const result = await agent.invoke({ messages: [{ role: 'user', content: 'Review the repository.' }] }, { recursionLimit: 500 })
    // result.messages: [summary (HumanMessage, additional_kwargs.lc_source = 'summarization'), ...the last 20 or so]
    // ---
    assert.ok(model.summaryCalls.length >= 1)
    assert.ok(isSummary(result.messages[0]))
    assert.equal(result.messages.filter(isSummary).length, 1)
    assert.ok(countTokensApproximately(result.messages) < 4000 + 300)
  })

  test('invalid options fail when the middleware is created, naming the field', () => {
    const cases = [
      [{ keep: { messages: 1, tokens: 5 } }, /keep/],
      [{ trigger: {} }, /trigger/],
      [{ trigger: { tokens: -1 } }, /trigger/],
      [{ summaryRole: 'system' }, /summaryRole/],
      [{ tokenCountMethod: 'exact' }, /tokenCountMethod/],
      [{ keepp: { messages: 1 } }, /keepp: unknown option/],
      [{ maxInputTokens: 0 }, /maxInputTokens/],
      [{ tokenCounter: 'words' }, /tokenCounter/],
    ]
    for (const [options, message] of cases) {
      assert.throws(
        () => summarizationMiddleware(options),
        (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && message.test(e.message),
        JSON.stringify(options),
      )
    }
  })

  test("LangChain's deprecated names still work: maxTokensBeforeSummary, messagesToKeep", async () => {
    const model = new AgentModel({ turns: 0 })
    const out = await createAgent({
      model,
      tools: [],
      middleware: [summarizationMiddleware({ model, maxTokensBeforeSummary: 500, messagesToKeep: 2 })],
    }).invoke({
      messages: [...longHistory(4), new HumanMessage({ content: 'Q', id: 'q' })],
    })
    assert.equal(model.summaryCalls.length, 1)
    assert.deepEqual(
      out.messages.slice(1, 3).map((m) => m.id),
      ['a3', 'q'],
    )
  })
})
