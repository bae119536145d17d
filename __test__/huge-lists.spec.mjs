// Huge or sparse lists are rejected before anything walks them. `a.length = 2 ** 32 - 1` costs
// nothing to make and, walked entry by entry, minutes of CPU and gigabytes of memory. Options
// lists hold at most 100,000 entries, a conversation 10,000,000 messages, a message 100,000
// content blocks or tool calls, a call context 100,000 tool definitions; each error names the
// list. A hole in a shorter list is an entry that is not what it should be, named by its index.
// The sync and async variants agree.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, applyPlan } from '../dist/index.js'
import { NativeContextEditor } from '../index.js'

/** A sparse array of length 2^32 - 1, its first entries set. */
function sparse(...first) {
  const a = [...first]
  a.length = 2 ** 32 - 1
  return a
}

function caught(fn) {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}

async function rejected(fn) {
  try {
    await fn()
  } catch (e) {
    return e
  }
  return undefined
}

/** The error as a caller sees it: code, path, index and message. */
const seen = (e) => ({ code: e?.code, path: e?.path, messageIndex: e?.messageIndex, message: e?.message })

describe('options', () => {
  for (const [name, options, path] of [
    ['excludeTools', () => ({ excludeTools: sparse('read') }), 'excludeTools'],
    ['a trigger list', () => ({ trigger: sparse({ tokens: 5 }) }), 'trigger'],
    ['edits', () => ({ edits: sparse({ type: 'clear_tool_uses' }) }), 'edits'],
    ['a list inside an edit', () => ({ edits: [{ type: 'clear_tool_uses', excludeTools: sparse() }] }), 'edits[0].excludeTools'],
    ['a dense list one entry too long', () => ({ excludeTools: new Array(100_001).fill('t') }), 'excludeTools'],
  ]) {
    test(`${name}: INVALID_OPTIONS at ${path}, shim and native`, () => {
      for (const Class of [ContextEditor, NativeContextEditor]) {
        const err = caught(() => new Class(options()))
        assert.equal(err?.code, 'INVALID_OPTIONS', `${Class.name}: ${err}`)
        assert.equal(err.path, path)
        assert.match(err.message, /at most 100,000 entries/)
      }
    })
  }

  test('a hole in an option list is named by its index', () => {
    for (const Class of [ContextEditor, NativeContextEditor]) {
      const err = caught(() => new Class({ excludeTools: ['a', , 'c'] })) // eslint-disable-line no-sparse-arrays
      assert.equal(err?.code, 'INVALID_OPTIONS')
      assert.equal(err.path, 'excludeTools[1]')
    }
  })
})

function history() {
  return [
    new HumanMessage('go'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c0', name: 'read', args: {} }] }),
    new ToolMessage({ content: 'x'.repeat(200), tool_call_id: 'c0', name: 'read' }),
    new HumanMessage('next'),
  ]
}

/** Every shim call on `messages`, sync and async, with the options and context given. */
function shimCalls(options = {}, context) {
  return [
    ['edit', (m) => new ContextEditor(options).edit(m, context)],
    ['editAsync', (m) => new ContextEditor(options).editAsync(m, context)],
    ['plan', (m) => new ContextEditor(options).plan(m, context)],
    ['planAsync', (m) => new ContextEditor(options).planAsync(m, context)],
    ['countTokens', (m) => new ContextEditor(options).countTokens(m, context)],
    ['countTokensAsync', (m) => new ContextEditor(options).countTokensAsync(m, context)],
  ]
}

/** Runs every call on `messages()` and checks they all fail alike, with `expected` (a subset). */
async function allReject(calls, messages, expected) {
  const errors = []
  for (const [where, call] of calls) {
    const err = await rejected(async () => call(messages()))
    assert.ok(err, `${where}: expected an error`)
    for (const [k, v] of Object.entries(expected)) {
      if (v instanceof RegExp) assert.match(String(err[k]), v, `${where}: ${k}`)
      else assert.equal(err[k], v, `${where}: ${k} (${err.message})`)
    }
    errors.push(seen(err))
  }
  for (const e of errors) assert.deepEqual(e, errors[0], 'every variant reports the same error')
}

describe('messages', () => {
  test('a sparse conversation of length 2^32 - 1: INVALID_MESSAGE at messages, sync and async alike', async () => {
    await allReject(shimCalls(), () => sparse(...history()), { code: 'INVALID_MESSAGE', path: 'messages', message: /at most 10,000,000 messages/ })
  })

  test('a sparse conversation short enough to take: the first hole is named, sync and async alike', async () => {
    const messages = () => {
      const h = history()
      h.length = 9_000_000
      return h
    }
    await allReject(shimCalls(), messages, { code: 'INVALID_MESSAGE', messageIndex: 4, message: /messages\[4\].*got undefined/ })
  })

  test('the previous call’s conversation, grown into a sparse one: the first hole is named', async () => {
    const editor = new ContextEditor({})
    const h = history()
    editor.edit(h)
    const grown = [...h]
    grown.length = 9_000_000
    assert.equal(caught(() => editor.edit(grown))?.messageIndex, 4)
    assert.equal((await rejected(() => editor.editAsync(grown)))?.messageIndex, 4)
  })

  for (const [name, message, path] of [
    ['content blocks', () => ({ type: 'human', content: sparse({ type: 'text', text: 'x' }) }), 'content'],
    ['tool calls', () => ({ type: 'ai', content: '', tool_calls: sparse({ id: 'c9', name: 'read', args: {} }) }), 'tool_calls'],
    [
      'cleared tool inputs in the marker',
      () => ({ type: 'ai', content: 'x', response_metadata: { context_editing: { cleared_tool_inputs: sparse('c0') } } }),
      'response_metadata.context_editing.cleared_tool_inputs',
    ],
  ]) {
    test(`a message with 2^32 - 1 ${name}: INVALID_MESSAGE naming the list, in every counting mode`, async () => {
      for (const options of [{}, { tokenCountMethod: 'model' }, { cacheBreakpoints: true }]) {
        await allReject(shimCalls(options), () => [...history(), message()], { code: 'INVALID_MESSAGE', messageIndex: 4, path })
      }
    })
  }

  test('a hole among tool calls is an invalid call, named by its index', () => {
    const h = history()
    h[1] = { type: 'ai', content: '', tool_calls: [{ id: 'c0', name: 'read', args: {} }, , { id: 'c1', name: 'read', args: {} }] } // eslint-disable-line no-sparse-arrays
    const err = caught(() => new ContextEditor({}).edit(h))
    assert.equal(err?.code, 'INVALID_MESSAGE')
    assert.equal(err.path, 'tool_calls[1]')
  })

  test('provider-raw calls in additional_kwargs, walked only when inputs are cleared', () => {
    const h = history()
    h[1] = { type: 'ai', content: '', tool_calls: [{ id: 'c0', name: 'read', args: { p: 1 } }], additional_kwargs: { tool_calls: sparse() } }
    const err = caught(() => new ContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 }, clearToolInputs: true }).edit(h))
    assert.equal(err?.code, 'INVALID_MESSAGE')
    assert.equal(err.messageIndex, 1)
    assert.equal(err.path, 'additional_kwargs.tool_calls')
  })

  test('applyPlan rejects a conversation over 10,000,000 messages', () => {
    const err = caught(() => applyPlan(sparse(), { ops: [] }))
    assert.equal(err?.code, 'INVALID_MESSAGE')
    assert.equal(err.path, 'messages')
  })
})

describe('call context', () => {
  for (const [name, context, path] of [
    ['tool definitions', () => ({ tools: sparse('{}') }), 'tools'],
    ['per-message token counts', () => ({ messageTokens: sparse(1) }), 'messageTokens'],
  ]) {
    test(`2^32 - 1 ${name}: INVALID_CONTEXT at ${path}, sync and async alike`, async () => {
      const calls = shimCalls({}, context())
      await allReject(calls, history, { code: 'INVALID_CONTEXT', path })
    })
  }

  test('breakpoints never walk a system message with 2^32 - 1 blocks', () => {
    const err = caught(() => new ContextEditor({ cacheBreakpoints: true }).edit(history(), { systemPrompt: { role: 'system', content: sparse() } }))
    assert.equal(err?.code, 'INVALID_CONTEXT')
    assert.equal(err.path, 'systemPrompt')
  })
})

describe('the native binding', () => {
  const native = new NativeContextEditor({})
  for (const [name, messages, expected] of [
    ['messages', () => sparse({ role: 'user', content: 'x' }), { path: 'messages', message: /at most 10,000,000 messages/ }],
    ['toolCalls', () => [{ role: 'assistant', toolCalls: sparse({ id: 'c0' }) }], { path: 'toolCalls', messageIndex: 0 }],
    ['clearedToolInputs', () => [{ role: 'assistant', clearedToolInputs: sparse('c0') }], { path: 'clearedToolInputs', messageIndex: 0 }],
  ]) {
    test(`2^32 - 1 ${name}: INVALID_MESSAGE, from every entry point`, async () => {
      for (const [where, call] of [
        ['plan', (m) => native.plan(m)],
        ['planAsync', (m) => native.planAsync(m)],
        ['countTokens', (m) => native.countTokens(m)],
        ['planSession', (m) => native.planSession(1, 0, m)],
        ['appendSession', (m) => native.appendSession(1, 0, m)],
      ]) {
        const err = await rejected(async () => call(messages()))
        assert.equal(err?.code, 'INVALID_MESSAGE', `${where}: ${err}`)
        for (const [k, v] of Object.entries(expected)) {
          if (v instanceof RegExp) assert.match(err[k], v, where)
          else assert.equal(err[k], v, where)
        }
      }
    })
  }

  test('2^32 - 1 tool definitions: INVALID_CONTEXT at tools', () => {
    const err = caught(() => native.countTokens([], { tools: sparse('{}') }))
    assert.equal(err?.code, 'INVALID_CONTEXT')
    assert.equal(err.path, 'tools')
  })
})

test('the exact-count oracle (`__referenceCountTokens`) refuses a huge or sparse list before converting it', async () => {
  const { __referenceCountTokens } = await import('../dist/internal.js')
  const texts = []
  texts.length = 2 ** 32 - 1
  assert.throws(
    () => __referenceCountTokens(texts, 'o200k_base'),
    (e) => e.code === 'INVALID_CONTEXT' && e.path === 'texts' && /at most 10,000,000 entries/.test(e.message),
  )
  assert.throws(
    () => __referenceCountTokens('hello', 'o200k_base'),
    (e) => e.code === 'INVALID_CONTEXT' && e.path === 'texts',
  )
  assert.deepEqual(__referenceCountTokens(['hello world'], 'o200k_base'), [2])
})
