#!/usr/bin/env node
// Next calls by pipeline: what an agent pays per model call with each option of `clear_tool_uses`
// that changes how a session plans (issue #19: "a next call costs in proportion to what is new").
// One editor per pipeline, one call before each of the last 25 AI turns of a seeded history (each
// sees the history up to that turn), a turn of the event loop before each, three rounds with a new
// editor each; medians. The same loop with the defaults is printed first, with the JS single pass
// over the same prefix as a yardstick (it does only the defaults' work, and memoises nothing).
//
//   node benchmark/pipelines.mjs                 # 2,000 and 10,000 messages, seed 42
//   node benchmark/pipelines.mjs --sizes 2000 --seed 7
//
// "native" is the time inside the native plan (`planSessionColumns`); the rest of a call is the
// change check, the walk over new messages and applying the plan in JavaScript.

import os from 'node:os'
import { ContextEditor } from '../dist/index.js'
import { NativeContextEditor } from '../index.js'
import { generateConversation, parseFlags } from './generate.mjs'
import { jsClearToolUses } from './js-reference.mjs'

const BASE = { trigger: { tokens: 100000 }, keep: { messages: 3 } }
const PIPELINES = [
  ['defaults (LangChain `ClearToolUsesEdit`)', BASE],
  ['`clearToolInputs: true`', { ...BASE, clearToolInputs: true }],
  ['`clearAtLeast: 5000`', { ...BASE, clearAtLeast: 5000 }],
  ["`prefer: ['superseded', 'duplicate']`", { ...BASE, prefer: ['superseded', 'duplicate'] }],
  ['`stable: true`', { ...BASE, stable: true }],
  ['`cacheBreakpoints: true`', { ...BASE, cacheBreakpoints: true }],
]

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const ms = (x) => (x >= 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(2)} ms`)
const turn = () => new Promise((resolve) => setImmediate(resolve))

// Time inside the native plan, summed over a call.
let native = 0
const proto = NativeContextEditor.prototype
const planColumns = proto.planSessionColumns
proto.planSessionColumns = function (...args) {
  const t = process.hrtime.bigint()
  try {
    return planColumns.apply(this, args)
  } finally {
    native += Number(process.hrtime.bigint() - t) / 1e6
  }
}

async function rows(n, seed) {
  const { messages, systemPrompt, tools } = generateConversation({ seed, messages: n })
  const ctx = { systemPrompt, tools, model: 'gpt-4o' }
  const cuts = []
  for (let j = messages.length - 1; j > 0 && cuts.length < 25; j--) if (messages[j]._getType() === 'ai') cuts.unshift(j)
  cuts.push(messages.length)
  const out = []
  let defaults
  for (const [name, options] of PIPELINES) {
    const [calls, natives, passes] = [[], [], []]
    for (let round = 0; round < 3; round++) {
      const editor = new ContextEditor(options)
      editor.edit(messages.slice(0, cuts[0]), ctx)
      for (const end of cuts.slice(1)) {
        const prefix = messages.slice(0, end)
        await turn()
        native = 0
        const t = performance.now()
        editor.edit(prefix, ctx)
        calls.push(performance.now() - t)
        natives.push(native)
        if (defaults === undefined) {
          await turn()
          const p = performance.now()
          jsClearToolUses(prefix, options)
          passes.push(performance.now() - p)
        }
      }
    }
    const call = median(calls)
    defaults ??= { call, pass: median(passes) }
    out.push(
      `| ${name} | ${n.toLocaleString('en-US')} | ${ms(call)} | ${ms(median(natives))} | ${(call / defaults.call).toFixed(2)}× | ${(call / defaults.pass).toFixed(2)}× |`,
    )
    console.error(`[pipelines] ${n} ${name}: ${ms(call)} (native ${ms(median(natives))})`)
  }
  return out
}

const flags = parseFlags(process.argv.slice(2))
const sizes = (flags.sizes ?? '2000,10000').split(',').map(Number)
const seed = Number(flags.seed ?? 42)
const lines = []
for (const n of sizes) lines.push(...(await rows(n, seed)))
console.log(`Next calls by pipeline (seed ${seed}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)} at the end; medians of 3 × 25 calls)`)
console.log('')
console.log('| pipeline | messages | next call | of it native | ÷ defaults | ÷ JS single pass (defaults) |')
console.log('|---|---|---|---|---|---|')
for (const line of lines) console.log(line)
