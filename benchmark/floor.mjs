#!/usr/bin/env node
// What the floor is: the cost of the JS work an edit cannot avoid, measured on the benchmark's
// conversations, next to the pieces of today's path.
//   node benchmark/floor.mjs --messages 2000
import { NativeContextEditor, toWireContext, toWireMessages } from '../index.js'
import { generateConversation } from './generate.mjs'

const argv = process.argv.slice(2)
const n = Number(argv[argv.indexOf('--messages') + 1] || 2000)
const { messages, systemPrompt, tools } = generateConversation({ seed: 42, messages: n })
const best = (f, runs = 15) => {
  f()
  let b = Infinity
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    f()
    b = Math.min(b, performance.now() - t0)
  }
  return b
}
const ms = (x) => `${x.toFixed(2)} ms`
const text = (m) => (typeof m.content === 'string' ? m.content : '')

// 1. One pass reading what approx mode needs into typed arrays (lengths, role codes), ids as strings.
const ROLE = { human: 0, ai: 1, system: 2, tool: 3 }
const columnar = () => {
  const role = new Uint8Array(n)
  const len = new Uint32Array(n)
  const callsLen = new Uint32Array(n)
  const ids = []
  for (let i = 0; i < n; i++) {
    const m = messages[i]
    role[i] = ROLE[m.type ?? m._getType()]
    len[i] = text(m).length
    const tc = m.tool_calls
    if (tc && tc.length) {
      callsLen[i] = JSON.stringify(tc).length
      for (const c of tc) ids.push(c.id)
    }
    if (m.tool_call_id) ids.push(m.tool_call_id)
  }
  return [role, len, callsLen, ids]
}
const noStringify = () => {
  let s = 0
  for (let i = 0; i < n; i++) {
    const m = messages[i]
    s += text(m).length + (m.tool_calls?.length ?? 0)
  }
  return s
}
// 2. Lone-surrogate scan of every string (today's validation), on the same strings.
const scan = () => {
  let ok = 0
  for (const m of messages) if (text(m).isWellFormed()) ok++
  return ok
}
// 3. A JS-side string → count cache: a warm model call finds every long string by its (cached) V8 hash.
const cache = new Map()
for (const m of messages) cache.set(text(m), 1)
const lookups = () => {
  let hits = 0
  for (const m of messages) if (cache.has(text(m))) hits++
  return hits
}
// 4. Today's path, for comparison.
const placeholders = new Set(['[cleared]'])
const ctx = toWireContext({ systemPrompt, tools, model: 'gpt-4o' })
const approxNative = new NativeContextEditor({ trigger: { tokens: 1e12 } })
const wireA = toWireMessages(messages, { sendText: false, placeholders })
const modelNative = new NativeContextEditor({ trigger: { tokens: 1e12 }, tokenCountMethod: 'model', model: 'gpt-4o' })
const wireM = toWireMessages(messages, { sendText: true, placeholders })
modelNative.countTokens(wireM, ctx)

console.log(
  `${n} messages (best of 15): columnar JS pass ${ms(best(columnar))} (without JSON.stringify(tool_calls): ${ms(best(noStringify))}); ` +
    `isWellFormed on every content ${ms(best(scan))}; JS Map lookup of every content (warm) ${ms(best(lookups))} | today: ` +
    `toWireMessages approx ${ms(best(() => toWireMessages(messages, { sendText: false, placeholders })))}, ` +
    `native countTokens approx ${ms(best(() => approxNative.countTokens(wireA, ctx)))}, ` +
    `toWireMessages model ${ms(best(() => toWireMessages(messages, { sendText: true, placeholders })))}, ` +
    `native countTokens model warm ${ms(best(() => modelNative.countTokens(wireM, ctx)))}`,
)
