// The asynchronous calls keep the event loop turning on long histories: while `editAsync` /
// `planAsync` converts, sends and applies a long history, other work (here: a chain of
// `setImmediate` callbacks) gets turns in between. A short history met alone may be planned on the
// calling thread (cheaper than the thread pool's round trip); a long one never is, in any mode,
// and neither is the text a summary's prompt needs (lengths first, ts/editor.ts).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { dump } from './support/edits.mjs'

function conversation(turns, size) {
  const h = [new HumanMessage('go')]
  for (let t = 0; t < turns; t++) {
    h.push(new AIMessage({ content: `step ${t}`, tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
    h.push(new ToolMessage({ content: `${t} ${'r'.repeat(size)}`, tool_call_id: `c${t}`, name: 'read' }))
  }
  return h
}

/** How many turns of the event loop ran while `call()` was in flight. */
async function turnsDuring(call) {
  let turns = 0
  let done = false
  const tick = () => {
    if (done) return
    turns++
    setImmediate(tick)
  }
  setImmediate(tick)
  const result = await call()
  done = true
  return { turns, result }
}

const outcome = ({ messages, report }) => ({ messages: dump(messages), report })

const CASES = [
  ['approx', { trigger: { tokens: 2000 }, keep: { messages: 2 } }, conversation(1500, 200)],
  ['model', { trigger: { tokens: 2000 }, keep: { messages: 2 }, tokenCountMethod: 'model' }, conversation(300, 2000)],
  ['summarize (approx, fires)', { edits: [{ type: 'summarize', trigger: { tokens: 2000 }, keep: { messages: 4 } }] }, conversation(400, 2000)],
]

for (const [name, options, h] of CASES) {
  test(`a long history (${name}): other work gets turns while planAsync and editAsync run, and the results are plan's and edit's`, async () => {
    const planned = await turnsDuring(() => new ContextEditor(options).planAsync(h))
    assert.ok(planned.turns >= 2, `planAsync: ${planned.turns} turns`)
    assert.deepEqual(planned.result, new ContextEditor(options).plan(h))
    const summarize = async (q) => `summary of ${q.replaced.length}`
    const edited = await turnsDuring(() => new ContextEditor(options).editAsync(h, { summarize }))
    assert.ok(edited.turns >= 2, `editAsync: ${edited.turns} turns`)
    assert.deepEqual(outcome(edited.result), outcome(new ContextEditor(options).edit(h, { summarize: (q) => `summary of ${q.replaced.length}` })))
  })
}

test('a short history alone and a long one in flight together: both finish as edit would', async () => {
  const options = { trigger: { tokens: 500 }, keep: { messages: 2 } }
  const short = conversation(20, 100)
  const long = conversation(1500, 200)
  const editor = new ContextEditor(options)
  const results = await Promise.all([editor.editAsync(long), editor.editAsync(short), editor.planAsync(short)])
  assert.deepEqual(outcome(results[0]), outcome(new ContextEditor(options).edit(long)))
  assert.deepEqual(outcome(results[1]), outcome(new ContextEditor(options).edit(short)))
  assert.deepEqual(results[2], new ContextEditor(options).plan(short))
})
