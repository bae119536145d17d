// Red team of the approx-mode columns wire (ts/wire/columns.ts, src/columns.rs) against the JSON
// wire it replaced, by class of input: ids and names holding any code unit (NUL, U+FFFF, astral,
// lone surrogates, empty, duplicated, very long, numbers), lengths past 2^31 / 2^32 code units in
// all, every message format, hostile objects (throwing getters, Proxies, frozen, polluted
// prototypes, sparse arrays, toJSON, class instances, BigInt, cycles) and sessions that switch
// between columns and the JSON fallback while the history grows, is cut and changes in place.
// Every case runs the same calls with columns on and off and asks for the same results, errors
// (code, message, path, index) included, and for the caller's messages left as they were.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { inspect } from 'node:util'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { AIMessage as AIMessage03, ToolMessage as ToolMessage03 } from '@langchain/core-03/messages'

import { ContextEditor } from '../dist/index.js'
import { jsonText, setColumnarWire, toColumns, toWire } from '../dist/wire.js'
import { NativeContextEditor } from '../index.js'
import { conversation, toAiSdk, toAnthropic, toLangChain, toResponses } from './support/formats.mjs'
import { Rng } from './support/prng.mjs'

/** Ids and names that are hard for a joined string with lengths: every odd code unit and size. */
const ODD_IDS = [
  'c',
  '',
  '\u0000',
  '\u0000\u0000',
  'a\u0000b',
  '\uffff',
  '\ufffe\uffff',
  '😀',
  '\u{10ffff}',
  'x'.repeat(70_000),
  '{tool_call_id}',
  'cleared ',
  '"quoted"\\',
]
/** Ids that are not valid (lone surrogates, numbers, null): a conversation holding one fails. */
const BAD_IDS = ['\ud800', 'a\udfffb', '\udc00\ud800', 7, null, 0]

/** What a call gives, as data: its value, or its error's code, message, path and index. */
async function outcome(f) {
  try {
    return { value: JSON.parse(JSON.stringify(await f())) }
  } catch (e) {
    return { error: { code: e.code, message: e.message, path: e.path, messageIndex: e.messageIndex } }
  }
}

/** How the caller's messages look, every own field and hidden state included, without running a getter or a trap. */
const look = (messages) => inspect(messages, { depth: Infinity, showHidden: true, getters: false, maxArrayLength: Infinity, maxStringLength: 64 })

/** Plans, edits (sync and async, first and next calls), counts; the messages must be left as they were. */
async function run(opts, messages, context = {}) {
  const before = look(messages)
  const out = []
  let editor
  out.push(await outcome(() => (editor = new ContextEditor(opts))))
  if (editor === undefined) return out
  out.push(await outcome(() => editor.plan(messages, context)))
  out.push(await outcome(() => editor.edit(messages, context)))
  out.push(await outcome(() => editor.edit([...messages, new HumanMessage('next')], context)))
  out.push(await outcome(() => editor.planAsync(messages, context)))
  out.push(await outcome(() => new ContextEditor(opts).editAsync(messages, context)))
  const counted = new ContextEditor(opts)
  out.push(await outcome(() => counted.countTokens(messages, context)))
  out.push(await outcome(() => counted.edit(messages, context)))
  assert.equal(look(messages), before, 'the caller’s messages are left as they were')
  return out
}

/** `run` with the JSON wire, then with columns: the same results. `make` gives fresh messages each time. */
async function same(opts, make, context, where) {
  const was = setColumnarWire(false)
  let json
  try {
    json = await run(opts, make(), context)
  } finally {
    setColumnarWire(was)
  }
  const columns = await run(opts, make(), context)
  assert.deepEqual(columns, json, where)
  return columns
}

/** A conversation whose ids, names, message ids and cleared-input ids come from `ODD_IDS`. */
function oddConversation(r, n, lc) {
  const id = () => (r.chance(0.015) ? r.pick(BAD_IDS) : r.pick(ODD_IDS))
  const out = [lc ? new SystemMessage('sys') : { role: 'system', content: 'sys' }]
  const calls = []
  while (out.length < n) {
    const x = r.next()
    if (x < 0.35) {
      const made = Array.from({ length: r.int(1, 3) }, () => ({ id: id(), name: r.chance(0.8) ? id() : undefined, args: { q: 'word '.repeat(r.int(0, 40)) } }))
      calls.push(...made)
      const md = r.chance(0.3) ? { context_editing: { cleared_tool_inputs: [id(), r.chance(0.3) ? '\udc00' : id()] } } : {}
      if (lc) {
        const fields = { content: 'thinking '.repeat(r.int(0, 9)), tool_calls: made.map((c) => ({ ...c, type: 'tool_call' })), id: id(), response_metadata: md }
        try {
          out.push(new AIMessage(fields))
        } catch {
          out.push({ type: 'ai', ...fields })
        }
      } else {
        out.push({
          role: 'assistant',
          content: 'ok',
          tool_calls: made.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })),
        })
      }
    } else if (x < 0.8) {
      const call = calls.length && r.chance(0.8) ? r.pick(calls) : { id: id(), name: id() }
      const content = r.chance(0.2) ? r.pick(['[cleared]', `cleared ${call.id}`]) : 'result '.repeat(r.int(1, 60))
      const fields = { content, tool_call_id: call.id, name: r.chance(0.6) ? call.name : id(), id: id() }
      if (lc) {
        try {
          out.push(new ToolMessage(fields))
        } catch {
          out.push({ type: 'tool', ...fields })
        }
      } else out.push({ role: 'tool', ...fields })
    } else out.push(lc ? new HumanMessage({ content: 'q '.repeat(r.int(1, 20)), id: id(), name: id() }) : { role: 'user', content: 'q', name: id() })
  }
  return out
}

function oddOptions(r) {
  const clear = {
    trigger: r.pick([{ tokens: r.int(1, 200) }, { messages: r.int(1, 12) }]),
    keep: r.pick([{ messages: r.int(0, 3) }, { tokens: r.int(0, 80) }]),
    ...(r.chance(0.4) ? { clearToolInputs: true } : {}),
    ...(r.chance(0.5) ? { excludeTools: ODD_IDS.filter((x) => typeof x === 'string' && r.chance(0.3)) } : {}),
    ...(r.chance(0.4) ? { placeholder: r.pick(['cleared {tool_call_id}', '[cleared]']) } : {}),
    ...(r.chance(0.3) ? { pin: { ids: ODD_IDS.filter((x) => typeof x === 'string' && x !== '' && r.chance(0.3)) } } : {}),
    ...(r.chance(0.2) ? { prefer: 'newest' } : {}),
    ...(r.chance(0.2) ? { stable: true } : {}),
  }
  return r.chance(0.7)
    ? clear
    : {
        edits: [
          { type: 'truncate_tool_results', trigger: clear.trigger, maxChars: r.int(1, 30) },
          { type: 'clear_tool_uses', ...clear },
        ],
      }
}

describe('ids and names holding any code unit', () => {
  test('seeded conversations: columns give what JSON gives, errors included', async () => {
    let fine = 0
    let failed = 0
    for (let seed = 1; seed <= 50; seed++) {
      const r = new Rng(seed)
      const n = r.int(2, 24)
      const lc = seed % 2 === 1
      const opts = oddOptions(r)
      const results = await same(opts, () => oddConversation(new Rng(seed * 7919), n, lc), { maxInputTokens: 4000 }, `seed ${seed}`)
      if (results.some((x) => x.error)) failed++
      else fine++
    }
    // Both kinds were compared: conversations that plan and conversations that fail.
    assert.ok(fine >= 5 && failed >= 5, `fine ${fine}, failed ${failed}`)
  })

  test('duplicate, empty-named and NUL ids in one conversation plan alike', async () => {
    const make = () => [
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'd', name: '', args: {} },
          { id: 'd', name: '\u0000', args: { a: 'x'.repeat(500) } },
        ],
      }),
      new ToolMessage({ content: 'r'.repeat(900), tool_call_id: 'd', name: '' }),
      new ToolMessage({ content: 'r'.repeat(900), tool_call_id: 'd' }),
      new AIMessage({ content: '', tool_calls: [{ id: '\u0000', name: '\uffff', args: {} }] }),
      new ToolMessage({ content: 's'.repeat(900), tool_call_id: '\u0000', name: '\uffff' }),
      new HumanMessage('go on'),
    ]
    for (const excludeTools of [undefined, [''], ['\u0000'], ['\uffff']]) {
      const results = await same({ trigger: { tokens: 10 }, keep: { messages: 1 }, clearToolInputs: true, excludeTools }, make, {}, String(excludeTools))
      assert.ok(results[2].value.report.triggered)
    }
  })
})

/** A LangChain dict as an instance of its class. */
function asClass({ type, ...fields }) {
  return new { system: SystemMessage, human: HumanMessage, ai: AIMessage, tool: ToolMessage }[type](fields)
}

/** A LangChain dict as an OpenAI chat message. */
function asOpenAI({ type, content, tool_calls, tool_call_id }) {
  const role = { system: 'system', human: 'user', ai: 'assistant', tool: 'tool' }[type]
  const calls = tool_calls?.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }))
  return { role, content, ...(calls ? { tool_calls: calls } : {}), ...(tool_call_id ? { tool_call_id } : {}) }
}

test('a lone surrogate in a cleared input id names the message and the id, columns or JSON', async () => {
  const make = () => [
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'n', args: {} }] }),
    new ToolMessage({ content: 'x', tool_call_id: 'c1' }),
    new AIMessage({ content: 'y', response_metadata: { context_editing: { cleared_tool_inputs: ['c1', '\ud800'] } } }),
  ]
  const results = await same({ trigger: { tokens: 1 }, keep: { messages: 1 } }, make, {}, 'cleared input id')
  for (const x of results.slice(1)) {
    assert.deepEqual(x.error && [x.error.code, x.error.messageIndex, x.error.path], [
      'INVALID_MESSAGE',
      2,
      'response_metadata.context_editing.cleared_tool_inputs[1]',
    ])
  }
})

test('the same message object at several places of a history (and of the next call) plans alike', async () => {
  for (let seed = 1; seed <= 10; seed++) {
    const make = () => {
      const h = oddConversation(new Rng(seed), 12, seed % 2 === 1)
      const r = new Rng(seed + 100)
      return [...h, ...Array.from({ length: 6 }, () => h[r.int(1, h.length - 1)])]
    }
    await same({ trigger: { tokens: 20 }, keep: { messages: 2 }, clearToolInputs: true }, make, {}, `seed ${seed}`)
  }
})

describe('every message format crosses as columns as it did as JSON', () => {
  test('LangChain 1.x and 0.3.x classes, dicts, OpenAI, Anthropic, Responses, AI SDK, Mastra', async () => {
    let checked = 0
    for (let seed = 1; seed <= 24; seed++) {
      const conv = conversation(new Rng(seed))
      const opts = { trigger: { tokens: 1 + (seed % 5) * 40 }, keep: { messages: seed % 3 }, clearToolInputs: seed % 2 === 0 }
      const inputs = [
        ['langchain', () => toLangChain(conv, true), {}],
        ['anthropic', () => toAnthropic(conv).messages, { systemPrompt: conv.system }],
        ['responses', () => toResponses(conv).input, {}],
        ['aisdk', () => toAiSdk(conv, true), {}],
        ['classes', () => toLangChain(conv, true).map(asClass), {}],
        ['openai', () => toLangChain(conv, true).map(asOpenAI), {}],
      ]
      for (const [format, make, context] of inputs) {
        await same(opts, make, context, `seed ${seed}, ${format}`)
        checked++
      }
    }
    const lc03 = () => [
      new AIMessage03({ content: 'a', tool_calls: [{ id: 'k1', name: 'search', args: { q: 'x'.repeat(300) } }] }),
      new ToolMessage03({ content: 'y'.repeat(800), tool_call_id: 'k1', name: 'search' }),
      new AIMessage03({ content: 'b', tool_calls: [{ id: 'k2', name: 'search', args: {} }] }),
      new ToolMessage03({ content: 'z'.repeat(800), tool_call_id: 'k2' }),
    ]
    await same({ trigger: { tokens: 10 }, keep: { messages: 1 }, clearToolInputs: true }, lc03, {}, 'LangChain 0.3')
    const mastra = () => [
      { id: 'u1', role: 'user', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text: 'hello '.repeat(50) }] } },
      { id: 'a1', role: 'assistant', createdAt: new Date(1), content: { format: 2, parts: [{ type: 'text', text: 'answer '.repeat(80) }] } },
      { id: 'u2', role: 'user', createdAt: new Date(2), content: { format: 2, parts: [{ type: 'text', text: 'more' }] } },
    ]
    await same({ edits: [{ type: 'last_n', trigger: { tokens: 5 }, n: 1 }] }, mastra, {}, 'Mastra')
    assert.equal(checked, 144)
  })
})

describe('hostile objects fail alike and are not changed', () => {
  const base = () => [
    new SystemMessage('sys'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'search', args: { q: 'x' } }] }),
    new ToolMessage({ content: 'r'.repeat(400), tool_call_id: 'c1', name: 'search' }),
  ]
  const thrower = () => {
    throw new Error('boom')
  }
  class Args {
    constructor() {
      this.q = 'x'
    }
  }
  const cyclic = () => {
    const a = { q: 'x' }
    a.self = a
    return a
  }
  const sparse = () => {
    const calls = [{ id: 'c9', name: 'n', args: {} }]
    calls[3] = { id: 'c10', name: 'n', args: {} }
    return calls
  }
  const extra = () => Object.assign([{ id: 'c9', name: 'n', args: {} }], { extra: 'x'.repeat(100) })
  const cases = [
    ['a getter that throws on content', () => Object.defineProperty({ role: 'user' }, 'content', { get: thrower, enumerable: true })],
    ['a getter that throws on tool_call_id', () => Object.defineProperty({ role: 'tool', content: 'x' }, 'tool_call_id', { get: thrower, enumerable: true })],
    [
      'a getter that throws in args',
      () => ({
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c9', name: 'n', args: Object.defineProperty({}, 'q', { get: thrower, enumerable: true }) }],
      }),
    ],
    ['a Proxy message', () => new Proxy({ role: 'user', content: 'hi' }, {})],
    ['a Proxy whose traps throw', () => new Proxy({ role: 'user', content: 'hi' }, { get: thrower, getOwnPropertyDescriptor: thrower })],
    ['a Proxy over tool calls', () => ({ type: 'ai', content: '', tool_calls: new Proxy([{ id: 'c9', name: 'n', args: { a: 1 } }], {}) })],
    [
      'a frozen message',
      () => Object.freeze({ type: 'ai', content: 'x', tool_calls: Object.freeze([Object.freeze({ id: 'c9', name: 'n', args: Object.freeze({}) })]) }),
    ],
    ['sparse tool calls', () => ({ type: 'ai', content: '', tool_calls: sparse() })],
    ['tool calls with an extra property', () => ({ type: 'ai', content: '', tool_calls: extra() })],
    ['args with toJSON', () => ({ type: 'ai', content: '', tool_calls: [{ id: 'c9', name: 'n', args: { toJSON: () => ({ big: 'y'.repeat(300) }) } }] })],
    ['args a class instance', () => ({ type: 'ai', content: '', tool_calls: [{ id: 'c9', name: 'n', args: new Args() }] })],
    ['a BigInt in args', () => ({ type: 'ai', content: '', tool_calls: [{ id: 'c9', name: 'n', args: { n: 1n } }] })],
    ['a BigInt as tool_call_id', () => ({ role: 'tool', content: 'x', tool_call_id: 1n })],
    ['cyclic args', () => ({ type: 'ai', content: '', tool_calls: [{ id: 'c9', name: 'n', args: cyclic() }] })],
    ['a number as a call id', () => ({ type: 'ai', content: '', tool_calls: [{ id: 5, name: 'n', args: {} }] })],
    ['a number as a name', () => ({ role: 'user', content: 'x', name: 5 })],
    ['a Symbol as content', () => ({ role: 'user', content: Symbol('s') })],
  ]
  for (const [what, make] of cases) {
    test(what, async () => {
      await same({ trigger: { tokens: 1 }, keep: { messages: 1 }, clearToolInputs: true }, () => [...base(), make(), new HumanMessage('end')], {}, what)
    })
  }

  test('a polluted Object.prototype and Array.prototype change nothing either way', async () => {
    const keys = ['tool_calls', 'tool_call_id', 'name', 'content', 'role', 'type', 'toJSON', 'args', 'id']
    for (const key of keys) {
      for (const proto of [Object.prototype, Array.prototype]) {
        Object.defineProperty(proto, key, { value: key === 'toJSON' ? () => 'p' : 'polluted', configurable: true, writable: true, enumerable: true })
        try {
          await same(
            { trigger: { tokens: 1 }, keep: { messages: 1 }, clearToolInputs: true },
            base,
            {},
            `${key} on ${proto === Object.prototype ? 'Object' : 'Array'}.prototype`,
          )
        } finally {
          delete proto[key]
        }
      }
    }
  })
})

describe('lengths past what one string holds', () => {
  test('histories of more than 2^32 code units in all, on the trigger and keep edges, plan alike', async () => {
    const big = 'y'.repeat(2 ** 27)
    const make = () => {
      const out = [new SystemMessage('sys')]
      for (let k = 0; k < 36; k++) {
        out.push(new AIMessage({ content: '', tool_calls: [{ id: `c${k}`, name: 'read', args: { p: k } }] }))
        out.push(new ToolMessage({ content: big, tool_call_id: `c${k}` }))
      }
      out.push(new HumanMessage('end'))
      return out
    }
    const total = new ContextEditor({}).countTokens(make()).total
    assert.ok(total * 4 > 2 ** 32, `total ${total}`)
    const one = Math.ceil(big.length / 4)
    let triggered = 0
    for (const trigger of [total - 1, total, total + 1]) {
      for (const keep of [{ tokens: one - 1 }, { tokens: one }, { tokens: one + 1 }, { messages: 0 }, { messages: 73 }]) {
        const opts = { trigger: { tokens: trigger }, keep, clearAtLeast: 2 ** 31 }
        const was = setColumnarWire(false)
        let json
        try {
          json = await outcome(() => new ContextEditor(opts).plan(make()))
        } finally {
          setColumnarWire(was)
        }
        const columns = await outcome(() => new ContextEditor(opts).plan(make()))
        assert.deepEqual(columns, json, JSON.stringify(opts))
        if (columns.value?.report.triggered) triggered++
      }
    }
    assert.equal(triggered, 10, 'on the trigger and past it')
  })

  test('a tool-call list longer than the longest string fails as JSON.stringify of it does; a long one below is exact', () => {
    const args = { q: 'x'.repeat(2 ** 27) }
    const calls = (n) => Array.from({ length: n }, (_, k) => ({ id: `c${k}`, name: 'n', args, type: 'tool_call' }))
    const below = { type: 'ai', content: '', tool_calls: calls(3) }
    assert.equal(toWire(below, 0, { sendText: false }).toolCallsLength, JSON.stringify(below.tool_calls).length)
    const over = { type: 'ai', content: '', tool_calls: calls(5) }
    let stringifyError
    try {
      JSON.stringify(over.tool_calls)
    } catch (e) {
      stringifyError = e
    }
    assert.ok(stringifyError instanceof RangeError, 'the list is longer than the engine’s longest string')
    assert.throws(
      () => toWire(over, 3, { sendText: false }),
      (e) => e.code === 'INVALID_MESSAGE' && e.messageIndex === 3 && e.path === 'tool_calls' && e.message.includes(stringifyError.message),
    )
  })
})

describe('sessions: columns and JSON alternating, history changes in one conversation', () => {
  /** A turn: a call, its result (sometimes one that cannot cross as columns), a user note. */
  function turn(r, k) {
    const id = r.pick([`t${k}`, `t${k}\u0000`, `t${k}😀`, `\uffff${k}`])
    const inputs = r.chance(0.25) ? { context_editing: { cleared_tool_inputs: [r.chance(0.5) ? '\u0000' : `t${k - 1}`] } } : {}
    return [
      new AIMessage({
        content: 'a'.repeat(r.int(0, 50)),
        tool_calls: [{ id, name: r.pick(['read', 'shell']), args: { p: 'x'.repeat(r.int(0, 200)) } }],
        response_metadata: inputs,
      }),
      new ToolMessage({ content: 'r'.repeat(r.int(1, 600)), tool_call_id: id, name: 'read' }),
      ...(r.chance(0.4) ? [new HumanMessage('u'.repeat(r.int(1, 40)))] : []),
    ]
  }

  /** The edited messages and report of an edit, as data. */
  const result = (res) => ({
    report: res.report,
    messages: res.messages.map((m) => ({ type: m.getType(), content: m.content, meta: m.response_metadata, calls: m.tool_calls })),
  })

  test('every call of a held conversation gives what a fresh editor gives, columns or JSON', async () => {
    let triggered = 0
    for (let seed = 1; seed <= 12; seed++) {
      const r = new Rng(seed)
      const opts = r.pick([
        { trigger: { tokens: r.int(100, 900) }, keep: { messages: r.int(0, 4) }, clearToolInputs: true },
        { trigger: { tokens: r.int(100, 900) }, keep: { tokens: r.int(0, 200) }, stable: true, excludeTools: ['shell'] },
        {
          edits: [
            { type: 'truncate_tool_results', trigger: { tokens: 50 }, maxChars: 30 },
            { type: 'clear_tool_uses', trigger: { tokens: 300 }, keep: { messages: 2 } },
          ],
        },
      ])
      const columns = new ContextEditor(opts)
      const was = setColumnarWire(false)
      const json = new ContextEditor(opts)
      setColumnarWire(was)
      let history = [new SystemMessage('sys')]
      let k = 0
      for (let step = 0; step < 30; step++) {
        const x = r.next()
        if (x < 0.55) history = [...history, ...turn(r, k++)]
        else if (x < 0.65) history = history.slice(0, r.int(1, history.length))
        else if (x < 0.75 && history.length > 1) {
          // Replaced in place at or before the prefix the session holds.
          const i = r.int(1, history.length - 1)
          history[i].content = typeof history[i].content === 'string' ? `${history[i].content}!` : history[i].content
        } else if (x < 0.85 && history.length > 1) {
          // An equal-looking copy in place of a held message.
          const i = r.int(1, history.length - 1)
          const m = history[i]
          history = history.with(i, new m.constructor({ ...m }))
        } else history = [...history, new HumanMessage('more')]
        const snapshot = [...history]
        const want = result(new ContextEditor(opts).edit(snapshot))
        const sync = r.chance(0.5)
        // The held conversation crosses as columns on some calls and as JSON on others.
        const mixed = setColumnarWire(r.chance(0.7))
        let got
        try {
          got = sync ? result(columns.edit(snapshot)) : result(await columns.editAsync(snapshot))
        } finally {
          setColumnarWire(mixed)
        }
        setColumnarWire(false)
        let viaJson
        try {
          viaJson = sync ? result(json.edit(snapshot)) : result(await json.editAsync(snapshot))
        } finally {
          setColumnarWire(was)
        }
        assert.deepEqual(got, want, `seed ${seed}, step ${step}: columns`)
        assert.deepEqual(viaJson, want, `seed ${seed}, step ${step}: JSON`)
        if (want.report.triggered) triggered++
      }
    }
    assert.ok(triggered > 50, `triggered ${triggered}`)
  })

  test('next calls appending fingerprints in place while an async edit plans and applies its plan', async () => {
    let turns = 0
    for (let seed = 20; seed < 24; seed++) {
      const r = new Rng(seed)
      const opts = { trigger: { tokens: 200 }, keep: { messages: 2 }, clearToolInputs: true }
      const editor = new ContextEditor(opts)
      let history = [new SystemMessage('sys')]
      for (let k = 0; k < 800; k++) history = [...history, ...turn(r, k)]
      await editor.editAsync(history)
      const grown = [...history, ...turn(r, 9000)]
      // The async call is in flight (planning, then applying in pieces) while sync calls, one per
      // turn of the event loop, grow the same conversation from its messages.
      let done = false
      const pending = editor.editAsync(grown).finally(() => (done = true))
      let longer = grown
      while (!done) {
        await new Promise((resolve) => setImmediate(resolve))
        longer = [...longer, ...turn(r, 9001 + turns++)]
        assert.deepEqual(result(editor.edit(longer)), result(new ContextEditor(opts).edit(longer)), `seed ${seed}, ${longer.length} messages`)
      }
      assert.deepEqual(result(await pending), result(new ContextEditor(opts).edit(grown)), `seed ${seed}: in flight`)
    }
    assert.ok(turns >= 8, `turns ${turns}`)
  })
})

describe('lengths first (columns, then text for a summary) against the always-text path', () => {
  /** A conversation with odd ids and names, images, and maybe an earlier summary first. */
  function history(r, n) {
    const out = []
    if (r.chance(0.4))
      out.push(
        new HumanMessage({
          content: `Here is a summary of the conversation to date:\n\nearlier ${'w '.repeat(r.int(1, 40))}`,
          additional_kwargs: { lc_source: 'summarization' },
        }),
      )
    let k = 0
    while (out.length < n) {
      const id = `${r.pick(ODD_IDS.filter((x) => typeof x === 'string' && x !== ''))}${k++}`
      const x = r.next()
      if (x < 0.3) {
        out.push(
          new AIMessage({
            content: 'a '.repeat(r.int(0, 30)),
            tool_calls: [{ id, name: r.pick(['read', '\u0000', '😀']), args: { q: 'q '.repeat(r.int(0, 30)) } }],
          }),
        )
        out.push(new ToolMessage({ content: 'r '.repeat(r.int(1, 120)), tool_call_id: id, name: 'read' }))
      } else if (x < 0.45) {
        out.push(
          new HumanMessage({
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            ],
            id,
          }),
        )
      } else out.push(new HumanMessage({ content: 'h '.repeat(r.int(1, 60)), id }))
    }
    return out
  }

  test('caller counts and approx counts on the trigger and keep edges, pins, stable, clear_media: the same plans, requests and messages', async () => {
    const { __alwaysSendText } = await import('../dist/internal.js')
    let summaries = 0
    for (let seed = 1; seed <= 16; seed++) {
      const r = new Rng(seed * 31)
      const h = history(r, r.int(4, 40))
      const counts = r.chance(0.5) ? h.map(() => r.int(0, 40)) : undefined
      const total = counts ? counts.reduce((a, b) => a + b, 0) : new ContextEditor({ trigger: [] }).countTokens(h).total
      for (const edge of [total - 1, total, total + 1]) {
        const summarize = {
          type: 'summarize',
          trigger: { tokens: Math.max(1, edge) },
          keep: r.pick([{ tokens: r.int(0, total) }, { messages: r.int(0, h.length) }, { fraction: 0.3 }]),
        }
        const edits = [
          ...(r.chance(0.4) ? [{ type: 'clear_media', keep: { media: r.int(0, 2) } }] : []),
          ...(r.chance(0.4) ? [{ type: 'clear_tool_uses', trigger: { tokens: 1 }, keep: { messages: 2 }, stable: r.chance(0.5) }] : []),
          summarize,
        ]
        const options = {
          edits,
          ...(r.chance(0.3)
            ? {
                pin: {
                  ids: h
                    .filter(() => r.chance(0.2))
                    .map((m) => m.id)
                    .filter(Boolean),
                },
              }
            : {}),
        }
        const context = { maxInputTokens: total * 2 + 10, ...(counts ? { messageTokens: counts } : {}) }
        const calls = async (editor) => {
          const asked = []
          const summarizeWith = (q) => (asked.push(q), `summary ${asked.length}`)
          return [
            await outcome(() => editor.plan(h, context)),
            await outcome(() => editor.edit(h, { ...context, summarize: summarizeWith }).messages.map((m) => [m.getType(), m.content])),
            await outcome(async () => (await editor.editAsync(h, { ...context, summarize: async (q) => summarizeWith(q) })).report),
            asked,
          ]
        }
        __alwaysSendText(true)
        let slow
        try {
          slow = new ContextEditor(options)
        } finally {
          __alwaysSendText(false)
        }
        const want = await calls(slow)
        assert.deepEqual(await calls(new ContextEditor(options)), want, `seed ${seed}, trigger ${edge}`)
        if (want[0].value?.summary) summaries++
      }
    }
    assert.ok(summaries >= 10, `summaries ${summaries}`)
  })
})

test('the native calls: lengths and counts at 2^32 - 1 plan alike from columns and JSON; past it, the checked ones fail alike', () => {
  const messages = [
    new HumanMessage('hello there'),
    new AIMessage({ content: 'ok', tool_calls: [{ id: 'c1', name: 'read', args: { p: 'x' } }] }),
    new ToolMessage({ content: 'result', tool_call_id: 'c1' }),
  ]
  const opts = { sendText: false }
  const wire = messages.map((m, i) => toWire(m, i, opts))
  const FIELDS = ['contentLength', 'otherLength', 'thinkingLength', 'images', 'imageTokens', 'toolCallsLength', 'tokens']
  // Past 2^32 - 1 the core refuses these (images and thinkingLength the shim never sends so large).
  const CHECKED = new Set(['contentLength', 'otherLength', 'imageTokens', 'toolCallsLength', 'tokens'])
  const native = new NativeContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 } })
  const settle = (f) => {
    try {
      return { value: f() }
    } catch (e) {
      return { error: [e.code, e.message, e.path, e.messageIndex] }
    }
  }
  let refused = 0
  for (const i of messages.keys()) {
    for (const [k, field] of FIELDS.entries()) {
      for (const v of [0, -0, 1, 2 ** 31, 2 ** 32 - 1, ...(CHECKED.has(field) ? [2 ** 32, 2 ** 40] : [])]) {
        const [columns] = toColumns(messages, 0, messages.length, opts, [])
        const nums = Float64Array.from(columns.nums)
        nums[i * 7 + k] = v
        const a = settle(() => native.planColumns({ ...columns, nums }))
        assert.deepEqual(
          a,
          settle(() => native.planJson(jsonText(wire.map((w, j) => (j === i ? { ...w, [field]: v } : w))))),
          `message ${i}, ${field} = ${v}`,
        )
        if (a.error) refused++
      }
    }
  }
  for (const v of [0, 2 ** 32 - 1, 2 ** 32]) {
    const [columns] = toColumns(messages, 0, messages.length, opts, [])
    const json = wire.map((w) => (w.toolCalls ? { ...w, toolCalls: w.toolCalls.map((c) => ({ ...c, argsLength: v })) } : w))
    assert.deepEqual(
      settle(() => native.planColumns({ ...columns, args: Float64Array.of(v) })),
      settle(() => native.planJson(jsonText(json))),
      `argsLength = ${v}`,
    )
  }
  assert.equal(refused, 3 * 5 * 2)
})

describe("ids and names holding replacement patterns ($&, $', $`, $1, $$)", () => {
  const IDS = ['call$&x', "c$'y", 'c$`z', 'c$1', 'c$$', '$<name>', 'plain']

  test('an OpenAI tool result cleared to a placeholder naming its id is seen as cleared on the next pass', () => {
    const opts = { trigger: { tokens: 1 }, keep: { messages: 0 }, placeholder: 'cleared {tool_call_id} ({tool_call_id})' }
    for (const id of IDS) {
      const history = [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: 'read', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: id, content: 'r'.repeat(400) },
        { role: 'user', content: 'more' },
      ]
      const first = new ContextEditor(opts).edit(history)
      assert.equal(first.messages[2].content, `cleared ${id} (${id})`)
      // A new editor (a restart) given the edited history: nothing left to clear.
      for (const columns of [true, false]) {
        const was = setColumnarWire(columns)
        try {
          assert.deepEqual(new ContextEditor(opts).edit(first.messages).report.cleared, [], `${id}, columns ${columns}`)
        } finally {
          setColumnarWire(was)
        }
      }
    }
  })

  test('clear_media writes the name of what it removed as it is', () => {
    for (const id of IDS) {
      const url = `https://example.com/${id}.png`
      const history = [
        { role: 'user', content: [{ type: 'image_url', image_url: { url } }] },
        { role: 'user', content: [{ type: 'file', file: { filename: `${id}.pdf`, file_data: 'AAAA' } }] },
        { role: 'user', content: 'now' },
      ]
      const out = new ContextEditor({ edits: [{ type: 'clear_media', keep: { media: 0 } }] }).edit(history)
      assert.equal(out.media[0].cleared.length, 2)
      for (const c of out.media[0].cleared) {
        assert.ok(c.what.includes(id), c.what)
        assert.deepEqual(out.messages[c.index].content, [{ type: 'text', text: `[${c.kind} removed: ${c.what}]` }], id)
      }
    }
  })
})
