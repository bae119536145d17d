// Red team of the approx-mode columns wire (ts/wire/columns.ts, src/columns.rs) against the JSON
// wire it replaced, by class of input: ids and names holding any code unit (NUL, U+FFFF, astral,
// lone surrogates, empty, duplicated, very long, numbers, replacement patterns such as `$&`), every
// message format, hostile objects (throwing getters, Proxies, frozen, polluted prototypes, sparse
// arrays, toJSON, class instances, BigInt, cycles). Every case runs the same calls with columns on
// and off and asks for the same results, errors (code, message, path, index) included, and for the
// caller's messages left as they were (support/columnar-diff.mjs). Lengths, sessions, lengths first
// and the native calls: columnar-red-team-lengths.spec.mjs.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { AIMessage as AIMessage03, ToolMessage as ToolMessage03 } from '@langchain/core-03/messages'

import { ContextEditor } from '../dist/index.js'
import { setColumnarWire } from '../dist/wire.js'
import { oddConversation, oddOptions, same } from './support/columnar-diff.mjs'
import { conversation, toAiSdk, toAnthropic, toLangChain, toResponses } from './support/formats.mjs'
import { Rng } from './support/prng.mjs'

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

describe('placeholders that name their call, in every format', () => {
  const PLACEHOLDERS = ['cleared {tool_call_id}', 'cleared {tool_call_id} ({tool_call_id})', '{tool_call_id}', '[cleared]']
  const IDS = ['call_$&', "c$'1", 'toolu_01', 'c\u0000', '😀']
  /** A conversation in `format` whose call ids are `ids[k % ids.length]`-based, with big results to clear. */
  function request(format, seed, ids, result) {
    const conv = conversation(new Rng(seed), { turns: 4, big: 1 })
    const rename = new Map()
    for (const e of conv.events) for (const c of e.calls ?? []) rename.set(c.id, `${ids[rename.size % ids.length]}${rename.size}`)
    for (const e of conv.events) {
      for (const c of e.calls ?? []) c.id = rename.get(c.id)
      if (e.kind === 'tool') {
        e.id = rename.get(e.id)
        if (result !== undefined) e.content = result(e.id)
      }
    }
    if (format === 'anthropic') return toAnthropic(conv)
    if (format === 'responses') return toResponses(conv)
    if (format === 'aisdk') return toAiSdk(conv, true)
    return toLangChain(conv, true).map(asOpenAI)
  }
  const list = (x) => (Array.isArray(x) ? x : (x.messages ?? x.input))
  const withList = (req, messages) => (Array.isArray(req) ? messages : { ...req, [req.messages ? 'messages' : 'input']: messages })

  test('a result cleared to a placeholder naming its id is seen as cleared on the next pass, whatever the id and the slots', () => {
    for (const format of ['anthropic', 'responses', 'aisdk', 'openai']) {
      for (const placeholder of PLACEHOLDERS) {
        for (let seed = 1; seed <= 4; seed++) {
          const opts = { trigger: { tokens: 1 }, keep: { messages: 0 }, placeholder }
          const req = request(format, seed, IDS)
          const first = new ContextEditor(opts).edit(req)
          assert.ok(first.report.cleared.length > 0, `${format}, ${placeholder}, seed ${seed}: cleared`)
          const again = new ContextEditor(opts).edit(withList(req, list(first.messages)))
          assert.deepEqual(again.report.cleared, [], `${format}, ${placeholder}, seed ${seed}: nothing left to clear`)
        }
      }
    }
  })

  test('a result that only looks like a slotted placeholder (another id, or none) is cleared', () => {
    const looks = [(id) => `cleared ${id}x`, () => 'cleared by hand, long ago', (id) => `cleared ${id} (other)`, () => 'cleared ']
    for (const format of ['anthropic', 'responses', 'aisdk', 'openai']) {
      for (const [k, look] of looks.entries()) {
        const opts = {
          trigger: { tokens: 1 },
          keep: { messages: 0 },
          placeholder: k === 2 ? 'cleared {tool_call_id} ({tool_call_id})' : 'cleared {tool_call_id}',
        }
        const req = request(format, 7, IDS, (id) => `${look(id)} ${'r'.repeat(800)}`)
        const results = list(req).length
        const out = new ContextEditor(opts).edit(req)
        assert.ok(out.report.cleared.length > 0 && results > 0, `${format}, look ${k}: such results are cleared, not taken for cleared ones`)
      }
    }
  })
})
