#!/usr/bin/env node
// Prompt-cache replay: what clearing policies cost once the provider's prompt cache is priced in.
//
// Replays seeded agent runs (benchmark/generate.mjs): every AI message of the run is one model call
// that saw the history before it. Each policy edits that history per call (as `wrapModelCall` does:
// on a copy, from the full history), the edited request is counted exactly (o200k_base, OpenAI
// framing) and priced under two cache models:
//
//   (1) ideal:     the longest prefix identical to the previous request is read from cache (0.1×),
//                  the rest is written (1.25×).
//   (2) anthropic: cache entries exist only at breakpoints of earlier requests; a breakpoint of this
//                  request hits the longest identical prefix cached at an earlier breakpoint at most
//                  20 content blocks before it. Read 0.1×, the rest up to the last breakpoint is
//                  written (1.25×), tokens after the last breakpoint cost 1×. Entries never expire.
//
// Policies: no editing; LangChain's real `ClearToolUsesEdit` with its defaults (langchain, approx
// counting, applied to a copy per call; one automatic breakpoint at the end of each request, as
// LangChain's Anthropic prompt-caching middleware sets it); our default (same options, exact
// counting); our stable mode; our stable mode with our cache breakpoints.
//
//   node benchmark/cache-replay.mjs                      # seeds 1,2,3 × 2,000 messages (~3 min a seed)
//   node benchmark/cache-replay.mjs --seeds 7 --messages 600 --step 25 --json out.json
//
// Flags: --step default|N|tN|rX (the stable policy: `stable: true`, N-result steps, N-token steps,
// steps that free X× what they evict); --steps 25,t8000,r2 (extra stable + breakpoints rows); --langchain sample|all|port (LangChain's real
// edit on every 10th call checked against the single-pass port / on every call / never);
// --optimum (also the offline optimum of step schedules: a floor no stateless policy can beat);
// --check (exit 1 when a target of issue 9 is missed); --json FILE.
//
// Needs the addon and dist/ (npm run build; a release addon: the debug one is ~10× slower).

import { writeFileSync } from 'node:fs'
import { ClearToolUsesEdit, countTokensApproximately } from 'langchain'
import { ToolMessage } from '@langchain/core/messages'
import { generateConversation, parseFlags } from './generate.mjs'
import { jsClearToolUses } from './js-reference.mjs'
// CONTEXT_EDITOR_DIST=/path/to/dist/index.js runs against another build (e.g. a release copy).
const { ContextEditor } = await import(process.env.CONTEXT_EDITOR_DIST ?? '../dist/index.js')

const READ = 0.1
const WRITE = 1.25
const LOOKBACK_BLOCKS = 20
const PRICE_PER_MTOK = 3 // $ per million input tokens (Claude Sonnet list price), for readability

const typeOf = (m) => (typeof m._getType === 'function' ? m._getType() : m.type)

/** Text of a content, ignoring `cache_control` (a breakpoint does not change the cached prompt). */
function textOf(content) {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  let s = ''
  for (const b of content) {
    if (typeof b === 'string') s += b
    else if (b?.type === 'text') s += b.text
    else s += JSON.stringify({ ...b, cache_control: undefined })
  }
  return s
}

function hasBreakpoint(m) {
  return Array.isArray(m.content) && m.content.some((b) => b && typeof b === 'object' && b.cache_control)
}

/** Content blocks a message becomes in Anthropic's format (text, one per tool_use, one tool_result). */
function blocksOf(m) {
  const t = typeOf(m)
  if (t !== 'ai') return 1
  const calls = m.tool_calls?.length ?? 0
  return Math.max(1, (textOf(m.content) ? 1 : 0) + calls)
}

/**
 * Identity and exact size of the messages a policy sends. Unchanged messages are the history's own
 * objects; edited ones are identified by their original position plus what changed.
 */
class Catalog {
  constructor(history, fixedTokens, counter) {
    this.history = history
    this.counter = counter
    this.fixed = fixedTokens
    this.index = new Map(history.map((m, i) => [m, i]))
    this.byCallId = new Map()
    this.byId = new Map()
    history.forEach((m, i) => {
      if (typeOf(m) === 'tool') this.byCallId.set(m.tool_call_id, i)
      else if (m.id) this.byId.set(m.id, i)
    })
    this.keys = new WeakMap()
    this.tokens = new Map() // key → tokens
  }

  key(m) {
    let k = this.keys.get(m)
    if (k !== undefined) return k
    const i0 = this.index.get(m)
    if (i0 !== undefined) k = `o${i0}`
    else {
      const i = typeOf(m) === 'tool' ? this.byCallId.get(m.tool_call_id) : this.byId.get(m.id)
      const o = this.history[i]
      const text = textOf(m.content)
      const args = JSON.stringify((m.tool_calls ?? []).map((c) => c.args))
      const same = o && text === textOf(o.content) && args === JSON.stringify((o.tool_calls ?? []).map((c) => c.args))
      k = same ? `o${i}` : `c${i}:${text}:${args}`
    }
    this.keys.set(m, k)
    return k
  }

  /** Keys and exact token counts of a request's messages. */
  measure(messages) {
    const keys = messages.map((m) => this.key(m))
    const missing = []
    for (let i = 0; i < messages.length; i++) if (!this.tokens.has(keys[i])) missing.push(i)
    if (missing.length) {
      const counts = this.counter.countTokens(missing.map((i) => messages[i])).messages
      missing.forEach((i, k) => this.tokens.set(keys[i], counts[k]))
    }
    return { keys, tokens: keys.map((k) => this.tokens.get(k)) }
  }
}

/** Interns prefixes: the same chain of message keys always gets the same id. */
class Prefixes {
  constructor() {
    this.ids = new Map()
  }
  chain(keys) {
    const out = new Array(keys.length)
    let prev = 0
    for (let i = 0; i < keys.length; i++) {
      const k = `${prev}\u0000${keys[i]}`
      let id = this.ids.get(k)
      if (id === undefined) this.ids.set(k, (id = this.ids.size + 1))
      out[i] = prev = id
    }
    return out
  }
}

/** Prices the calls of one policy under both cache models. */
class Meter {
  constructor(prefixes) {
    this.prefixes = prefixes
    this.entries = new Set() // prefix ids cached at earlier breakpoints
    this.prev = null // prefix ids of the previous request
    this.calls = 0
    this.input = 0
    this.maxInput = 0
    this.invalidations = 0
    this.ideal = { cost: 0, read: 0 }
    this.anthropic = { cost: 0, read: 0 }
    this.visibleResults = 0
  }

  /** `breakpoints`: message positions (end of message) marked in this request. */
  add({ keys, tokens, fixed, breakpoints, visibleResults, blocks }) {
    const ids = this.prefixes.chain(keys)
    const n = keys.length
    const cum = new Array(n + 1) // tokens up to and including message i-1, system prompt and tools first
    cum[0] = fixed
    for (let i = 0; i < n; i++) cum[i + 1] = cum[i] + tokens[i]
    const total = cum[n]
    this.calls++
    this.input += total
    this.maxInput = Math.max(this.maxInput, total)
    this.visibleResults += visibleResults

    // (1) ideal: longest prefix shared with the previous request.
    let lcp = 0
    if (this.prev) {
      const m = Math.min(this.prev.length, n)
      while (lcp < m && this.prev[lcp] === ids[lcp]) lcp++
      if (lcp < this.prev.length) this.invalidations++
    }
    const idealRead = this.prev ? cum[lcp] : 0
    this.ideal.read += idealRead
    this.ideal.cost += READ * idealRead + WRITE * (total - idealRead)
    this.prev = ids

    // (2) anthropic: hits only at earlier breakpoints within the lookback of a breakpoint here.
    const bcum = new Array(n + 1)
    bcum[0] = 0
    for (let i = 0; i < n; i++) bcum[i + 1] = bcum[i] + blocks[i]
    let hit = -1 // message position whose prefix (inclusive) is read from cache
    for (const b of breakpoints) {
      for (let i = b; i >= 0 && bcum[b + 1] - bcum[i + 1] <= LOOKBACK_BLOCKS; i--) {
        if (i <= hit) break
        if (this.entries.has(ids[i])) {
          hit = i
          break
        }
      }
    }
    const read = hit >= 0 ? cum[hit + 1] : 0
    const last = breakpoints.length ? Math.max(...breakpoints) : -1
    const written = last >= 0 ? Math.max(0, cum[last + 1] - read) : 0
    this.anthropic.read += read
    this.anthropic.cost += READ * read + WRITE * written + (total - read - written)
    for (const b of breakpoints) this.entries.add(ids[b])
  }

  summary() {
    const $ = (t) => (t * PRICE_PER_MTOK) / 1e6
    return {
      calls: this.calls,
      inputTokens: this.input,
      maxInputTokens: this.maxInput,
      invalidations: this.invalidations,
      noCache: $(this.input),
      ideal: $(this.ideal.cost),
      idealHitRatio: this.ideal.read / this.input,
      anthropic: $(this.anthropic.cost),
      anthropicHitRatio: this.anthropic.read / this.input,
      avgVisibleResults: this.visibleResults / this.calls,
    }
  }
}

/** `default` → `true`; `N` → N-result steps; `tN` → N-token steps; `rX` → steps worth X× what they evict. */
function stableOption(step) {
  if (step === 'default') return true
  if (step.startsWith('t')) return { stepTokens: Number(step.slice(1)) }
  if (step.startsWith('r')) return { stepRatio: Number(step.slice(1)) }
  return { stepResults: Number(step) }
}

function stableName(step) {
  if (step === 'default') return 'stable: true'
  if (step.startsWith('t')) return `stepTokens ${Number(step.slice(1)).toLocaleString('en-US')}`
  if (step.startsWith('r')) return `stepRatio ${step.slice(1)}`
  return `stepResults ${step}`
}

function policies(step, { langchain = 'sample', steps = [] } = {}) {
  const stable = stableOption(step)
  const model = { tokenCountMethod: 'model' }
  const ours = (options) => {
    const editor = new ContextEditor({ ...model, ...options })
    return (messages, ctx) => {
      const { messages: out } = editor.edit(messages, ctx)
      return out
    }
  }
  // LangChain's real edit is O(n²) (it recounts the whole history after every cleared result:
  // ~0.7 s per call at 2,000 messages). By default it runs on every 10th call and a single-pass port
  // of its rules (js-reference.mjs) on the others; every call where both run must agree exactly.
  let call = 0
  const real = async (messages) => {
    const copy = messages.slice()
    await new ClearToolUsesEdit({}).apply({ messages: copy, model: undefined, countTokens: countTokensApproximately })
    return copy
  }
  const langChainPolicy = {
    name: 'LangChain ClearToolUsesEdit defaults',
    apply: async (messages) => {
      call++
      if (langchain === 'all') return real(messages)
      const port = jsClearToolUses(messages, { trigger: { tokens: 100000 }, keep: { messages: 3 } })
      if (langchain === 'sample' && call % 10 === 1) {
        const want = await real(messages)
        const same = want.length === port.length && want.every((m, i) => textOf(m.content) === textOf(port[i].content))
        if (!same) throw new Error(`js-reference differs from LangChain at call ${call}`)
        langChainChecked++
      }
      return port
    },
  }
  // `--steps 25,t8000,r2`: more stable + breakpoints rows (result count, tokens, ratio).
  const extra = steps.map((s) => ({
    name: `context-editor ${stableName(s)} + breakpoints`,
    apply: ours({ stable: stableOption(s), cacheBreakpoints: true }),
    breakpoints: true,
  }))
  return [
    { name: 'no editing', apply: (messages) => messages },
    langChainPolicy,
    { name: 'context-editor default', apply: ours({}) },
    { name: `context-editor ${stableName(step)}`, apply: ours({ stable }) },
    {
      name: `context-editor ${stableName(step)} + breakpoints`,
      apply: ours({ stable, cacheBreakpoints: true }),
      breakpoints: true,
    },
    ...extra,
  ]
}

/**
 * A floor for stable clearing: the cheapest schedule under the ideal cache model, found offline by
 * dynamic programming over the same calls, among the schedules that at each call either keep the
 * boundary or move it to the kept window (a partial step only adds tokens to read: everything
 * after the first newly cleared result is rewritten either way). Same trigger (100,000 tokens,
 * exact counts), keep 3 results, ceiling 100,000. Knows the future, so no stateless policy can
 * beat it.
 */
function optimum(history, ctx, counter, fixed, ceiling) {
  const tok = counter.countTokens(history, ctx).messages
  const results = []
  history.forEach((m, i) => typeOf(m) === 'tool' && results.push(i))
  const ph = results.map(
    (i) => counter.countTokens([new ToolMessage({ content: '[cleared]', tool_call_id: history[i].tool_call_id, name: history[i].name })], ctx).messages[0],
  )
  const cum = [0]
  for (const t of tok) cum.push(cum.at(-1) + t)
  const save = [0]
  results.forEach((i, j) => save.push(save[j] + tok[i] - ph[j]))
  let best = null // k → { cost, total }
  let seen = 0
  for (let end = 1; end < history.length; end++) {
    if (typeOf(history[end]) !== 'ai') continue
    while (seen < results.length && results[seen] < end) seen++
    const raw = fixed + cum[end]
    const n = Math.max(0, seen - 3)
    const next = new Map()
    const put = (k, cost, total) => {
      const o = next.get(k)
      if (!o || o.cost > cost) next.set(k, { cost, total })
    }
    if (!best) put(0, WRITE * raw, raw)
    else
      for (const [k, { cost, total: before }] of best) {
        const triggered = raw >= ceiling
        const stay = raw - save[k]
        if (!(triggered && stay > ceiling && n > k)) put(k, cost + READ * before + WRITE * (stay - before), stay)
        if (triggered && n > k) {
          const moved = raw - save[n]
          const read = fixed + cum[results[k]] - save[k]
          put(n, cost + READ * read + WRITE * (moved - read), moved)
        }
      }
    best = next
  }
  return (Math.min(...[...best.values()].map((v) => v.cost)) * PRICE_PER_MTOK) / 1e6
}

let langChainChecked = 0

async function replay(seed, size, step, ceiling, options) {
  const conv = generateConversation({ seed, messages: size })
  const history = conv.messages
  const ctx = { systemPrompt: conv.systemPrompt, tools: conv.tools }
  const counter = new ContextEditor({ tokenCountMethod: 'model' })
  const base = counter.countTokens([], ctx)
  const fixed = base.total // system prompt + tools + reply priming
  const catalog = new Catalog(history, fixed, counter)
  const prefixes = new Prefixes()
  const list = policies(step, options)
  const meters = list.map(() => new Meter(prefixes))
  const times = list.map(() => 0)
  let calls = 0
  for (let end = 1; end < history.length; end++) {
    if (typeOf(history[end]) !== 'ai') continue
    calls++
    const seen = history.slice(0, end)
    for (let p = 0; p < list.length; p++) {
      const t0 = performance.now()
      const out = await list[p].apply(seen, ctx)
      times[p] += performance.now() - t0
      const { keys, tokens } = catalog.measure(out)
      let breakpoints
      if (list[p].breakpoints) {
        breakpoints = []
        out.forEach((m, i) => hasBreakpoint(m) && breakpoints.push(i))
      } else breakpoints = out.length ? [out.length - 1] : []
      const visibleResults = out.filter((m) => typeOf(m) === 'tool' && !m.response_metadata?.context_editing?.cleared).length
      meters[p].add({ keys, tokens, fixed, breakpoints, visibleResults, blocks: out.map(blocksOf) })
    }
  }
  const floor = options.optimum ? optimum(history, ctx, counter, fixed, ceiling) : undefined
  return list.map((p, i) => ({ policy: p.name, ...meters[i].summary(), ms: times[i] / calls, ceiling, floor }))
}

function table(rows) {
  const head = ['policy', 'calls', 'input tok', 'max input', 'invalid.', 'no cache $', 'ideal $', 'hit', 'anthropic $', 'hit', 'results seen']
  const lines = rows.map((r) => [
    r.policy,
    String(r.calls),
    r.inputTokens.toLocaleString('en-US'),
    r.maxInputTokens.toLocaleString('en-US'),
    String(r.invalidations),
    r.noCache.toFixed(2),
    r.ideal.toFixed(2),
    `${(100 * r.idealHitRatio).toFixed(1)}%`,
    r.anthropic.toFixed(2),
    `${(100 * r.anthropicHitRatio).toFixed(1)}%`,
    r.avgVisibleResults.toFixed(1),
  ])
  const w = head.map((h, c) => Math.max(h.length, ...lines.map((l) => l[c].length)))
  const fmt = (l) => '| ' + l.map((x, c) => (c === 0 ? x.padEnd(w[c]) : x.padStart(w[c]))).join(' | ') + ' |'
  return [fmt(head), '|' + w.map((n, c) => (c === 0 ? '-'.repeat(n + 2) : '-'.repeat(n + 1) + ':')).join('|') + '|', ...lines.map(fmt)].join('\n')
}

const flags = parseFlags(process.argv.slice(2))
const seeds = String(flags.seeds ?? '1,2,3')
  .split(',')
  .map(Number)
const size = Number(flags.messages ?? 2000)
const step = String(flags.step ?? 'default') // 'default' | N results | tN tokens | rX ratio
const ceiling = 100000 // the default trigger: stable mode's ceiling
const options = {
  langchain: flags.langchain ?? 'sample', // 'all' | 'sample' | 'port'
  steps: flags.steps ? String(flags.steps).split(',') : [],
  optimum: flags.optimum === 'true',
}
const all = []
let ok = true
for (const seed of seeds) {
  const t0 = performance.now()
  const rows = await replay(seed, size, step, ceiling, options)
  all.push({ seed, rows })
  console.log(`\nseed ${seed}, ${size} messages (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`)
  console.log(table(rows))
  console.log('\nms per call: ' + rows.map((r) => `${r.policy}: ${r.ms.toFixed(1)}`).join(', '))
  const lc = rows[1]
  const sb = rows[4]
  const st = rows[3]
  const r2 = sb.anthropic / lc.anthropic
  const r1 = sb.ideal / lc.ideal
  const under = Math.max(st.maxInputTokens, sb.maxInputTokens) <= ceiling
  console.log(
    `\nstable + breakpoints vs LangChain: ${r2.toFixed(3)}× under (2) anthropic (target ≤ 0.2), ${r1.toFixed(3)}× under (1) ideal (target ≤ 1.0); ` +
      `max input ${Math.max(st.maxInputTokens, sb.maxInputTokens).toLocaleString('en-US')} ≤ ${ceiling.toLocaleString('en-US')}: ${under}`,
  )
  ok &&= r2 <= 0.2 && r1 <= 1.0 && under
}
// Paste-ready summary over the seeds.
const cols = all.map(({ seed }) => `seed ${seed}`)
const row = (label, f) => `| ${label} | ${all.map(({ rows }) => f(rows)).join(' | ')} |`
console.log(
  [
    '',
    `| ${stableName(step)} + breakpoints vs LangChain's defaults | ${cols.join(' | ')} |`,
    `|---|${cols.map(() => '--:').join('|')}|`,
    row('Anthropic model', (r) => `${(r[4].anthropic / r[1].anthropic).toFixed(3)}×`),
    row('ideal cache', (r) => `${(r[4].ideal / r[1].ideal).toFixed(3)}×`),
    row(`max input (ceiling ${ceiling.toLocaleString('en-US')})`, (r) => Math.max(r[3].maxInputTokens, r[4].maxInputTokens).toLocaleString('en-US')),
    row('results seen (LangChain)', (r) => `${r[4].avgVisibleResults.toFixed(1)} (${r[1].avgVisibleResults.toFixed(1)})`),
    ...(options.optimum
      ? [
          row(
            'offline optimum of step schedules (vs Anthropic / ideal)',
            (r) => `${(r[0].floor / r[1].anthropic).toFixed(3)}× / ${(r[0].floor / r[1].ideal).toFixed(3)}×`,
          ),
        ]
      : []),
  ].join('\n'),
)
console.log(`\nLangChain's real ClearToolUsesEdit checked against the port on ${langChainChecked} calls: identical`)
console.log(`\nall targets met over seeds ${seeds.join(', ')}: ${ok}`)
if (flags.json) writeFileSync(flags.json, JSON.stringify(all, null, 2))
if (flags.check) process.exitCode = ok ? 0 : 1
