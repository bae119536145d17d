// Red team of the approx-mode columns wire, continued (see columnar-red-team.spec.mjs): lengths past
// what one string holds and past 2^32 in all, on the trigger and keep edges; sessions whose calls
// alternate columns and JSON while the history grows, is cut and changes in place, and next calls
// appending fingerprints in place under an async call applying its plan; lengths first against the
// always-text path; the native calls (planColumns against planJson) at the bounds of every number.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from '../dist/index.js'
import { jsonText, setColumnarWire, toColumns, toWire } from '../dist/wire.js'
import { NativeContextEditor } from '../index.js'
import { ODD_IDS, outcome } from './support/columnar-diff.mjs'
import { Rng } from './support/prng.mjs'

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
      let held
      for (let k = 0; k < 800; k++) {
        history = [...history, ...turn(r, k)]
        if (k === 40) held = history
      }
      // The editor holds an early part of the conversation, so that the async call below plans and
      // applies most of it as new messages (in pieces): a call that only adds a turn reuses the
      // previous output and would be done before the loop's first turn.
      await editor.editAsync(held)
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
