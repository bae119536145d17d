// What an edit copies inside a message (its `response_metadata`, `lc_kwargs`, a tool call, a
// content block) keeps every own field as data, the same whether the copy is handed out open
// (`applyPlan`) or kept frozen by the editor and handed out again (`edit`, which copies these
// objects by a faster path): an own `__proto__` key (as `JSON.parse` makes) stays a field and never
// becomes the copy's prototype, and a setter put on Object.prototype never runs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, applyPlan } from '../dist/index.js'

const OPTIONS = { trigger: { tokens: 1 }, keep: { messages: 0 }, clearToolInputs: true }

function define(o, key, value) {
  return Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
}

/** A history whose objects below the messages carry `key` = `value` (own, enumerable). */
function history(key, value) {
  const call = define({ id: 'c', name: 'read', args: { path: 'a' } }, key, value)
  const block = define({ type: 'tool_use', id: 'c', name: 'read', input: { path: 'a' } }, key, value)
  const ai = new AIMessage({ content: [{ type: 'text', text: 'x' }, block], tool_calls: [call], response_metadata: define({ latency: 3 }, key, value) })
  const tool = new ToolMessage({ content: 'x'.repeat(300), tool_call_id: 'c', response_metadata: define({ source: 's' }, key, value) })
  define(tool.lc_kwargs, key, value)
  return [new HumanMessage('go'), ai, tool, new HumanMessage('next')]
}

/** The objects an edit copied: the cleared result's metadata and `lc_kwargs`, the emptied call and block. */
function copiedParts(messages) {
  const [, ai, tool] = messages
  return {
    'tool response_metadata': tool.response_metadata,
    'tool lc_kwargs': tool.lc_kwargs,
    'ai response_metadata': ai.response_metadata,
    'tool call': ai.tool_calls[0],
    'tool_use block': ai.content.find((b) => b.type === 'tool_use'),
  }
}

test('own `__proto__` and other built-in names stay fields of every nested copy, frozen or open', () => {
  for (const key of ['__proto__', 'constructor', 'toString']) {
    for (const value of [{ nested: true }, 'data', null]) {
      const h = history(key, value)
      const editor = new ContextEditor(OPTIONS)
      const kept = editor.edit(h)
      const open = applyPlan(h, editor.plan(h))
      // The second call hands out what the editor kept (frozen templates, fresh shells).
      const again = editor.edit(h)
      for (const [label, messages] of [
        ['edit', kept.messages],
        ['applyPlan', open],
        ['edit, next call', again.messages],
      ]) {
        assert.notEqual(messages[2], h[2], `${label}: the tool result was cleared`)
        for (const [where, o] of Object.entries(copiedParts(messages))) {
          const what = `${label}, ${where}, ${key} = ${JSON.stringify(value)}`
          assert.equal(Object.getPrototypeOf(o), Object.prototype, what)
          assert.ok(Object.hasOwn(o, key), `${what}: the key is an own field`)
          assert.deepEqual(Object.getOwnPropertyDescriptor(o, key).value, value, what)
        }
      }
      assert.deepStrictEqual(kept.messages, open)
      assert.deepStrictEqual(again.messages, open)
    }
  }
})

test('a setter put on Object.prototype never runs when an edit copies metadata, calls and blocks', () => {
  const ran = []
  const keys = ['source', 'latency', 'args', 'input', 'context_editing', 'content']
  const saved = keys.map((k) => [k, Object.getOwnPropertyDescriptor(Object.prototype, k)])
  const h = history('extra', 1)
  try {
    for (const k of keys) {
      Object.defineProperty(Object.prototype, k, {
        configurable: true,
        get: () => undefined,
        set(v) {
          ran.push(k)
          Object.defineProperty(this, k, { value: v, writable: true, enumerable: true, configurable: true })
        },
      })
    }
    const editor = new ContextEditor(OPTIONS)
    const kept = editor.edit(h)
    const again = editor.edit(h)
    for (const messages of [kept.messages, again.messages]) {
      const parts = copiedParts(messages)
      assert.equal(parts['tool response_metadata'].source, 's')
      assert.equal(parts['ai response_metadata'].latency, 3)
      assert.ok(Object.hasOwn(parts['tool response_metadata'], 'context_editing'))
    }
  } finally {
    for (const [k, d] of saved) {
      if (d) Object.defineProperty(Object.prototype, k, d)
      else delete Object.prototype[k]
    }
  }
  assert.deepEqual(ran, [], 'no setter of Object.prototype ran')
})
