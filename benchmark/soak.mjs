#!/usr/bin/env node
// Soak test: many `edit` calls on varied histories, across several worker_threads, mixing the sync
// API with concurrent `editAsync` calls (the libuv thread pool), while the main thread samples RSS.
//
//   node benchmark/soak.mjs                          # 1,000,000 calls, 3 workers
//   node benchmark/soak.mjs --calls 200000 --workers 2 --max-growth-mb 48
//   nice -n 19 node benchmark/soak.mjs --json soak.json
//
// Histories are prefixes (4 … 160 messages, up to ~350 KB) of seeded agent conversations (benchmark/generate.mjs),
// as LangChain instances and as OpenAI chat messages, edited with four option sets (approx, model,
// estimate, defaults; one-edit and two-edit pipelines, token/message/fraction triggers, keep by
// messages/tokens/fraction, clearToolInputs, clearAtLeast, excludeTools). Before the run the main
// thread computes every (history, options) result sequentially; each call's result must equal it.
//
// Reports: throughput, p50/p99/max latency (sync and async separately), RSS at start (after 10 %
// of the calls, past the warm-up), middle and end (the last sample while the workers run), and the
// growth per 1,000 calls over the second half. Exits non-zero when a result differs from the
// sequential one, a call throws, or RSS keeps growing: the second half grows by more than
// --max-growth-mb (default 48) AND more than 10 % of the middle RSS.
//
// Programmatic use (the short version in __test__/soak.spec.mjs): `runSoak(options)` → summary.

import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import { pathToFileURL } from 'node:url'
import { writeFileSync } from 'node:fs'

import { ContextEditor } from '../dist/index.js'
import { generateConversation, parseFlags } from './generate.mjs'

const CONVERSATIONS = [11, 23, 37] // seeds
const CONVERSATION_LENGTH = 160
const PREFIXES = [4, 8, 13, 20, 32, 48, 64, 96, 128, 160]

/** Option sets × call contexts: every pipeline shape the soak exercises. */
const OPTION_SETS = [
  { options: { trigger: { tokens: 12000 }, keep: { messages: 3 } }, context: {} },
  {
    options: { trigger: [{ messages: 60 }, { tokens: 40000 }], keep: { tokens: 3000 }, clearToolInputs: true, tokenCountMethod: 'model' },
    context: { model: 'gpt-4o' },
  },
  {
    options: {
      tokenCountMethod: 'estimate',
      edits: [
        { type: 'clear_tool_uses', trigger: { fraction: 0.2 }, keep: { fraction: 0.02 }, excludeTools: ['read_ticket'], clearAtLeast: 2000 },
        { type: 'clear_tool_uses', trigger: { toolUses: 40 }, keep: { messages: 10 }, placeholder: '[gone]', clearToolInputs: ['run_command'] },
      ],
    },
    context: { maxInputTokens: 128000, systemPrompt: 'You are a careful agent.' },
  },
  { options: {}, context: {} },
]

/** LangChain messages to OpenAI chat-completions messages. */
function toOpenAI(messages) {
  return messages.map((m) => {
    const type = m._getType()
    if (type === 'human') return { role: 'user', content: m.content }
    if (type === 'system') return { role: 'system', content: m.content }
    if (type === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content }
    const out = { role: 'assistant', content: m.content || null }
    if (m.tool_calls?.length) {
      out.tool_calls = m.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }))
    }
    return out
  })
}

/** The (history, option set) pairs, identical in every thread. */
function buildCases() {
  const histories = []
  for (const seed of CONVERSATIONS) {
    const conv = generateConversation({ seed, messages: CONVERSATION_LENGTH })
    const openai = toOpenAI(conv.messages)
    for (const n of PREFIXES) {
      histories.push(conv.messages.slice(0, n))
      histories.push(openai.slice(0, n))
    }
  }
  const editors = OPTION_SETS.map((s) => new ContextEditor(s.options))
  const cases = []
  for (let h = 0; h < histories.length; h++) {
    for (let e = 0; e < editors.length; e++) cases.push({ history: histories[h], editor: editors[e], context: OPTION_SETS[e].context })
  }
  return cases
}

/** What must be equal between runs: the whole report, and which output messages are which. */
function fingerprint(history, { messages, report }) {
  // The output is a subsequence of the input: one pass counts the messages passed through as is.
  let same = 0
  let contentLength = 0
  let j = 0
  for (const m of messages) {
    let k = j
    while (k < history.length && history[k] !== m) k++
    if (k < history.length) {
      same++
      j = k + 1
    }
    contentLength += typeof m.content === 'string' ? m.content.length : 0
  }
  return `${JSON.stringify(report)}|${messages.length}|${same}|${contentLength}`
}

// ---------------------------------------------------------------------------------------------
// worker

async function workerMain() {
  const { id, calls, expected, asyncEvery, asyncBatch, progressEvery } = workerData
  const cases = buildCases()
  // Written up front so that their pages are resident before the first sample: filling them as
  // calls go would itself look like RSS growth (8 bytes per call).
  const sync = new Float64Array(calls).fill(-1)
  const asyncLat = new Float64Array(calls).fill(-1)
  let nSync = 0
  let nAsync = 0
  let mismatches = 0
  let errors = 0
  let firstProblem
  let done = 0
  let k = id * 104729
  const nextCase = () => {
    k = (k + 7919) % cases.length
    return k
  }
  const verify = (c, result) => {
    const fp = fingerprint(cases[c].history, result)
    if (fp !== expected[c]) {
      mismatches++
      firstProblem ??= `case ${c}: result differs from the sequential one`
    }
  }
  while (done < calls) {
    if (asyncEvery > 0 && done % asyncEvery === 0 && done + asyncBatch <= calls) {
      // A burst of concurrent async calls.
      const batch = Array.from({ length: asyncBatch }, () => nextCase())
      await Promise.all(
        batch.map(async (c) => {
          const t = performance.now()
          try {
            const r = await cases[c].editor.editAsync(cases[c].history, cases[c].context)
            asyncLat[nAsync++] = performance.now() - t
            verify(c, r)
          } catch (e) {
            errors++
            firstProblem ??= `case ${c}: ${e?.stack ?? e}`
          }
        }),
      )
      done += asyncBatch
    } else {
      const c = nextCase()
      const t = performance.now()
      try {
        const r = cases[c].editor.edit(cases[c].history, cases[c].context)
        sync[nSync++] = performance.now() - t
        verify(c, r)
      } catch (e) {
        errors++
        firstProblem ??= `case ${c}: ${e?.stack ?? e}`
      }
      done++
    }
    if (done % progressEvery < (asyncBatch || 1)) parentPort.postMessage({ type: 'progress', id, done })
  }
  const syncOut = sync.slice(0, nSync)
  const asyncOut = asyncLat.slice(0, nAsync)
  parentPort.postMessage({ type: 'done', id, done, mismatches, errors, firstProblem, sync: syncOut, async: asyncOut }, [syncOut.buffer, asyncOut.buffer])
}

// ---------------------------------------------------------------------------------------------
// main

function percentile(sorted, p) {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

function latencyStats(chunks) {
  const n = chunks.reduce((a, c) => a + c.length, 0)
  const all = new Float64Array(n)
  let o = 0
  for (const c of chunks) {
    all.set(c, o)
    o += c.length
  }
  all.sort()
  return { calls: n, p50: percentile(all, 50), p99: percentile(all, 99), max: n ? all[n - 1] : 0 }
}

const MB = 1024 * 1024

/**
 * Runs the soak and returns its summary (does not exit).
 * @param {{ calls?: number, workers?: number, asyncEvery?: number, asyncBatch?: number, sampleMs?: number, maxGrowthMb?: number, log?: (s: string) => void }} opts
 */
export async function runSoak(opts = {}) {
  const calls = opts.calls ?? 1_000_000
  const workers = opts.workers ?? 3
  const asyncEvery = opts.asyncEvery ?? 10 // every 10th slot starts a burst of async calls
  const asyncBatch = opts.asyncBatch ?? 4
  const sampleMs = opts.sampleMs ?? 500
  const maxGrowthMb = opts.maxGrowthMb ?? 48
  const log = opts.log ?? (() => {})

  const t0 = performance.now()
  const cases = buildCases()
  const expected = cases.map((c) => fingerprint(c.history, c.editor.edit(c.history, c.context)))
  const setupMs = performance.now() - t0
  log(
    `${cases.length} cases (${cases.length / OPTION_SETS.length} histories x ${OPTION_SETS.length} option sets), sequential results in ${setupMs.toFixed(0)} ms`,
  )

  const perWorker = Array.from({ length: workers }, (_, i) => Math.floor(calls / workers) + (i < calls % workers ? 1 : 0))
  const progress = new Array(workers).fill(0)
  const samples = []
  const totalDone = () => progress.reduce((a, b) => a + b, 0)
  const sample = () => samples.push({ ms: performance.now() - t0, done: totalDone(), rss: process.memoryUsage().rss })
  const start = performance.now()
  sample()
  const timer = setInterval(sample, sampleMs)
  let nextReport = 0.1
  const results = await Promise.all(
    perWorker.map(
      (n, id) =>
        new Promise((resolve, reject) => {
          const w = new Worker(new URL(import.meta.url), {
            workerData: { id, calls: n, expected, asyncEvery, asyncBatch, progressEvery: 2000 },
          })
          w.on('message', (m) => {
            if (m.type === 'progress') {
              progress[m.id] = m.done
              const frac = totalDone() / calls
              if (frac >= nextReport) {
                log(`${(frac * 100).toFixed(0)} %: ${totalDone()} calls, RSS ${(process.memoryUsage().rss / MB).toFixed(0)} MB`)
                nextReport += 0.1
              }
            } else if (m.type === 'done') {
              progress[m.id] = m.done
              resolve(m)
            }
          })
          w.on('error', reject)
          w.on('exit', (code) => {
            if (code !== 0) reject(new Error(`worker ${id} exited with ${code}`))
          })
        }),
    ),
  )
  const wallMs = performance.now() - start
  // No sample after this point: the workers are exiting and their heaps are being freed.
  clearInterval(timer)

  const done = results.reduce((a, r) => a + r.done, 0)
  const mismatches = results.reduce((a, r) => a + r.mismatches, 0)
  const errors = results.reduce((a, r) => a + r.errors, 0)
  const problems = results.map((r) => r.firstProblem).filter(Boolean)
  const at = (frac) => samples.find((s) => s.done >= frac * done) ?? samples.at(-1)
  const rssStart = at(0.1)
  const rssMid = at(0.5)
  // The end is the last sample before the first worker finished (then RSS drops as heaps go).
  const rssEnd = samples.filter((s) => s.done <= 0.98 * done).at(-1) ?? samples.at(-1)
  const growth = rssEnd.rss - rssMid.rss
  const growthPer1k = rssEnd.done > rssMid.done ? (growth / (rssEnd.done - rssMid.done)) * 1000 : 0
  const leaking = growth > maxGrowthMb * MB && growth > 0.1 * rssMid.rss
  const summary = {
    calls: done,
    workers,
    cases: cases.length,
    wallSeconds: wallMs / 1000,
    callsPerSecond: done / (wallMs / 1000),
    sync: latencyStats(results.map((r) => r.sync)),
    async: latencyStats(results.map((r) => r.async)),
    rssMb: { start: rssStart.rss / MB, middle: rssMid.rss / MB, end: rssEnd.rss / MB, max: Math.max(...samples.map((s) => s.rss)) / MB },
    secondHalfGrowthMb: growth / MB,
    growthBytesPer1kCalls: growthPer1k,
    mismatches,
    errors,
    problems,
    leaking,
    ok: mismatches === 0 && errors === 0 && !leaking && done === calls,
    samples: samples.map((s) => ({ s: +(s.ms / 1000).toFixed(2), done: s.done, rssMb: +(s.rss / MB).toFixed(1) })),
  }
  return summary
}

function fmt(l) {
  return `p50 ${l.p50.toFixed(3)} ms, p99 ${l.p99.toFixed(3)} ms, max ${l.max.toFixed(1)} ms (${l.calls} calls)`
}

if (!isMainThread) {
  await workerMain()
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const flags = parseFlags(process.argv.slice(2))
  const s = await runSoak({
    calls: flags.calls ? Number(flags.calls) : undefined,
    workers: flags.workers ? Number(flags.workers) : undefined,
    maxGrowthMb: flags['max-growth-mb'] ? Number(flags['max-growth-mb']) : undefined,
    log: (line) => console.log(line),
  })
  console.log(`\n${s.calls} edit calls on ${s.workers} worker threads in ${s.wallSeconds.toFixed(1)} s: ${Math.round(s.callsPerSecond)} calls/s`)
  console.log(`sync edit:      ${fmt(s.sync)}`)
  console.log(`async editAsync: ${fmt(s.async)} (bursts of concurrent calls; includes queueing)`)
  console.log(
    `RSS: start ${s.rssMb.start.toFixed(0)} MB, middle ${s.rssMb.middle.toFixed(0)} MB, end ${s.rssMb.end.toFixed(0)} MB (max ${s.rssMb.max.toFixed(0)} MB); second half ${s.secondHalfGrowthMb >= 0 ? '+' : ''}${s.secondHalfGrowthMb.toFixed(1)} MB (${Math.round(s.growthBytesPer1kCalls)} B per 1,000 calls)`,
  )
  console.log(`results equal to the sequential ones: ${s.mismatches === 0 ? 'yes' : `NO (${s.mismatches} differ)`}; errors: ${s.errors}`)
  for (const p of s.problems) console.log(`  ${p}`)
  if (s.leaking) console.log('RSS keeps growing: no plateau')
  if (flags.json) writeFileSync(flags.json, JSON.stringify(s, null, 2))
  process.exit(s.ok ? 0 : 1)
}
