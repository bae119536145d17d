#!/usr/bin/env node
// Splits one `editor.edit` call into its phases, to see where the time goes:
//   node benchmark/phases.mjs --messages 2000
// JS → wire (with and without the lone-surrogate scan), napi input conversion + core plan (an
// untriggered call returns an empty plan), output conversion (triggered minus untriggered),
// applying the plan; approx and warm model mode.
import { applyPlan } from '../dist/index.js'
import { NativeContextEditor, toWireContext, toWireMessages } from '../index.js'
import { generateConversation } from './generate.mjs'

const argv = process.argv.slice(2)
const n = Number(argv[argv.indexOf('--messages') + 1] || 2000)
const { messages, systemPrompt, tools } = generateConversation({ seed: 42, messages: n })
const ctx = toWireContext({ systemPrompt, tools, model: 'gpt-4o' })
const median = (f, runs = 9) => {
  f()
  const t = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    f()
    t.push(performance.now() - t0)
  }
  return t.sort((a, b) => a - b)[runs >> 1]
}
const ms = (x) => `${x.toFixed(2)} ms`
const placeholders = new Set(['[cleared]'])
for (const mode of ['approx', 'model']) {
  const sendText = mode === 'model'
  const extra = sendText ? { tokenCountMethod: 'model', model: 'gpt-4o' } : {}
  const on = new NativeContextEditor({ trigger: { tokens: 100000 }, keep: { messages: 3 }, ...extra })
  const off = new NativeContextEditor({ trigger: { tokens: 1e12 }, keep: { messages: 3 }, ...extra })
  const wire = toWireMessages(messages, { sendText, placeholders })
  on.plan(wire, ctx) // warm the caches (model mode)
  off.plan(wire, ctx)
  const tWire = median(() => toWireMessages(messages, { sendText, placeholders }))
  const orig = String.prototype.isWellFormed
  String.prototype.isWellFormed = () => true
  const tWireNoScan = median(() => toWireMessages(messages, { sendText, placeholders }))
  String.prototype.isWellFormed = orig
  const tOff = median(() => off.plan(wire, ctx))
  const tOn = median(() => on.plan(wire, ctx))
  const tCount = median(() => on.countTokens(wire, ctx))
  const plan = on.plan(wire, ctx)
  const tApply = median(() => applyPlan(messages, plan))
  console.log(
    `${n} messages, ${mode}${sendText ? ' (warm cache)' : ''}: JS→wire ${ms(tWire)} (of which lone-surrogate scan ${ms(tWire - tWireNoScan)}); ` +
      `native untriggered plan (napi input + core) ${ms(tOff)}; triggered plan ${ms(tOn)} (output conversion ≈ ${ms(tOn - tOff)}, ${plan.ops.length} ops); ` +
      `countTokens ${ms(tCount)}; applyPlan ${ms(tApply)}`,
  )
}
