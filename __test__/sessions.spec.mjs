// Conversations seen before: an agent calls the model again and again with the same message
// objects plus a new turn, and the editor sends and counts only what is new. Whatever it reuses,
// the output must be exactly what a fresh editor produces on the whole history.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, RECALL_PLACEHOLDER } from '../dist/index.js'
import { NativeContextEditor } from '../dist/native.js'
import { Rng } from './support/prng.mjs'
import { buildMessages, conversationSpecs, editOptions } from './support/conversations.mjs'
import { approxTokens, snapshot } from './support/util.mjs'

/** What a caller can observe of an edit: the output messages' content and the report. */
function observable({ messages, report }) {
  return { messages: messages.map((m) => [m._getType(), m.content, m.tool_calls, m.response_metadata]), report }
}

const METHODS = [{}, { tokenCountMethod: 'model' }, { tokenCountMethod: 'estimate' }]

test('growing a history call by call gives exactly what a fresh editor gives, in every counting method', () => {
  for (let seed = 1; seed <= 60; seed++) {
    const rng = new Rng(seed)
    const history = buildMessages(conversationSpecs(rng, { maxTurns: 14 }))
    const { options, maxInputTokens } = editOptions(rng, approxTokens(history), history.length)
    if (seed % 4 === 0) options.placeholder = RECALL_PLACEHOLDER
    const method = METHODS[seed % METHODS.length]
    const warm = new ContextEditor({ ...options, ...method })
    // The agent loop: each model call sees one more turn (sometimes several at once).
    for (let end = 1; end <= history.length; end += 1 + (seed % 3)) {
      const view = history.slice(0, end)
      const before = snapshot(view)
      const got = warm.edit(view, { maxInputTokens })
      const want = new ContextEditor({ ...options, ...method }).edit(view, { maxInputTokens })
      assert.deepEqual(observable(got), observable(want), `seed ${seed}, ${end} messages`)
      assert.deepEqual(snapshot(view), before, 'the input is never mutated')
    }
  }
})

test('async calls, concurrent ones included, agree with a fresh editor', async () => {
  const rng = new Rng(99)
  const history = buildMessages(conversationSpecs(rng, { maxTurns: 40 }))
  const options = { trigger: { tokens: 200 }, keep: { messages: 2 }, tokenCountMethod: 'model' }
  const warm = new ContextEditor(options)
  const views = [10, 20, 20, 35, history.length].map((n) => history.slice(0, Math.min(n, history.length)))
  // Two calls on the same conversation at once: the second must not reuse a session in use.
  const results = await Promise.all(views.map((v) => warm.editAsync(v)))
  for (const [k, v] of views.entries()) {
    assert.deepEqual(observable(results[k]), observable(new ContextEditor(options).edit(v)), `view ${k}`)
  }
  const again = await warm.editAsync(history)
  assert.deepEqual(observable(again), observable(new ContextEditor(options).edit(history)))
})

test('a long history sent in pieces (async) plans like one sent whole', async () => {
  const h = [new SystemMessage('you are a coding agent')]
  for (let t = 0; t < 700; t++) {
    h.push(new HumanMessage(`step ${t}`))
    h.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { t } }] }))
    h.push(new ToolMessage({ content: `result ${t} `.repeat(30), tool_call_id: `c${t}`, name: 'read' }))
  }
  for (const method of ['approx', 'model']) {
    const options = { trigger: { tokens: 20000 }, keep: { messages: 3 }, tokenCountMethod: method }
    const got = await new ContextEditor(options).editAsync(h)
    assert.ok(got.report.cleared.length > 500, 'the trigger fired')
    assert.deepEqual(observable(got), observable(new ContextEditor(options).edit(h)))
  }
})

test('a message changed between calls is seen, whatever field changed', () => {
  const options = { trigger: { tokens: 150 }, keep: { messages: 1 }, clearToolInputs: true }
  const make = () => {
    const h = [new HumanMessage('go')]
    for (let t = 0; t < 6; t++) {
      h.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: { path: `f${t}.txt` } }] }))
      h.push(new ToolMessage({ content: 'r'.repeat(300), tool_call_id: `c${t}`, name: 'read' }))
    }
    return h
  }
  const changes = [
    (h) => (h[2].content = 'short'),
    (h) => (h[4].content = [{ type: 'text', text: 'x'.repeat(900) }]),
    (h) => h[4].content.push?.({ type: 'text', text: 'more' }),
    (h) => (h[1].tool_calls = [{ id: 'c0', name: 'read', args: { path: 'other.txt', extra: 'y'.repeat(200) } }]),
    (h) => (h[3].tool_calls[0] = { ...h[3].tool_calls[0], args: { path: 'z'.repeat(300) } }),
    (h) => (h[6].response_metadata = { context_editing: { cleared: true } }),
    (h) => (h[8].name = 'renamed'),
    (h) => (h[8].additional_kwargs = { reasoning_content: 'thinking '.repeat(50) }),
  ]
  const h = make()
  const editor = new ContextEditor(options)
  editor.edit(h)
  for (const [k, change] of changes.entries()) {
    change(h)
    assert.deepEqual(observable(editor.edit(h)), observable(new ContextEditor(options).edit(h)), `change ${k}`)
  }
})

test('threads sharing one system message object do not disturb each other', () => {
  const system = new SystemMessage('shared system prompt')
  const thread = (tag) => {
    const h = [system]
    for (let t = 0; t < 8; t++) {
      h.push(new HumanMessage(`${tag} ${t}`))
      h.push(new AIMessage({ content: '', tool_calls: [{ id: `${tag}${t}`, name: 'read', args: {} }] }))
      h.push(new ToolMessage({ content: `${tag} `.repeat(80 + t), tool_call_id: `${tag}${t}`, name: 'read' }))
    }
    return h
  }
  const a = thread('alpha')
  const b = thread('beta')
  const options = { trigger: { tokens: 300 }, keep: { messages: 2 } }
  const editor = new ContextEditor(options)
  for (let end = 2; end <= a.length; end++) {
    for (const h of [a, b]) {
      const view = h.slice(0, end)
      assert.deepEqual(observable(editor.edit(view)), observable(new ContextEditor(options).edit(view)))
    }
  }
})

test('a cleared result keeps its copy from call to call, and only unchanged messages share it', () => {
  const h = [new HumanMessage('go')]
  for (let t = 0; t < 4; t++) {
    h.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: {} }] }))
    h.push(new ToolMessage({ content: 'r'.repeat(400), tool_call_id: `c${t}`, name: 'read' }))
  }
  const editor = new ContextEditor({ trigger: { tokens: 150 }, keep: { messages: 1 } })
  const first = editor.edit(h).messages
  const second = editor.edit([...h, new HumanMessage('next')]).messages
  assert.notEqual(first[2], h[2], 'cleared results are new objects')
  // Its insides are shared (frozen); the message object is each caller's own.
  assert.notEqual(second[2], first[2], 'a fresh message object on every call')
  assert.equal(second[2].response_metadata, first[2].response_metadata, 'the same copy on the next call')
  assert.equal(second[2].content, '[cleared]')
  h[2].content = 'r'.repeat(500)
  const third = editor.edit(h).messages
  assert.notEqual(third[2].response_metadata, first[2].response_metadata, 'a changed message gets a fresh copy')
  assert.equal(third[2].content, '[cleared]')
  assert.equal(h[2].content, 'r'.repeat(500), 'the input is never mutated')
})

test('an invalid new message is named by its index in the whole history, and the next call recovers', () => {
  const editor = new ContextEditor({ tokenCountMethod: 'model' })
  const h = [new HumanMessage('a'), new AIMessage('b'), new HumanMessage('c')]
  editor.edit(h)
  const bad = [...h, { type: 'tool', content: 'x' }]
  assert.throws(
    () => editor.edit(bad),
    (e) => e.code === 'INVALID_MESSAGE' && e.messageIndex === 3 && /messages\[3\]/.test(e.message),
  )
  const good = [...h, new AIMessage('d')]
  assert.deepEqual(observable(editor.edit(good)), observable(new ContextEditor({ tokenCountMethod: 'model' }).edit(good)))
})

test('sessions are bounded, and clearCache forgets them', () => {
  const editor = new ContextEditor({})
  const threads = Array.from({ length: 70 }, (_, k) => [new HumanMessage(`thread ${k}`), new AIMessage('ok')])
  for (const t of threads) editor.edit(t)
  const native = new NativeContextEditor({})
  for (let k = 0; k < 70; k++) native.planSession(k + 1, 0, [{ role: 'user', content: `t${k}` }])
  assert.equal(native.sessionCount, 64, 'at most 64 sessions')
  assert.equal(native.planSession(1, 1, []), null, 'the least recently used went first: a miss')
  assert.notEqual(native.planSession(70, 1, []), null, 'a recent one is still there')
  native.clearCache()
  assert.equal(native.sessionCount, 0)
  // The editor's calls after clearCache() still work (each resends once).
  editor.clearCache()
  assert.deepEqual(observable(editor.edit(threads[0])), observable(new ContextEditor({}).edit(threads[0])))
})

test('applyPlan accepts a hand-made plan whose operations are out of order', async () => {
  const { applyPlan } = await import('../dist/index.js')
  const h = [new HumanMessage('go')]
  for (let t = 0; t < 3; t++) {
    h.push(new AIMessage({ content: '', tool_calls: [{ id: `c${t}`, name: 'read', args: {} }] }))
    h.push(new ToolMessage({ content: `result ${t}`, tool_call_id: `c${t}`, name: 'read' }))
  }
  const ops = [
    { type: 'clear_tool_result', index: 6, placeholder: '[x]', strategy: 'clear_tool_uses' },
    { type: 'remove', index: 0 },
    { type: 'clear_tool_result', index: 2, placeholder: '[y]', strategy: 'clear_tool_uses' },
  ]
  const out = applyPlan(h, { ops })
  assert.deepEqual(
    out.map((m) => m.content),
    ['', '[y]', '', 'result 1', '', '[x]'],
  )
})

test('the previous output is reused only where it is still right: changed limits, plan() calls, mutated outputs, replaced messages', async () => {
  /** Each output message must be the input object exactly where a fresh editor leaves it unchanged. */
  const sameShape = (got, want, view, what) => {
    assert.deepEqual(observable(got), observable(want), what)
    assert.deepEqual(
      got.messages.map((m) => view.indexOf(m)),
      want.messages.map((m) => view.indexOf(m)),
      `${what}: unchanged messages are the caller's own objects, changed ones are copies`,
    )
  }
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(1000 + seed)
    const history = buildMessages(conversationSpecs(rng, { maxTurns: 20 }))
    const { options } = editOptions(rng, approxTokens(history), history.length)
    // Placeholders that name their call: a string of its own per cleared result, so two plans'
    // string tables share only their start (more results cleared, or others once the limit moves).
    if (seed % 3 === 0) options.placeholder = RECALL_PLACEHOLDER
    if (seed % 3 === 1) options.placeholder = '{tool_call_id} cleared ({tool_call_id})'
    const editor = new ContextEditor(options)
    const total = approxTokens(history)
    let view = []
    for (let end = 1; end <= history.length; end += 1 + rng.int(0, 2)) {
      view = [...view, ...history.slice(view.length, end)]
      // The model's limit moves between calls, so the operations over the unchanged prefix change too.
      const context = { maxInputTokens: rng.chance(0.5) ? Math.max(50, rng.int(total >> 3, total)) : undefined }
      const action = rng.int(0, 5)
      if (action === 0) editor.plan(view, context) // planned, not applied: its output is not kept
      if (action === 1 && view.length > 2) {
        // The host replaced an old message by an equal copy of another class instance.
        const k = rng.int(0, view.length - 2)
        const m = view[k]
        view = view.slice()
        view[k] = new m.constructor({ ...m })
      }
      const got = action === 2 ? await editor.editAsync(view, context) : editor.edit(view, context)
      sameShape(got, new ContextEditor(options).edit(view, context), view, `seed ${seed}, ${view.length} messages, action ${action}`)
      // Whatever the caller does to the array it got does not reach the next call.
      if (action === 3) got.messages.reverse()
      if (action === 4) got.messages.splice(0, got.messages.length, ...got.messages.map(() => new HumanMessage('junk')))
    }
  }
})

test('a result another edit clears this time is written anew, not taken from the previous output', () => {
  // Two clearing edits with placeholders of their own. With a small limit the first clears the old
  // results; with a large one only the second fires and clears the same results its own way. The
  // two plans' operations on those results are the same numbers (kind, index, the first string of
  // each table): only the string tables tell the placeholders apart.
  const history = [new HumanMessage('go')]
  for (let t = 0; t < 6; t++) {
    history.push(new AIMessage({ content: '', tool_calls: [{ id: `call_${t}`, name: 'read', args: { t } }] }))
    history.push(new ToolMessage({ content: `result ${t} `.repeat(40), tool_call_id: `call_${t}`, name: 'read' }))
  }
  for (const [a, b] of [
    ['[a]', '[b]'],
    ['[a {tool_call_id}]', '[b {tool_call_id}]'],
  ]) {
    const options = {
      edits: [
        { type: 'clear_tool_uses', trigger: { fraction: 0.5 }, keep: { messages: 1 }, placeholder: a },
        { type: 'clear_tool_uses', trigger: { messages: 2 }, keep: { messages: 2 }, placeholder: b },
      ],
    }
    const editor = new ContextEditor(options)
    const small = { maxInputTokens: 400 }
    const large = { maxInputTokens: 1_000_000 }
    const first = editor.edit(history, small)
    assert.equal(first.messages[2].content, a.replace('{tool_call_id}', 'call_0'), 'the first edit cleared the oldest result')
    const view = [...history, new HumanMessage('next')]
    const got = editor.edit(view, large)
    assert.equal(got.messages[2].content, b.replace('{tool_call_id}', 'call_0'), `${b}: the second edit's placeholder`)
    assert.deepEqual(observable(got), observable(new ContextEditor(options).edit(view, large)), `${a} / ${b}: as a fresh editor`)
  }
})
