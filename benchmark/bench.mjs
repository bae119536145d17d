#!/usr/bin/env node
// Benchmark: context-editor vs LangChain's ClearToolUsesEdit, and our exact token counter vs the JS
// tokenizers. Not a test: it prints markdown tables (stdout) and progress (stderr).
//
//   npm run bench                                   # sizes 200, 2000, 10000; seed 42
//   node benchmark/bench.mjs --sizes 200,2000 --seed 7 --cap 10 --no-tokenizers
//
// Flags: --seed N, --sizes a,b,c, --cap SECONDS (time cap of one LangChain call; default 15),
//        --exact-cap SECONDS (the same for LangChain's exact mode; default --cap),
//        --budget SECONDS (time spent per measured cell of ours; default 2), --no-tokenizers,
//        --only-tokenizers, --families a,b (open-model tokenizer tables: which families; default every
//        installed one), --no-families, --no-extras (event loop, memory), --corpus-messages N (tokenizer corpus
//        size; default 2000), --dump-corpus FILE (write the tokenizer corpus as JSON and exit; see
//        benchmark/tokenizers-rs for the Rust-side comparison), --next-calls N (agent-loop calls timed
//        per size for the "next call" columns; default 25), --wasi (then the same editing and
//        token counting tables again with the WebAssembly build, NAPI_RS_FORCE_WASI=error, in a
//        child process: `npm run bench` passes it; build it with `npm run build:platforms wasm32-wasi`).
//        --only-cold / --no-cold: the cold-call section (benchmark/cold.mjs, also runnable alone).
// Build the release addon first: `npm run build` (napi build --platform --release && tsc).

import os from 'node:os'
import { readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { ClearToolUsesEdit, countTokensApproximately } from 'langchain'
import { SystemMessage } from '@langchain/core/messages'
import { ContextEditor, applyPlan } from '../dist/index.js'
import { NativeContextEditor, __napiBindingTarget, toWireContext, toWireMessages } from '../index.js'
import { contextEditingMiddlewareObject } from '../dist/xpert/index.js'
import { fingerprint, unchanged } from '../dist/wire.js'
import { __referenceCountTokens } from '../dist/internal.js'
import { generateConversation, parseFlags } from './generate.mjs'
import { jsClearToolUses } from './js-reference.mjs'

const require = createRequire(import.meta.url)

// ---------------------------------------------------------------------------------------------
// Flags and helpers

const flags = parseFlags(process.argv.slice(2))
const SEED = Number(flags.seed ?? 42)
const SIZES = String(flags.sizes ?? '200,2000,10000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0)
const CAP_MS = Number(flags.cap ?? 15) * 1000
const EXACT_CAP_MS = Number(flags['exact-cap'] ?? flags.cap ?? 15) * 1000
const BUDGET_MS = Number(flags.budget ?? 2) * 1000
const CORPUS_MESSAGES = Number(flags['corpus-messages'] ?? 2000)
/** Next calls timed per size (one per AI turn at the end of the conversation). */
const NEXT_CALLS = Number(flags['next-calls'] ?? 25)

const log = (...a) => console.error('[bench]', ...a)
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const fmtMs = (ms) =>
  ms >= 7200e3
    ? `${(ms / 3600e3).toFixed(0)} h`
    : ms >= 120e3
      ? `${(ms / 60e3).toFixed(0)} min`
      : ms >= 10000
        ? `${(ms / 1000).toFixed(1)} s`
        : ms >= 1000
          ? `${(ms / 1000).toFixed(2)} s`
          : ms >= 100
            ? `${ms.toFixed(0)} ms`
            : ms >= 10
              ? `${ms.toFixed(1)} ms`
              : `${ms.toFixed(2)} ms`
const sig2 = (x) => {
  const p = 10 ** (Math.floor(Math.log10(x)) - 1)
  return Math.round(x / p) * p
}
const fmtRatio = (x) =>
  x >= 1000 ? `${sig2(x).toLocaleString('en-US')}×` : x >= 100 ? `${Math.round(x).toLocaleString('en-US')}×` : x >= 10 ? `${x.toFixed(0)}×` : `${x.toFixed(1)}×`

/**
 * Runs `fn` (after an untimed `setup` per run) at least `minRuns` times and until `budgetMs` is
 * spent (at most `maxRuns`); returns the per-run times.
 */
async function measure(fn, { setup, minRuns = 3, maxRuns = 25, budgetMs = BUDGET_MS, warmup = 1 } = {}) {
  for (let i = 0; i < warmup; i++) {
    const s = setup ? await setup() : undefined
    await fn(s)
  }
  const times = []
  const start = performance.now()
  while (times.length < minRuns || (times.length < maxRuns && performance.now() - start < budgetMs)) {
    const s = setup ? await setup() : undefined
    const t0 = performance.now()
    await fn(s)
    times.push(performance.now() - t0)
  }
  return times
}

class Capped extends Error {
  constructor(elapsed, progress) {
    super('capped')
    this.elapsed = elapsed
    this.progress = progress // fraction of the whole call done, estimated
  }
}

function version(pkg) {
  try {
    return JSON.parse(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version
  } catch {
    return '?'
  }
}

// ---------------------------------------------------------------------------------------------
// LangChain side

const EDIT_OPTIONS = { trigger: { tokens: 100000 }, keep: { messages: 3 } }
const CHECK_OPTIONS = {
  trigger: [{ tokens: 50000, messages: 50 }, { messages: 5000 }],
  keep: { tokens: 20000 },
  excludeTools: ['read_ticket'],
  clearToolInputs: true,
}

/**
 * LangChain's model-mode counter as `contextEditingMiddleware` builds it over ChatOpenAI's
 * `getNumTokensFromMessages` (3 tokens per message, the role, the name + 1, 3 for the reply's
 * priming; the system message included), on js-tiktoken o200k_base with the ranks loaded locally
 * (LangChain itself would fetch them from the network first). `deadline` interrupts it.
 */
async function makeJsTiktokenCounter() {
  const { Tiktoken } = await import('js-tiktoken/lite')
  const ranks = (await import('js-tiktoken/ranks/o200k_base')).default
  const enc = new Tiktoken(ranks)
  const roleOf = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool' }
  const text = (m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => (typeof b === 'string' ? b : (b.text ?? ''))).join(''))
  return { enc, roleOf, text }
}

function exactCounter(js, systemPrompt, clock) {
  const system = new SystemMessage(systemPrompt)
  return async (messages) => {
    const all = [system, ...messages]
    let total = 3
    for (let i = 0; i < all.length; i++) {
      const m = all[i]
      total += 3 + js.enc.encode(js.text(m)).length + js.enc.encode(js.roleOf[m._getType()] ?? 'user').length
      if (m.name !== undefined) total += 1 + js.enc.encode(m.name ?? '').length
      clock.tick(i, all.length)
    }
    clock.call()
    return total
  }
}

/**
 * Runs one LangChain `ClearToolUsesEdit.apply` under a time cap. `expectedCalls` (how many times
 * LangChain will count the whole history: once, then once per cleared result) turns a capped run
 * into an estimate of the full call.
 */
async function runLangChain(messages, options, { counter, expectedCalls, capMs = CAP_MS }) {
  const copy = messages.slice()
  const edit = new ClearToolUsesEdit(options)
  let calls = 0
  let t0 = 0
  const clock = {
    tick(i, n) {
      const el = performance.now() - t0
      if (el > capMs) throw new Capped(el, (calls + i / n) / expectedCalls)
    },
    call() {
      calls++
      const el = performance.now() - t0
      if (el > capMs) throw new Capped(el, calls / expectedCalls)
    },
  }
  const countTokens = counter(clock)
  t0 = performance.now()
  try {
    await edit.apply({ messages: copy, model: undefined, countTokens })
    return { ms: performance.now() - t0, messages: copy, calls }
  } catch (e) {
    if (!(e instanceof Capped)) throw e
    return { ms: e.elapsed, capped: true, estimateMs: e.elapsed / Math.max(e.progress, 1e-9), calls }
  }
}

const approxCounter = (clock) => (messages) => {
  const n = countTokensApproximately(messages)
  clock.call()
  return n
}

// ---------------------------------------------------------------------------------------------
// Output equality

function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(v)
}

// Everything but `id`: LangChain builds cleared ToolMessages anew and drops their `id`; we keep it.
function view(m) {
  return canonical({
    type: m._getType(),
    content: m.content,
    name: m.name,
    tool_call_id: m.tool_call_id,
    tool_calls: m.tool_calls?.map((c) => ({ id: c.id, name: c.name, args: c.args })),
    response_metadata: m.response_metadata,
    artifact: m.artifact,
  })
}

function sameOutput(ours, theirs) {
  if (ours.length !== theirs.length) return `length ${ours.length} vs ${theirs.length}`
  for (let i = 0; i < ours.length; i++) {
    if (view(ours[i]) !== view(theirs[i])) return `message ${i} differs`
  }
  return null
}

// ---------------------------------------------------------------------------------------------
// Editor benchmark

async function benchSize(n, js) {
  const conv = generateConversation({ seed: SEED, messages: n })
  const { messages, systemPrompt, tools, stats } = conv
  log(`${n} messages: ${stats.toolResults} tool results, ${stats.mb.toFixed(2)} MB`)
  const ctx = { systemPrompt, tools, model: 'gpt-4o' }
  const modelOptions = { ...EDIT_OPTIONS, tokenCountMethod: 'model', model: 'gpt-4o' }
  // Load the encoding once so "cold" means an empty token cache, not loading the ranks.
  new ContextEditor(modelOptions).countTokens([{ role: 'user', content: 'warm up the encoder' }])
  // An agent's next model calls: one before each of the last AI turns, each seeing the history up
  // to that turn; the editor saw the previous one. Timed call by call on one editor, as an agent runs.
  const cuts = []
  for (let j = messages.length - 1; j > 0 && cuts.length < NEXT_CALLS; j--) if (messages[j]._getType() === 'ai') cuts.unshift(j)
  cuts.push(messages.length)
  const agentLoop = async (call) => {
    const times = []
    await call(messages.slice(0, cuts[0]))
    for (const end of cuts.slice(1)) {
      const view = messages.slice(0, end)
      const t0 = performance.now()
      await call(view)
      times.push(performance.now() - t0)
    }
    return times
  }
  const approxEd = new ContextEditor(EDIT_OPTIONS)
  const approx = await agentLoop((v) => approxEd.edit(v, ctx))
  log(`  ours approx (next call) ${fmtMs(median(approx))}`)
  const sameEditor = new ContextEditor(EDIT_OPTIONS)
  const again = await measure(() => sameEditor.edit(messages, ctx))
  log(`  ours approx (same history again) ${fmtMs(median(again))}`)
  const first = await measure((ed) => ed.edit(messages, ctx), { setup: () => new ContextEditor(EDIT_OPTIONS), minRuns: 3, maxRuns: 9 })
  log(`  ours approx (first call) ${fmtMs(median(first))}`)
  const cold = await measure((ed) => ed.edit(messages, ctx), { setup: () => new ContextEditor(modelOptions), minRuns: 3, maxRuns: 9, warmup: 1 })
  log(`  ours model cold ${fmtMs(median(cold))}`)
  const warmEd = new ContextEditor(modelOptions)
  const warm = await agentLoop((v) => warmEd.edit(v, ctx))
  log(`  ours model warm ${fmtMs(median(warm))}`)
  const asyncEd = new ContextEditor(EDIT_OPTIONS)
  const asyncTimes = await agentLoop((v) => asyncEd.editAsync(v, ctx))
  log(`  ours async ${fmtMs(median(asyncTimes))}`)
  // The whole hook as LangChain's agent calls it, with a handler that returns at once.
  const request = (msgs) => ({ messages: msgs, systemPrompt, model: { model: 'gpt-4o' } })
  const handler = async () => null
  const mw = contextEditingMiddlewareObject(EDIT_OPTIONS)
  const hook = await agentLoop((v) => mw.wrapModelCall(request(v), handler))
  log(`  ours wrapModelCall ${fmtMs(median(hook))}`)
  const jsRef = await measure(() => jsClearToolUses(messages, EDIT_OPTIONS))
  log(`  JS single pass ${fmtMs(median(jsRef))}`)

  // Where the time of a next call goes: checking that the history the editor holds is unchanged
  // (fingerprints), the native plan over it (nothing new to convert or count), and applying the
  // plan (the previous output copied where the operations match). Each part timed on its own, the
  // same work `edit` does.
  const breakdown = {}
  for (const [label, opts] of [
    ['approx', EDIT_OPTIONS],
    ['model', modelOptions],
  ]) {
    const native = new NativeContextEditor(opts)
    const sendText = opts.tokenCountMethod === 'model'
    const wctx = toWireContext(ctx)
    const wire = toWireMessages(messages, { sendText, placeholders: new Set(['[cleared]']) })
    native.planSession(1, 0, sendText ? wire : JSON.stringify(wire), wctx)
    const prints = messages.map(fingerprint)
    const memo = new WeakMap()
    const validateT = [],
      planT = [],
      applyT = []
    let previous // the previous output and its packed operations, as `edit` keeps them
    for (let r = 0; r < 9; r++) {
      const t0 = performance.now()
      let same = 0
      while (same < messages.length && unchanged(messages[same], prints[same])) same++
      const t1 = performance.now()
      const packed = native.planSession(1, same, [], wctx)
      const t2 = performance.now()
      const ops = []
      for (let w = 0; w < packed.ops.length; w += 4) ops.push({ type: packed.ops[w] === 1 ? 'clear_tool_result' : 'remove', index: packed.ops[w + 1] })
      // Same history, same operations: `edit` copies the previous output instead of rebuilding it.
      const reuse = previous !== undefined && previous.words.length === packed.ops.length && previous.words.every((x, k) => x === packed.ops[k])
      const out = applyPlan(
        messages,
        { ops },
        { memo, memoBelow: same, prefix: reuse ? { messages: previous.out, length: previous.out.length, upTo: messages.length } : undefined },
      )
      previous = { words: packed.ops, out: out.slice() }
      const t3 = performance.now()
      validateT.push(t1 - t0)
      planT.push(t2 - t1)
      applyT.push(t3 - t2)
    }
    breakdown[label] = { validate: median(validateT), plan: median(planT), apply: median(applyT) }
  }

  // Our outputs for the equality checks (approx; LangChain's approx path ignores system prompt and tools).
  const oursA = new ContextEditor(EDIT_OPTIONS).edit(messages)
  const oursModel = new ContextEditor(modelOptions).edit(messages, ctx)
  const expectedApprox = 1 + (oursA.report.removedOrphans.length ? 1 : 0) + oursA.report.cleared.length
  const expectedExact = 1 + (oursModel.report.removedOrphans.length ? 1 : 0) + oursModel.report.cleared.length

  // LangChain approx: median of a few runs while they fit the cap.
  const lcApprox = []
  let lcApproxCapped = null
  let lcOut = null
  const lcStart = performance.now()
  while (lcApprox.length < 3 && !lcApproxCapped) {
    const r = await runLangChain(messages, EDIT_OPTIONS, { counter: approxCounter, expectedCalls: expectedApprox })
    if (r.capped) lcApproxCapped = r
    else {
      lcApprox.push(r.ms)
      lcOut ??= r.messages
    }
    if (performance.now() - lcStart + r.ms > CAP_MS) break // another run would not fit the cap
  }
  log(`  langchain approx ${lcApproxCapped ? `capped, est. ${fmtMs(lcApproxCapped.estimateMs)}` : fmtMs(median(lcApprox))}`)

  const checks = []
  if (lcOut) {
    const diff = sameOutput(oursA.messages, lcOut)
    checks.push(diff ? `default options: DIFFERENT (${diff})` : `default options: equal (${oursA.report.cleared.length} cleared)`)
    const refDiff = sameOutput(jsClearToolUses(messages, EDIT_OPTIONS), lcOut)
    if (refDiff) checks.push(`JS reference: DIFFERENT (${refDiff})`)
  } else checks.push('default options: not checked (LangChain capped)')
  if (n <= 2000) {
    const ours = new ContextEditor(CHECK_OPTIONS).edit(messages)
    const r = await runLangChain(messages, CHECK_OPTIONS, { counter: approxCounter, expectedCalls: 1e9, capMs: 4 * CAP_MS })
    if (r.capped) checks.push('keep.tokens/excludeTools/clearToolInputs: not checked (capped)')
    else {
      const diff = sameOutput(ours.messages, r.messages)
      checks.push(
        diff
          ? `keep.tokens+excludeTools+clearToolInputs: DIFFERENT (${diff})`
          : `keep.tokens+excludeTools+clearToolInputs: equal (${ours.report.cleared.length} cleared, ${ours.report.clearedToolInputs.length} inputs)`,
      )
    }
  }
  log(`  check: ${checks.join('; ')}`)

  // LangChain model mode through a js-tiktoken counter: one capped run.
  const lcExact = await runLangChain(messages, EDIT_OPTIONS, {
    counter: (clock) => exactCounter(js, systemPrompt, clock),
    expectedCalls: expectedExact,
    capMs: EXACT_CAP_MS,
  })
  log(`  langchain exact ${lcExact.capped ? `capped, est. ${fmtMs(lcExact.estimateMs)}` : fmtMs(lcExact.ms)}`)

  return {
    n,
    stats,
    approx: median(approx),
    again: median(again),
    first: median(first),
    hook: median(hook),
    cold: median(cold),
    warm: median(warm),
    async: median(asyncTimes),
    jsRef: median(jsRef),
    runs: { approx: approx.length, cold: cold.length, warm: warm.length, async: asyncTimes.length, hook: hook.length, lc: lcApprox.length },
    lcApprox: lcApprox.length ? median(lcApprox) : null,
    lcApproxCapped,
    lcExact,
    checks,
    breakdown,
    cleared: oursA.report.cleared.length,
  }
}

function editorTable(rows) {
  const lines = []
  lines.push(
    '| messages (MB, tool results) | ours approx, next call | ours `wrapModelCall`, next call | ours approx, same history again | ours approx, first call | ours model, cold | ours model, next call (warm) | ours `editAsync`, next call | JS single pass (reference) | LangChain approx | LangChain exact (js-tiktoken) | same output as LangChain |',
  )
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|')
  for (const r of rows) {
    const lcA = r.lcApprox ?? r.lcApproxCapped?.estimateMs
    const lcAText = r.lcApprox !== null ? fmtMs(r.lcApprox) : `> ${fmtMs(CAP_MS)} (capped; est. ${fmtMs(r.lcApproxCapped.estimateMs)})`
    const lcE = r.lcExact.capped ? r.lcExact.estimateMs : r.lcExact.ms
    const lcEText = r.lcExact.capped ? `> ${fmtMs(r.lcExact.ms)} (capped; est. ${fmtMs(r.lcExact.estimateMs)})` : fmtMs(r.lcExact.ms)
    const approxMark = r.lcApprox !== null ? '' : '~'
    const exactMark = r.lcExact.capped ? '~' : ''
    const vsA = (ms) => `${fmtMs(ms)} (${approxMark}${fmtRatio(lcA / ms)})`
    const vsE = (ms) => `${fmtMs(ms)} (${exactMark}${fmtRatio(lcE / ms)})`
    lines.push(
      `| ${r.n.toLocaleString('en-US')} (${r.stats.mb.toFixed(1)} MB, ${r.stats.toolResults.toLocaleString('en-US')}) ` +
        `| ${vsA(r.approx)} | ${vsA(r.hook)} | ${vsA(r.again)} | ${vsA(r.first)} | ${vsE(r.cold)} | ${vsE(r.warm)} | ${vsA(r.async)} | ${vsA(r.jsRef)} ` +
        `| ${lcAText} | ${lcEText} | ${r.checks.map((c) => c.replace(/:.*?(equal|DIFFERENT|not checked)/, ': $1')).join('; ')} |`,
    )
  }
  return lines.join('\n')
}

function breakdownTable(rows) {
  const lines = [
    '| messages | mode | check the held history is unchanged | native plan (nothing new) | apply the plan (previous output reused where the operations match) | sum |',
    '|---|---|---|---|---|---|',
  ]
  for (const r of rows) {
    for (const [mode, b] of Object.entries(r.breakdown)) {
      lines.push(
        `| ${r.n.toLocaleString('en-US')} | ${mode} | ${fmtMs(b.validate)} | ${fmtMs(b.plan)} | ${fmtMs(b.apply)} | ${fmtMs(b.validate + b.plan + b.apply)} |`,
      )
    }
  }
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------------
// Tokenizer benchmark

/** The mixed corpus: every message's content and every AI message's tool-call arguments. */
function tokenizerCorpus() {
  const { messages } = generateConversation({ seed: SEED + 1, messages: CORPUS_MESSAGES })
  const texts = messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
  for (const m of messages) if (m.tool_calls?.length) texts.push(JSON.stringify(m.tool_calls.map((c) => c.args)))
  return texts
}

async function benchTokenizers(js) {
  const texts = tokenizerCorpus()
  const bytes = texts.reduce((s, t) => s + Buffer.byteLength(t), 0)
  const mb = bytes / 1e6
  log(`tokenizer corpus: ${texts.length} strings, ${mb.toFixed(2)} MB`)
  const asUser = texts.map((content) => ({ role: 'user', content }))
  const OVERHEAD = 4 // 3 per message + the `user` role token, which our model-mode count includes

  const modelOptions = { tokenCountMethod: 'model', encoding: 'o200k_base' }
  // First use: the ranks (tiktoken-rs's singleton, then our table built from it).
  let t0 = performance.now()
  new ContextEditor(modelOptions).countTokens([{ role: 'user', content: 'load the ranks' }])
  const firstUse = performance.now() - t0
  t0 = performance.now()
  __referenceCountTokens(['load the ranks'], 'o200k_base')
  const firstUseReference = performance.now() - t0
  const oursCounts = (ed) => ed.countTokens(asUser).messages.map((c) => c - OVERHEAD)
  // The oracle: plain tiktoken-rs `encode_ordinary(text).len()`, one thread, no cache.
  const reference = __referenceCountTokens(texts, 'o200k_base')
  const total = reference.reduce((a, b) => a + b, 0)
  const rows = []
  const row = (name, times, counts, note) => {
    const diff = counts ? counts.reduce((k, c, i) => k + (c !== reference[i] ? 1 : 0), 0) : null
    rows.push({ name, ms: median(times), best: Math.min(...times), runs: times.length, diff, note })
    log(`  ${name}: ${fmtMs(median(times))}${diff ? `, ${diff} counts differ` : ''}`)
  }

  let counts
  const oursCold = await measure(
    (ed) => {
      counts = oursCounts(ed)
    },
    { setup: () => new ContextEditor(modelOptions), minRuns: 5, maxRuns: 15 },
  )
  row(
    'context-editor `countTokens`, cold (new editor, empty cache)',
    oursCold,
    counts,
    'hand-written o200k pre-tokenizer, tiktoken-rs ranks, per-call piece cache, both cores',
  )
  const warmEd = new ContextEditor(modelOptions)
  oursCounts(warmEd)
  const oursWarm = await measure(() => {
    counts = oursCounts(warmEd)
  })
  row('context-editor `countTokens`, warm (same corpus seen before)', oursWarm, counts, 'every long string a message-cache hit')
  const plain = await measure(
    () => {
      counts = __referenceCountTokens(texts, 'o200k_base')
    },
    { minRuns: 3, maxRuns: 9 },
  )
  row('tiktoken-rs 0.12.1 through napi (`encode_ordinary`)', plain, counts, 'one thread; includes the napi copy of the strings')

  const gpt = await import('gpt-tokenizer/encoding/o200k_base')
  const gptRun = () => {
    counts = texts.map((t) => gpt.countTokens(t))
  }
  const gptCold = await measure(gptRun, { setup: () => gpt.clearMergeCache(), minRuns: 3, maxRuns: 5, warmup: 0 })
  row(`gpt-tokenizer ${version('gpt-tokenizer')} (pure JS), merge cache cleared`, gptCold, counts, '')
  const gptWarm = await measure(gptRun, { minRuns: 3, maxRuns: 9 })
  row(`gpt-tokenizer ${version('gpt-tokenizer')} (pure JS), warm merge cache`, gptWarm, counts, '')

  const jsRun = () => {
    counts = texts.map((t) => js.enc.encode(t).length)
  }
  const jsTimes = await measure(jsRun, { minRuns: 2, maxRuns: 3, warmup: 0, budgetMs: 0 })
  row(`js-tiktoken ${version('js-tiktoken')} (pure JS)`, jsTimes, counts, '')

  const { get_encoding } = require('tiktoken')
  const wasm = get_encoding('o200k_base')
  const wasmTimes = await measure(
    () => {
      counts = texts.map((t) => wasm.encode_ordinary(t).length)
    },
    { minRuns: 3, maxRuns: 5, warmup: 1, budgetMs: 0 },
  )
  row(`tiktoken ${version('tiktoken')} (WASM)`, wasmTimes, counts, '`encode_ordinary`')
  wasm.free()

  const base = rows.find((r) => r.name.startsWith('tiktoken-rs')).ms
  const gptBase = rows.find((r) => r.name.includes('warm merge cache')).ms
  const lines = [
    `Corpus: ${texts.length.toLocaleString('en-US')} strings (the contents and tool-call arguments of a ${CORPUS_MESSAGES.toLocaleString('en-US')}-message conversation, seed ${SEED + 1}), ${mb.toFixed(2)} MB, ${total.toLocaleString('en-US')} o200k_base tokens. ` +
      `Counts are compared string by string with plain tiktoken-rs (\`encode_ordinary(text).len()\`). ` +
      `First use in this process: ${fmtMs(firstUse)} for our counter (tiktoken-rs's ranks, then our table built from them), then ${fmtMs(firstUseReference)} more for the reference call.`,
    '',
    '| tokenizer (o200k_base) | time per pass (median) | best | MB/s (median) | vs tiktoken-rs | vs gpt-tokenizer warm | counts equal to tiktoken-rs | note |',
    '|---|---|---|---|---|---|---|---|',
  ]
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${fmtMs(r.ms)} | ${fmtMs(r.best)} | ${(mb / (r.ms / 1000)).toFixed(1)} | ${fmtRatio(base / r.ms)} | ${fmtRatio(gptBase / r.ms)} | ${r.diff === 0 ? `yes (all ${texts.length.toLocaleString('en-US')})` : `NO (${r.diff} differ)`} | ${r.note} |`,
    )
  }
  return lines.join('\n')
}

// ---------------------------------------------------------------------------------------------
// Event-loop responsiveness and memory

/**
 * Four 10,000-message histories edited concurrently with `editAsync` in model mode: cold (new
 * editors, one call each), and warm (four agent loops at once, each making its next calls for the
 * last `WARM_CALLS` turns of its history after a call that saw the history up to the first).
 */
async function benchEventLoop() {
  const { monitorEventLoopDelay } = await import('node:perf_hooks')
  const convs = [1, 2, 3, 4].map((k) => generateConversation({ seed: SEED + 100 + k, messages: 10000 }))
  const mb = convs.reduce((s, c) => s + c.stats.mb, 0)
  const modelOptions = { ...EDIT_OPTIONS, tokenCountMethod: 'model', model: 'gpt-4o' }
  new ContextEditor(modelOptions).countTokens([{ role: 'user', content: 'load the ranks' }])
  const WARM_CALLS = 10
  // Where each agent's model calls happen: before its last AI turns, then with the whole history.
  const cutsOf = (messages) => {
    const cuts = []
    for (let j = messages.length - 1; j > 0 && cuts.length < WARM_CALLS; j--) if (messages[j]._getType() === 'ai') cuts.unshift(j)
    return [...cuts, messages.length]
  }
  const rows = []
  for (const label of ['cold', 'warm']) {
    const calls = convs.map((c) => (label === 'warm' ? cutsOf(c.messages) : [c.messages.length]))
    const editors = convs.map((c, k) => {
      const ed = new ContextEditor(modelOptions)
      if (label === 'warm') ed.edit(c.messages.slice(0, calls[k][0]), { systemPrompt: c.systemPrompt, tools: c.tools })
      return ed
    })
    if (label === 'warm') for (const c of calls) c.shift()
    const h = monitorEventLoopDelay({ resolution: 1 })
    // A timer that should fire every 5 ms; its lateness is what a server's requests would feel.
    let late = 0
    let last = performance.now()
    const timer = setInterval(() => {
      const now = performance.now()
      late = Math.max(late, now - last - 5)
      last = now
    }, 5)
    h.enable()
    await new Promise((r) => setTimeout(r, 20)) // arm the histogram's own timer first
    h.reset() // only the calls count, not what setting up the editors left to collect
    late = 0
    last = performance.now()
    const t0 = performance.now()
    const agent = async (c, k) => {
      for (const end of calls[k]) await editors[k].editAsync(c.messages.slice(0, end), { systemPrompt: c.systemPrompt, tools: c.tools })
    }
    const all = Promise.all(convs.map(agent))
    const sync = performance.now() - t0 // converting to wire form happens before the promises return
    await all
    const wall = performance.now() - t0
    h.disable()
    clearInterval(timer)
    rows.push(
      `| 4 × 10,000 messages (${mb.toFixed(0)} MB), model mode, ${label === 'cold' ? 'cold (one call each)' : `warm (${WARM_CALLS} next calls each)`} | ${fmtMs(wall)} | ${fmtMs(sync)} | ${fmtMs(h.percentile(50) / 1e6)} | ${fmtMs(h.percentile(99) / 1e6)} | ${fmtMs(h.max / 1e6)} | ${fmtMs(late)} |`,
    )
    log(`  event loop ${label}: p99 ${fmtMs(h.percentile(99) / 1e6)}, max ${fmtMs(h.max / 1e6)}`)
  }
  return [
    '| concurrent `editAsync` | wall time | blocking before the first promises return (JS → wire) | event-loop delay p50 | p99 | max | worst lateness of a 5 ms timer |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n')
}

/** Runs in a child process (`--memory-child`): RSS growth for both encodings + a ~20 MB history cached. */
async function memoryChild() {
  const gc = globalThis.gc ?? (() => {})
  const conv = generateConversation({ seed: SEED + 200, messages: 9000 })
  gc()
  const rss0 = process.memoryUsage().rss
  const o200k = new ContextEditor({ ...EDIT_OPTIONS, tokenCountMethod: 'model', encoding: 'o200k_base' })
  const cl100k = new ContextEditor({ ...EDIT_OPTIONS, tokenCountMethod: 'model', encoding: 'cl100k_base' })
  cl100k.countTokens([{ role: 'user', content: 'load the cl100k ranks' }])
  o200k.edit(conv.messages, { systemPrompt: conv.systemPrompt, tools: conv.tools })
  o200k.edit(conv.messages, { systemPrompt: conv.systemPrompt, tools: conv.tools })
  gc()
  const rss1 = process.memoryUsage().rss
  const bounded = new ContextEditor({ ...EDIT_OPTIONS, tokenCountMethod: 'model', tokenCacheSize: 1000 })
  bounded.edit(conv.messages)
  console.log(
    JSON.stringify({
      mb: conv.stats.mb,
      rss0,
      rss1,
      cacheEntries: o200k.cacheSize,
      boundedEntries: bounded.cacheSize,
      heapUsed: process.memoryUsage().heapUsed,
    }),
  )
}

async function benchMemory() {
  const { execFileSync } = await import('node:child_process')
  const out = execFileSync(process.execPath, ['--expose-gc', new URL(import.meta.url).pathname, '--memory-child', '--seed', String(SEED)], {
    encoding: 'utf8',
  })
  const r = JSON.parse(out.trim().split('\n').pop())
  const mib = (b) => `${(b / 2 ** 20).toFixed(0)} MiB`
  return (
    `RSS growth with o200k_base and cl100k_base loaded and a ${r.mb.toFixed(1)} MB history counted and cached (${r.cacheEntries.toLocaleString('en-US')} cache entries): ` +
    `**${mib(r.rss1 - r.rss0)}** (RSS ${mib(r.rss0)} → ${mib(r.rss1)}, after \`gc()\`, the history itself excluded). ` +
    `An editor with \`tokenCacheSize: 1000\` holds ${r.boundedEntries.toLocaleString('en-US')} entries after the same history.`
  )
}

// ---------------------------------------------------------------------------------------------

async function main() {
  if (flags['memory-child'] === 'true') return memoryChild()
  if (flags['dump-corpus'] && flags['dump-corpus'] !== 'true') {
    const { writeFileSync } = await import('node:fs')
    const texts = tokenizerCorpus()
    writeFileSync(flags['dump-corpus'], JSON.stringify(texts))
    return console.log(`wrote ${texts.length} strings to ${flags['dump-corpus']}`)
  }
  const cpus = os.cpus()
  const header = [
    `Machine: ${cpus[0]?.model ?? '?'}, ${cpus.length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}; load average at start ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}.`,
    `Versions: langchain ${version('langchain')}, @langchain/core ${version('@langchain/core')}, js-tiktoken ${version('js-tiktoken')}, gpt-tokenizer ${version('gpt-tokenizer')}, tiktoken ${version('tiktoken')}. Seed ${SEED}.`,
  ]
  header.push(`Binding: ${__napiBindingTarget}.`)
  const addon =
    process.env.NAPI_RS_NATIVE_LIBRARY_PATH ??
    new URL(__napiBindingTarget === 'wasm32-wasi' ? '../context-editor.wasm32-wasi.wasm' : '../context-editor.linux-x64-gnu.node', import.meta.url).pathname
  try {
    const st = statSync(addon)
    header.push(`Addon: ${addon} (${(st.size / 2 ** 20).toFixed(1)} MiB, built ${st.mtime.toISOString()}).`)
    if (__napiBindingTarget === 'native' && st.size > 20 * 2 ** 20)
      header.push('**WARNING: this addon looks like a debug build; run `npm run build` (release) before benchmarking.**')
  } catch {}
  console.log(header.join('\n'))
  if (flags['no-cold'] !== 'true' && flags['only-tokenizers'] !== 'true') {
    console.log('\n### Cold calls and next calls against their peers (benchmark/cold.mjs)\n')
    console.log(await (await import('./cold.mjs')).benchCold({ seed: SEED, sizes: SIZES }))
    if (flags['only-cold'] === 'true') return
  }
  const js = await makeJsTiktokenCounter()

  if (flags['only-tokenizers'] !== 'true') {
    const rows = []
    for (const n of SIZES) rows.push(await benchSize(n, js))
    console.log('\n### Context editing: per-call time (median), speed-up vs LangChain in the same run\n')
    console.log(
      `Options: \`trigger: { tokens: 100000 }, keep: { messages: 3 }\`; ours also counts the system prompt and tool schemas (model \`gpt-4o\`, o200k_base). ` +
        `"next call" = what an agent pays per model call: one editor, one call before each of the last ${NEXT_CALLS} AI turns (each sees the history up to that turn; the previous call saw the one before), median of those calls (\`wrapModelCall\`: our LangChain/Xpert middleware hook, handler returning at once); "same history again" = the previous call saw exactly this history; "first call" / "cold" = a new editor (model: empty token cache, ranks loaded); \`editAsync\` is approx; "JS single pass" = benchmark/js-reference.mjs, a careful one-pass JS implementation of the same semantics for these options (reference, not a product). ` +
        `Outputs are compared with LangChain's field by field except \`id\` (LangChain builds cleared ToolMessages anew and drops their id; we keep it). ` +
        `Ratios of approx/async columns are against LangChain approx, of model columns against LangChain exact; "~" = against an estimate of a capped LangChain run ` +
        `(LangChain re-counts the whole history once per cleared result; a capped run is extrapolated from the part done). LangChain time cap: ${fmtMs(CAP_MS)} per call (exact: ${fmtMs(EXACT_CAP_MS)}).\n`,
    )
    console.log(editorTable(rows))
    console.log('\n### Where the time of a next call goes (each part timed on its own, median of 9)\n')
    console.log(breakdownTable(rows))
    console.log(
      `\nRuns per cell: ${rows.map((r) => `${r.n}: ours ${r.runs.approx}/${r.runs.cold}/${r.runs.warm}/${r.runs.async}/${r.runs.hook}, LangChain approx ${r.runs.lc}`).join('; ')}.`,
    )
    // Each framework adapter's hook next to the LangChain middleware's (benchmark/adapters.mjs).
    const { adaptersTable, benchAdapters } = await import('./adapters.mjs')
    console.log('\n### Framework adapters: per-step overhead at 2,000 messages (median of the last calls of an agent loop)\n')
    console.log(adaptersTable(await benchAdapters({ seed: SEED, messages: 2000, nextCalls: NEXT_CALLS })))
  }
  if (flags['no-tokenizers'] !== 'true') {
    console.log('\n### Exact token counting throughput\n')
    console.log(await benchTokenizers(js))
  }
  if (flags['no-tokenizers'] !== 'true' && flags['no-families'] !== 'true') {
    // One table per open-model family (benchmark/tokenizer-families.mjs): ours, the reference, the JS implementation.
    const { benchFamilies } = await import('./tokenizer-families.mjs')
    console.log('\n### Open-model tokenizers: ours vs the `tokenizers` crate vs @lenml/tokenizers\n')
    console.log(benchFamilies({ seed: SEED, families: flags.families ? String(flags.families).split(',') : undefined }))
  }
  const { existsSync } = await import('node:fs')
  const wasm = new URL('../context-editor.wasm32-wasi.wasm', import.meta.url)
  if (flags.wasi === 'true' && !existsSync(wasm)) {
    // A fresh clone has only the native build: say how to get the WebAssembly one instead of failing.
    console.log('\n## WebAssembly build: not built here, section skipped (`npm run build:platforms wasm32-wasi`, then `npm run bench`)\n')
  } else if (flags.wasi === 'true') {
    // The same tables with the WebAssembly build, which binds when this module loads: a child run.
    console.log('\n## The same with the WebAssembly build (wasm32-wasi, NAPI_RS_FORCE_WASI=error)\n')
    const args = process.argv.slice(2).filter((a) => a !== '--wasi')
    const { execFileSync } = await import('node:child_process')
    console.log(
      execFileSync(process.execPath, ['--no-warnings', new URL(import.meta.url).pathname, ...args, '--no-extras'], {
        env: { ...process.env, NAPI_RS_FORCE_WASI: 'error' },
        stdio: ['ignore', 'pipe', 'inherit'],
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      }),
    )
  }
  if (flags['no-extras'] !== 'true' && flags['only-tokenizers'] !== 'true') {
    console.log('\n### Event loop while four 10,000-message histories are edited concurrently (`editAsync`, model mode)\n')
    console.log(await benchEventLoop())
    console.log('\n### Memory\n')
    console.log(await benchMemory())
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
