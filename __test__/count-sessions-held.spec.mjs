// A host that counts a growing history every turn without editing it (a token meter, LangChain's
// summarization with our count as its `tokenCounter`): from the second count of a history, each
// count goes through a session that then holds the history (`countHeld` in the binding), so only
// what is new is read, crosses and is measured. Such a count must be exactly the whole count a new
// editor gives, in every counting mode, sync or async, after every kind of change to the history;
// the edit that follows must be a new editor's; a count must never keep a history that is not
// counted again (each parsed request new objects), nor one the editor counts for itself.
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
  { tokenCountMethod: 'estimate' },
  { tokenCountMethod: 'model', tokenizer: 'qwen3' },
  { tokenCountMethod: 'model', tokenizer: 'llama3' },
]

function contextOf(r) {
  const tools = [{ type: 'function', function: { name: 'search', description: words(r, 6), parameters: { type: 'object' } } }]
  switch (r.int(0, 3)) {
    case 0:
      return undefined
    case 1:
      return { systemPrompt: words(r, 12) }
    case 2:
      return { systemPrompt: words(r, 8), tools }
    default:
      return { systemPrompt: words(r, 4), tokenCorrection: 1 + r.int(0, 40) / 100 }
  }
}

/** Calls of the binding's held counts: how many, and how many continued a session (`reuse` above 0, not a miss). */
function spyOnHeldCounts() {
  const seen = { calls: 0, continued: 0, misses: 0, sent: 0 }
  const restore = spyOnBinding(['countHeld', 'countHeldColumns', 'countHeldAsync', 'countHeldColumnsAsync'], ([, reuse, tail], out) => {
    seen.calls++
    if (out === null) seen.misses++
    else if (reuse > 0) seen.continued++
    seen.sent += Array.isArray(tail) ? tail.length : tail?.ints ? tail.ints.length / 3 : 0
  })
  return { seen, restore }
}

const errorOf = (e) => ({ error: { code: e.code, messageIndex: e.messageIndex, path: e.path } })
const outcome = (f) => {
  try {
    return { value: f() }
  } catch (e) {
    return errorOf(e)
  }
}
const outcomeAsync = (f) => f().then((value) => ({ value }), errorOf)
const json = (x) => JSON.parse(JSON.stringify(x))

test('a host that counts every turn gets the whole count a new editor gives, sync and async, and from its second count sends only what is new', async () => {
  const spy = spyOnHeldCounts()
  try {
    let compared = 0
    for (let seed = 1; seed <= 20; seed++) {
      const r = new Rng(8800 + seed)
      const mode = MODES[seed % MODES.length]
      const history = (r.chance(0.6) ? langchain : plain)(r, r.int(20, 48))
      const opts = { trigger: { tokens: r.int(50, 400) }, keep: { messages: r.int(0, 3) }, ...mode }
      const editor = new ContextEditor(opts)
      const context = contextOf(r)
      let end = r.int(2, 8)
      for (let turn = 0; turn < 12; turn++) {
        const step = r.int(0, 9)
        // Mostly grown by a turn; sometimes the same again, cut back, or grown by many.
        if (step < 6) end = Math.min(history.length, end + r.int(1, 3))
        else if (step === 6) end = Math.max(1, end - r.int(1, 4))
        else if (step === 7) end = Math.min(history.length, end + r.int(8, 16))
        const list = history.slice(0, end)
        const want = outcome(() => new ContextEditor(opts).countTokens(list, context))
        const got = r.chance(0.3) ? await outcomeAsync(() => editor.countTokensAsync(list, context)) : outcome(() => editor.countTokens(list, context))
        assert.deepEqual(got, want, `seed ${seed}, turn ${turn}: a count of ${end} messages`)
        compared++
      }
      // One conversation held, however the history moved.
      assert.ok(editor.sessionCount <= 1, `seed ${seed}: ${editor.sessionCount} sessions`)
      // The edit that follows the counts continues from them, and is a new editor's.
      const list = history.slice(0, Math.min(history.length, end + 2))
      assert.deepEqual(
        json(outcome(() => editor.edit(list, context))),
        json(outcome(() => new ContextEditor(opts).edit(list, context))),
        `seed ${seed}: the edit after the counts`,
      )
    }
    assert.ok(compared >= 240, `${compared} counts compared`)
    // The counts went through sessions that continued (a whole count each time would pass too),
    // and what crossed was the new messages, not the histories.
    assert.ok(spy.seen.continued > 140, `held counts that continued a session: ${spy.seen.continued} of ${spy.seen.calls}`)
    // A miss (a history cut back to a message a chat template frames apart, whose text the
    // session no longer holds) is counted again from nothing: rare.
    assert.ok(spy.seen.misses <= spy.seen.calls / 20, `${spy.seen.misses} of ${spy.seen.calls} held counts missed`)
    assert.ok(spy.seen.sent < compared * 8, `${spy.seen.sent} messages crossed for ${compared} counts`)
  } finally {
    spy.restore()
  }
})

test('a history changed since it was counted is counted as it is now, and so is the edit after it', () => {
  for (let seed = 1; seed <= 10; seed++) {
    const r = new Rng(9100 + seed)
    const mode = MODES[seed % MODES.length]
    const opts = { trigger: { tokens: 100 }, keep: { messages: 1 }, ...mode }
    const changes = {
      'a message replaced by a new object': (h) => h.map((m, i) => (i === 3 ? new HumanMessage(`replaced ${words(r, 5)}`) : m)),
      'a message changed in place (its content)': (h) => {
        h[2].content = `changed ${words(r, 7)}`
        return h
      },
      'a tool call’s arguments changed in place, then invalidated': (h, editor) => {
        const ai = h.find((m) => m.tool_calls?.length && m.tool_calls[0].args)
        if (ai) {
          ai.tool_calls[0].args.q = `${ai.tool_calls[0].args.q} ${words(r, 30)}`
          editor.invalidate(ai)
        }
        return h
      },
      'a shorter history': (h) => h.slice(0, h.length - 3),
      'messages inserted before the end': (h) => [...h.slice(0, 5), new HumanMessage(words(r, 9)), ...h.slice(5)],
    }
    for (const [what, change] of Object.entries(changes)) {
      const history = langchain(r, 24)
      const editor = new ContextEditor(opts)
      const context = contextOf(r)
      // Counted twice (the second holds it), then grown and counted again.
      editor.countTokens(history.slice(0, 16), context)
      editor.countTokens(history.slice(0, 18), context)
      editor.countTokens(history, context)
      const now = change(history.slice(), editor)
      assert.deepEqual(editor.countTokens(now, context), new ContextEditor(opts).countTokens(now, context), `seed ${seed}: ${what}`)
      const grown = [...now, new HumanMessage('and then')]
      assert.deepEqual(editor.countTokens(grown, context), new ContextEditor(opts).countTokens(grown, context), `seed ${seed}: grown after ${what}`)
      assert.deepEqual(json(editor.edit(grown, context)), json(new ContextEditor(opts).edit(grown, context)), `seed ${seed}: the edit after, ${what}`)
    }
  }
})

test('counts after an edit leave the edit’s conversation as it was: the next edit reuses its output', () => {
  const r = new Rng(31)
  const history = langchain(r, 40)
  const opts = { trigger: { tokens: 60 }, keep: { messages: 1 } }
  const editor = new ContextEditor(opts)
  const first = editor.edit(history.slice(0, 30))
  for (const end of [30, 32, 34]) assert.deepEqual(editor.countTokens(history.slice(0, end)), new ContextEditor(opts).countTokens(history.slice(0, end)))
  const next = editor.edit(history.slice(0, 36))
  assert.deepEqual(json(next), json(new ContextEditor(opts).edit(history.slice(0, 36))))
  assert.equal(editor.sessionCount, 1)
  // Cleared results the first edit made and the second kept are its copies again (templates
  // handed out anew: equal, not the same objects), which a conversation moved on by a count
  // would have rebuilt; either way the caller's own messages are untouched.
  const cleared = first.messages.findIndex((m) => m.response_metadata?.context_editing?.cleared)
  assert.ok(cleared >= 0, 'the first edit cleared a result')
  assert.deepEqual(json(next.messages[cleared]), json(first.messages[cleared]))
})

test('a history never counted before is counted whole and held nowhere: a host that parses each request anew keeps no sessions', async () => {
  const r = new Rng(12)
  const history = plain(r, 30)
  const editor = new ContextEditor({ trigger: { tokens: 100 } })
  for (let k = 0; k < 40; k++) {
    const parsed = json(history) // new objects every time, as from a request's body
    assert.deepEqual(editor.countTokens(parsed), new ContextEditor({ trigger: { tokens: 100 } }).countTokens(parsed))
    await editor.countTokensAsync(json(history))
  }
  assert.equal(editor.sessionCount, 0)
  // The same objects counted again: held from the second count.
  editor.countTokens(history.slice(0, 20))
  assert.equal(editor.sessionCount, 0, 'first count')
  editor.countTokens(history.slice(0, 22))
  assert.equal(editor.sessionCount, 1, 'second count')
  // `clearCache` forgets what was counted: the next count is a first one again.
  editor.clearCache()
  editor.countTokens(history.slice(0, 24))
  assert.equal(editor.sessionCount, 0, 'after clearCache')
})

test('a summary’s recount holds nothing', async () => {
  const r = new Rng(77)
  const history = langchain(r, 30)
  const opts = { edits: [{ type: 'summarize', trigger: { tokens: 50 }, keep: { messages: 4 } }] }
  const editor = new ContextEditor(opts)
  const context = { summarize: () => 'a summary of what came before' }
  const out = editor.edit(history, context)
  assert.ok(out.messages.length < history.length, 'the edit summarized')
  const sessions = editor.sessionCount
  await editor.editAsync(history, { summarize: async () => 'a summary of what came before' })
  assert.equal(editor.sessionCount, sessions, 'the recounts kept no session')
})

test('a bad message in what is new is the whole count’s error, and the held conversation stays usable', async () => {
  for (const mode of MODES) {
    const r = new Rng(5)
    const history = langchain(r, 20)
    const opts = { trigger: { tokens: 60 }, keep: { messages: 1 }, ...mode }
    const editor = new ContextEditor(opts)
    editor.countTokens(history.slice(0, 15))
    editor.countTokens(history)
    for (const bad of [
      [...history, { role: 'user', content: 42 }],
      [...history, { role: 'tool', content: 'x' }],
    ]) {
      const got = outcome(() => editor.countTokens(bad))
      assert.equal(got.error?.code, 'INVALID_MESSAGE', JSON.stringify(got))
      assert.deepEqual(
        got,
        outcome(() => new ContextEditor(opts).countTokens(bad)),
      )
      assert.deepEqual(await outcomeAsync(() => editor.countTokensAsync(bad)), got)
    }
    const grown = [...history, new HumanMessage('and then')]
    assert.deepEqual(editor.countTokens(grown), new ContextEditor(opts).countTokens(grown))
    assert.deepEqual(json(editor.edit(grown)), json(new ContextEditor(opts).edit(grown)))
  }
})

test('async counts of one history in flight together, and beside edits, each give the whole count', async () => {
  const r = new Rng(64)
  const history = langchain(r, 60)
  for (const mode of MODES.slice(0, 2)) {
    const opts = { trigger: { tokens: 80 }, keep: { messages: 1 }, ...mode }
    const editor = new ContextEditor(opts)
    const fresh = (n) => new ContextEditor(opts).countTokens(history.slice(0, n))
    await editor.countTokensAsync(history.slice(0, 10))
    for (let end = 12; end <= 60; end += 12) {
      const ends = [end - 2, end, end, end - 1]
      const got = await Promise.all(ends.map((n) => editor.countTokensAsync(history.slice(0, n))))
      got.forEach((c, k) => assert.deepEqual(c, fresh(ends[k]), `${ends[k]} messages, in flight with others`))
      const [edited, counted] = await Promise.all([editor.editAsync(history.slice(0, end)), editor.countTokensAsync(history.slice(0, end + 1))])
      assert.deepEqual(json(edited), json(new ContextEditor(opts).edit(history.slice(0, end))))
      assert.deepEqual(counted, fresh(end + 1))
    }
  }
})

test('a clear_media pipeline with a token trigger counts its messages through a held session; its edits are a new editor’s', () => {
  const spy = spyOnHeldCounts()
  try {
    const r = new Rng(3)
    const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
    const history = []
    for (let k = 0; k < 30; k++) {
      history.push({
        role: 'user',
        content: [
          { type: 'text', text: words(r, 6) },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      })
      history.push({ role: 'assistant', content: words(r, 8) })
    }
    const opts = {
      edits: [
        { type: 'clear_media', trigger: { tokens: 200 }, keep: { media: 2 } },
        { type: 'clear_tool_uses', trigger: { tokens: 100000 } },
      ],
    }
    const editor = new ContextEditor(opts)
    for (let end = 6; end <= history.length; end += 2) {
      const list = history.slice(0, end)
      assert.deepEqual(json(editor.edit(list)), json(new ContextEditor(opts).edit(list)), `${end} messages`)
    }
    assert.ok(spy.seen.continued > 20, `the trigger's counts continued a session ${spy.seen.continued} times`)
  } finally {
    spy.restore()
  }
})

test('the binding: a held count is the whole count, moves the session on, and misses only on what it does not hold', async () => {
  const { toColumns } = await import('../dist/wire.js')
  const lengthsOnly = { sendText: false, sendToolText: false, placeholders: undefined, cache: undefined, messageTokens: undefined }
  const r = new Rng(6)
  const history = langchain(r, 30)
  const columns = (from, to) => toColumns(history, from, to, lengthsOnly, [])[0]
  const native = new NativeContextEditor({ trigger: { tokens: 80 }, keep: { messages: 1 } })
  const context = { systemPromptLength: 120, toolLengths: [300] }
  const whole = (to) => native.countTokensColumns(columns(0, to), context)
  assert.deepEqual(native.countHeldColumns(1, 0, columns(0, 20), context), whole(20), 'from nothing')
  assert.deepEqual(native.countHeldColumns(1, 20, columns(20, 24), context), whole(24), 'grown')
  assert.deepEqual(native.countSessionColumns(1, 24, columns(24, 24), context), whole(24), 'the session holds 24 messages now')
  assert.deepEqual(native.countHeldColumns(1, 18, columns(18, 18), context), whole(18), 'cut back')
  assert.deepEqual(await native.countHeldColumnsAsync(1, 18, columns(18, 30), context), whole(30), 'grown, on the pool')
  assert.equal(native.sessionCount, 1)
  // A bad tail is the whole count's error, with the index in the whole conversation; the session stays.
  assert.throws(
    () => native.countHeld(1, 30, [{ role: 'tool', content: 'x' }], context),
    (e) => e.code === 'INVALID_MESSAGE' && e.messageIndex === 30,
  )
  await assert.rejects(native.countHeldAsync(1, 30, [{ role: 'tool', content: 'x' }], context), (e) => e.code === 'INVALID_MESSAGE' && e.messageIndex === 30)
  assert.deepEqual(native.countSessionColumns(1, 30, columns(30, 30), context), whole(30), 'the session is still there')
  // A plan continues from the count.
  const next = native.planSessionColumns(1, 30, columns(30, 30), context)
  const fresh = new NativeContextEditor({ trigger: { tokens: 80 }, keep: { messages: 1 } }).planSessionColumns(1, 0, columns(0, 30), context)
  assert.deepEqual([...next.ops], [...fresh.ops])
  assert.equal(next.reportJson ?? next.report.json(), fresh.reportJson ?? fresh.report.json())
  // Misses: more than the session holds (which drops it, as a plan's miss does), an unknown session.
  assert.equal(native.countHeldColumns(1, 31, columns(30, 30), context), null, 'more than it holds')
  assert.equal(native.sessionCount, 0, 'a miss drops the session')
  assert.equal(native.countHeldColumns(2, 5, columns(5, 30), context), null, 'an unknown session')
  assert.deepEqual(native.countHeldColumns(2, 0, columns(0, 30), context), whole(30), 'from nothing again')
})

test('LangChain’s own summarizationMiddleware under createAgent, with this count as its tokenCounter: each turn’s count is a new editor’s, through the held session', async () => {
  const { createAgent, tool, summarizationMiddleware } = await import('langchain')
  const { z } = await import('zod')
  const { ScriptedToolModel } = await import('./fixtures/langchain-agent/scripted-model.mjs')
  const TURNS = 24
  const readPage = tool(async ({ page }) => `page ${page}\n${'lorem ipsum dolor '.repeat(60)}`, {
    name: 'read_page',
    description: 'Read one page.',
    schema: z.object({ page: z.number() }),
  })
  for (const mode of [{}, { tokenCountMethod: 'model', model: 'gpt-4o' }]) {
    const spy = spyOnHeldCounts()
    try {
      const editor = new ContextEditor(mode)
      const counted = []
      const tokenCounter = (messages) => {
        const total = editor.countTokens(messages).total
        counted.push({ messages: messages.slice(), total })
        return total
      }
      const model = new ScriptedToolModel({ turns: TURNS, toolName: 'read_page', args: (turn) => ({ page: turn }), answer: 'Read.' })
      const agent = createAgent({
        model,
        tools: [readPage],
        systemPrompt: 'Read every page.',
        middleware: [summarizationMiddleware({ model, trigger: { tokens: 1e9 }, tokenCounter })],
      })
      const result = await agent.invoke({ messages: [{ role: 'user', content: 'Read the report.' }] }, { recursionLimit: 4 * TURNS + 10 })
      assert.equal(result.messages.at(-1).content, 'Read.')
      assert.equal(counted.length, TURNS + 1, 'one count per model call')
      for (const [k, { messages, total }] of counted.entries()) {
        assert.equal(total, new ContextEditor(mode).countTokens(messages).total, `${JSON.stringify(mode)}: count ${k} (${messages.length} messages)`)
      }
      // From the second count on, each continued the session of the count before.
      assert.ok(spy.seen.continued >= TURNS - 1, `${JSON.stringify(mode)}: ${spy.seen.continued} of ${spy.seen.calls} counts continued a session`)
      assert.ok(spy.seen.sent <= 2 * TURNS + 4, `${spy.seen.sent} messages crossed for ${TURNS + 1} counts`)
    } finally {
      spy.restore()
    }
  }
})

test('other message formats (Anthropic, AI SDK) are counted through held sessions too, each count a new editor’s', () => {
  const anthropic = [{ role: 'user', content: 'read them' }]
  const aiSdk = [{ role: 'user', content: 'read them' }]
  for (let k = 0; k < 20; k++) {
    anthropic.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${k}`, name: 'read', input: { p: k } }] })
    anthropic.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: 'x'.repeat(100 + k) }] })
    aiSdk.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${k}`, toolName: 'read', input: { p: k } }] })
    aiSdk.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${k}`, toolName: 'read', output: { type: 'text', value: 'y'.repeat(50 + k) } }] })
  }
  for (const [name, history] of [
    ['Anthropic', anthropic],
    ['AI SDK', aiSdk],
  ]) {
    for (const mode of MODES.slice(0, 2)) {
      const spy = spyOnHeldCounts()
      try {
        const editor = new ContextEditor(mode)
        for (let n = 3; n <= history.length; n += 2) {
          const list = history.slice(0, n)
          assert.deepEqual(editor.countTokens(list), new ContextEditor(mode).countTokens(list), `${name}, ${n} messages`)
        }
        assert.ok(spy.seen.continued >= 15, `${name}: ${spy.seen.continued} counts continued a session`)
      } finally {
        spy.restore()
      }
    }
  }
})
