// The exact token counting section of benchmark/bench.mjs: the tokenizer corpus (also written by
// `--dump-corpus`) and ours cold and warm against plain tiktoken-rs, gpt-tokenizer, js-tiktoken and
// tiktoken WASM, with count equality.

import { createRequire } from 'node:module'

import { ContextEditor } from '../dist/index.js'
import { __referenceCountTokens } from '../dist/internal.js'
import { generateConversation } from './generate.mjs'

import { CORPUS_MESSAGES, fmtMs, fmtRatio, log, measure, median, SEED, version } from './bench-common.mjs'

const require = createRequire(import.meta.url)

// ---------------------------------------------------------------------------------------------
// Tokenizer benchmark

/** The mixed corpus: every message's content and every AI message's tool-call arguments. */
export function tokenizerCorpus() {
  const { messages } = generateConversation({ seed: SEED + 1, messages: CORPUS_MESSAGES })
  const texts = messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
  for (const m of messages) if (m.tool_calls?.length) texts.push(JSON.stringify(m.tool_calls.map((c) => c.args)))
  return texts
}

export async function benchTokenizers(js) {
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
