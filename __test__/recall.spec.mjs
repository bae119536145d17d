// `recall_tool_result` through a real LangChain `createAgent` with a scripted chat model: the
// placeholder of a cleared result names its call and the tool; the model calls the tool with that id
// and gets the exact original back, read from the agent's state; the recalled result is counted
// and cleared again like any other; an id that a summary replaced gets the plain "gone" answer,
// unless a store kept it (ours, on disk, or a LangGraph BaseStore).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createAgent, tool } from 'langchain'
import { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { InMemoryStore, MemorySaver } from '@langchain/langgraph'
import { z } from 'zod'
import {
  contextEditingMiddleware,
  summarizationMiddleware,
  recallMiddleware,
  FileRecallStore,
  InMemoryRecallStore,
  RECALL_PLACEHOLDER,
  RECALL_TOOL_NAME,
} from '../dist/langchain/index.js'

const FILES = {
  'a.ts': `export const a = 1 // ${'α'.repeat(300)}\n`,
  'b.ts': `export const b = 2 // ${'β'.repeat(300)}\n`,
  'c.ts': `export const c = 3 // ${'γ'.repeat(300)}\n`,
}
const readFile = tool(async ({ path }) => FILES[path], {
  name: 'read_file',
  description: 'Read a file.',
  schema: z.object({ path: z.string() }),
})

const isPrompt = (messages) => messages.length === 1 && typeof messages[0].content === 'string' && messages[0].content.includes('Messages to summarize:')

/**
 * A chat model that follows a script: each step is a function of the messages it receives that
 * returns its answer (`{ calls: [[name, args, id]] }` or `{ text }`). It records what it received
 * and the tools it was bound with.
 */
class Scripted extends BaseChatModel {
  constructor(steps) {
    super({})
    this.steps = steps
    this.received = []
    this.bound = []
  }
  _llmType() {
    return 'scripted'
  }
  bindTools(tools) {
    this.bound = tools
    return this
  }
  async _generate(messages) {
    if (isPrompt(messages)) {
      const message = new AIMessage('SUMMARY: files were read.')
      return { generations: [{ text: String(message.content), message }] }
    }
    this.received.push(messages)
    const step = this.steps[this.received.length - 1]
    const answer = step ? step(messages) : { text: 'done' }
    const message = answer.calls
      ? new AIMessage({ content: '', tool_calls: answer.calls.map(([name, args, id]) => ({ name, args, id, type: 'tool_call' })) })
      : new AIMessage(answer.text)
    return { generations: [{ text: String(message.content), message }] }
  }
}

const toolMessage = (messages, id) => messages.find((m) => m._getType() === 'tool' && m.tool_call_id === id)

describe('recall_tool_result in createAgent', () => {
  test('a cleared result names its call; recalling it returns the exact original, which is then counted and cleared like any other', async () => {
    let recalled
    const model = new Scripted([
      () => ({ calls: [['read_file', { path: 'a.ts' }, 'c1']] }),
      () => ({ calls: [['read_file', { path: 'b.ts' }, 'c2']] }),
      (messages) => {
        // c1 is cleared now: the placeholder names the call and the tool.
        assert.equal(toolMessage(messages, 'c1').content, `[cleared; ${RECALL_TOOL_NAME}("c1") returns it]`)
        assert.equal(toolMessage(messages, 'c2').content, FILES['b.ts'])
        return { calls: [[RECALL_TOOL_NAME, { tool_call_id: 'c1' }, 'r1']] }
      },
      (messages) => {
        recalled = toolMessage(messages, 'r1').content
        return { calls: [['read_file', { path: 'c.ts' }, 'c3']] }
      },
      (messages) => {
        // The recalled result is old now: cleared again, naming its own call.
        assert.equal(toolMessage(messages, 'r1').content, `[cleared; ${RECALL_TOOL_NAME}("r1") returns it]`)
        return { text: 'done' }
      },
    ])
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [contextEditingMiddleware({ trigger: { toolUses: 2 }, keep: { messages: 1 }, placeholder: RECALL_PLACEHOLDER }), recallMiddleware()],
    })
    const out = await agent.invoke({ messages: [new HumanMessage('Read a.ts and b.ts')] })
    assert.equal(model.received.length, 5)
    assert.equal(recalled, FILES['a.ts'], 'the exact original')
    // The tool was offered with its JSON-schema input.
    const offered = model.bound.find((t) => t.name === RECALL_TOOL_NAME)
    assert.ok(offered, 'recall_tool_result is bound')
    // Nothing in the agent's state was rewritten.
    assert.equal(toolMessage(out.messages, 'c1').content, FILES['a.ts'])
    assert.equal(toolMessage(out.messages, 'r1').content, FILES['a.ts'])
  })

  test('an unknown or summarized-away id gets the plain "gone" answer; an input without tool_call_id is refused by its schema', async () => {
    const answers = {}
    const model = new Scripted([
      () => ({ calls: [['read_file', { path: 'a.ts' }, 'c1']] }),
      () => ({ calls: [['read_file', { path: 'b.ts' }, 'c2']] }),
      () => ({ calls: [['read_file', { path: 'c.ts' }, 'c3']] }),
      (messages) => {
        // The summary replaced c1 and c2.
        assert.equal(toolMessage(messages, 'c1'), undefined)
        return {
          calls: [
            [RECALL_TOOL_NAME, { tool_call_id: 'c1' }, 'r1'],
            [RECALL_TOOL_NAME, { tool_call_id: 'nope' }, 'r2'],
            [RECALL_TOOL_NAME, {}, 'r3'],
          ],
        }
      },
      (messages) => {
        for (const id of ['r1', 'r2', 'r3']) answers[id] = toolMessage(messages, id)?.content
        return { text: 'done' }
      },
    ])
    const agent = createAgent({
      model,
      tools: [readFile],
      middleware: [summarizationMiddleware({ model, trigger: { messages: 7 }, keep: { messages: 2 } }), recallMiddleware()],
    })
    await agent.invoke({ messages: [new HumanMessage('Read the files')] })
    assert.match(answers.r1, /^The result of tool call "c1" is gone: it was summarized away or removed/)
    assert.match(answers.r2, /"nope" is gone/)
    // The input schema requires tool_call_id: LangChain refuses the call before the tool runs.
    assert.match(answers.r3, /recall_tool_result.*did not match expected schema/s)
  })

  for (const [label, makeStore, cleanup] of [
    ['InMemoryRecallStore', () => new InMemoryRecallStore()],
    ['a LangGraph InMemoryStore', () => new InMemoryStore()],
    [
      'FileRecallStore',
      () => new FileRecallStore(join((globalThis.recallDir = mkdtempSync(join(tmpdir(), 'recall-'))), 'kept')),
      () => rmSync(globalThis.recallDir, { recursive: true, force: true }),
    ],
  ]) {
    test(`with ${label} as store, a summarized-away result is recalled exactly`, async () => {
      let recalled
      const model = new Scripted([
        () => ({ calls: [['read_file', { path: 'a.ts' }, 'c1']] }),
        () => ({ calls: [['read_file', { path: 'b.ts' }, 'c2']] }),
        () => ({ calls: [['read_file', { path: 'c.ts' }, 'c3']] }),
        (messages) => {
          assert.equal(toolMessage(messages, 'c1'), undefined, 'summarized away')
          return { calls: [[RECALL_TOOL_NAME, { tool_call_id: 'c1' }, 'r1']] }
        },
        (messages) => {
          recalled = toolMessage(messages, 'r1').content
          return { text: 'done' }
        },
      ])
      try {
        const agent = createAgent({
          model,
          tools: [readFile],
          checkpointer: new MemorySaver(),
          middleware: [recallMiddleware({ store: makeStore() }), summarizationMiddleware({ model, trigger: { messages: 7 }, keep: { messages: 2 } })],
        })
        await agent.invoke({ messages: [new HumanMessage('Read the files')] }, { configurable: { thread_id: 't' } })
        assert.equal(recalled, FILES['a.ts'])
      } finally {
        cleanup?.()
      }
    })
  }

  test('OpenAI messages edited twice: placeholders that name their call are recognized, nothing is cleared twice', async () => {
    const { ContextEditor } = await import('../dist/index.js')
    const options = { trigger: { tokens: 1 }, keep: { messages: 1 }, placeholder: RECALL_PLACEHOLDER }
    const msgs = [{ role: 'user', content: 'go' }]
    for (let k = 0; k < 4; k++) {
      msgs.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'read', arguments: '{}' } }] })
      msgs.push({ role: 'tool', tool_call_id: `c${k}`, content: 'x'.repeat(300) })
    }
    const once = new ContextEditor(options).edit(msgs)
    assert.equal(once.messages[2].content, `[cleared; ${RECALL_TOOL_NAME}("c0") returns it]`)
    const twice = new ContextEditor(options).edit(once.messages)
    assert.equal(twice.report.cleared.length, 0)
    assert.deepEqual(twice.messages, once.messages)
    // The same in Anthropic's format, where the placeholder is a tool_result's content.
    const anthropic = [{ role: 'user', content: 'go' }]
    for (let k = 0; k < 4; k++) {
      anthropic.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${k}`, name: 'read', input: {} }] })
      anthropic.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: 'x'.repeat(300) }] })
    }
    const first = new ContextEditor(options).edit(anthropic, { format: 'anthropic' })
    assert.equal(first.report.cleared.length, 3)
    assert.equal(first.messages[2].content[0].content, `[cleared; ${RECALL_TOOL_NAME}("t0") returns it]`)
    const again = new ContextEditor(options).edit(first.messages, { format: 'anthropic' })
    assert.equal(again.report.cleared.length, 0)
  })

  test('a store of the wrong shape is refused when the middleware is made', () => {
    assert.throws(() => recallMiddleware({ store: { get() {} } }), /recall store: expected/)
  })
})
