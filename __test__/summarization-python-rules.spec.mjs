// LangChain Python's `SummarizationMiddleware` tests (langchain_v1
// `tests/unit_tests/agents/middleware/implementations/test_summarization.py`), rule by rule where
// our semantics are meant to match (docs/semantics.md §3): fraction triggers and keeps against the
// model profile's limit, inclusive thresholds, token budgets by binary search, the cutoff moving
// back to keep an AI message with its tool result, triggers ORed across a list. Python's tuples
// `("fraction", 0.8)` are our `{ fraction: 0.8 }`. (Python raises when the summary call fails; we
// keep the history: §7.13.)
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { summarizationMiddleware } from '../dist/langchain/index.js'

/** Python's `ProfileChatModel`: a profile with `max_input_tokens = 1000`, answering "Summary". */
function profileModel() {
  return {
    profile: { maxInputTokens: 1000 },
    calls: 0,
    async invoke() {
      this.calls++
      return { content: 'Summary' }
    },
  }
}

const four = () => [
  new HumanMessage({ content: 'Message 1', id: '1' }),
  new AIMessage({ content: 'Message 2', id: '2' }),
  new HumanMessage({ content: 'Message 3', id: '3' }),
  new AIMessage({ content: 'Message 4', id: '4' }),
]

/** 200 tokens a message, as Python's `len(messages) * 200`. */
const perMessage200 = (messages) => messages.length * 200

async function kept(options, messages) {
  const update = await summarizationMiddleware(options).beforeModel({ messages }, {})
  if (update === undefined) return undefined
  assert.equal(update.messages[1].additional_kwargs.lc_source, 'summarization')
  assert.match(update.messages[1].content, /^Here is a summary of the conversation to date:\n\nSummary$/)
  return update.messages.slice(2).map((m) => m.content)
}

describe("LangChain Python's summarization rules", () => {
  test('profile inference: fraction triggers are inclusive, fraction and token keeps are budgets', async () => {
    const cases = [
      [{ fraction: 0.81 }, { fraction: 0.5 }, undefined], // 810 > 800 tokens: no summary
      [{ fraction: 0.8 }, { fraction: 0.5 }, ['Message 3', 'Message 4']],
      [{ fraction: 0.8 }, { fraction: 0.6 }, ['Message 2', 'Message 3', 'Message 4']],
      [{ fraction: 0.8 }, { fraction: 0.8 }, undefined], // everything fits the budget: no summary
      [{ fraction: 0.8 }, { tokens: 400 }, ['Message 3', 'Message 4']],
      [{ fraction: 0.8 }, { tokens: 600 }, ['Message 2', 'Message 3', 'Message 4']],
    ]
    for (const [trigger, keep, expected] of cases) {
      const got = await kept({ model: profileModel(), trigger, keep, tokenCounter: perMessage200 }, four())
      assert.deepEqual(got, expected, `${JSON.stringify(trigger)} ${JSON.stringify(keep)}`)
    }
  })

  test('token retention moves the cutoff back to keep an AI message with its tool result', async () => {
    const messages = [
      new HumanMessage({ content: 'H'.repeat(300), id: 'h0' }),
      new AIMessage({ content: 'A'.repeat(200), id: 'a0', tool_calls: [{ name: 'test', args: {}, id: 'call-1' }] }),
      new ToolMessage({ content: 'T'.repeat(50), tool_call_id: 'call-1', id: 't0' }),
      new HumanMessage({ content: 'H'.repeat(180), id: 'h1' }),
      new HumanMessage({ content: 'H'.repeat(160), id: 'h2' }),
    ]
    const chars = (ms) => ms.reduce((n, m) => n + m.content.length, 0)
    const update = await summarizationMiddleware({
      model: profileModel(),
      trigger: { fraction: 0.1 },
      keep: { fraction: 0.5 },
      tokenCounter: chars,
    }).beforeModel({ messages }, {})
    update.messages.slice(2).forEach((m, k) => assert.equal(m, messages[1 + k]))
    assert.equal(update.messages.length, 2 + 4)
  })

  test('a message-count trigger fires at the threshold and above, keeping the newest', async () => {
    const humans = (n) => Array.from({ length: n }, (_, i) => new HumanMessage({ content: String(i + 1), id: `m${i + 1}` }))
    const options = () => ({ model: profileModel(), trigger: { messages: 5 }, keep: { messages: 2 } })
    assert.equal(await kept(options(), humans(4)), undefined)
    assert.deepEqual(await kept(options(), humans(5)), ['4', '5'])
    assert.deepEqual(await kept(options(), humans(6)), ['5', '6'])
  })

  test('a list of triggers fires when any holds (messages or tokens)', async () => {
    const humans = (n) => Array.from({ length: n }, (_, i) => new HumanMessage({ content: String(i), id: `m${i}` }))
    const options = (tokens) => ({ model: profileModel(), trigger: [{ messages: 10 }, { tokens: 500 }], keep: { messages: 2 }, tokenCounter: () => tokens })
    // Per message: 100 / 5 = 20 tokens each, 100 in all.
    assert.equal(await kept(options(20), humans(5)), undefined)
    assert.notEqual(await kept(options(10), humans(10)), undefined)
    assert.notEqual(await kept(options(120), humans(5)), undefined)
  })

  test('token budgets: a single message too large for the budget, or everything fitting, is no summary', async () => {
    const model = profileModel()
    assert.equal(
      await kept({ model, trigger: { messages: 1 }, keep: { tokens: 100 }, tokenCounter: perMessage200 }, [
        new HumanMessage({ content: 'x'.repeat(200), id: 'x' }),
      ]),
      undefined,
    )
    const small = Array.from({ length: 5 }, (_, i) => new HumanMessage({ content: String(i), id: `s${i}` }))
    assert.equal(await kept({ model, trigger: { messages: 5 }, keep: { tokens: 100 }, tokenCounter: (ms) => ms.length * 10 }, small), undefined)
    assert.equal(model.calls, 0)
  })
})
