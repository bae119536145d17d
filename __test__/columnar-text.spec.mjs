// Messages with text as columns. Where text crosses to the native side (exact counting, `model`
// and `estimate`), the WebAssembly build sends messages as columns too (ts/wire/columns.ts,
// `columnsCarry`), and reads the column of strings as UTF-8 (src/input/columns.rs, `joined`);
// natively too (`strings` as an array there: src/columns.rs, `Joined::List`); `setColumnarWire(false)`
// sends wire objects.
// On either build, both wires must give the same plans, reports, edited messages, counts and
// errors: seeded conversations in every shape and option set, texts of every script and size
// (past the WebAssembly encoder's 1 MiB buffer), broken messages, and columns whose lengths cut a
// character in two.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from '../dist/index.js'
import { setColumnarWire, setTextColumns, toColumns } from '../dist/wire.js'
import { NativeContextEditor, toWireContext } from '../index.js'
import { outcome } from './support/columnar-diff.mjs'
import { langchain, options, plain, words } from './support/columnar-conversations.mjs'
import { Rng } from './support/prng.mjs'
import { ON_WASM } from './support/binding.mjs'

/** The counting methods that send text, with their tokenizers. */
const TEXT_MODES = [
  { tokenCountMethod: 'model', model: 'gpt-4o' },
  { tokenCountMethod: 'model', encoding: 'cl100k_base' },
  { tokenCountMethod: 'estimate' },
  { tokenCountMethod: 'model', tokenizer: 'qwen3' },
]

/** Everything an editor does with `messages`: plans, edits and counts, first and next calls, sync and async. */
async function run(opts, messages, context) {
  const out = []
  let editor
  out.push(await outcome(() => (editor = new ContextEditor(opts))))
  if (editor === undefined) return out
  out.push(await outcome(() => editor.plan(messages.slice(0, Math.ceil(messages.length / 2)), context)))
  out.push(await outcome(() => editor.edit(messages, context)))
  out.push(await outcome(() => editor.edit([...messages, new HumanMessage('next')], context)))
  out.push(await outcome(() => editor.planAsync(messages, context)))
  out.push(await outcome(() => new ContextEditor(opts).editAsync(messages, context)))
  out.push(await outcome(() => editor.edit(messages, { ...context, messageTokens: messages.map((_, i) => (i % 3 ? null : i * 7)) })))
  out.push(await outcome(() => new ContextEditor(opts).countTokens(messages, context)))
  out.push(await outcome(() => new ContextEditor(opts).countTokensAsync(messages, context)))
  return out
}

/** `run` with wire objects, then with text columns: the same results. Returns the columns' run. */
async function same(opts, messages, context, where) {
  const columnar = setColumnarWire(false)
  let objects
  try {
    objects = await run(opts, messages, context)
  } finally {
    setColumnarWire(columnar)
  }
  const text = setTextColumns(true)
  try {
    const columns = await run(opts, messages, context)
    assert.deepEqual(columns, objects, where)
    return columns
  } finally {
    setTextColumns(text)
  }
}

/** Texts that are hard to cut out of a joined string by UTF-16 lengths. */
const ODD_TEXTS = ['', '\u0000', 'a\u0000b', '😀', '😀😀x', 'x😀', '\u{10ffff}', 'é', '日本語', '\uffff', '\ud83d\ude00'.repeat(3), 'ascii only']

/** A conversation of tool calls whose ids, names, arguments and results come from `texts`. */
function oddTextConversation(r, texts, n) {
  const out = [new SystemMessage(r.pick(texts))]
  while (out.length < n) {
    const id = `c${out.length}${r.pick(texts)}`
    out.push(new HumanMessage(r.pick(texts)))
    out.push(new AIMessage({ content: r.pick(texts), tool_calls: [{ id, name: `t${r.pick(texts)}`, args: { q: r.pick(texts) } }] }))
    out.push(new ToolMessage({ content: r.pick(texts) + r.pick(texts), tool_call_id: id, name: `t${r.pick(texts)}` }))
  }
  return out
}

describe('messages with text cross as columns as they do as wire objects', () => {
  test('seeded conversations in every shape, every option set, every text mode', async () => {
    let triggered = 0
    for (let seed = 1; seed <= 32; seed++) {
      const r = new Rng(seed)
      const messages = seed % 2 ? langchain(r, r.int(1, 40)) : plain(r, r.int(1, 40))
      const opts = { ...options(r), ...TEXT_MODES[seed % TEXT_MODES.length] }
      const context = { maxInputTokens: r.int(50, 5000), systemPrompt: words(r, 3), tools: [{ name: 'search', description: 'd', parameters: {} }] }
      const results = await same(opts, messages, context, `seed ${seed}`)
      triggered += results.filter((x) => x.value?.report?.triggered).length
    }
    assert.ok(triggered > 30, `triggered ${triggered}`)
  })

  test('texts of every script, empty, with NUL and astral characters, at the edges of each string', async () => {
    for (let seed = 100; seed < 108; seed++) {
      const r = new Rng(seed)
      const messages = oddTextConversation(r, ODD_TEXTS, 40)
      const opts = { trigger: { tokens: r.int(1, 60) }, keep: { messages: 1 }, clearToolInputs: r.chance(0.5), ...TEXT_MODES[seed % TEXT_MODES.length] }
      const results = await same(opts, messages, { systemPrompt: r.pick(ODD_TEXTS) }, `seed ${seed}`)
      assert.ok(results[2].value.report.triggered, `seed ${seed}: the edit cleared results`)
    }
  })

  test('texts longer than the WebAssembly encoder’s 1 MiB buffer, alone and joined', async () => {
    const r = new Rng(7)
    // About 1.6 MB of UTF-8 each, ending on a character of every width.
    const long = ['a', 'é', '日', '😀'].map((end) => `${'日本語のテキスト😀 mixed ascii; '.repeat(40_000)}${end}`)
    const messages = oddTextConversation(r, [...long, ...ODD_TEXTS], 12)
    for (const mode of TEXT_MODES.slice(0, 2)) {
      const results = await same({ trigger: { tokens: 1000 }, keep: { messages: 1 }, ...mode }, messages, {}, JSON.stringify(mode))
      assert.ok(results[7].value.total > 1_000_000, 'the long texts were counted')
    }
  })

  test('broken messages fail alike, at the same index and field', async () => {
    const broken = [
      () => new HumanMessage('a\ud800b'),
      () => new ToolMessage({ content: 'x\udfff', tool_call_id: 'c' }),
      () => new AIMessage({ content: '', tool_calls: [{ id: 'c\udfff', name: 'x', args: {} }] }),
      () => new AIMessage({ content: 'ok', tool_calls: [{ id: 'c', name: 'x\ud800', args: {} }] }),
      () => ({ role: 'tool', content: 'x' }),
      () => 42,
    ]
    for (const [k, make] of broken.entries()) {
      const messages = [new HumanMessage('go'), new AIMessage({ content: '', tool_calls: [{ id: 'c', name: 'x', args: {} }] }), make()]
      const results = await same({ trigger: { tokens: 1 }, keep: { messages: 0 }, tokenCountMethod: 'model' }, messages, {}, `case ${k}`)
      assert.ok(
        // (The first two: the editor, and a plan of the first half.)
        results.slice(2).every((x) => x.error?.code === 'INVALID_MESSAGE' && x.error.messageIndex === 2),
        `case ${k}: every call on the whole history names message 2`,
      )
    }
  })
})

/** A joined string cut into its strings by their UTF-16 lengths. */
function cut(joined, lengths) {
  const out = []
  let at = 0
  for (const n of lengths) out.push(joined.slice(at, (at += n)))
  return out
}

describe('the native side: text columns', () => {
  const native = new NativeContextEditor({ tokenCountMethod: 'model', model: 'gpt-4o' })
  const ctx = toWireContext({ model: 'gpt-4o' })

  test('lengths that cut a surrogate pair in two are INVALID_MESSAGE naming the columns, never a crash', () => {
    // `a😀` then `b`: the emoji's two code units, cut after the first.
    const [columns] = toColumns([new ToolMessage({ content: 'b', tool_call_id: 'a😀' })], 0, 1, { sendText: true }, [])
    // Natively the shim sends them one by one; joined, as the WebAssembly build's shim sends them:
    assert.equal(Array.isArray(columns.strings) ? columns.strings.join('') : columns.strings, 'a😀b')
    assert.deepEqual([...columns.lengths], [3, 1])
    for (const [lengths, strings, why] of [
      [[2, 2], 'a😀b', /string 0 is not valid UTF-16 \(a lone surrogate\)/],
      [[1, 3], '😀😀', /string 0 is not valid UTF-16/],
      [[3, 1], 'a😀\ud800', /string 1 is not valid UTF-16/],
      [[3, 2], 'a😀b', /lengths add up to more than strings holds/],
      // One by one: a string's length is its own (no cut), checked against `lengths`.
      [[2, 2], ['a😀', 'b'], /string 0 is 3 UTF-16 code units long, lengths says 2/],
      [[3, 1], ['a😀'], /lengths add up to more than strings holds/],
    ]) {
      const cut = { ...columns, lengths: new Uint32Array(lengths), strings }
      for (const call of [() => native.planColumns(cut, ctx), () => native.countTokensColumns(cut, ctx), () => native.planSessionColumns(9, 0, cut, ctx)]) {
        assert.throws(call, (e) => e.code === 'INVALID_MESSAGE' && e.path === 'messages' && why.test(e.message), `${lengths} of ${JSON.stringify(strings)}`)
      }
    }
  })

  test('text columns give the counts of wire objects, string by string', () => {
    const texts = [...ODD_TEXTS, 'x'.repeat(70_000), `${'😀'.repeat(300_000)}é`]
    const messages = texts.map((t, k) => new ToolMessage({ content: t, tool_call_id: `id${k}`, name: `n${k}` }))
    messages.unshift(new AIMessage({ content: '', tool_calls: messages.map((m) => ({ id: m.tool_call_id, name: 'n', args: {} })) }))
    const [columns] = toColumns(messages, 0, messages.length, { sendText: true }, [])
    const viaColumns = native.countTokensColumns(columns, ctx)
    const viaObjects = new ContextEditor({ tokenCountMethod: 'model', model: 'gpt-4o' })
    const columnar = setColumnarWire(false)
    try {
      assert.deepEqual(viaColumns.messages, viaObjects.countTokens(messages, { model: 'gpt-4o' }).messages)
    } finally {
      setColumnarWire(columnar)
    }
    assert.ok(viaColumns.messages.at(-1) >= 300_000, 'the last text was counted whole')
  })

  test('natively the strings of columns that carry text are listed, in every mode; ids and names alone are joined, as on WebAssembly', () => {
    const messages = [
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read', args: { p: 'a' } }] }),
      new ToolMessage({ content: 'the file', tool_call_id: 'c1', name: 'read' }),
    ]
    const shape = (opts) => typeof toColumns(messages, 0, 2, opts, [])[0].strings
    assert.equal(shape({ sendText: true }), ON_WASM ? 'string' : 'object')
    // Approx mode with an edit that reads the tool results' text (truncation, `prefer`).
    assert.equal(shape({ sendText: false, sendToolText: true }), ON_WASM ? 'string' : 'object')
    assert.equal(shape({ sendText: false }), 'string')
  })

  test('strings one by one or joined: the same plans and counts; a length that is not its string’s is refused, never a crash', () => {
    const plans = new NativeContextEditor({ tokenCountMethod: 'model', model: 'gpt-4o', trigger: { tokens: 40 }, keep: { messages: 1 }, clearToolInputs: true })
    const call = (columns) => [
      () => plans.planColumns(columns, ctx),
      () => plans.countTokensColumns(columns, ctx),
      () => plans.planSessionColumns(7, 0, columns, ctx),
    ]
    const result = (f) => {
      try {
        const v = f()
        return { value: typeof v === 'string' ? v : JSON.stringify(v) }
      } catch (e) {
        return { code: e.code, path: e.path, message: e.message }
      }
    }
    let refused = 0
    for (let seed = 200; seed < 240; seed++) {
      const r = new Rng(seed)
      const messages = oddTextConversation(r, ODD_TEXTS, r.int(2, 24))
      const [columns] = toColumns(messages, 0, messages.length, { sendText: true }, [])
      // Natively the shim lists them; the WebAssembly build's shim joins them (cut here by `lengths`).
      const list = Array.isArray(columns.strings) ? columns.strings : cut(columns.strings, columns.lengths)
      const joined = { ...columns, strings: list.join('') }
      const listed = { ...columns, strings: [...list] }
      const forms = [call(listed), call(joined)]
      for (let k = 0; k < forms[0].length; k++) assert.deepEqual(result(forms[0][k]), result(forms[1][k]), `seed ${seed}, call ${k}`)
      // One length off by one, or two swapped: refused exactly when a string's length is not its own.
      const lengths = Uint32Array.from(columns.lengths)
      const at = r.int(0, lengths.length - 1)
      if (r.chance(0.5)) lengths[at] += r.chance(0.5) ? 1 : lengths[at] > 0 ? -1 : 1
      else {
        const other = r.int(0, lengths.length - 1)
        ;[lengths[at], lengths[other]] = [lengths[other], lengths[at]]
      }
      const own = list.every((t, k) => t.length === lengths[k])
      for (const f of call({ ...listed, lengths })) {
        const got = result(f)
        if (own) assert.equal(got.code, undefined, `seed ${seed}: lengths that are the strings' own`)
        else {
          assert.equal(got.code, 'INVALID_MESSAGE', `seed ${seed}`)
          assert.equal(got.path, 'messages')
          assert.match(got.message, /UTF-16 code units long, lengths says/)
          refused++
        }
      }
    }
    assert.ok(refused > 40, `refused ${refused}`)
  })

  test('text is decoded run by run: a character past ASCII, a pair or a lone surrogate at every offset around a run’s end reads as in wire objects', () => {
    // The addon decodes listed strings 32 code units at a time, narrowing a run of ASCII at once
    // (src/columns.rs, `decode_units`): each of these lands in turn before, across and after the
    // ends of the first two runs. Wire objects are read by Node-API's own UTF-8 conversion, lone
    // surrogates as U+FFFD; joined strings are refused when they hold one, as before.
    const odd = ['é', '日', '😀', '😀😀', '\ud800', '\udc00', '\ud83d\ud83d\ude00', '\ude00\ud83d', 'a\u0000']
    const user = 1 | (1 << 7)
    let compared = 0
    for (const x of odd) {
      for (let at = 0; at <= 70; at++) {
        const text = `${'a'.repeat(at)}${x}${'b'.repeat(70 - at)}${x}`
        const viaObjects = native.countTokens([{ role: 'user', content: text }], ctx).messages
        const columns = (strings) => ({
          ints: Uint32Array.of(user, 0, 0),
          nums: new Float64Array(7).fill(NaN),
          args: new Float64Array(0),
          strings,
          lengths: Uint32Array.of(text.length),
        })
        assert.deepEqual(native.countTokensColumns(columns([text]), ctx).messages, viaObjects, `${JSON.stringify(x)} at ${at}, listed`)
        if (text.isWellFormed()) assert.deepEqual(native.countTokensColumns(columns(text), ctx).messages, viaObjects, `${JSON.stringify(x)} at ${at}, joined`)
        else assert.throws(() => native.countTokensColumns(columns(text), ctx), /string 0 is not valid UTF-16/)
        compared++
      }
    }
    assert.equal(compared, odd.length * 71)
  })
})
