// Does the "estimate" counting method earn its place? Per content class of held-out text
// (benchmark/tokenizer-corpus.mjs, a seed the estimator was never fitted on), the estimate's error
// against exact o200k_base counts and its speed against the exact counter, both through the
// public API (countTokens, no token cache, one message per text). The bar (issue 16): within ±5 %
// on every class and at least 10x faster than exact on every class. Prints a markdown table.
//
//   node benchmark/estimate-accuracy.mjs [--per-class 200] [--seed 99] [--rounds 5] [--addon FILE.node]
//
// The estimator was retired (issue 16): "estimate" is now an alias of "model", so the two columns
// are equal with this package's build. To measure the estimator itself, give `--addon` a build of a
// commit that still has it (e.g. 833d117^: `git archive 833d117^ | tar x -C /tmp/old && (cd /tmp/old
// && cargo build --release -p context-editor-napi) && cp /tmp/old/target/release/libcontext_editor_napi.so
// /tmp/old.node`); its raw binding is driven directly (NativeContextEditor.countTokensSync).
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'

import { CONTENT_CLASSES, classCorpus } from './tokenizer-corpus.mjs'

const { values: flags } = parseArgs({
  options: {
    'per-class': { type: 'string', default: '200' },
    seed: { type: 'string', default: '99' },
    rounds: { type: 'string', default: '5' },
    addon: { type: 'string' },
  },
})
const require = createRequire(import.meta.url)
const { NativeContextEditor } = flags.addon ? require(flags.addon) : require('../binding.cjs')
const perClass = Number(flags['per-class'])
const rounds = Number(flags.rounds)

/** Texts in batches under 200 KB: the exact counter spreads batches of 256 KB and more across cores. */
function batches(texts) {
  const out = [[]]
  let bytes = 0
  for (const t of texts) {
    const n = Buffer.byteLength(t)
    if (bytes + n > 200_000 && out.at(-1).length > 0) {
      out.push([])
      bytes = 0
    }
    out.at(-1).push(t)
    bytes += n
  }
  return out
}

function counter(method) {
  const editor = new NativeContextEditor({ tokenCountMethod: method, encoding: 'o200k_base', tokenCacheSize: 0 })
  // Older builds name the synchronous call countTokensSync, newer ones countTokens.
  const sync = (messages) => (editor.countTokensSync ? editor.countTokensSync(messages) : editor.countTokens(messages))
  const framing = sync([{ role: 'user', content: '' }]).messages[0]
  const count = (texts) => sync(texts.map((content) => ({ role: 'user', content }))).messages.reduce((a, n) => a + n - framing, 0)
  return (texts) => batches(texts).reduce((a, b) => a + count(b), 0)
}

/** Median milliseconds of `rounds` runs of `f` (after one warm-up run). */
function time(f) {
  f()
  const ms = []
  for (let i = 0; i < rounds; i++) {
    const t = performance.now()
    f()
    ms.push(performance.now() - t)
  }
  return ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)]
}

const exact = counter('model')
const estimate = counter('estimate')
const rows = []
for (const cls of CONTENT_CLASSES) {
  const texts = classCorpus({ seed: Number(flags.seed), perClass, classes: [cls] }).map((c) => c.text)
  const mb = texts.reduce((a, t) => a + Buffer.byteLength(t), 0) / 1e6
  const e = exact(texts)
  const s = estimate(texts)
  const exactMs = time(() => exact(texts))
  const estimateMs = time(() => estimate(texts))
  rows.push({ cls, mb, e, s, error: ((s - e) / e) * 100, exactMs, estimateMs })
}
const pct = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)} %`
console.log(
  `Estimate vs exact o200k_base, held-out corpus (seed ${flags.seed}, ${perClass} texts per class), median of ${rounds} runs, one thread (batches under 200 KB)${flags.addon ? `, addon ${flags.addon}` : ''}.\n`,
)
console.log('| class | MB | exact tokens | estimate error | exact MB/s | estimate MB/s | speed-up | within ±5 % and ≥10× |')
console.log('|---|---:|---:|---:|---:|---:|---:|---|')
for (const r of rows) {
  const ok = Math.abs(r.error) <= 5 && r.exactMs / r.estimateMs >= 10
  console.log(
    `| ${r.cls} | ${r.mb.toFixed(2)} | ${r.e.toLocaleString('en-US')} | ${pct(r.error)} | ${(r.mb / (r.exactMs / 1000)).toFixed(0)} | ${(r.mb / (r.estimateMs / 1000)).toFixed(0)} | ${(r.exactMs / r.estimateMs).toFixed(1)}× | ${ok ? 'yes' : 'no'} |`,
  )
}
