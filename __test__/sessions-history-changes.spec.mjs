// A session reuses what it holds of a conversation (converted messages, their fingerprints, the
// previous output and its cleared copies) only for the messages that are still the same objects,
// unchanged, in the same places. A change at or before position k (a message's content or metadata
// replaced in place, a message replaced, inserted, removed or moved, the history cut back and grown
// again) invalidates everything after k. Each call below is checked against a fresh editor on the
// same messages: the same messages (classes, fields, metadata) and the same report.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { Rng } from './support/prng.mjs'
import { buildMessages, conversationSpecs, text } from './support/conversations.mjs'
import { snapshot } from './support/util.mjs'

const METHODS = [{}, { tokenCountMethod: 'model' }]

/** Options that clear often on these small conversations. */
function optionsFor(rng) {
  return { trigger: { tokens: rng.int(20, 400) }, keep: { messages: rng.int(0, 3) }, clearToolInputs: rng.chance(0.3) }
}

/** One change to `history` (in place) before the message at `end`; returns the new `end`. */
function change(rng, history, end) {
  const k = rng.int(0, end - 1)
  const m = history[k]
  switch (rng.pick(['content', 'metadata', 'replace', 'insert', 'remove', 'swap', 'cut'])) {
    case 'content':
      // Replaced in place: the change check reads `content`.
      m.content = typeof m.content === 'string' ? `${m.content} (edited ${rng.int(0, 99)})` : text(rng, 3)
      return end
    case 'metadata':
      m.response_metadata = { ...m.response_metadata, note: rng.int(0, 99) }
      return end
    case 'replace':
      history[k] =
        m._getType() === 'tool'
          ? new ToolMessage({ content: `replaced ${k}`, tool_call_id: m.tool_call_id, name: m.name })
          : m._getType() === 'ai'
            ? new AIMessage({ content: `replaced ${k}`, tool_calls: m.tool_calls })
            : new HumanMessage(`replaced ${k}`)
      return end
    case 'insert':
      history.splice(k, 0, new HumanMessage(`inserted at ${k}`))
      return end + 1
    case 'remove':
      if (end < 2) return end
      history.splice(k, 1)
      return end - 1
    case 'swap':
      if (k + 1 >= end) return end
      ;[history[k], history[k + 1]] = [history[k + 1], history[k]]
      return end
    default:
      return Math.max(1, end - rng.int(1, 4))
  }
}

function assertSame(got, want, what) {
  assert.deepStrictEqual(got.messages, want.messages, what)
  assert.deepStrictEqual(got.report, want.report, what)
}

test('a change at or before position k is seen by the next call: the output is a fresh editor’s, in every case', () => {
  for (let seed = 1; seed <= 80; seed++) {
    const rng = new Rng(seed)
    const history = buildMessages(conversationSpecs(rng, { maxTurns: 16 }))
    const options = { ...optionsFor(rng), ...METHODS[seed % METHODS.length] }
    const warm = new ContextEditor(options)
    let end = Math.min(history.length, rng.int(1, 6))
    for (let step = 0; step < 24 && end <= history.length; step++) {
      const view = history.slice(0, end)
      const before = snapshot(view)
      const got = warm.edit(view)
      assertSame(got, new ContextEditor(options).edit(view), `seed ${seed}, step ${step}, ${end} messages`)
      assert.deepEqual(snapshot(view), before, 'the input is never mutated')
      // Mostly growth (what the session shortcuts are for), with a change every few calls.
      end = rng.chance(0.35) ? change(rng, history, end) : Math.min(history.length, end + rng.int(1, 3))
      if (end === history.length && rng.chance(0.3)) break
    }
  }
})

test('a caller changing a returned message does not change the next call’s output', () => {
  const rng = new Rng(7)
  const history = buildMessages(conversationSpecs(rng, { maxTurns: 30 }))
  const options = { trigger: { tokens: 50 }, keep: { messages: 1 } }
  const warm = new ContextEditor(options)
  for (let end = 4; end <= history.length; end += 2) {
    const view = history.slice(0, end)
    const got = warm.edit(view)
    assertSame(got, new ContextEditor(options).edit(view), `${end} messages`)
    // What LangGraph's reducer and callers do to messages they are given.
    for (const m of got.messages) {
      if (m === view[got.messages.indexOf(m)]) continue
      m.id = 'set by the caller'
      m.content = 'changed by the caller'
      if (m.lc_kwargs && !Object.isFrozen(m.lc_kwargs)) m.lc_kwargs.id = 'set by the caller'
    }
  }
})

test('sync calls that grow a conversation while an async call on it is still applying agree with a fresh editor', async () => {
  const history = []
  for (let t = 0; t < 900; t++) {
    history.push(new HumanMessage(`step ${t}`))
    history.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
    history.push(new ToolMessage({ content: `result ${t} `.repeat(20), tool_call_id: `c${t}`, name: 'read' }))
  }
  const options = { trigger: { tokens: 2000 }, keep: { messages: 2 } }
  const warm = new ContextEditor(options)
  warm.edit(history.slice(0, 2400))
  let end = 2400
  const pending = warm.editAsync(history.slice(0, 2403))
  const grown = []
  let done = false
  pending.finally(() => (done = true))
  // Between the async call's pieces: next calls on the same conversation, each one turn longer.
  while (!done && end + 3 <= history.length) {
    await new Promise((resolve) => setImmediate(resolve))
    end += 3
    const view = history.slice(0, end)
    grown.push([view, warm.edit(view)])
  }
  assertSame(await pending, new ContextEditor(options).edit(history.slice(0, 2403)), 'the async call')
  assert.ok(grown.length > 0, 'calls ran while the async call was in flight')
  for (const [view, got] of grown) assertSame(got, new ContextEditor(options).edit(view), `${view.length} messages`)
  const last = history.slice(0, end + 3)
  assertSame(warm.edit(last), new ContextEditor(options).edit(last), 'the call after')
})
