// Every call hands out a fresh shell of each kept copy (a cleared tool result, say). The first time
// a copy is handed out it is spread and given its class; from the second time on it is made by a
// function built for its class and field list (ts/wire/copy.ts `fastHandOut`). Both must give the
// caller the same object: the same class, the same own fields in the same order, each a writable,
// enumerable, configurable data field, what it must not share copied anew, and no setter run.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import * as core1 from '@langchain/core/messages'
import * as core03 from '@langchain/core-03/messages'
import { ContextEditor } from '../dist/index.js'
import { PIPELINES, SHAPES, dump, richSpecs } from './support/edits.mjs'

const CLEAR = { trigger: { tokens: 1 }, keep: { messages: 0 } }

/** What a caller can see of a message object: its class, its own keys in order and their descriptors (values of nested objects by content). */
function anatomy(m) {
  return {
    proto: Object.getPrototypeOf(m),
    keys: Reflect.ownKeys(m).map(String),
    descriptors: Reflect.ownKeys(m).map((k) => {
      const d = Object.getOwnPropertyDescriptor(m, k)
      return [String(k), 'value' in d, d.writable, d.enumerable, d.configurable, typeof d.value === 'object' && d.value !== null ? dump(d.value) : d.value]
    }),
    type: typeof m._getType === 'function' ? m._getType() : m.type,
  }
}

/**
 * Calls `edit` `n` times on one editor, the history growing by a message each time after the
 * first two (a session's next calls); returns each call's messages with those a new editor gives
 * for the same history (its copies are all handed out for the first time).
 */
function calls(options, history, n, extra) {
  const editor = new ContextEditor(options)
  const out = []
  let h = history
  for (let k = 0; k < n; k++) {
    if (k >= 2) h = [...h, extra(k)]
    out.push({ history: h, got: editor.edit(h).messages, fresh: new ContextEditor(options).edit(h).messages })
  }
  return out
}

/** Asserts the messages of `got` look to a caller exactly as those of `want`. */
function assertSameShells(got, want, label) {
  assert.equal(got.length, want.length, label)
  for (let i = 0; i < want.length; i++) assert.deepEqual(anatomy(got[i]), anatomy(want[i]), `${label}: message ${i}`)
}

for (const [name, core] of [
  ['@langchain/core 1.x', core1],
  ['@langchain/core 0.3', core03],
]) {
  test(`${name}: shells made from the second hand-out on equal the first ones (every pipeline, every shape)`, () => {
    for (const [shape, build] of Object.entries(SHAPES)) {
      for (const [pipeline, options] of Object.entries(PIPELINES)) {
        const results = calls(options, build(richSpecs()), 5, (k) => new core.HumanMessage(`turn ${k}`))
        const label = `${shape}, ${pipeline}`
        results.forEach(({ got, fresh }, k) => assertSameShells(got, fresh, `${label}, call ${k + 1}`))
        // Each call's copies are its own: no message object a call made is handed out by a later one.
        const made = new Set()
        for (const { history, got } of results) {
          const copies = got.filter((m) => !history.includes(m))
          for (const m of copies) assert.ok(!made.has(m), `${label}: a copy handed out twice`)
          for (const m of copies) made.add(m)
        }
        assert.ok(made.size > 0, `${label}: the edits made copies`)
      }
    }
  })

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
      assert.equal(last[i].id, first[i].id)
      assert.equal(last[i].lc_kwargs.id, first[i].lc_kwargs.id)
    }
  })
}

test("a class's setters never run, nor read-only fields of its prototype fail, when shells are made", () => {
  let ran = 0
  // A message class whose prototype has a setter (and a read-only field) for fields its instances hold as their own.
  class Tracked extends core1.ToolMessage {}
  Object.defineProperty(Tracked.prototype, 'status', {
    set() {
      ran++
    },
    get() {
      return 'from the class'
    },
    configurable: true,
  })
  const make = (content, id) => {
    const m = new core1.ToolMessage({ content, tool_call_id: id, name: 'read' })
    Object.setPrototypeOf(m, Tracked.prototype)
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
    assert.equal(Object.getPrototypeOf(got[2]), Tracked.prototype)
    assert.equal(Object.getOwnPropertyDescriptor(got[2], 'status').value, 'success', 'the own field, as data')
    assertSameShells(got, fresh, `call ${k + 1}`)
  })
})

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

test('where code cannot be compiled (--disallow-code-generation-from-strings), shells are made the first way, the same', () => {
  const script = `
    import { ContextEditor } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)}
    import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
    const h = [new HumanMessage('go'), new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read', args: {} }] }),
      new ToolMessage({ content: 'x'.repeat(400), tool_call_id: 'c1', name: 'read' }), new HumanMessage('next')]
    const ed = new ContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 } })
    const outs = [1, 2, 3, 4].map(() => ed.edit(h).messages[2])
    let compiled = true
    try { new Function('return 1') } catch { compiled = false }
    console.log(JSON.stringify({ compiled, keys: outs.map((m) => Reflect.ownKeys(m).map(String).join()), cls: outs.map((m) => m instanceof ToolMessage), content: outs.map((m) => m.content), fresh: new Set(outs).size }))
  `
  const r = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script], {
    cwd: new URL('..', import.meta.url),
    encoding: 'utf8',
  })
  assert.equal(r.status, 0, r.stderr)
  const out = JSON.parse(r.stdout.trim().split('\n').pop())
  assert.equal(out.compiled, false, 'the flag is in force')
  assert.equal(new Set(out.keys).size, 1, 'every call, the same fields')
  assert.deepEqual(out.cls, [true, true, true, true])
  assert.deepEqual(out.content, ['[cleared]', '[cleared]', '[cleared]', '[cleared]'])
  assert.equal(out.fresh, 4, 'a new object each call')
})
