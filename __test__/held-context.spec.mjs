// Held contexts (`HeldContext`, src/input/context.rs): a call context read once and kept native.
// `ContextEditor` holds each conversation's context and sends the held one while a next call's
// context reads the same (ts/sessions.ts). A held context must never stand in for one that reads
// differently: an agent loop whose context changes in any field between calls gets, on every call,
// what a new editor gives for that call. And on the raw binding a held context gives what the
// object gives, is read when it is made, and nothing else passes for one.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from '../dist/index.js'
import { WIRE_CONTEXT_FIELDS } from '../dist/call-context.js'
import { HeldContext, NativeContextEditor } from '../index.js'
import { outcome } from './support/columnar-diff.mjs'
import { Rng } from './support/prng.mjs'

const WORDS = ['alpha', 'naïve', '日本語', '😀', 'beta', 'x\n', 'γάμμα']
const words = (r, n) => Array.from({ length: n }, () => r.pick(WORDS)).join(' ')

function conversation(r, turns) {
  const out = [new HumanMessage(words(r, 4))]
  for (let t = 0; t < turns; t++) {
    const calls = Array.from({ length: r.int(1, 2) }, (_, k) => ({ id: `c${t}_${k}`, name: r.pick(['read', 'shell']), args: { q: words(r, 2) } }))
    out.push(new AIMessage({ content: words(r, 3), tool_calls: calls }))
    for (const c of calls) out.push(new ToolMessage({ tool_call_id: c.id, name: c.name, content: words(r, r.int(20, 80)) }))
  }
  return out
}

/** The same text with one character changed, same length (model mode must see it; approx need not). */
const oneCharOff = (s) => (s.length === 0 ? 'x' : (s[0] === 'a' ? 'b' : 'a') + s.slice(1))

const tool = (name, description) => ({ type: 'function', function: { name, description, parameters: { type: 'object' } } })

/** `ctx` with one field changed (or none), by `r`: each field of the public context in turn. */
function varied(r, ctx, step) {
  const next = { ...ctx }
  switch (r.int(0, 9)) {
    case 0:
      next.systemPrompt = words(r, r.int(0, 60))
      break
    case 1:
      // Same length, other text.
      if (typeof ctx.systemPrompt === 'string') next.systemPrompt = oneCharOff(ctx.systemPrompt)
      break
    case 2:
      // A system message with a cache marker: `cacheBreakpointsInUse` changes.
      next.systemPrompt = new SystemMessage({ content: [{ type: 'text', text: words(r, 10), cache_control: { type: 'ephemeral' } }] })
      break
    case 3:
      next.tools = Array.from({ length: r.int(0, 3) }, (_, k) => tool(`t${k}`, words(r, r.int(0, 12))))
      break
    case 4:
      // One tool's description, same length.
      if (ctx.tools?.length) next.tools = ctx.tools.map((t, k) => (k === 0 ? tool(t.function.name, oneCharOff(t.function.description)) : t))
      break
    case 5:
      next.maxInputTokens = r.chance(0.2) ? undefined : r.int(300, 3000)
      break
    case 6:
      next.model = r.pick(['gpt-4o', 'gpt-4', 'claude-sonnet-4-5', undefined])
      break
    case 7:
      next.usageAnchor = r.chance(0.3) ? undefined : { index: r.int(0, step), tokens: r.int(100, 5000) }
      break
    case 8:
      next.tokenCorrection = r.chance(0.3) ? undefined : r.pick([0.5, 1, 1.25, 2])
      break
    default:
      break // the same context again: the held one is sent
  }
  return next
}

const OPTION_SETS = [
  { trigger: { fraction: 0.5 }, keep: { messages: 1 } },
  { trigger: { tokens: 600 }, keep: { tokens: 200 }, cacheBreakpoints: true },
  { tokenCountMethod: 'model', trigger: { tokens: 500 }, keep: { messages: 1 } },
  { trigger: { tokens: 700 }, keep: { messages: 2 }, stable: true },
]

describe('an agent loop whose context changes between calls', () => {
  for (const [k, opts] of OPTION_SETS.entries()) {
    test(`every call gives what a new editor gives (${JSON.stringify(opts)})`, async () => {
      let changedTotals = 0
      for (let seed = 1; seed <= 12; seed++) {
        const r = new Rng(1000 * k + seed)
        const messages = conversation(r, 14)
        let ctx = { systemPrompt: words(r, 30), tools: [tool('read', words(r, 6))], model: 'gpt-4o', maxInputTokens: 2000 }
        const editor = new ContextEditor(opts)
        let previous
        for (let n = 6; n <= messages.length; n += r.int(1, 4)) {
          ctx = varied(r, ctx, n - 1)
          const view = messages.slice(0, n)
          const call = r.chance(0.5) ? () => editor.edit(view, ctx) : () => editor.editAsync(view, ctx)
          const ours = await outcome(call)
          const fresh = await outcome(() => new ContextEditor(opts).edit(view, ctx))
          assert.deepEqual(ours, fresh, `seed ${seed}, ${n} messages, context ${JSON.stringify(ctx)}`)
          const total = ours.value?.report?.tokensBefore
          if (previous !== undefined && total !== previous) changedTotals++
          previous = total
        }
      }
      // The contexts did change what the calls count.
      assert.ok(changedTotals > 20, `calls whose total changed: ${changedTotals}`)
    })
  }

  test('model mode sees a prompt or a tool changed to another text of the same length', () => {
    const r = new Rng(7)
    const messages = conversation(r, 4)
    const editor = new ContextEditor({ tokenCountMethod: 'model', trigger: { tokens: 1e9 } })
    const fresh = (ctx) => new ContextEditor({ tokenCountMethod: 'model', trigger: { tokens: 1e9 } }).edit(messages, ctx).report.tokensBefore
    const [a, b] = ['a'.repeat(240), '一二三四五六'.repeat(40)]
    const first = editor.edit(messages, { systemPrompt: a }).report.tokensBefore
    const second = editor.edit(messages, { systemPrompt: b }).report.tokensBefore
    assert.notEqual(second, first)
    assert.equal(second, fresh({ systemPrompt: b }))
    const third = editor.edit(messages, { systemPrompt: b, tools: [tool('read', a)] }).report.tokensBefore
    const fourth = editor.edit(messages, { systemPrompt: b, tools: [tool('read', b)] }).report.tokensBefore
    assert.notEqual(fourth, third)
    assert.equal(fourth, fresh({ systemPrompt: b, tools: [tool('read', b)] }))
  })
})

describe('the wire context: every field is compared', () => {
  test('WIRE_CONTEXT_FIELDS lists the fields of EditContext in binding.d.cts', () => {
    const dts = readFileSync(new URL('../binding.d.cts', import.meta.url), 'utf8')
    const body = dts.match(/export interface EditContext \{([\s\S]*?)\n\}/)?.[1]
    assert.ok(body, 'EditContext in binding.d.cts')
    const fields = [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1])
    assert.deepEqual([...WIRE_CONTEXT_FIELDS].sort(), fields.sort())
  })
})

describe('HeldContext on the raw binding', () => {
  const messages = [
    { role: 'user', content: 'hi there' },
    { role: 'assistant', content: 'hello', toolCalls: [{ id: 'a', name: 'read', args: '{"p":1}' }] },
    { role: 'tool', content: 'x'.repeat(400), toolCallId: 'a', name: 'read' },
    { role: 'user', content: 'next' },
  ]
  const contexts = [
    {},
    { systemPrompt: 'Ты агент. 😀 '.repeat(20), tools: ['{"name":"read"}', '{"name":"shell"}'] },
    { systemPromptLength: 300, toolLengths: [40, 2] },
    { maxInputTokens: 200, model: 'gpt-4o' },
    { anchorIndex: 1, anchorTokens: 900 },
    { tokenCorrection: 1.5, cacheBreakpointsInUse: 2 },
  ]

  test('a held context gives what the object gives, in every method that takes one', () => {
    const approx = new NativeContextEditor({ trigger: { tokens: 100 }, keep: { messages: 0 } })
    const model = new NativeContextEditor({ tokenCountMethod: 'model', trigger: { tokens: 100 }, keep: { messages: 0 } })
    for (const ctx of contexts) {
      const held = new HeldContext(ctx)
      for (const editor of [approx, model]) {
        for (const call of [(c) => editor.countTokens(messages, c), (c) => editor.plan(messages, c), (c) => editor.planJson(JSON.stringify(messages), c)]) {
          assert.deepEqual(
            outcomeSync(() => call(held)),
            outcomeSync(() => call(ctx)),
            JSON.stringify(ctx),
          )
        }
      }
    }
  })

  test('it is read when made: changing the object afterwards changes nothing', () => {
    const editor = new NativeContextEditor({})
    const ctx = { systemPromptLength: 400, toolLengths: [40] }
    const held = new HeldContext(ctx)
    const before = editor.countTokens(messages, held).total
    ctx.systemPromptLength = 4
    ctx.toolLengths.push(4000)
    assert.equal(editor.countTokens(messages, held).total, before)
    assert.notEqual(editor.countTokens(messages, ctx).total, before)
    assert.equal(editor.countTokens(messages, new HeldContext(held)).total, before)
  })

  test('a field that cannot be read or is of the wrong type is INVALID_CONTEXT naming it, when made', () => {
    const cases = [
      [{ maxInputTokens: 'many' }, 'maxInputTokens'],
      [{ tools: 'read' }, 'tools'],
      [{ toolLengths: [1, 'two'] }, 'toolLengths[1]'],
      [
        {
          get model() {
            throw new Error('no model')
          },
        },
        'model',
      ],
    ]
    for (const [ctx, path] of cases) {
      assert.throws(
        () => new HeldContext(ctx),
        (e) => e.code === 'INVALID_CONTEXT' && e.path === path,
        path,
      )
    }
    assert.throws(
      () => new HeldContext(7),
      (e) => e.code === 'INVALID_CONTEXT',
    )
  })

  test('what the editor cannot count is refused when a call uses it, as the object is', () => {
    const model = new NativeContextEditor({ tokenCountMethod: 'model' })
    const ctx = { systemPromptLength: 10 }
    const viaObject = outcomeSync(() => model.countTokens(messages, ctx))
    assert.equal(viaObject.error?.code, 'INVALID_CONTEXT')
    assert.deepEqual(
      outcomeSync(() => model.countTokens(messages, new HeldContext(ctx))),
      viaObject,
    )
  })

  test('nothing else passes for a held context: objects with its prototype are read as objects', () => {
    const editor = new NativeContextEditor({})
    const bare = editor.countTokens(messages, {}).total
    const spoof = Object.create(HeldContext.prototype)
    assert.equal(editor.countTokens(messages, spoof).total, bare)
    const dressed = Object.setPrototypeOf({ systemPromptLength: 400 }, HeldContext.prototype)
    assert.equal(editor.countTokens(messages, dressed).total, editor.countTokens(messages, { systemPromptLength: 400 }).total)
  })
})

function outcomeSync(f) {
  try {
    return { value: JSON.parse(JSON.stringify(f())) }
  } catch (e) {
    return { error: { code: e.code, message: e.message, path: e.path } }
  }
}
