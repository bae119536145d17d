#!/usr/bin/env node
// Long tool results: what a cold `edit` costs when the history holds a few very long strings (a
// large log, a file read whole), next to the JS single pass, and what the lone-surrogate check alone
// costs on them (ours, ts/wire/shapes.ts `isWellFormed`, against V8's `String.prototype.isWellFormed`).
// In approx mode only a string's length crosses into the core, so the check is what grows with the
// text: a one-byte string is answered at once, a two-byte one is read once.
//
//   node benchmark/long-strings.mjs                          # 20 × 4 M and 200 × 200 K characters
//   node benchmark/long-strings.mjs --results 50 --size 1000000 --runs 9
//
// Kinds of text: ASCII log lines (one-byte); Chinese (two-byte throughout); ASCII with a short run
// of Chinese in the middle (two-byte, nearly all of it ASCII); chat text with an emoji every 25
// characters (surrogate pairs throughout). Strings are flat (made by `JSON.parse`), as a host's
// deserialized history is. Medians of `--runs`, a turn of the event loop before each.

import os from 'node:os'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { isWellFormed } from '../dist/wire/shapes.js'
import { parseFlags } from './generate.mjs'
import { jsClearToolUses } from './js-reference.mjs'

const flags = parseFlags(process.argv.slice(2))
const runs = Number(flags.runs ?? 7)
const shapes = flags.size
  ? [[Number(flags.results ?? 20), Number(flags.size)]]
  : [
      [20, 4_000_000],
      [200, 200_000],
    ]
const OPTIONS = { trigger: { tokens: 1000 }, keep: { messages: 3 } }

const repeatTo = (unit, size) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size)
const KINDS = {
  'ASCII log': (k, size) => repeatTo(`log line ${k} ok: request served\n`, size),
  Chinese: (k, size) => repeatTo(`这个函数负责解析配置文件 ${k} `, size),
  // Off the middle by a few units, so that no earlier probe grid (one unit in 32) happens to land on it.
  'ASCII, a few Chinese characters mid-way': (k, size) => {
    const s = repeatTo(`log line ${k} ok: request served\n`, size - 5)
    const at = (s.length >> 1) + 7
    return s.slice(0, at) + '请注意并发' + s.slice(at)
  },
  'chat, an emoji every 25 characters': (k, size) => repeatTo(`hello ${k % 10}, all fine 😀 `, size),
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const ms = (x) => (x >= 10 ? `${x.toFixed(1)} ms` : `${x.toFixed(2)} ms`)
const turn = () => new Promise((resolve) => setImmediate(resolve))

async function timed(f) {
  const t = []
  for (let r = 0; r < runs + 2; r++) {
    await turn()
    const t0 = performance.now()
    f()
    if (r >= 2) t.push(performance.now() - t0)
  }
  return median(t)
}

const rows = []
for (const [count, size] of shapes) {
  for (const [kind, make] of Object.entries(KINDS)) {
    const texts = Array.from({ length: count }, (_, k) => JSON.parse(JSON.stringify(make(k, size))))
    const messages = [new HumanMessage('go')]
    texts.forEach((text, k) => {
      messages.push(new AIMessage({ content: '', tool_calls: [{ id: `c${k}`, name: 'read', args: { part: k } }] }))
      messages.push(new ToolMessage({ content: text, tool_call_id: `c${k}` }))
    })
    const edit = await timed(() => new ContextEditor(OPTIONS).edit(messages))
    const pass = await timed(() => jsClearToolUses(messages, OPTIONS))
    const ours = await timed(() => texts.every((s) => isWellFormed(s)))
    const v8 = await timed(() => texts.every((s) => s.isWellFormed()))
    const label = `${count} × ${size.toLocaleString('en-US')}`
    rows.push(`| ${label} | ${kind} | ${ms(edit)} | ${ms(pass)} | ${ms(ours)} | ${ms(v8)} |`)
    console.error(`[long-strings] ${label} ${kind}: edit ${ms(edit)}, pass ${ms(pass)}, check ${ms(ours)} vs V8 ${ms(v8)}`)
  }
}

console.log(
  `Load average at the end: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}. Medians of ${runs}.\n`,
)
console.log('| results × characters | text | cold `edit` (approx) | JS single pass | lone-surrogate check, ours | V8 `isWellFormed` |')
console.log('|---|---|---|---|---|---|')
for (const r of rows) console.log(r)
