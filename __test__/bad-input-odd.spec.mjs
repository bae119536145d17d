// Odd input that is not an error: duplicate and reused tool call ids, orphaned results and dangling
// calls, a 100 MB string, lone surrogates, arguments nested 100,000 levels deep, `__proto__` keys
// in messages, absurd triggers, unknown models; each asserts the documented outcome. And a forced
// Rust panic is an INTERNAL error the process survives. (The error catalogue is bad-input.spec.mjs.)
//
// Memory: the largest case holds a 100 MB string (one-byte, ~100 MB in V8 plus a ~100 MB UTF-8
// copy on the Rust side); everything else is small.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from 'context-editor'
import { NativeContextEditor } from '../index.js'
import { TRIGGER_NOW, lcHistory, throws } from './support/bad-input.mjs'

// ---------------------------------------------------------------------------------------------
// odd but valid input: the documented outcome, no error

describe('odd input that is not an error', () => {
  test('duplicate tool call ids in one AI message: results pair in order, nothing is removed', () => {
    const history = [
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'dup', name: 'read', args: { p: 1 } },
          { id: 'dup', name: 'read', args: { p: 2 } },
        ],
      }),
      new ToolMessage({ content: 'one', tool_call_id: 'dup', name: 'read' }),
      new ToolMessage({ content: 'two', tool_call_id: 'dup', name: 'read' }),
    ]
    const { messages, report } = new ContextEditor({ ...TRIGGER_NOW, clearToolInputs: true }).edit(history)
    assert.equal(messages.length, 3)
    assert.deepEqual(report.removedOrphans, [])
    assert.deepEqual(
      report.cleared.map((c) => c.index),
      [1, 2],
    )
    assert.deepEqual(
      report.clearedToolInputs.map((c) => c.callIndex),
      [0, 1],
    )
    assert.equal(report.warnings.filter((w) => w.code === 'dangling_tool_call').length, 0)
    const plan = new NativeContextEditor(TRIGGER_NOW).plan([
      {
        role: 'assistant',
        toolCalls: [
          { id: 'dup', args: '{}' },
          { id: 'dup', args: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'dup', content: 'one' },
      { role: 'tool', toolCallId: 'dup', content: 'two' },
    ])
    assert.deepEqual(plan.report.removedOrphans, [])
  })

  test('an id reused by a later AI message: each result pairs with the nearest earlier call', () => {
    const history = [
      new AIMessage({ content: '', tool_calls: [{ id: 'x', name: 'a', args: {} }] }),
      new ToolMessage({ content: 'first', tool_call_id: 'x' }),
      new AIMessage({ content: '', tool_calls: [{ id: 'x', name: 'b', args: {} }] }),
      new ToolMessage({ content: 'second', tool_call_id: 'x' }),
    ]
    const { messages, report } = new ContextEditor(TRIGGER_NOW).edit(history)
    assert.equal(messages.length, 4)
    assert.deepEqual(
      report.cleared.map((c) => [c.index, c.toolName]),
      [
        [1, 'a'],
        [3, 'b'],
      ],
    )
  })

  test('an orphaned tool result is removed and reported; a dangling call is reported', () => {
    const history = [
      new ToolMessage({ content: 'orphan', tool_call_id: 'nobody' }),
      new HumanMessage('hi'),
      new AIMessage({ content: '', tool_calls: [{ id: 'later', name: 'read', args: {} }] }),
    ]
    const { messages, report } = new ContextEditor().edit(history)
    assert.equal(messages.length, 2)
    assert.deepEqual(report.removedOrphans, [{ index: 0, toolCallId: 'nobody' }])
    assert.deepEqual(
      report.warnings.map((w) => [w.code, w.index]),
      [
        ['orphaned_tool_result', 0],
        ['dangling_tool_call', 2],
      ],
    )
  })

  test('a 100 MB string is counted without copying it into the wire form (approx); "estimate" counts exactly', () => {
    const big = 'x'.repeat(100_000_000)
    const history = [new HumanMessage(big), new AIMessage('ok')]
    const approx = new ContextEditor().countTokens(history)
    assert.equal(approx.messages[0], 25_000_000)
    // "estimate" is an alias of "model" (the estimator was retired): the same exact count.
    const shorter = [new HumanMessage(big.slice(0, 1_000_000)), new AIMessage('ok')]
    const estimate = new ContextEditor({ tokenCountMethod: 'estimate' }).countTokens(shorter)
    assert.deepEqual(estimate.messages, new ContextEditor({ tokenCountMethod: 'model' }).countTokens(shorter).messages)
    const plan = new NativeContextEditor().plan([{ role: 'user', content: big }])
    assert.equal(plan.report.tokensBefore, 25_000_000)
    assert.equal(plan.report.triggered, true)
  })

  test('the addon replaces a lone surrogate by U+FFFD (the shim rejects it, see above)', () => {
    const plan = new NativeContextEditor().plan([{ role: 'user', content: 'abc\ud800' }])
    assert.equal(plan.report.tokensBefore, 1)
  })

  test('OpenAI arguments nested 100,000 levels deep are counted as text', () => {
    const args = '['.repeat(100_000) + ']'.repeat(100_000)
    const history = [
      { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: args } }] },
      { role: 'tool', tool_call_id: 'a', content: 'ok' },
    ]
    const { messages, report } = new ContextEditor({ ...TRIGGER_NOW, clearToolInputs: true }).edit(history)
    assert.ok(report.tokensBefore > 50_000)
    assert.equal(messages[0].tool_calls[0].function.arguments, '{}')
    assert.equal(history[0].tool_calls[0].function.arguments, args, 'input untouched')
  })

  test('__proto__ and constructor keys in messages are data: kept, never followed, Object.prototype untouched', () => {
    const tool = JSON.parse('{"role":"tool","tool_call_id":"a","content":"secret","__proto__":{"role":"user"},"constructor":"x"}')
    const history = [
      JSON.parse('{"role":"user","content":"hi","__proto__":{"tool_calls":[{"id":"evil"}]}}'),
      { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: '{}' } }] },
      tool,
    ]
    const { messages, report } = new ContextEditor(TRIGGER_NOW).edit(history)
    assert.equal(messages.length, 3)
    assert.equal(messages[0], history[0], 'unchanged message is the same object')
    assert.deepEqual(
      report.cleared.map((c) => c.index),
      [2],
    )
    assert.equal(messages[2].content, '[cleared]')
    assert.ok(Object.hasOwn(messages[2], '__proto__'), 'the own __proto__ key is copied as data')
    assert.equal(Object.getPrototypeOf(messages[2]), Object.prototype)
    assert.equal({}.role, undefined)
    assert.equal({}.tool_calls, undefined)
  })

  test('an absurdly high trigger is valid and never fires', () => {
    const { report } = new ContextEditor({ trigger: { tokens: 1e300 } }).edit(lcHistory())
    assert.equal(report.triggered, false)
  })

  test('unknown model names are a warning in model mode, not an error', () => {
    const r = new ContextEditor({ tokenCountMethod: 'model', model: '../../../../etc/passwd' }).countTokens(lcHistory())
    assert.deepEqual(
      r.warnings.map((w) => w.code),
      ['unknown_model'],
    )
    assert.equal(r.encoding, 'o200k_base')
  })

  test('the process survives every row above (and a forced panic is an INTERNAL error)', async () => {
    const { __panicForTests } = await import('../dist/internal.js')
    throws(() => __panicForTests(), { code: 'INTERNAL', culprit: /panicked/ }, '__panicForTests')
    assert.equal(typeof process.pid, 'number')
  })
})
