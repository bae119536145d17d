#!/usr/bin/env node
// Per-step overhead of each framework adapter at 2,000 messages, next to the LangChain middleware's
// `wrapModelCall`: the time the hook adds to one model call of an agent loop (handler / model not
// included). The benchmark conversation (benchmark/generate.mjs) is written in each framework's
// messages; one adapter per row sees the history grow call by call, as an agent sends it, and the
// median of the last calls is reported.
//
//   node benchmark/adapters.mjs [--seed 42] [--messages 2000] [--next-calls 25]
//
// Where the framework hands the hook the same message objects step after step (AI SDK
// `prepareStep`, LangGraph state), the editor's per-conversation session applies and only new
// messages are converted. Where it makes them anew for every call (the AI SDK builds the provider
// prompt per step; the OpenAI Agents SDK deep-copies the items before the filter; Mastra rebuilds
// its messages per `generate()`), each call gets fresh objects here too, and the adapter converts
// the whole history.

import { pathToFileURL } from 'node:url'

import { contextEditingMiddleware, contextEditingPrepareStep } from '../dist/ai/index.js'
import { contextEditingPreModelHook } from '../dist/langgraph/index.js'
import { ContextEditingProcessor } from '../dist/mastra/index.js'
import { contextEditingMiddlewareObject } from '../dist/middleware.js'
import { contextEditingInputFilter } from '../dist/openai-agents/index.js'
import { generateConversation, parseFlags } from './generate.mjs'

const OPTIONS = { trigger: { tokens: 100000 }, keep: { messages: 3 } }

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const fmt = (ms) => (ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`)

const textOf = (c) => (typeof c === 'string' ? c : c.map((b) => (typeof b === 'string' ? b : (b.text ?? ''))).join(''))

/** The conversation as AI SDK ModelMessages (results of one step share a tool message). */
function toAiSdk(messages) {
  const out = []
  for (const m of messages) {
    const type = m._getType()
    if (type === 'human') out.push({ role: 'user', content: textOf(m.content) })
    else if (type === 'ai') {
      const parts = textOf(m.content) ? [{ type: 'text', text: textOf(m.content) }] : []
      for (const c of m.tool_calls ?? []) parts.push({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.args })
      out.push({ role: 'assistant', content: parts })
    } else if (type === 'tool') {
      const part = { type: 'tool-result', toolCallId: m.tool_call_id, toolName: m.name ?? 'tool', output: { type: 'text', value: textOf(m.content) } }
      if (out.at(-1)?.role === 'tool') out.at(-1).content.push(part)
      else out.push({ role: 'tool', content: [part] })
    }
  }
  return out
}

/** The conversation as OpenAI Agents SDK items. */
function toAgents(messages) {
  const out = []
  for (const m of messages) {
    const type = m._getType()
    if (type === 'human') out.push({ role: 'user', content: textOf(m.content) })
    else if (type === 'ai') {
      if (textOf(m.content)) out.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: textOf(m.content) }] })
      for (const c of m.tool_calls ?? [])
        out.push({ type: 'function_call', callId: c.id, name: c.name, arguments: JSON.stringify(c.args), status: 'completed' })
    } else if (type === 'tool')
      out.push({
        type: 'function_call_result',
        callId: m.tool_call_id,
        name: m.name ?? 'tool',
        status: 'completed',
        output: { type: 'text', text: textOf(m.content) },
      })
  }
  return out
}

/** The conversation as Mastra stored messages (an assistant message per AI turn and its results). */
function toMastra(messages) {
  const out = []
  let id = 0
  for (const m of messages) {
    const type = m._getType()
    if (type === 'human')
      out.push({ id: `m${id++}`, role: 'user', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text: textOf(m.content) }] } })
    else if (type === 'ai') {
      const parts = [{ type: 'step-start' }]
      if (textOf(m.content)) parts.push({ type: 'text', text: textOf(m.content) })
      for (const c of m.tool_calls ?? [])
        parts.push({ type: 'tool-invocation', toolInvocation: { state: 'call', toolCallId: c.id, toolName: c.name, args: c.args } })
      out.push({ id: `m${id++}`, role: 'assistant', createdAt: new Date(0), content: { format: 2, parts } })
    } else if (type === 'tool') {
      const part = out.at(-1).content.parts.find((p) => p.type === 'tool-invocation' && p.toolInvocation.toolCallId === m.tool_call_id)
      if (part) Object.assign(part.toolInvocation, { state: 'result', result: textOf(m.content) })
    }
  }
  return out
}

/** Cut points: the history up to each of the last `n` AI turns (in the framework's own list). */
function cutsOf(list, isTurn, n) {
  const cuts = []
  for (let j = list.length - 1; j > 0 && cuts.length < n + 4; j--) if (isTurn(list[j])) cuts.unshift(j)
  cuts.push(list.length)
  return cuts
}

/** Median time of `call(history)` over an agent loop; `fresh` gives each call new message objects. */
async function loop(list, isTurn, n, call, fresh = false) {
  const cuts = cutsOf(list, isTurn, n)
  const views = cuts.map((end) => (fresh ? structuredClone(list.slice(0, end)) : list.slice(0, end)))
  // The first calls of an agent loop also compile the hook's code: they warm up, untimed.
  const WARM = 5
  for (const view of views.slice(0, WARM)) await call(view)
  const times = []
  for (const view of views.slice(WARM)) {
    const t0 = performance.now()
    await call(view)
    times.push(performance.now() - t0)
  }
  return median(times)
}

/** The adapters' rows: `[name, hook, objects, median ms]`. */
export async function benchAdapters({ seed = 42, messages: n = 2000, nextCalls = 25 } = {}) {
  const conv = generateConversation({ seed, messages: n })
  const lc = conv.messages
  const aisdk = toAiSdk(lc)
  const agents = toAgents(lc)
  const mastra = toMastra(lc)
  const rows = []
  const lcTurn = (m) => m._getType() === 'ai'
  const handler = async () => null
  const mw = contextEditingMiddlewareObject(OPTIONS)
  rows.push([
    'LangChain `createAgent`',
    '`wrapModelCall` (context-editor/langchain)',
    lc.length,
    'same',
    await loop(lc, lcTurn, nextCalls, (v) => mw.wrapModelCall({ messages: v, systemPrompt: conv.systemPrompt, model: { model: 'gpt-4o' } }, handler)),
  ])
  const hook = contextEditingPreModelHook(OPTIONS)
  rows.push(['LangGraph `createReactAgent`', '`preModelHook`', lc.length, 'same', await loop(lc, lcTurn, nextCalls, (v) => hook({ messages: v }))])
  const sdkTurn = (m) => m.role === 'assistant'
  const prepareStep = contextEditingPrepareStep(OPTIONS)
  rows.push(['Vercel AI SDK', '`prepareStep`', aisdk.length, 'same', await loop(aisdk, sdkTurn, nextCalls, (v) => prepareStep({ messages: v, stepNumber: 0 }))])
  const middleware = contextEditingMiddleware(OPTIONS)
  rows.push([
    'Vercel AI SDK',
    '`wrapLanguageModel` middleware',
    aisdk.length,
    'new per call',
    await loop(aisdk, sdkTurn, nextCalls, (v) => middleware.transformParams({ params: { prompt: v } }), true),
  ])
  const filter = contextEditingInputFilter(OPTIONS)
  const agentsTurn = (m) => m.type === 'function_call' || (m.type === 'message' && m.role === 'assistant')
  rows.push([
    'OpenAI Agents SDK',
    '`callModelInputFilter`',
    agents.length,
    'new per call',
    await loop(agents, agentsTurn, nextCalls, (v) => filter({ modelData: { input: v, instructions: conv.systemPrompt }, agent: {} }), true),
  ])
  const processor = new ContextEditingProcessor(OPTIONS)
  rows.push([
    'Mastra',
    'input processor',
    mastra.length,
    'new per call',
    await loop(mastra, sdkTurn, nextCalls, (v) => processor.processInput({ messages: v }), true),
  ])
  return rows
}

export function adaptersTable(rows) {
  const lines = ['| framework | hook | messages in its format | message objects per call | per-step overhead (median) |', '|---|---|---|---|---|']
  for (const [name, hook, count, objects, ms] of rows) lines.push(`| ${name} | ${hook} | ${count.toLocaleString('en-US')} | ${objects} | ${fmt(ms)} |`)
  return lines.join('\n')
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const flags = parseFlags(process.argv.slice(2))
  const n = Number(flags.messages ?? 2000)
  const rows = await benchAdapters({ seed: Number(flags.seed ?? 42), messages: n, nextCalls: Number(flags['next-calls'] ?? 25) })
  console.log(`### Framework adapters: per-step overhead at ${n.toLocaleString('en-US')} messages\n`)
  console.log(
    `Options \`trigger: { tokens: 100000 }, keep: { messages: 3 }\` (approx); the time the hook adds to one model call of an agent loop, median of the last calls.\n`,
  )
  console.log(adaptersTable(rows))
}
