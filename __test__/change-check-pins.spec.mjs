// A pin added in place to a message the editor has seen (ts/wire/convert.ts `pinnedByMarker`:
// `pinned: true` in `additional_kwargs`, `response_metadata`, its `context_editing`, or `metadata`)
// is noticed by the change check (ts/wire/fingerprint.ts) without `invalidate`: the warm editor's
// next call equals a fresh editor's, in every message shape and counting mode.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'

const TURNS = 6
const specs = () => {
  const out = []
  for (let i = 0; i < TURNS; i++) {
    out.push({ type: 'human', content: `question ${i}` })
    out.push({ type: 'ai', content: '', tool_calls: [{ id: `c${i}`, name: 'read', args: { i } }], additional_kwargs: {}, response_metadata: {} })
    out.push({
      type: 'tool',
      tool_call_id: `c${i}`,
      name: 'read',
      content: `result ${i} `.repeat(60),
      additional_kwargs: {},
      response_metadata: {},
      metadata: {},
    })
  }
  return out
}

const SHAPES = {
  'LangChain instance': () =>
    specs().map(({ type, metadata, ...f }) => {
      const m = type === 'human' ? new HumanMessage(f) : type === 'ai' ? new AIMessage(f) : new ToolMessage(f)
      if (metadata) m.metadata = metadata
      return m
    }),
  'LangChain dict': () => specs(),
  StoredMessage: () => specs().map(({ type, ...data }) => ({ type, data })),
  OpenAI: () =>
    specs().map((s) => {
      const role = { human: 'user', ai: 'assistant', tool: 'tool' }[s.type]
      const m = { role, content: s.content, additional_kwargs: s.additional_kwargs, response_metadata: s.response_metadata }
      if (s.tool_calls) m.tool_calls = s.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }))
      if (s.tool_call_id) m.tool_call_id = s.tool_call_id
      if (s.metadata) m.metadata = s.metadata
      return m
    }),
}

/** Where the message keeps its fields. */
const fieldsOf = (m) => (m.data && typeof m.type === 'string' && !m.role ? m.data : m)

const PINS = {
  'additional_kwargs.pinned': (f) => (f.additional_kwargs.pinned = true),
  'response_metadata.pinned': (f) => (f.response_metadata.pinned = true),
  'response_metadata.context_editing.pinned (new marker)': (f) => (f.response_metadata.context_editing = { pinned: true }),
  'metadata.pinned': (f) => (f.metadata.pinned = true),
  'metadata (a new field)': (f) => (f.metadata = { pinned: true }),
}

const json = (v) => JSON.parse(JSON.stringify(v))

for (const tokenCountMethod of ['approx', 'model']) {
  for (const [shape, make] of Object.entries(SHAPES)) {
    test(`${shape}, ${tokenCountMethod}: a pin set in place is seen by a warm editor`, () => {
      const options = { trigger: { tokens: 200 }, keep: { messages: 1 }, tokenCountMethod }
      for (const [where, pin] of Object.entries(PINS)) {
        const messages = make()
        const warm = new ContextEditor(options)
        const before = warm.edit(messages)
        warm.edit(messages)
        const target = 2 // the first tool result: cleared before the pin
        assert.notEqual(fieldsOf(before.messages[target]).content, fieldsOf(messages[target]).content, `${where}: cleared before the pin`)
        pin(fieldsOf(messages[target]))
        const after = warm.edit(messages)
        const fresh = new ContextEditor(options).edit(messages)
        assert.deepEqual(json(after.messages), json(fresh.messages), `${where}: warm = fresh`)
        assert.deepEqual(json(after.messages[target]), json(messages[target]), `${where}: the pinned message is kept as it is`)
      }
    })
  }
}
