// The change check behind sessions and the conversion memo (`fingerprint` / `unchanged`): for every
// message shape, an untouched message passes, and every change to a field the conversion reads is
// seen, whether the field is reassigned or the object holding it is edited in place.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as Messages1 from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { fingerprint, unchanged } from '../dist/wire.js'

const require = createRequire(import.meta.url)
const Messages03 = require('@langchain/core-03/messages')

/** Each shape: how to build a message from LangChain-style fields, and the object holding them. */
const shapes = [
  ...[
    ['@langchain/core 1.x', Messages1],
    ['@langchain/core 0.3', Messages03],
  ].flatMap(([version, M]) => [
    {
      label: `${version} instance`,
      ai: (f) => new M.AIMessage(f),
      tool: (f) => new M.ToolMessage(f),
      human: (f) => new M.HumanMessage(f),
      fields: (m) => m,
    },
    {
      label: `${version} ChatMessage`,
      // A ChatMessage keeps no tool calls of its own; conversion still reads the field.
      ai: ({ tool_calls, ...f }) => Object.assign(new M.ChatMessage({ ...f, role: 'assistant' }), tool_calls ? { tool_calls } : {}),
      tool: (f) => new M.ToolMessage(f),
      human: (f) => new M.ChatMessage({ ...f, role: 'user' }),
      fields: (m) => m,
    },
  ]),
  {
    label: 'LangChain dict',
    ai: (f) => ({ type: 'ai', ...f }),
    tool: (f) => ({ type: 'tool', ...f }),
    human: (f) => ({ type: 'human', ...f }),
    fields: (m) => m,
  },
  {
    label: 'StoredMessage',
    ai: (f) => ({ type: 'ai', data: { ...f } }),
    tool: (f) => ({ type: 'tool', data: { ...f } }),
    human: (f) => ({ type: 'human', data: { ...f } }),
    fields: (m) => m.data,
  },
  {
    label: 'OpenAI',
    ai: ({ tool_calls, ...f }) => ({
      role: 'assistant',
      ...f,
      tool_calls: tool_calls?.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })),
    }),
    tool: (f) => ({ role: 'tool', ...f }),
    human: (f) => ({ role: 'user', ...f }),
    fields: (m) => m,
  },
]

const openai = (shape) => shape.label === 'OpenAI'

/** Messages of every role, with metadata objects, a marker, reasoning, content blocks and tool calls. */
function messages(shape) {
  return {
    ai: shape.ai({
      content: [
        { type: 'text', text: 'let me look', id: 'b0' },
        { type: 'file', mime_type: 'image/png', data: 'AAAA' },
        { type: 'text', text: undefined },
      ],
      tool_calls: [
        { id: 'c1', name: 'read', args: { path: 'a' }, type: 'tool_call' },
        { id: 'c2', name: 'grep', args: { q: 'x' }, type: 'tool_call' },
      ],
      additional_kwargs: {},
      response_metadata: {},
    }),
    aiWithReasoning: shape.ai({ content: 'done', additional_kwargs: { reasoning_content: 'because' }, response_metadata: {} }),
    cleared: shape.tool({
      content: '[cleared]',
      tool_call_id: 'c0',
      name: 'read',
      additional_kwargs: {},
      response_metadata: { context_editing: { cleared: true, strategy: 'clear_tool_uses', cleared_tool_inputs: ['c0'] } },
    }),
    tool: shape.tool({ content: 'file text', tool_call_id: 'c1', name: 'read', additional_kwargs: {}, response_metadata: {} }),
    human: shape.human({ content: 'hello', additional_kwargs: {}, response_metadata: {} }),
  }
}

/** Each change: which message it applies to, and the edit (on the message or the object holding its fields). */
const changes = [
  ['content reassigned', 'human', (m, f) => (f.content = 'hello!')],
  ['content reassigned to an equal-looking array', 'human', (m, f) => (f.content = [{ type: 'text', text: 'hello' }])],
  ['name reassigned', 'tool', (m, f) => (f.name = 'grep')],
  ['tool_call_id reassigned', 'tool', (m, f) => (f.tool_call_id = 'c2')],
  ['response_metadata reassigned', 'tool', (m, f) => (f.response_metadata = { context_editing: { cleared: true } })],
  ['marker added in place', 'tool', (m, f) => (f.response_metadata.context_editing = { cleared: true })],
  ['marker replaced in place', 'cleared', (m, f) => (f.response_metadata.context_editing = { cleared: true })],
  ['marker removed in place', 'cleared', (m, f) => delete f.response_metadata.context_editing],
  ['marker cleared flag edited', 'cleared', (m, f) => (f.response_metadata.context_editing.cleared = false)],
  ['marker truncated flag added', 'cleared', (m, f) => (f.response_metadata.context_editing.truncated = true)],
  ['marker cleared_tool_inputs reassigned', 'cleared', (m, f) => (f.response_metadata.context_editing.cleared_tool_inputs = [])],
  ['additional_kwargs reassigned', 'human', (m, f) => (f.additional_kwargs = { reasoning_content: 'hmm' })],
  ['reasoning_content added to additional_kwargs', 'human', (m, f) => (f.additional_kwargs.reasoning_content = 'hmm')],
  ['reasoning added to additional_kwargs', 'ai', (m, f) => (f.additional_kwargs.reasoning = { summary: 'x' })],
  ['reasoning_content edited in additional_kwargs', 'aiWithReasoning', (m, f) => (f.additional_kwargs.reasoning_content = 'so')],
  ['reasoning_content removed from additional_kwargs', 'aiWithReasoning', (m, f) => delete f.additional_kwargs.reasoning_content],
  ['a content block replaced', 'ai', (m, f) => (f.content[0] = { type: 'text', text: 'let me look', id: 'b0' })],
  ['a content block appended', 'ai', (m, f) => f.content.push({ type: 'text', text: 'more' })],
  ['a block type edited', 'ai', (m, f) => (f.content[0].type = 'thinking')],
  ['a block text edited', 'ai', (m, f) => (f.content[0].text = 'let me see')],
  ['a block id edited', 'ai', (m, f) => (f.content[0].id = 'b9')],
  ['a text block losing its text', 'ai', (m, f) => delete f.content[0].text],
  // `text: undefined` counts nothing; no `text` at all counts the block's JSON.
  ['a text block losing its undefined text', 'ai', (m, f) => delete f.content[2].text],
  ['a file block MIME type edited', 'ai', (m, f) => (f.content[1].mime_type = 'application/pdf')],
  ['tool_calls reassigned', 'ai', (m, f) => (f.tool_calls = [...f.tool_calls])],
  ['a tool call appended', 'ai', (m, f) => f.tool_calls.push({ ...f.tool_calls[0], id: 'c3' })],
  ['a tool call removed', 'ai', (m, f) => f.tool_calls.pop()],
  ['a tool call replaced', 'ai', (m, f) => (f.tool_calls[1] = { ...f.tool_calls[1] })],
  ['a tool call id edited', 'ai', (m, f) => (f.tool_calls[1].id = 'c9')],
  ['a tool call name edited', 'ai', (m, f, shape) => (openai(shape) ? (f.tool_calls[1].function.name = 'find') : (f.tool_calls[1].name = 'find'))],
  ['a tool call args reassigned', 'ai', (m, f, shape) => (openai(shape) ? (f.tool_calls[1].function.arguments = '{}') : (f.tool_calls[1].args = {}))],
  [
    'a tool call function replaced',
    'ai',
    (m, f, shape) =>
      openai(shape) ? (f.tool_calls[0].function = { ...f.tool_calls[0].function }) : (f.tool_calls[0].function = { name: 'read', arguments: '{}' }),
  ],
]

/** Changes to what says which kind of message it is, by shape. */
const kindChanges = {
  instance: [['type reassigned', 'human', (m) => (m.type = 'ai')]],
  ChatMessage: [['role reassigned', 'human', (m) => (m.role = 'assistant')]],
  dict: [
    ['type reassigned', 'human', (m) => (m.type = 'ai')],
    ['a data object added (now a StoredMessage)', 'human', (m) => (m.data = { content: 'hello' })],
  ],
  StoredMessage: [
    ['type reassigned', 'human', (m) => (m.type = 'ai')],
    ['data reassigned', 'human', (m) => (m.data = { ...m.data })],
  ],
  OpenAI: [
    ['role reassigned', 'human', (m) => (m.role = 'system')],
    ['a type added', 'human', (m) => (m.type = 'human')],
    ['reasoning_content added', 'ai', (m) => (m.reasoning_content = 'thinking')],
  ],
}

for (const shape of shapes) {
  describe(shape.label, () => {
    test('an untouched message passes, check after check', () => {
      for (const [role, m] of Object.entries(messages(shape))) {
        const fp = fingerprint(m)
        assert.ok(Array.isArray(fp), role)
        for (let k = 0; k < 3; k++) assert.equal(unchanged(m, fp), true, `${role} check ${k}`)
        // A fresh fingerprint of the same message matches too.
        assert.equal(unchanged(m, fingerprint(m)), true, role)
      }
    })

    test('another message with the same fields does not pass', () => {
      const a = messages(shape)
      const b = messages(shape)
      for (const role of Object.keys(a)) assert.equal(unchanged(b[role], fingerprint(a[role])), false, role)
    })

    const kind = Object.keys(kindChanges).find((k) => shape.label.endsWith(k))
    for (const [what, role, edit] of [...changes, ...(kindChanges[kind] ?? [])]) {
      // Conversion never reads `type` on a 0.3 instance (its class says), so neither does the check.
      if (what === 'type reassigned' && shape.label === '@langchain/core 0.3 instance') continue
      test(`notices: ${what}`, () => {
        const all = messages(shape)
        const m = all[role]
        const fp = fingerprint(m)
        edit(m, shape.fields(m), shape)
        assert.equal(unchanged(m, fp), false)
        // The others, untouched, still pass.
        for (const [other, o] of Object.entries(all)) if (o !== m) assert.equal(unchanged(o, fingerprint(o)), true, other)
      })
    }
  })
}

test('non-objects have no fingerprint and never pass', () => {
  for (const v of [null, undefined, 'text', 3, ['a']]) {
    assert.equal(fingerprint(v), undefined)
    assert.equal(unchanged(v, undefined), false)
  }
  const fp = fingerprint(new Messages1.HumanMessage('hi'))
  for (const v of [null, undefined, 'hi', ['hi']]) assert.equal(unchanged(v, fp), false)
  assert.equal(unchanged(new Messages1.HumanMessage('hi'), undefined), false)
})

test('a warm editor counts in-place block edits like a fresh one', () => {
  // A file block counts as an image only with an image MIME type; a text block without `text`
  // counts by its JSON: both are read from inside the content array, which stays the same object.
  const history = [
    new Messages1.HumanMessage({
      content: [
        { type: 'file', mime_type: 'image/png', data: 'A'.repeat(4000) },
        { type: 'text', text: 'what is this?' },
      ],
    }),
    new Messages1.AIMessage('a picture'),
  ]
  const editor = new ContextEditor({ trigger: { tokens: 1_000_000 }, keep: { messages: 1 } })
  const fresh = () => new ContextEditor({ trigger: { tokens: 1_000_000 }, keep: { messages: 1 } })
  const before = editor.countTokens(history).total
  assert.equal(before, fresh().countTokens(history).total)
  history[0].content[0].mime_type = 'application/octet-stream'
  const after = editor.countTokens(history).total
  assert.notEqual(after, before)
  assert.equal(after, fresh().countTokens(history).total)
  history[0].content[1].text = undefined
  const blank = editor.countTokens(history).total
  assert.equal(blank, fresh().countTokens(history).total)
  delete history[0].content[1].text
  const deleted = editor.countTokens(history).total
  assert.equal(deleted, fresh().countTokens(history).total)
  assert.ok(deleted > blank, 'the block now counts by its JSON')
})
