// Message shapes through `ContextEditor`: OpenAI chat, StoredMessage and LangChain instances come
// back in the shape they came in; and editing an edited history again changes nothing.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from '../dist/index.js'
import { buildMessages, conversationSpecs, toOpenAI, toStored } from './support/conversations.mjs'
import { CLEAR_NOW, lcHistory, openaiHistory } from './support/native.mjs'
import { Rng } from './support/prng.mjs'

describe('message shapes', () => {
  test('OpenAI chat shape in, same shape out: no response_metadata added, arguments stay JSON text', () => {
    const editor = new ContextEditor({ ...CLEAR_NOW, clearToolInputs: true })
    const input = openaiHistory()
    const { messages, report } = editor.edit(input)
    assert.deepStrictEqual(
      report.cleared.map((c) => c.index),
      [3, 4],
    )
    assert.deepStrictEqual(messages[3], { role: 'tool', tool_call_id: 'c1', content: '[cleared]' })
    assert.deepStrictEqual(messages[4], { role: 'tool', tool_call_id: 'c2', content: '[cleared]' })
    assert.deepStrictEqual(messages[2], {
      role: 'assistant',
      content: 'reading',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{}' } },
        { id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{}' } },
      ],
    })
    for (const m of messages) {
      assert.equal('response_metadata' in m, false)
      assert.equal(Object.getPrototypeOf(m), Object.prototype)
    }
  })

  test('OpenAI: a result already equal to the placeholder counts as cleared on a re-run', () => {
    const editor = new ContextEditor({ ...CLEAR_NOW, placeholder: '<gone>' })
    const first = editor.edit(openaiHistory())
    assert.equal(first.report.cleared.length, 2)
    const second = editor.edit(first.messages)
    assert.equal(second.report.triggered, true)
    assert.deepStrictEqual(second.report.cleared, [])
    assert.ok(second.messages.every((m, i) => m === first.messages[i]))
  })

  test('StoredMessage ({type, data}) in, StoredMessage out, with the annotation inside data', () => {
    const input = [
      { type: 'human', data: { content: 'go' } },
      { type: 'ai', data: { content: '', tool_calls: [{ id: 'c1', name: 'search', args: { q: 'x' } }], id: 'm1' } },
      { type: 'tool', data: { content: 'result '.repeat(20), tool_call_id: 'c1', name: 'search', artifact: [1], id: 'm2' } },
      { type: 'tool', data: { content: 'stray', tool_call_id: 'nobody' } },
      { type: 'ai', data: { content: '', tool_calls: [{ id: 'c2', name: 'search', args: { q: 'y' } }] } },
      { type: 'tool', data: { content: 'kept', tool_call_id: 'c2', name: 'search' } },
    ]
    const editor = new ContextEditor({ ...CLEAR_NOW, clearToolInputs: true })
    const { messages, report } = editor.edit(input)
    assert.deepStrictEqual(report.removedOrphans, [{ index: 3, toolCallId: 'nobody' }])
    assert.equal(messages.length, 5)
    assert.deepStrictEqual(messages[2], {
      type: 'tool',
      data: {
        content: '[cleared]',
        tool_call_id: 'c1',
        name: 'search',
        id: 'm2',
        response_metadata: { context_editing: { cleared: true, strategy: 'clear_tool_uses' } },
      },
    })
    assert.deepStrictEqual(messages[1], {
      type: 'ai',
      data: {
        content: '',
        tool_calls: [{ id: 'c1', name: 'search', args: {} }],
        id: 'm1',
        response_metadata: { context_editing: { cleared_tool_inputs: ['c1'] } },
      },
    })
    assert.equal(messages[4], input[5])
  })

  test('LangChain instances keep their class; dicts stay dicts', () => {
    const { messages } = new ContextEditor(CLEAR_NOW).edit(lcHistory())
    assert.ok(ToolMessage.isInstance(messages[3]))
    assert.equal(messages[3].constructor, ToolMessage)
    assert.equal(messages[3].content, '[cleared]')
    const dicts = [
      { type: 'ai', content: '', tool_calls: [{ id: 'a', name: 'f', args: {} }] },
      { type: 'tool', content: 'data', tool_call_id: 'a', extra: { keep: 'me' } },
      { type: 'ai', content: '', tool_calls: [{ id: 'b', name: 'f', args: {} }] },
      { type: 'tool', content: 'data', tool_call_id: 'b' },
    ]
    const out = new ContextEditor(CLEAR_NOW).edit(dicts).messages
    assert.deepStrictEqual(out[1], {
      type: 'tool',
      content: '[cleared]',
      tool_call_id: 'a',
      extra: { keep: 'me' },
      response_metadata: { context_editing: { cleared: true, strategy: 'clear_tool_uses' } },
    })
  })
})

describe('idempotence', () => {
  const shapes = { langchain: buildMessages, openai: toOpenAI, stored: toStored }
  for (const [shape, build] of Object.entries(shapes)) {
    test(`${shape}: editing the output again changes nothing more`, () => {
      const rng = new Rng(31337)
      let changedFirst = 0
      for (let n = 0; n < 120; n++) {
        const specs = conversationSpecs(rng)
        const options = {
          trigger: [{ tokens: rng.int(1, 200) }, { messages: rng.int(1, 30) }],
          keep: rng.pick([{ messages: rng.int(0, 4) }, { tokens: rng.int(0, 300) }, { fraction: 0.1 }]),
          clearToolInputs: rng.chance(0.5),
          excludeTools: rng.chance(0.3) ? ['search'] : [],
          placeholder: rng.pick(['[cleared]', '<x>']),
        }
        const editor = new ContextEditor(options)
        const ctx = { maxInputTokens: rng.int(100, 5000) }
        const first = editor.edit(build(specs), ctx)
        if (first.report.cleared.length || first.report.removedOrphans.length) changedFirst++
        const second = editor.edit(first.messages, ctx)
        assert.deepStrictEqual(second.report.cleared, [], `case ${n}`)
        assert.deepStrictEqual(second.report.removedOrphans, [])
        assert.deepStrictEqual(second.report.clearedToolInputs, [])
        assert.ok(
          second.messages.every((m, i) => m === first.messages[i]),
          `case ${n}: same objects`,
        )
        assert.equal(second.report.tokensBefore, first.report.tokensAfter)
      }
      assert.ok(changedFirst > 50, `first pass changed ${changedFirst} conversations`)
    })
  }
})
