// `context-editor/langgraph` with LangGraph.js's real prebuilt `createReactAgent`: a 36-call tool
// loop through `preModelHook`. On every model call: old results are placeholders, pairs are valid,
// the request stays small; the graph's state keeps every result whole (`llmInputMessages` only).
// With a `summarize` edit and a `summaryModel`, the summary is stored in the state (and only the
// original messages beside it, never the cleared copies).

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { MemorySaver } from '@langchain/langgraph'
import { createReactAgent } from '@langchain/langgraph/prebuilt'
import { z } from 'zod'

import { ContextEditor } from '../dist/index.js'
import { contextEditingPreModelHook } from '../dist/langgraph/index.js'

const CALLS = 35
const OUTPUT = (n) => `file ${n}: ` + 'lorem ipsum dolor sit amet '.repeat(60)

/** Calls `read` until it has done so `CALLS` times, then answers; answers summary prompts with SUMMARY-k. */
class Model extends BaseChatModel {
  calls = []
  summaries = 0
  _llmType() {
    return 'fake-react'
  }
  bindTools() {
    return this
  }
  async _generate(messages) {
    if (messages.length === 1 && String(messages[0].content).includes('Messages to summarize')) {
      return { generations: [{ text: '', message: new AIMessage(`SUMMARY-${++this.summaries}`) }] }
    }
    this.calls.push(messages)
    const n = this.calls.length - 1
    const message =
      n < CALLS ? new AIMessage({ content: '', tool_calls: [{ id: `call_${n}`, name: 'read', args: { n }, type: 'tool_call' }] }) : new AIMessage('all read')
    return { generations: [{ text: '', message }] }
  }
}

const read = tool(async ({ n }) => OUTPUT(n), { name: 'read', description: 'read a file', schema: z.object({ n: z.number() }) })

function pairs(messages, where) {
  const calls = []
  const results = []
  messages.forEach((m, i) => {
    if (m._getType() === 'ai') for (const c of m.tool_calls ?? []) calls.push(c.id)
    if (m._getType() === 'tool') {
      results.push(m)
      assert.ok(calls.includes(m.tool_call_id), `${where}: result ${m.tool_call_id} after its call`)
      assert.ok(['ai', 'tool'].includes(messages[i - 1]._getType()), `${where}: a result follows the calls`)
    }
  })
  assert.deepEqual(
    results.map((r) => r.tool_call_id),
    calls,
    `${where}: every call answered`,
  )
  return results
}

test('LangGraph createReactAgent: preModelHook edits 36 model calls; the state keeps every result', async () => {
  const llm = new Model({})
  const reports = []
  const agent = createReactAgent({
    llm,
    tools: [read],
    prompt: 'You read files.',
    preModelHook: contextEditingPreModelHook({ trigger: { tokens: 3000 }, keep: { messages: 2 }, onReport: (r) => reports.push(r) }),
  })
  const result = await agent.invoke({ messages: [{ role: 'user', content: 'read every file' }] }, { recursionLimit: 200 })
  assert.equal(llm.calls.length, CALLS + 1)
  assert.equal(reports.length, CALLS + 1)
  assert.equal(reports[0].hook, 'langgraph.preModelHook')
  const editor = new ContextEditor()
  let clearing = false
  llm.calls.forEach((messages, k) => {
    const results = pairs(
      messages.filter((m) => m._getType() !== 'system'),
      `call ${k}`,
    )
    const cleared = results.filter((r) => r.content === '[cleared]').length
    if (cleared) clearing = true
    if (clearing) {
      assert.equal(cleared, results.length - 2, `call ${k}`)
      const total = editor.countTokens(messages).total
      assert.ok(total < 3000 + 1200, `call ${k}: ${total} tokens`)
    }
  })
  assert.ok(clearing)
  const stored = result.messages.filter((m) => m._getType() === 'tool')
  assert.equal(stored.length, CALLS)
  for (const m of stored) assert.match(m.content, /^file \d+: lorem/)
})

test('LangGraph createReactAgent: a summarize edit with a summaryModel stores the summary in the state', async () => {
  const llm = new Model({})
  const agent = createReactAgent({
    llm,
    tools: [read],
    checkpointer: new MemorySaver(),
    preModelHook: contextEditingPreModelHook({
      edits: [
        { type: 'clear_tool_uses', trigger: { tokens: 3000 }, keep: { messages: 2 } },
        { type: 'summarize', trigger: { messages: 30 }, keep: { messages: 6 } },
      ],
      summaryModel: llm,
    }),
  })
  const config = { configurable: { thread_id: 't' }, recursionLimit: 200 }
  const result = await agent.invoke({ messages: [{ role: 'user', content: 'read every file' }] }, config)
  assert.equal(llm.calls.length, CALLS + 1)
  assert.ok(llm.summaries >= 2, `${llm.summaries} summaries`)
  const state = result.messages
  // One summary at the head of the state, and the state is the originals (no placeholders).
  assert.equal(state.filter((m) => m.additional_kwargs?.lc_source === 'summarization').length, 1)
  assert.equal(state[0].additional_kwargs?.lc_source, 'summarization')
  assert.match(String(state[0].content), new RegExp(`SUMMARY-${llm.summaries}$`))
  for (const m of state) if (m._getType() === 'tool') assert.match(m.content, /^file \d+: lorem/)
  pairs(state.slice(1), 'state')
  assert.ok(state.length < 30)
  // Every model call after the first summary got a summary first, and valid pairs.
  let seen = false
  llm.calls.forEach((messages, k) => {
    if (messages[0].additional_kwargs?.lc_source === 'summarization') seen = true
    else assert.ok(!seen, `call ${k}: the summary stays`)
    pairs(
      messages.filter((m) => m.additional_kwargs?.lc_source !== 'summarization'),
      `call ${k}`,
    )
  })
  assert.ok(seen)
})
