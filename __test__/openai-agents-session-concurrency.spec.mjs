// `contextEditingSession` rewrites the store when it writes a summary (clear, then add): an item
// added while a summary is being written (another run on the same session) is kept, two runs
// loading at once store one summary, and with clearing options too, the store keeps every result
// as it was produced and exactly one summary. With the real `MemorySession` of `@openai/agents`.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { MemorySession } from '@openai/agents'

import { contextEditingSession } from '../dist/openai-agents/index.js'

const BIG = 'lorem ipsum dolor sit amet '.repeat(80)

function history(turns) {
  const items = []
  for (let k = 0; k < turns; k++) {
    items.push({ type: 'message', role: 'user', content: `read file ${k}` })
    items.push({ type: 'function_call', callId: `call_${k}`, name: 'read', arguments: JSON.stringify({ k }), status: 'completed' })
    items.push({ type: 'function_call_result', callId: `call_${k}`, name: 'read', status: 'completed', output: { type: 'text', text: `file ${k}: ${BIG}` } })
    items.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `read ${k}` }] })
  }
  return items
}

const isSummary = (i) => typeof i.content === 'string' && /SUMMARY-\d+$/.test(i.content)
const slowSummary = () => {
  let n = 0
  return async () => {
    await new Promise((resolve) => setTimeout(resolve, 20))
    return `SUMMARY-${++n}`
  }
}

test('an item added while a summary is being written is stored after it, not lost', async () => {
  const memory = new MemorySession()
  await memory.addItems(history(8))
  const session = contextEditingSession(memory, {
    edits: [{ type: 'summarize', trigger: { messages: 24 }, keep: { messages: 8 } }],
    summarize: slowSummary(),
  })
  const loading = session.getItems()
  const added = session.addItems([{ type: 'message', role: 'user', content: 'NEW QUESTION' }])
  await Promise.all([loading, added])
  const stored = await memory.getItems()
  assert.equal(stored.filter(isSummary).length, 1)
  assert.ok(isSummary(stored[0]))
  assert.equal(stored[stored.length - 1].content, 'NEW QUESTION')
})

test('two runs loading the same session at once store one summary, and both see the stored items', async () => {
  const memory = new MemorySession()
  await memory.addItems(history(8))
  const session = contextEditingSession(memory, {
    edits: [{ type: 'summarize', trigger: { messages: 24 }, keep: { messages: 8 } }],
    summarize: slowSummary(),
  })
  const [a, b] = await Promise.all([session.getItems(), session.getItems()])
  const stored = await memory.getItems()
  assert.equal(stored.filter(isSummary).length, 1)
  assert.deepEqual(b, stored)
  assert.equal(a.length, stored.length)
})

test('with clearing options too, the store holds the results as produced and the summary once', async () => {
  const memory = new MemorySession()
  const items = history(8)
  await memory.addItems(items)
  const session = contextEditingSession(memory, {
    edits: [
      { type: 'clear_tool_uses', trigger: { tokens: 1 }, keep: { messages: 0 } },
      { type: 'summarize', trigger: { messages: 24 }, keep: { messages: 8 } },
    ],
    summarize: slowSummary(),
  })
  await session.getItems()
  const stored = await memory.getItems()
  assert.equal(stored.filter(isSummary).length, 1, JSON.stringify(stored.map((i) => i.content ?? i.type)).slice(0, 400))
  assert.ok(isSummary(stored[0]))
  for (const i of stored) if (i.type === 'function_call_result') assert.match(i.output.text, /^file \d+: lorem/)
  assert.deepEqual(stored.slice(1), items.slice(items.length - (stored.length - 1)))
})
