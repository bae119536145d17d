// Flags and helpers shared by the sections of benchmark/bench.mjs: the parsed flags (seed, sizes,
// time caps, budgets), logging, medians and number formats, the measuring loop, the `Capped` error a
// time-capped LangChain run throws, and installed package versions.

import { readFileSync } from 'node:fs'
import { parseFlags } from './generate.mjs'

// ---------------------------------------------------------------------------------------------
// Flags and helpers

export const flags = parseFlags(process.argv.slice(2))
export const SEED = Number(flags.seed ?? 42)
export const SIZES = String(flags.sizes ?? '200,2000,10000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0)
export const CAP_MS = Number(flags.cap ?? 15) * 1000
export const EXACT_CAP_MS = Number(flags['exact-cap'] ?? flags.cap ?? 15) * 1000
const BUDGET_MS = Number(flags.budget ?? 2) * 1000
export const CORPUS_MESSAGES = Number(flags['corpus-messages'] ?? 2000)
/** Next calls timed per size (one per AI turn at the end of the conversation). */
export const NEXT_CALLS = Number(flags['next-calls'] ?? 25)

export const log = (...a) => console.error('[bench]', ...a)
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
export const fmtMs = (ms) =>
  ms >= 7200e3
    ? `${(ms / 3600e3).toFixed(0)} h`
    : ms >= 120e3
      ? `${(ms / 60e3).toFixed(0)} min`
      : ms >= 10000
        ? `${(ms / 1000).toFixed(1)} s`
        : ms >= 1000
          ? `${(ms / 1000).toFixed(2)} s`
          : ms >= 100
            ? `${ms.toFixed(0)} ms`
            : ms >= 10
              ? `${ms.toFixed(1)} ms`
              : `${ms.toFixed(2)} ms`
const sig2 = (x) => {
  const p = 10 ** (Math.floor(Math.log10(x)) - 1)
  return Math.round(x / p) * p
}
export const fmtRatio = (x) =>
  x >= 1000 ? `${sig2(x).toLocaleString('en-US')}×` : x >= 100 ? `${Math.round(x).toLocaleString('en-US')}×` : x >= 10 ? `${x.toFixed(0)}×` : `${x.toFixed(1)}×`

/**
 * Runs `fn` (after an untimed `setup` per run) at least `minRuns` times and until `budgetMs` is
 * spent (at most `maxRuns`); returns the per-run times.
 */
export async function measure(fn, { setup, minRuns = 3, maxRuns = 25, budgetMs = BUDGET_MS, warmup = 1 } = {}) {
  for (let i = 0; i < warmup; i++) {
    const s = setup ? await setup() : undefined
    await fn(s)
  }
  const times = []
  const start = performance.now()
  while (times.length < minRuns || (times.length < maxRuns && performance.now() - start < budgetMs)) {
    const s = setup ? await setup() : undefined
    const t0 = performance.now()
    await fn(s)
    times.push(performance.now() - t0)
  }
  return times
}

export class Capped extends Error {
  constructor(elapsed, progress) {
    super('capped')
    this.elapsed = elapsed
    this.progress = progress // fraction of the whole call done, estimated
  }
}

export function version(pkg) {
  try {
    return JSON.parse(readFileSync(new URL(`../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version
  } catch {
    return '?'
  }
}
