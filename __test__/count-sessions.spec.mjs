// `countTokens` of a history an edit holds goes through that conversation's session: only the
// messages past what the session holds are read and measured (a host that counts every turn pays
// for what is new). Such a count must be exactly the count of the whole history a new editor
// gives, in every counting mode (chat templates, which frame the last message apart, included),
// with every kind of context, after every kind of change to the history; and it must leave the
// conversation as the edit left it, so that the next edit is the one a new editor makes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { HumanMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { NativeContextEditor } from '../index.js'
import { langchain, plain, words } from './support/columnar-conversations.mjs'
import { Rng } from './support/prng.mjs'
import { spyOnBinding } from './support/binding-spy.mjs'

/** Counting modes, each with its tokenizer (the Qwen3 and Llama 3 ones frame a request by their chat templates). */
const MODES = [
  {},
  { tokenCountMethod: 'model', model: 'gpt-4o' },
  { tokenCountMethod: 'model', encoding: 'cl100k_base' },
  { tokenCountMethod: 'estimate' },
  { tokenCountMethod: 'model', tokenizer: 'qwen3' },
  { tokenCountMethod: 'model', tokenizer: 'llama3' },
]

/** The contexts a call may come with. */
function contextOf(r, n) {
  const tools = [{ type: 'function', function: { name: 'search', description: words(r, 6), parameters: { type: 'object' } } }]
  switch (r.int(0, 4)) {
    case 0:
      return undefined
    case 1:
      return { systemPrompt: words(r, 12) }
    case 2:
      return { systemPrompt: words(r, 8), tools }
    case 3:
      return { tools, usage: { inputTokens: 200 + r.int(0, 3000), messageCount: r.int(1, n) } }
    default:
      return { systemPrompt: words(r, 4), tokenCorrection: 1 + r.int(0, 40) / 100 }
  }
}

/**
 * Counts on `editor` go through sessions: calls of the binding's session count and how many found
 * the session (wrapping the prototype's methods; restored by the returned function).
 */
function spyOnSessionCounts() {
  const seen = { calls: 0, hits: 0 }
  const restore = spyOnBinding(['countSession', 'countSessionColumns'], (_, out) => {
    seen.calls++
    if (out !== null) seen.hits++
  })
  return { seen, restore }
}

const outcome = (f) => {
  try {
    return { value: f() }
  } catch (e) {
    return { error: { code: e.code, messageIndex: e.messageIndex, path: e.path } }
  }
}

test('a count of a history an edit holds is the whole count a new editor gives, and the next edit is a new editor’s', async () => {
  const spy = spyOnSessionCounts()
  try {
    let compared = 0
    for (let seed = 1; seed <= 36; seed++) {
      const r = new Rng(4200 + seed)
      const mode = MODES[seed % MODES.length]
      const history = (r.chance(0.6) ? langchain : plain)(r, r.int(12, 40))
      const opts = { trigger: { tokens: r.int(50, 400) }, keep: { messages: r.int(0, 3) }, ...mode }
      const editor = new ContextEditor(opts)
      const context = contextOf(r, history.length)
      let held = r.int(4, history.length - 4)
      editor.edit(history.slice(0, held), context)
      // A host that counts every turn, then edits: the same history, one grown by a few messages,
      // and the edit that follows each.
      for (let turn = 0; turn < 4 && held < history.length; turn++) {
        const next = Math.min(history.length, held + r.int(0, 3))
        const list = history.slice(0, next)
        for (const counted of [history.slice(0, held), list]) {
          const got = outcome(() => editor.countTokens(counted, context))
          const want = outcome(() => new ContextEditor(opts).countTokens(counted, context))
          assert.deepEqual(got, want, `seed ${seed}, turn ${turn}: a count of ${counted.length} messages (${held} held)`)
          const gotAsync = await editor.countTokensAsync(counted, context).then(
            (value) => ({ value }),
            (e) => ({ error: { code: e.code, messageIndex: e.messageIndex, path: e.path } }),
          )
          assert.deepEqual(gotAsync, want, `seed ${seed}, turn ${turn}: countTokensAsync`)
          compared++
        }
        const edited = outcome(() => editor.edit(list, context))
        const fresh = outcome(() => new ContextEditor(opts).edit(list, context))
        assert.deepEqual(JSON.parse(JSON.stringify(edited)), JSON.parse(JSON.stringify(fresh)), `seed ${seed}, turn ${turn}: the edit after the counts`)
        held = next
      }
      // Counts never add conversations: the edit's is the only one.
      assert.equal(editor.sessionCount, 1, `seed ${seed}: sessions`)
    }
    assert.ok(compared > 200, `${compared} counts compared`)
    // The counts above went through the sessions (a fallback to the whole count would pass too).
    assert.ok(spy.seen.hits > 150, `session counts: ${spy.seen.hits} of ${spy.seen.calls} calls found their session`)
  } finally {
    spy.restore()
  }
})

test('a history changed since the edit is counted as it is now: replaced, changed in place, shortened, invalidated, another model', () => {
  const spy = spyOnSessionCounts()
  try {
    for (let seed = 1; seed <= 12; seed++) {
      const r = new Rng(7100 + seed)
      const mode = MODES[seed % MODES.length]
      const opts = { trigger: { tokens: 100 }, keep: { messages: 1 }, ...mode }
      const changes = {
        'a message replaced by a new object': (h) => h.map((m, i) => (i === 3 ? new HumanMessage(`replaced ${words(r, 5)}`) : m)),
        'a message changed in place (its content)': (h) => {
          h[2].content = `changed ${words(r, 7)}`
          return h
        },
        'a shorter history': (h) => h.slice(0, h.length - 3),
        'a history grown by many messages': (h) => [...h, ...langchain(r, 12).filter((m) => m._getType() === 'human')],
        'an arg changed in place, then invalidated': (h, editor) => {
          const ai = h.find((m) => m.tool_calls?.length && m.tool_calls[0].args)
          if (ai) {
            ai.tool_calls[0].args.q = `${ai.tool_calls[0].args.q} ${words(r, 30)}`
            editor.invalidate(ai)
          }
          return h
        },
      }
      for (const [what, change] of Object.entries(changes)) {
        const history = langchain(r, 24)
        const editor = new ContextEditor(opts)
        const context = contextOf(r, history.length)
        editor.edit(history, context)
        const now = change(history.slice(), editor)
        assert.deepEqual(editor.countTokens(now, context), new ContextEditor(opts).countTokens(now, context), `seed ${seed}: ${what}`)
        // And the edit after it.
        assert.deepEqual(
          JSON.parse(JSON.stringify(editor.edit(now, context))),
          JSON.parse(JSON.stringify(new ContextEditor(opts).edit(now, context))),
          `seed ${seed}: the edit after, ${what}`,
        )
      }
      // Another model in the count's context: another tokenizer, counted whole (the session keeps the edit's).
      const history = langchain(r, 20)
      const editor = new ContextEditor({ ...opts, tokenCountMethod: 'model', model: 'gpt-4o' })
      editor.edit(history, { model: 'gpt-4o' })
      for (const model of ['gpt-4', 'gpt-4o']) {
        assert.deepEqual(
          editor.countTokens(history, { model }),
          new ContextEditor({ ...opts, tokenCountMethod: 'model', model: 'gpt-4o' }).countTokens(history, { model }),
          `seed ${seed}: counted for ${model}`,
        )
      }
    }
    assert.ok(spy.seen.calls > 0)
  } finally {
    spy.restore()
  }
})

test('a bad message past what the session holds is the whole count’s error, and the session stays usable', () => {
  for (const mode of MODES.slice(0, 3)) {
    const r = new Rng(99)
    const history = langchain(r, 20)
    const opts = { trigger: { tokens: 60 }, keep: { messages: 1 }, ...mode }
    const editor = new ContextEditor(opts)
    editor.edit(history)
    const bad = [...history, { role: 'user', content: 42 }]
    const got = outcome(() => editor.countTokens(bad))
    assert.equal(got.error?.code, 'INVALID_MESSAGE')
    assert.deepEqual(
      got,
      outcome(() => new ContextEditor(opts).countTokens(bad)),
    )
    // The conversation goes on as if the count never happened.
    const grown = [...history, new HumanMessage('and then')]
    assert.deepEqual(editor.countTokens(grown), new ContextEditor(opts).countTokens(grown))
    assert.deepEqual(JSON.parse(JSON.stringify(editor.edit(grown))), JSON.parse(JSON.stringify(new ContextEditor(opts).edit(grown))))
  }
})

test('the binding: a session count is the whole count, misses on what the session does not hold, and leaves the session as it was', async () => {
  const { toColumns } = await import('../dist/wire.js')
  const lengthsOnly = { sendText: false, sendToolText: false, placeholders: undefined, cache: undefined, messageTokens: undefined }
  const r = new Rng(5)
  const history = langchain(r, 30)
  const columns = (from, to) => toColumns(history, from, to, lengthsOnly, [])[0]
  const native = new NativeContextEditor({ trigger: { tokens: 80 }, keep: { messages: 1 } })
  const context = { systemPromptLength: 120, toolLengths: [300] }
  const planned = native.planSessionColumns(1, 0, columns(0, 20), context)
  assert.notEqual(planned, null)
  const whole = (to) => native.countTokensColumns(columns(0, to), context)
  assert.deepEqual(native.countSessionColumns(1, 20, columns(20, 20), context), whole(20), 'the history held')
  assert.deepEqual(native.countSessionColumns(1, 20, columns(20, 30), context), whole(30), 'grown')
  assert.equal(native.countSessionColumns(1, 25, columns(25, 30), context), null, 'more than it holds')
  assert.equal(native.countSessionColumns(1, 10, columns(10, 30), context), null, 'less than it holds (a history rewritten)')
  assert.equal(native.countSessionColumns(2, 20, columns(20, 30), context), null, 'an unknown session')
  assert.equal(native.countSessionColumns(1, 0, columns(0, 30), context), null, 'nothing reused')
  // Counted with text (model mode) by another editor's meter: the session was measured another way.
  assert.equal(native.sessionCount, 1, 'no count dropped the session')
  // The session still holds the 20 messages its plan left: the next plan continues from there.
  const next = native.planSessionColumns(1, 20, columns(20, 30), context)
  const fresh = new NativeContextEditor({ trigger: { tokens: 80 }, keep: { messages: 1 } }).planSessionColumns(1, 0, columns(0, 30), context)
  assert.deepEqual([...next.ops], [...fresh.ops])
  assert.equal(next.reportJson ?? next.report.json(), fresh.reportJson ?? fresh.report.json())
  // A bad tail is the whole count's error, with the index in the whole conversation.
  assert.throws(
    () => native.countSession(1, 30, [{ role: 'tool', content: 'x' }], context),
    (e) => e.code === 'INVALID_MESSAGE' && e.messageIndex === 30,
  )
  assert.deepEqual(native.countSessionColumns(1, 30, columns(30, 30), context), whole(30), 'and the session is still there')
})
