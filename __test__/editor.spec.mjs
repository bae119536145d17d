// One test per rule of SEMANTICS §2 (clear_tool_uses, compat with LangChain's ClearToolUsesEdit),
// through the public JS API, on real @langchain/core messages.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from '../dist/index.js'
import { approxTokens } from './support/util.mjs'

/** Text of exactly `n` approx tokens once `suffix` (e.g. the tool_call_id) is appended. */
const sized = (n, suffix = '') => 'x'.repeat(4 * n - suffix.length)

/** An AI message calling `id` and its result of `n` own approx tokens. */
function turn(id, { name = 'search', n = 10, args = { q: id }, result = {} } = {}) {
  return [new AIMessage({ content: '', tool_calls: [{ id, name, args }] }), new ToolMessage({ content: sized(n, id), tool_call_id: id, name, ...result })]
}

const clearedIndices = (report) => report.cleared.map((c) => c.index)
const CLEARED_MD = { context_editing: { cleared: true, strategy: 'clear_tool_uses' } }

describe('SEMANTICS §2 defaults', () => {
  test('defaults: trigger {tokens: 100000}, keep {messages: 3}, placeholder "[cleared]", no input clearing', () => {
    const editor = new ContextEditor()
    const history = [new HumanMessage('go')]
    for (let k = 0; k < 5; k++) history.push(...turn(`c${k}`, { n: 10 }))
    assert.equal(editor.edit(history).report.triggered, false)
    // 99,999 tokens: not yet; 100,000: fires.
    const base = approxTokens(history)
    const pad = (t) => [new HumanMessage('y'.repeat(4 * (t - base))), ...history]
    assert.equal(editor.edit(pad(99_999)).report.triggered, false)
    const { messages, report } = editor.edit(pad(100_000))
    assert.equal(report.triggered, true)
    assert.deepEqual(clearedIndices(report), [3, 5]) // 5 results, the last 3 kept
    assert.equal(messages[3].content, '[cleared]')
    assert.deepEqual(messages[2].tool_calls[0].args, { q: 'c0' })
    assert.deepEqual(report.clearedToolInputs, [])
  })
})

describe('SEMANTICS §2 rules', () => {
  test('rule 1: orphans are removed before the trigger check, even when not triggered', () => {
    const history = [
      new HumanMessage('hi'),
      new ToolMessage({ content: 'stray '.repeat(100), tool_call_id: 'ghost' }), // no call anywhere
      ...turn('c1'),
      new ToolMessage({ content: 'early '.repeat(100), tool_call_id: 'c2' }), // its call comes later
      ...turn('c2'),
    ]
    const editor = new ContextEditor({ trigger: { tokens: 1e9 } })
    const { messages, report } = editor.edit(history)
    assert.equal(report.triggered, false)
    assert.deepEqual(report.removedOrphans, [
      { index: 1, toolCallId: 'ghost' },
      { index: 4, toolCallId: 'c2' },
    ])
    assert.deepEqual(
      report.warnings.filter((w) => w.code === 'orphaned_tool_result').map((w) => w.index),
      [1, 4],
    )
    assert.equal(messages.length, 5)
    assert.deepEqual(messages, [history[0], history[2], history[3], history[5], history[6]])
    assert.equal(messages[4].tool_call_id, 'c2', 'the result after its call stays')
  })

  test('rule 1: trigger counts are taken after orphan removal', () => {
    const history = [new HumanMessage('hi'), new ToolMessage({ content: 'stray '.repeat(100), tool_call_id: 'ghost' }), ...turn('c1'), ...turn('c2')]
    const withOrphan = new ContextEditor().countTokens(history).total
    // 6 messages and `withOrphan` tokens only while the orphan is there: neither fires.
    for (const trigger of [{ messages: 6 }, { tokens: withOrphan }]) {
      const { report } = new ContextEditor({ trigger, keep: { messages: 0 } }).edit(history)
      assert.equal(report.triggered, false, JSON.stringify(trigger))
      assert.equal(report.tokensBefore, withOrphan)
      assert.equal(report.removedOrphans.length, 1)
    }
    const { report } = new ContextEditor({ trigger: { messages: 5 }, keep: { messages: 0 } }).edit(history)
    assert.equal(report.triggered, true)
    assert.deepEqual(clearedIndices(report), [3, 5])
  })

  test('rule 2: the trigger is inclusive (>=) for tokens and messages', () => {
    const history = [new HumanMessage('question'), ...turn('c1'), ...turn('c2')]
    const tokens = approxTokens(history)
    const fires = (trigger) => new ContextEditor({ trigger }).edit(history).report.triggered
    assert.equal(fires({ tokens }), true)
    assert.equal(fires({ tokens: tokens + 1 }), false)
    assert.equal(fires({ messages: 5 }), true)
    assert.equal(fires({ messages: 6 }), false)
  })

  test('rule 2: keys inside one trigger object are ANDed; an array of objects is ORed', () => {
    const history = [new HumanMessage('question'), ...turn('c1'), ...turn('c2')]
    const tokens = approxTokens(history)
    const fires = (trigger) => new ContextEditor({ trigger }).edit(history).report.triggered
    assert.equal(fires({ tokens, messages: 5 }), true)
    assert.equal(fires({ tokens, messages: 6 }), false)
    assert.equal(fires({ tokens: tokens + 1, messages: 5 }), false)
    assert.equal(fires([{ tokens: tokens + 1 }, { messages: 5 }]), true)
    assert.equal(fires([{ tokens: tokens + 1 }, { messages: 6 }]), false)
    assert.equal(
      fires([
        { tokens: tokens + 1, messages: 1 },
        { tokens, messages: 6 },
        { tokens, messages: 5 },
      ]),
      true,
    )
  })

  test('rule 2: fraction uses floor(maxInputTokens * f); unknown limit or threshold <= 0 skips the condition', () => {
    const history = [new HumanMessage('question'), ...turn('c1'), ...turn('c2')]
    const tokens = approxTokens(history)
    const fires = (trigger, context) => new ContextEditor({ trigger }).edit(history, context).report.triggered
    // floor(max * 0.5) == tokens exactly: fires (inclusive); one token more needed: does not.
    assert.equal(fires({ fraction: 0.5 }, { maxInputTokens: 2 * tokens + 1 }), true) // floor(tokens + 0.5)
    assert.equal(fires({ fraction: 0.5 }, { maxInputTokens: 2 * tokens + 2 }), false) // tokens + 1
    // Unknown limit: the condition is skipped (not an error), even ANDed with a key that holds.
    assert.equal(fires({ fraction: 0.1 }), false)
    assert.equal(fires({ fraction: 0.1, messages: 1 }), false)
    assert.equal(fires([{ fraction: 0.1 }, { messages: 1 }]), true, 'other conditions of the array still count')
    // Threshold floor(3 * 0.1) = 0: skipped rather than "always on".
    assert.equal(fires({ fraction: 0.1 }, { maxInputTokens: 3 }), false)
    assert.equal(fires({ fraction: 1 }, { maxInputTokens: 3 }), true)
  })

  test('rule 3: candidates include already-cleared and excluded results; keep.messages keeps the last N of them', () => {
    const history = [
      new HumanMessage('go'),
      ...turn('c1'),
      ...turn('c2'),
      ...turn('c3', { result: { response_metadata: CLEARED_MD, content: '[cleared]' } }),
      ...turn('c4', { name: 'memory' }),
    ]
    const editor = new ContextEditor({ trigger: { messages: 1 }, keep: { messages: 2 }, excludeTools: ['memory'] })
    // The kept window is c3 (already cleared) and c4 (excluded): it does not slide to c2.
    const { report, messages } = editor.edit(history)
    assert.deepEqual(clearedIndices(report), [2, 4])
    assert.equal(messages[6], history[6])
    assert.equal(messages[8], history[8])
    // keep 0: everything outside the (empty) window is processed; the pre-cleared and excluded are skipped.
    const all = new ContextEditor({ trigger: { messages: 1 }, keep: { messages: 0 }, excludeTools: ['memory'] }).edit(history)
    assert.deepEqual(clearedIndices(all.report), [2, 4])
  })

  test('rule 3: keep.tokens walks newest→oldest, each result counted alone, and stops at the first that does not fit', () => {
    const history = [
      new HumanMessage('go'),
      ...turn('c1', { n: 5 }), // would fit the budget, but the walk already stopped
      ...turn('c2', { n: 30 }),
      ...turn('c3', { n: 12 }),
      ...turn('c4', { n: 8 }),
    ]
    const run = (tokens) => clearedIndices(new ContextEditor({ trigger: { messages: 1 }, keep: { tokens } }).edit(history).report)
    assert.deepEqual(run(20), [2, 4]) // 8 + 12 = 20 <= 20 (inclusive); +30 does not fit → stop
    assert.deepEqual(run(19), [2, 4, 6]) // 8 fits, 8 + 12 does not
    assert.deepEqual(run(7), [2, 4, 6, 8])
    assert.deepEqual(run(55), []) // everything fits
    assert.deepEqual(run(0), [2, 4, 6, 8])
  })

  test('rule 3: keep.tokens counts each result on its own, not charged with the system prompt (model mode too)', () => {
    const history = [new HumanMessage('go'), ...turn('c1', { n: 10 }), ...turn('c2', { n: 10 }), ...turn('c3', { n: 10 })]
    const systemPrompt = 'You are a careful agent. '.repeat(200)
    for (const tokenCountMethod of ['approx', 'model']) {
      const counter = new ContextEditor({ tokenCountMethod })
      const own = counter.countTokens(history).messages
      const budget = own[2] + own[4] + own[6]
      const editor = new ContextEditor({ tokenCountMethod, trigger: { messages: 1 }, keep: { tokens: budget } })
      const { report } = editor.edit(history, { systemPrompt })
      assert.equal(report.triggered, true)
      assert.deepEqual(clearedIndices(report), [], `${tokenCountMethod}: all 3 results fit their own budget`)
      const tight = new ContextEditor({ tokenCountMethod, trigger: { messages: 1 }, keep: { tokens: budget - 1 } })
      assert.deepEqual(clearedIndices(tight.edit(history, { systemPrompt }).report), [2])
    }
  })

  test('rule 3: keep.fraction budgets floor(maxInputTokens * f); an unknown limit (or a 0 budget) keeps 3', () => {
    const history = [new HumanMessage('go')]
    for (let k = 1; k <= 5; k++) history.push(...turn(`c${k}`, { n: 10 }))
    const run = (keep, context) => clearedIndices(new ContextEditor({ trigger: { messages: 1 }, keep }).edit(history, context).report)
    assert.deepEqual(run({ fraction: 0.2 }, { maxInputTokens: 100 }), [2, 4, 6]) // budget 20: two results
    assert.deepEqual(run({ fraction: 0.2 }, { maxInputTokens: 104 }), [2, 4, 6]) // floor(20.8) = 20
    assert.deepEqual(run({ fraction: 0.2 }, { maxInputTokens: 150 }), [2, 4]) // budget 30: three
    assert.deepEqual(run({ fraction: 0.2 }), [2, 4]) // unknown: keep 3
    assert.deepEqual(run({ fraction: 0 }, { maxInputTokens: 1000 }), [2, 4]) // budget 0: keep 3
    assert.deepEqual(run({ fraction: 0.1 }, { maxInputTokens: 5 }), [2, 4]) // floor(0.5) = 0: keep 3
  })

  test('rule 4: an already-cleared result is skipped (left as is, not reported)', () => {
    const history = [
      new HumanMessage('go'),
      ...turn('c1', { result: { content: 'old text stays', response_metadata: { context_editing: { cleared: true } } } }),
      ...turn('c2'),
    ]
    const { messages, report } = new ContextEditor({ trigger: { messages: 1 }, keep: { messages: 0 } }).edit(history)
    assert.deepEqual(clearedIndices(report), [4])
    assert.equal(messages[2], history[2])
    assert.equal(messages[2].content, 'old text stays')
  })

  test("rule 4: excluded tools are skipped; the tool message's own name wins over the call's name", () => {
    const editor = new ContextEditor({ trigger: { messages: 1 }, keep: { messages: 0 }, excludeTools: ['memory'] })
    const history = [
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'a', name: 'memory', args: {} },
          { id: 'b', name: 'search', args: {} },
          { id: 'c', name: 'memory', args: {} },
          { id: 'd', name: 'search', args: {} },
        ],
      }),
      new ToolMessage({ content: 'A', tool_call_id: 'a' }), // no name: the call's `memory` → excluded
      new ToolMessage({ content: 'B', tool_call_id: 'b', name: 'memory' }), // own name `memory` → excluded
      new ToolMessage({ content: 'C', tool_call_id: 'c', name: 'search' }), // own name `search` → cleared
      new ToolMessage({ content: 'D', tool_call_id: 'd', name: '' }), // empty name: the call's `search` → cleared
    ]
    const { messages, report } = editor.edit(history)
    assert.deepEqual(clearedIndices(report), [3, 4])
    assert.deepEqual(
      report.cleared.map((c) => c.toolName),
      ['search', 'search'],
    )
    assert.deepEqual(
      messages.map((m) => m.content),
      ['', 'A', 'B', '[cleared]', '[cleared]'],
    )
  })

  test('rule 4: clearing sets the placeholder, drops the artifact and annotates response_metadata, keeping other metadata', () => {
    const history = [
      ...turn('c1', {
        result: { artifact: { rows: [1, 2, 3] }, response_metadata: { source: 'db', latency_ms: 12 } },
      }),
      ...turn('c2'),
    ]
    const { messages, report } = new ContextEditor({
      trigger: { messages: 1 },
      keep: { messages: 1 },
      placeholder: '[result removed to save space]',
    }).edit(history)
    assert.deepEqual(clearedIndices(report), [1])
    const m = messages[1]
    assert.ok(ToolMessage.isInstance(m))
    assert.equal(m.content, '[result removed to save space]')
    assert.equal(m.artifact, undefined)
    assert.equal(m.tool_call_id, 'c1')
    assert.equal(m.name, 'search')
    assert.deepEqual(m.response_metadata, {
      source: 'db',
      latency_ms: 12,
      context_editing: { cleared: true, strategy: 'clear_tool_uses' },
    })
    assert.equal(report.cleared[0].toolCallId, 'c1')
    assert.equal(report.cleared[0].tokensFreed, approxTokens(history) - approxTokens(messages))
    assert.equal(messages[3], history[3])
  })

  test("rule 5: clearToolInputs empties only the cleared calls' args and records sorted, de-duplicated ids", () => {
    const history = [
      new HumanMessage('go'),
      new AIMessage({
        content: [{ type: 'text', text: 'calling three tools' }],
        tool_calls: [
          { id: 'b2', name: 'search', args: { q: 'two' } },
          { id: 'a1', name: 'search', args: { q: 'one' } },
          { id: 'c3', name: 'search', args: { q: 'three' } },
        ],
        response_metadata: { model_name: 'gpt-x', context_editing: { cleared_tool_inputs: ['zz', 'a1'] } },
        id: 'ai-1',
      }),
      new ToolMessage({ content: sized(10, 'b2'), tool_call_id: 'b2', name: 'search' }),
      new ToolMessage({ content: sized(10, 'a1'), tool_call_id: 'a1', name: 'search' }),
      new ToolMessage({ content: sized(10, 'c3'), tool_call_id: 'c3', name: 'search' }),
    ]
    const { messages, report } = new ContextEditor({ trigger: { messages: 1 }, keep: { messages: 1 }, clearToolInputs: true }).edit(history)
    assert.deepEqual(clearedIndices(report), [2, 3])
    const ai = messages[1]
    assert.ok(AIMessage.isInstance(ai))
    assert.deepEqual(
      ai.tool_calls.map((c) => [c.id, c.args]),
      [
        ['b2', {}],
        ['a1', {}],
        ['c3', { q: 'three' }],
      ],
    )
    assert.deepEqual(ai.response_metadata, { model_name: 'gpt-x', context_editing: { cleared_tool_inputs: ['a1', 'b2', 'zz'] } })
    assert.deepEqual(ai.content, [{ type: 'text', text: 'calling three tools' }])
    assert.equal(ai.id, 'ai-1')
    assert.deepEqual(report.clearedToolInputs, [
      { index: 1, callIndex: 0, toolCallId: 'b2' },
      { index: 1, callIndex: 1, toolCallId: 'a1' },
    ])
    // Without the option the calls are untouched.
    const plain = new ContextEditor({ trigger: { messages: 1 }, keep: { messages: 1 } }).edit(history)
    assert.equal(plain.messages[1], history[1])
  })

  test('rule 6: clearAtLeast only adds clearing, newest kept result first, until N tokens are freed', () => {
    const history = [new HumanMessage('go')]
    for (let k = 1; k <= 5; k++) history.push(...turn(`c${k}`, { n: 20 }))
    const run = (clearAtLeast) => new ContextEditor({ trigger: { messages: 1 }, keep: { messages: 3 }, clearAtLeast }).edit(history).report
    const base = run(0)
    assert.deepEqual(clearedIndices(base), [2, 4])
    const freedByTwo = base.appliedEdits[0].clearedInputTokens
    // Already enough: nothing more.
    assert.deepEqual(clearedIndices(run(freedByTwo)), [2, 4])
    // One token short: the newest kept result (c5) goes next, then c4.
    assert.deepEqual(clearedIndices(run(freedByTwo + 1)), [2, 4, 10])
    const three = run(freedByTwo + 1).appliedEdits[0].clearedInputTokens
    assert.deepEqual(clearedIndices(run(three + 1)), [2, 4, 10, 8])
    assert.deepEqual(clearedIndices(run(1e6)), [2, 4, 10, 8, 6])
    // As in LangChain: when every result is kept (keep >= results), clearAtLeast adds nothing.
    const allKept = new ContextEditor({ trigger: { messages: 1 }, keep: { messages: 5 }, clearAtLeast: 1e6 }).edit(history)
    assert.deepEqual(clearedIndices(allKept.report), [])
    // And it never clears without the trigger.
    const quiet = new ContextEditor({ trigger: { messages: 100 }, keep: { messages: 3 }, clearAtLeast: 1e6 }).edit(history)
    assert.deepEqual(clearedIndices(quiet.report), [])
  })

  test('rule 7: approx counting is ceil(total UTF-16 chars / 4) over text, tool_calls JSON and tool_call_id', () => {
    const calls = [{ id: 'call_é', name: 'search', args: { q: 'naïve 😀' } }]
    const history = [
      new SystemMessage('sys'),
      new HumanMessage({
        content: [
          { type: 'text', text: 'héllo ' },
          { type: 'text', text: '😀' },
        ],
      }), // 8 code units
      new AIMessage({ content: 'ok', tool_calls: calls }),
      new ToolMessage({ content: '日本語', tool_call_id: 'call_é' }),
    ]
    const chars = 'sys'.length + 'héllo 😀'.length + 'ok'.length + JSON.stringify(history[2].tool_calls).length + '日本語'.length + 'call_é'.length
    assert.equal('héllo 😀'.length, 8, 'the emoji is two UTF-16 code units')
    const r = new ContextEditor().countTokens(history)
    assert.equal(r.method, 'approx')
    assert.equal(r.total, Math.ceil(chars / 4))
    assert.equal(r.total, approxTokens(history))
    // Per message, each on its own; the total is the ceiling of the sum, not the sum of ceilings.
    assert.deepEqual(r.messages, [1, 2, Math.ceil((2 + JSON.stringify(history[2].tool_calls).length) / 4), 3])
    assert.ok(r.total <= r.messages.reduce((a, b) => a + b, 0))
  })
})
