// `context-editor/openai-agents` with the real OpenAI Agents SDK: `run()` of an agent whose fake
// `Model` calls a tool 35 times, with `callModelInputFilter`. Asserted on every model call: what
// the model received (old results are placeholders, every function_call has its result, the
// request stays small once clearing starts), the instructions counted, and the run's own history
// (`result.history`) keeping every result whole.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Agent, MemorySession, run, setTracingDisabled, tool, Usage } from '@openai/agents'
import { z } from 'zod'

import { ContextEditor } from '../dist/index.js'
import { contextEditingInputFilter, contextEditingSession } from '../dist/openai-agents/index.js'

// No network: the SDK would export traces to OpenAI.
setTracingDisabled(true)

const CALLS = 35
const OUTPUT = (n) => `file ${n}: ` + 'lorem ipsum dolor sit amet '.repeat(60)
const OPTIONS = { trigger: { tokens: 3000 }, keep: { messages: 2 } }

/** A `Model` that asks for `read` until it has called it `CALLS` times, recording each request. */
class FakeModel {
  requests = []
  async getResponse(request) {
    this.requests.push(structuredClone(request.input))
    const n = this.requests.length - 1
    const output =
      n < CALLS
        ? [{ type: 'function_call', id: `fc_${n}`, callId: `call_${n}`, name: 'read', arguments: JSON.stringify({ n }), status: 'completed' }]
        : [{ type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'all read' }] }]
    return { usage: new Usage(), output, responseId: `resp_${n}` }
  }
  async *getStreamedResponse() {
    throw new Error('not used')
  }
}

const read = tool({ name: 'read', description: 'read a file', parameters: z.object({ n: z.number() }), execute: async ({ n }) => OUTPUT(n) })

test("OpenAI Agents: 36 model calls through run(); each request edited, pairs valid, the run's history whole", async () => {
  const model = new FakeModel()
  const agent = new Agent({ name: 'reader', instructions: 'You read files, one at a time.', model, tools: [read] })
  const reports = []
  const result = await run(agent, 'read every file', {
    maxTurns: CALLS + 5,
    callModelInputFilter: contextEditingInputFilter({ ...OPTIONS, onReport: (r) => reports.push(r) }),
  })
  assert.equal(result.finalOutput, 'all read')
  assert.equal(model.requests.length, CALLS + 1)
  const editor = new ContextEditor()
  let clearing = false
  model.requests.forEach((input, k) => {
    const calls = input.filter((i) => i.type === 'function_call').map((i) => i.callId)
    const results = input.filter((i) => i.type === 'function_call_result')
    assert.deepEqual(
      results.map((r) => r.callId),
      calls,
      `call ${k}: every call answered`,
    )
    input.forEach((item, i) => {
      if (item.type === 'function_call_result') assert.equal(input[i - 1].callId, item.callId, `call ${k}: result right after its call`)
    })
    const cleared = results.filter((r) => (typeof r.output === 'string' ? r.output : r.output.text) === '[cleared]').length
    if (cleared) clearing = true
    if (clearing) {
      assert.equal(cleared, results.length - 2, `call ${k}: all but the newest two cleared`)
      const total = editor.countTokens(input, { format: 'responses', systemPrompt: 'You read files, one at a time.' }).total
      assert.ok(total < 3000 + 1200, `call ${k}: ${total} tokens`)
    }
  })
  assert.ok(clearing)
  assert.equal(reports.length, CALLS + 1)
  assert.equal(reports[0].hook, 'openai-agents.callModelInputFilter')
  // The instructions count as the system prompt.
  assert.ok(reports[0].tokensBefore > editor.countTokens(model.requests[0], { format: 'responses' }).total)
  // The SDK's history keeps every output.
  const outputs = result.history.filter((i) => i.type === 'function_call_result')
  assert.equal(outputs.length, CALLS)
  for (const o of outputs) assert.match(typeof o.output === 'string' ? o.output : o.output.text, /^file \d+: lorem/)
})

test('OpenAI Agents: the filter leaves small inputs as they are and rejects bad options when made', async () => {
  const filter = contextEditingInputFilter(OPTIONS)
  const modelData = { input: [{ role: 'user', content: 'hi' }], instructions: 'x' }
  assert.equal(await filter({ modelData, agent: {} }), modelData)
  assert.throws(() => contextEditingInputFilter({ keep: { messages: 1, tokens: 2 } }), { code: 'INVALID_OPTIONS' })
})

/** Two reads then an answer per run (3 model calls a turn), recording each request. */
class TurnModel {
  requests = []
  async getResponse(request) {
    this.requests.push(structuredClone(request.input))
    const n = this.requests.length - 1
    const output =
      n % 3 < 2
        ? [{ type: 'function_call', id: `fc_${n}`, callId: `call_${n}`, name: 'read', arguments: JSON.stringify({ n }), status: 'completed' }]
        : [{ type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `read ${n - 2} and ${n - 1}` }] }]
    return { usage: new Usage(), output, responseId: `resp_${n}` }
  }
  async *getStreamedResponse() {
    throw new Error('not used')
  }
}

test('OpenAI Agents: a summarizing session stores the summary; 12 runs, 36 model calls, each request checked', async () => {
  const model = new TurnModel()
  const agent = new Agent({ name: 'reader', instructions: 'You read files.', model, tools: [read] })
  const memory = new MemorySession()
  const summaries = []
  const session = contextEditingSession(memory, {
    edits: [{ type: 'summarize', trigger: { messages: 24 }, keep: { messages: 8 } }],
    summarize: (request) => {
      summaries.push(request.prompt)
      return `SUMMARY-${summaries.length}`
    },
  })
  const filter = contextEditingInputFilter(OPTIONS)
  for (let t = 0; t < 12; t++) await run(agent, `read two files (${t})`, { session, callModelInputFilter: filter, maxTurns: 5 })
  assert.equal(model.requests.length, 36)
  assert.ok(summaries.length >= 2, `${summaries.length} summaries`)
  const stored = await memory.getItems()
  // The store starts with the newest summary, once, and holds the rest as produced (no placeholders).
  const isSummary = (i) => typeof i.content === 'string' && i.content.includes('SUMMARY-')
  assert.equal(stored.filter(isSummary).length, 1)
  assert.match(stored[0].content, new RegExp(`SUMMARY-${summaries.length}$`))
  for (const i of stored) if (i.type === 'function_call_result') assert.match(i.output.text ?? i.output, /^file \d+: lorem/)
  assert.ok(stored.length < 24 + 6, `${stored.length} items stored`)
  let seen = false
  model.requests.forEach((input, k) => {
    const calls = input.filter((i) => i.type === 'function_call').map((i) => i.callId)
    assert.deepEqual(
      input.filter((i) => i.type === 'function_call_result').map((r) => r.callId),
      calls,
      `call ${k}: every call answered`,
    )
    if (isSummary(input[0])) seen = true
    else assert.ok(!seen, `call ${k}: the summary stays first`)
  })
  assert.ok(seen)
  assert.throws(() => contextEditingSession(memory, {}), { code: 'INVALID_OPTIONS' })
})
