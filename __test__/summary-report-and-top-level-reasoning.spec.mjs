// What the report says after a summary is written or skipped, and DeepSeek-style
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

test('the documented CE Node pipeline (docs/library.md) is valid and trims, truncates and summarizes as it says', async () => {
  const { readFileSync } = await import('node:fs')
  const readme = readFileSync(new URL('../docs/library.md', import.meta.url), 'utf8')
  const block = readme.match(/CE Node's behaviour[\s\S]*?```json\n([\s\S]*?)```/)
  assert.ok(block, 'docs/library.md has the CE Node example')
  const options = JSON.parse(block[1])
  const h = [new SystemMessage('sys')]
  for (let t = 0; t < 10; t++) {
    h.push(new HumanMessage(`turn ${t}`))
    h.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'run', args: {} }] }))
    h.push(new ToolMessage({ content: 'y'.repeat(2000), tool_call_id: `c${t}`, name: 'run' }))
    h.push(new AIMessage(`done ${t}`))
  }
  let request
  const { messages, report } = await new ContextEditor(options).editAsync(h, {
    summarize: async (r) => {
      request = r
      return 'summary'
    },
  })
  const [truncate, trim, summarize] = report.appliedEdits
  assert.equal(truncate.truncatedToolResults, 10)
  assert.equal(trim.removedMessages, 8, 'two oldest of ten turns trimmed to eight')
  assert.ok(summarize.triggered)
  assert.equal(request.role, 'assistant')
  assert.equal(request.maxTokens, 400)
  // system, the summary (assistant, after the system message), then the last two turns verbatim
  assert.equal(messages[0], h[0])
  assert.equal(messages[1]._getType(), 'ai')
  assert.match(messages[1].content, /summary$/)
  assert.deepEqual(
    messages.slice(2).map((m) => m.content.slice?.(0, 6) ?? m.content),
    ['turn 8', '', messages[4].content.slice(0, 6), 'done 8', 'turn 9', '', messages[8].content.slice(0, 6), 'done 9'],
  )
  assert.ok(messages[4].content.length <= 600)
})
