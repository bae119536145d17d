// Usage anchors against what providers and hosts really hand over: zeros (a provider that left the
// count out), absurd numbers, an anchored AI message edited after its call, messages inserted or
// removed before it, and a recovery whose error states a size far beyond what was counted. None of
// them may fail a model call, and none may be used as the request's size; the report says why.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from 'context-editor'
import { contextEditingMiddlewareObject } from 'context-editor/xpert'

/** A conversation of `n` read_file calls with 2,000-character results. */
function history(n = 3) {
  const out = [new HumanMessage('Read the files.')]
  for (let i = 0; i < n; i++) {
    out.push(new AIMessage({ content: '', tool_calls: [{ id: `c${i}`, name: 'read_file', args: { path: `f${i}` } }] }))
    out.push(new ToolMessage({ tool_call_id: `c${i}`, name: 'read_file', content: `${i} `.repeat(1000) }))
  }
  return out
}

const approx = (messages) => new ContextEditor({ trigger: [] }).countTokens(messages).total
const reply = (usage, content = 'ok') => new AIMessage({ content, usage_metadata: usage })
const usage = (input, output = 7) => ({ input_tokens: input, output_tokens: output, total_tokens: input + output })

/**
 * Two model calls through one middleware: the first answers `first` (an AI message), the second
 * sees the history with that answer (changed by `change`, if given) and a new question. Returns the
 * second call's report, what the second call sent and that history.
 */
async function secondCall(options, first, change = (m) => m) {
  const reports = []
  const mw = contextEditingMiddlewareObject({ trigger: { tokens: 1e9 }, ...options, onReport: (r) => reports.push(r) })
  const messages = history()
  const answer = await mw.wrapModelCall({ messages }, async () => first)
  const next = change([...messages, answer, new HumanMessage('And then?')])
  let sent
  await mw.wrapModelCall({ messages: next }, async (request) => {
    sent = request.messages
    return reply(usage(1))
  })
  return { report: reports[1], first: reports[0], sent, next }
}

describe('usage a provider reports that is no size of the request', () => {
  test('zero input tokens (a provider that left the count out, as Ollama for a cached prompt) is no usage: the fallback counts', async () => {
    const shapes = [
      { usage_metadata: usage(0, 0) },
      { usage_metadata: usage(0, 12) },
      { response_metadata: { usage: { prompt_tokens: 0, completion_tokens: 0 } } },
      { response_metadata: { usage: { input_tokens: 0, output_tokens: 3, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } },
      { response_metadata: { tokenUsage: { promptTokens: 0, completionTokens: 0 } } },
    ]
    for (const fields of shapes) {
      // The first call is anchored too (its answer follows an anchored call), so no count of what
      // was sent is there to compare a report with: zero must still not be taken as the size.
      const reports = []
      const mw = contextEditingMiddlewareObject({ tokenCountMethod: 'usage', trigger: { tokens: 1e9 }, onReport: (r) => reports.push(r) })
      const messages = history()
      const a1 = await mw.wrapModelCall({ messages }, async () => reply(usage(3000)))
      const h2 = [...messages, a1, new HumanMessage('next')]
      const a2 = await mw.wrapModelCall({ messages: h2 }, async () => new AIMessage({ content: 'ok', ...fields }))
      assert.equal(reports[1].usageAnchor.status, 'used')
      const h3 = [...h2, a2, new HumanMessage('and then?')]
      await mw.wrapModelCall({ messages: h3 }, async () => reply(usage(1)))
      const anchor = reports[2].usageAnchor
      assert.equal(anchor.status, 'none', JSON.stringify(fields))
      assert.equal(anchor.index, h3.length - 2)
      assert.equal(reports[2].tokensBefore, approx(h3), 'counted with the fallback, not 0 + what follows')
    }
  })

  test('an absurd input (10^12 tokens) is "implausible" in usage mode: never the size; the fallback counts', async () => {
    const { report, next } = await secondCall({ tokenCountMethod: 'usage' }, reply(usage(1e12)))
    assert.equal(report.usageAnchor.status, 'implausible')
    assert.equal(report.usageAnchor.input, 1e12)
    assert.equal(report.usageAnchor.tokens, undefined)
    assert.equal(report.tokensBefore, approx(next))
  })

  test('an absurd output (10^12 tokens) is "implausible" too', async () => {
    const { report, next } = await secondCall({ tokenCountMethod: 'usage' }, reply(usage(3000, 1e12)))
    assert.equal(report.usageAnchor.status, 'implausible')
    assert.equal(report.tokensBefore, approx(next))
  })

  test('an absurd input with approx counting: later calls go to the model, uncorrected (before: INVALID_CONTEXT on every later call)', async () => {
    for (const input of [1e12, Number.MAX_SAFE_INTEGER]) {
      const reports = []
      const mw = contextEditingMiddlewareObject({ trigger: { tokens: 1e9 }, onReport: (r) => reports.push(r) })
      let messages = history()
      let calls = 0
      // Call 1 answers with usage; call 2's anchor is its answer, seen; call 3 would be corrected.
      for (const answer of [reply(usage(3000)), reply(usage(input)), reply(usage(input))]) {
        const a = await mw.wrapModelCall({ messages }, async () => (calls++, answer))
        messages = [...messages, a, new HumanMessage('next')]
      }
      await mw.wrapModelCall({ messages }, async () => (calls++, reply(usage(1))))
      assert.equal(calls, 4, 'every call reached the model')
      assert.equal(reports.at(-1).tokenCorrection, undefined)
      assert.equal(reports.at(-1).tokensBefore, approx(messages))
    }
  })

  test('NaN, negative, fractional, string and missing numbers are no usage', async () => {
    for (const bad of [usage(NaN), usage(-5), usage(2.5), { input_tokens: '900', output_tokens: 3 }, { input_tokens: 900 }, usage(Infinity)]) {
      const { report, next } = await secondCall({ tokenCountMethod: 'usage' }, reply(bad))
      assert.equal(report.usageAnchor.status, 'none', JSON.stringify(bad))
      assert.equal(report.tokensBefore, approx(next))
    }
  })
})

describe('a history changed at or before the anchor is never anchored', () => {
  const anchoredReply = () => reply(usage(3000, 300), 'The files say: ' + 'x'.repeat(1200))

  test('the anchored AI message itself edited in place (its text shortened): stale at its index', async () => {
    const { report, next } = await secondCall({ tokenCountMethod: 'usage' }, anchoredReply(), (m) => {
      m.at(-2).content = 'short'
      return m
    })
    assert.equal(report.usageAnchor.status, 'stale')
    assert.equal(report.usageAnchor.changedAt, next.length - 2)
    assert.equal(report.tokensBefore, approx(next))
  })

  test('the anchored AI message replaced by another with the same usage but other content: stale', async () => {
    const { report, next } = await secondCall({ tokenCountMethod: 'usage' }, anchoredReply(), (m) => {
      const copy = [...m]
      copy[copy.length - 2] = new AIMessage({ content: 'another answer', usage_metadata: m.at(-2).usage_metadata })
      return copy
    })
    assert.equal(report.usageAnchor.status, 'stale')
    assert.equal(report.tokensBefore, approx(next))
  })

  test('its tool calls removed in place: stale', async () => {
    const answer = new AIMessage({ content: '', tool_calls: [{ id: 'z', name: 'read_file', args: { path: 'big' } }], usage_metadata: usage(3000, 40) })
    const { report } = await secondCall({ tokenCountMethod: 'usage' }, answer, (m) => {
      m.at(-2).tool_calls.length = 0
      return m.slice(0, -1).concat(new ToolMessage({ tool_call_id: 'z', name: 'read_file', content: 'r' }))
    })
    assert.equal(report.usageAnchor.status, 'stale')
  })

  test('an equal copy of the anchored AI message (same text, same usage) is the same answer: used', async () => {
    const { report } = await secondCall({ tokenCountMethod: 'usage' }, anchoredReply(), (m) => {
      const copy = [...m]
      const a = m.at(-2)
      copy[copy.length - 2] = new AIMessage({ content: a.content, usage_metadata: a.usage_metadata })
      return copy
    })
    assert.equal(report.usageAnchor.status, 'used')
  })

  test('usage on an AI message that is not the newest is not used: the newest AI message has none', async () => {
    const { report, next } = await secondCall({ tokenCountMethod: 'usage' }, anchoredReply(), (m) => [
      ...m.slice(0, -1),
      new AIMessage('A note the host added.'),
      m.at(-1),
    ])
    assert.equal(report.usageAnchor.status, 'none')
    assert.equal(report.usageAnchor.index, next.length - 2)
    assert.equal(report.tokensBefore, approx(next))
  })

  test('a message inserted before the anchor, or one removed (its pair too): not used', async () => {
    const inserted = await secondCall({ tokenCountMethod: 'usage' }, anchoredReply(), (m) => [m[0], new HumanMessage('inserted'), ...m.slice(1)])
    assert.notEqual(inserted.report.usageAnchor.status, 'used')
    assert.equal(inserted.report.tokensBefore, approx(inserted.next))
    const removed = await secondCall({ tokenCountMethod: 'usage' }, anchoredReply(), (m) => [m[0], ...m.slice(3)])
    assert.notEqual(removed.report.usageAnchor.status, 'used')
    assert.equal(removed.report.tokensBefore, approx(removed.next))
  })
})

describe('a recovery that learns a ratio beyond the core’s bound', () => {
  test('the error states 900,000 tokens for a request counted at a few hundred: the retry is sent, and later calls still reach the model (corrected by at most 100)', async () => {
    const reports = []
    const mw = contextEditingMiddlewareObject({ onReport: (r) => reports.push(r) })
    const messages = history(6)
    const tooLong = Object.assign(new Error("This model's maximum context length is 8000 tokens. However, your messages resulted in 900000 tokens."), {
      status: 400,
    })
    let calls = 0
    const handler = async () => {
      if (++calls === 1) throw tooLong
      return new AIMessage('ok')
    }
    await mw.wrapModelCall({ messages }, handler)
    assert.equal(calls, 2)
    const record = reports.at(-1).recovery
    assert.ok(record.ratio > 100, `the record keeps what the error said: ${record.ratio}`)
    const next = [...messages, new AIMessage('ok'), new HumanMessage('next')]
    await mw.wrapModelCall({ messages: next }, handler)
    assert.equal(calls, 3, 'the next call reached the model')
    assert.equal(reports.at(-1).tokenCorrection, 100)
  })
})
