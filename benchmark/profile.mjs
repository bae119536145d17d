#!/usr/bin/env node
// Profiling harness: runs one mode in a loop so `perf record -g node --perf-basic-prof` or
// `node --cpu-prof` can attribute the time. Usage:
//   node benchmark/profile.mjs --mode approx|warm|cold --messages 10000 --iterations 30
import { ContextEditor } from '../dist/index.js'
import { generateConversation } from './generate.mjs'

const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join(' ')
    .split('--')
    .filter(Boolean)
    .map((s) => s.trim().split(/\s+/)),
)
const mode = args.mode ?? 'approx'
const n = Number(args.messages ?? 10000)
const iterations = Number(args.iterations ?? 30)
const { messages, systemPrompt, tools } = generateConversation({ seed: 42, messages: n })
const ctx = { systemPrompt, tools, model: 'gpt-4o' }
const base = { trigger: { tokens: 100000 }, keep: { messages: 3 } }
const model = { ...base, tokenCountMethod: 'model', model: 'gpt-4o' }
const editor = new ContextEditor(mode === 'approx' ? base : model)
if (mode === 'warm') editor.edit(messages, ctx)
const t0 = performance.now()
for (let i = 0; i < iterations; i++) {
  if (mode === 'cold') editor.clearCache()
  editor.edit(messages, ctx)
}
console.log(`${mode} ${n}: ${((performance.now() - t0) / iterations).toFixed(2)} ms per call`)
