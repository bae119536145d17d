// Cache-aware editing: stable clearing across calls, cache breakpoints on the messages,
// OpenAI input left alone, the report's stable prefix, and option errors.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, mapChatMessagesToStoredMessages } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError } from '../dist/index.js'
import { contextEditingMiddlewareObject } from '../dist/xpert/index.js'

/** A LangChain run: `turns` tool calls, each result `size` characters. */
function run(turns, size = 400) {
  const h = [new HumanMessage({ content: 'fix the bug', id: 'u0' })]
  for (let t = 0; t < turns; t++) {
    h.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { p: t } }], id: `a${t}` }))
    h.push(new ToolMessage({ content: `${t}:`.padEnd(size, 'x'), tool_call_id: `c${t}`, name: 'read', id: `t${t}` }))
  }
  return h
}

/** The same run as OpenAI chat messages. */
function openaiRun(turns, size = 400) {
  const h = [{ role: 'user', content: 'fix the bug' }]
  for (let t = 0; t < turns; t++) {
    h.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${t}`, type: 'function', function: { name: 'read', arguments: `{"p":${t}}` } }] })
    h.push({ role: 'tool', tool_call_id: `c${t}`, content: `${t}:`.padEnd(size, 'x') })
  }
  return h
}

/** What a provider sees of a message (content with cache_control stripped, calls, ids). */
function sent(m) {
  const content = Array.isArray(m.content) ? m.content.map((b) => ({ ...b, cache_control: undefined })) : m.content
  const c = Array.isArray(content) && content.length === 1 && content[0].type === 'text' ? content[0].text : content
  return JSON.stringify([m._getType?.() ?? m.role, c, m.tool_calls ?? null, m.tool_call_id ?? null])
}

const marks = (messages) => messages.flatMap((m, i) => (Array.isArray(m.content) && m.content.some((b) => b?.cache_control) ? [i] : []))

const STABLE = { trigger: { tokens: 2000 }, keep: { messages: 3 }, stable: { stepResults: 5 } }

test('stable mode: consecutive calls send the previous request as an identical prefix until a step', () => {
  const editor = new ContextEditor(STABLE)
  const h = run(70)
  let prev
  let steps = 0
  let calls = 0
  for (let t = 1; t <= 70; t++) {
    const seen = h.slice(0, 1 + 2 * t)
    const { messages, report } = editor.edit(seen)
    assert.equal(report.cleared.length % 5, 0)
    if (prev) {
      const same = prev.messages.every((m, i) => sent(m) === sent(messages[i]))
      if (report.cleared.length === prev.cleared) {
        assert.ok(same, `call ${t}: same boundary, same prefix`)
        assert.equal(report.stablePrefixMessages, prev.messages.length)
      } else {
        steps++
        assert.ok(report.cleared.length > prev.cleared)
        assert.ok(report.stablePrefixMessages < prev.messages.length)
      }
      if (prev.cleared > 0) calls++
    }
    prev = { messages, cleared: report.cleared.length }
  }
  assert.ok(calls > 40 && steps * 4 <= calls, `${steps} steps in ${calls} calls`)
})

/** A LangChain run with mixed result sizes (100 to 2,000 characters), one or two calls per turn. */
function mixedRun(turns) {
  const h = [new HumanMessage({ content: 'go', id: 'u' })]
  for (let t = 0; t < turns; t++) {
    const ids = Array.from({ length: 1 + (t % 2) }, (_, k) => `c${t}_${k}`)
    h.push(new AIMessage({ content: '', tool_calls: ids.map((id) => ({ id, name: 'read', args: {} })), id: `a${t}` }))
    ids.forEach((id, k) => h.push(new ToolMessage({ content: 'z'.repeat(100 + ((t * 7 + k * 13) % 20) * 100), tool_call_id: id, name: 'read' })))
    if (t % 5 === 4) h.push(new AIMessage({ content: 'done', id: `d${t}` }), new HumanMessage({ content: 'next', id: `u${t}` }))
  }
  return h
}

test('stable: true steps only when a step frees 3x what it rewrites; the request stays under the ceiling', () => {
  const options = { trigger: { tokens: 8000 }, keep: { messages: 3 }, stable: true, tokenCountMethod: 'model' }
  const editor = new ContextEditor(options)
  const h = mixedRun(100)
  const ends = h.flatMap((m, i) => (i > 0 && m._getType() === 'ai' ? [i] : [])).concat([h.length])
  let prev
  let steps = 0
  let calls = 0
  for (const end of ends) {
    const seen = h.slice(0, end)
    const { messages, report } = editor.edit(seen)
    assert.ok(report.tokensAfter <= 8000, `call at ${end}: ${report.tokensAfter}`)
    if (prev) {
      const before = new Set(prev.cleared)
      assert.ok(
        prev.cleared.every((i) => report.cleared.some((c) => c.index === i)),
        'a cleared result stays cleared',
      )
      if (report.cleared.length === prev.cleared.length) {
        assert.ok(
          prev.messages.every((m, i) => sent(m) === sent(messages[i])),
          `call at ${end}: same boundary, same prefix`,
        )
      } else {
        steps++
        const gain = report.cleared.filter((c) => !before.has(c.index)).reduce((a, c) => a + c.tokensFreed, 0)
        const rewritten = prev.tokensAfter - report.stablePrefixTokens - gain
        const forced = report.tokensAfter + gain > 8000
        assert.ok(forced || gain + 10 >= 3 * rewritten, `call at ${end}: frees ${gain}, rewrites ${rewritten}`)
      }
      if (prev.triggered) calls++
    }
    prev = { messages, cleared: report.cleared.map((c) => c.index), tokensAfter: report.tokensAfter, triggered: report.triggered }
  }
  assert.ok(calls > 80 && steps > 3 && steps * 3 < calls, `${steps} steps in ${calls} calls`)
  // Stateless: a fresh editor plans the last call the same.
  assert.deepEqual(new ContextEditor(options).plan(h), editor.plan(h))
})

test('stable mode is deterministic across editors and calls (stateless)', () => {
  const h = run(50)
  const a = new ContextEditor(STABLE).plan(h)
  const b = new ContextEditor(STABLE).plan(h)
  const e = new ContextEditor(STABLE)
  e.plan(run(20))
  assert.deepEqual(a, b)
  assert.deepEqual(e.plan(h), a)
})

test('the default mode moves the boundary on every call once triggered (and skips the stable-prefix pass)', () => {
  const editor = new ContextEditor({ trigger: { tokens: 2000 }, keep: { messages: 3 } })
  const h = run(40)
  let previous
  for (let t = 30; t <= 40; t++) {
    const { messages, report } = editor.edit(h.slice(0, 1 + 2 * t))
    if (previous) {
      // The first message that differs from the previous request's output sits before its end:
      // the cleared boundary moved, so a prefix cache breaks there.
      let j = 0
      while (j < previous.length && messages[j].content === previous[j].content) j++
      assert.ok(j < previous.length, `call ${t}`)
    }
    // Without `stable` or `cacheBreakpoints` the history is planned once, and the field stays 0.
    assert.equal(report.stablePrefixMessages, 0)
    previous = messages
  }
})

test('the ceiling is never exceeded while anything outside the kept window can still be cleared', () => {
  const editor = new ContextEditor({ ...STABLE, stable: { stepResults: 40 }, tokenCountMethod: 'model' })
  const h = run(60, 800)
  for (let t = 1; t <= 60; t++) {
    const { report } = editor.edit(h.slice(0, 1 + 2 * t))
    assert.ok(report.tokensAfter <= 2000, `call ${t}: ${report.tokensAfter}`)
  }
})

test('breakpoints: end, current and previous boundary as cache_control on LangChain messages', () => {
  const editor = new ContextEditor({ ...STABLE, cacheBreakpoints: true })
  const h = run(40)
  const { messages, report } = editor.edit(h)
  const at = marks(messages)
  assert.equal(at.length, 3)
  assert.equal(at[2], messages.length - 1)
  const cleared = report.cleared.map((c) => c.index)
  assert.deepEqual(at.slice(0, 2), [cleared[29], cleared[34]])
  const last = messages.at(-1)
  assert.equal(last._getType(), 'tool')
  assert.equal(last.constructor, ToolMessage)
  assert.equal(last.tool_call_id, 'c39')
  assert.equal(last.id, 't39')
  assert.deepEqual(last.content, [{ type: 'text', text: h.at(-1).content, cache_control: { type: 'ephemeral' } }])
  assert.deepEqual(messages[at[1]].content, [{ type: 'text', text: '[cleared]', cache_control: { type: 'ephemeral' } }])
  assert.equal(messages[at[1]].response_metadata.context_editing.cleared, true)
  // The input is untouched.
  assert.equal(h.at(-1).content.length, 400)
  assert.equal(typeof h[cleared[34]].content, 'string')
  // The plan names them.
  assert.deepEqual(
    editor
      .plan(h)
      .ops.filter((o) => o.type === 'cache_breakpoint')
      .map((o) => o.index),
    at,
  )
})

test('breakpoints count the ones already set (messages, system prompt, tools): at most 4', () => {
  const editor = new ContextEditor({ ...STABLE, cacheBreakpoints: 'anthropic' })
  const h = run(40)
  const marked = h.slice()
  marked[0] = new HumanMessage({ content: [{ type: 'text', text: 'fix the bug', cache_control: { type: 'ephemeral' } }] })
  assert.equal(marks(editor.edit(marked).messages).length, 4) // 1 existing + 3
  const system = new SystemMessage({ content: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }] })
  const tools = [{ name: 'read', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }]
  const out = editor.edit(marked, { systemPrompt: system, tools }).messages
  assert.equal(marks(out).length, 2) // 3 existing + the end
  assert.equal(marks(out)[1], out.length - 1)
  const full = [...marked]
  full[1] = new AIMessage({ content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }], tool_calls: h[1].tool_calls })
  assert.deepEqual(marks(editor.edit(full, { systemPrompt: system, tools }).messages), [0, 1]) // 4 in use: none added
})

test('OpenAI-shaped messages are left alone by breakpoints', () => {
  const editor = new ContextEditor({ ...STABLE, cacheBreakpoints: true })
  const h = openaiRun(40)
  const plan = editor.plan(h)
  assert.ok(plan.ops.some((o) => o.type === 'cache_breakpoint'))
  const { messages, report } = editor.edit(h)
  assert.equal(report.cleared.length, 35)
  assert.equal(messages.at(-1), h.at(-1)) // same object: nothing applied
  for (const m of messages) assert.ok(!Array.isArray(m.content), 'no content blocks added')
  assert.ok(!JSON.stringify(messages).includes('cache_control'))
})

test('StoredMessage dumps get the breakpoint inside data', () => {
  const editor = new ContextEditor({ ...STABLE, cacheBreakpoints: true })
  const stored = mapChatMessagesToStoredMessages(run(10))
  const { messages } = editor.edit(stored)
  const last = messages.at(-1)
  assert.equal(last.type, 'tool')
  assert.equal(last.data.tool_call_id, 'c9')
  assert.deepEqual(last.data.content[0].cache_control, { type: 'ephemeral' })
  assert.equal(typeof stored.at(-1).data.content, 'string')
})

test('the middleware passes stable and cacheBreakpoints through', async () => {
  const mw = contextEditingMiddlewareObject({ ...STABLE, cacheBreakpoints: true })
  const h = run(40)
  let seen
  await mw.wrapModelCall({ messages: h }, (req) => {
    seen = req.messages
    return 'ok'
  })
  assert.equal(marks(seen).length, 3)
  assert.equal(h.filter((m) => Array.isArray(m.content)).length, 0)
})

test('options are validated with paths', () => {
  const bad = [
    [{ stable: 5 }, 'stable'],
    [{ stable: { stepResults: 0 } }, 'stable.stepResults'],
    [{ stable: { steps: 2 } }, 'stable.steps'],
    [{ stable: { stepRatio: 0 } }, 'stable.stepRatio'],
    [{ stable: { stepRatio: 2, stepTokens: 900 } }, 'stable.stepTokens'],
    [{ cacheBreakpoints: 'openai' }, 'cacheBreakpoints'],
    [{ edits: [{ type: 'clear_tool_uses', stable: { maxTokens: 1.5 } }] }, 'edits[0].stable.maxTokens'],
  ]
  for (const [options, path] of bad) {
    assert.throws(
      () => new ContextEditor(options),
      (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.path === path,
      JSON.stringify(options),
    )
  }
  assert.doesNotThrow(() => new ContextEditor({ stable: true, cacheBreakpoints: false }))
  assert.doesNotThrow(() => new ContextEditor({ stable: { stepRatio: 1.5, maxTokens: 90000 }, cacheBreakpoints: 'anthropic' }))
})
