// Results do not alias each other: the copies an edit makes are handed out again by later calls
// (a cleared result keeps its copy from call to call, and an edit reuses the previous output), so
// they are frozen, every object the edit created, and a caller cannot change one result through
// another. The caller's own objects are never frozen. LangChain takes the frozen copies as they are.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage, mapChatMessagesToStoredMessages } from '@langchain/core/messages'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { messagesStateReducer } from '@langchain/langgraph'
import { ContextEditor } from '../dist/index.js'
import { PIPELINES, SHAPES, dump, objectsIn, richSpecs } from './support/edits.mjs'

/** Tries every change to `o` a caller could make; each must throw (strict mode: ES modules). */
function assertUnchangeable(o) {
  for (const key of Reflect.ownKeys(o)) {
    assert.throws(() => {
      o[key] = 'changed'
    }, TypeError)
    assert.throws(() => {
      delete o[key]
    }, TypeError)
  }
  assert.throws(() => {
    o.added = 1
  }, TypeError)
  if (Array.isArray(o)) assert.throws(() => o.push(1), TypeError)
}

describe('every object an edit creates is frozen; the caller’s objects are not', () => {
  for (const [shape, build] of Object.entries(SHAPES)) {
    for (const [pipeline, options] of Object.entries(PIPELINES)) {
      test(`${shape}, ${pipeline}`, () => {
        const history = build(richSpecs())
        const mine = objectsIn(history)
        const { messages } = new ContextEditor(options).edit(history)
        let created = 0
        for (const o of objectsIn(messages)) {
          if (o === messages) continue
          if (mine.has(o)) {
            assert.equal(Object.isFrozen(o), false, 'a caller object was frozen')
          } else {
            created++
            assert.equal(Object.isFrozen(o), true, `not frozen: ${JSON.stringify(dump(o)).slice(0, 200)}`)
          }
        }
        assert.ok(created > 0)
        assert.equal(Object.isFrozen(messages), false, 'the array returned is the caller’s to change')
      })
    }
  }
})

describe('changing a result does not change any other result', () => {
  for (const [shape, build] of Object.entries(SHAPES)) {
    for (const [pipeline, options] of Object.entries(PIPELINES)) {
      test(`${shape}, ${pipeline}: every change to a copy throws, and later calls equal a fresh editor's`, async () => {
        const history = build(richSpecs())
        const editor = new ContextEditor(options)
        const first = editor.edit(history)
        const expected = dump(new ContextEditor(options).edit(build(richSpecs())).messages)
        const mine = objectsIn(history)
        let tried = 0
        for (const o of objectsIn(first.messages)) {
          if (o === first.messages || mine.has(o)) continue
          assertUnchangeable(o)
          tried++
        }
        assert.ok(tried > 0)
        first.messages.reverse()
        // The same history again, a grown one, and asynchronously: the same output as a fresh editor.
        assert.deepEqual(dump(editor.edit(history).messages), expected)
        assert.deepEqual(dump((await editor.editAsync(history)).messages), expected)
        const grown = [...history, build([{ type: 'human', content: 'one more' }])[0]]
        assert.deepEqual(dump(editor.edit(grown).messages), dump(new ContextEditor(options).edit(build(richSpecs()).concat(grown.at(-1))).messages))
      })
    }
  }

  test('a caller who writes into a cleared result (ignored in sloppy-mode code) sees no change in later results', () => {
    const history = [new HumanMessage('go')]
    for (let t = 0; t < 4; t++) {
      history.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
      history.push(new ToolMessage({ content: 'r'.repeat(400), tool_call_id: `c${t}`, name: 'read' }))
    }
    const editor = new ContextEditor({ trigger: { tokens: 150 }, keep: { messages: 1 } })
    const first = editor.edit(history).messages
    assert.equal(first[2].content, '[cleared]')
    // What a CommonJS (sloppy-mode) caller's `first[2].content = …` does: nothing.
    assert.equal(Reflect.set(first[2], 'content', 'my notes'), false)
    assert.equal(Reflect.set(first[2].response_metadata.context_editing, 'cleared', false), false)
    for (const later of [editor.edit(history).messages, editor.edit([...history, new HumanMessage('next')]).messages]) {
      assert.equal(later[2].content, '[cleared]')
      assert.deepEqual(later[2].response_metadata.context_editing, { cleared: true, strategy: 'clear_tool_uses' })
    }
  })

  test('a long history applied in pieces (editAsync) hands out frozen copies too', async () => {
    const history = [new HumanMessage('go')]
    for (let t = 0; t < 400; t++) {
      history.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
      history.push(new ToolMessage({ content: 'r'.repeat(200), tool_call_id: `c${t}`, name: 'read' }))
    }
    const editor = new ContextEditor({ trigger: { tokens: 100 }, keep: { messages: 1 } })
    const first = (await editor.editAsync(history)).messages
    const cleared = first.filter((m) => m.content === '[cleared]')
    assert.equal(cleared.length, 399)
    for (const m of cleared) assert.ok(Object.isFrozen(m) && Object.isFrozen(m.response_metadata))
    assert.throws(() => (cleared[0].content = 'secret'), TypeError)
    const again = (await editor.editAsync([...history, new HumanMessage('next')])).messages
    assert.equal(again.filter((m) => m.content === '[cleared]').length, 399)
  })
})

describe('LangChain takes frozen copies as they are', () => {
  function history() {
    const h = [new HumanMessage({ content: 'go', id: 'h0' })]
    for (let t = 0; t < 4; t++) {
      h.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }], id: `a${t}` }))
      h.push(new ToolMessage({ content: 'r'.repeat(400), tool_call_id: `c${t}`, name: 'read', id: `t${t}` }))
    }
    return h
  }

  test('a chat model, the stored-message serializer, JSON and the LangGraph messages reducer', async () => {
    const h = history()
    const { messages } = new ContextEditor({ trigger: { tokens: 100 }, keep: { messages: 1 }, clearToolInputs: true }).edit(h)
    assert.ok(Object.isFrozen(messages[2]))
    const reply = await new FakeListChatModel({ responses: ['done'] }).invoke(messages)
    assert.equal(reply.content, 'done')
    const stored = mapChatMessagesToStoredMessages(messages)
    assert.equal(stored[2].data.content, '[cleared]')
    assert.equal(JSON.parse(JSON.stringify(messages[2])).kwargs.content, '[cleared]')
    // State written back (the reducer only assigns ids to messages that have none).
    const state = messagesStateReducer(h, messages)
    assert.equal(state.length, h.length)
    assert.equal(state[2].content, '[cleared]')
  })
})
