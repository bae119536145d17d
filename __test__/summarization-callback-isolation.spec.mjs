// The `summarize` callback cannot change what is applied. It gets its own copy of the request, and
// the plan is applied to the messages and context as they were planned: mutating the request,
// splicing or rewriting the caller's array, or changing the call context inside the callback gives
// the same result as a callback that does none of it — and `edit` and `editAsync` agree on every
// case. The report's recount after a summary uses the caller's per-message counts by message, not
// by position.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'

const OPTIONS = { edits: [{ type: 'summarize', trigger: { messages: 6 }, keep: { messages: 3 } }] }

function history() {
  return [
    new SystemMessage({ content: 'You plan trips.', id: 'sys' }),
    new HumanMessage({ content: 'Find flights to Lisbon', id: 'h0' }),
    new AIMessage({ content: '', id: 'a0', tool_calls: [{ id: 'c0', name: 'flights', args: { to: 'LIS' }, type: 'tool_call' }] }),
    new ToolMessage({ content: 'TP 1234 08:10', tool_call_id: 'c0', id: 't0' }),
    new AIMessage({ content: 'TP 1234 leaves at 08:10.', id: 'a1' }),
    new HumanMessage({ content: 'And a hotel?', id: 'h1' }),
    new AIMessage({ content: 'Hotel Avenida has rooms.', id: 'a2' }),
    new HumanMessage({ content: 'Book both.', id: 'h2' }),
    new AIMessage({ content: 'Booked.', id: 'a3' }),
  ]
}

/** What a result says, comparable across runs on different copies of the same history. */
function view({ messages, report }) {
  return { messages: messages.map((m) => ({ type: m._getType(), id: m.id ?? null, content: m.content })), report: JSON.parse(JSON.stringify(report)) }
}

/** Callbacks that try to change what is applied; each returns the summary 'S'. */
const MEDDLERS = {
  'empties request.replaced': (r) => ((r.replaced.length = 0), 'S'),
  'adds the kept tail to request.replaced': (r) => (r.replaced.push(6, 7, 8), 'S'),
  'moves request.insertAt': (r) => ((r.insertAt = 8), 'S'),
  'rewrites request.prefix and request.role': (r) => ((r.prefix = 'HACKED'), (r.role = 'assistant'), 'S'),
  'deletes request fields': (r) => (delete r.replaced, delete r.insertAt, delete r.prefix, 'S'),
  'redefines request fields as getters': (r) => (Object.defineProperty(r, 'insertAt', { get: () => 0 }), 'S'),
  'splices the caller’s array': (r, h) => (h.splice(0, 4), 'S'),
  'empties the caller’s array': (r, h) => ((h.length = 0), 'S'),
  'pushes onto the caller’s array': (r, h) => (h.push(new HumanMessage({ content: 'injected', id: 'x' })), 'S'),
  'replaces a kept message in the caller’s array': (r, h) => ((h[7] = new HumanMessage({ content: 'swapped', id: 'x' })), 'S'),
  'reverses the caller’s array': (r, h) => (h.reverse(), 'S'),
  'changes the context’s system prompt and limit': (r, h, c) => ((c.systemPrompt = 'x'.repeat(5000)), (c.maxInputTokens = 1), 'S'),
  'changes the context’s model and tools': (r, h, c) => ((c.model = 'gpt-4'), c.tools.push({ name: 'huge', description: 'y'.repeat(4000) }), 'S'),
  'removes the callback from the context': (r, h, c) => (delete c.summarize, 'S'),
}

function context(summarize) {
  return { systemPrompt: 'Be brief.', maxInputTokens: 100000, model: 'gpt-4o', tools: [{ name: 'flights', description: 'Search flights' }], summarize }
}

describe('the summarize callback cannot change what is applied', () => {
  const editor = new ContextEditor(OPTIONS)
  const baseline = view(
    editor.edit(
      history(),
      context(() => 'S'),
    ),
  )

  test('the baseline summarizes the first five conversation messages', () => {
    assert.deepEqual(
      baseline.messages.map((m) => m.id),
      ['sys', null, 'a2', 'h2', 'a3'],
    )
    assert.equal(baseline.messages[1].content, 'Here is a summary of the conversation to date:\n\nS')
  })

  for (const [name, meddle] of Object.entries(MEDDLERS)) {
    test(`a callback that ${name}: edit and editAsync give the baseline`, async () => {
      for (const run of ['edit', 'editAsync']) {
        // A fresh editor each time: also no session state can carry the meddling over.
        const fresh = new ContextEditor(OPTIONS)
        const h = history()
        const ctx = context(null)
        ctx.summarize = (request) => meddle(request, h, ctx)
        const result = run === 'edit' ? fresh.edit(h, ctx) : await fresh.editAsync(h, ctx)
        assert.deepEqual(view(result), baseline, run)
      }
    })
  }

  test('the same editor, a meddling call between clean ones: later calls are unaffected', async () => {
    const h = history()
    const clean = () =>
      editor.edit(
        h,
        context(() => 'S'),
      )
    assert.deepEqual(view(clean()), baseline)
    const ctx = context((r) => ((r.replaced.length = 0), (r.insertAt = 3), 'S'))
    assert.deepEqual(view(await editor.editAsync(h, ctx)), baseline)
    assert.deepEqual(view(clean()), baseline)
  })

  test('the callback gets the request as planned, its own copy each time', () => {
    const seen = []
    editor.edit(
      history(),
      context((r) => (seen.push(r), 'S')),
    )
    editor.edit(
      history(),
      context((r) => (seen.push(r), 'S')),
    )
    assert.notEqual(seen[0], seen[1])
    assert.notEqual(seen[0].replaced, seen[1].replaced)
    assert.deepEqual(seen[0], seen[1])
    assert.deepEqual(seen[0].replaced, [1, 2, 3, 4, 5])
    assert.equal(seen[0].insertAt, 1)
  })

  test('a re-entrant callback (editing the same history inside) does not disturb the outer call', async () => {
    const h = history()
    const inner = []
    const ctx = context(() => {
      inner.push(
        view(
          editor.edit(
            h,
            context(() => 'S'),
          ),
        ),
      )
      return 'S'
    })
    assert.deepEqual(view(editor.edit(h, ctx)), baseline)
    assert.deepEqual(view(await editor.editAsync(h, ctx)), baseline)
    assert.deepEqual(inner, [baseline, baseline])
  })
})

describe('the recount after a summary reads per-message counts by message', () => {
  test('messageTokens: kept messages keep their given counts, the summary is counted by the method', async () => {
    const editor = new ContextEditor(OPTIONS)
    const h = history()
    const messageTokens = h.map((_, i) => 1000 + i)
    const summary = 'S'
    for (const result of [
      editor.edit(h, { messageTokens, summarize: () => summary }),
      await editor.editAsync(h, { messageTokens, summarize: async () => summary }),
    ]) {
      const out = result.messages
      assert.deepEqual(
        out.map((m) => m.id ?? null),
        ['sys', null, 'a2', 'h2', 'a3'],
      )
      // The same output counted with each kept message's own given count, the summary by the method.
      const expected = editor.countTokens(out, { messageTokens: [1000, undefined, 1006, 1007, 1008] }).total
      assert.equal(result.report.tokensAfter, expected)
      assert.ok(result.report.tokensAfter < 1000 + 1006 + 1007 + 1008 + 100, 'the summary is not charged a replaced message’s count')
    }
  })

  test('the caller’s messageTokens array changed by the callback does not change the recount', () => {
    const editor = new ContextEditor(OPTIONS)
    const h = history()
    const messageTokens = h.map(() => 10)
    const plain = editor.edit(h, { messageTokens: messageTokens.slice(), summarize: () => 'S' }).report.tokensAfter
    const meddled = editor.edit(h, { messageTokens, summarize: () => (messageTokens.fill(99999), 'S') }).report.tokensAfter
    assert.equal(meddled, plain)
  })

  test('overMaxInputTokens follows the recount of what is returned', () => {
    const editor = new ContextEditor(OPTIONS)
    const h = history()
    const tokens = editor.countTokens(h).total
    // A limit the history alone fits, but not with a long summary.
    const { report } = editor.edit(h, { maxInputTokens: tokens, summarize: () => 'long '.repeat(400) })
    assert.ok(report.tokensAfter > tokens)
    assert.equal(report.overMaxInputTokens, true)
    assert.equal(report.warnings.filter((w) => w.code === 'over_max_input_tokens').length, 1)
    const short = editor.edit(h, { maxInputTokens: tokens, summarize: () => 'S' }).report
    assert.equal(short.overMaxInputTokens, false)
    assert.ok(!short.warnings.some((w) => w.code === 'over_max_input_tokens'))
  })
})
