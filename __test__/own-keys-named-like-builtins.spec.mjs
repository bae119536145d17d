// Own keys named like built-ins (`constructor`, `prototype`, `toString`, `valueOf`, `toJSON`, `then`,
// `hasOwnProperty`, `__proto__`) are data wherever they appear: on a message, a block, a tool call,
// its args, the metadata. Every pipeline (summaries included) edits such messages, sync and async,
// without an INTERNAL error or a bare TypeError; a copy keeps the key as its own field; the summary
// message is made by the conversation's class, never by a `constructor` field.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError } from '../dist/index.js'

const KEYS = ['constructor', 'prototype', 'toString', 'valueOf', 'toJSON', 'then', 'hasOwnProperty', '__proto__']
const VALUES = { string: 'data', number: 7, object: { nested: true } }
const WHERE = ['message', 'block', 'call', 'args', 'metadata']

const PIPELINES = {
  clear: { trigger: { tokens: 1 }, keep: { messages: 0 }, clearToolInputs: true, cacheBreakpoints: true },
  'truncate and clear thinking': { edits: [{ type: 'truncate_tool_results', maxChars: 50 }, { type: 'clear_thinking' }] },
  strip: { edits: [{ type: 'strip_tool_calls' }] },
  summarize: { edits: [{ type: 'summarize', trigger: { messages: 3 }, keep: { messages: 1 } }] },
}

function define(o, key, value) {
  return Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true })
}

/** A history in LangChain instances and in OpenAI dicts with `key` set to `value` at `where`. */
function histories(where, key, value) {
  const lc = [
    new HumanMessage('go'),
    new AIMessage({
      content: [
        { type: 'thinking', thinking: 't', signature: 's' },
        { type: 'text', text: 'x' },
      ],
      tool_calls: [{ id: 'c', name: 'read', args: { path: 'a' } }],
      response_metadata: { model: 'm' },
    }),
    new ToolMessage({ content: 'x'.repeat(300), tool_call_id: 'c', response_metadata: {} }),
    new HumanMessage('next'),
  ]
  const openai = [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: [{ type: 'text', text: 'x' }],
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }],
    },
    { role: 'tool', tool_call_id: 'c', content: 'x'.repeat(300) },
    { role: 'user', content: 'next' },
  ]
  for (const h of [lc, openai]) {
    if (where === 'message') h.forEach((m) => define(m, key, value))
    if (where === 'block') h[1].content.forEach((b) => define(b, key, value))
    if (where === 'call') h[1].tool_calls.forEach((c) => define(c, key, value))
    // OpenAI arguments are JSON text: the key goes into the function object there.
    if (where === 'args') h[1].tool_calls.forEach((c) => define(c.args ?? c.function, key, value))
    if (where === 'metadata') {
      if (h === lc) {
        define(h[1].response_metadata, key, value)
        define(h[2].response_metadata, key, value)
      } else {
        define(h[2], 'response_metadata', define({}, key, value))
      }
    }
  }
  return { 'LangChain instance': lc, OpenAI: openai }
}

describe('own keys named like built-ins are data', () => {
  for (const where of WHERE) {
    for (const [pipeline, options] of Object.entries(PIPELINES)) {
      test(`on the ${where}, ${pipeline}`, async () => {
        for (const key of KEYS) {
          for (const [kind, value] of Object.entries(VALUES)) {
            for (const [shape, h] of Object.entries(histories(where, key, value))) {
              const what = `${shape}: ${key} = ${kind}`
              const context = { summarize: () => 'the summary' }
              const sync = new ContextEditor(options).edit(h, context)
              const async = await new ContextEditor(options).editAsync(h, context)
              assert.equal(JSON.stringify(sync.messages), JSON.stringify(async.messages), what)
              assert.ok(
                sync.report.appliedEdits.some((e) => e.triggered),
                what,
              )
              for (const m of sync.messages) {
                if (h.includes(m)) continue
                // A copy of a message that had the key keeps it, as its own field, with the same value.
                const original = h.find((o) => o.tool_call_id !== undefined && o.tool_call_id === m.tool_call_id && o.role === m.role) ?? null
                if (where === 'message' && original !== null) {
                  assert.ok(Object.hasOwn(m, key), `${what}: the copy lost its own ${key}`)
                  assert.equal(Object.getOwnPropertyDescriptor(m, key).value, value, what)
                }
              }
              if (pipeline === 'summarize' && shape === 'LangChain instance') {
                const summary = sync.messages.find((m) => m.additional_kwargs?.lc_source === 'summarization')
                assert.ok(summary instanceof HumanMessage, `${what}: the summary is made by the conversation's class`)
              }
            }
          }
        }
      })
    }
  }
})

test('a function under toJSON in args is the caller’s serialization: its failure is INVALID_MESSAGE naming the args', async () => {
  const h = [
    new HumanMessage('go'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c', name: 'read', args: define({ path: 'a' }, 'toJSON', () => 1n) }] }),
    new ToolMessage({ content: 'x'.repeat(300), tool_call_id: 'c' }),
  ]
  for (const call of [(e) => e.edit(h), (e) => e.editAsync(h), (e) => e.countTokens(h), (e) => e.plan(h)]) {
    await assert.rejects(
      async () => call(new ContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 } })),
      (e) => e instanceof ContextEditorError && e.code === 'INVALID_MESSAGE' && e.messageIndex === 1 && e.path === 'tool_calls[0].args',
    )
  }
})
