// A Mastra summary is a message of its own (`id`, `role`, `createdAt`, `content.parts`), and memory
// and UIs key messages by id: every summary gets an id no other summary has, even when several
// conversations are summarized in the same millisecond.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { ContextEditor } from '../dist/index.js'

const message = (id, role, text) => ({ id, role, createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text }] } })

test('Mastra summaries written at once, for many conversations, all have distinct ids', () => {
  const editor = new ContextEditor({ edits: [{ type: 'summarize', trigger: { messages: 4 }, keep: { messages: 2 } }] })
  const ids = new Set()
  for (let t = 0; t < 50; t++) {
    const thread = Array.from({ length: 6 }, (_, k) => message(`t${t}-${k}`, k % 2 ? 'assistant' : 'user', `turn ${k} of thread ${t}`))
    const { messages } = editor.edit(thread, { format: 'mastra', summarize: () => `summary of thread ${t}` })
    const summary = messages[0]
    assert.match(summary.content.parts[0].text, new RegExp(`summary of thread ${t}$`))
    assert.equal(summary.content.format, 2)
    ids.add(summary.id)
  }
  assert.equal(ids.size, 50)
})
