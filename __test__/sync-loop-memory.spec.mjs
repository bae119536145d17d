// Memory in a loop of synchronous calls. Node frees what a Node-API finalizer frees on a later turn
// of the event loop, never during the garbage collection that finds it dead, and a synchronous loop
// (a batch job editing stored conversations one after another) gives it no turn. Each plan's
// report was kept native until read or finalized: unread, about 170 KB a call at 2,000 messages
// piled up for the whole loop (4,000 calls: 680 MB). Unread native reports are now bounded
// (`NATIVE_REPORTS_CAP` in src/packed.rs); past the bound a report crosses as its text, which V8
// collects, and reads the same. An editor's sessions are freed by its finalizer too: a loop that
// made a new editor per conversation kept them all (9.7 GB after 6,000 editors of 2,000
// messages). The sessions and token caches of all editors are now bounded together
// (`MAX_PROCESS_SESSION_BYTES`, crates/core/src/registry.rs), other editors' least recently used
// first. A plan's typed arrays were external buffers, freed by a finalizer too: natively they are
// now the engine's own, and on WebAssembly copies out of its memory that leave nothing there to
// free (`engine_arrays` in src/packed.rs). Run on both builds (`npm run test:wasi`).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ContextEditor } from '../dist/index.js'
import { generateConversation } from '../benchmark/generate.mjs'
import { ON_WASM } from './support/binding.mjs'

const OPTIONS = { trigger: { tokens: 100000 }, keep: { messages: 3 } }

/**
 * The memory a loop is measured by (in MiB), as the child's code `memory()`: after a collection,
 * a pause of the main thread and another collection. V8 frees the memory of dead array buffers on
 * a thread of its own after a collection, and mimalloc returns freed pages after a delay: measured
 * at once, the RSS after 4,000 calls was 294 or 388 MiB from run to run of the same code, and the
 * growth after it -20 or +75 MiB. The pause turns no event loop: no Node-API finalizer runs.
 * Natively the process's RSS. On WebAssembly, what the binding's memory and its copies hold: the
 * size of the WebAssembly memory (which never shrinks: a `Vec` kept there grows it), the array
 * buffers and the JavaScript heap.
 */
const MEMORY = `const settled = () => { globalThis.gc(); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200); globalThis.gc(); return process.memoryUsage() }
    ${
      ON_WASM
        ? `const { __columnArena } = (await import('node:module')).createRequire(${JSON.stringify(new URL('../binding.cjs', import.meta.url).href)})(${JSON.stringify(fileURLToPath(new URL('../binding.cjs', import.meta.url)))})
    const memory = () => { const m = settled(); return (__columnArena(8).buffer.byteLength + m.arrayBuffers + m.heapUsed) / 2 ** 20 }`
        : 'const memory = () => settled().rss / 2 ** 20'
    }`
/**
 * The loop's calls after its first 300: until the unread reports reach their bound (about 1,500
 * calls), then more. The WebAssembly build's calls cost 4× the native ones, and its leak was
 * twice as large a call (214 MiB over 5,550 calls): half as many still fail it by 70 MiB.
 */
const [FIRST, LATER] = ON_WASM ? [1850, 2775] : [3700, 5550]
const WHAT = ON_WASM ? 'WebAssembly memory + array buffers + heap' : 'RSS'

/** Runs `body` (an ES module's text) in a new Node process with `--expose-gc`; returns its JSON output. */
function inChild(body) {
  const dist = new URL('../dist/index.js', import.meta.url).href
  const generate = new URL('../benchmark/generate.mjs', import.meta.url).href
  const source = `import { ContextEditor } from ${JSON.stringify(dist)}\nimport { generateConversation } from ${JSON.stringify(generate)}\n${body}`
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', source], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    encoding: 'utf8',
    timeout: 120_000,
  })
  assert.equal(r.status, 0, `child failed: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

test('a synchronous loop of edits whose reports are never read keeps memory bounded', () => {
  // The same history edited again and again (a next call each time) and a history that grows by
  // a turn per call, both with the report left unread, as a batch job that only wants the messages.
  const out = inChild(`
    const { messages, systemPrompt, tools } = generateConversation({ seed: 7, messages: 2400 })
    const ctx = { systemPrompt, tools, model: 'gpt-4o' }
    const editor = new ContextEditor(${JSON.stringify(OPTIONS)})
    ${MEMORY}
    const lists = []
    for (let k = 0; k <= 200; k++) lists.push(messages.slice(0, 2000 + 2 * k))
    let cleared = 0
    const run = (calls) => {
      for (let i = 0; i < calls; i++) cleared += editor.edit(i % 2 ? lists[200] : lists[i % 201], ctx).messages.length > 0 ? 1 : 0
    }
    run(300)
    const start = memory()
    run(${FIRST})
    const end = memory()
    run(${LATER})
    console.log(JSON.stringify({ start, end, later: memory(), cleared }))
  `)
  assert.equal(out.cleared, 300 + FIRST + LATER, 'every call returned messages')
  // Before the bound: 3,700 calls x ~170 KB = ~630 MB more. After it: at most the 128 MiB of
  // unread native reports, whatever the number of calls.
  const growth = out.end - out.start
  assert.ok(growth < 300, `${WHAT} grew by ${growth.toFixed(0)} MiB over ${FIRST} synchronous calls (start ${out.start.toFixed(0)} MiB)`)
  // And no more after that: each plan's typed arrays, external buffers freed by a finalizer, grew
  // it by ~16 KB a call (~85 MiB over these 5,550 calls) until they became the engine's own (on
  // WebAssembly, ~36 KB a call: the copy emnapi made and the `Vec` kept in its memory, 210 MiB).
  const later = out.later - out.end
  assert.ok(later < 40, `${WHAT} grew by ${later.toFixed(0)} MiB over ${LATER} more synchronous calls (from ${out.end.toFixed(0)} MiB)`)
})

// Runs first in this process (the test above runs in its own): the bound is process-wide.
test('the binding: past the bound a packed plan carries its report as text, equal to the native one', async () => {
  const { NativeContextEditor } = await import('../index.js')
  const { toColumns } = await import('../dist/wire.js')
  const { messages } = generateConversation({ seed: 13, messages: 2000 })
  // As columns, which the shim sends: wire objects cost the WebAssembly build a Node-API call per
  // field (this loop took a minute there).
  const lengthsOnly = { sendText: false, sendToolText: false, placeholders: undefined, cache: undefined, messageTokens: undefined }
  const [columns, end] = toColumns(messages, 0, messages.length, lengthsOnly, [])
  assert.equal(end, messages.length)
  const native = new NativeContextEditor(OPTIONS)
  const plan = (id) => native.planSessionColumns(id, 0, columns, {})
  const first = plan(1)
  assert.equal(first.reportJson, undefined, 'under the bound the report is kept native')
  const expected = JSON.parse(first.report.json())
  const held = [first]
  let past
  for (let id = 2; id < 2000 && past === undefined; id++) {
    const p = plan(id)
    held.push(p)
    if (p.reportJson !== undefined) past = p
  }
  assert.ok(past !== undefined, 'a plan made while many unread reports are held carries its text')
  assert.equal(past.report, undefined)
  assert.ok(held.length > 400, `the bound is not reached early (${held.length} plans)`)
  assert.deepEqual(JSON.parse(past.reportJson), expected)
  // The rest of the plan is the first plan's.
  assert.ok(past.ops instanceof Uint32Array && past.stringEnds instanceof Uint32Array && past.stringBytes instanceof Uint8Array)
  assert.deepEqual([...past.ops], [...first.ops])
  assert.deepEqual(Buffer.from(past.stringBytes).toString(), Buffer.from(first.stringBytes).toString())
  // Reading the held native reports gives their bytes back: later plans keep theirs native again.
  for (const p of held.slice(1)) if (p.report !== undefined) p.report.json()
  assert.equal(plan(5000).reportJson, undefined)
})

test('reports made while many unread reports are held read the same as reports kept native', () => {
  const { messages, systemPrompt, tools } = generateConversation({ seed: 11, messages: 2000 })
  const ctx = { systemPrompt, tools, model: 'gpt-4o' }
  const editor = new ContextEditor(OPTIONS)
  editor.edit(messages, ctx)
  // A next call on the same history, its report read at once (kept native until then).
  const first = editor.edit(messages, ctx)
  const expected = first.report
  assert.ok(expected.cleared.length > 500, 'the history clears many results: a large report')
  // Hold enough unread results to pass the bound (about 170 KB each), then keep calling: the
  // reports made past it cross as text. Holding them keeps them alive, so none is finalized.
  const held = []
  for (let i = 0; i < 1000; i++) held.push(editor.edit(messages, ctx))
  for (const r of [held[0], held[500], held[999], editor.edit(messages, ctx)]) {
    assert.deepEqual(r.report, expected)
    assert.deepEqual(r.messages.length, first.messages.length)
  }
  // And the plan's own report (`plan`, not `edit`) alike.
  assert.deepEqual(editor.plan(messages, ctx).report, editor.plan(messages, ctx).report)
  held.length = 0
})

test('an unread report of a plan made past the bound can be read after the loop ends', async () => {
  const { messages, systemPrompt, tools } = generateConversation({ seed: 12, messages: 2000 })
  const ctx = { systemPrompt, tools, model: 'gpt-4o' }
  const editor = new ContextEditor(OPTIONS)
  const results = []
  for (let i = 0; i < 900; i++) results.push(editor.edit(messages, ctx))
  // A turn of the event loop: nothing held is lost to a finalizer.
  await new Promise((resolve) => setImmediate(resolve))
  const reports = [results[1], results[899]].map((r) => r.report)
  assert.deepEqual(reports[0], reports[1])
  assert.ok(reports[1].cleared.length > 0)
  assert.ok(new ContextEditor(OPTIONS).edit(messages, ctx).report.tokensAfter === reports[0].tokensAfter)
})

test('the sessions of every editor in a process are bounded together: old editors lose theirs first', () => {
  // Sessions that keep their text (truncation reads it): 2 MB each, so 700 editors hold 1.4 GB
  // without the bound, more than the process's 1 GiB. An editor dropped in a synchronous loop is
  // one never used again, like the first editors here.
  const out = inChild(`
    const result = 'r'.repeat(200_000)
    const messages = [{ role: 'user', content: 'go' }]
    for (let k = 0; k < 10; k++) {
      messages.push({ role: 'assistant', content: '', tool_calls: [{ id: 'c' + k, type: 'function', function: { name: 'read', arguments: '{}' } }] })
      messages.push({ role: 'tool', tool_call_id: 'c' + k, content: result })
    }
    const options = { edits: [{ type: 'truncate_tool_results', trigger: { tokens: 1 }, maxChars: 1_000_000 }] }
    const editors = []
    for (let k = 0; k < 700; k++) {
      const editor = new ContextEditor(options)
      editor.edit(messages)
      editors.push(editor)
    }
    const holding = editors.filter((e) => e.sessionCount > 0).length
    // The oldest editor is used again: its conversation is planned afresh, and the same.
    const again = editors[0].edit(messages).messages.length
    console.log(JSON.stringify({ first: editors[0].sessionCount, last: editors[699].sessionCount, holding, again, rss: process.memoryUsage().rss / 2 ** 20 }))
  `)
  assert.equal(out.last, 1, 'the newest editor keeps its session')
  assert.ok(out.holding < 700, `every editor kept its session (${out.holding} of 700)`)
  assert.ok(out.holding > 300, `the bound is 1 GiB, about 500 such sessions (${out.holding} kept)`)
  assert.equal(out.again, 21, 'an editor whose session went plans its conversation again, whole')
  assert.equal(out.first, 1, 'and holds it again')
})
