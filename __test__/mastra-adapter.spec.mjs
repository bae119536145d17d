// `context-editor/mastra` with a real Mastra `Agent` (@mastra/core) and the AI SDK's mock model:
// 18 `agent.generate()` calls over a growing conversation, each a tool call and an answer (36 model
// calls). On every model call: old results arrive as placeholders, each call has its result, the
// prompt stays small once clearing starts; the caller's history keeps every result whole.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { Agent } from '@mastra/core/agent'
import { createTool } from '@mastra/core/tools'
import { MockLanguageModelV2 } from 'ai-v5/test'
import { z } from 'zod'

import { ContextEditor } from '../dist/index.js'
import { ContextEditingProcessor } from '../dist/mastra/index.js'

const TURNS = 18
const OUTPUT = (n) => `file ${n}: ` + 'lorem ipsum dolor sit amet '.repeat(60)
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }

test('Mastra: an input processor edits every generate() call; 36 model calls checked one by one', async () => {
  const prompts = []
  const model = new MockLanguageModelV2({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt)
      const n = prompts.length
      // Odd calls read a file, even calls answer.
      if (n % 2 === 1)
        return {
          content: [{ type: 'tool-call', toolCallId: `call_${n}`, toolName: 'read', input: JSON.stringify({ n }) }],
          finishReason: 'tool-calls',
          usage,
          warnings: [],
        }
      return { content: [{ type: 'text', text: `read ${n - 1}` }], finishReason: 'stop', usage, warnings: [] }
    },
  })
  const read = createTool({
    id: 'read',
    description: 'read a file',
    inputSchema: z.object({ n: z.number() }),
    execute: async ({ context }) => OUTPUT(context.n),
  })
  const reports = []
  const agent = new Agent({
    name: 'reader',
    instructions: 'You read files.',
    model,
    tools: { read },
    inputProcessors: [new ContextEditingProcessor({ trigger: { tokens: 3000 }, keep: { messages: 2 }, onReport: (r) => reports.push(r) })],
  })
  const history = []
  for (let t = 0; t < TURNS; t++) {
    history.push({ role: 'user', content: `read file ${t}` })
    const before = structuredClone(history)
    const result = await agent.generate(history, { maxSteps: 3 })
    assert.deepEqual(history, before, `turn ${t}: the caller's history is untouched`)
    // The turn as the caller keeps it (Mastra 0.24's `response.messages` may also repeat earlier
    // turns): the model's call, the tool's result, the model's answer.
    const n = prompts.length - 1
    assert.equal(result.text, `read ${n}`)
    history.push(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${n}`, toolName: 'read', input: { n } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${n}`, toolName: 'read', output: { type: 'text', value: OUTPUT(n) } }] },
      { role: 'assistant', content: result.text },
    )
  }
  assert.equal(prompts.length, 2 * TURNS)
  assert.ok(reports.length >= TURNS, `${reports.length} reports`)
  assert.equal(reports[0].hook, 'mastra.processInput')
  const editor = new ContextEditor()
  let clearing = false
  prompts.forEach((prompt, k) => {
    const calls = []
    const results = []
    for (const m of prompt) {
      if (m.role === 'assistant') for (const p of m.content) if (p.type === 'tool-call') calls.push(p.toolCallId)
      if (m.role === 'tool') for (const p of m.content) if (p.type === 'tool-result') results.push(p)
    }
    assert.deepEqual(
      results.map((r) => r.toolCallId),
      calls,
      `call ${k}: every call answered, in order`,
    )
    const text = (r) => (r.output.type === 'text' ? r.output.value : JSON.stringify(r.output.value))
    const cleared = results.filter((r) => text(r).includes('[cleared]')).length
    if (cleared) clearing = true
    if (clearing) {
      // The processor runs once per generate(): the newest two results before it, plus this call's own.
      assert.ok(cleared >= results.length - 3, `call ${k}: ${cleared} of ${results.length} cleared`)
      const total = editor.countTokens(prompt, { format: 'aisdk' }).total
      assert.ok(total < 3000 + 1800, `call ${k}: ${total} tokens`)
    }
  })
  assert.ok(clearing, 'clearing started')
  // The caller's history has every result in full.
  const outputs = history.filter((m) => m.role === 'tool').flatMap((m) => m.content)
  assert.equal(outputs.length, TURNS)
  for (const o of outputs) assert.match(JSON.stringify(o.output), /file \d+: lorem/)
})

test('Mastra: messages in Mastra\'s stored shape are read by the library too (format "mastra")', () => {
  const big = 'x '.repeat(3000)
  const inv = (id, n) => ({ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: id, toolName: 'read', args: { n }, result: big } })
  const messages = [
    { id: 'u1', role: 'user', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text: 'go' }], content: 'go' } },
    {
      id: 'a1',
      role: 'assistant',
      createdAt: new Date(0),
      content: {
        format: 2,
        parts: [inv('c1', 1), { type: 'step-start' }, inv('c2', 2), { type: 'step-start' }, { type: 'text', text: 'done' }],
        toolInvocations: [inv('c1', 1).toolInvocation, inv('c2', 2).toolInvocation],
        metadata: { x: 1 },
      },
    },
  ]
  const { messages: out, report } = new ContextEditor({ trigger: { tokens: 100 }, keep: { messages: 1 }, clearToolInputs: true }).edit(messages)
  assert.deepEqual(
    report.cleared.map((c) => [c.index, c.toolCallId]),
    [[1, 'c1']],
  )
  assert.equal(out[0], messages[0])
  const parts = out[1].content.parts
  assert.deepEqual(parts[0].toolInvocation, { ...messages[1].content.parts[0].toolInvocation, result: '[cleared]', args: {} })
  assert.equal(parts[2], messages[1].content.parts[2])
  assert.equal(out[1].content.toolInvocations[0].result, '[cleared]')
  assert.equal(out[1].content.toolInvocations[1].result, big)
  assert.deepEqual(out[1].content.metadata, { x: 1 })
  assert.equal(out[1].id, 'a1')
})
