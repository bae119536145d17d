// Next calls alone: an agent's history grown from `--from` messages (20) to `--messages`, one
// `edit` before each AI turn, a new editor per loop (its first call, on `--from` messages,
// untimed). Prints the median CPU time of a next call (all of this process's threads), the number
// `paired-native.mjs` reads:
//
//   node benchmark/next-calls.mjs --messages 200 --loops 40 --mode model
//   node benchmark/next-calls.mjs --messages 2000 --from 1800 --loops 10
//
// `--mode approx` (default) or `model` (exact, `gpt-4o`); `trigger: { tokens: 100000 }, keep:
// { messages: 3 }`, the bench's history (seed 42), its system prompt and tools. A turn of the
// event loop before each call, as a host awaits the model between calls.

import { ContextEditor } from '../dist/index.js'
import { generateConversation, parseFlags } from './generate.mjs'

const flags = parseFlags(process.argv.slice(2))
const n = Number(flags.messages ?? 200)
const loops = Number(flags.loops ?? 40)
const from = Number(flags.from ?? 20)
const mode = flags.mode ?? 'approx'
if (mode !== 'approx' && mode !== 'model') throw new Error(`--mode: expected approx or model, got ${mode}`)

const BASE = { trigger: { tokens: 100000 }, keep: { messages: 3 } }
const options = mode === 'model' ? { ...BASE, tokenCountMethod: 'model', model: 'gpt-4o' } : BASE
const { messages, systemPrompt, tools } = generateConversation({ seed: 42, messages: n })
const context = { systemPrompt, tools, model: 'gpt-4o' }
// Load the ranks before timing (a process does once).
new ContextEditor(options).countTokens([{ role: 'user', content: 'ranks' }])

const cuts = []
for (let j = from; j < n; j++) if (messages[j]._getType() === 'ai') cuts.push(j)
cuts.push(n)
const turn = () => new Promise((resolve) => setImmediate(resolve))
const cpu = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

const times = []
for (let l = 0; l < loops; l++) {
  const editor = new ContextEditor(options)
  for (const [k, end] of cuts.entries()) {
    const view = messages.slice(0, end)
    await turn()
    const c0 = cpu()
    editor.edit(view, context)
    if (k > 0) times.push(cpu() - c0)
  }
}
const sorted = times.sort((a, b) => a - b)
console.log(
  `${mode} next calls, ${n.toLocaleString('en-US')} messages: median ${(sorted[sorted.length >> 1] * 1000).toFixed(1)} µs CPU (${times.length} calls)`,
)
