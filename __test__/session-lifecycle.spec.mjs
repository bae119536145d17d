// What an editor holds between calls, and when it lets go. `forget(messages)` drops a finished
// conversation's session at once (and only that one); a conversation whose first message is
// garbage-collected loses its session too. Calls in flight finish on the history they started
// with, whatever happens meanwhile: clearCache() on every turn of the event loop, evictions by
// more conversations than sessions, changes to the caller's array.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { dump } from './support/edits.mjs'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc')

/** A conversation of `turns` tool calls, each result `size` characters; `tag` makes its text its own. */
function conversation(turns, size = 300, tag = '') {
  const h = [new SystemMessage(`be brief ${tag}`), new HumanMessage(`go ${tag}`)]
  for (let t = 0; t < turns; t++) {
    h.push(new AIMessage({ content: `step ${t} ${tag}`, tool_calls: [{ id: `c${t}`, name: 'read', args: { t, tag } }] }))
    h.push(new ToolMessage({ content: `${tag} ${'r'.repeat(size)}`, tool_call_id: `c${t}`, name: 'read' }))
  }
  return h
}

const OPTIONS = { trigger: { tokens: 2000 }, keep: { messages: 2 } }
const outcome = ({ messages, report }) => ({ messages: dump(messages), report })

describe('forget(messages)', () => {
  test('drops the conversation’s session at once; its next call is planned like a first one', () => {
    const editor = new ContextEditor(OPTIONS)
    const a = conversation(10, 300, 'a')
    const b = conversation(10, 300, 'b')
    editor.edit(a)
    editor.edit(b)
    assert.equal(editor.sessionCount, 2)
    assert.equal(editor.forget(a), 1)
    assert.equal(editor.sessionCount, 1)
    assert.equal(editor.forget(a), 0, 'nothing left to forget')
    assert.deepEqual(outcome(editor.edit(a)), outcome(new ContextEditor(OPTIONS).edit(a)))
    assert.deepEqual(outcome(editor.edit(b)), outcome(new ContextEditor(OPTIONS).edit(b)))
  })

  test('only the conversation given: threads that share its first message keep theirs', () => {
    const editor = new ContextEditor(OPTIONS)
    const shared = new SystemMessage('shared system prompt')
    const threads = ['x', 'y', 'z'].map((tag) => [shared, ...conversation(6, 300, tag).slice(1)])
    for (const t of threads) editor.edit(t)
    assert.equal(editor.sessionCount, 3)
    // A part of the history from its first message names it too.
    assert.equal(editor.forget(threads[1].slice(0, 5)), 1)
    assert.equal(editor.sessionCount, 2)
    for (const t of threads) assert.deepEqual(outcome(editor.edit(t)), outcome(new ContextEditor(OPTIONS).edit(t)))
  })

  test('while a call on it is in flight: the call finishes, then the session goes', async () => {
    const editor = new ContextEditor(OPTIONS)
    const h = conversation(400, 400, 'f')
    editor.edit(h)
    const grown = [...h, new HumanMessage('more')]
    const pending = editor.editAsync(grown)
    assert.equal(editor.forget(grown), 1)
    assert.deepEqual(outcome(await pending), outcome(new ContextEditor(OPTIONS).edit(grown)))
    assert.equal(editor.sessionCount, 0)
  })
})

test('a conversation whose first message is garbage-collected loses its session', async () => {
  const editor = new ContextEditor(OPTIONS)
  const keep = conversation(5, 300, 'kept')
  editor.edit(keep)
  ;(() => {
    for (const tag of ['gone 1', 'gone 2']) editor.edit(conversation(5, 300, tag))
  })()
  assert.equal(editor.sessionCount, 3)
  for (let k = 0; k < 100 && editor.sessionCount > 1; k++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  assert.equal(editor.sessionCount, 1, 'only the conversation still referenced keeps its session')
  assert.deepEqual(outcome(editor.edit(keep)), outcome(new ContextEditor(OPTIONS).edit(keep)))
})

test('a call planned whole, without a session (per-message counts given), counts the request’s cache breakpoints alike', () => {
  const h = conversation(40, 300, 'bp')
  const marked = { type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }
  const context = {
    systemPrompt: new SystemMessage({ content: [marked] }),
    tools: [{ name: 'read', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
  }
  const options = { trigger: { tokens: 2000 }, keep: { messages: 2 }, stable: true, cacheBreakpoints: true }
  const breakpoints = (plan) => plan.ops.filter((o) => o.type === 'cache_breakpoint').length
  const viaSession = breakpoints(new ContextEditor(options).plan(h, context))
  const counts = h.map(() => 50)
  assert.equal(breakpoints(new ContextEditor(options).plan(h, { ...context, messageTokens: counts })), viaSession)
  assert.equal(viaSession, 2, 'two markers in use: two more at most')
})

describe('calls in flight finish on their own history', () => {
  for (const method of ['approx', 'model']) {
    test(`clearCache() on every turn of the event loop (${method}): every call finishes, as a fresh editor would`, async () => {
      const options = { ...OPTIONS, tokenCountMethod: method }
      const editor = new ContextEditor(options)
      // Long enough to cross to the native side in at least three pieces, each in its own turn
      // (pieces hold 64 K characters of text, or about 1,000 messages when only lengths cross).
      const histories = Array.from({ length: 8 }, (_, k) => (method === 'approx' ? conversation(1200, 100, `t${k}`) : conversation(300, 900, `t${k}`)))
      for (const h of histories.slice(0, 4)) editor.edit(h) // some held already, some new
      let finished = 0
      const calls = histories.map((h, k) => (k % 2 ? editor.editAsync(h) : editor.planAsync(h)).then((r) => (finished++, r)))
      // Clear on every turn while any call is in flight. A call that starts over after each clear
      // never finishes: a generous budget of turns (its counting runs on the thread pool, in its
      // own time) ends the test then.
      let turns = 0
      while (finished < calls.length && turns < 200_000) {
        editor.clearCache()
        turns++
        await new Promise((resolve) => setImmediate(resolve))
      }
      assert.equal(finished, calls.length, `every call finished while clearCache ran on every turn (${turns} turns)`)
      const results = await Promise.all(calls)
      histories.forEach((h, k) => {
        const fresh = new ContextEditor(options)
        if (k % 2) assert.deepEqual(outcome(results[k]), outcome(fresh.edit(h)), `edit ${k}`)
        else assert.deepEqual(results[k], fresh.plan(h), `plan ${k}`)
      })
    })
  }

  test('more conversations in flight than sessions (64): all finish, as a fresh editor would', async () => {
    const editor = new ContextEditor(OPTIONS)
    const histories = Array.from({ length: 80 }, (_, k) => conversation(120, 700, `e${k}`))
    const results = await Promise.all(histories.map((h) => editor.editAsync(h)))
    histories.forEach((h, k) => assert.deepEqual(outcome(results[k]), outcome(new ContextEditor(OPTIONS).edit(h)), `conversation ${k}`))
    assert.ok(editor.sessionCount <= 64)
  })

  test('the caller changing its array and the cache being cleared mid-call change nothing in that call', async () => {
    const editor = new ContextEditor(OPTIONS)
    const h = conversation(400, 400, 's')
    const expected = outcome(new ContextEditor(OPTIONS).edit(h))
    const pending = editor.editAsync(h)
    h.splice(2, 10)
    h.push(new HumanMessage('added later'))
    editor.clearCache()
    assert.deepEqual(outcome(await pending), expected)
    assert.deepEqual(outcome(editor.edit(h)), outcome(new ContextEditor(OPTIONS).edit(h)))
  })
})
