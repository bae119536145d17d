// Differential parity with the real LangChain.js `ClearToolUsesEdit` (langchain 1.5.14) in approx
// mode, on seeded random conversations, plus one test per deliberate difference (SEMANTICS §2, §7).

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ClearToolUsesEdit, contextEditingMiddleware, countTokensApproximately } from 'langchain'

import { ContextEditor } from '../dist/index.js'
import { buildMessages, conversationSpecs, editOptions } from './support/conversations.mjs'
import { Rng } from './support/prng.mjs'
import { approxTokens, quietly, snapshot, typeOf } from './support/util.mjs'

const CASES = 1200
const BASE_SEED = 0x5eed0000

/** What parity compares per message: the fields an edit decides. */
function view(m) {
  return {
    type: typeOf(m),
    content: m.content,
    tool_call_id: m.tool_call_id,
    name: m.name,
    tool_calls: m.tool_calls?.map((c) => ({ id: c.id, name: c.name, args: c.args })),
    response_metadata: m.response_metadata,
  }
}

/** LangChain's model parameter: only its profile matters to `ClearToolUsesEdit`. */
function fakeModel(maxInputTokens, rng) {
  if (maxInputTokens !== undefined) return { profile: { maxInputTokens } }
  // Unknown limit, in each form LangChain meets it.
  return rng.pick([undefined, {}, { profile: {} }, { profile: { maxInputTokens: null } }])
}

async function runLangChain(specs, options, model) {
  const messages = buildMessages(specs)
  const edit = quietly(() => new ClearToolUsesEdit(structuredClone(options)))
  await edit.apply({ messages, model, countTokens: countTokensApproximately })
  return messages
}

function runOurs(specs, options, maxInputTokens) {
  const editor = new ContextEditor(structuredClone(options))
  const input = buildMessages(specs)
  return editor.edit(input, maxInputTokens === undefined ? {} : { maxInputTokens })
}

/** Returns undefined when equal, else a description of the first difference. */
function firstDifference(ours, theirs) {
  if (ours.length !== theirs.length) return `length: ours ${ours.length}, LangChain ${theirs.length}`
  for (let i = 0; i < ours.length; i++) {
    try {
      assert.deepStrictEqual(view(ours[i]), view(theirs[i]))
    } catch (e) {
      return `message ${i}: ${e.message}`
    }
  }
  return undefined
}

describe('differential parity with langchain ClearToolUsesEdit (approx mode)', () => {
  test('countTokensApproximately exported by langchain equals the reference copy used by the specs', () => {
    const rng = new Rng(7)
    for (let n = 0; n < 50; n++) {
      const msgs = buildMessages(conversationSpecs(rng))
      assert.equal(approxTokens(msgs), countTokensApproximately(msgs))
    }
  })

  test(`same decisions as LangChain on ${CASES} seeded random conversations`, async () => {
    const stats = {
      triggered: 0,
      untriggered: 0,
      cleared: 0,
      orphans: 0,
      clearedInputs: 0,
      clearAtLeastExtra: 0,
      fractionKnown: 0,
      fractionUnknown: 0,
      keepZero: 0,
      excludedSkips: 0,
      preCleared: 0,
      arrayTrigger: 0,
    }
    const failures = []
    for (let n = 0; n < CASES; n++) {
      const seed = BASE_SEED + n
      const rng = new Rng(seed)
      const specs = conversationSpecs(rng)
      const built = buildMessages(specs)
      const tokens = countTokensApproximately(built)
      const { options, maxInputTokens } = editOptions(rng, tokens, built.length)
      const model = fakeModel(maxInputTokens, rng)

      const theirs = await runLangChain(specs, options, model)
      const { messages: ours, report } = runOurs(specs, options, maxInputTokens)

      const diff = firstDifference(ours, theirs)
      if (diff) {
        failures.push({ seed, diff, options, maxInputTokens })
        if (failures.length >= 5) break
        continue
      }
      // The report agrees with LangChain's own counter on the input and on the result.
      assert.equal(report.tokensBefore, tokens, `seed ${seed}: tokensBefore`)
      assert.equal(report.tokensAfter, countTokensApproximately(theirs), `seed ${seed}: tokensAfter`)
      assert.equal(report.messagesAfter, theirs.length, `seed ${seed}: messagesAfter`)
      assert.equal(report.removedOrphans.length, built.length - theirs.length, `seed ${seed}: removedOrphans`)

      stats[report.triggered ? 'triggered' : 'untriggered']++
      stats.cleared += report.cleared.length
      stats.orphans += report.removedOrphans.length
      stats.clearedInputs += report.clearedToolInputs.length
      if (options.clearAtLeast) {
        const { clearAtLeast, ...without } = options
        const base = runOurs(specs, without, maxInputTokens).report.cleared.length
        if (report.cleared.length > base) stats.clearAtLeastExtra++
      }
      const fractions = [options.trigger].flat().some((c) => c?.fraction) || options.keep?.fraction !== undefined
      if (fractions) stats[maxInputTokens === undefined ? 'fractionUnknown' : 'fractionKnown']++
      if (options.keep?.messages === 0 || options.keep?.tokens === 0 || options.keep?.fraction === 0) stats.keepZero++
      if (options.excludeTools?.length && report.triggered) stats.excludedSkips++
      if (specs.some((s) => s.response_metadata?.context_editing?.cleared)) stats.preCleared++
      if (Array.isArray(options.trigger)) stats.arrayTrigger++
    }
    if (process.env.PARITY_STATS) console.log(stats)
    if (failures.length) {
      assert.fail(
        `${failures.length} discrepancies, first: seed ${failures[0].seed} options ${JSON.stringify(failures[0].options)} ` +
          `maxInputTokens ${failures[0].maxInputTokens}\n${failures[0].diff}`,
      )
    }
    // The generator must actually exercise the interesting paths.
    assert.ok(stats.triggered > CASES * 0.3, `triggered ${stats.triggered}`)
    assert.ok(stats.untriggered > CASES * 0.1, `untriggered ${stats.untriggered}`)
    assert.ok(stats.cleared > CASES, `cleared ${stats.cleared}`)
    assert.ok(stats.orphans > 50, `orphans ${stats.orphans}`)
    assert.ok(stats.clearedInputs > 100, `clearedInputs ${stats.clearedInputs}`)
    for (const k of ['clearAtLeastExtra', 'fractionKnown', 'fractionUnknown', 'keepZero', 'excludedSkips', 'preCleared', 'arrayTrigger']) {
      assert.ok(stats[k] > 20, `${k} ${stats[k]}`)
    }
  })
  test('every option combination agrees with LangChain (exhaustive grid, 2 conversations each)', async () => {
    const rng = new Rng(0xc0ffee)
    const conversations = []
    while (conversations.length < 2) {
      const specs = conversationSpecs(rng, { maxTurns: 12 })
      const built = buildMessages(specs)
      // Conversations with enough tool results for the keep window to matter.
      if (built.filter((m) => ToolMessage.isInstance(m)).length >= 6) conversations.push({ specs, built })
    }
    let combos = 0
    let triggered = 0
    for (const { specs, built } of conversations) {
      const t = countTokensApproximately(built)
      const len = built.length
      const triggers = [
        { tokens: Math.ceil(t / 2) },
        { messages: Math.ceil(len / 2) },
        { fraction: 0.5 },
        [{ tokens: t + 1 }, { messages: len - 1, tokens: Math.ceil(t / 3) }, { fraction: 0.9 }],
        [], // an OR of nothing: never fires (orphans still go), as in LangChain
      ]
      const keeps = [{ messages: 0 }, { messages: 2 }, { tokens: 0 }, { tokens: Math.ceil(t / 4) }, { fraction: 0 }, { fraction: 0.2 }]
      for (const trigger of triggers) {
        for (const keep of keeps) {
          for (const excludeTools of [undefined, ['search', 'shell']]) {
            for (const placeholder of [undefined, '<removed>']) {
              for (const clearToolInputs of [false, true]) {
                for (const clearAtLeast of [0, Math.ceil(t / 3)]) {
                  for (const maxInputTokens of [undefined, t + 7]) {
                    const options = { trigger, keep, clearToolInputs, clearAtLeast }
                    if (excludeTools) options.excludeTools = excludeTools
                    if (placeholder !== undefined) options.placeholder = placeholder
                    const model = maxInputTokens === undefined ? undefined : { profile: { maxInputTokens } }
                    const theirs = await runLangChain(specs, options, model)
                    const { messages: ours, report } = runOurs(specs, options, maxInputTokens)
                    const diff = firstDifference(ours, theirs)
                    if (diff) assert.fail(`options ${JSON.stringify(options)} maxInputTokens ${maxInputTokens}: ${diff}`)
                    assert.equal(report.tokensAfter, countTokensApproximately(theirs))
                    combos++
                    if (report.triggered) triggered++
                  }
                }
              }
            }
          }
        }
      }
    }
    assert.equal(combos, 2 * 5 * 6 * 2 * 2 * 2 * 2 * 2)
    assert.ok(triggered > combos / 3, `triggered ${triggered} of ${combos}`)
  })
})

describe('deliberate differences from langchain (each shown against the real thing)', () => {
  const history = () => [
    new HumanMessage('look it up'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'search', args: { q: 'a' } }] }),
    new ToolMessage({ content: 'x'.repeat(400), tool_call_id: 'c1', name: 'search' }),
    new AIMessage({ content: '', tool_calls: [{ id: 'c2', name: 'search', args: { q: 'b' } }] }),
    new ToolMessage({ content: 'y'.repeat(400), tool_call_id: 'c2', name: 'search' }),
    new AIMessage('done'),
  ]

  test('the system prompt counts toward the trigger (LangChain approx mode ignores it)', async () => {
    const messages = history()
    const tokens = countTokensApproximately(messages)
    const systemPrompt = 's'.repeat(400) // +100 approx tokens
    const options = { trigger: { tokens: tokens + 50 }, keep: { messages: 1 } }

    // LangChain's middleware, as createAgent runs it, with the same system prompt.
    const lcMessages = history()
    const middleware = contextEditingMiddleware({ edits: [new ClearToolUsesEdit(options)] })
    let seen
    await middleware.wrapModelCall({ messages: lcMessages, systemPrompt, model: {} }, async (req) => {
      seen = req.messages
      return new AIMessage('ok')
    })
    assert.equal(seen[2].content, 'x'.repeat(400), 'LangChain did not clear: it ignored the system prompt')

    const editor = new ContextEditor(options)
    const { messages: ours, report } = editor.edit(messages, { systemPrompt })
    assert.equal(report.triggered, true)
    assert.equal(report.tokensBefore, tokens + 100)
    assert.equal(ours[2].content, '[cleared]')
    assert.equal(ours[4].content, 'y'.repeat(400))
    // Without the system prompt both agree: not triggered.
    assert.equal(editor.edit(messages).report.triggered, false)
  })

  test('two calls sharing one id in one AI message: clearing inputs wipes only the cleared call', async () => {
    const dup = () => [
      new HumanMessage('twice'),
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'dup', name: 'read_file', args: { path: 'a.rs' } },
          { id: 'dup', name: 'read_file', args: { path: 'b.rs' } },
        ],
      }),
      new ToolMessage({ content: 'fn a() {}', tool_call_id: 'dup', name: 'read_file' }),
      new ToolMessage({ content: 'fn b() {}', tool_call_id: 'dup', name: 'read_file' }),
    ]
    const options = { trigger: { messages: 1 }, keep: { messages: 1 }, clearToolInputs: true }
    const theirs = dup()
    await new ClearToolUsesEdit(options).apply({ messages: theirs, model: undefined, countTokens: countTokensApproximately })
    assert.deepEqual(
      theirs[1].tool_calls.map((c) => c.args),
      [{}, {}],
      'LangChain wipes the kept sibling too',
    )
    assert.equal(theirs[3].content, 'fn b() {}')

    const { messages: ours } = new ContextEditor(options).edit(dup())
    assert.deepEqual(
      ours[1].tool_calls.map((c) => c.args),
      [{}, { path: 'b.rs' }],
    )
    assert.equal(ours[2].content, '[cleared]')
    assert.equal(ours[3].content, 'fn b() {}')
    assert.deepEqual(ours[1].response_metadata.context_editing, { cleared_tool_inputs: ['dup'] })
  })

  test('cleared tool messages keep id, status and unknown fields (LangChain drops them)', async () => {
    const make = () => [
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'shell', args: { cmd: 'ls' } }] }),
      new ToolMessage({
        content: 'permission denied',
        tool_call_id: 'c1',
        name: 'shell',
        id: 'msg-7',
        status: 'error',
        artifact: { raw: 'big' },
        additional_kwargs: { trace: 'abc' },
        response_metadata: { source: 'sandbox' },
      }),
      new AIMessage('sorry'),
    ]
    const options = { trigger: { messages: 1 }, keep: { messages: 0 } }
    const theirs = make()
    await new ClearToolUsesEdit(options).apply({ messages: theirs, model: undefined, countTokens: countTokensApproximately })
    assert.equal(theirs[1].content, '[cleared]')
    assert.equal(theirs[1].id, undefined, 'LangChain loses the message id')
    assert.notEqual(theirs[1].status, 'error', 'LangChain loses the status')

    const { messages: ours } = new ContextEditor(options).edit(make())
    const cleared = ours[1]
    assert.ok(ToolMessage.isInstance(cleared))
    assert.equal(cleared.content, '[cleared]')
    assert.equal(cleared.id, 'msg-7')
    assert.equal(cleared.status, 'error')
    assert.deepEqual(cleared.additional_kwargs, { trace: 'abc' })
    assert.equal(cleared.artifact, undefined, 'the artifact is what clearing drops')
    assert.deepEqual(cleared.response_metadata, {
      source: 'sandbox',
      context_editing: { cleared: true, strategy: 'clear_tool_uses' },
    })
  })

  test('AI messages rebuilt for clearToolInputs keep usage_metadata and invalid_tool_calls (LangChain drops them)', async () => {
    const make = () => [
      new AIMessage({
        content: 'two calls',
        tool_calls: [
          { id: 'c1', name: 'search', args: { q: 'old' } },
          { id: 'c2', name: 'search', args: { q: 'new' } },
        ],
        invalid_tool_calls: [{ id: 'bad', name: 'search', args: '{oops', error: 'bad json' }],
        usage_metadata: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
        id: 'ai-1',
      }),
      new ToolMessage({ content: 'old result', tool_call_id: 'c1', name: 'search' }),
      new ToolMessage({ content: 'new result', tool_call_id: 'c2', name: 'search' }),
    ]
    const options = { trigger: { messages: 1 }, keep: { messages: 1 }, clearToolInputs: true }
    const theirs = make()
    await new ClearToolUsesEdit(options).apply({ messages: theirs, model: undefined, countTokens: countTokensApproximately })
    assert.deepEqual(theirs[0].tool_calls[0].args, {})
    assert.equal(theirs[0].usage_metadata, undefined, 'LangChain loses usage_metadata')
    assert.deepEqual(theirs[0].invalid_tool_calls, [], 'LangChain loses invalid_tool_calls')

    const input = make()
    const { messages: ours } = new ContextEditor(options).edit(input)
    assert.deepEqual(
      ours[0].tool_calls.map((c) => c.args),
      [{}, { q: 'new' }],
    )
    assert.deepEqual(ours[0].usage_metadata, { input_tokens: 10, output_tokens: 5, total_tokens: 15 })
    assert.equal(ours[0].invalid_tool_calls.length, 1)
    assert.deepEqual(ours[0].invalid_tool_calls, input[0].invalid_tool_calls)
    assert.equal(ours[0].invalid_tool_calls[0].id, 'bad')
    assert.equal(ours[0].id, 'ai-1')
  })

  test('Anthropic tool_use blocks lose their input together with the cleared call (LangChain leaves them)', async () => {
    const make = () => [
      new AIMessage({
        content: [
          { type: 'text', text: 'let me look' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'big.rs' } },
        ],
        tool_calls: [{ id: 'toolu_1', name: 'read_file', args: { path: 'big.rs' } }],
      }),
      new ToolMessage({ content: 'fn main() {}', tool_call_id: 'toolu_1', name: 'read_file' }),
    ]
    const options = { trigger: { messages: 1 }, keep: { messages: 0 }, clearToolInputs: true }
    const theirs = make()
    await new ClearToolUsesEdit(options).apply({ messages: theirs, model: undefined, countTokens: countTokensApproximately })
    assert.deepEqual(theirs[0].tool_calls[0].args, {})
    assert.deepEqual(theirs[0].content[1].input, { path: 'big.rs' }, 'LangChain: the block still carries the input')

    const { messages: ours } = new ContextEditor(options).edit(make())
    assert.deepEqual(ours[0].tool_calls[0].args, {})
    assert.deepEqual(ours[0].content, [
      { type: 'text', text: 'let me look' },
      { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} },
    ])
  })

  test('the input is never mutated (LangChain edits the array it is given in place)', async () => {
    const options = { trigger: { messages: 1 }, keep: { messages: 1 } }
    const withOrphan = () => [new ToolMessage({ content: 'stray', tool_call_id: 'nobody' }), ...history()]

    const theirs = withOrphan()
    const theirsBefore = snapshot(theirs)
    await new ClearToolUsesEdit(options).apply({ messages: theirs, model: undefined, countTokens: countTokensApproximately })
    assert.notDeepStrictEqual(snapshot(theirs), theirsBefore, 'LangChain rewrote the caller array')
    assert.equal(theirs.length, 6, 'LangChain spliced the orphan out of the caller array')

    const input = withOrphan()
    const before = snapshot(input)
    const { messages: ours } = new ContextEditor(options).edit(input)
    assert.deepStrictEqual(snapshot(input), before)
    assert.equal(input.length, 7)
    assert.notEqual(ours, input)
    assert.equal(ours.length, 6)
    // Same decision as LangChain on the content.
    assert.deepEqual(ours.map(view), theirs.map(view))
  })
})
