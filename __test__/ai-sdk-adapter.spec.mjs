// `context-editor/ai` with the real AI SDK (v6 `ai` and v5 as `ai-v5`): a 36-step generateText /
// streamText tool loop on the SDK's own mock models, asserting what the model received on every
// call: the prompt stays under the trigger once it is reached, old results are placeholders, every
// tool call in the prompt has its result right after it, and the caller's messages and the SDK's
// history (`response.messages`) keep every result whole.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test'
import * as v5 from 'ai-v5'
import { MockLanguageModelV2 } from 'ai-v5/test'
import { z } from 'zod'

import { ContextEditor } from '../dist/index.js'
import { contextEditingMiddleware, contextEditingPrepareStep } from '../dist/ai/index.js'

const STEPS = 36
const OUTPUT = (n) => `file ${n}: ` + 'lorem ipsum dolor sit amet '.repeat(60)
const OPTIONS = { trigger: { tokens: 3000 }, keep: { messages: 2 }, placeholder: '[cleared]' }

const usageV3 = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const usageV2 = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }

/** The model's turn for call `n`: a tool call until the last step, then text. */
function turn(n, v3) {
  const finish = (r) => (v3 ? { unified: r, raw: r } : r)
  if (n >= STEPS - 1) return { content: [{ type: 'text', text: 'all read' }], finishReason: finish('stop'), usage: v3 ? usageV3 : usageV2, warnings: [] }
  return {
    content: [{ type: 'tool-call', toolCallId: `call_${n}`, toolName: 'read', input: JSON.stringify({ n }) }],
    finishReason: finish('tool-calls'),
    usage: v3 ? usageV3 : usageV2,
    warnings: [],
  }
}

const tools = (toolFn) => ({
  read: toolFn({ description: 'read a file', inputSchema: z.object({ n: z.number() }), execute: async ({ n }) => OUTPUT(n) }),
})

/** What one provider call received, checked: pairs valid, sizes bounded, placeholders old. */
function checkPrompt(prompt, k, editor) {
  const calls = []
  const results = []
  for (const m of prompt) {
    if (m.role === 'assistant') for (const p of m.content) if (p.type === 'tool-call') calls.push(p.toolCallId)
    if (m.role === 'tool') for (const p of m.content) if (p.type === 'tool-result') results.push(p)
  }
  // Every call answered, in order, by the message right after it.
  assert.deepEqual(
    results.map((r) => r.toolCallId),
    calls,
    `call ${k}: pairs`,
  )
  prompt.forEach((m, i) => {
    if (m.role === 'tool') assert.equal(prompt[i - 1].role, 'assistant', `call ${k}: a tool message follows its calls`)
  })
  const cleared = results.filter((r) => r.output.value === '[cleared]').length
  const { total } = editor.countTokens(prompt, { format: 'aisdk' })
  return { cleared, total, results: results.length }
}

function assertShrinks(seen) {
  assert.ok(seen.length >= 30, `${seen.length} model calls`)
  let before = false
  for (const [k, s] of seen.entries()) {
    if (s.cleared > 0) before = true
    // Once clearing starts, every prompt but the newest two results is placeholders and the prompt stays small.
    if (before) {
      assert.equal(s.cleared, s.results - 2, `call ${k}: all but the newest 2 results cleared`)
      assert.ok(s.total < 3000 + 1200, `call ${k}: ${s.total} tokens`)
    }
  }
  assert.ok(before, 'clearing started')
  assert.ok(seen.at(-1).results > 30)
}

test('AI SDK v6: prepareStep over a 36-step generateText loop; the model gets edited prompts, the SDK keeps its history', async () => {
  const calls = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      calls.push(options.prompt)
      return turn(calls.length - 1, true)
    },
  })
  const reports = []
  const messages = Object.freeze([Object.freeze({ role: 'user', content: 'read every file' })])
  const result = await generateText({
    model,
    tools: tools(tool),
    messages,
    stopWhen: stepCountIs(STEPS),
    prepareStep: contextEditingPrepareStep({ ...OPTIONS, onReport: (r) => reports.push(r) }),
  })
  assert.equal(calls.length, STEPS)
  const editor = new ContextEditor()
  assertShrinks(calls.map((p, k) => checkPrompt(p, k, editor)))
  assert.equal(reports.length, STEPS)
  assert.equal(reports[0].hook, 'ai.prepareStep')
  assert.ok(reports.some((r) => r.cleared.length > 0))
  // The SDK's own history is whole.
  const outputs = result.response.messages.filter((m) => m.role === 'tool').flatMap((m) => m.content)
  assert.equal(outputs.length, STEPS - 1)
  for (const p of outputs) assert.match(p.output.value, /^file \d+: lorem/)
})

test('AI SDK v6: the language-model middleware over streamText, system prompt and tool definitions counted', async () => {
  const calls = []
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      calls.push(options)
      const t = turn(calls.length - 1, true)
      const chunks =
        t.content[0].type === 'text'
          ? [
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'all read' },
              { type: 'text-end', id: 't' },
            ]
          : [{ type: 'tool-call', toolCallId: t.content[0].toolCallId, toolName: 'read', input: t.content[0].input }]
      return { stream: simulateReadableStream({ chunks: [...chunks, { type: 'finish', finishReason: t.finishReason, usage: usageV3 }] }) }
    },
  })
  const reports = []
  const wrapped = wrapLanguageModel({ model, middleware: contextEditingMiddleware({ ...OPTIONS, onReport: (r) => reports.push(r) }) })
  const result = streamText({ model: wrapped, system: 'You read files.', tools: tools(tool), prompt: 'read every file', stopWhen: stepCountIs(STEPS) })
  await result.consumeStream()
  assert.equal(calls.length, STEPS)
  const editor = new ContextEditor()
  assertShrinks(calls.map((c, k) => checkPrompt(c.prompt, k, editor)))
  for (const c of calls) assert.equal(c.prompt[0].role, 'system')
  // The report counts the tool definitions and the system prompt on top of the messages.
  const last = reports.at(-1)
  assert.equal(last.hook, 'ai.middleware')
  assert.ok(last.tokensAfter > editor.countTokens(calls.at(-1).prompt.slice(1), { format: 'aisdk' }).total)
  const steps = await result.steps
  assert.match(steps.at(-2).content.find((p) => p.type === 'tool-result').output, /^file \d+: lorem/)
})

test('AI SDK v5: prepareStep and the middleware on MockLanguageModelV2', async () => {
  for (const kind of ['prepareStep', 'middleware']) {
    const calls = []
    const base = new MockLanguageModelV2({
      doGenerate: async (options) => {
        calls.push(options.prompt)
        return turn(calls.length - 1, false)
      },
    })
    const model = kind === 'middleware' ? v5.wrapLanguageModel({ model: base, middleware: contextEditingMiddleware(OPTIONS) }) : base
    const history = [{ role: 'user', content: 'read every file' }]
    const before = structuredClone(history)
    await v5.generateText({
      model,
      tools: tools(v5.tool),
      messages: history,
      stopWhen: v5.stepCountIs(STEPS),
      ...(kind === 'prepareStep' ? { prepareStep: contextEditingPrepareStep(OPTIONS) } : {}),
    })
    assert.deepEqual(history, before)
    const editor = new ContextEditor()
    assertShrinks(calls.map((p, k) => checkPrompt(p, k, editor)))
  }
})

test("AI SDK: options are the library's JSON options, checked when the adapter is made", () => {
  assert.throws(() => contextEditingPrepareStep({ keep: { messages: -1 } }), { code: 'INVALID_OPTIONS' })
  assert.throws(() => contextEditingMiddleware({ trigger: { tokens: 'many' } }), { code: 'INVALID_OPTIONS' })
  assert.throws(() => contextEditingPrepareStep({ nope: 1 }), { code: 'INVALID_OPTIONS' })
  // An option that cannot be read is the caller's, named, with what it threw.
  const boom = new Error('boom')
  assert.throws(
    () =>
      contextEditingMiddleware({
        get keep() {
          throw boom
        },
      }),
    (e) => e.code === 'INVALID_OPTIONS' && e.path === 'keep' && e.cause === boom,
  )
})
