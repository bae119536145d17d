// What `edit` returns goes back into LangChain as it is: its message constructors (which write into
// the object they are given: `new AIMessage(m)` sets `m.tool_calls`), the stored-message mappers
// (which hand a stored message's `data` to a constructor), LangGraph's messages reducer (which gives
// a message without an id one: `m.id = …`, `m.lc_kwargs.id = …`), serialization, chat models, and
// the editor itself (an edit of an edit's output). Whatever LangChain writes into the messages it
// got, later results are unchanged: each call hands out message objects of its own.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import * as LC from '@langchain/core/messages'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { messagesStateReducer } from '@langchain/langgraph'
import { ContextEditor } from '../dist/index.js'
import { PIPELINES, SHAPES, dump, richSpecs } from './support/edits.mjs'

const CLASSES = { system: LC.SystemMessage, human: LC.HumanMessage, ai: LC.AIMessage, tool: LC.ToolMessage }

/** The rich history's specs, with every message's id (`ids: false`: none has one, as in a hand-built history). */
function specs(ids) {
  return richSpecs().map((s) => {
    if (ids) return s
    const { id, ...rest } = s
    return rest
  })
}

/**
 * Every LangChain operation that takes messages of the shape `shape`, run on the edit's `messages`.
 * Operations that write into the messages they get run on the edit's copies only: LangGraph's reducer
 * gives the caller's own messages without an id one too, and a stored message's constructor fills in
 * its `data`, which is LangChain's doing, not the edit's.
 */
function throughLangChain(shape, messages, history) {
  const copies = messages.filter((m) => !history.includes(m))
  if (shape === 'LangChain instance') {
    // Each copy rebuilt by its own class, and by AIMessage for the AI ones.
    for (const m of copies) new m.constructor(m)
    for (const m of copies) if (m._getType() === 'ai') new LC.AIMessage(m)
    const rebuilt = messages.map((m) => (copies.includes(m) ? new m.constructor(m) : m))
    const stored = LC.mapChatMessagesToStoredMessages(messages)
    LC.mapStoredMessagesToChatMessages(stored)
    for (const m of messages) m.toDict()
    JSON.parse(JSON.stringify(messages))
    // LangGraph's reducer, as a node returning the edited messages would have it run.
    messagesStateReducer([], copies)
    return rebuilt
  }
  if (shape === 'StoredMessage') {
    LC.mapStoredMessagesToChatMessages(copies)
    return undefined
  }
  if (shape === 'LangChain dict') {
    for (const m of copies) new CLASSES[m.type](m)
    return messages.map((m) => LC.coerceMessageLikeToMessage(m))
  }
  JSON.parse(JSON.stringify(messages))
  return undefined
}

describe('LangChain takes what edit returns, and later results do not change', () => {
  for (const [shape, build] of Object.entries(SHAPES)) {
    for (const [pipeline, options] of Object.entries(PIPELINES)) {
      for (const ids of [true, false]) {
        test(`${shape}, ${pipeline}, ${ids ? 'with ids' : 'without ids'}`, async () => {
          const history = build(specs(ids))
          const expected = dump(new ContextEditor(options).edit(build(specs(ids))).messages)
          const editor = new ContextEditor(options)
          const first = editor.edit(history).messages
          assert.deepEqual(dump(first), expected)
          const rebuilt = throughLangChain(shape, first, history)
          if (rebuilt !== undefined) {
            // The chat-model classes LangChain rebuilt hold the edit: what a model is sent.
            const reply = await new FakeListChatModel({ responses: ['ok'] }).invoke(rebuilt)
            assert.equal(reply.content, 'ok')
            assert.equal(rebuilt.length, first.length)
          }
          // Whatever LangChain wrote into the messages it got: the next calls equal a fresh editor's.
          assert.deepEqual(dump(editor.edit(history).messages), expected)
          assert.deepEqual(dump((await editor.editAsync(history)).messages), expected)
          const next = build([{ type: 'human', content: 'one more' }])[0]
          assert.deepEqual(dump(editor.edit([...history, next]).messages), dump(new ContextEditor(options).edit([...build(specs(ids)), next]).messages))
        })
      }
    }
  }
})

describe('an edit of an edit’s output', () => {
  for (const [shape, build] of Object.entries(SHAPES)) {
    for (const [pipeline, options] of Object.entries(PIPELINES)) {
      test(`${shape}, ${pipeline}: by the same editor, a fresh one and asynchronously, equals a fresh editor’s`, async () => {
        const editor = new ContextEditor(options)
        let out = editor.edit(build(specs(false))).messages
        for (let round = 0; round < 3; round++) {
          const want = dump(new ContextEditor(options).edit(out).messages)
          assert.deepEqual(dump(editor.edit(out).messages), want, `round ${round}, same editor`)
          assert.deepEqual(dump((await editor.editAsync(out)).messages), want, `round ${round}, editAsync`)
          out = editor.edit(out).messages
        }
      })
    }
  }
})

test('a message without an id that LangGraph’s reducer gave one: the id is in that result only', () => {
  const history = [new LC.HumanMessage('go')]
  for (let t = 0; t < 3; t++) {
    history.push(new LC.AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
    history.push(new LC.ToolMessage({ content: 'r'.repeat(400), tool_call_id: `c${t}`, name: 'read' }))
  }
  const editor = new ContextEditor({ trigger: { tokens: 100 }, keep: { messages: 1 }, clearToolInputs: true })
  const first = editor.edit(history).messages
  const state = messagesStateReducer([], first)
  assert.equal(typeof state[2].id, 'string', 'the reducer gave the cleared result an id')
  assert.equal(state[2].lc_kwargs.id, state[2].id)
  const again = editor.edit(history).messages
  assert.equal(again[2].content, '[cleared]')
  assert.equal(again[2].id, undefined, 'the id the reducer gave is not in the next result')
  assert.equal(again[2].lc_kwargs.id, undefined)
  assert.equal(history[2].id, undefined, 'nor in the caller’s message')
})

test('new AIMessage(edited) keeps the cleared inputs, and later results keep theirs', () => {
  const history = [new LC.HumanMessage({ content: 'go', id: 'h' })]
  for (let t = 0; t < 3; t++) {
    history.push(new LC.AIMessage({ id: `a${t}`, content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { path: `f${t}` } }] }))
    history.push(new LC.ToolMessage({ id: `t${t}`, content: 'r'.repeat(400), tool_call_id: `c${t}`, name: 'read' }))
  }
  const editor = new ContextEditor({ trigger: { tokens: 100 }, keep: { messages: 1 }, clearToolInputs: true })
  const first = editor.edit(history).messages
  const rebuilt = new LC.AIMessage(first[1])
  assert.deepEqual(rebuilt.tool_calls[0].args, {})
  first[1].tool_calls = [{ id: 'c0', name: 'read', args: { path: 'mine' } }]
  assert.deepEqual(editor.edit(history).messages[1].tool_calls[0].args, {})
})

test('message chunks: edited chunks concatenate, rebuild, and later results do not change', () => {
  const history = [new LC.HumanMessageChunk({ content: 'go' })]
  for (let t = 0; t < 3; t++) {
    history.push(new LC.AIMessageChunk({ content: [{ type: 'text', text: `step ${t}` }], tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
    history.push(new LC.ToolMessageChunk({ content: 'r'.repeat(400), tool_call_id: `c${t}`, name: 'read' }))
  }
  const options = { trigger: { tokens: 100 }, keep: { messages: 1 }, clearToolInputs: true, cacheBreakpoints: true }
  const editor = new ContextEditor(options)
  const first = editor.edit(history).messages
  const expected = dump(new ContextEditor(options).edit(history).messages)
  assert.equal(first[2].response_metadata.context_editing.cleared, true)
  for (const m of first) {
    if (history.includes(m)) continue
    const joined = m.concat(m)
    assert.equal(joined._getType(), m._getType())
    new m.constructor(m)
  }
  new LC.AIMessageChunk(first[1])
  assert.deepEqual(dump(editor.edit(history).messages), expected)
})
