// The recall tool in the adapters beyond the AI SDK, each through its real framework: the OpenAI
// Agents SDK (`run()` with contextEditingInputFilter({ recall })), Mastra (an Agent with
// ContextEditingProcessor({ recall })) and LangGraph (createReactAgent with
// contextEditingPreModelHook({ recall })). A scripted model reads three files, finds the oldest
// cleared (the placeholder names its call and the tool), calls recall_tool_result on it and gets
// the exact original; an id that is no longer in the history gets the plain "gone" answer, and in
// LangGraph a result the stored summary replaced is recalled while the state has it, then is gone.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import { createRecall } from '../dist/index.js'

const OUTPUT = (n) => `file ${n}: ` + 'lorem ipsum dolor sit amet '.repeat(40)
const PLACEHOLDER = '[cleared; recall_tool_result("call_0") returns it]'
const GONE = /^The result of tool call "call_gone" is gone: it was summarized away/

test('OpenAI Agents: the model recalls a cleared result through the input filter', async () => {
  const { Agent, run, setTracingDisabled, tool, Usage } = await import('@openai/agents')
  const { z } = await import('zod')
  const { contextEditingInputFilter } = await import('../dist/openai-agents/index.js')
  setTracingDisabled(true)
  const recall = createRecall()
  const requests = []
  const fc = (n, callId, name, args) => ({ type: 'function_call', id: `fc_${n}`, callId, name, arguments: JSON.stringify(args), status: 'completed' })
  const model = {
    async getResponse(request) {
      requests.push(structuredClone(request.input))
      const n = requests.length - 1
      const output =
        n < 3
          ? [fc(n, `call_${n}`, 'read', { n })]
          : n === 3
            ? [fc(n, 'r1', recall.name, { tool_call_id: 'call_0' })]
            : n === 4
              ? [fc(n, 'r2', recall.name, { tool_call_id: 'call_gone' })]
              : [{ type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }]
      return { usage: new Usage(), output, responseId: `resp_${n}` }
    },
    async *getStreamedResponse() {
      throw new Error('not used')
    },
  }
  const tools = [
    tool({ name: 'read', description: 'read a file', parameters: z.object({ n: z.number() }), execute: async ({ n }) => OUTPUT(n) }),
    tool({ name: recall.name, description: recall.description, parameters: recall.inputSchema, strict: false, execute: (input) => recall.answer(input) }),
  ]
  const agent = new Agent({ name: 'reader', instructions: 'Read files.', model, tools })
  const filter = contextEditingInputFilter({ trigger: { toolUses: 3 }, keep: { messages: 1 }, placeholder: recall.placeholder, recall })
  const result = await run(agent, 'read the files', { maxTurns: 10, callModelInputFilter: filter })
  assert.equal(result.finalOutput, 'done')
  const outputOf = (input, id) => {
    const o = input.find((i) => i.type === 'function_call_result' && i.callId === id).output
    return typeof o === 'string' ? o : o.text
  }
  assert.equal(outputOf(requests[3], 'call_0'), PLACEHOLDER, 'the model saw the placeholder naming the call')
  assert.equal(outputOf(requests[4], 'r1'), OUTPUT(0), 'the exact original')
  assert.match(outputOf(requests[5], 'r2'), GONE)
})

test('Mastra: the model recalls a cleared result through the input processor', async () => {
  const { Agent } = await import('@mastra/core/agent')
  const { createTool } = await import('@mastra/core/tools')
  const { MockLanguageModelV2 } = await import('ai-v5/test')
  const { z } = await import('zod')
  const { ContextEditingProcessor } = await import('../dist/mastra/index.js')
  const recall = createRecall()
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
  const prompts = []
  const call = (id, toolName, input) => ({
    content: [{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) }],
    finishReason: 'tool-calls',
    usage,
    warnings: [],
  })
  const text = (t) => ({ content: [{ type: 'text', text: t }], finishReason: 'stop', usage, warnings: [] })
  /** What the prompt holds for call `id` (its result's value), if anything. */
  const seen = (prompt, id) => {
    for (const m of prompt) if (m.role === 'tool') for (const p of m.content) if (p.toolCallId === id) return p.output.value
  }
  // Scripted on what it is shown: asked to read, it reads three files; asked to recall, it recalls
  // call_0, then an id that is not in the history.
  const model = new MockLanguageModelV2({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt)
      const asked = prompt
        .filter((m) => m.role === 'user')
        .at(-1)
        .content.map((p) => p.text)
        .join('')
      if (asked === 'read the files') {
        const read = [0, 1, 2].filter((n) => seen(prompt, `call_${n}`) !== undefined).length
        return read < 3 ? call(`call_${read}`, 'read', { n: read }) : text('read')
      }
      if (seen(prompt, 'r1') === undefined) return call('r1', recall.name, { tool_call_id: 'call_0' })
      if (seen(prompt, 'r2') === undefined) return call('r2', recall.name, { tool_call_id: 'call_gone' })
      return text('done')
    },
  })
  const read = createTool({
    id: 'read',
    description: 'read a file',
    inputSchema: z.object({ n: z.number() }),
    execute: async ({ context }) => OUTPUT(context.n),
  })
  const recallTool = createTool({
    id: recall.name,
    description: recall.description,
    inputSchema: z.object({ tool_call_id: z.string() }),
    execute: async ({ context }) => recall.answer(context),
  })
  const agent = new Agent({
    name: 'reader',
    instructions: 'Read files.',
    model,
    tools: { read, [recall.name]: recallTool },
    inputProcessors: [new ContextEditingProcessor({ trigger: { toolUses: 3 }, keep: { messages: 1 }, placeholder: recall.placeholder, recall })],
  })
  // The reads happen in one generate(); the processor clears on the next one, which gets the
  // history the caller kept (every result whole).
  const history = [{ role: 'user', content: 'read the files' }]
  assert.equal((await agent.generate(history, { maxSteps: 5 })).text, 'read')
  for (const n of [0, 1, 2]) {
    history.push(
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `call_${n}`, toolName: 'read', input: { n } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: `call_${n}`, toolName: 'read', output: { type: 'text', value: OUTPUT(n) } }] },
    )
  }
  history.push({ role: 'assistant', content: 'read' }, { role: 'user', content: 'recall the first file' })
  const from = prompts.length
  assert.equal((await agent.generate(history, { maxSteps: 5 })).text, 'done')
  assert.equal(seen(prompts[from], 'call_0'), PLACEHOLDER, 'the model saw the placeholder naming the call')
  assert.equal(seen(prompts[from + 1], 'r1'), OUTPUT(0), 'the exact original')
  assert.match(seen(prompts[from + 2], 'r2'), GONE)
})

test('LangGraph: the model recalls a cleared result through the pre-model hook', async () => {
  const { BaseChatModel } = await import('@langchain/core/language_models/chat_models')
  const { AIMessage } = await import('@langchain/core/messages')
  const { tool } = await import('@langchain/core/tools')
  const { createReactAgent } = await import('@langchain/langgraph/prebuilt')
  const { z } = await import('zod')
  const { contextEditingPreModelHook } = await import('../dist/langgraph/index.js')
  const recall = createRecall()
  const calls = []
  const ask = (id, name, args) => new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] })
  class Model extends BaseChatModel {
    _llmType() {
      return 'scripted'
    }
    bindTools() {
      return this
    }
    async _generate(messages) {
      calls.push(messages)
      const n = calls.length - 1
      const message =
        n < 3
          ? ask(`call_${n}`, 'read', { n })
          : n === 3
            ? ask('r1', recall.name, { tool_call_id: 'call_0' })
            : n === 4
              ? ask('r2', recall.name, { tool_call_id: 'call_gone' })
              : new AIMessage('done')
      return { generations: [{ text: '', message }] }
    }
  }
  const read = tool(async ({ n }) => OUTPUT(n), { name: 'read', description: 'read a file', schema: z.object({ n: z.number() }) })
  const recallTool = tool(async (input) => recall.answer(input), { name: recall.name, description: recall.description, schema: recall.inputSchema })
  const agent = createReactAgent({
    llm: new Model({}),
    tools: [read, recallTool],
    preModelHook: contextEditingPreModelHook({ trigger: { toolUses: 3 }, keep: { messages: 1 }, placeholder: recall.placeholder, recall }),
  })
  const out = await agent.invoke({ messages: [{ role: 'user', content: 'read the files' }] })
  assert.equal(out.messages.at(-1).content, 'done')
  const seen = (k, id) => calls[k].find((m) => m._getType() === 'tool' && m.tool_call_id === id)?.content
  assert.equal(seen(3, 'call_0'), PLACEHOLDER, 'the model saw the placeholder naming the call')
  assert.equal(seen(4, 'r1'), OUTPUT(0), 'the exact original')
  assert.match(seen(5, 'r2'), GONE)
  // The graph's state keeps the original; the recalled copy is a result like any other.
  assert.equal(out.messages.find((m) => m.tool_call_id === 'call_0').content, OUTPUT(0))
})

test('an adapter rejects a recall that is not createRecall()', async () => {
  const { contextEditingInputFilter } = await import('../dist/openai-agents/index.js')
  const { ContextEditorError } = await import('../dist/index.js')
  assert.throws(
    () => contextEditingInputFilter({ recall: { answer: () => '' } }),
    (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.path === 'recall',
  )
})

test('LangGraph: a result summarized away from the state gets the gone answer; before that, the original', async () => {
  const { BaseChatModel } = await import('@langchain/core/language_models/chat_models')
  const { AIMessage } = await import('@langchain/core/messages')
  const { tool } = await import('@langchain/core/tools')
  const { createReactAgent } = await import('@langchain/langgraph/prebuilt')
  const { z } = await import('zod')
  const { contextEditingPreModelHook } = await import('../dist/langgraph/index.js')
  const recall = createRecall()
  const calls = []
  let summaries = 0
  const ask = (id, name, args) => new AIMessage({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] })
  // Reads call_0..2, recalls call_0 (r1), reads call_3..7 (the summary fires on the way), recalls call_0 again (r2).
  const script = (n) =>
    n < 3
      ? ask(`call_${n}`, 'read', { n })
      : n === 3
        ? ask('r1', recall.name, { tool_call_id: 'call_0' })
        : n < 9
          ? ask(`call_${n - 1}`, 'read', { n: n - 1 })
          : n === 9
            ? ask('r2', recall.name, { tool_call_id: 'call_0' })
            : new AIMessage('done')
  class Model extends BaseChatModel {
    _llmType() {
      return 'scripted'
    }
    bindTools() {
      return this
    }
    async _generate(messages) {
      if (messages.length === 1 && String(messages[0].content).includes('Messages to summarize')) {
        return { generations: [{ text: '', message: new AIMessage(`SUMMARY-${++summaries}`) }] }
      }
      calls.push(messages)
      return { generations: [{ text: '', message: script(calls.length - 1) }] }
    }
  }
  const model = new Model({})
  const read = tool(async ({ n }) => OUTPUT(n), { name: 'read', description: 'read a file', schema: z.object({ n: z.number() }) })
  const recallTool = tool(async (input) => recall.answer(input), { name: recall.name, description: recall.description, schema: recall.inputSchema })
  const agent = createReactAgent({
    llm: model,
    tools: [read, recallTool],
    preModelHook: contextEditingPreModelHook({
      edits: [
        { type: 'clear_tool_uses', trigger: { toolUses: 3 }, keep: { messages: 1 }, placeholder: recall.placeholder },
        { type: 'summarize', trigger: { messages: 14 }, keep: { messages: 4 } },
      ],
      summaryModel: model,
      recall,
    }),
  })
  const out = await agent.invoke({ messages: [{ role: 'user', content: 'read the files' }] }, { recursionLimit: 60 })
  assert.equal(out.messages.at(-1).content, 'done')
  assert.equal(summaries, 1, 'one summary, stored in the state')
  const seen = (k, id) => calls[k].find((m) => m._getType() === 'tool' && m.tool_call_id === id)?.content
  assert.equal(seen(4, 'r1'), OUTPUT(0), 'the exact original while the state has it')
  assert.equal(
    out.messages.find((m) => m.tool_call_id === 'call_0'),
    undefined,
    'summarized away',
  )
  assert.match(seen(10, 'r2'), /^The result of tool call "call_0" is gone: it was summarized away/)
})
