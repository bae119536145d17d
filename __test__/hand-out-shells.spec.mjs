// Every call hands out a fresh shell of each kept copy (a cleared tool result, say). A copy handed
// out again (the next calls, through the kept output) is made by a function compiled for its class
// and field list (ts/wire/copy.ts `shellMaker`); otherwise, or where none is safe or code cannot be
// compiled, it is spread and given its class. Both must give the caller the same object: the same
// class, the same own fields in the same order, each a writable, enumerable, configurable data
// field, what it must not share copied anew, and no setter run.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import * as core1 from '@langchain/core/messages'
import * as core03 from '@langchain/core-03/messages'
import { ContextEditor } from '../dist/index.js'
import { anatomy, run } from './support/hand-out-scenario.mjs'

const CLEAR = { trigger: { tokens: 1 }, keep: { messages: 0 } }

/** Runs `script` (an ES module's text) in a child process where code cannot be generated from strings; returns its last line of output, parsed. */
function withoutCodeGeneration(script) {
  const r = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], {
    cwd: new URL('.', import.meta.url),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  })
  assert.equal(r.status, 0, r.stderr)
  return JSON.parse(r.stdout.trim().split('\n').pop())
}

/** Calls `edit` `n` times on one editor, the history growing by a message each time after the first two; returns each call's messages. */
function calls(options, history, n, extra) {
  const editor = new ContextEditor(options)
  const out = []
  let h = history
  for (let k = 0; k < n; k++) {
    if (k >= 2) h = [...h, extra(k)]
    out.push({ got: editor.edit(h).messages, fresh: new ContextEditor(options).edit(h).messages })
  }
  return out
}

/** Asserts the messages of `got` look to a caller exactly as those of `want`. */
function assertSameShells(got, want, label) {
  assert.equal(got.length, want.length, label)
  for (let i = 0; i < want.length; i++) assert.deepEqual(anatomy(got[i]), anatomy(want[i]), `${label}: message ${i}`)
}

test('shells made by compiled makers equal spread ones, on every call (every pipeline, every shape, both LangChain cores)', () => {
  const compiled = JSON.parse(JSON.stringify(run()))
  const spread = withoutCodeGeneration(`
    const { run } = await import('./support/hand-out-scenario.mjs')
    let compiled = true
    try { new Function('return 1') } catch { compiled = false }
    if (compiled) throw new Error('code generation is still allowed')
    console.log(JSON.stringify(run()))
  `)
  assert.deepEqual(Object.keys(compiled), Object.keys(spread))
  for (const [label, want] of Object.entries(spread)) {
    const got = compiled[label]
    assert.ok(want.copies > 0, `${label}: the edits made copies`)
    assert.equal(got.reused, 0, `${label}: a copy (or its lc_kwargs) handed out by two calls`)
    got.calls.forEach((messages, k) => assert.deepEqual(messages, want.calls[k], `${label}, call ${k + 1}`))
  }
})

for (const [name, core] of [
  ['@langchain/core 1.x', core1],
  ['@langchain/core 0.3', core03],
]) {
  test(`${name}: a cleared result's shell is the caller's to change, on every call, and changes reach no later call`, () => {
    // One result without an id (its lc_kwargs are each caller's own), one with.
    const history = [
      new core.HumanMessage('go'),
      new core.AIMessage({
        content: '',
        tool_calls: [
          { id: 'c1', name: 'read', args: { p: 1 } },
          { id: 'c2', name: 'read', args: { p: 2 } },
        ],
      }),
      new core.ToolMessage({ content: 'x'.repeat(400), tool_call_id: 'c1', name: 'read' }),
      new core.ToolMessage({ content: 'y'.repeat(400), tool_call_id: 'c2', name: 'read', id: 'with-id' }),
      new core.HumanMessage('next'),
    ]
    const editor = new ContextEditor(CLEAR)
    const first = editor.edit(history).messages
    const ids = first.map((m) => [m.id, m.lc_kwargs?.id])
    for (let k = 0; k < 4; k++) {
      const out = editor.edit(history).messages
      assertSameShells(out, first, `call ${k + 2}`)
      for (const i of [2, 3]) {
        const m = out[i]
        assert.equal(m.content, '[cleared]')
        assert.ok(m instanceof core.ToolMessage)
        // A message without an id gets its own lc_kwargs (LangGraph's reducer writes the id there).
        if (m.id == null) {
          assert.ok(!Object.isFrozen(m.lc_kwargs))
          m.lc_kwargs.id = `given-${k}`
        }
        m.id = `changed-${k}`
        m.content = `changed-${k}`
      }
    }
    const last = editor.edit(history).messages
    for (const i of [2, 3]) {
      assert.equal(last[i].content, '[cleared]')
      assert.deepEqual([last[i].id, last[i].lc_kwargs.id], ids[i])
    }
  })
}

for (const [what, guard] of [
  ['a setter', (proto, count) => Object.defineProperty(proto, 'status', { set: count, get: () => 'from the class', configurable: true })],
  ['a read-only field', (proto) => Object.defineProperty(proto, 'status', { value: 'from the class', writable: false, configurable: true })],
]) {
  test(`a field that is ${what} on the class is copied as data, nothing run, on every call`, () => {
    let ran = 0
    class Guarded extends core1.ToolMessage {}
    guard(Guarded.prototype, () => ran++)
    const make = (content, id) => {
      const m = new core1.ToolMessage({ content, tool_call_id: id, name: 'read' })
      Object.setPrototypeOf(m, Guarded.prototype)
      Object.defineProperty(m, 'status', { value: 'success', writable: true, enumerable: true, configurable: true })
      return m
    }
    const history = [
      new core1.HumanMessage('go'),
      new core1.AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read', args: {} }] }),
      make('x'.repeat(400), 'c1'),
      new core1.HumanMessage('next'),
    ]
    const results = calls(CLEAR, history, 5, (k) => new core1.HumanMessage(`turn ${k}`))
    assert.equal(ran, 0, 'no setter ran')
    results.forEach(({ got, fresh }, k) => {
      assert.equal(Object.getPrototypeOf(got[2]), Guarded.prototype)
      assert.deepEqual(Object.getOwnPropertyDescriptor(got[2], 'status'), { value: 'success', writable: true, enumerable: true, configurable: true })
      assertSameShells(got, fresh, `call ${k + 1}`)
    })
  })
}

test('a setter put on Object.prototype after the shells were first made never runs', () => {
  const history = [
    new core1.HumanMessage('go'),
    new core1.AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read', args: {} }] }),
    new core1.ToolMessage({ content: 'x'.repeat(400), tool_call_id: 'c1', name: 'read' }),
    new core1.HumanMessage('next'),
  ]
  const editor = new ContextEditor(CLEAR)
  const first = editor.edit(history).messages
  editor.edit(history)
  editor.edit(history)
  let ran = 0
  Object.defineProperty(Object.prototype, 'tool_call_id', {
    set() {
      ran++
    },
    configurable: true,
  })
  try {
    const later = editor.edit(history).messages
    assert.equal(ran, 0)
    assert.equal(Object.getOwnPropertyDescriptor(later[2], 'tool_call_id').value, 'c1')
    assert.deepEqual(Reflect.ownKeys(later[2]), Reflect.ownKeys(first[2]))
  } finally {
    delete Object.prototype.tool_call_id
  }
})
