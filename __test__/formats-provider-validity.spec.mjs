// What each provider's API refuses, checked on the library's output after every kind of edit: an
// Anthropic assistant message with empty content, a `tool_result` that does not answer a `tool_use`
// of the message right before it (or that is not first in its message); a Responses `reasoning`
// item with nothing after it, or an item the API made with reasoning (`fc_…`, `msg_…` ids) sent
// without that reasoning; an AI SDK assistant message with no parts, or a result with no call.
// Seeded conversations carry thinking in every assistant turn, so `clear_thinking` and the tool
// edits meet it everywhere.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { ContextEditor } from '../dist/index.js'
import { conversation, deepFreeze, toAiSdk, toAnthropic, toResponses } from './support/formats.mjs'
import { Rng } from './support/prng.mjs'

const BIG = 'lorem ipsum '.repeat(300)

/** Anthropic's rules for a `messages` list. */
function assertAnthropic(messages, where) {
  messages.forEach((m, i) => {
    const at = `${where}: messages[${i}]`
    assert.ok(typeof m.content === 'string' ? m.content !== '' : m.content.length > 0, `${at} has empty content`)
    const blocks = typeof m.content === 'string' ? [] : m.content
    const results = blocks.filter((b) => b.type === 'tool_result')
    if (results.length) {
      assert.equal(m.role, 'user', at)
      assert.ok(
        blocks.slice(0, results.length).every((b) => b.type === 'tool_result'),
        `${at}: tool_result blocks come first`,
      )
      const prev = messages[i - 1]
      const uses = new Set(
        (prev && prev.role === 'assistant' && Array.isArray(prev.content) ? prev.content : []).filter((b) => b.type === 'tool_use').map((b) => b.id),
      )
      for (const r of results) assert.ok(uses.has(r.tool_use_id), `${at}: tool_result ${r.tool_use_id} answers no tool_use of the message before`)
    }
    const uses = blocks.filter((b) => b.type === 'tool_use')
    if (uses.length) {
      const next = messages[i + 1]
      const answered = new Set((next && Array.isArray(next.content) ? next.content : []).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id))
      for (const u of uses) assert.ok(answered.has(u.id), `${at}: tool_use ${u.id} has no tool_result in the next message`)
    }
  })
}

/** The Responses API's rules for an `input` list; `reasonedIds`: ids of items made along with reasoning. */
function assertResponses(input, reasonedIds, where) {
  const calls = new Set()
  const outputs = new Set(input.filter((x) => x.type === 'function_call_output').map((x) => x.call_id))
  input.forEach((x, i) => {
    const at = `${where}: input[${i}]`
    if (x.type === 'function_call') {
      calls.add(x.call_id)
      assert.ok(outputs.has(x.call_id), `${at}: function_call ${x.call_id} without its output`)
    }
    if (x.type === 'function_call_output') assert.ok(calls.has(x.call_id), `${at}: output ${x.call_id} before or without its call`)
    if (x.type === 'reasoning') {
      const next = input[i + 1]
      assert.ok(
        next !== undefined && (next.type === 'reasoning' || next.type === 'function_call' || next.role === 'assistant'),
        `${at}: reasoning without its following item`,
      )
    }
    const made = reasonedIds.get(x.id)
    if (made !== undefined)
      assert.ok(
        input.some((y) => y.type === 'reasoning' && y.id === made),
        `${at}: ${x.id} without its reasoning ${made}`,
      )
  })
}

/** The AI SDK's rules: results answer calls; no assistant message is empty. */
function assertAiSdk(messages, where) {
  const calls = new Set()
  messages.forEach((m, i) => {
    const at = `${where}: messages[${i}]`
    if (m.role === 'assistant') {
      assert.ok(typeof m.content === 'string' || m.content.length > 0, `${at}: an assistant message with no parts`)
      for (const p of typeof m.content === 'string' ? [] : m.content) if (p.type === 'tool-call') calls.add(p.toolCallId)
    }
    if (m.role === 'tool') {
      assert.ok(m.content.length > 0, `${at}: a tool message with no parts`)
      for (const p of m.content) assert.ok(calls.has(p.toolCallId), `${at}: result ${p.toolCallId} without its call`)
    }
  })
}

/** Thinking at the start of every assistant message / turn, as a reasoning model writes it. */
function withThinking(format, input) {
  let n = 0
  if (format === 'anthropic') {
    const messages = input.messages.map((m) => {
      if (m.role !== 'assistant') return m
      const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
      return { ...m, content: [{ type: 'thinking', thinking: `thought ${n}`, signature: `sig_${n++}` }, ...blocks] }
    })
    return { request: { ...input, messages }, reasoned: new Map() }
  }
  if (format === 'aisdk') {
    return {
      request: input.map((m) =>
        m.role !== 'assistant'
          ? m
          : { ...m, content: [{ type: 'reasoning', text: `thought ${n}`, providerOptions: { anthropic: { signature: `sig_${n++}` } } }, ...m.content] },
      ),
      reasoned: new Map(),
    }
  }
  const out = []
  const reasoned = new Map()
  let rs
  for (const x of input.input) {
    const inTurn = x.type === 'function_call' || x.role === 'assistant'
    if (!inTurn) rs = undefined
    // A new turn: an assistant message, or a call after something other than a call or a message.
    const prev = out[out.length - 1]
    if (inTurn && (rs === undefined || (x.role === 'assistant' && prev?.type === 'function_call'))) {
      rs = `rs_${n++}`
      out.push({ type: 'reasoning', id: rs, summary: [], encrypted_content: `enc_${rs}` })
    }
    if (inTurn && x.id !== undefined) reasoned.set(x.id, rs)
    out.push(x)
  }
  return { request: { ...input, input: out }, reasoned }
}

test('Anthropic: an assistant message left empty by clear_thinking is removed, never sent as empty content', () => {
  const messages = deepFreeze([
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: [{ type: 'thinking', thinking: 'only thinking', signature: 's1' }] },
    { role: 'user', content: 'next' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'latest', signature: 's2' },
        { type: 'tool_use', id: 'b', name: 'read', input: {} },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: BIG }] },
  ])
  const { messages: out } = new ContextEditor({ edits: [{ type: 'clear_thinking' }] }).edit(messages)
  assertAnthropic(out, 'clear_thinking')
  assert.deepEqual(out, [messages[0], messages[2], messages[3], messages[4]])
  // The latest tool-use turn's thinking is sent byte for byte.
  assert.equal(out[2], messages[3])
})

test('AI SDK: an assistant message left with no parts by clear_thinking is removed', () => {
  const messages = deepFreeze([
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: [{ type: 'reasoning', text: 'only reasoning' }] },
    { role: 'user', content: 'next' },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'latest' },
        { type: 'text', text: 'answer' },
      ],
    },
  ])
  // These messages fit OpenAI chat too (read natively unless told): the format is given.
  const { messages: out } = new ContextEditor({ edits: [{ type: 'clear_thinking' }], format: 'aisdk' }).edit(messages)
  assertAiSdk(out, 'clear_thinking')
  assert.deepEqual(out, [messages[0], messages[2], messages[3]])
})

test('Responses: items whose reasoning was cleared lose their ids (fc_/msg_ name that reasoning), keeping every other field', () => {
  const input = deepFreeze([
    { type: 'message', role: 'user', content: 'hi' },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc1' },
    { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'read', arguments: '{"p":1}', status: 'completed' },
    { type: 'function_call_output', call_id: 'c1', output: 'small' },
    { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'enc2' },
    { type: 'message', role: 'assistant', id: 'msg_2', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] },
    { type: 'message', role: 'user', content: 'next' },
    { type: 'reasoning', id: 'rs_3', summary: [], encrypted_content: 'enc3' },
    { type: 'function_call', id: 'fc_3', call_id: 'c3', name: 'read', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c3', output: 'small' },
  ])
  const { messages: out } = new ContextEditor({ edits: [{ type: 'clear_thinking' }] }).edit(input)
  assertResponses(
    out,
    new Map([
      ['fc_1', 'rs_1'],
      ['msg_2', 'rs_2'],
      ['fc_3', 'rs_3'],
    ]),
    'clear_thinking',
  )
  assert.deepEqual(out[1], { type: 'function_call', call_id: 'c1', name: 'read', arguments: '{"p":1}', status: 'completed' })
  assert.deepEqual(out[3], { type: 'message', role: 'assistant', status: 'completed', content: input[5].content })
  // The latest turn keeps its reasoning and its items as they are.
  assert.deepEqual(out.slice(5), input.slice(7))
  for (let k = 5; k < out.length; k++) assert.equal(out[k], input[k + 2])
})

test('Responses: a reasoning item whose turn loses every call is removed with it, never left without a following item', () => {
  const input = deepFreeze([
    { type: 'message', role: 'user', content: 'hi' },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'enc1' },
    { type: 'message', role: 'assistant', id: 'msg_1', content: [{ type: 'output_text', text: 'looking' }] },
    { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'read', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c1', output: BIG },
    { type: 'message', role: 'user', content: 'next' },
    { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'enc2' },
    { type: 'function_call', id: 'fc_2', call_id: 'c2', name: 'read', arguments: '{}' },
    { type: 'function_call_output', call_id: 'c2', output: BIG },
    { type: 'message', role: 'user', content: 'thanks' },
  ])
  for (const edits of [[{ type: 'strip_tool_calls' }], [{ type: 'last_n', n: 3 }], [{ type: 'strip_and_truncate', n: 4 }]]) {
    const { messages: out } = new ContextEditor({ edits }).edit(input)
    assertResponses(
      out,
      new Map([
        ['msg_1', 'rs_1'],
        ['fc_1', 'rs_1'],
        ['fc_2', 'rs_2'],
      ]),
      JSON.stringify(edits),
    )
  }
})

test('property: seeded conversations with thinking in every turn stay valid for their provider after every edit and pipeline', () => {
  const pipelines = [
    { edits: [{ type: 'clear_thinking' }] },
    {
      edits: [
        { type: 'clear_thinking', keep: { thinkingTurns: 2 } },
        { type: 'clear_tool_uses', trigger: { tokens: 200 }, keep: { messages: 1 }, clearToolInputs: true },
      ],
    },
    { edits: [{ type: 'last_n', n: 3 }] },
    { edits: [{ type: 'last_n', n: 6 }, { type: 'clear_thinking' }] },
    { edits: [{ type: 'strip_tool_calls' }] },
    { edits: [{ type: 'strip_and_truncate', n: 4 }] },
    { edits: [{ type: 'trim_turns', maxTurns: 2 }, { type: 'clear_thinking' }] },
    { edits: [{ type: 'truncate_tool_results', maxChars: 40 }, { type: 'clear_thinking' }] },
    { edits: [{ type: 'clear_thinking' }, { type: 'summarize', trigger: { messages: 4 }, keep: { messages: 3 } }] },
    { edits: [{ type: 'summarize', trigger: { messages: 4 }, keep: { tokens: 300 }, summaryRole: 'assistant' }] },
  ]
  for (let seed = 1; seed <= 80; seed++) {
    const rng = new Rng(9100 + seed)
    const conv = conversation(rng)
    const options = rng.pick(pipelines)
    for (const [format, base] of [
      ['anthropic', toAnthropic(conv)],
      ['responses', toResponses(conv)],
      ['aisdk', toAiSdk(conv, true)],
    ]) {
      const where = `seed ${seed} ${format} ${JSON.stringify(options)}`
      const { request, reasoned } = withThinking(format, base)
      const frozen = deepFreeze(structuredClone(request))
      const before = structuredClone(frozen)
      const r = new ContextEditor(options).edit(frozen, { summarize: () => 'what happened so far' })
      assert.deepEqual(frozen, before, where)
      if (format === 'anthropic') assertAnthropic(r.request.messages, where)
      else if (format === 'responses') assertResponses(r.request.input, reasoned, where)
      else assertAiSdk(r.messages, where)
    }
  }
})

test('AI SDK: parts whose reasoning was cleared lose their OpenAI item ids (the provider would send fc_/msg_ items without their reasoning)', () => {
  const openai = (itemId, more = {}) => ({ openai: { itemId, ...more } })
  const messages = deepFreeze([
    { role: 'user', content: 'hi' },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'plan', providerOptions: openai('rs_1', { reasoningEncryptedContent: 'enc' }) },
        { type: 'text', text: 'looking', providerOptions: { openai: { itemId: 'msg_1' }, anthropic: { cacheControl: { type: 'ephemeral' } } } },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { p: 1 }, providerOptions: openai('fc_1') },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'small' } }] },
    { role: 'user', content: 'next' },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'latest', providerOptions: openai('rs_2') },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'read', input: {}, providerOptions: openai('fc_2') },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'read', output: { type: 'text', value: 'small' } }] },
  ])
  const { messages: out } = new ContextEditor({ edits: [{ type: 'clear_thinking' }] }).edit(messages)
  assertAiSdk(out, 'clear_thinking')
  assert.deepEqual(out[1].content, [
    { type: 'text', text: 'looking', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
    { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { p: 1 } },
  ])
  // The latest turn keeps its reasoning, and its parts their ids.
  assert.equal(out[4], messages[4])
  for (const k of [0, 2, 3, 5]) assert.equal(out[k], messages[k])
})

test('AI SDK: an approval request goes with the call it asked about when an edit removes that call', () => {
  const messages = deepFreeze([
    { role: 'user', content: 'delete the temp files' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'I will run rm.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'shell', input: { cmd: 'rm -rf tmp' } },
        { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'c1' },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'shell', output: { type: 'text', value: BIG } }] },
    { role: 'user', content: 'thanks' },
  ])
  const { messages: out } = new ContextEditor({ edits: [{ type: 'strip_tool_calls' }] }).edit(messages)
  assertAiSdk(out, 'strip_tool_calls')
  assert.deepEqual(out, [messages[0], { role: 'assistant', content: [messages[1].content[0]] }, messages[3]])
  // Kept calls keep their approval requests.
  const kept = new ContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 } }).edit(messages).messages
  assert.deepEqual(kept[1], messages[1])
})

test('plan() counts the assistant messages an edit leaves empty as removed, as edit() removes them, in every format', () => {
  const thinkingOnly = {
    anthropic: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'only thinking', signature: 's1' }] },
      { role: 'user', content: 'next' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'latest', signature: 's2' },
          { type: 'tool_use', id: 'a', name: 'r', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'ok' }] },
    ],
    aisdk: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'only reasoning' }] },
      { role: 'user', content: 'next' },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'latest' },
          { type: 'tool-call', toolCallId: 'a', toolName: 'r', input: {} },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'r', output: { type: 'text', value: 'ok' } }] },
    ],
    mastra: [
      { id: '1', role: 'user', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text: 'hi' }] } },
      { id: '2', role: 'assistant', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'reasoning', reasoning: 'only', details: [] }] } },
      { id: '3', role: 'user', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text: 'next' }] } },
      {
        id: '4',
        role: 'assistant',
        createdAt: new Date(0),
        content: {
          format: 2,
          parts: [
            { type: 'reasoning', reasoning: 'latest', details: [] },
            { type: 'text', text: 'x' },
          ],
        },
      },
    ],
  }
  for (const [format, messages] of Object.entries(thinkingOnly)) {
    const editor = new ContextEditor({ edits: [{ type: 'clear_thinking' }], format })
    const plan = editor.plan(deepFreeze(messages))
    const { messages: out, report } = editor.edit(messages)
    assert.equal(out.length, messages.length - 1, format)
    assert.equal(report.messagesAfter, out.length, format)
    assert.equal(plan.report.messagesAfter, out.length, format)
    assert.ok(!out.includes(messages[1]), format)
  }
})

test("Anthropic: cacheBreakpoints counts the request's system and tool breakpoints, so a request never carries more than 4", () => {
  const messages = [{ role: 'user', content: 'go' }]
  for (let k = 0; k < 12; k++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `c${k}`, name: 'read', input: {} }] })
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `c${k}`, content: BIG }] })
  }
  const mark = { cache_control: { type: 'ephemeral' } }
  const count = (x) => JSON.stringify(x).split('"cache_control"').length - 1
  for (const [system, tools] of [
    [
      [
        { type: 'text', text: 'You read files.', ...mark },
        { type: 'text', text: 'Be brief.', ...mark },
      ],
      [{ name: 'read', input_schema: { type: 'object' }, ...mark }],
    ],
    [[{ type: 'text', text: 'You read files.', ...mark }], []],
    ['You read files.', [{ name: 'read', input_schema: { type: 'object' }, ...mark }]],
  ]) {
    const request = deepFreeze({ model: 'claude-test', max_tokens: 100, system, tools, messages: structuredClone(messages) })
    const used = count(system) + count(tools)
    const { request: out } = new ContextEditor({ trigger: { tokens: 2000 }, keep: { messages: 2 }, stable: true, cacheBreakpoints: true }).edit(request)
    assert.ok(count(out) <= 4, `${count(out)} breakpoints with ${used} in system and tools`)
    assert.ok(count(out.messages) >= 1, 'the edit still marks the end of the request')
    assert.equal(out.system, system)
    assert.equal(out.tools, tools)
  }
})

test('AI SDK: breakpoints already in providerOptions.anthropic.cacheControl count toward the 4, and change no token count', () => {
  const cc = { anthropic: { cacheControl: { type: 'ephemeral' } } }
  const build = (mark) => {
    const messages = [
      { role: 'system', content: 'You read files.', ...(mark ? { providerOptions: cc } : {}) },
      { role: 'user', content: [{ type: 'text', text: 'go', ...(mark ? { providerOptions: cc } : {}) }] },
    ]
    for (let k = 0; k < 12; k++) {
      messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${k}`, toolName: 'read', input: {} }] })
      messages.push({
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: `c${k}`, toolName: 'read', output: { type: 'text', value: BIG } }],
        ...(mark && k === 3 ? { providerOptions: cc } : {}),
      })
    }
    return deepFreeze(messages)
  }
  const count = (x) => JSON.stringify(x).split('"cacheControl"').length - 1
  const options = { trigger: { tokens: 2000 }, keep: { messages: 2 }, stable: true, cacheBreakpoints: true }
  const { messages: out } = new ContextEditor(options).edit(build(true))
  assert.ok(count(out) <= 4, `${count(out)} breakpoints`)
  assert.ok(count(out) > count(build(true)), 'the edit still adds one')
  const plain = new ContextEditor({}).countTokens(build(false))
  const marked = new ContextEditor({}).countTokens(build(true))
  assert.deepEqual(marked.messages, plain.messages)
})
