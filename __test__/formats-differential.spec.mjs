// The same conversation in four formats (LangChain, Anthropic Messages, OpenAI Responses, AI SDK)
// gets the same decisions: the same results cleared with the same tokens freed, the same messages
// kept, the same token counts (the system prompt is `system` / `instructions` for Anthropic and
// Responses, a system message for AI SDK and its LangChain twin), sync and async, on seeded
// conversations and options, in every counting mode, through pipelines that remove messages.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { ContextEditor } from '../dist/index.js'
import { editOptions } from './support/conversations.mjs'
import { canonical, conversation, deepFreeze, toAiSdk, toAnthropic, toLangChain, toResponses } from './support/formats.mjs'
import { Rng } from './support/prng.mjs'

const SEEDS = 160

/** A random editor configuration for a conversation of `tokens` tokens and `count` messages. */
function configFor(rng, tokens, count) {
  const { options, maxInputTokens } = editOptions(rng, tokens, count)
  if (rng.chance(0.3)) options.tokenCountMethod = rng.pick(['model', 'estimate'])
  const r = rng.next()
  if (r < 0.6) return { options, maxInputTokens }
  const { tokenCountMethod, ...clear } = options
  const second = rng.pick([
    { type: 'trim_turns', maxTurns: rng.int(1, 4) },
    { type: 'last_n', n: rng.int(1, Math.max(1, count)) },
    { type: 'strip_tool_calls' },
    { type: 'truncate_tool_results', maxChars: rng.int(5, 200) },
  ])
  const edits = rng.chance(0.5) ? [{ type: 'clear_tool_uses', ...clear }, second] : [second, { type: 'clear_tool_uses', ...clear }]
  return { options: tokenCountMethod ? { tokenCountMethod, edits } : { edits }, maxInputTokens }
}

const decisions = (report) => ({
  triggered: report.triggered,
  tokensBefore: report.tokensBefore,
  tokensAfter: report.tokensAfter,
  stillTriggered: report.stillTriggered,
  cleared: report.cleared.map((c) => [c.toolCallId, c.tokensFreed]),
  clearedToolInputs: report.clearedToolInputs,
})

function formatsOf(conv) {
  return [
    // [format, input, reference LangChain messages, reference context]
    ['anthropic', toAnthropic(conv), toLangChain(conv), { systemPrompt: conv.system, model: 'claude-test' }],
    ['responses', toResponses(conv), toLangChain(conv), { systemPrompt: conv.system, model: 'gpt-test' }],
    ['aisdk', toAiSdk(conv, true), toLangChain(conv, true), {}],
  ]
}

const messagesOf = (format, input) => (format === 'aisdk' ? input : format === 'anthropic' ? input.messages : input.input)

test("every format gets the LangChain twin's decisions and counts, message by message", async () => {
  let triggered = 0
  let cleared = 0
  let removed = 0
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rng = new Rng(seed)
    const conv = conversation(rng)
    const probe = new ContextEditor()
    const size = probe.countTokens(toLangChain(conv)).total
    const { options, maxInputTokens } = configFor(rng, size, conv.events.length)
    for (const [format, input, ref, refContext] of formatsOf(conv)) {
      const where = `seed ${seed}, ${format}, options ${JSON.stringify(options)}`
      const want = new ContextEditor(options).edit(ref, { ...refContext, maxInputTokens })
      const editor = new ContextEditor(options)
      const frozen = deepFreeze(structuredClone(input))
      const got = editor.edit(frozen, { maxInputTokens })
      assert.deepEqual(decisions(got.report), decisions(want.report), where)
      const out = format === 'aisdk' ? got.messages : got.request[format === 'anthropic' ? 'messages' : 'input']
      assert.deepEqual(canonical(format, out), canonical('langchain', want.messages), where)
      if (format !== 'aisdk') assert.deepEqual(messagesOf(format, got.request), got.messages, where)
      // Async, and again on the same editor (its session): the same answer.
      const again = await editor.editAsync(frozen, { maxInputTokens })
      assert.deepEqual(decisions(again.report), decisions(want.report), `${where} (async)`)
      assert.deepEqual(again.messages, got.messages, `${where} (async)`)
      // Counting: the same total, and the per-message counts add up to it.
      const counts = editor.countTokens(frozen, { maxInputTokens })
      const refCounts = new ContextEditor(options).countTokens(ref, refContext)
      assert.equal(counts.total, refCounts.total, where)
      assert.equal(counts.messages.length, messagesOf(format, frozen).length, where)
      assert.equal(
        counts.messages.reduce((a, b) => a + b, 0),
        refCounts.messages.reduce((a, b) => a + b, 0),
        where,
      )
      triggered += got.report.triggered ? 1 : 0
      cleared += got.report.cleared.length
      removed += messagesOf(format, frozen).length - (format === 'aisdk' ? got.messages.length : messagesOf(format, got.request).length)
    }
  }
  // The seeds exercise what they claim to.
  assert.ok(triggered > SEEDS / 2, `triggered ${triggered}`)
  assert.ok(cleared > SEEDS, `cleared ${cleared}`)
  assert.ok(removed > 20, `removed ${removed}`)
})

test("plans name the caller's messages: an Anthropic result is its message and block, as the LangChain twin's op is its message", () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(1000 + seed)
    const conv = conversation(rng, { turns: rng.int(3, 10), big: 0.6 })
    const options = { trigger: { tokens: 200 }, keep: { messages: 1 } }
    const ref = toLangChain(conv)
    const want = new ContextEditor(options).plan(ref, { systemPrompt: conv.system })
    const req = toAnthropic(conv)
    const got = new ContextEditor(options).plan(req)
    assert.equal(got.ops.length, want.ops.length)
    got.ops.forEach((op, k) => {
      assert.equal(op.type, want.ops[k].type)
      const block = req.messages[op.index].content[op.part]
      assert.equal(block.type, 'tool_result', `seed ${seed}: op ${k} names a tool_result block`)
      assert.equal(block.tool_use_id, ref[want.ops[k].index].tool_call_id)
    })
    for (const c of got.report.cleared) assert.equal(req.messages[c.index].role, 'user')
  }
})

test("clear_thinking drops the same turns' reasoning in Anthropic thinking blocks, Responses reasoning items and AI SDK reasoning parts", () => {
  const turns = 4
  const anthropic = []
  const responses = []
  const aisdk = []
  for (let t = 0; t < turns; t++) {
    anthropic.push({ role: 'user', content: `question ${t}` })
    anthropic.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `hm ${t}`, signature: 'sig' },
        { type: 'redacted_thinking', data: 'xx' },
        { type: 'text', text: `answer ${t}` },
      ],
    })
    responses.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: `question ${t}` }] })
    responses.push({ type: 'reasoning', id: `rs_${t}`, summary: [{ type: 'summary_text', text: `hm ${t}` }], encrypted_content: 'enc' })
    responses.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${t}`, annotations: [] }] })
    aisdk.push({ role: 'user', content: `question ${t}` })
    aisdk.push({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: `hm ${t}`, providerOptions: { anthropic: { signature: 'sig' } } },
        { type: 'text', text: `answer ${t}` },
      ],
    })
  }
  const editor = new ContextEditor({ edits: [{ type: 'clear_thinking', keep: { thinkingTurns: 1 } }] })
  const a = editor.edit(anthropic).messages
  const r = editor.edit(responses).messages
  const s = editor.edit(aisdk).messages
  for (let t = 0; t < turns; t++) {
    const keeps = t === turns - 1
    assert.equal(
      a[2 * t + 1].content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking'),
      keeps,
    )
    assert.equal(
      r.some((i) => i.id === `rs_${t}`),
      keeps,
    )
    assert.equal(
      s[2 * t + 1].content.some((p) => p.type === 'reasoning'),
      keeps,
    )
    // The text stays, the same block object.
    assert.equal(a[2 * t + 1].content.at(-1), anthropic[2 * t + 1].content.at(-1))
  }
  assert.equal(r.length, responses.length - (turns - 1))
})
