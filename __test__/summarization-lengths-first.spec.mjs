// Lengths first: in approx mode a pipeline with a `summarize` edit plans from the messages' lengths
// (the cheap wire) and sends their text only when the plan asks for a summary, whose prompt quotes
// it. Differential: over seeded conversations and option sets (triggered, not triggered, on the
// trigger's edge, every kind of `keep`, earlier edits, stable mode, pins, an earlier summary to
// extend), every call (plan, planAsync, edit and editAsync with a summarizer, countTokens, an agent
// loop through the editor's sessions, the LangChain summarization middleware) gives exactly what
// the always-text path gives: the same plan, report, summary request and messages.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { NativeContextEditor } from '../dist/native.js'
import { __alwaysSendText } from '../dist/internal.js'
import { summarizationMiddleware } from '../dist/langchain/index.js'
import { dump } from './support/edits.mjs'
import { Rng } from './support/prng.mjs'

const PREFIX = 'Here is a summary of the conversation to date:'
/** A word only the messages' text holds: seen by the native side only when text crosses. */
const SENTINEL = 'ZQXJ-SENTINEL'

/** `make()` with editors made as before lengths first (text whenever a summary may need it). */
function alwaysText(make) {
  __alwaysSendText(true)
  try {
    return make()
  } finally {
    __alwaysSendText(false)
  }
}

const WORDS = ['alpha', 'βeta', '数据', 'emoji 🙂', 'naïve', 'x', SENTINEL, 'log line\n', '{"k": 1}']

function text(r, max) {
  const n = r.int(0, max)
  const out = []
  for (let k = 0; k < n; k++) out.push(WORDS[r.int(0, WORDS.length - 1)])
  return out.join(' ')
}

/** A seeded conversation: tool calls (parallel, some unanswered), non-ASCII text, maybe an earlier summary first. */
function conversation(seed, n) {
  const r = new Rng(seed)
  const out = []
  let id = 0
  const next = () => `s${seed}m${id++}`
  if (r.chance(0.6)) out.push(new SystemMessage({ content: `You are careful. ${text(r, 6)}`, id: next() }))
  if (r.chance(0.35)) {
    out.push(new HumanMessage({ content: `${PREFIX}\n\n${text(r, 30)}`, id: next(), additional_kwargs: { lc_source: 'summarization' } }))
  }
  const open = []
  while (out.length < n) {
    const x = r.next()
    if (x < 0.25) out.push(new HumanMessage({ content: text(r, 40), id: next() }))
    else if (x < 0.5) {
      const calls = Array.from({ length: r.int(1, 3) }, () => ({
        id: `c${seed}_${id++}`,
        name: r.chance(0.5) ? 'read' : 'search',
        args: { q: text(r, 5) },
        type: 'tool_call',
      }))
      out.push(new AIMessage({ content: r.chance(0.5) ? '' : text(r, 20), tool_calls: calls, id: next() }))
      open.push(...calls)
    } else if (x < 0.85 && open.length > 0) {
      const [call] = open.splice(r.int(0, open.length - 1), 1)
      out.push(new ToolMessage({ content: text(r, 120), tool_call_id: call.id, name: call.name, id: next() }))
    } else out.push(new AIMessage({ content: text(r, 60), id: next() }))
  }
  return out
}

/** The option sets for a history whose approx count is `total` tokens. */
function optionSets(r, total, length, pinned) {
  const keeps = [{ messages: r.int(0, length) }, { messages: 3 }, { tokens: r.int(1, Math.max(1, total)) }, { turns: r.int(0, 3) }, { fraction: 0.2 }]
  const triggers = [
    { tokens: 1 }, // fires
    { tokens: 1e9 }, // does not
    { tokens: total }, // the edge: on it and just past it
    { tokens: total + 1 },
    { tokens: Math.max(1, total - 1) },
    { messages: length },
    { fraction: 0.5 },
  ]
  const sets = []
  for (const trigger of triggers) {
    const keep = keeps[r.int(0, keeps.length - 1)]
    const summarize = { type: 'summarize', trigger, keep }
    if (r.chance(0.3)) summarize.trimTokensToSummarize = r.int(0, 60)
    if (r.chance(0.3)) summarize.toolTrimLimit = r.int(1, 30)
    if (r.chance(0.2)) summarize.summaryRole = 'assistant'
    const clear = { type: 'clear_tool_uses', trigger: { tokens: r.int(1, total + 2) }, keep: { messages: r.int(0, 4) } }
    if (r.chance(0.4)) clear.stable = true
    const edits = r.chance(0.5) ? [clear, summarize] : [summarize]
    // Truncation sends the text of tool results whatever the mode: a plan that cuts them and summarizes.
    if (r.chance(0.25)) edits.unshift({ type: 'truncate_tool_results', maxChars: r.int(10, 200) })
    const options = { edits }
    if (r.chance(0.25)) options.pin = { ids: pinned }
    sets.push(options)
  }
  return sets
}

const outcome = ({ messages, report }) => ({ messages: dump(messages), report })

/** Calls `call(editor, summarize)` on both editors, each with a summarizer that records its requests. */
async function same(fast, slow, call, what) {
  const asked = { fast: [], slow: [] }
  const writer = (log) => (request) => (log.push(request), `summary ${log.length}`)
  const settle = async (f) => {
    try {
      return { value: await f() }
    } catch (e) {
      return { error: { code: e.code, path: e.path, message: e.message } }
    }
  }
  const a = await settle(() => call(fast, writer(asked.fast)))
  const b = await settle(() => call(slow, writer(asked.slow)))
  assert.deepEqual(a, b, what)
  assert.deepEqual(asked.fast, asked.slow, `${what}: the summarizer was asked the same`)
  return a
}

describe('lengths first agrees with the always-text path', () => {
  const SEEDS = 24
  const seen = { summary: 0, none: 0, previous: 0 }
  for (let seed = 1; seed <= SEEDS; seed++) {
    test(`conversation ${seed}: plan, planAsync, edit, editAsync, countTokens`, async () => {
      const r = new Rng(seed * 7919)
      const h = conversation(seed, r.int(1, 60))
      const total = new ContextEditor({ trigger: [] }).countTokens(h).total
      for (const options of optionSets(
        r,
        total,
        h.length,
        h.filter(() => r.chance(0.1)).map((m) => m.id),
      )) {
        const fast = new ContextEditor(options)
        const slow = alwaysText(() => new ContextEditor(options))
        const context = r.chance(0.5) ? { maxInputTokens: total * 2 + 10 } : { maxInputTokens: Math.max(1, total) }
        // The caller's own counts (LangChain's `tokenCounter`): the history is planned whole, without a session.
        if (r.chance(0.2)) context.messageTokens = h.map(() => r.int(0, Math.ceil((2 * total) / h.length)))
        const where = `seed ${seed}, ${JSON.stringify(options)}`
        const plan = await same(fast, slow, (ed) => ed.plan(h, context), `plan: ${where}`)
        if (plan.value?.summary) seen.summary++
        else seen.none++
        if (plan.value?.summary?.prompt.includes('<previous_summary>')) seen.previous++
        await same(fast, slow, (ed) => ed.planAsync(h, context), `planAsync: ${where}`)
        await same(fast, slow, (ed, summarize) => outcome(ed.edit(h, { ...context, summarize })), `edit: ${where}`)
        await same(
          fast,
          slow,
          async (ed, summarize) => outcome(await ed.editAsync(h, { ...context, summarize: async (q) => summarize(q) })),
          `editAsync: ${where}`,
        )
        // A summarizer with no text: the messages are kept and the report says so.
        await same(fast, slow, (ed) => outcome(ed.edit(h, { ...context, summarize: () => '  ' })), `edit, empty summary: ${where}`)
        await same(fast, slow, (ed) => ed.countTokens(h, context), `countTokens: ${where}`)
      }
    })
  }

  test('the cases above cover both paths: summaries (some extending an earlier one) and none', () => {
    assert.ok(seen.summary >= 20 && seen.none >= 20 && seen.previous >= 3, JSON.stringify(seen))
  })

  test('an agent loop through the sessions: every call, growing history, then summaries replacing it', async () => {
    for (let seed = 100; seed < 106; seed++) {
      const r = new Rng(seed)
      const full = conversation(seed, 120)
      const total = new ContextEditor({ trigger: [] }).countTokens(full).total
      const summarize = { type: 'summarize', trigger: { tokens: Math.floor(total * 0.6) }, keep: { messages: r.int(2, 12) } }
      const clear = { type: 'clear_tool_uses', trigger: { tokens: Math.floor(total * 0.3) }, keep: { messages: 2 }, stable: r.chance(0.5) }
      const options = { edits: r.chance(0.5) ? [clear, summarize] : [summarize] }
      const fast = new ContextEditor(options)
      const slow = alwaysText(() => new ContextEditor(options))
      let hf = []
      let hs = []
      for (let from = 0, end = 8; from < full.length; from = end, end += r.int(1, 9)) {
        // The turn's new messages, the same objects for both agents.
        const add = full.slice(from, end)
        hf = [...hf, ...add]
        hs = [...hs, ...add]
        const async = r.chance(0.5)
        const call = (ed, h, summarize) => (async ? ed.editAsync(h, { summarize: async (q) => summarize(q) }) : ed.edit(h, { summarize }))
        const [a, b] = await Promise.all([call(fast, hf, (q) => `s ${q.replaced.length}`), call(slow, hs, (q) => `s ${q.replaced.length}`)])
        assert.deepEqual(outcome(a), outcome(b), `seed ${seed}, call at ${end}`)
        // The agent keeps what the editor returned (a summary replaces the history).
        hf = a.messages
        hs = b.messages
        assert.deepEqual(await fast.planAsync(hf), await slow.planAsync(hs), `seed ${seed}, planAsync at ${end}`)
      }
    }
  })

  test('long histories and calls in flight together (the paced path, text sent in pieces): the same results', async () => {
    for (let seed = 300; seed < 304; seed++) {
      const r = new Rng(seed)
      const histories = [conversation(seed, r.int(450, 1200)), conversation(seed + 50, r.int(20, 300))]
      const total = new ContextEditor({ trigger: [] }).countTokens(histories[0]).total
      const options = { edits: [{ type: 'summarize', trigger: { tokens: [1, total, 1e9][seed % 3] }, keep: { messages: r.int(1, 40) } }] }
      const fast = new ContextEditor(options)
      const slow = alwaysText(() => new ContextEditor(options))
      const calls = (ed) =>
        histories.flatMap((h) => [ed.planAsync(h), ed.editAsync(h, { summarize: async (q) => `${q.replaced.length} ${q.prompt.length}` }).then(outcome)])
      const [a, b] = [await Promise.all(calls(fast)), await Promise.all(calls(slow))]
      assert.deepEqual(a, b, `seed ${seed}`)
      if (seed % 3 === 0) assert.ok(a[0].summary, 'the long history is summarized')
    }
  })

  test('the LangChain summarization middleware: the same state updates, prompts and reports', async () => {
    for (let seed = 200; seed < 212; seed++) {
      const r = new Rng(seed)
      const h = conversation(seed, r.int(4, 80))
      const total = new ContextEditor({ trigger: [] }).countTokens(h).total
      const trigger = [{ tokens: 1 }, { tokens: 1e9 }, { tokens: total }, { tokens: total + 1 }][seed % 4]
      const keep = [{ messages: 4 }, { tokens: r.int(1, total) }, { fraction: 0.3 }][seed % 3]
      const run = async () => {
        const prompts = []
        const reports = []
        const model = { invoke: async (prompt) => (prompts.push(prompt), { content: `summary of ${prompts.length}` }), profile: { maxInputTokens: total * 2 } }
        const tokenCounter = seed % 2 ? (ms) => ms.reduce((n, m) => n + Math.ceil(String(m.content).length / 3), 0) : undefined
        const mw = summarizationMiddleware({ trigger, keep, model, tokenCounter, onReport: (report) => reports.push(report) })
        const update = await mw.beforeModel({ messages: h }, { context: {} })
        return { update: update && dump(update.messages.slice(1)), prompts, reports }
      }
      const fast = await run()
      const slow = await alwaysText(() => run())
      assert.deepEqual(fast, slow, `seed ${seed}, trigger ${JSON.stringify(trigger)}, keep ${JSON.stringify(keep)}`)
    }
  })
})

describe('what crosses to the native side', () => {
  /** Runs `f` and returns whether any native call was handed a string containing `SENTINEL`. */
  async function textCrossed(f) {
    const proto = NativeContextEditor.prototype
    const names = Object.getOwnPropertyNames(proto).filter((k) => k !== 'constructor' && typeof Object.getOwnPropertyDescriptor(proto, k).value === 'function')
    const saved = names.map((k) => [k, proto[k]])
    let seen = false
    const scan = (v, depth = 0) => {
      if (seen || depth > 6) return
      if (typeof v === 'string') seen = v.includes(SENTINEL)
      else if (v !== null && typeof v === 'object') for (const x of Array.isArray(v) ? v : Object.values(v)) scan(x, depth + 1)
    }
    for (const [k, f0] of saved) {
      proto[k] = function (...args) {
        scan(args)
        return f0.apply(this, args)
      }
    }
    try {
      await f()
    } finally {
      for (const [k, f0] of saved) proto[k] = f0
    }
    return seen
  }

  const h = [new HumanMessage(`find ${SENTINEL}`), new AIMessage({ content: 'ok', tool_calls: [{ id: 'c1', name: 'read', args: {} }] })]
  h.push(new ToolMessage({ content: `${SENTINEL} `.repeat(50), tool_call_id: 'c1' }), new AIMessage('done'))

  test('a summarisation plan that does not fire sends lengths only; one that fires sends the text it quotes', async () => {
    const quiet = { edits: [{ type: 'summarize', trigger: { tokens: 1e9 }, keep: { messages: 1 } }] }
    const firing = { edits: [{ type: 'summarize', trigger: { tokens: 1 }, keep: { messages: 1 } }] }
    assert.equal(await textCrossed(() => new ContextEditor(quiet).plan(h)), false)
    assert.equal(await textCrossed(() => new ContextEditor(quiet).planAsync(h)), false)
    assert.equal(await textCrossed(() => alwaysText(() => new ContextEditor(quiet)).plan(h)), true, 'the always-text path (the reference) sends text')
    let plan
    assert.equal(await textCrossed(async () => (plan = await new ContextEditor(firing).planAsync(h))), true)
    assert.ok(plan.summary.prompt.includes(SENTINEL), 'the prompt quotes the summarized messages')
  })
})
