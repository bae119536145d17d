// The summarization cutoff, checked as properties over seeded irregular histories: parallel calls,
// results out of order or arriving after a user message, unanswered calls, orphaned results,
// system messages first, in the middle or alone, histories of 0 and 1 message, and `keep` at every
// position (every `messages` count from 0 to past the end, token budgets, turns). Whatever the cut:
// a tool call is never separated from its results, leading system messages stay first, the
// replaced messages are one run right after them and the summary takes their place, the kept
// messages are the caller's own objects in order, no fewer than `keep.messages` are kept, the
// summarizer is asked about the newest replaced messages only, and `edit` equals `editAsync`.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { rng } from './fixtures/summarization/conversations.mjs'

const SEEDS = 250

/** An irregular history of about `n` messages. */
function irregular(seed, n) {
  const r = rng(seed)
  const out = []
  const open = []
  let id = 0
  const next = () => `m${seed}_${id++}`
  if (r() < 0.3) out.push(new SystemMessage({ content: 'You are careful.', id: next() }))
  if (r() < 0.1) out.push(new SystemMessage({ content: 'Second system message.', id: next() }))
  for (let i = 0; i < n; i++) {
    const x = r()
    if (x < 0.06) out.push(new SystemMessage({ content: 'a system note', id: next() }))
    else if (x < 0.3) out.push(new HumanMessage({ content: `question ${'q'.repeat(Math.floor(r() * 120))}`, id: next() }))
    else if (x < 0.52) {
      const calls = Array.from({ length: 1 + Math.floor(r() * 3) }, () => ({
        id: `c${seed}_${id++}`,
        name: 'lookup',
        args: { q: 'x'.repeat(Math.floor(r() * 40)) },
        type: 'tool_call',
      }))
      out.push(new AIMessage({ content: r() < 0.5 ? '' : 'calling', tool_calls: calls, id: next() }))
      open.push(...calls.map((c) => c.id))
    } else if (x < 0.82 && open.length > 0) {
      // Any open call: results come out of order, and after other messages.
      const [callId] = open.splice(Math.floor(r() * open.length), 1)
      out.push(new ToolMessage({ content: `result ${'r'.repeat(Math.floor(r() * 200))}`, tool_call_id: callId, id: next() }))
    } else if (x < 0.87) out.push(new ToolMessage({ content: 'orphan', tool_call_id: `nowhere_${id}`, id: next() }))
    else out.push(new AIMessage({ content: `answer ${'a'.repeat(Math.floor(r() * 80))}`, id: next() }))
  }
  return out
}

function keeps(r, length) {
  const out = []
  for (let n = 0; n <= length + 1; n++) out.push({ messages: n })
  for (let k = 0; k < 3; k++) out.push({ tokens: Math.floor(r() * 300) })
  for (let t = 0; t <= 3; t++) out.push({ turns: t })
  return out
}

const isSummary = (m) => m.additional_kwargs?.lc_source === 'summarization'

function checkCut(input, result, request, keep, where) {
  const out = result.messages
  const at = out.findIndex(isSummary)
  if (at < 0) {
    assert.equal(request, undefined, `${where}: a summary was asked for but not written`)
    return
  }
  assert.equal(out.filter(isSummary).length, 1, `${where}: one summary`)
  const position = new Map(input.map((m, i) => [m, i]))
  const kept = out.filter((m) => !isSummary(m))
  // The kept messages are the caller's own objects, in order.
  kept.forEach((m, k) => assert.ok(position.has(m), `${where}: kept message ${k} is not the caller's`))
  for (let k = 1; k < kept.length; k++) assert.ok(position.get(kept[k - 1]) < position.get(kept[k]), `${where}: order changed`)
  // Leading system messages (orphaned results before them aside) stay first; the summary follows them.
  let lead = 0
  const leading = []
  while (lead < input.length && (input[lead]._getType() === 'system' || isOrphan(input, lead))) {
    if (input[lead]._getType() === 'system') leading.push(input[lead])
    lead++
  }
  leading.forEach((m, i) => assert.equal(out[i], m, `${where}: leading system message ${i}`))
  assert.equal(at, leading.length, `${where}: the summary is right after the leading system messages`)
  // The replaced messages are one run: everything before the first message kept after the summary
  // (orphaned results aside, which are dropped everywhere).
  const firstKept = out[at + 1] === undefined ? input.length : position.get(out[at + 1])
  assert.deepEqual(
    request.replaced,
    input.map((_, i) => i).filter((i) => i >= lead && i < firstKept && !isOrphan(input, i)),
    `${where}: replaced`,
  )
  for (let i = firstKept; i < input.length; i++) if (!isOrphan(input, i)) assert.ok(out.includes(input[i]), `${where}: message ${i} after the cut was dropped`)
  // A call and its results are on the same side of the cut.
  const side = (i) => i < firstKept
  input.forEach((m, i) => {
    if (m._getType() !== 'tool' || isOrphan(input, i)) return
    const call = callOf(input, i)
    assert.equal(side(call), side(i), `${where}: result ${i} and its call ${call} were separated`)
  })
  // At least `keep.messages` messages are kept (the cut only moves earlier).
  if (keep.messages !== undefined) {
    const conversation = input.filter((m, i) => i >= lead && !isOrphan(input, i)).length
    const after = kept.length - leading.length
    assert.ok(after >= Math.min(keep.messages, conversation), `${where}: kept ${after} < ${keep.messages}`)
  }
  // The summarizer reads the newest replaced messages, in order.
  const s = request.summarized
  assert.ok(s.length >= 1 && s.length <= request.replaced.length, where)
  assert.deepEqual(s, request.replaced.slice(request.replaced.length - s.length), `${where}: summarized are the newest replaced`)
}

/** The index of the AI message whose call `input[i]` answers (an earlier one), or -1. */
function callOf(input, i) {
  const id = input[i].tool_call_id
  for (let j = i - 1; j >= 0; j--) if (input[j]._getType() === 'ai' && input[j].tool_calls?.some((c) => c.id === id)) return j
  return -1
}

function isOrphan(input, i) {
  return input[i]._getType() === 'tool' && callOf(input, i) < 0
}

describe('the summarization cutoff over irregular histories, keep at every position', () => {
  test(`${SEEDS} seeded histories: pairs kept, one run replaced, kept messages verbatim, edit = editAsync`, async () => {
    let fired = 0
    let asked = 0
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = rng(seed * 31)
      const input = irregular(seed, Math.floor(r() * 24))
      for (const keep of keeps(r, input.length)) {
        const editor = new ContextEditor({ edits: [{ type: 'summarize', trigger: { messages: 1 }, keep }] })
        let request
        const summarize = (req) => ((request = req), `summary of ${req.replaced.length}`)
        const where = `seed ${seed}, ${input.length} messages, keep ${JSON.stringify(keep)}`
        const result = editor.edit(input, { summarize })
        checkCut(input, result, request, keep, where)
        if (request) fired++
        asked++
        const again = await editor.editAsync(input, { summarize: async (req) => `summary of ${req.replaced.length}` })
        assert.deepEqual(again.messages, result.messages, `${where}: editAsync differs`)
        assert.deepEqual(again.report, result.report, `${where}: editAsync's report differs`)
      }
    }
    assert.ok(fired > asked / 3, `summarized ${fired} of ${asked}`)
  })

  test('histories of 0 and 1 message, and of system messages only, are never summarized away', () => {
    const cases = [
      [],
      [new HumanMessage({ content: 'hi', id: 'h' })],
      [new SystemMessage({ content: 'a', id: 's1' }), new SystemMessage({ content: 'b', id: 's2' })],
    ]
    for (const input of cases) {
      for (const keep of [{ messages: 0 }, { messages: 1 }, { tokens: 0 }, { turns: 0 }]) {
        let asked = false
        const editor = new ContextEditor({ edits: [{ type: 'summarize', trigger: { messages: 1 }, keep }] })
        const { messages } = editor.edit(input, { summarize: () => ((asked = true), 'S') })
        const where = `${input.length} messages, keep ${JSON.stringify(keep)}`
        if (input.length === 1 && (keep.messages === 0 || keep.turns === 0)) {
          // Keeping nothing summarizes the single message: explicit, as in LangChain.
          assert.ok(asked, where)
          continue
        }
        assert.equal(asked, false, where)
        messages.forEach((m, i) => assert.equal(m, input[i], where))
        assert.equal(messages.length, input.length, where)
      }
    }
  })
})
