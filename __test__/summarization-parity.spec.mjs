// Differential test: our `summarizationMiddleware` against LangChain.js's own
// (`summarizationMiddleware` of langchain 1.5.14) on seeded random agent conversations, approx
// counting: the same decision to summarize and the same preserved tail (the very same message
// objects, verbatim). Conversations carry no system message in state: there the two differ on
// purpose (LangChain summarizes it, we keep it), which the last test shows.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { summarizationMiddleware as lcSummarization, countTokensApproximately } from 'langchain'
import { HumanMessage, SystemMessage, AIMessage } from '@langchain/core/messages'
import { REMOVE_ALL_MESSAGES as LANGGRAPH_REMOVE_ALL } from '@langchain/langgraph'
import { summarizationMiddleware } from '../dist/langchain/index.js'
import { REMOVE_ALL_MESSAGES } from '../dist/xpert/index.js'
import { randomConversation, rng } from './fixtures/summarization/conversations.mjs'

const require = createRequire(import.meta.url)
const CASES = 400
const MAX_INPUT = 20_000

/** A summarizing model both sides can call, with a profile (for fractions). */
function summarizer() {
  return {
    calls: 0,
    profile: { maxInputTokens: MAX_INPUT },
    async invoke() {
      this.calls++
      return { content: 'SUMMARY' }
    },
  }
}

/** What a `beforeModel` update preserved: `undefined` when it did not fire, else the messages after the summary. */
function preserved(update) {
  if (update === undefined) return undefined
  const [remove, summary, ...rest] = update.messages
  assert.equal(remove.id, REMOVE_ALL_MESSAGES)
  assert.equal(summary.additional_kwargs.lc_source, 'summarization')
  return rest
}

function randomTrigger(r, messages, total) {
  const one = () => {
    const t = {}
    const kinds = ['tokens', 'messages', 'fraction'].filter(() => r() < 0.5)
    if (kinds.length === 0) kinds.push(['tokens', 'messages', 'fraction'][Math.floor(r() * 3)])
    for (const kind of kinds) {
      if (kind === 'tokens') t.tokens = Math.max(1, Math.floor(total * (0.3 + r())))
      if (kind === 'messages') t.messages = Math.max(1, Math.floor(messages.length * (0.4 + r())))
      if (kind === 'fraction') t.fraction = Math.min(1, Math.max(0.001, Math.round(((total * (0.3 + r())) / MAX_INPUT) * 1000) / 1000))
    }
    return t
  }
  return r() < 0.25 ? [one(), one()] : one()
}

function randomKeep(r, total) {
  const x = r()
  if (x < 0.15) return { messages: 20 } // LangChain's default, explicit on both sides
  if (x < 0.45) return { messages: Math.floor(r() * 30) }
  if (x < 0.8) return { tokens: Math.floor(r() * total * 1.1) }
  return { fraction: Math.round(((r() * total * 1.1) / MAX_INPUT) * 1000) / 1000 }
}

async function both(messages, options) {
  const theirsModel = summarizer()
  const oursModel = summarizer()
  const theirs = lcSummarization({ model: theirsModel, ...options })
  const ours = summarizationMiddleware({ model: oursModel, ...options })
  const lcUpdate = await theirs.beforeModel({ messages: [...messages] }, { context: {} })
  const ourUpdate = await ours.beforeModel({ messages: [...messages] }, { context: {} })
  return { lc: preserved(lcUpdate), ours: preserved(ourUpdate), theirsModel, oursModel }
}

describe('summarization planning = LangChain.js summarizationMiddleware (langchain 1.5.14), approx counting', () => {
  test(`${CASES} seeded random conversations: same decision, same preserved tail`, async () => {
    const stats = { fired: 0, skipped: 0, byKeep: {} }
    for (let seed = 1; seed <= CASES; seed++) {
      const r = rng(seed * 7919)
      const messages = randomConversation(seed, 1 + Math.floor(r() * 70))
      const total = countTokensApproximately(messages)
      const options = { trigger: randomTrigger(r, messages, total), keep: randomKeep(r, total) }
      const { lc, ours, oursModel } = await both(messages, options)
      const where = `seed ${seed}: ${messages.length} messages, ${total} tokens, ${JSON.stringify(options)}`
      assert.equal(ours === undefined, lc === undefined, `${where}: LangChain ${lc ? 'fired' : 'did not fire'}`)
      if (lc === undefined) {
        stats.skipped++
        assert.equal(oursModel.calls, 0)
        continue
      }
      stats.fired++
      const kind = Object.keys(options.keep)[0]
      stats.byKeep[kind] = (stats.byKeep[kind] ?? 0) + 1
      assert.deepEqual(
        ours.map((m) => m.id),
        lc.map((m) => m.id),
        `${where}: preserved tails differ`,
      )
      // Verbatim: the preserved messages are the caller's own objects.
      ours.forEach((m, i) => assert.equal(m, messages[messages.length - ours.length + i]))
      assert.equal(oursModel.calls, 1, `${where}: one summary per trigger`)
    }
    if (process.env.SUMMARY_PARITY_STATS) console.log(JSON.stringify(stats))
    // Both outcomes and every keep kind were exercised.
    assert.ok(stats.fired >= CASES / 4 && stats.skipped >= CASES / 10, JSON.stringify(stats))
    for (const kind of ['messages', 'tokens', 'fraction']) assert.ok(stats.byKeep[kind] >= 20, JSON.stringify(stats))
  })

  test('a custom tokenCounter (additive: words per message), 100 conversations: same decision, same tail', async () => {
    const words = (messages) => messages.reduce((n, m) => n + String(m.content).split(/\s+/).filter(Boolean).length + 3, 0)
    let fired = 0
    for (let seed = 1001; seed <= 1100; seed++) {
      const r = rng(seed)
      const messages = randomConversation(seed, 2 + Math.floor(r() * 50))
      const total = words(messages)
      const options = {
        trigger: { tokens: Math.max(1, Math.floor(total * (0.5 + r()))) },
        keep: r() < 0.5 ? { tokens: Math.floor(r() * total) } : { messages: Math.floor(r() * 12) },
        tokenCounter: words,
      }
      const { lc, ours } = await both(messages, options)
      const where = `seed ${seed}: ${messages.length} messages, ${total} words, ${JSON.stringify(options)}`
      assert.equal(ours === undefined, lc === undefined, where)
      if (lc) {
        fired++
        assert.deepEqual(
          ours.map((m) => m.id),
          lc.map((m) => m.id),
          where,
        )
      }
    }
    assert.ok(fired >= 25, `fired ${fired} times`)
  })

  test('the remove-all marker is LangGraph’s REMOVE_ALL_MESSAGES', () => {
    assert.equal(REMOVE_ALL_MESSAGES, LANGGRAPH_REMOVE_ALL)
    assert.ok(require.resolve('@langchain/langgraph'))
  })

  test('deliberate difference: a leading system message in state is kept, LangChain summarizes it', async () => {
    const system = new SystemMessage({ content: 'You are a code reviewer.', id: 'sys' })
    const messages = [system]
    for (let k = 0; k < 12; k++) {
      messages.push(new HumanMessage({ content: `question ${k} ${'x'.repeat(200)}`, id: `h${k}` }))
      messages.push(new AIMessage({ content: `answer ${k}`, id: `a${k}` }))
    }
    const options = { trigger: { messages: 20 }, keep: { messages: 4 } }
    const theirsModel = summarizer()
    const oursModel = summarizer()
    const lcUpdate = await lcSummarization({ model: theirsModel, ...options }).beforeModel({ messages: [...messages] }, { context: {} })
    const ourUpdate = await summarizationMiddleware({ model: oursModel, ...options }).beforeModel({ messages: [...messages] }, { context: {} })
    // LangChain: [remove all, summary, ...last 4] — the system message is gone from state.
    assert.deepEqual(
      lcUpdate.messages.slice(1).map((m) => m._getType()),
      ['human', 'human', 'ai', 'human', 'ai'],
    )
    assert.ok(!lcUpdate.messages.includes(system))
    // Ours: [remove all, system, summary, ...last 4] — the same tail, the system message kept.
    assert.equal(ourUpdate.messages[1], system)
    assert.equal(ourUpdate.messages[2].additional_kwargs.lc_source, 'summarization')
    assert.deepEqual(
      ourUpdate.messages.slice(3).map((m) => m.id),
      lcUpdate.messages.slice(2).map((m) => m.id),
    )
    // And the system prompt is not sent to the summarizer as conversation.
    assert.equal(theirsModel.calls, 1)
    assert.equal(oursModel.calls, 1)
  })
})
