// The context-editing section of benchmark/bench.mjs: per size, our editor (approx, model cold and
// next call, editAsync, the wrapModelCall hook, the JS single pass) against LangChain's
// ClearToolUsesEdit approx and exact, with the output-equality check; the table and where a next
// call's time goes.

import { ContextEditor, applyPlan } from '../dist/index.js'
import { NativeContextEditor, toWireContext, toWireMessages } from '../index.js'
import { contextEditingMiddlewareObject } from '../dist/xpert/index.js'
import { fingerprint, unchanged } from '../dist/wire.js'
import { generateConversation } from './generate.mjs'
import { jsClearToolUses } from './js-reference.mjs'

import { CAP_MS, EXACT_CAP_MS, fmtMs, fmtRatio, log, measure, median, NEXT_CALLS, SEED } from './bench-common.mjs'
import { approxCounter, CHECK_OPTIONS, EDIT_OPTIONS, exactCounter, runLangChain, sameOutput } from './langchain-side.mjs'

// ---------------------------------------------------------------------------------------------
// Editor benchmark

export async function benchSize(n, js) {
  const conv = generateConversation({ seed: SEED, messages: n })
  const { messages, systemPrompt, tools, stats } = conv
  log(`${n} messages: ${stats.toolResults} tool results, ${stats.mb.toFixed(2)} MB`)
  const ctx = { systemPrompt, tools, model: 'gpt-4o' }
  const modelOptions = { ...EDIT_OPTIONS, tokenCountMethod: 'model', model: 'gpt-4o' }
  // Load the encoding once so "cold" means an empty token cache, not loading the ranks.
  new ContextEditor(modelOptions).countTokens([{ role: 'user', content: 'warm up the encoder' }])
  // An agent's next model calls: one before each of the last AI turns, each seeing the history up
  // to that turn; the editor saw the previous one. Timed call by call on one editor, as an agent runs.
  const cuts = []
  for (let j = messages.length - 1; j > 0 && cuts.length < NEXT_CALLS; j--) if (messages[j]._getType() === 'ai') cuts.unshift(j)
  cuts.push(messages.length)
  const agentLoop = async (call) => {
    const times = []
    await call(messages.slice(0, cuts[0]))
    for (const end of cuts.slice(1)) {
      const view = messages.slice(0, end)
      const t0 = performance.now()
      await call(view)
      times.push(performance.now() - t0)
    }
    return times
  }
  const approxEd = new ContextEditor(EDIT_OPTIONS)
  const approx = await agentLoop((v) => approxEd.edit(v, ctx))
  log(`  ours approx (next call) ${fmtMs(median(approx))}`)
  const sameEditor = new ContextEditor(EDIT_OPTIONS)
  const again = await measure(() => sameEditor.edit(messages, ctx))
  log(`  ours approx (same history again) ${fmtMs(median(again))}`)
  const first = await measure((ed) => ed.edit(messages, ctx), { setup: () => new ContextEditor(EDIT_OPTIONS), minRuns: 3, maxRuns: 9 })
  log(`  ours approx (first call) ${fmtMs(median(first))}`)
  const cold = await measure((ed) => ed.edit(messages, ctx), { setup: () => new ContextEditor(modelOptions), minRuns: 3, maxRuns: 9, warmup: 1 })
  log(`  ours model cold ${fmtMs(median(cold))}`)
  const warmEd = new ContextEditor(modelOptions)
  const warm = await agentLoop((v) => warmEd.edit(v, ctx))
  log(`  ours model warm ${fmtMs(median(warm))}`)
  const asyncEd = new ContextEditor(EDIT_OPTIONS)
  const asyncTimes = await agentLoop((v) => asyncEd.editAsync(v, ctx))
  log(`  ours async ${fmtMs(median(asyncTimes))}`)
  // The whole hook as LangChain's agent calls it, with a handler that returns at once.
  const request = (msgs) => ({ messages: msgs, systemPrompt, model: { model: 'gpt-4o' } })
  const handler = async () => null
  const mw = contextEditingMiddlewareObject(EDIT_OPTIONS)
  const hook = await agentLoop((v) => mw.wrapModelCall(request(v), handler))
  log(`  ours wrapModelCall ${fmtMs(median(hook))}`)
  const jsRef = await measure(() => jsClearToolUses(messages, EDIT_OPTIONS))
  log(`  JS single pass ${fmtMs(median(jsRef))}`)

  // Where the time of a next call goes: checking that the history the editor holds is unchanged
  // (fingerprints), the native plan over it (nothing new to convert or count), and applying the
  // plan (the previous output copied where the operations match). Each part timed on its own, the
  // same work `edit` does.
  const breakdown = {}
  for (const [label, opts] of [
    ['approx', EDIT_OPTIONS],
    ['model', modelOptions],
  ]) {
    const native = new NativeContextEditor(opts)
    const sendText = opts.tokenCountMethod === 'model'
    const wctx = toWireContext(ctx)
    const wire = toWireMessages(messages, { sendText, placeholders: new Set(['[cleared]']) })
    native.planSession(1, 0, sendText ? wire : JSON.stringify(wire), wctx)
    const prints = messages.map(fingerprint)
    const memo = new WeakMap()
    const validateT = [],
      planT = [],
      applyT = []
    let previous // the previous output and its packed operations, as `edit` keeps them
    for (let r = 0; r < 9; r++) {
      const t0 = performance.now()
      let same = 0
      while (same < messages.length && unchanged(messages[same], prints[same])) same++
      const t1 = performance.now()
      const packed = native.planSession(1, same, [], wctx)
      const t2 = performance.now()
      const ops = []
      for (let w = 0; w < packed.ops.length; w += 4) ops.push({ type: packed.ops[w] === 1 ? 'clear_tool_result' : 'remove', index: packed.ops[w + 1] })
      // Same history, same operations: `edit` copies the previous output instead of rebuilding it.
      const reuse = previous !== undefined && previous.words.length === packed.ops.length && previous.words.every((x, k) => x === packed.ops[k])
      const out = applyPlan(
        messages,
        { ops },
        { memo, memoBelow: same, prefix: reuse ? { messages: previous.out, length: previous.out.length, upTo: messages.length } : undefined },
      )
      previous = { words: packed.ops, out: out.slice() }
      const t3 = performance.now()
      validateT.push(t1 - t0)
      planT.push(t2 - t1)
      applyT.push(t3 - t2)
    }
    breakdown[label] = { validate: median(validateT), plan: median(planT), apply: median(applyT) }
  }

  // Our outputs for the equality checks (approx; LangChain's approx path ignores system prompt and tools).
  const oursA = new ContextEditor(EDIT_OPTIONS).edit(messages)
  const oursModel = new ContextEditor(modelOptions).edit(messages, ctx)
  const expectedApprox = 1 + (oursA.report.removedOrphans.length ? 1 : 0) + oursA.report.cleared.length
  const expectedExact = 1 + (oursModel.report.removedOrphans.length ? 1 : 0) + oursModel.report.cleared.length

  // LangChain approx: median of a few runs while they fit the cap.
  const lcApprox = []
  let lcApproxCapped = null
  let lcOut = null
  const lcStart = performance.now()
  while (lcApprox.length < 3 && !lcApproxCapped) {
    const r = await runLangChain(messages, EDIT_OPTIONS, { counter: approxCounter, expectedCalls: expectedApprox })
    if (r.capped) lcApproxCapped = r
    else {
      lcApprox.push(r.ms)
      lcOut ??= r.messages
    }
    if (performance.now() - lcStart + r.ms > CAP_MS) break // another run would not fit the cap
  }
  log(`  langchain approx ${lcApproxCapped ? `capped, est. ${fmtMs(lcApproxCapped.estimateMs)}` : fmtMs(median(lcApprox))}`)

  const checks = []
  if (lcOut) {
    const diff = sameOutput(oursA.messages, lcOut)
    checks.push(diff ? `default options: DIFFERENT (${diff})` : `default options: equal (${oursA.report.cleared.length} cleared)`)
    const refDiff = sameOutput(jsClearToolUses(messages, EDIT_OPTIONS), lcOut)
    if (refDiff) checks.push(`JS reference: DIFFERENT (${refDiff})`)
  } else checks.push('default options: not checked (LangChain capped)')
  if (n <= 2000) {
    const ours = new ContextEditor(CHECK_OPTIONS).edit(messages)
    const r = await runLangChain(messages, CHECK_OPTIONS, { counter: approxCounter, expectedCalls: 1e9, capMs: 4 * CAP_MS })
    if (r.capped) checks.push('keep.tokens/excludeTools/clearToolInputs: not checked (capped)')
    else {
      const diff = sameOutput(ours.messages, r.messages)
      checks.push(
        diff
          ? `keep.tokens+excludeTools+clearToolInputs: DIFFERENT (${diff})`
          : `keep.tokens+excludeTools+clearToolInputs: equal (${ours.report.cleared.length} cleared, ${ours.report.clearedToolInputs.length} inputs)`,
      )
    }
  }
  log(`  check: ${checks.join('; ')}`)

  // LangChain model mode through a js-tiktoken counter: one capped run.
  const lcExact = await runLangChain(messages, EDIT_OPTIONS, {
    counter: (clock) => exactCounter(js, systemPrompt, clock),
    expectedCalls: expectedExact,
    capMs: EXACT_CAP_MS,
  })
  log(`  langchain exact ${lcExact.capped ? `capped, est. ${fmtMs(lcExact.estimateMs)}` : fmtMs(lcExact.ms)}`)

  return {
    n,
    stats,
    approx: median(approx),
    again: median(again),
    first: median(first),
    hook: median(hook),
    cold: median(cold),
    warm: median(warm),
    async: median(asyncTimes),
    jsRef: median(jsRef),
    runs: { approx: approx.length, cold: cold.length, warm: warm.length, async: asyncTimes.length, hook: hook.length, lc: lcApprox.length },
    lcApprox: lcApprox.length ? median(lcApprox) : null,
    lcApproxCapped,
    lcExact,
    checks,
    breakdown,
    cleared: oursA.report.cleared.length,
  }
}

export function editorTable(rows) {
  const lines = []
  lines.push(
    '| messages (MB, tool results) | ours approx, next call | ours `wrapModelCall`, next call | ours approx, same history again | ours approx, first call | ours model, cold | ours model, next call (warm) | ours `editAsync`, next call | JS single pass (reference) | LangChain approx | LangChain exact (js-tiktoken) | same output as LangChain |',
  )
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|')
  for (const r of rows) {
    const lcA = r.lcApprox ?? r.lcApproxCapped?.estimateMs
    const lcAText = r.lcApprox !== null ? fmtMs(r.lcApprox) : `> ${fmtMs(CAP_MS)} (capped; est. ${fmtMs(r.lcApproxCapped.estimateMs)})`
    const lcE = r.lcExact.capped ? r.lcExact.estimateMs : r.lcExact.ms
    const lcEText = r.lcExact.capped ? `> ${fmtMs(r.lcExact.ms)} (capped; est. ${fmtMs(r.lcExact.estimateMs)})` : fmtMs(r.lcExact.ms)
    const approxMark = r.lcApprox !== null ? '' : '~'
    const exactMark = r.lcExact.capped ? '~' : ''
    const vsA = (ms) => `${fmtMs(ms)} (${approxMark}${fmtRatio(lcA / ms)})`
    const vsE = (ms) => `${fmtMs(ms)} (${exactMark}${fmtRatio(lcE / ms)})`
    lines.push(
      `| ${r.n.toLocaleString('en-US')} (${r.stats.mb.toFixed(1)} MB, ${r.stats.toolResults.toLocaleString('en-US')}) ` +
        `| ${vsA(r.approx)} | ${vsA(r.hook)} | ${vsA(r.again)} | ${vsA(r.first)} | ${vsE(r.cold)} | ${vsE(r.warm)} | ${vsA(r.async)} | ${vsA(r.jsRef)} ` +
        `| ${lcAText} | ${lcEText} | ${r.checks.map((c) => c.replace(/:.*?(equal|DIFFERENT|not checked)/, ': $1')).join('; ')} |`,
    )
  }
  return lines.join('\n')
}

export function breakdownTable(rows) {
  const lines = [
    '| messages | mode | check the held history is unchanged | native plan (nothing new) | apply the plan (previous output reused where the operations match) | sum |',
    '|---|---|---|---|---|---|',
  ]
  for (const r of rows) {
    for (const [mode, b] of Object.entries(r.breakdown)) {
      lines.push(
        `| ${r.n.toLocaleString('en-US')} | ${mode} | ${fmtMs(b.validate)} | ${fmtMs(b.plan)} | ${fmtMs(b.apply)} | ${fmtMs(b.validate + b.plan + b.apply)} |`,
      )
    }
  }
  return lines.join('\n')
}
