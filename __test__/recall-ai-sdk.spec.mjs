// The recall tool outside LangChain: createRecall() wired into the real AI SDK (v6 generateText on
// its mock model) with context-editor/ai's prepareStep: a cleared result's placeholder names its
// call, the model calls recall_tool_result with that id and gets the exact original, taken from the
// SDK's own (unedited) step messages; with a store, a result the host no longer has is recalled too.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { generateText, jsonSchema, stepCountIs, tool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'
import { createRecall, InMemoryRecallStore } from '../dist/index.js'
import { contextEditingPrepareStep } from '../dist/ai/index.js'

const OUTPUT = (n) => `file ${n}: ` + 'lorem ipsum dolor sit amet '.repeat(40)
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }
const finish = (r) => ({ unified: r, raw: r })
const call = (id, name, input) => ({
  content: [{ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) }],
  finishReason: finish('tool-calls'),
  usage,
  warnings: [],
})

function results(prompt) {
  return prompt.filter((m) => m.role === 'tool').flatMap((m) => m.content.filter((p) => p.type === 'tool-result'))
}

test('AI SDK: the model recalls a cleared result through createRecall and gets the exact original', async () => {
  const recall = createRecall({ store: new InMemoryRecallStore() })
  const edit = contextEditingPrepareStep({ trigger: { toolUses: 3 }, keep: { messages: 1 }, placeholder: recall.placeholder })
  let recalled
  let seenPlaceholder
  let n = 0
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      n++
      const got = results(prompt)
      if (n <= 3) return call(`call_${n - 1}`, 'read', { n: n - 1 })
      if (n === 4) {
        seenPlaceholder = got.find((r) => r.toolCallId === 'call_0').output.value
        return call('r1', recall.name, { tool_call_id: 'call_0' })
      }
      recalled = got.find((r) => r.toolCallId === 'r1').output.value
      return { content: [{ type: 'text', text: 'done' }], finishReason: finish('stop'), usage, warnings: [] }
    },
  })
  const out = await generateText({
    model,
    messages: [{ role: 'user', content: 'Read the files.' }],
    tools: {
      read: tool({ description: 'read a file', inputSchema: z.object({ n: z.number() }), execute: async ({ n }) => OUTPUT(n) }),
      [recall.name]: tool({ description: recall.description, inputSchema: jsonSchema(recall.inputSchema), execute: (input) => recall.answer(input) }),
    },
    stopWhen: stepCountIs(10),
    prepareStep: async (step) => {
      await recall.remember(step.messages)
      return edit(step)
    },
  })
  assert.equal(out.text, 'done')
  assert.equal(seenPlaceholder, '[cleared; recall_tool_result("call_0") returns it]')
  assert.equal(recalled, OUTPUT(0), 'the exact original')
  // The store kept it too: a host that dropped its history still gets it back.
  assert.equal(await recall.answer({ tool_call_id: 'call_0' }, []), OUTPUT(0))
  assert.match(await recall.answer({ tool_call_id: 'never' }, []), /"never" is gone/)
})
