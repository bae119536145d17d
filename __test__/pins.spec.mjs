// Pinned content through the library and through `createAgent`: a message with a `pinned: true`
// marker (additional_kwargs, response_metadata, metadata), the results of pinned tools, and the
// current run (everything after the last user message) are never cleared, truncated, trimmed or
// summarized; the summary replaces the others and the pinned messages stay in place; when the pins
// alone are over budget the report says so.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createAgent } from 'langchain'
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { summarizationMiddleware } from '../dist/langchain/index.js'

const call = (id, name, args = {}) => new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] })
const result = (id, name, content, extra = {}) => new ToolMessage({ tool_call_id: id, name, content, ...extra })

function history() {
  return [
    new HumanMessage({ content: 'Never deploy on Fridays.', additional_kwargs: { pinned: true } }),
    call('c1', 'search', { q: 'a' }),
    result('c1', 'search', 'a'.repeat(900)),
    new HumanMessage('next'),
    call('c2', 'memory'),
    result('c2', 'memory', 'The user is Ada.'),
    call('c3', 'search', { q: 'b' }),
    result('c3', 'search', 'b'.repeat(900), { response_metadata: { pinned: true } }),
    new HumanMessage('go on'),
    call('c4', 'search', { q: 'c' }),
    result('c4', 'search', 'c'.repeat(900)),
  ]
}

describe('pins in the library', () => {
  for (const edits of [
    [{ type: 'clear_tool_uses', trigger: { tokens: 1 }, keep: { messages: 0 } }],
    [{ type: 'truncate_tool_results', maxChars: 20 }],
    [{ type: 'last_n', n: 0 }],
    [{ type: 'trim_turns', maxTurns: 1 }],
    [{ type: 'strip_tool_calls' }],
  ]) {
    test(`${edits[0].type}: pinned messages and their pairs come out as they went in`, () => {
      const input = history()
      const editor = new ContextEditor({ edits, pin: { tools: ['memory'], currentRun: true } })
      const { messages } = editor.edit(input)
      // 0 (marker), 4-5 (memory), 6-7 (the marked result and its call), 9-10 (the current run).
      for (const i of [0, 4, 5, 6, 7, 9, 10]) assert.ok(messages.includes(input[i]), `${edits[0].type}: message ${i} kept as it was`)
      assert.ok(messages.length < input.length || messages.some((m, k) => m !== input[k]), 'the edit did something')
    })
  }

  test('the pins alone over the trigger: kept, and the report says so', () => {
    const input = [new HumanMessage({ content: 'x'.repeat(8000), additional_kwargs: { pinned: true } }), ...history().slice(1)]
    const { messages, report } = new ContextEditor({ trigger: { tokens: 1000 }, keep: { messages: 0 } }).edit(input)
    assert.equal(messages[0], input[0])
    assert.ok(
      report.warnings.some((w) => w.code === 'pins_over_budget'),
      JSON.stringify(report.warnings),
    )
  })

  test('pin.ids: the messages with these ids (LangChain and OpenAI) and their pairs stay', () => {
    const input = history()
    input[1] = new AIMessage({ content: '', id: 'keep-me', tool_calls: [{ id: 'c1', name: 'search', args: { q: 'a' }, type: 'tool_call' }] })
    const openai = { role: 'user', content: 'also this', id: 'and-me' }
    const editor = new ContextEditor({ pin: { ids: ['keep-me', 'and-me'] }, edits: [{ type: 'last_n', n: 1 }] })
    const { messages } = editor.edit([...input, openai])
    // The AI message and its result (c1), and the OpenAI-shaped message, stay as they were.
    for (const m of [input[1], input[2], openai]) assert.ok(messages.includes(m))
    assert.ok(!messages.includes(input[3]))
  })

  test('a pin rule of the wrong shape is INVALID_OPTIONS naming it', () => {
    assert.throws(
      () => new ContextEditor({ pin: { tools: 'memory' } }),
      (e) => e.code === 'INVALID_OPTIONS' && e.path === 'pin.tools',
    )
  })
})

describe('pins in createAgent with summarization', () => {
  test('a pinned instruction stays in the state, out of the summary prompt', async () => {
    const prompts = []
    class Model extends BaseChatModel {
      _llmType() {
        return 'scripted'
      }
      bindTools() {
        return this
      }
      async _generate(messages) {
        const text =
          messages.length === 1 && typeof messages[0].content === 'string' && messages[0].content.includes('Messages to summarize:') ? 'SUMMARY' : 'ok'
        if (text === 'SUMMARY') prompts.push(messages[0].content)
        return { generations: [{ text, message: new AIMessage(text) }] }
      }
    }
    const model = new Model({})
    const agent = createAgent({ model, tools: [], middleware: [summarizationMiddleware({ trigger: { messages: 6 }, keep: { messages: 2 } })] })
    const pinned = new HumanMessage({ content: 'Always answer in French.', id: 'rule', additional_kwargs: { pinned: true } })
    let messages = [pinned]
    for (let k = 0; k < 5; k++) {
      ;({ messages } = await agent.invoke({ messages: [...messages, new HumanMessage(`question ${k}`)] }))
    }
    assert.ok(prompts.length >= 1)
    for (const p of prompts) assert.doesNotMatch(p, /French/)
    assert.equal(messages.filter((m) => m.id === 'rule').length, 1)
    assert.equal(messages.find((m) => m.id === 'rule').content, 'Always answer in French.')
  })
})
