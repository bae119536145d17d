// `applyPlan` takes plans from anywhere (a JSON file, a host's own planner, a plan changed by hand):
// it reads the plan once, checks it against the messages before applying anything, and names the
// first operation that is not one (`INVALID_PLAN`, `path` = `plan.ops[k].field`, `cause` = what a
// getter threw), instead of failing inside (`INTERNAL`, a bare TypeError), silently skipping it, or
// writing what it holds into a message. Nothing the caller passed is changed. The same for the
// options of `toWireMessages` and the arguments of `invalidate`.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError, applyPlan } from '../dist/index.js'
import { toWireMessages } from '../index.js'

function history() {
  return [
    new HumanMessage({ content: 'go', id: 'h' }),
    new AIMessage({ id: 'a', content: '', tool_calls: [{ id: 'c0', name: 'read', args: { path: 'a' } }] }),
    new ToolMessage({ id: 't', content: 'x'.repeat(300), tool_call_id: 'c0', name: 'read' }),
    new HumanMessage({ content: 'next', id: 'h2' }),
  ]
}

const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}
const boom = new Error('boom')
const throwing = (fields, key) =>
  Object.defineProperty({ ...fields }, key, {
    enumerable: true,
    get() {
      throw boom
    },
  })
const sparse = () => {
  const a = []
  a.length = 2 ** 32 - 1
  return a
}
const clear = { type: 'clear_tool_result', index: 2, placeholder: '[x]', strategy: 'clear_tool_uses' }

/** Plans that are not the planner's, the path each must be named by, and whether a getter's throw is the cause. */
const CASES = {
  'no plan': [null, 'plan'],
  'a string': ['ops', 'plan'],
  'a revoked Proxy': [revoked(), 'plan.ops', true],
  'ops missing': [{}, 'plan.ops'],
  'ops not a list': [{ ops: 5 }, 'plan.ops'],
  'ops behind a getter that throws': [throwing({}, 'ops'), 'plan.ops', true],
  'ops of length 2^32 - 1': [{ ops: sparse() }, 'plan.ops'],
  'an operation that is null': [{ ops: [null] }, 'plan.ops[0]'],
  'an operation that is a string': [{ ops: ['remove'] }, 'plan.ops[0]'],
  'an operation that is a revoked Proxy': [{ ops: [revoked()] }, 'plan.ops[0].type', true],
  'an unknown type': [{ ops: [{ type: 'explode', index: 1 }] }, 'plan.ops[0].type'],
  'a type behind a getter that throws': [{ ops: [throwing(clear, 'type')] }, 'plan.ops[0].type', true],
  'a negative index': [{ ops: [{ ...clear, index: -1 }] }, 'plan.ops[0].index'],
  'an index past the messages': [{ ops: [{ ...clear, index: 4 }] }, 'plan.ops[0].index'],
  'an index that is NaN': [{ ops: [{ ...clear, index: NaN }] }, 'plan.ops[0].index'],
  'an index that is a string': [{ ops: [{ ...clear, index: '2' }] }, 'plan.ops[0].index'],
  'a fractional index': [{ ops: [{ ...clear, index: 1.5 }] }, 'plan.ops[0].index'],
  'an index behind a getter that throws': [{ ops: [throwing(clear, 'index')] }, 'plan.ops[0].index', true],
  'a tool result cleared on a user message': [{ ops: [{ ...clear, index: 0 }] }, 'plan.ops[0]'],
  'a tool result truncated on an AI message': [{ ops: [{ type: 'truncate_tool_result', index: 1, keep: 3 }] }, 'plan.ops[0]'],
  'tool inputs cleared on a tool message': [{ ops: [{ type: 'clear_tool_inputs', index: 2, callIndices: [0] }] }, 'plan.ops[0]'],
  'a placeholder that is a number': [{ ops: [{ ...clear, placeholder: 5 }] }, 'plan.ops[0].placeholder'],
  'a placeholder that is an object': [{ ops: [{ ...clear, placeholder: { text: 'x' } }] }, 'plan.ops[0].placeholder'],
  'a placeholder with a lone surrogate': [{ ops: [{ ...clear, placeholder: '\ud800' }] }, 'plan.ops[0].placeholder'],
  'a strategy that is an object': [{ ops: [{ ...clear, strategy: {} }] }, 'plan.ops[0].strategy'],
  'a negative keep': [{ ops: [{ type: 'truncate_tool_result', index: 2, keep: -5 }] }, 'plan.ops[0].keep'],
  'a marker that is a number': [{ ops: [{ type: 'truncate_tool_result', index: 2, keep: 3, marker: 7 }] }, 'plan.ops[0].marker'],
  'call positions that are a string': [{ ops: [{ type: 'clear_tool_inputs', index: 1, callIndices: 'x' }] }, 'plan.ops[0].callIndices'],
  'a call position that is negative': [{ ops: [{ type: 'remove_tool_calls', index: 1, callIndices: [-1] }] }, 'plan.ops[0].callIndices[0]'],
  'call ids that are a number': [{ ops: [{ type: 'remove_tool_calls', index: 1, toolCallIds: 5 }] }, 'plan.ops[0].toolCallIds'],
  'call ids of length 2^32 - 1': [{ ops: [{ type: 'remove_tool_calls', index: 1, toolCallIds: sparse() }] }, 'plan.ops[0].toolCallIds'],
  'cleared inputs that are a string': [
    { ops: [{ type: 'clear_tool_inputs', index: 1, callIndices: [0], clearedToolInputs: 'c0' }] },
    'plan.ops[0].clearedToolInputs',
  ],
}

describe('a plan that is not the planner’s is INVALID_PLAN naming the operation’s field', () => {
  for (const [name, [plan, path, thrown]] of Object.entries(CASES)) {
    test(name, () => {
      const messages = history()
      const before = messages.map((m) => JSON.stringify(m))
      assert.throws(
        () => applyPlan(messages, plan, { summary: 'S' }),
        (e) => {
          assert.ok(e instanceof ContextEditorError, String(e))
          assert.equal(e.code, 'INVALID_PLAN', e.message)
          assert.equal(e.path, path, e.message)
          assert.ok(e.message.startsWith(`${path}:`), e.message)
          if (thrown) assert.ok(e.cause !== undefined && (e.cause === boom || e.cause instanceof TypeError), String(e.cause))
          return true
        },
      )
      assert.deepEqual(
        messages.map((m) => JSON.stringify(m)),
        before,
        'the messages are untouched',
      )
    })
  }
})

describe('what applyPlan takes', () => {
  test("a plan of the wrong type is described in the error, never printed (a function's source)", () => {
    function notAPlan() {
      return 'SOURCE-TEXT'
    }
    for (const [plan, got] of [
      [notAPlan, 'a function'],
      [7, 'number 7'],
      [Symbol('p'), 'symbol Symbol(p)'],
    ]) {
      assert.throws(
        () => applyPlan(history(), plan),
        (e) =>
          e instanceof ContextEditorError &&
          e.code === 'INVALID_PLAN' &&
          e.path === 'plan' &&
          e.message.endsWith(`got ${got}`) &&
          !e.message.includes('SOURCE'),
        got,
      )
    }
  })

  test('the plan is read once: getters run once each, and what they answer later changes nothing', () => {
    const reads = new Map()
    const counted = (o) =>
      new Proxy(o, {
        get(target, key, receiver) {
          reads.set(key, (reads.get(key) ?? 0) + 1)
          return Reflect.get(target, key, receiver)
        },
      })
    let calls = 0
    const op = counted({ type: 'clear_tool_result', index: 2, strategy: 'clear_tool_uses' })
    Object.defineProperty(op, 'placeholder', { get: () => (calls++ === 0 ? '[first]' : '[later]'), enumerable: true })
    const out = applyPlan(history(), counted({ ops: [op] }))
    assert.equal(out[2].content, '[first]')
    assert.equal(calls, 1)
    assert.equal(reads.get('ops'), 1)
    assert.equal(reads.get('index'), 1)
  })

  test('a summary request whose replaced message has no remove operation is INVALID_SUMMARY (nothing doubled)', () => {
    const summary = { replaced: [1, 2], insertAt: 1, summarized: [1, 2], prompt: 'p', prefix: 'Summary:', role: 'user', tokensReplaced: 9 }
    assert.throws(
      () => applyPlan(history(), { ops: [{ type: 'remove', index: 1 }], summary }, { summary: 'S' }),
      (e) => e.code === 'INVALID_SUMMARY' && e.path === 'plan.summary.replaced[1]',
    )
    const out = applyPlan(
      history(),
      {
        ops: [
          { type: 'remove', index: 1 },
          { type: 'remove', index: 2 },
        ],
        summary,
      },
      { summary: 'S' },
    )
    assert.deepEqual(
      out.map((m) => m.content),
      ['go', 'Summary:\n\nS', 'next'],
    )
  })

  test('options that are not an object, or a summary behind a getter that throws, are INVALID_SUMMARY', () => {
    const plan = { ops: [{ ...clear }] }
    assert.throws(
      () => applyPlan(history(), plan, 5),
      (e) => e.code === 'INVALID_SUMMARY' && e.path === 'options',
    )
    assert.throws(
      () => applyPlan(history(), plan, throwing({}, 'summary')),
      (e) => e.code === 'INVALID_SUMMARY' && e.path === 'summary' && e.cause === boom,
    )
    // What the editor keeps between calls is not applyPlan's to take: other option keys change nothing.
    assert.equal(applyPlan(history(), plan, { memo: 5, prefix: 5, memoBelow: 'x' })[2].content, '[x]')
  })

  test('a planner’s plan, after a JSON round trip and with its operations out of order, applies as planned', () => {
    const editor = new ContextEditor({ trigger: { tokens: 10 }, keep: { messages: 0 }, clearToolInputs: true })
    const h = history()
    const plan = JSON.parse(JSON.stringify(editor.plan(h)))
    const want = editor.edit(h).messages.map((m) => JSON.stringify(m))
    assert.deepEqual(
      applyPlan(h, plan).map((m) => JSON.stringify(m)),
      want,
    )
    assert.deepEqual(
      applyPlan(h, { ...plan, ops: plan.ops.slice().reverse() }).map((m) => JSON.stringify(m)),
      want,
    )
  })

  test('the caller’s array class is never called on, and non-objects the plan does not touch pass through', () => {
    class Tracked extends Array {
      static get [Symbol.species]() {
        throw new Error('species called')
      }
    }
    const messages = Tracked.from(history())
    assert.equal(applyPlan(messages, { ops: [] }).length, 4)
    assert.equal(applyPlan(messages, { ops: [{ ...clear }] })[2].content, '[x]')
  })
})

describe('toWireMessages reads its options once', () => {
  const CASES = {
    'options that are a number': [5, 'INVALID_OPTIONS', 'options'],
    'sendText that is a string': [{ sendText: 'yes' }, 'INVALID_OPTIONS', 'sendText'],
    'sendText behind a getter that throws': [throwing({}, 'sendText'), 'INVALID_OPTIONS', 'sendText', true],
    'placeholders that are a number': [{ placeholders: 5 }, 'INVALID_OPTIONS', 'placeholders'],
    'a cache that is no WeakMap': [{ cache: {} }, 'INVALID_OPTIONS', 'cache'],
    'a cache behind a getter that throws': [throwing({}, 'cache'), 'INVALID_OPTIONS', 'cache', true],
    'messageTokens that are a string': [{ messageTokens: 'x' }, 'INVALID_CONTEXT', 'messageTokens'],
    'messageTokens of length 2^32 - 1': [{ messageTokens: sparse() }, 'INVALID_CONTEXT', 'messageTokens'],
  }
  for (const [name, [options, code, path, thrown]] of Object.entries(CASES)) {
    test(`${name}: ${code} at ${path}`, () => {
      assert.throws(
        () => toWireMessages(history(), options),
        (e) => e instanceof ContextEditorError && e.code === code && e.path === path && (!thrown || e.cause === boom),
      )
    })
  }
  test('no options, null, or a revoked Proxy', () => {
    assert.equal(toWireMessages(history()).length, 4)
    assert.equal(toWireMessages(history(), null).length, 4)
    assert.throws(
      () => toWireMessages(history(), revoked()),
      (e) => e.code === 'INVALID_OPTIONS' && e.cause instanceof TypeError,
    )
  })
  test('placeholders as an array or a Set mark an OpenAI tool message already cleared', () => {
    const openai = [
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: '[gone]' },
    ]
    for (const placeholders of [['[gone]'], new Set(['[gone]'])]) assert.equal(toWireMessages(openai, { placeholders })[1].cleared, true)
  })
})

describe('invalidate and forget take anything without failing inside', () => {
  test('a revoked Proxy is INVALID_MESSAGE with the TypeError as cause; other non-messages are ignored', () => {
    const editor = new ContextEditor()
    for (const target of [{}, []]) {
      const { proxy, revoke } = Proxy.revocable(target, {})
      revoke()
      for (const call of [() => editor.invalidate(proxy), () => editor.forget(proxy)]) {
        assert.throws(call, (e) => e instanceof ContextEditorError && e.code === 'INVALID_MESSAGE' && e.cause instanceof TypeError)
      }
    }
    for (const value of [undefined, null, 5, 'x', Symbol('s'), () => 1, {}, [1, null, 'x']]) editor.invalidate(value)
  })
  test('an array with a non-message in the middle: the messages after it are invalidated too', () => {
    const editor = new ContextEditor({ trigger: { tokens: 10 }, keep: { messages: 0 }, clearToolInputs: true })
    const h = history()
    editor.edit(h)
    h[1].tool_calls[0].args.path = 'p'.repeat(400)
    editor.invalidate([h[0], 5, h[1]])
    assert.deepEqual(editor.countTokens(h), new ContextEditor({ trigger: { tokens: 10 }, keep: { messages: 0 }, clearToolInputs: true }).countTokens(h))
  })
})
