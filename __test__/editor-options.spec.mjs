// An editor's options are read once, when it is made: `editor.options` is a deep copy, deeply
// frozen, and what the caller later does to the objects it passed changes neither what the
// editor reports nor what it does. Each option is read once (a getter runs once).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'

function history() {
  const h = [new HumanMessage('go')]
  for (let t = 0; t < 6; t++) {
    const name = t % 2 ? 'search' : 'read'
    h.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name, args: { t } }] }))
    h.push(new ToolMessage({ content: 'r'.repeat(400), tool_call_id: `c${t}`, name }))
  }
  return h
}

function deeplyFrozen(v) {
  if (v === null || typeof v !== 'object') return true
  return Object.isFrozen(v) && Object.values(v).every(deeplyFrozen)
}

test('editor.options is a deeply frozen copy: the caller’s later changes reach neither it nor the edits', () => {
  const given = () => ({
    trigger: [{ tokens: 300 }, { messages: 50 }],
    keep: { messages: 1 },
    excludeTools: ['search'],
    placeholder: '[gone]',
    clearToolInputs: true,
  })
  const options = given()
  const editor = new ContextEditor(options)
  assert.deepEqual(editor.options, given())
  assert.ok(deeplyFrozen(editor.options))
  assert.notEqual(editor.options.trigger, options.trigger)
  const before = editor.edit(history())
  // The caller reuses and changes its objects.
  options.trigger[0].tokens = 1_000_000
  options.trigger.pop()
  options.keep.messages = 0
  options.excludeTools.push('read')
  options.placeholder = 'changed'
  assert.deepEqual(editor.options, given(), 'options still report the editor as made')
  const after = editor.edit(history())
  assert.deepEqual(after.report, before.report)
  assert.deepEqual(
    after.messages.map((m) => m.content),
    new ContextEditor(given()).edit(history()).messages.map((m) => m.content),
  )
  assert.ok(after.messages.some((m) => m.content === '[gone]'))
  assert.throws(() => {
    editor.options.keep.messages = 5
  }, TypeError)
})

test('pipelines too: a nested edit changed by the caller after construction changes nothing', () => {
  const edits = [
    { type: 'truncate_tool_results', maxChars: 50 },
    { type: 'clear_tool_uses', trigger: { tokens: 300 }, keep: { messages: 1 } },
  ]
  const editor = new ContextEditor({ edits })
  const expected = new ContextEditor({ edits: structuredClone(edits) }).edit(history())
  edits[0].maxChars = 5
  edits[1].keep.messages = 6
  edits.push({ type: 'summarize' })
  assert.equal(editor.options.edits.length, 2)
  assert.equal(editor.options.edits[0].maxChars, 50)
  const got = editor.edit(history())
  assert.deepEqual(got.report, expected.report)
  assert.deepEqual(
    got.messages.map((m) => m.content),
    expected.messages.map((m) => m.content),
  )
})

test('each option is read once, through its getter', () => {
  let reads = 0
  const options = {
    get keep() {
      reads++
      return { messages: 1 }
    },
    trigger: { tokens: 300 },
  }
  const editor = new ContextEditor(options)
  assert.equal(reads, 1)
  editor.edit(history())
  assert.equal(reads, 1)
  assert.deepEqual(editor.options.keep, { messages: 1 })
})

test('a "__proto__" option key stays a key (an unknown option), never a prototype', () => {
  const options = JSON.parse('{"__proto__": {"keep": {"messages": 0}}, "trigger": {"tokens": 300}}')
  assert.throws(
    () => new ContextEditor(options),
    (e) => e.code === 'INVALID_OPTIONS' && /__proto__/.test(e.message),
  )
  assert.equal({}.keep, undefined)
})
