// The change check between calls, as the README states it. Replacing a field the check reads is
// noticed by itself. Any other change made in place to a message already passed to the editor
// (inside a tool call's args, another field of a block or a call, a message's id or status, a
// metadata value) is declared with `editor.invalidate(message)`, or `clearCache()` for everything;
// after either, every call (count, plan, edit, sync or async) equals a fresh editor's.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { dump } from './support/edits.mjs'

const OPTIONS = { trigger: { tokens: 200 }, keep: { messages: 1 }, clearToolInputs: true }

function history() {
  const h = [new HumanMessage({ content: 'look', id: 'h0' })]
  for (let t = 0; t < 4; t++) {
    h.push(
      new AIMessage({
        id: `a${t}`,
        content: [
          { type: 'text', text: `step ${t}` },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          { type: 'thinking', thinking: 'hm', signature: 's' },
        ],
        tool_calls: [{ id: `c${t}`, name: 'read', args: { path: `f${t}`, opts: { depth: 1 } }, type: 'tool_call' }],
        response_metadata: { model_name: 'm', context_editing: { cleared_tool_inputs: [] } },
      }),
    )
    h.push(
      new ToolMessage({ id: `t${t}`, content: 'r'.repeat(300), tool_call_id: `c${t}`, name: 'read', status: 'success', response_metadata: { latency: t } }),
    )
  }
  h.push(new HumanMessage('next'))
  return h
}

/** Every call a caller can make, as what it can observe of the result. */
const CALLS = {
  countTokens: (e, h) => e.countTokens(h),
  countTokensAsync: (e, h) => e.countTokensAsync(h),
  plan: (e, h) => e.plan(h),
  planAsync: (e, h) => e.planAsync(h),
  edit: (e, h) => {
    const { messages, report } = e.edit(h)
    return { messages: dump(messages), report }
  },
  editAsync: async (e, h) => {
    const { messages, report } = await e.editAsync(h)
    return { messages: dump(messages), report }
  },
}

/** Asserts that every call on the warm `editor` equals the same call on a fresh editor. */
async function assertFresh(editor, h, options, what) {
  for (const [name, call] of Object.entries(CALLS)) {
    const got = await call(editor, h)
    const want = await call(new ContextEditor(options), h)
    assert.deepEqual(got, want, `${what}: ${name}`)
  }
}

/** Warms an editor on `h` with every call, sync and async (sessions, memos, cleared copies). */
async function warm(options, h) {
  const editor = new ContextEditor(options)
  for (const call of Object.values(CALLS)) await call(editor, h)
  return editor
}

describe('clearCache() forgets everything', () => {
  test('an in-place args edit: counts equal a fresh editor’s after clearCache (the README’s remedy)', async () => {
    for (const method of ['approx', 'estimate', 'model']) {
      const options = { tokenCountMethod: method }
      const h = [new HumanMessage('read it'), new AIMessage({ content: '', tool_calls: [{ id: 'c0', name: 'read', args: { path: 'a' } }] })]
      const editor = await warm(options, h)
      const before = editor.countTokens(h).total
      h[1].tool_calls[0].args.path = 'a'.repeat(400)
      editor.clearCache()
      const after = editor.countTokens(h).total
      assert.equal(after, new ContextEditor(options).countTokens(h).total, method)
      assert.ok(after > before, `${method}: ${before} -> ${after}`)
      await assertFresh(editor, h, options, method)
    }
  })

  test('every uncovered change at once, then clearCache: every call equals a fresh editor’s', async () => {
    const h = history()
    const editor = await warm(OPTIONS, h)
    for (const change of Object.values(UNSEEN)) change(h)
    editor.clearCache()
    await assertFresh(editor, h, OPTIONS, 'after clearCache')
    assert.equal(editor.cacheSize, 0)
  })
})

/** Changes the check does not see, each made in place on `h` (returns the message changed). */
const UNSEEN = {
  'a value deep inside a tool call’s args': (h) => ((h[1].tool_calls[0].args.opts.depth = 'd'.repeat(300)), h[1]),
  'an args field added in place': (h) => ((h[3].tool_calls[0].args.extra = 'e'.repeat(300)), h[3]),
  'another field of a tool call replaced': (h) => ((h[5].tool_calls[0].type = 'tool_call_v2_'.repeat(20)), h[5]),
  'a field of a non-text block replaced': (h) => ((h[1].content[1].image_url = { url: 'data:image/png;base64,' + 'B'.repeat(500) }), h[1]),
  'a field inside a non-text block changed in place': (h) => ((h[3].content[1].image_url.url += 'C'.repeat(500)), h[3]),
  'a thinking block’s thinking replaced': (h) => ((h[7].content[2].thinking = 'long '.repeat(100)), h[7]),
  'a cleared result’s id replaced': (h) => ((h[2].id = 'renamed'), h[2]),
  'a cleared result’s status replaced': (h) => ((h[4].status = 'error'), h[4]),
  'a metadata value of a cleared result changed in place': (h) => ((h[6].response_metadata.latency = 99), h[6]),
  'an id pushed onto cleared_tool_inputs in place': (h) => (h[1].response_metadata.context_editing.cleared_tool_inputs.push('c0'), h[1]),
}

describe('invalidate(message) declares a change the check does not see', () => {
  for (const [what, change] of Object.entries(UNSEEN)) {
    test(`${what}: after invalidate, every call equals a fresh editor’s`, async () => {
      const h = history()
      const editor = await warm(OPTIONS, h)
      const m = change(h)
      editor.invalidate(m)
      await assertFresh(editor, h, OPTIONS, what)
    })
  }

  test('invalidate takes an array of messages, and ignores what it never saw', async () => {
    const h = history()
    const editor = await warm(OPTIONS, h)
    const changed = [UNSEEN['a cleared result’s id replaced'](h), UNSEEN['a value deep inside a tool call’s args'](h)]
    editor.invalidate(changed)
    editor.invalidate([new HumanMessage('never seen'), null, 'text'])
    editor.invalidate(new HumanMessage('never seen'))
    await assertFresh(editor, h, OPTIONS, 'array')
  })

  test('a message invalidated while another conversation holds it: every conversation sees the change', async () => {
    const h = history()
    const other = [...h.slice(0, 4), new HumanMessage('another thread')]
    const editor = await warm(OPTIONS, h)
    await warm(OPTIONS, other)
    for (const call of Object.values(CALLS)) await call(editor, other)
    const m = UNSEEN['a value deep inside a tool call’s args'](h)
    editor.invalidate(m)
    await assertFresh(editor, h, OPTIONS, 'first thread')
    await assertFresh(editor, other, OPTIONS, 'second thread')
  })
})

describe('what the check reads is noticed without a remedy', () => {
  const SEEN = {
    'content replaced': (h) => (h[2].content = 'short'),
    'name replaced': (h) => (h[4].name = 'grep'),
    'the cleared marker replaced': (h) => (h[6].response_metadata.context_editing = { cleared: true, strategy: 'clear_tool_uses' }),
    'a block text replaced': (h) => (h[1].content[0].text = 'longer '.repeat(60)),
    'a block replaced': (h) => (h[3].content[1] = { type: 'text', text: 'was an image' }),
    'a tool call’s args replaced': (h) => (h[5].tool_calls[0].args = { path: 'p'.repeat(300) }),
    'a tool call replaced': (h) => (h[7].tool_calls[0] = { ...h[7].tool_calls[0], id: 'c3', name: 'grep' }),
    'a message replaced by a new object': (h) => (h[2] = new ToolMessage({ id: 't0', content: 'new', tool_call_id: 'c0', name: 'read' })),
  }
  for (const [what, change] of Object.entries(SEEN)) {
    test(`${what}: every call equals a fresh editor’s`, async () => {
      const h = history()
      const editor = await warm(OPTIONS, h)
      change(h)
      await assertFresh(editor, h, OPTIONS, what)
    })
  }
})
