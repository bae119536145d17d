// The per-editor memo of message conversions: repeated calls on the same objects give the same plan
// as a fresh editor, and a changed field of a message is seen.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'

const options = { trigger: { tokens: 300 }, keep: { messages: 1 } }

function history() {
  const h = [new HumanMessage('go')]
  for (let t = 0; t < 5; t++) {
    h.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
    h.push(new ToolMessage({ content: 'r'.repeat(400), tool_call_id: `c${t}`, name: 'read' }))
  }
  return h
}

test('a warm editor plans exactly like a fresh one', () => {
  const h = history()
  const warm = new ContextEditor(options)
  warm.plan(h)
  assert.deepEqual(warm.plan(h), new ContextEditor(options).plan(h))
})

test('reassigning content, metadata or the cleared marker is noticed', () => {
  const h = history()
  const editor = new ContextEditor(options)
  const before = editor.plan(h)
  // Shrink a result in place (a reassignment, as LangChain code does): fewer tokens now.
  h[2].content = 'short'
  const after = editor.plan(h)
  assert.ok(after.report.tokensBefore < before.report.tokensBefore)
  assert.deepEqual(after, new ContextEditor(options).plan(h))
  // Mark a result cleared in place: it is skipped, as on a fresh editor.
  h[4].response_metadata.context_editing = { cleared: true, strategy: 'clear_tool_uses' }
  assert.deepEqual(editor.plan(h), new ContextEditor(options).plan(h))
  h[6].response_metadata = { context_editing: { cleared: true } }
  assert.deepEqual(editor.plan(h), new ContextEditor(options).plan(h))
})
