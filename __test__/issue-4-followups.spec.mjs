// Follow-ups of issue 4: what the report says after a summary is written or skipped, and DeepSeek-style
// reasoning at the top level of OpenAI messages.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage, SystemMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'

function history() {
  const h = [new SystemMessage('You are terse.')]
  for (let t = 0; t < 6; t++) {
    h.push(new HumanMessage(`question ${t} `.repeat(20)))
    h.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
    h.push(new ToolMessage({ content: 'x'.repeat(800), tool_call_id: `c${t}`, name: 'read' }))
    h.push(new AIMessage(`answer ${t}`))
  }
  return h
}

const options = { edits: [{ type: 'summarize', trigger: { messages: 10 }, keep: { messages: 4 } }] }

test('after a written summary the report counts the messages and tokens actually returned', () => {
  const editor = new ContextEditor(options)
  const { messages, report } = editor.edit(history(), { summarize: () => 'the user asked six questions' })
  assert.equal(report.messagesAfter, messages.length)
  assert.equal(report.tokensAfter, editor.countTokens(messages).total)
  assert.equal(messages[1].additional_kwargs.lc_source, 'summarization')
})

test('after a skipped summary the report counts the kept messages and warns', () => {
  const editor = new ContextEditor(options)
  const input = history()
  const { messages, report } = editor.edit(input)
  assert.equal(messages.length, input.length)
  assert.equal(report.messagesAfter, input.length)
  assert.equal(report.tokensAfter, editor.countTokens(input).total)
  assert.ok(report.warnings.some((w) => w.code === 'summary_skipped'))
})

test('clear_thinking removes top-level reasoning_content of OpenAI messages (DeepSeek shape) and counts it', () => {
  const msgs = [
    { role: 'user', content: 'q1' },
    { role: 'assistant', content: 'a1', reasoning_content: 'long reasoning '.repeat(40) },
    { role: 'user', content: 'q2' },
    { role: 'assistant', content: 'a2', reasoning_content: 'newest reasoning' },
  ]
  const editor = new ContextEditor({ edits: [{ type: 'clear_thinking' }] })
  const before = editor.countTokens(msgs).total
  const { messages, report } = editor.edit(msgs)
  assert.equal('reasoning_content' in messages[1], false)
  assert.equal(messages[1].content, 'a1')
  assert.equal(messages[3].reasoning_content, 'newest reasoning')
  assert.ok('reasoning_content' in msgs[1], 'input untouched')
  assert.equal(report.appliedEdits[0].clearedThinkingTurns, 1)
  assert.equal(report.tokensBefore, before)
  assert.ok(report.tokensAfter < before - 100)
})
