// The change check reads the fields docs/library.md lists; replacing any of them in place, in any
// message shape the editor takes, is noticed without a remedy: after the change, every call on a
// warm editor (its sessions, conversions and cleared copies made) equals a fresh editor's, in each
// counting mode and pipeline.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import * as LC from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'

const specs = () => [
  { type: 'system', content: 'sys' },
  {
    type: 'human',
    id: 'h0',
    content: [
      { type: 'text', text: 'look' },
      { type: 'file', mime_type: 'image/png', data: 'AAAA' },
    ],
  },
  {
    type: 'ai',
    id: 'a0',
    content: [
      { type: 'thinking', thinking: 'hmm', signature: 's' },
      { type: 'text', text: 'step' },
      { type: 'tool_use', id: 'c0', name: 'read', input: { p: 1 } },
    ],
    tool_calls: [{ id: 'c0', name: 'read', args: { p: 1 }, type: 'tool_call' }],
    additional_kwargs: { reasoning_content: 'why' },
    response_metadata: { context_editing: { cleared_tool_inputs: [] } },
  },
  { type: 'tool', tool_call_id: 'c0', name: 'read', id: 't0', content: 'r'.repeat(300), response_metadata: {} },
  {
    type: 'ai',
    id: 'a1',
    content: 'ok',
    tool_calls: [{ id: 'c1', name: 'read', args: { p: 2 }, type: 'tool_call' }],
    additional_kwargs: {},
    response_metadata: {},
  },
  {
    type: 'tool',
    tool_call_id: 'c1',
    name: 'read',
    id: 't1',
    content: [{ type: 'text', text: 'y'.repeat(300) }],
    response_metadata: { context_editing: { cleared: false } },
  },
  { type: 'human', content: 'next', id: 'h1' },
]

const CLASSES = { system: LC.SystemMessage, human: LC.HumanMessage, ai: LC.AIMessage, tool: LC.ToolMessage }
const ROLES = { system: 'system', human: 'user', ai: 'assistant', tool: 'tool' }
const SHAPES = {
  'LangChain instance': () => specs().map(({ type, ...f }) => new CLASSES[type](f)),
  'LangChain ChatMessage': () => specs().map(({ type, ...f }) => (type === 'tool' ? new LC.ToolMessage(f) : new LC.ChatMessage({ ...f, role: ROLES[type] }))),
  'LangChain dict': () => specs(),
  StoredMessage: () => specs().map(({ type, ...data }) => ({ type, data })),
  OpenAI: () =>
    specs().map(({ type, tool_calls, additional_kwargs, response_metadata, id, ...rest }) => {
      const m = { role: ROLES[type], ...rest }
      if (tool_calls) m.tool_calls = tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }))
      if (additional_kwargs?.reasoning_content) m.reasoning_content = additional_kwargs.reasoning_content
      return m
    }),
}

/** The object holding a message's fields (a stored message's `data`). */
const F = (m) => (m.data && typeof m.type === 'string' ? m.data : m)
const call = (h, k) => F(h[k]).tool_calls[0]

/** Each documented field replaced in place (skipped where a shape has no such field). */
const CHANGES = {
  content: (h) => (F(h[3]).content = 'short'),
  tool_calls: (h) => (F(h[4]).tool_calls = []),
  response_metadata: (h) => (F(h[5]).response_metadata = { context_editing: { cleared: true } }),
  additional_kwargs: (h) => F(h[2]).additional_kwargs !== undefined && (F(h[2]).additional_kwargs = { reasoning_content: 'z'.repeat(500) }),
  name: (h) => (F(h[3]).name = 'grep'.repeat(50)),
  tool_call_id: (h) => (F(h[5]).tool_call_id = 'elsewhere'),
  type: (h) => typeof h[6].type === 'string' && (h[6].type = 'ai'),
  role: (h) => typeof h[6].role === 'string' && (h[6].role = 'assistant'),
  data: (h) => h[6].data !== undefined && (h[6].data = { content: 'x'.repeat(500) }),
  reasoning_content: (h) => typeof h[2].role === 'string' && h[2].tool_calls && (h[2].reasoning_content = 'q'.repeat(400)),
  'response_metadata.context_editing': (h) => F(h[5]).response_metadata && (F(h[5]).response_metadata.context_editing = { cleared: true }),
  'context_editing.cleared': (h) => F(h[5]).response_metadata?.context_editing && (F(h[5]).response_metadata.context_editing.cleared = true),
  'context_editing.truncated': (h) => F(h[5]).response_metadata?.context_editing && (F(h[5]).response_metadata.context_editing.truncated = true),
  'context_editing.cleared_tool_inputs': (h) =>
    F(h[2]).response_metadata?.context_editing && (F(h[2]).response_metadata.context_editing.cleared_tool_inputs = ['c0']),
  'additional_kwargs.reasoning_content': (h) => F(h[2]).additional_kwargs && (F(h[2]).additional_kwargs.reasoning_content = 'w'.repeat(400)),
  'additional_kwargs.reasoning': (h) => F(h[2]).additional_kwargs && (F(h[2]).additional_kwargs.reasoning = { summary: 'w'.repeat(400) }),
  'a block': (h) => Array.isArray(F(h[2]).content) && (F(h[2]).content[1] = { type: 'text', text: 'n'.repeat(400) }),
  'the number of blocks': (h) => Array.isArray(F(h[2]).content) && F(h[2]).content.push({ type: 'text', text: 'n'.repeat(400) }),
  'a block’s type': (h) => Array.isArray(F(h[2]).content) && (F(h[2]).content[1].type = 'weird'),
  'a block’s text': (h) => Array.isArray(F(h[5]).content) && (F(h[5]).content[0].text = 'short'),
  'a block’s id': (h) => Array.isArray(F(h[2]).content) && (F(h[2]).content[2].id = 'c9'),
  'a file block’s mime_type': (h) => Array.isArray(F(h[1]).content) && (F(h[1]).content[1].mime_type = 'text/plain'),
  'a tool call': (h) => {
    const c = call(h, 4)
    F(h[4]).tool_calls[0] = c.function ? { ...c, function: { name: 'zz', arguments: `{"q":"${'v'.repeat(300)}"}` } } : { ...c, args: { q: 'v'.repeat(300) } }
  },
  'the number of tool calls': (h) =>
    F(h[4]).tool_calls.push(call(h, 4).function ? { id: 'c9', type: 'function', function: { name: 'x', arguments: '{}' } } : { id: 'c9', name: 'x', args: {} }),
  'a tool call’s id': (h) => (call(h, 4).id = 'c7'),
  'a tool call’s name': (h) => (call(h, 4).function ? (call(h, 4).function.name = 'n'.repeat(40)) : (call(h, 4).name = 'n'.repeat(40))),
  'a tool call’s args': (h) => !call(h, 4).function && (call(h, 4).args = { z: 'k'.repeat(300) }),
  'a tool call’s function': (h) => call(h, 4).function && (call(h, 4).function = { name: 'read', arguments: `{"z":"${'k'.repeat(300)}"}` }),
  'function.arguments': (h) => call(h, 4).function && (call(h, 4).function.arguments = `{"z":"${'k'.repeat(300)}"}`),
}

const OPTIONS = {
  approx: { trigger: { tokens: 300 }, keep: { messages: 1 }, clearToolInputs: true },
  model: { tokenCountMethod: 'model', trigger: { tokens: 100 }, keep: { messages: 1 }, clearToolInputs: true },
  'truncate and clear thinking': {
    edits: [
      { type: 'truncate_tool_results', maxChars: 30 },
      { type: 'clear_thinking', keep: { thinkingTurns: 0 } },
    ],
  },
}

const CALLS = {
  countTokens: (e, h) => e.countTokens(h),
  plan: (e, h) => e.plan(h),
  edit: (e, h) => {
    const { messages, report } = e.edit(h)
    return [messages, report]
  },
  editAsync: async (e, h) => {
    const { messages, report } = await e.editAsync(h)
    return [messages, report]
  },
}

const text = (v) => JSON.stringify(v)

describe('a documented field replaced in place is noticed', () => {
  for (const [shape, build] of Object.entries(SHAPES)) {
    for (const [mode, options] of Object.entries(OPTIONS)) {
      test(`${shape}, ${mode}`, async () => {
        let changed = 0
        for (const [field, change] of Object.entries(CHANGES)) {
          const h = build()
          const editor = new ContextEditor(options)
          for (const c of Object.values(CALLS)) await c(editor, h)
          // A third read of an unchanged message takes the wire form the second one kept (columns.ts).
          editor.countTokens(h)
          const before = text(h)
          try {
            change(h)
          } catch {
            continue // the shape has no such field (a ChatMessage has no tool calls)
          }
          if (text(h) === before) continue // the shape has no such field
          changed++
          for (const [name, c] of Object.entries(CALLS)) {
            assert.equal(text(await c(editor, h)), text(await c(new ContextEditor(options), h)), `${field}: ${name}`)
          }
        }
        assert.ok(changed >= 15, `only ${changed} fields changed`)
      })
    }
  }
})
