// The extras of benchmark/bench.mjs (skipped by `--no-extras`): event-loop delay while four
// 10,000-message histories are edited concurrently, and RSS growth, measured in a child process
// (`bench.mjs --memory-child`).

import { ContextEditor } from '../dist/index.js'
import { generateConversation } from './generate.mjs'

import { fmtMs, log, SEED } from './bench-common.mjs'
import { EDIT_OPTIONS } from './langchain-side.mjs'

// ---------------------------------------------------------------------------------------------
// Event-loop responsiveness and memory

/**
 * Four 10,000-message histories edited concurrently with `editAsync` in model mode: cold (new
 * editors, one call each), and warm (four agent loops at once, each making its next calls for the
 * last `WARM_CALLS` turns of its history after a call that saw the history up to the first).
 */
export async function benchEventLoop() {
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
export async function memoryChild() {
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

export async function benchMemory() {
  const { execFileSync } = await import('node:child_process')
  const out = execFileSync(process.execPath, ['--expose-gc', new URL('./bench.mjs', import.meta.url).pathname, '--memory-child', '--seed', String(SEED)], {
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
