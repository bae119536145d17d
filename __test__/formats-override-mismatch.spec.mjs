// A `format` given for messages of another format is an error naming the message, the field and
// what the format expects, never a silent reading in which tool calls and results go unseen (so
// nothing is cleared and no pair is checked): from the constructor option and from the call's
// context, for `edit`, `plan` and `countTokens` alike.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { ContextEditor, ContextEditorError } from '../dist/index.js'

const BIG = 'lorem ipsum '.repeat(300)

const cases = [
  {
    name: 'Anthropic messages read as AI SDK',
    format: 'aisdk',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: BIG }] },
    ],
    index: 1,
    path: 'content[0].type',
    says: /"tool_use" is no AI SDK part/,
  },
  {
    name: 'OpenAI chat tool message read as Responses',
    format: 'responses',
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'calling' },
      { role: 'tool', tool_call_id: 'a', content: BIG },
    ],
    index: 2,
    path: 'role',
    says: /"tool".*function_call_output/,
  },
  {
    name: 'AI SDK tool result in a user message',
    format: 'aisdk',
    messages: [{ role: 'user', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'read', output: { type: 'text', value: BIG } }] }],
    index: 0,
    path: 'content[0].type',
    says: /belongs in a tool message/,
  },
  {
    name: 'a Responses message item with no role',
    format: 'responses',
    messages: [{ type: 'message', content: 'hi' }],
    index: 0,
    path: 'role',
    says: /expected "user", "assistant", "system" or "developer"/,
  },
]

test('a format given for messages of another format names the message and field, from every entry point', async () => {
  for (const c of cases) {
    const calls = [
      ['option edit', () => new ContextEditor({ format: c.format, trigger: { tokens: 1 }, keep: { messages: 0 } }).edit(c.messages)],
      ['context edit', () => new ContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 } }).edit(c.messages, { format: c.format })],
      ['context plan', () => new ContextEditor({}).plan(c.messages, { format: c.format })],
      ['context countTokens', () => new ContextEditor({}).countTokens(c.messages, { format: c.format })],
      ['editAsync', () => new ContextEditor({ format: c.format }).editAsync(c.messages)],
    ]
    for (const [where, call] of calls) {
      await assert.rejects(
        async () => call(),
        (e) => {
          assert.ok(e instanceof ContextEditorError, `${c.name} ${where}: ${e}`)
          assert.equal(e.code, 'INVALID_MESSAGE', `${c.name} ${where}`)
          assert.equal(e.messageIndex, c.index, `${c.name} ${where}`)
          assert.equal(e.path, c.path, `${c.name} ${where}`)
          assert.match(e.message, c.says, `${c.name} ${where}`)
          assert.match(e.message, new RegExp(`^messages\\[${c.index}\\]`), `${c.name} ${where}`)
          return true
        },
      )
    }
  }
})

test('the same messages without the wrong format are read as their own format and edited', () => {
  const r = new ContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 } }).edit(cases[0].messages)
  assert.equal(r.report.cleared.length, 1)
  assert.equal(r.messages[2].content[0].tool_use_id, 'a')
  assert.notEqual(r.messages[2].content[0].content, BIG)
})
