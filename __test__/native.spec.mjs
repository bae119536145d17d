// API shape of the addon and of `ContextEditor`: exports, sync/async agreement, errors (a Rust panic
// is an INTERNAL error) and purity. Message shapes and idempotence are in native-shapes.spec.mjs;
// exact model-mode counts (cross-checked against js-tiktoken), warnings, report fields and the
// token cache in native-counting.spec.mjs. Shared histories: support/native.mjs.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { ContextEditor, ContextEditorError } from '../dist/index.js'
import { NativeContextEditor } from '../index.js'
import { __panicForTests, __stringEncoder } from '../dist/internal.js'
import { buildMessages, conversationSpecs } from './support/conversations.mjs'
import { CLEAR_NOW, lcHistory, openaiHistory } from './support/native.mjs'
import { Rng } from './support/prng.mjs'
import { deepFreeze, snapshot } from './support/util.mjs'

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

describe('strings the binding reads', () => {
  // Node-API hands the addon a string as UTF-8 with each lone surrogate replaced by U+FFFD. The
  // WebAssembly build reads through emnapi, whose own UTF-8 pairs a lone surrogate with the next
  // code unit (`'a\ud800b'` would arrive as `'a\u{10062}'`): src/wasi.rs gives Node's text. The
  // summary request quotes each message's text as the binding read it.
  const long = 'x'.repeat(70_000)
  const texts = [
    ['ASCII', 'plain text'],
    ['empty', ''],
    ['a NUL', 'a\u0000b'],
    ['Latin-1 and CJK', 'café 中文 ー'],
    ['valid pairs (emoji, astral)', '😀 👨\u200d👩\u200d👧 \u{1d400}'],
    ['a lone high surrogate in the middle', 'a\ud800b'],
    ['a lone high surrogate at the end', 'ab\ud83d'],
    ['a lone low surrogate first', '\ude00ab'],
    ['a reversed pair', '\ude00\ud83d'],
    ['two high surrogates', '\ud83d\ud83d\ude00'],
    ['a lone surrogate beside a valid pair', '😀\ud800😀'],
    ['a long text, a lone surrogate at its end', `${long}\udfff`],
    ['a long text with a pair at its end', `${long}😀`],
    ['a long Chinese text, a lone surrogate mid-way', `${'中'.repeat(30_000)}\ud800${'文'.repeat(30_000)}`],
    // Around 1 MiB of UTF-8 (1,048,572 bytes fit), the most the WebAssembly build's encoder writes
    // at once; a longer string is read through emnapi.
    ...[-1, 0, 1].flatMap((d) => [
      [`${2 ** 20 - 4 + d} bytes of ASCII`, 'z'.repeat(2 ** 20 - 4 + d)],
      [`${2 ** 20 - 4 + d} bytes ending in a three-byte character`, `${'z'.repeat(2 ** 20 - 4 + d - 3)}文`],
      [`${2 ** 20 - 4 + d} bytes ending in a lone surrogate`, `${'z'.repeat(2 ** 20 - 4 + d - 3)}\udc00`],
    ]),
    // Around 64 KiB of UTF-8 (where an earlier WebAssembly build's first read through emnapi ended).
    ...[-6, -5, -4, -3, -2, -1, 0, 1].flatMap((d) => [
      [`${2 ** 16 + d} bytes of ASCII`, 'y'.repeat(2 ** 16 + d)],
      [`${2 ** 16 + d} bytes ending in a three-byte character`, `${'y'.repeat(2 ** 16 + d - 3)}中`],
      [`${2 ** 16 + d} bytes ending in an emoji`, `${'y'.repeat(2 ** 16 + d - 4)}😀`],
      [`${2 ** 16 + d} bytes ending in a lone surrogate`, `${'y'.repeat(2 ** 16 + d - 3)}\ud800`],
    ]),
  ]
  const summarizer = () =>
    new NativeContextEditor({
      edits: [{ type: 'summarize', trigger: { messages: 3 }, keep: { messages: 1 }, trimTokensToSummarize: 0, model: 'gpt-4o-mini', maxTokens: 400 }],
    })

  for (const [name, text] of texts) {
    test(`${name}: read as Node reads it, lone surrogates as U+FFFD`, () => {
      const plan = summarizer().plan([
        { role: 'user', content: text },
        { role: 'assistant', content: 'a1' },
        { role: 'user', content: 'q2' },
      ])
      const prompt = plan.summary.prompt
      const expected = `Human: ${text.toWellFormed()}\nAI: a1`
      assert.ok(prompt.includes(expected), `the prompt quotes ${JSON.stringify(text.slice(-12))} as ${JSON.stringify(text.toWellFormed().slice(-12))}`)
    })
  }

  test('many strings in one call, each read as Node reads it', () => {
    const messages = texts.flatMap(([, text]) => [
      { role: 'user', content: text },
      { role: 'assistant', content: `${text}!` },
    ])
    messages.push({ role: 'user', content: 'last' })
    const prompt = summarizer().plan(messages).summary.prompt
    for (const [name, text] of texts) assert.ok(prompt.includes(`Human: ${text.toWellFormed()}\nAI: ${text.toWellFormed()}!`), name)
  })
})

describe("the WebAssembly build's string encoder", () => {
  /** What the encoder writes for `text` into a buffer of `size` bytes: the count and the text. */
  const encoded = (text, size = 64) => {
    const buffer = new Uint8Array(size).fill(0xaa)
    __stringEncoder(buffer)(text)
    const count = buffer[0] | (buffer[1] << 8) | (buffer[2] << 16) | (buffer[3] << 24)
    return { count: count >>> 0, text: new TextDecoder().decode(buffer.subarray(4, 4 + Math.min(count >>> 0, size - 4))) }
  }

  test("writes Node's UTF-8 and its byte count, lone surrogates as U+FFFD", () => {
    for (const text of ['', 'plain', 'a\u0000b', 'café 中文', '😀 \u{1d400}', 'a\ud800b', 'ab\ud83d', '\ude00\ud83d', '😀\ud800😀']) {
      const out = encoded(text)
      assert.equal(out.text, text.toWellFormed(), JSON.stringify(text))
      assert.equal(out.count, Buffer.byteLength(text.toWellFormed()), JSON.stringify(text))
    }
  })

  test('a string that does not fit, or a value that is no string, is left to emnapi (0xFFFFFFFF)', () => {
    assert.equal(encoded('x'.repeat(60), 64).count, 60, 'exactly fits')
    assert.equal(encoded('x'.repeat(61), 64).count, 0xffffffff)
    assert.equal(encoded(`${'x'.repeat(58)}文`, 64).count, 0xffffffff, 'a character cut at the end')
    for (const value of [42, null, undefined, {}, ['a'], Symbol('s'), { toString: () => 'no' }]) {
      assert.equal(encoded(value).count, 0xffffffff, String(typeof value))
    }
  })

  test("one string after another, each read whole (the encoder's buffer is reused)", () => {
    const model = { tokenCountMethod: 'model', model: 'gpt-4o' }
    const editor = new NativeContextEditor(model)
    const texts = ['long '.repeat(2000), 'short', '中文'.repeat(500), 'a\ud800b', '', 'z'.repeat(3), 'long '.repeat(1999)]
    const alone = (t) => new NativeContextEditor(model).countTokens([{ role: 'user', content: t.toWellFormed() }]).messages[0]
    const expected = texts.map(alone)
    assert.deepEqual(
      texts.map((t) => editor.countTokens([{ role: 'user', content: t }]).messages[0]),
      expected,
    )
    assert.deepEqual(editor.countTokens(texts.map((t) => ({ role: 'user', content: t }))).messages, expected)
    assert.notEqual(expected[0], expected[6], 'the two long texts differ')
  })

  test('values that are no string fail as on the native build', () => {
    const editor = new NativeContextEditor({ tokenCountMethod: 'model', model: 'gpt-4o' })
    for (const [field, value] of [
      ['content', 42],
      ['content', true],
      ['name', 5],
    ]) {
      assert.throws(
        () => editor.countTokens([{ role: 'user', content: 'x', [field]: value }]),
        (e) => e.code === 'INVALID_MESSAGE' && e.message.startsWith(`messages[0].${field}: `) && e.message.includes('into rust type `String`'),
        `${field}: ${String(value)}`,
      )
    }
  })
})
