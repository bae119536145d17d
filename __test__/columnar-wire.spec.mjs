// Columns against JSON: in approx mode a conversation crosses to the native side as columns
// (ts/wire/columns.ts, src/columns.rs) instead of JSON text. Over seeded random conversations in
// every message shape the converter reads (LangChain instances, dicts, StoredMessage dumps,
// ChatMessage, OpenAI messages; content blocks, images, reasoning, tool calls with and without
// args, orphans, cleared markers, pins, names, ids, the caller's own counts) and over every kind of
// option set, both wires must give the same plans, reports, edited messages and errors: whole
// plans, sessions (first and next calls, synchronous and in pieces), and broken messages.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from '../dist/index.js'
import { jsonText, primedAtLoad, setColumnarWire, toColumns, toWire } from '../dist/wire.js'
import { NativeContextEditor, toWireContext } from '../index.js'
import { langchain, options, plain, words } from './support/columnar-conversations.mjs'
import { Rng } from './support/prng.mjs'
import { ON_WASM } from './support/binding.mjs'

/** What a call gives, as data: its value, or its error's code, message, path and index. */
async function outcome(f) {
  try {
    return { value: JSON.parse(JSON.stringify(await f())) }
  } catch (e) {
    return { error: { code: e.code, message: e.message, path: e.path, messageIndex: e.messageIndex } }
  }
}

/** Everything an editor does with `messages`: plans, edits and counts, first and next calls. */
async function run(opts, messages, context) {
  const out = []
  let editor
  out.push(await outcome(() => (editor = new ContextEditor(opts))))
  if (editor === undefined) return out
  const half = messages.slice(0, Math.ceil(messages.length / 2))
  out.push(await outcome(() => editor.plan(half, context)))
  out.push(await outcome(() => editor.edit(messages, context)))
  out.push(await outcome(() => editor.edit([...messages, new HumanMessage('next')], context)))
  out.push(await outcome(() => editor.planAsync(messages, context)))
  out.push(await outcome(() => new ContextEditor(opts).editAsync(messages, context)))
  out.push(await outcome(() => editor.edit(messages, { ...context, messageTokens: messages.map((_, i) => (i % 3 ? null : i * 7)) })))
  // Counted through wire objects first: the memo then holds wire objects, which the plan's
  // columns are written from (`addWire`).
  const counted = new ContextEditor(opts)
  out.push(await outcome(() => wireObjects(() => counted.countTokens(messages, context))))
  out.push(await outcome(() => counted.edit(messages, context)))
  // Counted as this run sends messages: columns (approx), or wire objects.
  out.push(await outcome(() => new ContextEditor(opts).countTokens(messages, context)))
  out.push(await outcome(() => new ContextEditor(opts).countTokensAsync(messages, context)))
  return out
}

/** `f()` with columns switched off: messages cross as wire objects (or JSON). */
function wireObjects(f) {
  const was = setColumnarWire(false)
  try {
    return f()
  } finally {
    setColumnarWire(was)
  }
}

/** `run` with columns on and with JSON, compared. */
async function same(opts, messages, context, where) {
  setColumnarWire(false)
  let json
  try {
    json = await run(opts, messages, context)
  } finally {
    setColumnarWire(true)
  }
  const columns = await run(opts, messages, context)
  assert.deepEqual(columns, json, where)
  return columns
}

describe('columns and JSON give the same results', () => {
  test('seeded conversations in every shape, every option set', async () => {
    let errors = 0
    let triggered = 0
    for (let seed = 1; seed <= 60; seed++) {
      const r = new Rng(seed)
      const n = r.int(1, 40)
      const messages = seed % 2 ? langchain(r, n) : plain(r, n)
      const opts = options(r)
      const context = { maxInputTokens: r.int(50, 5000), systemPrompt: words(r, 3), tools: [{ name: 'search', description: 'd', parameters: {} }] }
      const results = await same(opts, messages, context, `seed ${seed}`)
      errors += results.filter((x) => x.error).length
      triggered += results.filter((x) => x.value?.report?.triggered).length
    }
    // The comparison saw plans that edited, not only untouched histories and errors.
    assert.ok(triggered > 30, `triggered ${triggered}`)
    assert.ok(errors < 60, `errors ${errors}`)
  })

  test('a long history crosses in pieces (editAsync) and then grows', async () => {
    const r = new Rng(99)
    const messages = langchain(r, 3000)
    const opts = { trigger: { tokens: 2000 }, keep: { messages: 3 }, clearToolInputs: true }
    const results = await same(opts, messages, {}, 'pieces')
    assert.ok(results[2].value.report.triggered)
  })

  test('broken messages fail alike, at the same index and field', async () => {
    const broken = [
      ['a lone surrogate in content', () => new HumanMessage('a\ud800b')],
      ['a lone surrogate in a call id', () => new AIMessage({ content: '', tool_calls: [{ id: 'c\udfff', name: 'x', args: {} }] })],
      ['a lone surrogate in a tool call id', () => ({ role: 'tool', content: 'x', tool_call_id: '\ud800' })],
      [
        'a lone surrogate in a cleared input id',
        () => new AIMessage({ content: 'x', response_metadata: { context_editing: { cleared_tool_inputs: ['\ud800'] } } }),
      ],
      ['args that are not an object', () => ({ type: 'ai', content: '', tool_calls: [{ id: 'c', name: 'x', args: 'no' }] })],
      [
        'arguments that are not JSON',
        () => ({ role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'x', arguments: '{' } }] }),
      ],
      ['a tool message without its call id', () => ({ role: 'tool', content: 'x' })],
      ['an unknown role', () => ({ role: 'robot', content: 'x' })],
      ['a number', () => 42],
      ['tool calls on a user message', () => ({ type: 'human', content: 'x', tool_calls: [{ id: 'c', name: 'x', args: {} }] })],
      ['a BigInt in args', () => ({ type: 'ai', content: '', tool_calls: [{ id: 'c', name: 'x', args: { n: 1n } }] })],
      ['a bad caller count', () => new HumanMessage('x'), { messageTokens: [0, -1] }],
    ]
    for (const [what, make, extra] of broken) {
      const r = new Rng(7)
      const messages = langchain(r, 12)
      messages.splice(6, 0, make())
      const results = await same({ trigger: { tokens: 1 }, keep: { messages: 1 } }, messages, { ...extra }, what)
      const failed = results.filter((x) => x.error)
      if (what === 'a lone surrogate in a cleared input id') continue
      assert.ok(failed.length > 0, `${what}: fails`)
    }
  })
})

test("a message's toolCallsLength is the length of JSON.stringify of its tool calls, worked out without the text", () => {
  let checked = 0
  for (let seed = 300; seed < 400; seed++) {
    const r = new Rng(seed)
    const messages = seed % 2 ? langchain(r, 30) : plain(r, 30)
    for (const [i, m] of messages.entries()) {
      const calls = m.tool_calls ?? m.data?.tool_calls
      if (!calls?.length) continue
      assert.equal(toWire(m, i, { sendText: false }).toolCallsLength, JSON.stringify(calls).length, `seed ${seed}, message ${i}`)
      checked++
    }
  }
  // Lists that are not plain data are stringified: a class instance, a toJSON, a null prototype.
  class Call {
    constructor() {
      Object.assign(this, { id: 'c', name: 'n', args: { a: 1 } })
    }
  }
  const odd = [[new Call()], [{ id: 'c', name: 'n', args: { toJSON: () => 'x' } }], [Object.assign(Object.create(null), { id: 'c', name: 'n', args: {} })]]
  for (const calls of odd)
    assert.equal(toWire({ role: 'assistant', tool_calls: calls, content: '' }, 0, { sendText: false }).toolCallsLength, JSON.stringify(calls).length)
  assert.ok(checked > 200, `checked ${checked}`)
})

/** A random value of every kind `JSON.stringify` treats alike or apart, nested up to `depth`. */
function argValue(r, depth) {
  const strings = [
    '',
    'plain',
    'a"quote',
    'back\\slash',
    'tab\tnew\nline',
    '\u0000\u001f\u007f',
    '\u2028\u2029',
    '中文字',
    '😀',
    '\ud800',
    'x\udfffy',
    '\ud83d\ude00\ud83d',
  ]
  const numbers = [0, -0, 1, -17, 3.25, 1e21, 1e-7, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, -Infinity]
  const kind = depth <= 0 ? r.int(0, 4) : r.int(0, 7)
  switch (kind) {
    case 0:
      return r.pick(strings) + (r.chance(0.3) ? r.pick(strings) : '')
    case 1:
      return r.pick(numbers)
    case 2:
      return r.chance(0.5)
    case 3:
      return null
    case 4:
      return r.pick([undefined, () => 1, Symbol('s')])
    case 5:
    case 6: {
      const o = {}
      for (let k = r.int(0, 4); k > 0; k--) o[r.pick(['a', 'key"q', '1', '07', '中', '', '\n'])] = argValue(r, depth - 1)
      if (r.chance(0.2)) o[Symbol('hidden')] = 1
      if (r.chance(0.2)) Object.defineProperty(o, 'quiet', { value: 'not enumerable', enumerable: false })
      if (r.chance(0.2)) Object.defineProperty(o, 'got', { get: () => 'from a getter', enumerable: true })
      return o
    }
    default:
      return Array.from({ length: r.int(0, 4) }, () => argValue(r, depth - 1))
  }
}

/** Message `m`'s first tool call as its wire object reads it, where only lengths cross and where its text does. */
function callWires(m) {
  const read = (sendText) => {
    try {
      return { call: toWire(m, 0, { sendText }).toolCalls[0] }
    } catch (e) {
      return { error: { code: e.code, message: e.message, path: e.path } }
    }
  }
  return { lengths: read(false), text: read(true) }
}

test("a tool call's argsLength is the length of JSON.stringify of its args, measured without the text where only lengths cross", () => {
  let measured = 0
  for (let seed = 0; seed < 1000; seed++) {
    const r = new Rng(seed)
    const args = argValue(r, 4)
    if (args === null || typeof args !== 'object' || Array.isArray(args)) continue
    const { lengths, text } = callWires(new AIMessage({ content: '', tool_calls: [{ id: 'c', name: 'n', args }] }))
    assert.equal(lengths.call.argsLength, JSON.stringify(args).length, `seed ${seed}: ${text.call.args}`)
    assert.equal(lengths.call.args, undefined, 'only the length crosses')
    assert.equal(text.call.args, JSON.stringify(args))
    measured++
  }
  assert.ok(measured > 200, `measured ${measured}`)
  // Arguments that are not plain data are stringified as before: their length, or the same error
  // as where their text crosses.
  const deep = {}
  let at = deep
  for (let k = 0; k < 40; k++) at = at.next = {}
  const cycle = { a: 1 }
  cycle.self = cycle
  class Point {
    x = 1
    y = 2
  }
  const odd = {
    'a Date (toJSON)': { when: new Date(0) },
    'a toJSON of its own': { toJSON: () => ({ other: 'shape' }) },
    'a class instance inside': { p: new Point() },
    'a Map inside': { m: new Map([[1, 2]]) },
    'a null prototype': Object.assign(Object.create(null), { a: 'b' }),
    'nested 40 deep': deep,
    'a BigInt': { n: 10n },
    'a cycle': cycle,
    'a getter that throws': Object.defineProperty({}, 'boom', {
      get() {
        throw new Error('boom')
      },
      enumerable: true,
    }),
  }
  for (const [what, args] of Object.entries(odd)) {
    const { lengths, text } = callWires(new AIMessage({ content: '', tool_calls: [{ id: 'c', name: 'n', args }] }))
    if (text.error) assert.deepEqual(lengths.error, text.error, what)
    else assert.equal(lengths.call.argsLength, text.call.args.length, what)
  }
  assert.match(
    callWires(new AIMessage({ content: '', tool_calls: [{ id: 'c', name: 'n', args: { n: 10n } }] })).lengths.error.message,
    /args: not JSON-serializable/,
  )
})

describe('the native side: columns and JSON are the same messages', () => {
  test('planColumns = planJson, countTokensColumns = countTokens and planSessionColumns = planSession, whole and continued', () => {
    for (let seed = 200; seed < 240; seed++) {
      const r = new Rng(seed)
      const messages = seed % 2 ? langchain(r, r.int(1, 60)) : plain(r, r.int(1, 60))
      const opts = { sendText: false, placeholders: new Set(['[cleared]', 'cleared {tool_call_id}']), sendArgs: r.chance(0.3), sendToolText: r.chance(0.3) }
      let wire
      try {
        wire = messages.map((m, i) => toWire(m, i, opts))
      } catch {
        continue
      }
      const native = new NativeContextEditor({ trigger: { tokens: r.int(1, 300) }, keep: { messages: r.int(0, 3) }, clearToolInputs: r.chance(0.5) })
      const ctx = toWireContext({ systemPrompt: 'be brief', maxInputTokens: 1000 })
      const [columns, end] = toColumns(messages, 0, messages.length, opts, [])
      assert.equal(end, messages.length)
      assert.equal(native.planColumns(columns, ctx), native.planJson(jsonText(wire), ctx), `seed ${seed}: whole`)
      assert.deepEqual(native.countTokensColumns(columns, ctx), native.countTokens(wire, ctx), `seed ${seed}: count`)
      const cut = r.int(0, messages.length)
      const [head] = toColumns(messages, 0, cut, opts, [])
      const [tail] = toColumns(messages, cut, messages.length, opts, [])
      const a = native.planSessionColumns(1, 0, head, ctx)
      const b = native.planSession(2, 0, jsonText(wire.slice(0, cut)), ctx)
      assert.deepEqual(packed(a), packed(b), `seed ${seed}: first call`)
      assert.ok(native.appendSessionColumns(1, cut, tail) && native.appendSession(2, cut, jsonText(wire.slice(cut))))
      assert.deepEqual(
        packed(native.planSessionColumns(1, messages.length, toColumns([], 0, 0, opts, [])[0], ctx)),
        packed(native.planSession(2, messages.length, '[]', ctx)),
        `seed ${seed}: next call`,
      )
    }
  })

  test('ids and names of any script cross as columns as they do as JSON (ASCII, Latin-1, CJK, astral)', () => {
    const names = ['search', 'café', 'ÿ', '検索', 'tool😀', 'a"b\\c', 'tab\tnew\nline', '\u0080', '']
    const messages = [new HumanMessage('go')]
    for (const [k, name] of names.entries()) {
      const id = `${name}-${k}`
      messages.push(new AIMessage({ content: '', tool_calls: [{ id, name, args: { q: name } }] }))
      messages.push(new ToolMessage({ content: `result ${name}`.repeat(30), tool_call_id: id, name }))
    }
    const opts = { sendText: false, placeholders: new Set(['[cleared]']) }
    const wire = messages.map((m, i) => toWire(m, i, opts))
    const ctx = toWireContext({ systemPrompt: 'be brief' })
    const native = new NativeContextEditor({ trigger: { tokens: 50 }, keep: { messages: 1 } })
    const [columns] = toColumns(messages, 0, messages.length, opts, [])
    const viaColumns = native.planColumns(columns, ctx)
    assert.equal(viaColumns, native.planJson(jsonText(wire), ctx))
    // The ids came through: each cleared result is reported under its own id.
    const ids = JSON.parse(viaColumns).report.cleared.map((c) => c.toolCallId)
    assert.deepEqual(
      ids,
      names.slice(0, -1).map((name, k) => `${name}-${k}`),
    )
    assert.deepEqual(packed(native.planSessionColumns(1, 0, columns, ctx)), packed(native.planSession(2, 0, jsonText(wire), ctx)))
  })

  test('columns that do not fit together are INVALID_MESSAGE naming the columns, never a crash', () => {
    const native = new NativeContextEditor({})
    const [good] = toColumns([new HumanMessage('hi'), new ToolMessage({ content: 'x', tool_call_id: 'c' })], 0, 2, { sendText: false }, [])
    const bad = [
      undefined,
      [],
      'text',
      { ...good, ints: new Float64Array(6) },
      { ...good, ints: good.ints.subarray(0, 4) },
      { ...good, nums: good.nums.subarray(1) },
      { ...good, lengths: new Uint32Array([99]) },
      { ...good, strings: good.strings + 'extra' },
      { ...good, strings: '\ud800' },
      { ...good, lengths: new Uint32Array([1]), strings: '\ud800' },
      { ...good, ints: new Uint32Array([1 << 12, 0, 0, 3, 0, 0]) },
      { ...good, ints: new Uint32Array([1, 5, 0, 3, 0, 0]) },
      { ...good, nums: new Float64Array(14).fill(-1) },
      { ...good, nums: new Float64Array(14).fill(0.5) },
      // The strings one by one (the shim's text columns natively): each as long as `lengths` says,
      // as many as it lists, every one a string.
      { ...good, strings: ['cc'] },
      { ...good, strings: ['c', 'extra'] },
      { ...good, strings: [] },
      { ...good, strings: [7] },
      { ...good, strings: ['c', undefined] },
      { ...good, strings: 7 },
      { ...good, strings: null },
    ]
    for (const [k, columns] of bad.entries()) {
      for (const call of [
        () => native.planColumns(columns),
        () => native.planSessionColumns(1, 0, columns),
        () => native.appendSessionColumns(1, 0, columns),
        () => native.countTokensColumns(columns),
      ]) {
        assert.throws(call, (e) => e.code === 'INVALID_MESSAGE' && (e.path === 'messages' || typeof e.messageIndex === 'number'), `case ${k}`)
      }
    }
    // The same columns with their strings one by one plan as joined.
    assert.equal(native.planColumns({ ...good, strings: ['c'] }), native.planColumns(good))
    assert.throws(
      () => native.planColumns({ ...good, strings: ['cc'] }),
      (e) => /columns: string 0 is 2 UTF-16 code units long, lengths says 1/.test(e.message),
    )
    assert.throws(
      () => native.countTokensColumns({ ...good, strings: [7] }),
      (e) => /columns\.strings: expected a string or an array of strings, got an array holding something else/.test(e.message),
    )
    // A tool message without its id is the core's error, with its index, as from JSON.
    const noId = { ...good, ints: new Uint32Array([1, 0, 0, 3, 0, 0]), lengths: new Uint32Array([]), strings: '' }
    assert.throws(
      () => native.planColumns(noId),
      (e) => e.code === 'INVALID_MESSAGE' && e.messageIndex === 1 && e.path === 'toolCallId',
    )
  })
})

test('the WebAssembly build plans a small conversation at load, so that its first call does not compile the approx path; the native addon is not primed', () => {
  // A priming call that throws is swallowed (the load must not fail): this is where it shows.
  assert.equal(primedAtLoad(), ON_WASM)
})

describe('columns in the WebAssembly memory (src/arena.rs; natively the same calls read the objects)', () => {
  const refused = (f, what) =>
    assert.throws(
      f,
      (e) => e.code === 'INVALID_MESSAGE' && e.path === 'messages' && /columns: expected a WireColumns object, got a string/.test(e.message),
      what,
    )
  const conversation = () => toColumns([new HumanMessage('hi'), new AIMessage('hello')], 0, 2, { sendText: false }, [])[0]

  test('a header serves one call: a string where the columns go is refused after a call read one, and after a call that failed before reading it', () => {
    const native = new NativeContextEditor({})
    refused(() => native.planColumns('text'), 'first')
    const total = native.countTokensColumns(conversation()).total
    refused(() => native.countTokensColumns('text'), 'after a call that read its header')
    assert.throws(
      () => native.planSessionColumns(-1, 0, conversation()),
      (e) => e.code === 'INVALID_CONTEXT' && e.path === 'session',
    )
    refused(() => native.planSessionColumns(1, 0, 'text'), 'after a call that failed before reading its header')
    // Calls made from inside a call's conversion (none here) aside, each call reads its own.
    assert.equal(native.countTokensColumns(conversation()).total, total)
  })

  test('a header written by hand is read only within its region: lengths past it are refused, never read', async () => {
    const { createRequire } = await import('node:module')
    const raw = createRequire(import.meta.url)('../binding.cjs')
    const native = new NativeContextEditor({})
    const view = raw.__columnArena(64)
    if (!ON_WASM) {
      assert.equal(view, null, 'natively there is no arena')
      return
    }
    const header = new Uint32Array(view.buffer, view.byteOffset, 8)
    const magic = Buffer.from('COLS').readUInt32LE(0)
    const call = () => raw.NativeContextEditor.prototype.countTokensColumns.call(native, 'text')
    for (const lengths of [
      [view.byteLength / 4, 0, 0, 0],
      [0, view.byteLength / 8, 0, 0],
      [0, 0, 0, view.byteLength / 4 - 7],
      [0xffffffff, 0, 0, 0],
      [0, 0xffffffff, 0xffffffff, 0],
      [0x40000000, 0, 0, 0x40000000],
    ]) {
      header.set([magic, ...lengths, 0, 0, 0])
      refused(call, JSON.stringify(lengths))
    }
    // Lengths within the region that do not fit together are the columns' own error.
    header.set([magic, 3, 1, 0, 0, 0, 0, 0])
    assert.throws(call, (e) => e.code === 'INVALID_MESSAGE' && /columns/.test(e.message))
    // One that fits is read (a message of each role, no strings), and cleared.
    header.set([magic, 3, 7, 0, 0, 0, 0, 0])
    new Uint32Array(view.buffer, view.byteOffset + 32 + 56, 3).set([1, 0, 0])
    new Float64Array(view.buffer, view.byteOffset + 32, 7).set([40, NaN, NaN, NaN, NaN, NaN, NaN])
    assert.deepEqual(raw.NativeContextEditor.prototype.countTokensColumns.call(native, '').messages, [10])
    assert.equal(header[0], 0)
  })
})

/** A packed plan as data. */
function packed(p) {
  return p === null ? null : { ops: [...p.ops], extra: p.extra, report: p.report !== undefined ? p.report.json() : p.reportJson }
}
