// Results do not alias each other: what an edit creates inside a copy is handed out again by later
// calls (a cleared result keeps its copy from call to call, and an edit reuses the previous output),
// so it is frozen, and a caller cannot change one result through another. The message object
// itself (and a stored message's data, the lc_kwargs of a message without an id) is a fresh one on
// every call and the caller's to change, as LangChain's constructors and LangGraph's reducer do.
// The caller's own objects are never frozen.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage, mapChatMessagesToStoredMessages } from '@langchain/core/messages'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { messagesStateReducer } from '@langchain/langgraph'
import { ContextEditor } from '../dist/index.js'
import { PIPELINES, SHAPES, dump, objectsIn, richSpecs } from './support/edits.mjs'

/**
 * The objects of an output that are the caller's own to change: each message, a stored message's
 * data, and the lc_kwargs of a message without an id (where LangGraph's reducer writes the one it gives).
 */
function shellsOf(messages) {
  const shells = new Set()
  for (const m of messages) {
    shells.add(m)
    if (m.lc_kwargs && m.id == null) shells.add(m.lc_kwargs)
    if (typeof m.type === 'string' && m.data && typeof m.data === 'object') shells.add(m.data)
  }
  return shells
}

/** Every change a caller could make to `o` (all succeed on an open object). */
function scribble(o) {
  for (const key of Reflect.ownKeys(o)) o[key] = 'changed'
  o.added = 1
}

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

describe('every object an edit creates inside a message is frozen; the message objects and the caller’s objects are not', () => {
  for (const [shape, build] of Object.entries(SHAPES)) {
    for (const [pipeline, options] of Object.entries(PIPELINES)) {
      test(`${shape}, ${pipeline}`, () => {
        const history = build(richSpecs())
        const mine = objectsIn(history)
        const { messages } = new ContextEditor(options).edit(history)
        const shells = shellsOf(messages)
        let created = 0
        for (const o of objectsIn(messages)) {
          if (o === messages) continue
          if (mine.has(o)) {
            assert.equal(Object.isFrozen(o), false, 'a caller object was frozen')
          } else if (shells.has(o)) {
            created++
            assert.equal(Object.isExtensible(o), true, `a message object was frozen: ${JSON.stringify(dump(o)).slice(0, 200)}`)
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
      test(`${shape}, ${pipeline}: every change inside a copy throws, a message object changed by its caller changes nothing else, and later calls equal a fresh editor's`, async () => {
        const history = build(richSpecs())
        const editor = new ContextEditor(options)
        const first = editor.edit(history)
        const expected = dump(new ContextEditor(options).edit(build(richSpecs())).messages)
        const mine = objectsIn(history)
        const shells = shellsOf(first.messages)
        let tried = 0
        for (const o of objectsIn(first.messages)) {
          if (o === first.messages || mine.has(o) || shells.has(o)) continue
          assertUnchangeable(o)
          tried++
        }
        for (const o of shells) {
          if (mine.has(o)) continue
          scribble(o)
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

  test('a caller who writes into a cleared result (its own object) or into its marker (ignored in sloppy-mode code) sees no change in later results', () => {
    const history = [new HumanMessage('go')]
    for (let t = 0; t < 4; t++) {
      history.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
      history.push(new ToolMessage({ content: 'r'.repeat(400), tool_call_id: `c${t}`, name: 'read' }))
    }
    const editor = new ContextEditor({ trigger: { tokens: 150 }, keep: { messages: 1 } })
    const first = editor.edit(history).messages
    assert.equal(first[2].content, '[cleared]')
    // The message object is the caller's; what a CommonJS (sloppy-mode) caller's write into the
    // marker does: nothing.
    assert.equal(Reflect.set(first[2], 'content', 'my notes'), true)
    assert.equal(Reflect.set(first[2].response_metadata.context_editing, 'cleared', false), false)
    for (const later of [editor.edit(history).messages, editor.edit([...history, new HumanMessage('next')]).messages]) {
      assert.equal(later[2].content, '[cleared]')
      assert.deepEqual(later[2].response_metadata.context_editing, { cleared: true, strategy: 'clear_tool_uses' })
    }
  })

  test('a long history applied in pieces (editAsync) hands out fresh message objects with frozen insides too', async () => {
    const history = [new HumanMessage('go')]
    for (let t = 0; t < 400; t++) {
      history.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
      history.push(new ToolMessage({ content: 'r'.repeat(200), tool_call_id: `c${t}`, name: 'read' }))
    }
    const editor = new ContextEditor({ trigger: { tokens: 100 }, keep: { messages: 1 } })
    const first = (await editor.editAsync(history)).messages
    const cleared = first.filter((m) => m.content === '[cleared]')
    assert.equal(cleared.length, 399)
    for (const m of cleared) assert.ok(!Object.isFrozen(m) && Object.isFrozen(m.response_metadata))
    assert.throws(() => (cleared[0].response_metadata.context_editing = 'secret'), TypeError)
    for (const m of cleared) m.content = 'secret'
    const again = (await editor.editAsync([...history, new HumanMessage('next')])).messages
    assert.equal(again.filter((m) => m.content === '[cleared]').length, 399)
    for (const m of again) assert.ok(!cleared.includes(m), 'no message object of the first result is handed out again')
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
    assert.ok(Object.isFrozen(messages[2].response_metadata))
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
