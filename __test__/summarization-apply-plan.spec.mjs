// `applyPlan(messages, plan, { summary })` for hosts that apply plans themselves (a plan that was
// stored, sent as JSON, or built by hand): a summary request that does not fit the messages it is
// applied to — the summary's position moved, the replaced indexes out of range (a plan made for
// other, shorter messages), a missing prefix or an unknown role — is INVALID_SUMMARY naming the
// field, instead of removing the replaced messages and dropping the summary, or writing it in the
// wrong place. A plan that went through JSON applies as it was planned.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError, applyPlan } from '../dist/index.js'

function history() {
  return [
    new SystemMessage({ content: 'You plan trips.', id: 'sys' }),
    new HumanMessage({ content: 'Lisbon in May?', id: 'h0' }),
    new AIMessage({ content: 'Yes, mild weather.', id: 'a0' }),
    new HumanMessage({ content: 'Hotels?', id: 'h1' }),
    new AIMessage({ content: 'Avenida Palace.', id: 'a1' }),
    new HumanMessage({ content: 'Book it.', id: 'h2' }),
  ]
}

const editor = new ContextEditor({ edits: [{ type: 'summarize', trigger: { messages: 4 }, keep: { messages: 2 } }] })

function planned() {
  const messages = history()
  return { messages, plan: editor.plan(messages) }
}

const withSummary = (plan, change) => ({ ops: plan.ops, summary: change({ ...plan.summary }) })

describe('applyPlan refuses a summary request that does not fit the messages', () => {
  const TAMPERED = {
    'plan.summary.insertAt': [
      (s) => ((s.insertAt = 99), s),
      (s) => ((s.insertAt = -1), s),
      (s) => ((s.insertAt = 5), s),
      (s) => ((s.insertAt = NaN), s),
      (s) => ((s.insertAt = '1'), s),
      (s) => (delete s.insertAt, s),
    ],
    'plan.summary.replaced': [(s) => ((s.replaced = []), s), (s) => ((s.replaced = 'all'), s), (s) => (delete s.replaced, s)],
    'plan.summary.replaced[1]': [(s) => ((s.replaced = [1, 1, 2]), s), (s) => ((s.replaced = [1, 0.5]), s), (s) => ((s.replaced = [1, 60]), s)],
    'plan.summary.prefix': [(s) => (delete s.prefix, s), (s) => ((s.prefix = 42), s)],
    'plan.summary.role': [(s) => ((s.role = 'tool'), s), (s) => ((s.role = undefined), s)],
  }
  for (const [path, changes] of Object.entries(TAMPERED)) {
    test(path, () => {
      for (const change of changes) {
        const { messages, plan } = planned()
        const before = [...messages]
        assert.throws(
          () => applyPlan(messages, withSummary(plan, change), { summary: 'They booked Lisbon.' }),
          (e) => e instanceof ContextEditorError && e.code === 'INVALID_SUMMARY' && e.path === path && e.message.startsWith(`${path}: `),
        )
        assert.deepEqual(messages, before, 'the caller’s array is untouched')
      }
    })
  }

  test('a plan made for a longer history, applied to a shorter one', () => {
    const { messages, plan } = planned()
    assert.throws(
      () => applyPlan(messages.slice(0, 2), plan, { summary: 'They booked Lisbon.' }),
      (e) => e instanceof ContextEditorError && e.code === 'INVALID_SUMMARY' && /^plan\.summary\.replaced/.test(e.path),
    )
  })

  test('a request whose getter throws is INVALID_SUMMARY with the original as cause', () => {
    const { messages, plan } = planned()
    const original = new Error('getter')
    const summary = Object.defineProperty({ ...plan.summary }, 'replaced', {
      get() {
        throw original
      },
    })
    assert.throws(
      () => applyPlan(messages, { ops: plan.ops, summary }, { summary: 'S' }),
      (e) => e instanceof ContextEditorError && e.code === 'INVALID_SUMMARY' && e.path === 'plan.summary' && e.cause === original,
    )
  })
})

describe('applyPlan writes the summary where the replaced messages were', () => {
  test('the plan as planned, and after a JSON round trip, give the same messages as edit', () => {
    const { messages, plan } = planned()
    const expected = editor.edit(messages, { summarize: () => 'They booked Lisbon.' }).messages
    for (const p of [plan, JSON.parse(JSON.stringify({ ops: plan.ops, summary: plan.summary }))]) {
      const out = applyPlan(messages, p, { summary: 'They booked Lisbon.' })
      assert.deepEqual(
        out.map((m) => [m._getType(), m.content]),
        expected.map((m) => [m._getType(), m.content]),
      )
      assert.equal(out[0], messages[0])
      assert.deepEqual(out.slice(2), messages.slice(4))
      out.slice(2).forEach((m, k) => assert.equal(m, messages[4 + k]))
    }
  })

  test('a blank summary keeps every message, also after a JSON round trip', () => {
    const { messages, plan } = planned()
    const p = JSON.parse(JSON.stringify({ ops: plan.ops, summary: plan.summary }))
    const out = applyPlan(messages, p, { summary: ' \n ' })
    out.forEach((m, i) => assert.equal(m, messages[i]))
    assert.equal(out.length, messages.length)
  })
})
