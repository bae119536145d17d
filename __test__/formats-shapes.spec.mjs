// Anthropic, Responses and AI SDK messages keep their shape through the library: unchanged
// messages are the caller's objects, changed ones are new objects keeping every field the edit did
// not touch, the input is never mutated, tool pairs stay valid for the provider's API, and the
// format is told from the messages (or given), with errors naming the caller's message.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { ContextEditor, ContextEditorError } from '../dist/index.js'
import { conversation, deepFreeze, toAiSdk, toAnthropic, toResponses } from './support/formats.mjs'
import { Rng } from './support/prng.mjs'

const BIG = 'lorem ipsum '.repeat(400)
const clearAll = { trigger: { tokens: 1 }, keep: { messages: 0 }, clearToolInputs: true }

test('Anthropic: several tool_results in one user message are cleared one by one, every other field and block kept', () => {
  const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }
  const messages = deepFreeze([
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        image,
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' }, citations: { enabled: true } },
      ],
    },
    {
      role: 'assistant',
      id: 'msg_1',
      content: [
        { type: 'thinking', thinking: 'plan', signature: 'sig' },
        { type: 'tool_use', id: 'a', name: 'read', input: { p: 1 } },
        { type: 'tool_use', id: 'b', name: 'keep_me', input: { p: 2 } },
        { type: 'tool_use', id: 'c', name: 'read', input: { p: 3 } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: BIG, is_error: false, cache_control: { type: 'ephemeral' } },
        { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: BIG }] },
        { type: 'tool_result', tool_use_id: 'c', content: BIG, is_error: true },
        { type: 'text', text: 'now what?' },
      ],
    },
    { role: 'assistant', content: 'done' },
  ])
  const before = structuredClone(messages)
  const editor = new ContextEditor({ ...clearAll, excludeTools: ['keep_me'] })
  const { messages: out, report } = editor.edit(messages, { systemPrompt: 'sys' })
  assert.deepEqual(messages, before)
  assert.equal(out.length, 4)
  assert.equal(out[0], messages[0])
  assert.equal(out[3], messages[3])
  assert.deepEqual(
    report.cleared.map((c) => [c.index, c.toolCallId]),
    [
      [2, 'a'],
      [2, 'c'],
    ],
  )
  const user = out[2]
  assert.notEqual(user, messages[2])
  assert.deepEqual(
    user.content.map((b) => b.type),
    ['tool_result', 'tool_result', 'tool_result', 'text'],
  )
  assert.deepEqual(user.content[0], { type: 'tool_result', tool_use_id: 'a', content: '[cleared]', is_error: false, cache_control: { type: 'ephemeral' } })
  assert.equal(user.content[1], messages[2].content[1])
  assert.deepEqual(user.content[2], { type: 'tool_result', tool_use_id: 'c', content: '[cleared]', is_error: true })
  assert.equal(user.content[3], messages[2].content[3])
  // The cleared calls' inputs, in the assistant's own tool_use blocks; the thinking block stays.
  const assistant = out[1]
  assert.equal(assistant.id, 'msg_1')
  assert.deepEqual(
    assistant.content.map((b) => b.input),
    [undefined, {}, { p: 2 }, {}],
  )
  assert.equal(assistant.content[0], messages[1].content[0])
  // Sent again (the next model call), the cleared results are recognised as cleared.
  const again = editor.edit(out, { systemPrompt: 'sys' })
  assert.equal(again.report.cleared.length, 0)
  assert.deepEqual(again.messages, out)
})

test('Responses: outputs and calls are rebuilt field by field; reasoning, ids and statuses survive; `instructions` is the system prompt', () => {
  const req = deepFreeze({
    model: 'gpt-4o',
    instructions: 'be brief',
    tools: [{ type: 'function', name: 'read', parameters: {} }],
    store: false,
    input: [
      { role: 'user', content: 'go' },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
      { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'read', arguments: '{"path":"a"}', status: 'completed' },
      { type: 'custom_tool_call', id: 'ct_1', call_id: 'c2', name: 'patch', input: 'diff --git' },
      { type: 'function_call_output', call_id: 'c1', output: BIG, id: 'out_1' },
      { type: 'custom_tool_call_output', call_id: 'c2', output: [{ type: 'input_text', text: BIG }] },
      { type: 'message', role: 'assistant', id: 'msg_9', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] },
    ],
  })
  const before = structuredClone(req)
  const editor = new ContextEditor(clearAll)
  const { request, messages, report } = editor.edit(req)
  assert.deepEqual(req, before)
  assert.equal(report.cleared.length, 2)
  assert.deepEqual(request.input, messages)
  assert.equal(request.instructions, 'be brief')
  assert.equal(request.store, false)
  assert.equal(messages[0], req.input[0])
  assert.equal(messages[1], req.input[1])
  assert.deepEqual(messages[2], { ...req.input[2], arguments: '{}' })
  assert.deepEqual(messages[3], { ...req.input[3], input: '' })
  assert.deepEqual(messages[4], { type: 'function_call_output', call_id: 'c1', output: '[cleared]', id: 'out_1' })
  assert.deepEqual(messages[5], { type: 'custom_tool_call_output', call_id: 'c2', output: '[cleared]' })
  assert.equal(messages[6], req.input[6])
  // The request's instructions and tools are counted: the same as passing them in the context.
  const counted = editor.countTokens(req)
  const asContext = editor.countTokens(req.input, { systemPrompt: 'be brief', tools: req.tools, model: 'gpt-4o' })
  assert.equal(counted.total, asContext.total)
  assert.ok(counted.fixed > 0)
  // A string input is one user message, and stays a string when nothing changes.
  const short = new ContextEditor().edit({ model: 'gpt-4o', input: 'hello' })
  assert.equal(short.request.input, 'hello')
})

test('AI SDK: providerOptions, media parts and tool names ride along; a tool message loses only its cleared parts', () => {
  const bytes = new Uint8Array([1, 2, 3])
  const messages = deepFreeze([
    { role: 'system', content: 'sys', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'see' },
        { type: 'image', image: new URL('https://example.com/a.png') },
        { type: 'file', data: bytes, mediaType: 'application/pdf' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'hm', providerOptions: { anthropic: { signature: 's' } } },
        { type: 'tool-call', toolCallId: 't1', toolName: 'read', input: { p: 1 }, providerOptions: { x: 1 } },
        { type: 'tool-call', toolCallId: 't2', toolName: 'read', input: { p: 2 } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 't1',
          toolName: 'read',
          output: { type: 'json', value: { text: BIG } },
          providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
        },
        { type: 'tool-result', toolCallId: 't2', toolName: 'read', output: { type: 'text', value: 'short' } },
      ],
    },
    { role: 'assistant', content: 'done' },
  ])
  const editor = new ContextEditor({ trigger: { tokens: 100 }, keep: { messages: 1 } })
  const { messages: out, report } = editor.edit(messages)
  assert.deepEqual(
    report.cleared.map((c) => [c.index, c.toolCallId]),
    [[3, 't1']],
  )
  for (const k of [0, 1, 2, 4]) assert.equal(out[k], messages[k])
  assert.deepEqual(out[3].content[0], { ...messages[3].content[0], output: { type: 'text', value: '[cleared]' } })
  assert.equal(out[3].content[1], messages[3].content[1])
  assert.equal(out[1].content[2].data, bytes)
})

test("the format is told from the messages, or given; a message of no format is named with each format's reason", () => {
  const editor = new ContextEditor()
  const err = (f) => {
    try {
      f()
    } catch (e) {
      return e
    }
    assert.fail('expected an error')
  }
  const e = err(() =>
    editor.edit([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'x', toolName: 't', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'r' }] },
    ]),
  )
  assert.ok(e instanceof ContextEditorError)
  assert.equal(e.code, 'INVALID_MESSAGE')
  assert.equal(e.messageIndex, 2)
  for (const name of ['LangChain', 'OpenAI chat', 'Anthropic: messages[1]', 'OpenAI Responses', 'AI SDK: messages[2]'])
    assert.ok(e.message.includes(name), e.message)
  // An explicit format: a malformed Anthropic message is named in the caller's terms.
  const bad = err(() =>
    editor.edit(
      [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'x' },
            { type: 'tool_use', name: 't', input: {} },
          ],
        },
      ],
      { format: 'anthropic' },
    ),
  )
  assert.equal(bad.messageIndex, 0)
  assert.equal(bad.path, 'content[1].id')
  assert.equal(err(() => editor.edit([], { format: 'claude' })).code, 'INVALID_CONTEXT')
  assert.equal(err(() => new ContextEditor({ format: 'claude' })).code, 'INVALID_OPTIONS')
  const badArgs = err(() =>
    editor.edit([
      { role: 'user', content: 'x' },
      { type: 'function_call', call_id: 'c', name: 'n', arguments: '{' },
    ]),
  )
  assert.deepEqual([badArgs.messageIndex, badArgs.path], [1, 'arguments'])
  // Plain text messages are the same in every format: read as OpenAI chat (unchanged objects).
  const plain = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
  ]
  assert.equal(editor.edit(plain).messages[0], plain[0])
  // `format` on the editor applies to every call; the call's own wins.
  const forced = new ContextEditor({ format: 'aisdk', trigger: { tokens: 1 }, keep: { messages: 0 } })
  const tool = [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'k', toolName: 't', input: {} }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'k', toolName: 't', output: { type: 'text', value: BIG } }] },
  ]
  assert.equal(forced.edit(tool).report.cleared.length, 1)
  assert.equal(err(() => forced.edit(tool, { format: 'anthropic' })).code, 'INVALID_MESSAGE')
})

test('sessions: a growing Anthropic history, edited call by call (sync and async) on one editor, answers as a fresh editor does; an in-place change is seen after invalidate', async () => {
  const conv = conversation(new Rng(7), { turns: 14, big: 0.8 })
  const req = toAnthropic(conv)
  const editor = new ContextEditor({ trigger: { tokens: 500 }, keep: { messages: 2 } })
  for (let n = 2; n <= req.messages.length; n++) {
    const messages = req.messages.slice(0, n)
    const r = n % 2 ? editor.edit(messages) : await editor.editAsync(messages)
    // The session's answer is a fresh editor's, and untouched messages are the caller's.
    const fresh = new ContextEditor({ trigger: { tokens: 500 }, keep: { messages: 2 } }).edit(messages)
    assert.deepEqual(r.messages, fresh.messages, `call ${n}`)
    r.messages.forEach((m, k) => assert.ok(m === messages[k] || fresh.messages[k] !== messages[k], `call ${n}: message ${k}`))
  }
  assert.equal(editor.sessionCount, 1)
  // Forgetting the conversation by its own (Anthropic) messages drops the session of its units.
  assert.equal(editor.forget(req.messages), 1)
  assert.equal(editor.sessionCount, 0)
  editor.edit(req.messages)
  assert.equal(editor.sessionCount, 1)
  const last = req.messages.length - 1
  const user = req.messages.findLastIndex((m) => m.role === 'user' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'))
  const mine = structuredClone(req.messages)
  editor.edit(mine)
  mine[user].content[0].content = 'short now'
  editor.invalidate(mine[user])
  const counted = editor.countTokens(mine).messages[user]
  assert.equal(counted, new ContextEditor({ trigger: { tokens: 500 }, keep: { messages: 2 } }).countTokens(mine).messages[user])
  assert.ok(last > 10)
})

test("a summary is written in the conversation's own format, before the kept messages, tool pairs intact", async () => {
  const conv = conversation(new Rng(11), { turns: 10 })
  const options = { edits: [{ type: 'summarize', trigger: { messages: 8 }, keep: { messages: 4 } }] }
  for (const [format, input, list] of [
    ['anthropic', toAnthropic(conv), (x) => x.messages],
    ['responses', toResponses(conv), (x) => x.input],
    ['aisdk', toAiSdk(conv), (x) => x],
  ]) {
    const r = await new ContextEditor(options).editAsync(input, { summarize: async () => 'SUMMARY' })
    const out = format === 'aisdk' ? r.messages : list(r.request)
    const first = out[0]
    assert.equal(first.role, 'user', format)
    assert.match(typeof first.content === 'string' ? first.content : '', /SUMMARY$/, format)
    if (format === 'responses') assert.equal(first.type, 'message')
    assert.ok(out.length < list(input).length, format)
    assertPairs(format, out)
  }
})

/** Every result follows its call and every call has its result, as each provider requires. */
function assertPairs(format, messages, where = format) {
  const calls = new Set()
  const results = new Set()
  /** A result answers a call made before it, and only once. */
  const answered = (id, what) => {
    assert.ok(calls.has(id) && !results.has(id), what)
    results.add(id)
  }
  for (const m of messages) {
    const parts = Array.isArray(m.content) ? m.content : []
    if (format === 'anthropic') {
      for (const b of parts) if (b.type === 'tool_use') calls.add(b.id)
      for (const b of parts) if (b.type === 'tool_result') answered(b.tool_use_id, `${where}: result ${b.tool_use_id}`)
    } else if (format === 'responses') {
      if (m.type === 'function_call') calls.add(m.call_id)
      if (m.type === 'function_call_output') answered(m.call_id, `${where}: output ${m.call_id}`)
    } else {
      for (const p of parts) if (p.type === 'tool-call') calls.add(p.toolCallId)
      for (const p of parts) if (p.type === 'tool-result') answered(p.toolCallId, `${where}: result ${p.toolCallId}`)
    }
  }
  assert.deepEqual(
    [...calls].filter((c) => !results.has(c)),
    [],
    `${where}: calls without results`,
  )
}

test('property: seeded conversations and pipelines in every format keep pairs valid, never mutate, and hand back untouched messages as themselves', () => {
  const pipelines = [
    { trigger: { tokens: 300 }, keep: { messages: 1 }, clearToolInputs: true },
    { edits: [{ type: 'last_n', n: 5 }] },
    {
      edits: [
        { type: 'trim_turns', maxTurns: 2 },
        { type: 'clear_tool_uses', trigger: { tokens: 200 }, keep: { messages: 1 } },
      ],
    },
    { edits: [{ type: 'strip_tool_calls' }] },
    { edits: [{ type: 'truncate_tool_results', maxChars: 40 }, { type: 'clear_thinking' }] },
    { edits: [{ type: 'strip_and_truncate', n: 4 }] },
  ]
  for (let seed = 1; seed <= 60; seed++) {
    const rng = new Rng(500 + seed)
    const conv = conversation(rng)
    const options = rng.pick(pipelines)
    for (const [format, input, list] of [
      ['anthropic', toAnthropic(conv), (x) => x.messages],
      ['responses', toResponses(conv), (x) => x.input],
      ['aisdk', toAiSdk(conv, true), (x) => x],
    ]) {
      const where = `seed ${seed} ${format} ${JSON.stringify(options)}`
      const frozen = deepFreeze(structuredClone(input))
      const r = new ContextEditor(options).edit(frozen)
      const out = format === 'aisdk' ? r.messages : list(r.request)
      assertPairs(format, out, where)
      const given = new Set(list(frozen))
      for (const m of out) {
        if (given.has(m)) continue
        // A changed message: a new object; its unchanged blocks are the caller's.
        const twin = list(frozen).find((g) => (g.role ?? g.type) === (m.role ?? m.type) && (g.call_id ?? g.id) === (m.call_id ?? m.id))
        assert.ok(twin === undefined || twin !== m, where)
      }
      assert.ok(out.length <= list(frozen).length, where)
    }
  }
})

test('AI SDK: a call the provider ran (providerExecuted, its result in the same message) is content, never a dangling call', () => {
  const big = 'x '.repeat(3000)
  const messages = [
    { role: 'user', content: 'search' },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'ws', toolName: 'web_search', input: { q: 'x' }, providerExecuted: true },
        { type: 'tool-result', toolCallId: 'ws', toolName: 'web_search', output: { type: 'json', value: { hits: 3 } } },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { p: 1 } },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: big } }] },
    { role: 'assistant', content: 'ok' },
  ]
  const { messages: out, report } = new ContextEditor({ trigger: { tokens: 100 }, keep: { messages: 0 }, clearToolInputs: true }).edit(messages)
  assert.deepEqual(
    report.cleared.map((c) => c.toolCallId),
    ['c1'],
  )
  assert.deepEqual(
    report.warnings.filter((w) => w.code === 'dangling_tool_call'),
    [],
  )
  // The provider's call and result stay as they were; only the client call's input is cleared.
  assert.equal(out[1].content[0], messages[1].content[0])
  assert.equal(out[1].content[1], messages[1].content[1])
  assert.deepEqual(out[1].content[2].input, {})
})

test('cacheBreakpoints: Anthropic blocks get cache_control, AI SDK parts and messages providerOptions.anthropic.cacheControl, Responses and Mastra keep their shape', () => {
  const conv = conversation(new Rng(21), { turns: 8, big: 0.7 })
  const options = { trigger: { tokens: 500 }, keep: { messages: 2 }, cacheBreakpoints: true }
  const marks = (s) => (s.match(/cache_control|cacheControl/g) ?? []).length
  const anthropicOut = new ContextEditor(options).edit(toAnthropic(conv)).messages
  const sdkIn = toAiSdk(conv, true)
  const sdk = new ContextEditor(options).edit(sdkIn)
  assert.ok(marks(JSON.stringify(anthropicOut)) > 0)
  assert.equal(marks(JSON.stringify(sdk.messages)), marks(JSON.stringify(anthropicOut)))
  for (const m of sdk.messages) {
    for (const p of Array.isArray(m.content) ? m.content : []) {
      // A result keeps its text output, placeholder or not; the mark is the part's provider option.
      if (p.type === 'tool-result') assert.equal(p.output.type, 'text')
      assert.equal(p.cache_control, undefined)
    }
  }
  const responsesIn = toResponses(conv)
  const responses = new ContextEditor(options).edit(responsesIn)
  assert.equal(marks(JSON.stringify(responses.request)), 0)
  for (const item of responses.messages) if (item.type === 'function_call_output') assert.equal(typeof item.output, 'string')
})

test("plan() and edit() agree on the report's message counts, in the caller's messages", () => {
  const req = toAnthropic(conversation(new Rng(5), { turns: 10 }))
  for (const options of [
    { edits: [{ type: 'last_n', n: 5 }] },
    { edits: [{ type: 'strip_tool_calls' }] },
    { trigger: { tokens: 100 }, keep: { messages: 1 } },
  ]) {
    const editor = new ContextEditor(options)
    const plan = editor.plan(req)
    const edited = editor.edit(req)
    assert.equal(plan.report.messagesBefore, req.messages.length)
    assert.equal(edited.report.messagesBefore, req.messages.length)
    assert.equal(plan.report.messagesAfter, edited.messages.length, JSON.stringify(options))
    assert.equal(edited.report.messagesAfter, edited.messages.length)
  }
})
