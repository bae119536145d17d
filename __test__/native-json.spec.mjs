// The JSON entry of the addon (what ContextEditor uses in approx mode) agrees with the object entry
// and rejects input that is not a JSON array of wire messages with a clear INVALID_MESSAGE.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { NativeContextEditor } from '../index.js'

const wire = [
  { role: 'user', content: 'read it' },
  { role: 'assistant', toolCalls: [{ id: 'a', name: 'read', args: '{"p":1}' }] },
  { role: 'tool', toolCallId: 'a', name: 'read', content: 'x'.repeat(400) },
  { role: 'tool', toolCallId: 'zz', contentLength: 10 },
  { role: 'assistant', content: 'done' },
]

test('planJson and planJsonAsync give the same plan as plan', async () => {
  const editor = new NativeContextEditor({ trigger: { messages: 2 }, keep: { messages: 0 }, clearToolInputs: true })
  const expected = editor.plan(wire)
  assert.deepEqual(JSON.parse(editor.planJson(JSON.stringify(wire))), JSON.parse(JSON.stringify(expected)))
  assert.deepEqual(JSON.parse(await editor.planJsonAsync(JSON.stringify(wire))), JSON.parse(JSON.stringify(expected)))
  assert.deepEqual(
    expected.ops.map((o) => o.type),
    ['clear_tool_inputs', 'clear_tool_result', 'remove'],
  )
})

test('planJson rejects malformed JSON and unknown fields with INVALID_MESSAGE naming messages', async () => {
  const editor = new NativeContextEditor()
  for (const bad of ['{', '{"role":"user"}', '[{"role":"robot"}]', '[{"role":"user","colour":"red"}]']) {
    assert.throws(
      () => editor.planJson(bad),
      (e) => e.code === 'INVALID_MESSAGE' && /^messages: not a JSON array of wire messages/.test(e.message),
    )
    await assert.rejects(editor.planJsonAsync(bad), (e) => e.code === 'INVALID_MESSAGE')
  }
  // A parsed but invalid message still names its index.
  assert.throws(
    () => editor.planJson('[{"role":"user"},{"role":"tool"}]'),
    (e) => e.code === 'INVALID_MESSAGE' && e.messageIndex === 1 && /toolCallId/.test(e.message),
  )
})

test('numeric wire fields reject -1, NaN and 2^40 instead of wrapping, naming index and field', () => {
  const editor = new NativeContextEditor()
  for (const bad of [-1, NaN, 2 ** 40, 1.5]) {
    assert.throws(
      () =>
        editor.plan([
          { role: 'user', content: 'a' },
          { role: 'user', contentLength: bad },
        ]),
      (e) => e.code === 'INVALID_MESSAGE' && e.messageIndex === 1 && /contentLength/.test(e.message),
    )
    assert.throws(
      () => editor.plan([{ role: 'assistant', toolCalls: [{ id: 'a', argsLength: bad }] }]),
      (e) => e.code === 'INVALID_MESSAGE' && e.messageIndex === 0 && /toolCalls\[0\]\.argsLength/.test(e.message),
    )
  }
})
