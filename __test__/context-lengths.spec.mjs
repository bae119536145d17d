// The call context's lengths: in approx mode an editor sends the system prompt's and the tool
// definitions' lengths (`systemPromptLength`, `toolLengths`) instead of their texts, which approx
// counting does not read (ts/call-context.ts, `lengthsOnly`). Over seeded conversations, contexts
// (prompts as strings and as system messages, tools as objects and as JSON strings, two-byte and
// astral text) and option sets, every call gives what it gave with the texts; the native side
// counts lengths as texts, and rejects lengths it cannot count, naming the field.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from '../dist/index.js'
import { contextEditingMiddleware } from '../dist/langchain/index.js'
import { __contextLengths } from '../dist/internal.js'
import { NativeContextEditor, toWireContext } from '../index.js'
import { outcome } from './support/columnar-diff.mjs'
import { Rng } from './support/prng.mjs'

const WORDS = ['alpha', 'naïve', '日本語', '😀', '"quoted"', 'back\\slash', 'γάμμα', 'x\n']

const words = (r, n) => Array.from({ length: n }, () => r.pick(WORDS)).join(' ')

function conversation(r, turns) {
  const out = [new HumanMessage(words(r, 4))]
  for (let t = 0; t < turns; t++) {
    const calls = Array.from({ length: r.int(1, 3) }, (_, k) => ({ id: `c${t}_${k}`, name: r.pick(['read', 'search', 'shell']), args: { q: words(r, 3) } }))
    out.push(new AIMessage({ content: r.chance(0.5) ? '' : words(r, 5), tool_calls: calls }))
    for (const c of calls) out.push(new ToolMessage({ tool_call_id: c.id, name: c.name, content: words(r, r.int(5, 60)) }))
    if (r.chance(0.3)) out.push(new HumanMessage(words(r, 6)))
  }
  return out
}

function context(r) {
  const prompt = words(r, r.int(0, 200))
  const tool = (name) => ({ type: 'function', function: { name, description: words(r, r.int(0, 30)), parameters: { type: 'object' } } })
  const tools = Array.from({ length: r.int(0, 5) }, (_, k) => tool(`t${k}`))
  return {
    ...(r.chance(0.8) ? { systemPrompt: r.chance(0.5) ? prompt : new SystemMessage(prompt) } : {}),
    ...(tools.length ? { tools: r.chance(0.5) ? tools : tools.map((t) => JSON.stringify(t)) } : {}),
    ...(r.chance(0.3) ? { maxInputTokens: r.int(500, 5000) } : {}),
  }
}

function options(r) {
  const trigger = r.pick([{ tokens: r.int(50, 3000) }, { fraction: 0.5 }, { messages: r.int(3, 30) }])
  const x = r.int(0, 5)
  if (x === 0) return { trigger, keep: { messages: r.int(0, 3) }, clearAtLeast: r.int(0, 200) }
  if (x === 1) return { trigger, keep: { tokens: r.int(0, 300) }, stable: true }
  if (x === 2) return { trigger, keep: { messages: 1 }, cacheBreakpoints: true }
  if (x === 3) return { edits: [{ type: 'summarize', trigger, keep: { messages: r.int(1, 6) } }] }
  if (x === 4)
    return {
      edits: [
        { type: 'last_n', trigger, n: r.int(1, 6) },
        { type: 'clear_tool_uses', trigger, keep: { messages: 1 } },
      ],
    }
  return { trigger, keep: { messages: 2 }, clearToolInputs: true }
}

/** Every kind of call an editor makes with `messages` and `ctx`: whole, then a next call; counts. */
async function run(opts, messages, ctx) {
  const out = []
  const summarize = () => 'the summary'
  const editor = new ContextEditor(opts)
  const half = messages.slice(0, Math.ceil(messages.length / 2))
  out.push(await outcome(() => editor.edit(half, { ...ctx, summarize })))
  out.push(await outcome(() => editor.edit(messages, { ...ctx, summarize })))
  out.push(await outcome(() => editor.plan(messages, ctx)))
  out.push(await outcome(() => new ContextEditor(opts).editAsync(messages, { ...ctx, summarize })))
  out.push(await outcome(() => new ContextEditor(opts).planAsync(messages, ctx)))
  out.push(await outcome(() => new ContextEditor(opts).countTokens(messages, ctx)))
  out.push(await outcome(() => new ContextEditor(opts).countTokensAsync(messages, ctx)))
  return out
}

async function withTexts(f) {
  const was = __contextLengths(false)
  try {
    return await f()
  } finally {
    __contextLengths(was)
  }
}

describe('approx editors send the context as lengths, with the same results as the texts', () => {
  test('seeded conversations, contexts and option sets', async () => {
    let triggered = 0
    let withFixed = 0
    for (let seed = 1; seed <= 40; seed++) {
      const r = new Rng(seed)
      const messages = conversation(r, r.int(1, 12))
      const ctx = context(r)
      const opts = options(r)
      const texts = await withTexts(() => run(opts, messages, ctx))
      const lengths = await run(opts, messages, ctx)
      assert.deepEqual(lengths, texts, `seed ${seed}`)
      triggered += lengths.filter((x) => x.value?.report?.triggered).length
      if (ctx.systemPrompt !== undefined || ctx.tools !== undefined) withFixed++
    }
    assert.ok(triggered > 20, `triggered ${triggered}`)
    assert.ok(withFixed > 30, `contexts with a prompt or tools ${withFixed}`)
  })

  test('tool definitions of every kind: measured as lengths, counted and refused as their texts are', async () => {
    class Schema {
      type = 'object'
      properties = { q: { type: 'string' } }
    }
    const cycle = { name: 'loop' }
    cycle.self = cycle
    const deep = {}
    let at = deep
    for (let k = 0; k < 30; k++) at = at.next = { k }
    const kinds = [
      {
        type: 'function',
        function: { name: 'plain', description: 'a "quoted" \\ back\tslash\n\u0001 \u2028 naïve 日本語 😀', parameters: { type: 'object' } },
      },
      { name: 'numbers', values: [0, -0, 1e21, 1e-7, NaN, Infinity, -1.5, 2 ** 53 + 2], flags: [true, false, null] },
      { name: 'holes', list: [undefined, () => 1, Symbol('s')], skipped: undefined, fn() {}, [Symbol('k')]: 1 },
      { name: 'lone \ud800 surrogate in a value', d: 'x\udfffy' },
      Object.defineProperty({ name: 'hidden' }, 'secret', { value: 'not enumerable', enumerable: false }),
      Object.defineProperty({ name: 'getter' }, 'd', { get: () => 'from a getter', enumerable: true }),
      { name: 'dated', when: new Date(0) },
      { name: 'own toJSON', toJSON: () => ({ other: 'shape' }) },
      { name: 'class inside', parameters: new Schema() },
      new Schema(),
      Object.assign(Object.create(null), { name: 'no prototype' }),
      { name: 'deep', deep },
      [1, 'two', { three: 3 }],
      42,
      'a "definition" as its text',
    ]
    const refused = [
      { name: 'big', n: 10n },
      cycle,
      Object.defineProperty({ name: 'throws' }, 'boom', {
        get() {
          throw new Error('boom')
        },
        enumerable: true,
      }),
      undefined,
      () => 1,
      'a lone \udc00 surrogate in a text',
    ]
    const r = new Rng(7)
    const messages = conversation(r, 4)
    // Clearing, and summarizing (whose report recounts the edited history with the definitions).
    const sets = [{ trigger: { tokens: 50 }, keep: { messages: 1 } }, { edits: [{ type: 'summarize', trigger: { tokens: 50 }, keep: { messages: 2 } }] }]
    for (const opts of sets) {
      const texts = await withTexts(() => run(opts, messages, { systemPrompt: 'be brief', tools: kinds }))
      const lengths = await run(opts, messages, { systemPrompt: 'be brief', tools: kinds })
      assert.deepEqual(lengths, texts)
      assert.ok(
        lengths.every((x) => x.value !== undefined),
        JSON.stringify(lengths.find((x) => x.error)),
      )
      assert.ok(lengths.some((x) => x.value?.report?.triggered))
    }
    const opts = sets[0]
    for (const bad of refused) {
      const tools = [kinds[0], bad]
      const want = await withTexts(() => run(opts, messages, { tools }))
      assert.deepEqual(await run(opts, messages, { tools }), want)
      assert.ok(
        want.every((x) => x.error?.code === 'INVALID_CONTEXT' && x.error.path === 'tools[1]'),
        JSON.stringify(want[0]),
      )
    }
  })

  test('the prompt and the tools still count: a trigger between the counts with and without them fires only with them', () => {
    const r = new Rng(5)
    const messages = conversation(r, 6)
    const ctx = { systemPrompt: '系统提示 😀 '.repeat(300), tools: [{ name: 'read', description: 'd'.repeat(400) }] }
    const bare = new ContextEditor({}).countTokens(messages).total
    const full = new ContextEditor({}).countTokens(messages, ctx).total
    assert.ok(full > bare + 500, `${full} vs ${bare}`)
    const opts = { trigger: { tokens: Math.floor((bare + full) / 2) }, keep: { messages: 0 } }
    assert.equal(new ContextEditor(opts).edit(messages).report.triggered, false)
    assert.equal(new ContextEditor(opts).edit(messages, ctx).report.triggered, true)
  })

  test('the LangChain middleware: the same requests with lengths and with texts', async () => {
    const r = new Rng(11)
    const messages = conversation(r, 10)
    const request = { messages, systemPrompt: words(r, 150), tools: [], model: { model: 'gpt-4o' } }
    const send = async (req) => req.messages.map((m) => [m.content, m.response_metadata?.context_editing?.cleared ?? false])
    const opts = { trigger: { tokens: 400 }, keep: { messages: 1 } }
    const texts = await withTexts(() => contextEditingMiddleware(opts).wrapModelCall(request, send))
    const lengths = await contextEditingMiddleware(opts).wrapModelCall(request, send)
    assert.deepEqual(lengths, texts)
    assert.ok(lengths.some(([, cleared]) => cleared))
  })
})

describe('the native side: lengths instead of texts', () => {
  const prompt = 'Ты агент. 你是代理。😀 '.repeat(50)
  const tools = ['{"name":"read","description":"读"}', '{"name":"search"}']
  const messages = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
  ]

  test('approx counts lengths as it counts texts (UTF-16 code units)', () => {
    const native = new NativeContextEditor({})
    const texts = native.countTokens(messages, toWireContext({ systemPrompt: prompt, tools }))
    const lengths = native.countTokens(messages, { systemPromptLength: prompt.length, toolLengths: tools.map((t) => t.length) })
    assert.deepEqual(lengths, texts)
    assert.ok(texts.total > native.countTokens(messages).total + prompt.length / 4 - 1)
  })

  const invalid = (path, what) => (e) => e.code === 'INVALID_CONTEXT' && e.path === path && what.test(e.message)

  test('model and estimate counting need the texts', () => {
    for (const tokenCountMethod of ['model', 'estimate']) {
      const native = new NativeContextEditor({ tokenCountMethod, model: 'gpt-4o' })
      assert.throws(() => native.countTokens(messages, { systemPromptLength: 10 }), invalid('systemPromptLength', /approx/))
      assert.throws(() => native.planJson(JSON.stringify(messages), { toolLengths: [10] }), invalid('toolLengths', /approx/))
    }
  })

  test('a text and its length together, and lengths that are no lengths, are INVALID_CONTEXT naming the field', () => {
    const native = new NativeContextEditor({})
    const cases = [
      [{ systemPrompt: 'x', systemPromptLength: 1 }, 'systemPromptLength', /not both/],
      [{ tools: ['{}'], toolLengths: [2] }, 'toolLengths', /not both/],
      [{ systemPromptLength: -1 }, 'systemPromptLength', /non-negative integer/],
      [{ systemPromptLength: 1.5 }, 'systemPromptLength', /non-negative integer/],
      [{ systemPromptLength: Number.NaN }, 'systemPromptLength', /non-negative integer/],
      [{ systemPromptLength: 2 ** 60 }, 'systemPromptLength', /non-negative integer/],
      [{ toolLengths: [1, -2] }, 'toolLengths[1]', /non-negative integer/],
      [{ toolLengths: [1, '2'] }, 'toolLengths[1]', /expected a number, got a string/],
      [{ toolLengths: 3 }, 'toolLengths', /expected an array of numbers/],
      // Its length is checked before any entry is read: no walk of four billion holes.
      [{ toolLengths: new Array(2 ** 32 - 1) }, 'toolLengths', /at most 100,000 lengths/],
    ]
    for (const [ctx, path, what] of cases) {
      assert.throws(
        () => native.countTokens(messages, ctx),
        invalid(path, what),
        JSON.stringify(ctx, (k, v) => (Array.isArray(v) && v.length > 10 ? `[${v.length}]` : v)),
      )
      assert.throws(() => native.planJson(JSON.stringify(messages), ctx), invalid(path, what))
    }
  })
})

// docs/library.md: an agent may pass its tool definitions as their JSON text, made once.
test('tool definitions as objects and as their JSON text count and edit the same, in every mode', async () => {
  const r = new Rng(11)
  for (let k = 0; k < 30; k++) {
    const messages = conversation(r, r.int(1, 12))
    const tool = (name) => ({
      type: 'function',
      function: { name, description: words(r, r.int(0, 30)), parameters: { type: 'object', properties: { q: { type: 'string' } } } },
    })
    const tools = Array.from({ length: r.int(1, 6) }, (_, j) => tool(`t${j}`))
    const text = tools.map((t) => JSON.stringify(t))
    for (const method of ['approx', 'model']) {
      const opts = { ...options(r), tokenCountMethod: method, model: 'gpt-4o' }
      const [a, b] = [new ContextEditor(opts), new ContextEditor(opts)]
      const counted = (e, t) => e.countTokens(messages, { systemPrompt: 'be brief', tools: t })
      assert.deepEqual(counted(a, tools), counted(b, text), `seed 11 case ${k} ${method}: countTokens`)
      const edited = (e, t) => outcome(() => e.edit(messages, { systemPrompt: 'be brief', tools: t, maxInputTokens: 4000, summarize: () => 'so far: reading' }))
      assert.deepEqual(await edited(a, tools), await edited(b, text), `seed 11 case ${k} ${method}: edit`)
      assert.ok(counted(a, tools).total > counted(a, []).total, 'the tools are counted')
    }
  }
})
