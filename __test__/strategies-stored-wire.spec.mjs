// Edits on stored LangChain messages ({ type, data }) keep the stored shape, and the wire-level ops
// through NativeContextEditor (remove_thinking, truncate_tool_result, remove_tool_calls, remove and
// the summary request).

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { NativeContextEditor } from '../index.js'
import { assertSubset, pipeline, snapshot } from './support/strategies.mjs'

describe('stored messages ({ type, data })', () => {
  test('clear_thinking, truncate and strip keep the stored shape', () => {
    const history = [
      { type: 'human', data: { content: 'q', additional_kwargs: {}, response_metadata: {} } },
      {
        type: 'ai',
        data: {
          content: [
            { type: 'thinking', thinking: 'old', signature: 's' },
            { type: 'text', text: 'calling' },
          ],
          tool_calls: [{ id: 'c1', name: 'f', args: {} }],
          additional_kwargs: {},
          response_metadata: {},
        },
      },
      { type: 'tool', data: { content: 'z'.repeat(300), tool_call_id: 'c1', name: 'f', additional_kwargs: {}, response_metadata: { a: 1 } } },
      // A new user turn: reasoning is kept per assistant turn (a whole tool loop is one turn).
      { type: 'human', data: { content: 'and now?', additional_kwargs: {}, response_metadata: {} } },
      {
        type: 'ai',
        data: {
          content: [
            { type: 'thinking', thinking: 'new', signature: 't' },
            { type: 'text', text: 'done' },
          ],
          additional_kwargs: {},
          response_metadata: {},
        },
      },
    ]
    const before = snapshot(history)
    const thinned = pipeline({ type: 'clear_thinking' }, { type: 'truncate_tool_results', maxChars: 50 }).edit(history).messages
    assert.deepEqual(thinned[1].data.content, [{ type: 'text', text: 'calling' }])
    assert.equal(thinned[1].type, 'ai')
    assert.equal(thinned[2].data.content.length, 50)
    assert.deepEqual(thinned[2].data.response_metadata, { a: 1, context_editing: { truncated: true, strategy: 'truncate_tool_results' } })
    assert.equal(thinned[3], history[3])
    const stripped = pipeline({ type: 'strip_tool_calls' }).edit(history).messages
    assert.equal(stripped.length, 4)
    assert.deepEqual(stripped[1].data.tool_calls, [])
    assert.equal(stripped[1].type, 'ai')
    assert.deepEqual(snapshot(history), before)
  })
})

// ---------------------------------------------------------------------------------------------
// wire level

describe('NativeContextEditor ops', () => {
  test('remove_thinking, truncate_tool_result, remove_tool_calls, remove and the summary request', () => {
    const editor = new NativeContextEditor({
      edits: [{ type: 'clear_thinking' }, { type: 'truncate_tool_results', maxChars: 40 }, { type: 'strip_tool_calls' }],
    })
    const plan = editor.plan([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a', thinking: 'long reasoning', toolCalls: [{ id: 'c1', name: 'f', args: '{}' }] },
      { role: 'tool', toolCallId: 'c1', content: 'r'.repeat(100) },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'b', thinkingLength: 50 },
    ])
    assert.deepEqual(plan.ops, [
      { type: 'remove_thinking', index: 1 },
      { type: 'remove_tool_calls', index: 1, callIndices: [0], toolCallIds: ['c1'] },
      { type: 'remove', index: 2 },
    ])
    assert.equal(plan.summary ?? undefined, undefined)
    // Truncation alone, to see its op.
    const t = new NativeContextEditor({ edits: [{ type: 'truncate_tool_results', maxChars: 40 }] }).plan([
      { role: 'assistant', toolCalls: [{ id: 'c1', name: 'f', args: '{}' }] },
      { role: 'tool', toolCallId: 'c1', content: 'r'.repeat(100) },
    ])
    assert.deepEqual(t.ops, [{ type: 'truncate_tool_result', index: 1, keep: 12, marker: '\n[… 88 characters truncated]', strategy: 'truncate_tool_results' }])
    const s = new NativeContextEditor({
      edits: [{ type: 'summarize', trigger: { messages: 3 }, keep: { messages: 1 }, model: 'gpt-4o-mini', maxTokens: 400 }],
    }).plan([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
    ])
    assert.deepEqual(s.ops, [
      { type: 'remove', index: 1 },
      { type: 'remove', index: 2 },
    ])
    assertSubset(s.summary, {
      replaced: [1, 2],
      insertAt: 1,
      summarized: [1, 2],
      role: 'user',
      model: 'gpt-4o-mini',
      maxTokens: 400,
    })
    assert.ok(s.summary.prompt.includes('Human: q1\nAI: a1'))
  })
})
