// The summarize edit through the public JS API: the summary message written where the replaced
// messages were (LangChain and OpenAI shapes), sync and async summarizers, the skipped and error
// cases, and plan() / applyPlan().

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'

import { applyPlan } from '../dist/index.js'
import { assertSubset, pipeline, snapshot } from './support/strategies.mjs'

// ---------------------------------------------------------------------------------------------
// summarize

function chat(n) {
  const out = [new SystemMessage('You are a travel assistant.')]
  for (let k = 0; k < n; k++) out.push(new HumanMessage(`question ${k}`), new AIMessage(`answer ${k}`))
  return out
}

const SUMMARIZE = { type: 'summarize', trigger: { messages: 6 }, keep: { messages: 2 } }

describe('summarize', () => {
  test('edit(msgs, { summarize }) writes a HumanMessage with lc_source where the replaced messages were', () => {
    const history = chat(4)
    const before = snapshot(history)
    const seen = []
    const { messages, report } = pipeline(SUMMARIZE).edit(history, {
      summarize: (request) => {
        seen.push(request)
        return 'They talked about travel.'
      },
    })
    assert.equal(seen.length, 1)
    const req = seen[0]
    assert.deepEqual(req.replaced, [1, 2, 3, 4, 5, 6])
    assert.equal(req.insertAt, 1)
    assert.equal(req.role, 'user')
    assert.equal(req.prefix, 'Here is a summary of the conversation to date:')
    assert.ok(req.prompt.includes('Human: question 0\nAI: answer 0'))
    assert.ok(!req.prompt.includes('question 3'), 'the kept tail is not summarized')
    assert.ok(!req.prompt.includes('{messages}'))
    assert.equal(messages.length, 4)
    assert.equal(messages[0], history[0])
    const s = messages[1]
    assert.ok(s instanceof HumanMessage)
    assert.equal(s.content, 'Here is a summary of the conversation to date:\n\nThey talked about travel.')
    assert.deepEqual(s.additional_kwargs, { lc_source: 'summarization' })
    assert.equal(messages[2], history[7])
    assert.equal(messages[3], history[8])
    assert.deepEqual(snapshot(history), before)
    assertSubset(report.appliedEdits, [{ type: 'summarize', triggered: true, removedMessages: 6 }])
  })

  test('editAsync awaits an async summarizer; summaryRole assistant gives an AIMessage', async () => {
    const history = chat(4)
    const editor = pipeline({ ...SUMMARIZE, summaryRole: 'assistant', summaryPrefix: 'Earlier:' })
    const { messages } = await editor.editAsync(history, {
      summarize: async (request) => {
        await new Promise((r) => setTimeout(r, 5))
        return `summary of ${request.replaced.length}`
      },
    })
    assert.ok(messages[1] instanceof AIMessage)
    assert.equal(messages[1].content, 'Earlier:\n\nsummary of 6')
    assert.equal(messages.length, 4)
  })

  test('without a summarizer the messages are kept and the report warns summary_skipped', () => {
    const history = chat(4)
    const { messages, report } = pipeline(SUMMARIZE).edit(history)
    messages.forEach((m, i) => assert.equal(m, history[i]))
    assert.equal(messages.length, history.length)
    assert.ok(report.warnings.some((w) => w.code === 'summary_skipped'))
  })

  test('an async summarizer in edit is an error that says to use editAsync', () => {
    assert.throws(
      () => pipeline(SUMMARIZE).edit(chat(4), { summarize: async () => 'x' }),
      (e) => e.code === 'INVALID_SUMMARY' && e.path === 'summary' && /editAsync/.test(e.message),
    )
  })

  test('OpenAI messages get an OpenAI summary message; pairs are never split', () => {
    const history = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'r1' },
      { role: 'assistant', content: 'done' },
    ]
    // keep 2 would start at the tool result: the cut moves back to its call.
    const { messages } = pipeline({ type: 'summarize', trigger: { messages: 2 }, keep: { messages: 2 } }).edit(history, {
      summarize: () => 'S',
    })
    assert.deepEqual(messages, [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'Here is a summary of the conversation to date:\n\nS' },
      history[4],
      history[5],
      history[6],
    ])
  })

  test('a fraction without maxInputTokens is INVALID_CONTEXT; with it, DeepAgents defaults apply', () => {
    assert.throws(
      () => pipeline({ type: 'summarize', trigger: { fraction: 0.5 } }).edit(chat(2)),
      (e) => e.code === 'INVALID_CONTEXT',
    )
    const { report } = pipeline({ type: 'summarize' }).edit(chat(30), { maxInputTokens: 100, summarize: () => 'S' })
    assert.equal(report.appliedEdits[0].triggered, true)
  })

  test('plan() returns the request; applyPlan(messages, plan, { summary }) writes it', () => {
    const history = chat(4)
    const editor = pipeline(SUMMARIZE)
    const plan = editor.plan(history)
    assert.ok(plan.summary)
    const out = applyPlan(history, plan, { summary: 'S' })
    assert.equal(out.length, 4)
    assert.ok(out[1] instanceof HumanMessage)
    const kept = applyPlan(history, plan)
    assert.equal(kept.length, history.length)
  })
})
