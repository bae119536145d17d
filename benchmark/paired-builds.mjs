// Two builds of the shim side by side in one process, called alternately: how docs/performance.md
// measures a change to the TypeScript side (*A cold read does less*). Each build is a compiled
// `dist/` directory in the package root (both load the same native addon, `../index.js`), for
// example the previous commit's:
//
//   git stash && npx tsc -p tsconfig.json && cp -r dist dist-before && git stash pop && npx tsc -p tsconfig.json
//   node benchmark/paired-builds.mjs dist-before dist --sizes 200,2000 --pairs 200
//
// `--pairs` (default 200) is the number of pairs at 2,000 messages, scaled by 2,000 / messages at
// other sizes. Each pair times one cold call of each build (a new editor, fresh copies of the messages, a turn
// of the event loop before it; which build goes first alternates), as CPU time of the process.
// Prints, per call and size, each build's median and the median of the per-pair ratios
// (second ÷ first): steadier than comparing separate processes on a shared machine. Calls:
// `edit` and `countTokens` (approx, `trigger: { tokens: 100000 }, keep: { messages: 3 }`).

import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { generateConversation, parseFlags } from './generate.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const OPTIONS = { trigger: { tokens: 100000 }, keep: { messages: 3 } }

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const turn = () => new Promise((r) => setImmediate(r))

/** The `ContextEditor` of the build in `dir` (relative to the package root). */
async function editorOf(dir) {
  const at = resolve(ROOT, dir, 'index.js')
  if (!existsSync(at)) throw new Error(`${dir}: no index.js there (expected a compiled dist/ directory in the package root)`)
  return (await import(pathToFileURL(at).href)).ContextEditor
}

/** A fresh copy of each message: same class, same fields, objects no editor has seen. */
const fresh = (messages) => messages.map((m) => Object.assign(Object.create(Object.getPrototypeOf(m)), m))

/** CPU milliseconds of `f()` (all of this process's threads). */
function cpu(f) {
  const c0 = process.cpuUsage()
  f()
  const c = process.cpuUsage(c0)
  return (c.user + c.system) / 1000
}

/** `pairs` pairs of cold calls of `call` on builds `first` and `second`; returns each build's times and the per-pair ratios. */
async function pairsOf(first, second, call, n, pairs) {
  const convs = [0, 1, 2, 3].map((k) => generateConversation({ seed: 42 + k, messages: n }))
  const times = [[], []]
  for (let r = 0; r < pairs; r++) {
    const { messages, systemPrompt, tools } = convs[r % convs.length]
    const order = r % 2 ? [0, 1] : [1, 0]
    for (const b of order) {
      const editor = new [first, second][b](OPTIONS)
      const msgs = fresh(messages)
      await turn()
      times[b].push(cpu(() => (call === 'edit' ? editor.edit(msgs, { systemPrompt, tools, model: 'gpt-4o' }) : editor.countTokens(msgs))))
    }
  }
  return { first: median(times[0]), second: median(times[1]), ratio: median(times[1].map((t, k) => t / times[0][k])) }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const argv = process.argv.slice(2)
  // The arguments that are neither a flag nor a flag's value (`--k v` or `--k=v`).
  const [a, b] = argv.filter((x, k) => !x.startsWith('--') && !(k > 0 && argv[k - 1].startsWith('--') && !argv[k - 1].includes('=')))
  if (a === undefined || b === undefined) {
    console.error('usage: node benchmark/paired-builds.mjs <first dist dir> <second dist dir> [--sizes 200,2000] [--pairs 200] [--calls edit,countTokens]')
    process.exit(2)
  }
  const flags = parseFlags(process.argv.slice(2))
  const sizes = String(flags.sizes ?? '200,2000')
    .split(',')
    .map(Number)
  const pairs = Number(flags.pairs ?? 200)
  const calls = String(flags.calls ?? 'edit,countTokens').split(',')
  const [first, second] = [await editorOf(a), await editorOf(b)]
  console.log(
    `Cold calls, CPU time, ${pairs} pairs at 2,000 messages (scaled by 2,000 / messages at other sizes), the builds alternating; ratio = median of the per-pair ${b} ÷ ${a}.\n`,
  )
  console.log(`| call | messages | ${a} | ${b} | ratio |`)
  console.log('|---|---|---|---|---|')
  for (const call of calls) {
    for (const n of sizes) {
      const r = await pairsOf(first, second, call, n, Math.max(2, Math.round((pairs * 2000) / n)))
      console.log(`| \`${call}\` | ${n.toLocaleString('en-US')} | ${r.first.toFixed(3)} ms | ${r.second.toFixed(3)} ms | ${r.ratio.toFixed(3)} |`)
    }
  }
}
