// A session call's plan crosses the boundary packed (src/packed.rs): four numbers per operation, its
// kind a `PackedOpKind`, the strings interned, the rare operations whole. Unpacked by the shim
// (ts/wire/packed.ts), it must be exactly the plan the plain call gives, for every kind of operation
// and every pipeline: a kind renumbered on one side only, or a string table off by one, shows here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { NativeContextEditor, PackedOpKind, toWireMessages } from '../index.js'
import { StringTable, unpack } from '../dist/wire/packed.js'
import { RECALL_PLACEHOLDER } from '../dist/index.js'
import { Rng } from './support/prng.mjs'
import { buildMessages, conversationSpecs, editOptions } from './support/conversations.mjs'

const SEEDS = 120

/** A random conversation in wire form, some assistant messages with reasoning. */
function wireConversation(rng) {
  const wire = toWireMessages(buildMessages(conversationSpecs(rng, { maxTurns: 12 })), { sendText: true })
  for (const m of wire) if (m.role === 'assistant' && rng.chance(0.4)) m.thinking = `thinking ${'x'.repeat(rng.int(1, 200))}`
  return wire
}

/** Editor options that make every kind of operation somewhere across the seeds. */
function pipeline(rng, tokens, count) {
  const { options, maxInputTokens } = editOptions(rng, tokens, count)
  const always = { tokens: 1 }
  const edits = [{ type: 'clear_tool_uses', ...options, cacheBreakpoints: rng.chance(0.5) }]
  // Placeholders that name their call (the recall tool's, two slots): a string of its own per result.
  // Non-ASCII ones too: the strings cross as UTF-8 bytes.
  if (rng.chance(0.3))
    edits[0].placeholder = rng.pick([
      RECALL_PLACEHOLDER,
      '{tool_call_id} cleared; ask for {tool_call_id}',
      '已清除 {tool_call_id} 🧹',
      '{tool_call_id}{tool_call_id}',
    ])
  if (rng.chance(0.5)) edits.unshift({ type: 'clear_thinking', trigger: always, keep: { thinkingTurns: rng.int(0, 2) } })
  if (rng.chance(0.5)) edits.unshift({ type: 'truncate_tool_results', trigger: always, maxChars: rng.int(5, 60) })
  if (rng.chance(0.3)) edits.push({ type: 'strip_tool_calls', trigger: { messages: rng.int(1, count + 2) } })
  if (rng.chance(0.3)) edits.push({ type: 'last_n', trigger: always, n: rng.int(1, count) })
  return { options: { edits }, maxInputTokens }
}

test('PackedOpKind is the same object on both sides: the kinds the shim inlines', () => {
  assert.deepEqual({ ...PackedOpKind }, { Remove: 0, ClearToolResult: 1, RemoveThinking: 2, CacheBreakpoint: 3, Other: 9 })
})

test('an unpacked session plan equals the plain plan, op for op, for every kind of operation', () => {
  const seen = new Map()
  const kinds = new Set(Object.values(PackedOpKind))
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rng = new Rng(seed)
    const wire = wireConversation(rng)
    const tokens = wire.reduce((n, m) => n + Math.ceil(((m.content ?? '').length + (m.thinking ?? '').length) / 4), 0)
    const { options, maxInputTokens } = pipeline(rng, tokens, wire.length)
    const context = maxInputTokens === undefined ? {} : { maxInputTokens }
    let editor
    try {
      editor = new NativeContextEditor(options)
    } catch (e) {
      // A random option set the core refuses (a fraction without a limit...) is not this test's subject.
      assert.equal(e.code, 'INVALID_OPTIONS', `seed ${seed}: ${e.message}`)
      continue
    }
    let plain
    try {
      plain = editor.plan(wire, context)
    } catch (e) {
      assert.equal(e.code, 'INVALID_OPTIONS', `seed ${seed}: ${e.message}`)
      continue
    }
    const packed = editor.planSession(seed, 0, wire, context)
    for (let w = 0; w < packed.ops.length; w += 4) assert.ok(kinds.has(packed.ops[w]), `seed ${seed}: kind ${packed.ops[w]} is a PackedOpKind`)
    const { plan, opsFrom, strings: table } = unpack(packed)
    const strings = Array.from({ length: table.length }, (_, k) => table.at(k))
    // Each string once: what the ops name is interned, never sent again per op.
    assert.equal(new Set(strings).size, strings.length, `seed ${seed}: strings listed twice in ${JSON.stringify(strings)}`)
    assert.equal(table.sharedWith(unpack(packed).strings), strings.length, `seed ${seed}: a table shares all of itself`)
    const json = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)))
    assert.deepEqual(json(plan.ops), json(plain.ops), `seed ${seed}: ops`)
    assert.deepEqual(json(plan.report), json(plain.report), `seed ${seed}: report`)
    assert.deepEqual(json(plan.summary), json(plain.summary), `seed ${seed}: summary`)
    const from = Math.floor(plain.ops.length / 2)
    assert.deepEqual(json(opsFrom(from)), json(plain.ops.slice(from)), `seed ${seed}: ops from ${from}`)
    for (const op of plain.ops) seen.set(op.type, (seen.get(op.type) ?? 0) + 1)
    if (options.edits.some((e) => e.placeholder?.includes('{tool_call_id}')) && plain.ops.filter((op) => op.type === 'clear_tool_result').length > 1) {
      seen.set('clear_tool_result named', (seen.get('clear_tool_result named') ?? 0) + 1)
    }
  }
  // The comparison covered every operation type the core makes.
  const types = [
    'remove',
    'clear_tool_result',
    'clear_tool_result named',
    'truncate_tool_result',
    'remove_thinking',
    'clear_tool_inputs',
    'remove_tool_calls',
    'cache_breakpoint',
  ]
  assert.deepEqual(
    types.filter((t) => !seen.has(t)),
    [],
    `op types seen: ${JSON.stringify(Object.fromEntries(seen))}`,
  )
})

test("a plan's typed arrays are its own: plain arrays of their kinds, unchanged by later calls, none over another's elements", () => {
  // On WebAssembly the three are copied out of its memory together, into one buffer: each must
  // still be an array of its own kind and length, and no later call may write into them.
  const editor = new NativeContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 }, placeholder: RECALL_PLACEHOLDER })
  const plans = []
  for (let id = 1; id <= 24; id++) {
    const packed = editor.planSession(id, 0, wireConversation(new Rng(500 + id)), {})
    plans.push({ packed, ops: [...packed.ops], bytes: [...packed.stringBytes], ends: [...packed.stringEnds] })
  }
  assert.ok(plans.filter((p) => p.ops.length > 0 && p.bytes.length > 0).length > 12, 'most plans clear something')
  for (const [k, { packed, ops, bytes, ends }] of plans.entries()) {
    assert.equal(Object.getPrototypeOf(packed.ops), Uint32Array.prototype, `plan ${k}: ops`)
    assert.equal(Object.getPrototypeOf(packed.stringBytes), Uint8Array.prototype, `plan ${k}: stringBytes (not a Buffer)`)
    assert.equal(Object.getPrototypeOf(packed.stringEnds), Uint32Array.prototype, `plan ${k}: stringEnds`)
    assert.equal(packed.ops.length % 4, 0, `plan ${k}: four numbers an op`)
    assert.equal(packed.stringEnds.at(-1) ?? 0, packed.stringBytes.length, `plan ${k}: the last string ends at the bytes' end`)
    // As each call returned them, after all the later calls.
    assert.deepEqual([...packed.ops], ops, `plan ${k}: ops`)
    assert.deepEqual([...packed.stringBytes], bytes, `plan ${k}: stringBytes`)
    assert.deepEqual([...packed.stringEnds], ends, `plan ${k}: stringEnds`)
    // Writing over every element of one changes no other.
    packed.ops.fill(0xffffffff)
    packed.stringEnds.fill(0xfffffffe)
    packed.stringBytes.fill(0xfd)
    assert.ok(
      packed.ops.every((w) => w === 0xffffffff),
      `plan ${k}: ops written over`,
    )
    assert.ok(
      packed.stringEnds.every((w) => w === 0xfffffffe),
      `plan ${k}: stringEnds written over`,
    )
    assert.ok(
      packed.stringBytes.every((b) => b === 0xfd),
      `plan ${k}: stringBytes written over`,
    )
  }
  // And the plans made after them are their own too: nothing any of them wrote shows in another.
  for (const [k, { packed }] of plans.entries())
    assert.ok(
      packed.ops.every((w) => w === 0xffffffff),
      `plan ${k}`,
    )
})

/** A packed plan's string table made from `list` as the binding makes it: UTF-8 bytes and where each ends. */
function tableOf(list) {
  const bytes = Buffer.from(list.join(''))
  let end = 0
  return new StringTable(
    new Uint8Array(bytes),
    Uint32Array.from(list, (s) => (end += Buffer.byteLength(s))),
  )
}

test('string tables: each string read back as written, and the strings two tables share counted as a comparison of the strings would', () => {
  const rng = new Rng(7)
  const alphabet = ['a', 'b', 'é', '清', '🧹', '{', '"', '\\', '\n', '']
  const word = () => Array.from({ length: rng.int(0, 6) }, () => rng.pick(alphabet)).join('')
  for (let round = 0; round < 400; round++) {
    const a = Array.from({ length: rng.int(0, 8) }, word)
    // The next call's table: a's first strings, then others (some the same length as a's, some empty).
    const b = a.slice(0, rng.int(0, a.length))
    if (rng.chance(0.5) && b.length < a.length) b.push([...a[b.length]].reverse().join(''))
    while (rng.chance(0.6)) b.push(word())
    let naive = 0
    while (naive < a.length && naive < b.length && a[naive] === b[naive]) naive++
    const [ta, tb] = [tableOf(a), tableOf(b)]
    assert.equal(tb.sharedWith(ta), naive, `${JSON.stringify(b)} after ${JSON.stringify(a)}`)
    assert.equal(ta.sharedWith(tb), naive, `${JSON.stringify(a)} after ${JSON.stringify(b)}`)
    assert.deepEqual(
      Array.from({ length: tb.length }, (_, k) => tb.at(k)),
      b,
    )
    assert.deepEqual(StringTable.of(b).sharedWith(ta), naive, 'a table from a list (a binding before stringBytes) compares the same')
  }
})

test('a plan from a binding that sends its strings as JSON (before stringBytes) unpacks to the same plan', () => {
  const editor = new NativeContextEditor({ trigger: { tokens: 1 }, keep: { messages: 1 }, placeholder: '清除 {tool_call_id} 🧹' })
  const wire = wireConversation(new Rng(5))
  const packed = editor.planSession(1, 0, wire, {})
  const { strings } = unpack(packed)
  const list = Array.from({ length: strings.length }, (_, k) => strings.at(k))
  assert.ok(list.length > 2, `named placeholders: ${JSON.stringify(list)}`)
  const old = { ops: packed.ops, extra: JSON.stringify({ ...JSON.parse(packed.extra), strings: list }), report: packed.report, reportJson: packed.reportJson }
  assert.deepEqual(JSON.parse(JSON.stringify(unpack(old).plan.ops)), JSON.parse(JSON.stringify(unpack(packed).plan.ops)))
})

test("a small report crosses as its text at once, a long one stays native until read; both are the plain call's", () => {
  let small = 0
  let kept = 0
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(9000 + seed)
    const wire = wireConversation(rng)
    const options = rng.chance(0.5) ? { trigger: { tokens: 1e9 } } : { trigger: { tokens: 1 }, keep: { messages: 0 } }
    const packed = new NativeContextEditor(options).planSession(1, 0, wire, {})
    const plain = new NativeContextEditor(options).plan(wire, {})
    // One or the other, never both.
    assert.equal(packed.report === undefined, packed.reportJson !== undefined, `seed ${seed}`)
    const text = packed.report !== undefined ? packed.report.json() : packed.reportJson
    assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(plain.report)), `seed ${seed}`)
    const r = plain.report
    const entries = r.cleared.length + r.clearedToolInputs.length + r.removedOrphans.length + r.warnings.length
    if (packed.reportJson !== undefined) {
      small++
      // Small: its totals and at most a few entries.
      assert.ok(entries <= 6, `seed ${seed}: ${entries} entries, as text`)
    } else {
      kept++
      assert.ok(entries > 0, `seed ${seed}: kept native with no entries`)
    }
  }
  assert.ok(small > 10 && kept > 10, `as text ${small}, native ${kept}`)
})
