// Two builds of the native addon, alternately, one process each: how docs/performance.md measures
// a change to the Rust side (*Pieces an editor has counted, kept for its next counts*). Each run is
// a benchmark script run with `NAPI_RS_NATIVE_LIBRARY_PATH` set to one build (the generated loader
// loads it instead of the package's own); which build goes first alternates from pair to pair.
// The script prints its figure as `median <number>` (benchmark/next-calls.mjs does). For example,
// the addon of the previous commit against this one's:
//
//   git stash && npm run build:native && cp context-editor.*-*.node /tmp/before.node && git stash pop && npm run build:native
//   node benchmark/paired-native.mjs /tmp/before.node context-editor.linux-x64-gnu.node --pairs 8 -- benchmark/next-calls.mjs --mode model
//
// Prints each build's median figure and the median of the per-pair ratios (second ÷ first), with
// every ratio: on a shared machine, separate processes vary by tens of per cent, and a ratio per
// pair (the two runs next to each other in time) is steadier than the ratio of the medians.

import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'

const argv = process.argv.slice(2)
const dash = argv.indexOf('--')
if (dash < 2) {
  console.error('usage: node benchmark/paired-native.mjs A.node B.node [--pairs 8] -- script.mjs [its flags]')
  process.exit(2)
}
const [first, second] = argv.slice(0, 2).map((p) => resolve(p))
const own = argv.slice(2, dash)
const pairsAt = own.indexOf('--pairs')
const pairs = pairsAt >= 0 ? Number(own[pairsAt + 1]) : 8
if (!(Number.isInteger(pairs) && pairs > 0)) throw new Error(`--pairs: expected a positive integer, got ${own[pairsAt + 1]}`)
for (const build of [first, second]) {
  if (!existsSync(build)) throw new Error(`${build}: no such file (expected a built .node addon)`)
  // The loader falls back to the package's own addon when the override does not load: load it
  // directly first, so that a build that cannot load is an error, not the other build measured.
  execFileSync(process.execPath, ['-e', `require(${JSON.stringify(build)})`], { stdio: 'inherit' })
}
const script = argv.slice(dash + 1)
if (script.length === 0) throw new Error('no benchmark script after `--`')

/** The figure a run of the script with `build` prints (`median <number>`). */
function run(build) {
  const out = execFileSync(process.execPath, script, { encoding: 'utf8', env: { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: build } })
  const found = /median ([0-9.]+)/.exec(out)
  if (!found) throw new Error(`${script.join(' ')} printed no \`median <number>\`:\n${out}`)
  return Number(found[1])
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

const figures = [[], []]
for (let p = 0; p < pairs; p++) {
  const order = p % 2 ? [1, 0] : [0, 1]
  for (const b of order) figures[b].push(run([first, second][b]))
}
const ratios = figures[1].map((x, k) => x / figures[0][k])
console.log(`| build | median | runs |`)
console.log(`|---|---|---|`)
console.log(`| A ${first} | ${median(figures[0])} | ${figures[0].join(', ')} |`)
console.log(`| B ${second} | ${median(figures[1])} | ${figures[1].join(', ')} |`)
console.log(
  `\nB ÷ A, per pair: median ${median(ratios).toFixed(3)} (${ratios
    .map((r) => r.toFixed(3))
    .sort()
    .join(', ')}); ${pairs} pairs of \`${script.join(' ')}\``,
)
