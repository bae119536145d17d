// API shape of the addon and of `ContextEditor`: sync/async agreement, errors, purity, message
// shapes, idempotence, exact model-mode counts (cross-checked against js-tiktoken), warnings,
// report fields and the token cache.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { Tiktoken } from 'js-tiktoken/lite'
import cl100k from 'js-tiktoken/ranks/cl100k_base'
import o200k from 'js-tiktoken/ranks/o200k_base'

import { ContextEditor, ContextEditorError } from '../dist/index.js'
import { NativeContextEditor } from '../index.js'
import { __panicForTests } from '../dist/internal.js'
import { buildMessages, conversationSpecs, toOpenAI, toStored } from './support/conversations.mjs'
import { Rng } from './support/prng.mjs'
import { deepFreeze, snapshot } from './support/util.mjs'

const REFERENCE = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) }

/** A small agent conversation in LangChain instances. */
function lcHistory() {
  return [
    new SystemMessage('You are terse.'),
    new HumanMessage('read both files'),
    new AIMessage({
      content: 'reading',
      tool_calls: [
        { id: 'c1', name: 'read_file', args: { path: 'a.rs' } },
        { id: 'c2', name: 'read_file', args: { path: 'b.rs' } },
      ],
    }),
    new ToolMessage({ content: 'fn a() {}\n'.repeat(40), tool_call_id: 'c1', name: 'read_file' }),
    new ToolMessage({ content: 'fn b() {}\n'.repeat(40), tool_call_id: 'c2', name: 'read_file' }),
    new AIMessage({ content: '', tool_calls: [{ id: 'c3', name: 'search', args: { q: 'fn c' } }] }),
    new ToolMessage({ content: [{ type: 'text', text: 'no match '.repeat(30) }], tool_call_id: 'c3', name: 'search' }),
    new AIMessage('done'),
  ]
}

/** The same conversation in OpenAI chat-completions shape. */
function openaiHistory() {
  return [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'read both files' },
    {
      role: 'assistant',
      content: 'reading',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.rs"}' } },
        { id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.rs"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'fn a() {}\n'.repeat(40) },
    { role: 'tool', tool_call_id: 'c2', content: 'fn b() {}\n'.repeat(40) },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c3', type: 'function', function: { name: 'search', arguments: '{"q":"fn c"}' } }],
    },
    { role: 'tool', tool_call_id: 'c3', content: 'no match '.repeat(30) },
    { role: 'assistant', content: 'done' },
  ]
}

const CLEAR_NOW = { trigger: { messages: 1 }, keep: { messages: 1 } }

/** Asserts `fn` throws a `ContextEditorError` with `code`, and optional `path`/`messageIndex`/message regexp. */
function assertThrowsCode(fn, code, { path, messageIndex, message } = {}) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof ContextEditorError, `expected ContextEditorError, got ${e?.constructor?.name}: ${e?.message}`)
    assert.equal(e.code, code)
    if (path !== undefined) assert.equal(e.path, path)
    if (messageIndex !== undefined) assert.equal(e.messageIndex, messageIndex)
    if (message !== undefined) assert.match(e.message, message)
    return true
  })
}

describe('exports', () => {
  test('the package entry and the native loader expose the documented API', async () => {
    const pkg = await import('../dist/index.js')
    for (const name of ['ContextEditor', 'ContextEditorError', 'applyPlan']) {
      assert.equal(typeof pkg[name], 'function', name)
    }
    const native = await import('context-editor/native')
    for (const name of ['NativeContextEditor', 'toWireMessages', 'toWireContext']) {
      assert.equal(typeof native[name], 'function', name)
    }
    assert.equal(native.NativeContextEditor, NativeContextEditor, 'one native class, re-exported')
    const editor = new ContextEditor()
    for (const m of ['edit', 'editAsync', 'plan', 'planAsync', 'countTokens', 'countTokensAsync', 'clearCache']) {
      assert.equal(typeof editor[m], 'function', m)
    }
    assert.equal(typeof editor.cacheSize, 'number')
    assert.ok(Object.isFrozen(editor.options))
    const nativeEditor = new NativeContextEditor()
    for (const m of ['plan', 'planAsync', 'countTokens', 'countTokensAsync', 'clearCache']) {
      assert.equal(typeof nativeEditor[m], 'function', m)
    }
    const err = new ContextEditorError('INVALID_OPTIONS', 'x', { path: 'keep' })
    assert.ok(err instanceof Error)
    assert.equal(err.name, 'ContextEditorError')
  })

  test('edit returns a new array and a report even when nothing changes', () => {
    const input = lcHistory()
    const { messages, report } = new ContextEditor().edit(input)
    assert.notEqual(messages, input)
    assert.ok(messages.every((m, i) => m === input[i]))
    assert.equal(report.triggered, false)
    assert.deepStrictEqual(new ContextEditor().edit([]).messages, [])
  })
})

describe('sync and async variants', () => {
  test('edit/editAsync, plan/planAsync and countTokens/countTokensAsync give equal results', async () => {
    const rng = new Rng(99)
    for (const method of ['approx', 'model']) {
      const editor = new ContextEditor({ ...CLEAR_NOW, tokenCountMethod: method, clearToolInputs: true })
      for (let n = 0; n < 20; n++) {
        const msgs = buildMessages(conversationSpecs(rng))
        const ctx = { systemPrompt: 'be brief', tools: [{ name: 'search', parameters: {} }], maxInputTokens: 5000 }
        assert.deepStrictEqual(await editor.planAsync(msgs, ctx), editor.plan(msgs, ctx))
        assert.deepStrictEqual(await editor.countTokensAsync(msgs, ctx), editor.countTokens(msgs, ctx))
        const sync = editor.edit(msgs, ctx)
        const async = await editor.editAsync(msgs, ctx)
        assert.deepStrictEqual(async.report, sync.report)
        assert.deepStrictEqual(snapshot(async.messages), snapshot(sync.messages))
      }
    }
  })

  test('the native plan and planAsync (thread pool) agree on wire messages', async () => {
    const native = new NativeContextEditor({ trigger: { tokens: 5 }, keep: { messages: 1 } })
    const wire = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        toolCalls: [
          { id: 'a', name: 'f', args: '{"x":1}' },
          { id: 'b', name: 'f', args: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'a', content: 'x'.repeat(100) },
      { role: 'tool', toolCallId: 'b', contentLength: 100 },
    ]
    const sync = native.plan(wire)
    assert.deepStrictEqual(await native.planAsync(wire), sync)
    assert.deepStrictEqual(sync.ops, [{ type: 'clear_tool_result', index: 2, placeholder: '[cleared]', strategy: 'clear_tool_uses' }])
    assert.deepStrictEqual(await native.countTokensAsync(wire), native.countTokens(wire))
  })

  test('async errors reject with the same code as the sync call throws', async () => {
    const editor = new ContextEditor()
    await assert.rejects(editor.editAsync([{ role: 'tool', content: 'x' }]), { code: 'INVALID_MESSAGE', messageIndex: 0 })
    await assert.rejects(editor.countTokensAsync([42]), { code: 'INVALID_MESSAGE', messageIndex: 0 })
    await assert.rejects(editor.planAsync([], { maxInputTokens: 0 }), { code: 'INVALID_CONTEXT' })
  })
})

describe('errors', () => {
  test('INVALID_OPTIONS names the option path and what is allowed', () => {
    const bad = (options) => () => new ContextEditor(options)
    assertThrowsCode(bad({ keep: { messages: 3, tokens: 100 } }), 'INVALID_OPTIONS', {
      path: 'keep',
      message: /^keep: exactly one of messages, tokens, fraction/,
    })
    assertThrowsCode(bad({ trigger: [{ tokens: 10 }, { fraction: 1.5 }] }), 'INVALID_OPTIONS', {
      path: 'trigger[1].fraction',
      message: /trigger\[1\]\.fraction: .*\(0, 1\]/,
    })
    assertThrowsCode(bad({ triger: { tokens: 10 } }), 'INVALID_OPTIONS', { path: 'triger', message: /unknown option/ })
    assertThrowsCode(bad({ trigger: { tokens: 10, token: 3 } }), 'INVALID_OPTIONS', { path: 'trigger.token' })
    assertThrowsCode(bad({ keep: { messages: -1 } }), 'INVALID_OPTIONS', { path: 'keep.messages' })
    assertThrowsCode(bad({ trigger: {} }), 'INVALID_OPTIONS', { path: 'trigger' })
    assertThrowsCode(bad({ tokenCountMethod: 'exact' }), 'INVALID_OPTIONS', { path: 'tokenCountMethod' })
    assertThrowsCode(bad({ excludeTools: 'search' }), 'INVALID_OPTIONS', { path: 'excludeTools' })
  })

  test('UNKNOWN_ENCODING lists the embedded encodings', () => {
    assertThrowsCode(() => new ContextEditor({ encoding: 'p99k' }), 'UNKNOWN_ENCODING', {
      path: 'encoding',
      message: /o200k_base.*cl100k_base/,
    })
  })

  test('INVALID_MESSAGE names the message index and field', () => {
    const editor = new ContextEditor()
    const ok = { role: 'user', content: 'fine' }
    const cycle = {}
    cycle.self = cycle
    const cases = [
      ['not an object', [ok, 'hello'], 1, 'type', /expected a message object/],
      ['unknown role', [{ role: 'wizard', content: 'x' }], 0, 'role', /unknown role `wizard`/],
      ['unknown LangChain type', [ok, ok, { type: 'function', content: 'x' }], 2, 'type', /unsupported message type/],
      ['tool message without tool_call_id', [ok, { role: 'tool', content: 'x' }], 1, 'tool_call_id', /without `tool_call_id`/],
      ['tool_calls not an array', [{ role: 'assistant', content: '', tool_calls: { id: 'a' } }], 0, 'tool_calls', /expected an array/],
      [
        'args not JSON-serializable (cycle)',
        [ok, { type: 'ai', content: '', tool_calls: [{ id: 'a', name: 'f', args: cycle }] }],
        1,
        'tool_calls[0].args',
        /not JSON-serializable/,
      ],
      [
        'OpenAI arguments not JSON',
        [{ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }],
        0,
        'tool_calls[0].function.arguments',
        /not valid JSON/,
      ],
      ['content of a wrong type', [ok, { role: 'user', content: 42 }], 1, 'content', /expected a string or an array/],
      ['content block of a wrong type', [{ type: 'human', content: ['ok', 7] }], 0, 'content[1]', /content block/],
      ['lone surrogate in content', [ok, ok, { role: 'user', content: 'bad \ud800 text' }], 2, 'content', /lone UTF-16 surrogate/],
      ['lone surrogate in a text block', [{ type: 'human', content: [{ type: 'text', text: '\udc00' }] }], 0, 'content[0].text', /lone UTF-16 surrogate/],
      ['lone surrogate in tool_call_id', [{ role: 'tool', tool_call_id: 'a\ud83d', content: '' }], 0, 'tool_call_id', /surrogate/],
    ]
    for (const [what, msgs, index, path, message] of cases) {
      for (const call of [() => editor.edit(msgs), () => editor.plan(msgs), () => editor.countTokens(msgs)]) {
        try {
          assertThrowsCode(call, 'INVALID_MESSAGE', { messageIndex: index, path, message })
        } catch (e) {
          e.message = `${what}: ${e.message}`
          throw e
        }
      }
      assert.match(
        (() => {
          try {
            editor.edit(msgs)
          } catch (e) {
            return e.message
          }
        })(),
        new RegExp(`^messages\\[${index}\\]\\.${path.replace(/[[\].]/g, '\\$&')}: `),
        what,
      )
    }
    assertThrowsCode(() => editor.edit('not an array'), 'INVALID_MESSAGE', { message: /expected an array of messages/ })
  })

  test('the native binding reports wire-message errors with code and index too', () => {
    const native = new NativeContextEditor({})
    assert.throws(
      () =>
        native.plan([
          { role: 'user', content: 'x' },
          { role: 'tool', content: 'x' },
        ]),
      (e) => {
        assert.equal(e.code, 'INVALID_MESSAGE')
        assert.equal(e.messageIndex, 1)
        assert.match(e.message, /messages\[1\]/)
        return true
      },
    )
    assert.throws(() => new NativeContextEditor({ keep: { messages: 1, fraction: 0.1 } }), { code: 'INVALID_OPTIONS', path: 'keep' })
  })

  test('INVALID_CONTEXT names the context field', () => {
    const editor = new ContextEditor()
    const msgs = [{ role: 'user', content: 'x' }]
    assertThrowsCode(() => editor.edit(msgs, { maxInputTokens: 0 }), 'INVALID_CONTEXT', { path: 'maxInputTokens' })
    assertThrowsCode(() => editor.edit(msgs, { maxInputTokens: 1.5 }), 'INVALID_CONTEXT', { path: 'maxInputTokens' })
    assertThrowsCode(() => editor.edit(msgs, { maxInputTokens: '128k' }), 'INVALID_CONTEXT', { path: 'maxInputTokens' })
    assertThrowsCode(() => editor.edit(msgs, { systemPrompt: 42 }), 'INVALID_CONTEXT', { path: 'systemPrompt' })
    assertThrowsCode(() => editor.edit(msgs, { systemPrompt: 'x\ud800' }), 'INVALID_CONTEXT', { path: 'systemPrompt' })
    assertThrowsCode(() => editor.edit(msgs, { tools: {} }), 'INVALID_CONTEXT', { path: 'tools' })
    const cycle = {}
    cycle.self = cycle
    assertThrowsCode(() => editor.edit(msgs, { tools: [{}, cycle] }), 'INVALID_CONTEXT', { path: 'tools[1]' })
    assertThrowsCode(() => editor.edit(msgs, { model: 4 }), 'INVALID_CONTEXT', { path: 'model' })
  })

  test('a Rust panic becomes an INTERNAL error and the process survives', () => {
    process.env.RUST_BACKTRACE = '0' // keep the panic hook's stderr note short
    for (let i = 0; i < 3; i++) {
      assert.throws(
        () => __panicForTests(),
        (e) => {
          assert.ok(e instanceof Error)
          assert.equal(e.code, 'INTERNAL')
          assert.match(e.message, /panicked/)
          return true
        },
      )
    }
    // Still fully working afterwards.
    const { report } = new ContextEditor(CLEAR_NOW).edit(lcHistory())
    assert.equal(report.cleared.length, 2)
  })
})

describe('purity', () => {
  test('deep-frozen inputs work and are left exactly as they were', () => {
    for (const make of [lcHistory, openaiHistory]) {
      const input = deepFreeze(make())
      const before = snapshot(input)
      const editor = new ContextEditor({ ...CLEAR_NOW, clearToolInputs: true })
      const { messages, report } = editor.edit(input, { systemPrompt: 'x' })
      assert.equal(report.cleared.length, 2)
      assert.deepStrictEqual(snapshot(input), before)
      assert.notEqual(messages, input)
      // Unchanged messages are the very same objects; changed ones are new objects.
      assert.equal(messages[1], input[1])
      assert.equal(messages[7], input[7])
      assert.notEqual(messages[3], input[3])
    }
  })

  test('random conversations: the input deep-equals its snapshot after edit, editAsync and plan', async () => {
    const rng = new Rng(4242)
    const editor = new ContextEditor({ trigger: { tokens: 1 }, keep: { messages: 1 }, clearToolInputs: true })
    for (let n = 0; n < 40; n++) {
      const input = buildMessages(conversationSpecs(rng))
      const before = snapshot(input)
      editor.edit(input)
      await editor.editAsync(input)
      editor.plan(input)
      assert.deepStrictEqual(snapshot(input), before)
    }
  })
})

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

describe('model mode: exact offline counts', () => {
  // Pinned counts of the text alone, cross-checked against js-tiktoken's ranks so the pins are not
  // self-referential. A user message costs 3 framing tokens + 1 role token + its text.
  const PINS = [
    ['hello world', { o200k_base: 2, cl100k_base: 2 }],
    ['The quick brown fox jumps over the lazy dog.', { o200k_base: 10, cl100k_base: 10 }],
    ['你好，世界', { o200k_base: 3, cl100k_base: 6 }],
    ['naïve café 😀🚀', { o200k_base: 7, cl100k_base: 8 }],
    ['fn main() {\n    println!("{}", 1 + 2);\n}', { o200k_base: 14, cl100k_base: 14 }],
    ['<|endoftext|> is plain text here', { o200k_base: 11, cl100k_base: 11 }],
    ['lorem ipsum dolor sit amet '.repeat(20), { o200k_base: 102, cl100k_base: 102 }],
  ]

  for (const encoding of ['o200k_base', 'cl100k_base']) {
    test(`${encoding}: pinned counts equal js-tiktoken's and include the per-message overhead`, () => {
      const editor = new ContextEditor({ tokenCountMethod: 'model', encoding })
      for (const [text, pins] of PINS) {
        const reference = REFERENCE[encoding].encode(text, [], []).length
        assert.equal(reference, pins[encoding], `js-tiktoken ${encoding} ${JSON.stringify(text)}`)
        const r = editor.countTokens([{ role: 'user', content: text }])
        assert.equal(r.method, 'model')
        assert.equal(r.encoding, encoding)
        assert.equal(r.messages[0], 3 + 1 + pins[encoding], JSON.stringify(text))
        assert.equal(r.total, r.messages[0] + 3, 'reply priming')
      }
      // A whole conversation: sum of framed messages (+1 + name for a named one) + 3.
      const enc = REFERENCE[encoding]
      const n = (s) => enc.encode(s, [], []).length
      const msgs = [new SystemMessage('Be precise.'), new HumanMessage({ content: 'What is 2+2?', name: 'alice' }), new AIMessage('4')]
      const expected = 3 + n('system') + n('Be precise.') + (3 + n('user') + n('What is 2+2?') + 1 + n('alice')) + (3 + n('assistant') + n('4')) + 3
      assert.equal(editor.countTokens(msgs).total, expected)
    })
  }

  test('the model name picks the encoding; `encoding` wins over it', () => {
    const text = [{ role: 'user', content: '你好，世界' }]
    assert.equal(new ContextEditor({ tokenCountMethod: 'model', model: 'gpt-4o' }).countTokens(text).encoding, 'o200k_base')
    const gpt4 = new ContextEditor({ tokenCountMethod: 'model', model: 'gpt-4' }).countTokens(text)
    assert.equal(gpt4.encoding, 'cl100k_base')
    assert.equal(gpt4.messages[0], 4 + 6)
    const over = new ContextEditor({ tokenCountMethod: 'model', model: 'gpt-4', encoding: 'o200k_base' }).countTokens(text)
    assert.equal(over.encoding, 'o200k_base')
    // Per call, `context.model` chooses too.
    const perCall = new ContextEditor({ tokenCountMethod: 'model' }).countTokens(text, { model: 'gpt-3.5-turbo' })
    assert.equal(perCall.encoding, 'cl100k_base')
  })

  test('unknown model → o200k_base and an `unknown_model` warning', () => {
    // deepseek-chat and qwen-max are open-model families now (their tokenizer packages are
    // devDependencies): see tokenizer-families.spec.mjs. An unknown name still falls back.
    const editor = new ContextEditor({ tokenCountMethod: 'model', model: 'mystery-model-7b' })
    const { report } = editor.edit([{ role: 'user', content: 'hello world' }])
    assert.equal(report.encoding, 'o200k_base')
    assert.equal(report.tokensBefore, 3 + 1 + 2 + 3)
    const w = report.warnings.find((x) => x.code === 'unknown_model')
    assert.ok(w, JSON.stringify(report.warnings))
    assert.match(w.message, /mystery-model-7b/)
    const perCall = new ContextEditor({ tokenCountMethod: 'model' }).countTokens([], { model: 'acme-large' })
    assert.ok(perCall.warnings.some((x) => x.code === 'unknown_model'))
    assert.equal(perCall.encoding, 'o200k_base')
  })
})

describe('warnings and report fields', () => {
  test('a fraction option without a known limit warns `max_input_tokens_unknown` instead of guessing', () => {
    const editor = new ContextEditor({ trigger: { fraction: 0.5 } })
    const { report } = editor.edit(lcHistory())
    assert.equal(report.triggered, false)
    assert.equal(report.maxInputTokens, undefined)
    assert.ok(report.warnings.some((w) => w.code === 'max_input_tokens_unknown'))
    const keepFraction = new ContextEditor({ trigger: { messages: 1 }, keep: { fraction: 0.5 } })
    assert.ok(keepFraction.edit(lcHistory()).report.warnings.some((w) => w.code === 'max_input_tokens_unknown'))
    // With the limit given: no warning, and it fires.
    const known = editor.edit(lcHistory(), { maxInputTokens: 100 }).report
    assert.equal(known.maxInputTokens, 100)
    assert.equal(known.triggered, true)
    assert.ok(!known.warnings.some((w) => w.code === 'max_input_tokens_unknown'))
  })

  for (const [method, shape] of [
    ['approx', 'langchain'],
    ['model', 'langchain'],
    ['approx', 'openai'],
    ['model', 'openai'],
  ]) {
    test(`${method}, ${shape} shape: tokensBefore/After equal countTokens of input and output; appliedEdits add up`, () => {
      const rng = new Rng(method === 'approx' ? 5 : 6)
      const build = shape === 'openai' ? toOpenAI : buildMessages
      const editor = new ContextEditor({ trigger: { tokens: 30 }, keep: { messages: 1 }, clearToolInputs: true, tokenCountMethod: method })
      let triggered = 0
      for (let n = 0; n < 40; n++) {
        const input = build(conversationSpecs(rng))
        const ctx = { systemPrompt: 'You are an agent.', tools: [{ type: 'function', function: { name: 'search' } }] }
        const { messages, report } = editor.edit(input, ctx)
        assert.equal(report.tokensBefore, editor.countTokens(input, ctx).total)
        assert.equal(report.tokensAfter, editor.countTokens(messages, ctx).total)
        assert.equal(report.messagesBefore, input.length)
        assert.equal(report.messagesAfter, messages.length)
        assert.equal(report.tokenCountMethod, method)
        assert.equal(report.appliedEdits.length, 1)
        const [applied] = report.appliedEdits
        assert.equal(applied.type, 'clear_tool_uses')
        assert.equal(applied.triggered, report.triggered)
        assert.equal(applied.clearedToolUses, report.cleared.length)
        if (report.triggered) {
          triggered++
          // Tokens freed by clearing = the count after orphan removal minus the final count.
          const withoutOrphans = input.filter((_, i) => !report.removedOrphans.some((o) => o.index === i))
          assert.equal(applied.clearedInputTokens, editor.countTokens(withoutOrphans, ctx).total - report.tokensAfter)
        }
        for (const c of report.cleared) {
          assert.equal(
            messages.find((m) => m === input[c.index]),
            undefined,
            'a cleared message is a new object',
          )
          assert.equal(input[c.index].tool_call_id, c.toolCallId)
        }
      }
      assert.ok(triggered > 10)
    })
  }

  test('OpenAI arguments with escaped characters: freed tokens match a recount of the output', () => {
    // Inside JSON.stringify(tool_calls) OpenAI's `arguments` text is escaped ("\"" per quote); the
    // tokens freed by clearing it must be measured in that form.
    const args = JSON.stringify({ q: 'a "quoted" value with "many" \\ escapes' })
    const msgs = [
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'result' },
    ]
    const editor = new ContextEditor({ trigger: { messages: 1 }, keep: { messages: 0 }, clearToolInputs: true })
    const { messages, report } = editor.edit(msgs)
    assert.equal(messages[0].tool_calls[0].function.arguments, '{}')
    assert.equal(report.tokensAfter, editor.countTokens(messages).total)
    // LangChain's formula on the output: tool calls JSON + placeholder + tool_call_id.
    assert.equal(report.tokensAfter, Math.ceil((JSON.stringify(messages[0].tool_calls).length + '[cleared]c1'.length) / 4))
    assert.equal(report.appliedEdits[0].clearedInputTokens, report.tokensBefore - report.tokensAfter)
  })

  test('stillTriggered when non-tool text alone exceeds the trigger', () => {
    const editor = new ContextEditor({ trigger: { tokens: 100 }, keep: { messages: 0 } })
    const history = [
      new HumanMessage('please summarize this: ' + 'word '.repeat(200)), // ~250 tokens of non-tool text
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'search', args: {} }] }),
      new ToolMessage({ content: 'z'.repeat(400), tool_call_id: 'c1', name: 'search' }),
    ]
    const { report } = editor.edit(history)
    assert.equal(report.triggered, true)
    assert.equal(report.cleared.length, 1)
    assert.ok(report.tokensAfter >= 100)
    assert.equal(report.stillTriggered, true)
    assert.ok(report.warnings.some((w) => w.code === 'still_over_trigger'))
    // Clearing is enough when the text is small: not still triggered.
    const small = [new HumanMessage('hi'), ...history.slice(1)]
    const ok = editor.edit(small).report
    assert.equal(ok.triggered, true)
    assert.equal(ok.stillTriggered, false)
    assert.ok(!ok.warnings.some((w) => w.code === 'still_over_trigger'))
  })

  test('overMaxInputTokens when the result exceeds the model limit', () => {
    const { report } = new ContextEditor({ trigger: { tokens: 1e9 } }).edit([new HumanMessage('x'.repeat(400))], { maxInputTokens: 50 })
    assert.equal(report.overMaxInputTokens, true)
    assert.ok(report.warnings.some((w) => w.code === 'over_max_input_tokens'))
  })
})

describe('token cache', () => {
  const longTexts = (n, tag) => Array.from({ length: n }, (_, i) => `${tag} ${i} ` + 'some long tool output text '.repeat(4))

  test('cacheSize grows in model mode, stays 0 in approx mode, and a warm call gives identical results', () => {
    const model = new ContextEditor({ tokenCountMethod: 'model', trigger: { tokens: 50 }, keep: { messages: 2 } })
    const approx = new ContextEditor({ trigger: { tokens: 50 }, keep: { messages: 2 } })
    assert.equal(model.cacheSize, 0)
    const history = []
    for (const [i, t] of longTexts(10, 'a').entries()) {
      history.push(new AIMessage({ content: '', tool_calls: [{ id: `c${i}`, name: 'read', args: { i } }] }))
      history.push(new ToolMessage({ content: t, tool_call_id: `c${i}`, name: 'read' }))
    }
    const cold = model.edit(history)
    const afterCold = model.cacheSize
    assert.ok(afterCold >= 10, `cache holds the long strings (${afterCold})`)
    const warm = model.edit(history)
    assert.deepStrictEqual(warm.report, cold.report)
    assert.deepStrictEqual(snapshot(warm.messages), snapshot(cold.messages))
    assert.equal(model.cacheSize, afterCold, 'a warm call adds nothing')
    // A growing conversation only adds what is new.
    history.push(new HumanMessage(longTexts(1, 'new')[0]))
    model.edit(history)
    assert.equal(model.cacheSize, afterCold + 1)
    approx.edit(history)
    assert.equal(approx.cacheSize, 0)
    model.clearCache()
    assert.equal(model.cacheSize, 0)
    assert.deepStrictEqual(model.edit(history.slice(0, -1)).report, cold.report, 'same result after clearing the cache')
  })

  test('the cache is bounded by tokenCacheSize (eviction) and 0 disables it', () => {
    const small = new ContextEditor({ tokenCountMethod: 'model', tokenCacheSize: 8 })
    const uncached = new ContextEditor({ tokenCountMethod: 'model', tokenCacheSize: 0 })
    const texts = longTexts(100, 'b')
    let max = 0
    for (const t of texts) {
      const msgs = [{ role: 'user', content: t }]
      const a = small.countTokens(msgs)
      max = Math.max(max, small.cacheSize)
      assert.deepStrictEqual(a, uncached.countTokens(msgs))
    }
    assert.ok(max <= 8, `cache size ${max} exceeds the bound`)
    assert.ok(max >= 4)
    assert.equal(uncached.cacheSize, 0)
    // Counts stay right after evictions.
    const all = texts.map((t) => ({ role: 'user', content: t }))
    assert.deepStrictEqual(small.countTokens(all), uncached.countTokens(all))
    assert.ok(small.cacheSize <= 8)
  })
})
