#!/usr/bin/env node
// Cold calls and their peers (issue #19): every row puts ours next to the peer a user would run
// instead, measured in the same run, alternating ours and the peer run by run (medians), with the
// machine's load average printed per row. A section of `npm run bench` (`--only-cold` runs it alone
// there, `--no-cold` skips it) and runnable alone:
//
//   node benchmark/cold.mjs                       # sizes 200, 2000, 10000; seed 42
//   node benchmark/cold.mjs --sizes 2000 --runs 9 --conversations 64 --no-memory
//
// Rows:
// - cold `edit` (approx) vs the JS single pass (benchmark/js-reference.mjs);
// - cold `wrapModelCall` of the LangChain middleware (a new middleware per conversation, as a
//   replica serving a resumed thread) vs the same pass; and the first call in a new process;
// - both again in a warm process (after cold calls on other conversations of the same size);
// - next call vs the `WeakMap` memo loop (`jsClearToolUses` with per-message sizes memoised by
//   object identity), approx and model (the model loop counts new messages with tiktoken-rs), and
//   approx with the recall tool's placeholder (`{tool_call_id}`: each cleared result's own text);
//   as a process's first agent loops, then warm (after untimed loops of each, as in a server);
// - a summarisation plan that does not trigger, cold, vs LangChain's `summarizationMiddleware`;
// - `countTokens`, cold, on a history counted twice before, on one an edit holds and on one it
//   counted before grown by two messages, vs LangChain's `countTokensApproximately` (what that
//   middleware runs); the last in model mode too, vs a `WeakMap` memo + tiktoken-rs count;
// - cold exact (model) `edit` vs a tiktoken-rs loop over the same texts;
// - next calls with many conversations served in turn vs the single pass;
// - session memory per 2,000-message conversation in model mode vs the text it holds;
// - where a cold call goes: the JS walk to columns, the memo, napi + core count, plan, apply.

import os from 'node:os'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { countTokensApproximately, summarizationMiddleware as lcSummarization } from 'langchain'
import { ContextEditor, RECALL_PLACEHOLDER } from '../dist/index.js'
import { contextEditingMiddleware, summarizationMiddleware } from '../dist/langchain/index.js'
import { NativeContextEditor, toWireContext } from '../index.js'
import { applyEdits, jsonText, toColumns, toWire } from '../dist/wire.js'
import { __referenceCountTokens } from '../dist/internal.js'
import { generateConversation, parseFlags } from './generate.mjs'
import { jsClearToolUses } from './js-reference.mjs'
import { floorRows } from './floors.mjs'

const OPTIONS = { trigger: { tokens: 100000 }, keep: { messages: 3 } }
const MODEL = { ...OPTIONS, tokenCountMethod: 'model', model: 'gpt-4o' }

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const ms = (x) => (x >= 100 ? `${x.toFixed(0)} ms` : x >= 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(2)} ms`)
const ratio = (a, b) => `${(a / b).toFixed(2)}×`
const load = () => os.loadavg()[0].toFixed(2)
const log = (...a) => console.error('[cold]', ...a)

/** CPU time of this process (all threads) in ms: steadier than wall time on a shared machine. */
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

/**
 * A turn of the event loop, untimed, before each timed call: a host awaits the model (or a
 * request) between calls, and Node frees what Node-API finalizers free only on such a turn (see
 * `NATIVE_REPORTS_CAP` in src/packed.rs). Without it, a loop of calls measures a process that
 * never gets its memory back.
 */
const turn = () => new Promise((resolve) => setImmediate(resolve))

/**
 * Times `ours` and `peer` alternately, `runs` times each after one untimed round (a fresh `setup()`
 * before each timed call when given, untimed); returns both lists of times, each with its CPU
 * times in `.cpu`.
 */
async function paired(runs, ours, peer, { oursSetup, peerSetup } = {}) {
  const a = Object.assign([], { cpu: [] })
  const b = Object.assign([], { cpu: [] })
  for (let r = -1; r < runs; r++) {
    for (const [fn, setup, out] of r % 2
      ? [
          [ours, oursSetup, a],
          [peer, peerSetup, b],
        ]
      : [
          [peer, peerSetup, b],
          [ours, oursSetup, a],
        ]) {
      const s = setup ? await setup() : undefined
      await turn()
      const c0 = cpu()
      const t0 = performance.now()
      await fn(s)
      const t = performance.now() - t0
      if (r >= 0) {
        out.push(t)
        out.cpu.push(cpu() - c0)
      }
    }
  }
  return [a, b]
}

/** Where an agent's next calls happen: before each of the last `k` AI turns, then the whole history. */
function cutsOf(messages, k) {
  const cuts = []
  for (let j = messages.length - 1; j > 0 && cuts.length < k; j--) if (messages[j]._getType() === 'ai') cuts.unshift(j)
  return [...cuts, messages.length]
}

/** Per-call times of an agent loop into `out` (and CPU times into `out.cpu`): one untimed call on the first cut, then one timed call per cut. */
async function loop(messages, cuts, call, out) {
  await call(messages.slice(0, cuts[0]))
  for (const end of cuts.slice(1)) {
    const view = messages.slice(0, end)
    await turn()
    const c0 = cpu()
    const t0 = performance.now()
    await call(view)
    out.push(performance.now() - t0)
    out.cpu.push(cpu() - c0)
  }
}

/** The texts a tiktoken-rs loop counts: every content and every AI message's tool calls. */
function textsOf(m) {
  const c = m.content
  const texts = [typeof c === 'string' ? c : JSON.stringify(c)]
  if (m.tool_calls?.length) texts.push(JSON.stringify(m.tool_calls))
  return texts
}

/** The memo loop in approx mode: the single pass with per-message sizes memoised by object identity. */
function approxMemoLoop(options) {
  const memo = new WeakMap()
  return (messages) => jsClearToolUses(messages, options, memo)
}

/**
 * Each of `messages` not in `memo` counted with tiktoken-rs (their texts in one call) and put
 * there: its tokens (4 per message plus its texts') times `scale`.
 */
function memoiseModelCounts(messages, memo, scale) {
  const fresh = []
  const texts = []
  for (const m of messages) {
    if (memo.has(m)) continue
    fresh.push(m)
    for (const t of textsOf(m)) texts.push(t)
  }
  if (texts.length === 0) return
  const counts = __referenceCountTokens(texts, 'o200k_base')
  let k = 0
  for (const m of fresh) {
    let n = 4
    for (let j = textsOf(m).length; j > 0; j--) n += counts[k++]
    memo.set(m, n * scale)
  }
}

/** A model-mode count of `messages` with per-message counts memoised by object (the memo passed in). */
function modelMemoCount(messages) {
  return (memo) => {
    memoiseModelCounts(messages, memo, 1)
    let total = 0
    for (const m of messages) total += memo.get(m)
    return total
  }
}

/**
 * The memo loop in model mode: per-message token counts memoised by object identity, the new
 * messages counted with tiktoken-rs in one call, then the same single pass on those counts.
 */
function modelMemoLoop() {
  const memo = new WeakMap()
  return (messages) => {
    // In "characters" of the single pass: it divides by 4.
    memoiseModelCounts(messages, memo, 4)
    return jsClearToolUses(messages, OPTIONS, memo)
  }
}

const request = (messages, systemPrompt) => ({ messages, systemPrompt, model: { model: 'gpt-4o' } })
const handler = async () => null

/** A fake chat model for LangChain's summarization middleware (never called: it does not trigger). */
const fakeModel = { invoke: async () => ({ content: 'summary' }), _modelType: () => 'base_chat_model', profile: {} }

async function rowsForSize(n, seed, runs) {
  const { messages, systemPrompt, tools, stats } = generateConversation({ seed, messages: n })
  const ctx = { systemPrompt, tools, model: 'gpt-4o' }
  const label = `${n.toLocaleString('en-US')} (${stats.mb.toFixed(1)} MB)`
  const out = []
  const row = (what, ours, peer, peerName, note = '') => {
    const [o, p] = [median(ours), median(peer)]
    const c = ours.cpu ? ratio(median(ours.cpu), median(peer.cpu)) : ''
    out.push(`| ${what} | ${label} | ${ms(o)} | ${peerName}: ${ms(p)} | **${ratio(o, p)}** | ${c} | ${load()} | ${note} |`)
    log(`${n} ${what}: ${ms(o)} vs ${ms(p)} (${ratio(o, p)}; CPU ${c})`)
  }
  const pass = () => jsClearToolUses(messages, OPTIONS)

  /** The cold rows: `edit` on a new editor and `wrapModelCall` on a new middleware, against the pass. */
  const coldRows = async (editLabel, middlewareLabel) => {
    const [a, b] = await paired(runs, (ed) => ed.edit(messages, ctx), pass, { oursSetup: () => new ContextEditor(OPTIONS) })
    row(editLabel, a, b, 'JS single pass')
    const [c, d] = await paired(runs, (mw) => mw.wrapModelCall(request(messages, systemPrompt), handler), pass, {
      oursSetup: () => contextEditingMiddleware(OPTIONS),
    })
    row(middlewareLabel, c, d, 'JS single pass')
  }
  await coldRows('cold `edit`, approx', 'cold `wrapModelCall` (new middleware)')
  let a, b

  // The rows above are this process's first cold calls at this size (at 200 messages, its first
  // calls at all): V8 has not yet optimized what a cold call runs, while the single pass is a few
  // lines. A server that has served other threads meets a resumed thread with its code optimized:
  // the same rows again after untimed cold calls on other conversations of the same size (about
  // 8,000 messages' worth, at least 3; other objects, so no memo of ours has seen them).
  const coldWarm = Math.max(3, Math.round(8000 / n))
  const other = generateConversation({ seed: seed + 7, messages: n })
  const otherCtx = { systemPrompt: other.systemPrompt, tools: other.tools, model: 'gpt-4o' }
  for (let k = 0; k < coldWarm; k++) {
    new ContextEditor(OPTIONS).edit(other.messages, otherCtx)
    await contextEditingMiddleware(OPTIONS).wrapModelCall(request(other.messages, other.systemPrompt), handler)
    jsClearToolUses(other.messages, OPTIONS)
    await turn()
  }
  const after = `warm process (after ${coldWarm} cold calls on other conversations)`
  await coldRows(`cold \`edit\`, approx, ${after}`, `cold \`wrapModelCall\`, ${after}`)

  const cuts = cutsOf(messages, 25)
  const timed = () => Object.assign([], { cpu: [] })
  /**
   * `count` agent loops of ours with `options` and of the memo loop (`memoLoop()` makes one, with a
   * memo of its own), interleaved: a new editor and a new memo each time.
   */
  const agentLoops =
    (options, memoLoop = () => approxMemoLoop(options)) =>
    async (count, ours, memo) => {
      for (let r = 0; r < count; r++) {
        const ed = new ContextEditor(options)
        await loop(messages, cuts, (v) => ed.edit(v, ctx), ours)
        await loop(messages, cuts, memoLoop(), memo)
      }
    }
  /** Three timed loops of each. */
  const timedLoops = async (measure) => {
    const [ours, memo] = [timed(), timed()]
    await measure(3, ours, memo)
    return [ours, memo]
  }
  const recall = { ...OPTIONS, placeholder: RECALL_PLACEHOLDER }
  row('next call, approx', ...(await timedLoops(agentLoops(OPTIONS))), '`WeakMap` memo loop')
  // The recall tool's placeholder names each result's call: a string of its own per cleared result.
  row('next call, approx, recall placeholder', ...(await timedLoops(agentLoops(recall))), '`WeakMap` memo loop')
  new ContextEditor(MODEL).countTokens([{ role: 'user', content: 'load the ranks' }])
  row('next call, model', ...(await timedLoops(agentLoops(MODEL, modelMemoLoop))), '`WeakMap` memo loop + tiktoken-rs')

  // The rows above are a process's first agent loops of each kind: V8 has not yet optimized the
  // functions a next call runs once per call (a 200-message call took 0.17-0.29 ms after 3-10
  // loops and 0.08 ms after 100 on the same machine), while the memo loop is a few lines. A server
  // runs them warm: the same rows again after untimed loops of each (about 8,000 messages' worth:
  // 40 loops at 200 messages, at least 3).
  const warmLoops = Math.max(3, Math.round(8000 / n))
  const warm = async (measure) => {
    await measure(warmLoops, timed(), timed())
    return timedLoops(measure)
  }
  row(`next call, approx, warm (after ${warmLoops} loops)`, ...(await warm(agentLoops(OPTIONS))), '`WeakMap` memo loop, warm')
  row(`next call, approx, recall placeholder, warm (after ${warmLoops} loops)`, ...(await warm(agentLoops(recall))), '`WeakMap` memo loop, warm')
  row(`next call, model, warm (after ${warmLoops} loops)`, ...(await warm(agentLoops(MODEL, modelMemoLoop))), '`WeakMap` memo loop + tiktoken-rs, warm')

  // Summarisation that does not trigger: a cold plan (new middleware) vs LangChain's beforeModel.
  const sumOpts = { trigger: { tokens: 1e9 }, keep: { messages: 20 } }
  const state = { messages }
  const runtime = { context: {} }
  ;[a, b] = await paired(
    runs,
    (mw) => mw.beforeModel(state, runtime),
    (mw) => mw.beforeModel(state, runtime),
    { oursSetup: () => summarizationMiddleware({ ...sumOpts, model: fakeModel }), peerSetup: () => lcSummarization({ ...sumOpts, model: fakeModel }) },
  )
  row('summarisation plan, not triggered, cold', a, b, 'LangChain `summarizationMiddleware`')
  // What LangChain's summarisation runs when it does not summarise: its count, against ours, on an
  // editor `setup` makes.
  const countRow = async (what, setup) => {
    ;[a, b] = await paired(
      runs,
      (ed) => ed.countTokens(messages, ctx),
      () => countTokensApproximately(messages),
      {
        oursSetup: () => {
          const ed = new ContextEditor(OPTIONS)
          setup(ed)
          return ed
        },
      },
    )
    row(`\`countTokens\`, approx, ${what}`, a, b, 'LangChain `countTokensApproximately`', 'ours also counts the system prompt and tools')
  }
  await countRow('cold', () => {})
  // The same history counted again (a host that counts every turn): the second count holds it in
  // a session, so the third checks it unchanged and reads nothing new (ts/sessions.ts, `count`).
  await countRow('the same history a third time', (ed) => {
    ed.countTokens(messages, ctx)
    ed.countTokens(messages, ctx)
  })
  // A host that counts every turn with the editor that edits: the history the previous edit held,
  // grown by two messages, counted through that conversation's session (only the two are read).
  await countRow('a history an edit holds, two messages more', (ed) => ed.edit(messages.slice(0, -2), ctx))
  // A host that counts a growing history every turn and never edits it: from the second count of
  // a history, a count goes through a session that then holds it (ts/sessions.ts, `count`).
  await countRow('a history it counted before, two messages more', (ed) => {
    ed.countTokens(messages.slice(0, -4), ctx)
    ed.countTokens(messages.slice(0, -2), ctx)
  })
  // The same host counting exactly (model mode), against the least a host could write: each
  // message's count memoised by object, the new ones counted with tiktoken-rs.
  ;[a, b] = await paired(runs, (ed) => ed.countTokens(messages, ctx), modelMemoCount(messages), {
    oursSetup: () => {
      const ed = new ContextEditor(MODEL)
      ed.countTokens(messages.slice(0, -4), ctx)
      ed.countTokens(messages.slice(0, -2), ctx)
      return ed
    },
    peerSetup: () => {
      const memo = new WeakMap()
      modelMemoCount(messages.slice(0, -2))(memo)
      return memo
    },
  })
  row(
    '`countTokens`, model, a history it counted before, two messages more',
    a,
    b,
    '`WeakMap` memo + tiktoken-rs',
    'ours also counts the system prompt and tools',
  )

  const texts = messages.flatMap(textsOf)
  ;[a, b] = await paired(
    Math.min(runs, 5),
    (ed) => ed.edit(messages, ctx),
    () => __referenceCountTokens(texts, 'o200k_base'),
    {
      oursSetup: () => new ContextEditor(MODEL),
    },
  )
  row('cold exact (model) `edit`', a, b, 'tiktoken-rs loop (`encode_ordinary`)', 'ranks loaded; our token cache empty')
  return { out, breakdown: await breakdown(messages, ctx, n), floors: await floors(messages, label) }
}

/**
 * CPU time of `f` (steadier than wall time on a shared machine), median of `runs` after as many
 * untimed calls, with a turn of the event loop before each (see `turn`: without it, what finalizers
 * free piles up and each step is timed in a process that never gets its memory back). The untimed
 * calls let V8 optimize the step as it is in a running process: after one, applying a 2,000-message
 * plan still ran unoptimized code and measured 7 ms, against 1.4 ms warm.
 */
async function cpuTime(f, runs) {
  for (let i = 0; i < runs; i++) {
    await turn()
    f()
  }
  const t = []
  for (let i = 0; i < runs; i++) {
    await turn()
    const c0 = cpu()
    f()
    t.push(cpu() - c0)
  }
  return median(t)
}

/** The floors under the cold rows (benchmark/floors.mjs), CPU time, median of 15. */
async function floors(messages, label) {
  return floorRows(messages, label, (f) => cpuTime(f, 15), countTokensApproximately, ms)
}

/**
 * Where a cold approx call goes, each step timed on its own (CPU time, median of 9): the JS walk that
 * writes the messages into columns (ts/wire/columns.ts), the editor's memo (fingerprints), napi +
 * building the core's messages + core count (an untriggered plan), the plan itself (triggered minus
 * untriggered) and applying it; and, for comparison, what the same messages cost as wire objects
 * and JSON text (the wire before columns).
 */
async function breakdown(messages, ctx, n) {
  const time = (f) => cpuTime(f, 9)
  const opts = { sendText: false, placeholders: new Set(['[cleared]']) }
  const memo = () => ({ ...opts, cache: new WeakMap() })
  const wctx = toWireContext(ctx)
  const columns = () => toColumns(messages, 0, messages.length, opts, [])[0]
  const cols = columns()
  const on = new NativeContextEditor(OPTIONS)
  const off = new NativeContextEditor({ ...OPTIONS, trigger: { tokens: 1e15 } })
  const plan = JSON.parse(on.planColumns(cols, wctx))
  const t = {
    pass: await time(() => jsClearToolUses(messages, OPTIONS)),
    columns: await time(columns),
    memo: await time(() => toColumns(messages, 0, messages.length, memo(), [])),
    count: await time(() => off.planColumns(cols, wctx)),
    plan: await time(() => on.planColumns(cols, wctx)),
    apply: await time(() => applyEdits(messages, plan, {})),
    edit: await time(() => new ContextEditor(OPTIONS).edit(messages, ctx)),
    before: await time(() => off.planJson(jsonText(messages.map((m, i) => toWire(m, i, opts))), wctx)),
  }
  t.plan -= t.count
  t.memo -= t.columns
  const sum = t.columns + t.memo + t.count + t.plan + t.apply
  return `| ${n.toLocaleString('en-US')} | ${ms(t.columns)} | ${ms(t.memo)} | ${ms(t.count)} | ${ms(t.plan)} | ${ms(t.apply)} | ${ms(sum)} | ${ms(t.edit)} | ${ms(t.pass)} | ${ms(t.before)} vs ${ms(t.columns + t.count)} |`
}

/**
 * Many conversations served in turn by one editor (a server answering threads): each gets a first
 * call (untimed), then rounds of next calls, one per conversation per round.
 */
async function manyConversations(count, size, seed, mode) {
  const convs = []
  for (let k = 0; k < count; k++) convs.push(generateConversation({ seed: seed + 1000 + k, messages: size }))
  const ed = new ContextEditor(mode === 'model' ? MODEL : OPTIONS)
  const cuts = convs.map((c) => cutsOf(c.messages, 10))
  convs.forEach((c, k) => ed.edit(c.messages.slice(0, cuts[k][0]), { systemPrompt: c.systemPrompt, tools: c.tools }))
  const first = []
  const later = []
  const pass = []
  for (let round = 1; round < cuts[0].length; round++) {
    for (let k = 0; k < count; k++) {
      const c = convs[k]
      const view = c.messages.slice(0, cuts[k][round])
      await turn()
      let t0 = performance.now()
      ed.edit(view, { systemPrompt: c.systemPrompt, tools: c.tools })
      ;(round === 1 ? first : later).push(performance.now() - t0)
      t0 = performance.now()
      jsClearToolUses(view, OPTIONS)
      pass.push(performance.now() - t0)
    }
  }
  const all = [...first, ...later]
  const [o, p] = [median(all), median(pass)]
  log(`${count} conversations ${mode}: ${ms(o)} (first growth ${ms(median(first))}) vs ${ms(p)}`)
  return `| next call, ${count} conversations served in turn, ${mode} | ${count} × ${size.toLocaleString('en-US')} | ${ms(o)} (first growth ${ms(median(first))}, later ${ms(median(later))}) | JS single pass: ${ms(p)} | **${ratio(o, p)}** | | ${load()} | ${all.length} calls |`
}

/** In a child process (`--memory-child`): what a model-mode session holds per 2,000-message conversation. */
async function memoryChild(seed, count) {
  const gc = globalThis.gc
  const convs = []
  for (let k = 0; k < count; k++) convs.push(generateConversation({ seed: seed + 2000 + k, messages: 2000 }))
  const ed = new ContextEditor(MODEL)
  ed.countTokens([{ role: 'user', content: 'load the ranks' }])
  const bytes = convs.reduce((s, c) => s + c.messages.flatMap(textsOf).reduce((x, t) => x + Buffer.byteLength(t), 0), 0)
  gc()
  const m0 = process.memoryUsage()
  for (const c of convs) ed.edit(c.messages, { systemPrompt: c.systemPrompt, tools: c.tools })
  gc()
  const m1 = process.memoryUsage()
  console.log(JSON.stringify({ count, bytes, rss: m1.rss - m0.rss, heap: m1.heapUsed - m0.heapUsed, held: ed.cacheSize }))
}

function memoryRow(seed, count) {
  const outText = execFileSync(
    process.execPath,
    ['--expose-gc', fileURLToPath(import.meta.url), '--memory-child', '--seed', String(seed), '--conversations', String(count)],
    {
      encoding: 'utf8',
    },
  )
  const r = JSON.parse(outText.trim().split('\n').pop())
  const mib = (x) => `${(x / 2 ** 20).toFixed(1)} MiB`
  const per = r.rss / r.count
  const text = r.bytes / r.count
  return `| session memory per 2,000-message conversation, model | ${r.count} × 2,000 | ${mib(per)} (RSS; JS heap ${mib(r.heap / r.count)}) | text it holds (UTF-8): ${mib(text)} | **${ratio(per, text)}** | | ${load()} | RSS growth after \`gc()\` / conversations |`
}

/** The fixed first-call cost: a new process imports the LangChain middleware and makes its first call. */
function firstProcessRow(seed) {
  const script = `
    const { generateConversation } = await import(${JSON.stringify(new URL('./generate.mjs', import.meta.url).href)})
    const { jsClearToolUses } = await import(${JSON.stringify(new URL('./js-reference.mjs', import.meta.url).href)})
    const c = generateConversation({ seed: ${seed}, messages: 200 })
    const req = { messages: c.messages, systemPrompt: c.systemPrompt, model: { model: 'gpt-4o' } }
    let t = performance.now()
    jsClearToolUses(c.messages, ${JSON.stringify(OPTIONS)})
    const pass = performance.now() - t
    t = performance.now()
    const { contextEditingMiddleware } = await import(${JSON.stringify(new URL('../dist/langchain/index.js', import.meta.url).href)})
    const imp = performance.now() - t
    t = performance.now()
    const mw = contextEditingMiddleware(${JSON.stringify(OPTIONS)})
    const make = performance.now() - t
    t = performance.now()
    await mw.wrapModelCall(req, async () => null)
    const first = performance.now() - t
    t = performance.now()
    await contextEditingMiddleware(${JSON.stringify(OPTIONS)}).wrapModelCall({ ...req, messages: c.messages.slice() }, async () => null)
    const second = performance.now() - t
    console.log(JSON.stringify({ pass, imp, make, first, second }))`
  const runs = []
  for (let i = 0; i < 5; i++) {
    const o = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    runs.push(JSON.parse(o.trim().split('\n').pop()))
  }
  const m = (k) => median(runs.map((r) => r[k]))
  log(`new process: import ${ms(m('imp'))}, construct ${ms(m('make'))}, first call ${ms(m('first'))}, second ${ms(m('second'))}, pass ${ms(m('pass'))}`)
  return (
    `| first \`wrapModelCall\` in a new process (middleware already imported) | 200 | ${ms(m('make') + m('first'))} (construct ${ms(m('make'))} + call ${ms(m('first'))}; a second new middleware: ${ms(m('second'))}) | JS single pass, first run: ${ms(m('pass'))} | **${ratio(m('make') + m('first'), m('pass'))}** | | ${load()} | ` +
    `importing context-editor/langchain: ${ms(m('imp'))}; 5 processes |`
  )
}

export async function benchCold({ seed = 42, sizes = [200, 2000, 10000], runs = 7, conversations = 64, memory = true } = {}) {
  const lines = [
    `Load average at the start: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}. Options \`trigger: { tokens: 100000 }, keep: { messages: 3 }\` (summarisation: \`trigger: { tokens: 1e9 }\`). ` +
      `Ours and the peer alternate run by run; medians of ${runs} (next calls: the last 25 calls of 3 agent loops each). Ratio = ours / peer (below 1: ours is faster); the CPU-time ratio compares the medians of the process's CPU time (all threads) per call, steadier than wall time on a loaded machine.`,
    '',
    '| row | messages | ours | peer, same run | ratio | CPU-time ratio | load (1 min) | note |',
    '|---|---|---|---|---|---|---|---|',
  ]
  const breakdowns = []
  const floorLines = []
  for (const n of sizes) {
    const r = await rowsForSize(n, seed, runs)
    lines.push(...r.out)
    breakdowns.push(r.breakdown)
    floorLines.push(...r.floors)
  }
  lines.push(firstProcessRow(seed))
  if (conversations > 0) {
    lines.push(await manyConversations(conversations, 2000, seed, 'approx'))
    lines.push(await manyConversations(conversations, 2000, seed, 'model'))
  }
  if (memory) lines.push(memoryRow(seed, 16))
  lines.push(
    '',
    'Where a cold approx call goes (each step on its own, CPU time of this process, median of 9 after 9 untimed runs, a turn of the event loop before each; "napi + core count" is an untriggered plan of the columns, "plan" the triggered one minus it; "apply" is the internal `applyEdits` that `edit` uses; the last column compares the wire before columns, `toWire` + JSON text + an untriggered `planJson`, with columns + an untriggered `planColumns`):',
    '',
    '| messages | JS walk to columns | memo (fingerprints) | napi + build + core count | plan + packed output | apply | sum | cold `edit` | JS single pass | JSON wire vs columns, to the count |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...breakdowns,
    '',
    "Floors (benchmark/floors.mjs; CPU time, median of 15 after 15 untimed runs, a turn of the event loop before each): LangChain's own count (`countTokensApproximately`, what its summarisation runs when it does not summarise); the least an exact copy of it reads (every content length, the JSON length of every call's `args`, measured as `ContextEditor` measures them); the same with the lone-surrogate check on each content string, as `ContextEditor` checks every string (JSON text needs none); and the JS single pass. A target under a floor needs a guarantee given up, not a faster boundary.",
    '',
    '| messages | LangChain count | exact-count floor (÷ LangChain) | + lone-surrogate check (÷ LangChain) | JS single pass | checked floor ÷ single pass |',
    '|---|---|---|---|---|---|',
    ...floorLines,
  )
  return lines.join('\n')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const flags = parseFlags(process.argv.slice(2))
  const seed = Number(flags.seed ?? 42)
  if (flags['memory-child'] === 'true') await memoryChild(seed, Number(flags.conversations ?? 16))
  else {
    const sizes = String(flags.sizes ?? '200,2000,10000')
      .split(',')
      .map(Number)
      .filter((n) => n > 0)
    console.log(
      await benchCold({ seed, sizes, runs: Number(flags.runs ?? 7), conversations: Number(flags.conversations ?? 64), memory: flags['no-memory'] !== 'true' }),
    )
  }
}
