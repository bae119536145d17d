// What a summarizer hands back is read with every read guarded, the same way by `edit` and
// `editAsync`: an answer whose getters or Proxy traps throw (a revoked Proxy, an array whose
// `length` or entries throw, a `then` that throws) never escapes as a bare error and never blames
// the caller's messages. An answer that cannot be resolved (its `then` throws) is the summarizer's
// failure, SUMMARY_FAILED with the original as `cause` — what `await` makes of it in `editAsync`,
// and now in `edit` too; one whose content cannot be read is no summary: the history is kept and
// the report warns `summary_invalid`. The call context's `summarize` is read once per call, and a
// summarizer that never settles holds up only its own call.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError } from '../dist/index.js'

const OPTIONS = { edits: [{ type: 'summarize', trigger: { messages: 4 }, keep: { messages: 2 } }] }

function chat() {
  const out = [new SystemMessage({ content: 'You plan trips.', id: 'sys' })]
  for (let k = 0; k < 4; k++) out.push(new HumanMessage({ content: `question ${k}`, id: `h${k}` }), new AIMessage({ content: `answer ${k}`, id: `a${k}` }))
  return out
}

function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

/** Answers whose content cannot be read: no summary, the history is kept. */
const UNREADABLE_CONTENT = {
  'an array whose length throws': () => new Proxy(['text'], { get: (t, k) => (k === 'length' ? thrower('length') : t[k]) }),
  'an array whose entry getter throws': () => Object.defineProperty(['a'], 0, { get: () => thrower('entry') }),
  'content blocks whose text getter throws': () => ({
    content: [
      {
        type: 'text',
        get text() {
          return thrower('text')
        },
      },
    ],
  }),
  'an object whose prototype trap throws': () => new Proxy({}, { getPrototypeOf: () => thrower('getPrototypeOf') }),
  'a message whose content is a revoked Proxy': () => ({ content: revoked() }),
}

/** Answers that cannot even be resolved: reading `then` throws. */
const UNRESOLVABLE = {
  'a Proxy whose get trap throws': () => new Proxy({}, { get: () => thrower('get') }),
  'a revoked Proxy': () => revoked(),
  'an object whose then getter throws': () => ({
    content: 'text',
    get then() {
      return thrower('then')
    },
  }),
}

function thrower(what) {
  throw new Error(`${what} trap`)
}

async function both(answer) {
  const history = chat()
  const editor = new ContextEditor(OPTIONS)
  const run = (f) => {
    try {
      return { result: f() }
    } catch (error) {
      return { error }
    }
  }
  const sync = run(() => editor.edit(history, { summarize: () => answer() }))
  let async
  try {
    async = { result: await editor.editAsync(history, { summarize: () => answer() }) }
  } catch (error) {
    async = { error }
  }
  return { history, sync, async }
}

describe('an answer whose content cannot be read keeps the history and warns summary_invalid (edit = editAsync)', () => {
  for (const [name, answer] of Object.entries(UNREADABLE_CONTENT)) {
    test(name, async () => {
      const { history, sync, async } = await both(answer)
      for (const [mode, { result, error }] of Object.entries({ sync, async })) {
        assert.equal(error, undefined, `${mode}: nothing thrown (got ${error})`)
        assert.deepEqual(result.messages, history, `${mode}: the history is kept`)
        result.messages.forEach((m, i) => assert.equal(m, history[i]))
        const warning = result.report.warnings.find((w) => w.code === 'summary_invalid')
        assert.ok(warning, `${mode}: warns summary_invalid`)
        assert.equal(warning.path, 'summary')
        assert.match(warning.message, /^summary: reading it threw: /)
      }
    })
  }
})

describe('an answer that cannot be resolved is SUMMARY_FAILED with its cause (edit = editAsync)', () => {
  for (const [name, answer] of Object.entries(UNRESOLVABLE)) {
    test(name, async () => {
      const { sync, async } = await both(answer)
      for (const [mode, { error }] of Object.entries({ sync, async })) {
        assert.ok(error instanceof ContextEditorError, `${mode}: a ContextEditorError, got ${error}`)
        assert.equal(error.code, 'SUMMARY_FAILED', mode)
        assert.equal(error.path, 'summary', mode)
        assert.ok(error.cause instanceof Error, `${mode}: the original is the cause`)
      }
    })
  }
})

describe('context.summarize is read once per call', () => {
  test('a getter that throws after its first read: the call uses what it read first', async () => {
    for (const mode of ['edit', 'editAsync']) {
      let reads = 0
      const context = {
        get summarize() {
          if (reads++ > 0) throw new Error('read twice')
          return () => 'They planned a trip.'
        },
      }
      const { messages, report } = await new ContextEditor(OPTIONS)[mode](chat(), context)
      assert.equal(reads, 1, mode)
      assert.equal(messages[1].content, 'Here is a summary of the conversation to date:\n\nThey planned a trip.', mode)
      assert.deepEqual(report.warnings, [], mode)
    }
  })

  test('a getter that answers differently each time: the function read first is the one called', async () => {
    for (const mode of ['edit', 'editAsync']) {
      let reads = 0
      const context = {
        get summarize() {
          return reads++ === 0 ? () => 'first' : () => 'later'
        },
      }
      const { messages } = await new ContextEditor(OPTIONS)[mode](chat(), context)
      assert.match(messages[1].content, /\n\nfirst$/, mode)
    }
  })
})

describe('a summarizer that never settles holds up only its own call', () => {
  test('other editAsync calls on the same editor finish, and equal the synchronous edit', async () => {
    const editor = new ContextEditor(OPTIONS)
    let started = false
    const hung = editor.editAsync(chat(), {
      summarize: () => {
        started = true
        return new Promise(() => {})
      },
    })
    hung.then(() => assert.fail('a never-settling summarizer cannot finish'))
    for (let k = 0; k < 20; k++) {
      const history = chat()
      const summarize = () => `summary ${k}`
      const got = await editor.editAsync(history, { summarize })
      const want = new ContextEditor(OPTIONS).edit(history, { summarize })
      assert.deepEqual(got.messages, want.messages)
      assert.deepEqual(got.report, want.report)
    }
    assert.ok(started)
  })

  test('the synchronous edit never waits: a Promise is INVALID_SUMMARY at once', () => {
    assert.throws(
      () => new ContextEditor(OPTIONS).edit(chat(), { summarize: () => new Promise(() => {}) }),
      (e) => e instanceof ContextEditorError && e.code === 'INVALID_SUMMARY' && e.path === 'summary',
    )
  })
})
