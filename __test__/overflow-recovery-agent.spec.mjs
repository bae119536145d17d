// A real LangChain v1 `createAgent` run whose provider refuses its first 5 model calls as too long
// and still finishes: a real `ChatOpenAI` talks to a fake chat-completions endpoint (injected
// `fetch`) that counts tokens its own way (characters / 3), states a limit below each of the first
// five requests, and refuses a retry that is still over it. The context-editing middleware recovers
// each call once; the agent state keeps every tool result.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createAgent, tool } from 'langchain'
import { ChatOpenAI } from '@langchain/openai'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { z } from 'zod'
import { contextEditingMiddleware } from 'context-editor/langchain'
import { fakeOpenAI } from './support/fake-openai-server.mjs'

const STEPS = 8
const RESULT = 6000 // characters per tool result

const readFile = tool(async ({ path }) => `// ${path}\n${'export const value = 42;\n'.repeat(RESULT / 25)}`, {
  name: 'read_file',
  description: 'Read a file of the repository.',
  schema: z.object({ path: z.string() }),
})

/** An earlier exchange the conversation starts with (so the first call has results to clear). */
function earlier() {
  const out = [new HumanMessage('Look at the old module first.')]
  for (let i = 0; i < 4; i++) {
    out.push(new AIMessage({ content: '', tool_calls: [{ id: `old_${i}`, name: 'read_file', args: { path: `old/${i}.ts` } }] }))
    out.push(new ToolMessage({ tool_call_id: `old_${i}`, name: 'read_file', content: `// old/${i}.ts\n${'legacy();\n'.repeat(RESULT / 10)}` }))
  }
  out.push(new AIMessage('The old module is a wrapper.'))
  out.push(new HumanMessage('Now read the new module, file by file, then say done.'))
  return out
}

test('createAgent: the first 5 model calls overflow, each is recovered once, the run finishes', async () => {
  const stated = new Map() // step -> the limit the server stated for it
  let refusals = 0
  const server = fakeOpenAI({
    steps: STEPS,
    tool: 'read_file',
    args: (step) => ({ path: `src/${step}.ts` }),
    answer: 'done',
    refuse: ({ size, step }) => {
      const limit = stated.get(step)
      if (limit !== undefined) return size > limit ? limit : undefined // a retry still over the limit is refused
      if (refusals >= 5) return undefined
      refusals++
      const l = Math.floor(size * 0.85)
      stated.set(step, l)
      return l
    },
  })
  const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 'test', maxRetries: 0, configuration: { baseURL: 'http://fake.invalid/v1', fetch: server.fetch } })
  const reports = []
  const agent = createAgent({
    model,
    tools: [readFile],
    systemPrompt: 'You read code carefully.',
    middleware: [contextEditingMiddleware({ trigger: { tokens: 1000000 }, onReport: (r) => reports.push(r) })],
  })
  const input = earlier()
  const result = await agent.invoke({ messages: input }, { recursionLimit: 100 })

  assert.equal(result.messages.at(-1).content, 'done', 'the run finishes')
  assert.equal(refusals, 5)
  const refused = server.requests.filter((r) => r.refusedWith !== undefined)
  assert.equal(refused.length, 5, "no retry was refused: each fit the stated limit in the server's own count")
  assert.equal(server.requests.length, STEPS + 1 + 5, 'one retry per refused call, no more')
  // Each refused request is followed by its retry, smaller than the limit the server stated.
  server.requests.forEach((r, k) => {
    if (r.refusedWith === undefined) return
    const retry = server.requests[k + 1]
    assert.equal(retry.step, r.step)
    assert.ok(retry.size <= r.refusedWith, `retry of step ${r.step}: ${retry.size} <= ${r.refusedWith}`)
    assert.ok(retry.size <= Math.floor(r.refusedWith * 0.8) * 1.05, 'close to the 80 % target')
  })
  const recoveries = reports.filter((r) => r.recovery)
  assert.equal(recoveries.length, 5, 'every recovery is in a report')
  for (const r of recoveries) {
    assert.equal(r.recovery.error, 'openai')
    assert.equal(r.recovery.limitSource, 'error')
    assert.ok(r.recovery.ratioExact)
  }
  // The answers of recovered calls carry the record in the agent state.
  const marked = result.messages.filter((m) => m.response_metadata?.context_editor?.recovery)
  assert.equal(marked.length, 5)
  // The state keeps every tool result in full, the earlier ones included.
  const results = result.messages.filter((m) => m._getType() === 'tool')
  assert.equal(results.length, 4 + STEPS)
  assert.ok(results.every((m) => !String(m.content).includes('[cleared]') && m.content.length > 1000))
  assert.equal(
    input.filter((m) => m._getType() === 'tool').every((m) => m.content.length > 1000),
    true,
    "the caller's input is untouched",
  )
})

test("createAgent: without recovery the same provider error ends the run with the provider's error", async () => {
  const server = fakeOpenAI({ steps: 2, tool: 'read_file', args: (s) => ({ path: `${s}` }), refuse: ({ size }) => Math.floor(size * 0.85) })
  const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 'test', maxRetries: 0, configuration: { baseURL: 'http://fake.invalid/v1', fetch: server.fetch } })
  const agent = createAgent({ model, tools: [readFile], middleware: [contextEditingMiddleware({ recovery: false })] })
  await assert.rejects(agent.invoke({ messages: earlier() }), (e) => e.name === 'ContextOverflowError' && /maximum context length/.test(e.message))
  assert.equal(server.requests.length, 1)
})

/** A run against a provider that counts characters / 2 of the JSON it receives, with a 12,000-token window. */
async function correctedRun({ usage }) {
  const LIMIT = 12000
  const server = fakeOpenAI({
    steps: 12,
    tool: 'read_file',
    args: (step) => ({ path: `src/${step}.ts` }),
    answer: 'done',
    usage,
    sizeOf: (body) => Math.ceil(JSON.stringify({ messages: body.messages, tools: body.tools ?? [] }).length / 2),
    refuse: ({ size }) => (size > LIMIT ? LIMIT : undefined),
  })
  const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 'test', maxRetries: 0, configuration: { baseURL: 'http://fake.invalid/v1', fetch: server.fetch } })
  const reports = []
  const agent = createAgent({
    model,
    tools: [readFile],
    // approx counts characters / 4 of the text: about half of what the provider counts.
    middleware: [contextEditingMiddleware({ trigger: { fraction: 0.8 }, keep: { messages: 2 }, maxInputTokens: LIMIT, onReport: (r) => reports.push(r) })],
  })
  const result = await agent.invoke({ messages: [new HumanMessage('Read the files one by one, then say done.')] }, { recursionLimit: 100 })
  assert.equal(result.messages.at(-1).content, 'done')
  return { server, reports, LIMIT }
}

test('createAgent: the ratio a recovery learns corrects later calls, so the provider refuses only once', async () => {
  const { server, reports, LIMIT } = await correctedRun({ usage: false })
  const refused = server.requests.filter((r) => r.refusedWith !== undefined)
  assert.equal(refused.length, 1, 'refused once, then the corrected count keeps every request under the window')
  const at = reports.findIndex((r) => r.recovery)
  const { ratio } = reports[at].recovery
  assert.ok(ratio > 1.5, `the provider counts more than approx (${ratio})`)
  const later = reports.slice(at + 1)
  assert.ok(later.length >= 3)
  for (const r of later) assert.equal(r.tokenCorrection, ratio, 'later calls are corrected by the learned ratio')
  assert.ok(
    later.some((r) => r.triggered),
    'the corrected count fires the fraction trigger',
  )
  const k = server.requests.indexOf(refused[0])
  for (const r of server.requests.slice(k + 1)) assert.ok(r.size <= LIMIT)
})

test('createAgent: with usage reported, the correction it teaches keeps every request under the window', async () => {
  const { server, reports, LIMIT } = await correctedRun({ usage: true })
  assert.equal(server.requests.filter((r) => r.refusedWith !== undefined).length, 0)
  assert.ok(server.requests.every((r) => r.size <= LIMIT))
  assert.ok(
    reports.slice(2).every((r) => r.tokenCorrection > 1.5),
    'corrected from the third call on',
  )
  assert.ok(reports.some((r) => r.triggered))
})

test("createAgent: a window smaller than the model's profile says is learned from the provider's error, so it refuses only once", async () => {
  // The model's LangChain profile states gpt-4.1's 1,047,576 tokens; the server (a proxy, an Ollama
  // num_ctx, a vLLM max_model_len) serves 6,000 and says so in its error.
  const SERVED = 6000
  const server = fakeOpenAI({
    steps: STEPS,
    tool: 'read_file',
    args: (step) => ({ path: `src/${step}.ts` }),
    answer: 'done',
    refuse: ({ size }) => (size > SERVED ? SERVED : undefined),
  })
  const model = new ChatOpenAI({ model: 'gpt-4.1', apiKey: 'test', maxRetries: 0, configuration: { baseURL: 'http://fake.invalid/v1', fetch: server.fetch } })
  assert.ok(model.profile.maxInputTokens > 1_000_000)
  const reports = []
  const agent = createAgent({
    model,
    tools: [readFile],
    systemPrompt: 'You read code carefully.',
    middleware: [contextEditingMiddleware({ trigger: { fraction: 0.5 }, keep: { messages: 1 }, onReport: (r) => reports.push(r) })],
  })
  const result = await agent.invoke({ messages: [new HumanMessage('Read the files one by one, then say done.')] }, { recursionLimit: 100 })
  assert.equal(result.messages.at(-1).content, 'done')
  const refused = server.requests.filter((r) => r.refusedWith !== undefined)
  assert.equal(refused.length, 1, 'refused once (before: every later call was refused once and recovered)')
  const at = reports.findIndex((r) => r.recovery)
  assert.equal(reports[at].recovery.limit, SERVED)
  assert.equal(reports[0].maxInputTokensSource, 'profile')
  const later = reports.slice(at + 1)
  assert.ok(later.length >= 2)
  for (const r of later) {
    assert.equal(r.maxInputTokens, SERVED)
    assert.equal(r.maxInputTokensSource, 'error')
  }
  assert.ok(
    later.some((r) => r.triggered),
    'the learned window fires the fraction trigger',
  )
})
