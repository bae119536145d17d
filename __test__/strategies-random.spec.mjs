// Seeded random conversations through ContextEditor: every edit and two-edit pipeline, every
// counting method; the output stays valid for the APIs, the input unchanged, the report true to the
// output.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from '../dist/index.js'
import { Rng } from './support/prng.mjs'
import { snapshot } from './support/strategies.mjs'

// ---------------------------------------------------------------------------------------------
// seeded random conversations through the shim

/** A float in [0, 1) per call, from the shared seeded PRNG (support/prng.mjs), so failures reproduce. */
function rng(seed) {
  const source = new Rng(seed)
  return () => source.next()
}

/** A well-formed LangChain 1.x conversation with reasoning, Anthropic tool_use blocks and long results. */
function randomConversation(r) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)]
  const words = (n) => Array.from({ length: n }, () => pick(['alpha', 'beta', 'γάμμα', '日本', '😀', 'x\n'])).join(' ')
  const msgs = []
  if (r() < 0.6) msgs.push(new SystemMessage(words(3)))
  let id = 0
  const turns = 1 + Math.floor(r() * 7)
  for (let t = 0; t < turns; t++) {
    msgs.push(new HumanMessage(words(1 + Math.floor(r() * 6))))
    const steps = Math.floor(r() * 3)
    for (let s = 0; s < steps; s++) {
      const calls = Array.from({ length: 1 + Math.floor(r() * 2) }, () => ({
        id: `c${id++}`,
        name: pick(['search', 'read']),
        args: { q: words(2) },
        type: 'tool_call',
      }))
      const text = r() < 0.5 ? words(3) : ''
      const thinking = r() < 0.4
      const anthropic = r() < 0.5
      let content = text
      if (anthropic || thinking) {
        content = [
          ...(thinking ? [{ type: 'thinking', thinking: words(5), signature: 's' }] : []),
          ...(text ? [{ type: 'text', text }] : []),
          ...(anthropic ? calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })) : []),
        ]
      }
      const additional_kwargs = !thinking && r() < 0.2 ? { reasoning_content: words(4) } : {}
      msgs.push(new AIMessage({ content, tool_calls: calls, additional_kwargs }))
      for (const c of calls) {
        const long = r() < 0.3
        msgs.push(new ToolMessage({ content: long ? words(300) : words(4), tool_call_id: c.id, name: c.name }))
      }
    }
    if (r() < 0.8) msgs.push(new AIMessage(words(4)))
  }
  return msgs
}

function randomEdit(r, last) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)]
  const kinds = ['clear_tool_uses', 'clear_thinking', 'last_n', 'strip_tool_calls', 'strip_and_truncate', 'trim_turns', 'truncate_tool_results']
  if (last) kinds.push('summarize')
  const type = pick(kinds)
  switch (type) {
    case 'clear_tool_uses':
      return { type, trigger: { messages: 1 }, keep: { messages: Math.floor(r() * 3) }, clearToolInputs: r() < 0.5 }
    case 'clear_thinking':
      return { type, keep: r() < 0.2 ? 'all' : { thinkingTurns: Math.floor(r() * 3) } }
    case 'last_n':
    case 'strip_and_truncate':
      return { type, n: Math.floor(r() * 10) }
    case 'trim_turns':
      return { type, maxTurns: 1 + Math.floor(r() * 4) }
    case 'truncate_tool_results':
      return { type, maxChars: pick([1, 30, 101, 600]) }
    case 'summarize':
      return { type, trigger: { messages: 1 }, keep: pick([{ messages: Math.floor(r() * 6) }, { turns: Math.floor(r() * 3) }, { tokens: 40 }]) }
    default:
      return { type }
  }
}

/** The ids of the tool calls an AI message carries, and of its `tool_use` blocks. */
const callIds = (m) => (m.tool_calls ?? []).map((c) => c.id)
const toolUseIds = (m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_use').map((b) => b.id) : [])

describe('random conversations through ContextEditor', () => {
  test('every edit and two-edit pipeline, every counting method: valid for the APIs, input unchanged, report matches the output', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed)
      const history = randomConversation(r)
      const edits = r() < 0.5 ? [randomEdit(r, true)] : [randomEdit(r, false), randomEdit(r, true)]
      const tokenCountMethod = ['approx', 'model', 'estimate'][seed % 3]
      const editor = new ContextEditor({ edits, tokenCountMethod })
      const before = snapshot(history)
      const summarized = []
      const { messages, report } = editor.edit(history, { summarize: (req) => (summarized.push(req), 'S') })
      const at = `seed ${seed}, ${tokenCountMethod}, edits ${JSON.stringify(edits)}`
      assert.deepEqual(snapshot(history), before, `${at}: input unchanged`)
      // Tool results follow their calls; calls have results; tool_use blocks mirror the calls.
      const called = new Set()
      for (const [i, m] of messages.entries()) {
        if (m instanceof ToolMessage) assert.ok(called.has(m.tool_call_id), `${at}: result ${i} without its call`)
        if (m instanceof AIMessage) {
          for (const c of callIds(m)) called.add(c)
          assert.deepEqual(toolUseIds(m), Array.isArray(m.content) && toolUseIds(m).length ? callIds(m) : [], `${at}: tool_use blocks of ${i}`)
          for (const c of callIds(m)) {
            assert.ok(
              messages.some((t, j) => j > i && t instanceof ToolMessage && t.tool_call_id === c),
              `${at}: call ${c} of ${i} without its result`,
            )
          }
          if (callIds(m).length === 0) {
            const text = typeof m.content === 'string' ? m.content : m.content.map((b) => b.text ?? '').join('')
            const blocks = Array.isArray(m.content) ? m.content.length : 0
            assert.ok(text !== '' || blocks > 0, `${at}: an empty assistant message ${i} was left`)
          }
        }
      }
      const lead = history.findIndex((m) => !(m instanceof SystemMessage))
      for (let i = 0; i < (lead < 0 ? history.length : lead); i++) assert.equal(messages[i], history[i], `${at}: system ${i}`)
      assert.equal(report.warnings.filter((w) => w.code === 'dangling_tool_call').length, 0, at)
      // Without a summary, the report describes the output exactly.
      if (summarized.length === 0) {
        assert.equal(report.messagesAfter, messages.length, `${at}: messagesAfter`)
        assert.equal(report.tokensAfter, editor.countTokens(messages).total, `${at}: tokensAfter == recount`)
      } else {
        assert.equal(messages.filter((m) => m.additional_kwargs?.lc_source === 'summarization').length, 1, at)
      }
    }
  })
})
