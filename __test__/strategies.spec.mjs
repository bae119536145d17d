// The edit pipeline through the public JS API: clear_thinking, last_n, strip_tool_calls,
// strip_and_truncate, trim_turns and truncate_tool_results on real @langchain/core 1.x messages and
// on OpenAI chat messages; pipelines of them; and every JSON example of docs/edits.md, run and
// checked against its documented result. Summarize is in strategies-summarize.spec.mjs, stored
// messages and the wire-level ops in strategies-stored-wire.spec.mjs, seeded random conversations
// in strategies-random.spec.mjs.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from '../dist/index.js'
import { assertSubset, contents, pipeline, snapshot, types } from './support/strategies.mjs'

// ---------------------------------------------------------------------------------------------
// LangChain 1.x messages

function reasoningHistory() {
  return [
    new HumanMessage({ content: 'Is 1001 prime?', id: 'h1' }),
    new AIMessage({
      id: 'a1',
      content: [
        { type: 'thinking', thinking: '1001 = 7 × 11 × 13', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'opaque-1' },
        { type: 'text', text: 'No: 7 × 11 × 13.' },
      ],
      response_metadata: { model: 'claude' },
      usage_metadata: { input_tokens: 10, output_tokens: 20, total_tokens: 30 },
    }),
    new HumanMessage('And 1009?'),
    new AIMessage({
      content: 'Yes, 1009 is prime.',
      additional_kwargs: { reasoning_content: 'No prime up to 31 divides 1009.', keep_me: 1 },
    }),
    new HumanMessage('And 1013?'),
    new AIMessage({
      content: [
        { type: 'thinking', thinking: 'No prime up to 31 divides 1013.', signature: 'sig-3' },
        { type: 'text', text: 'Yes.' },
      ],
    }),
  ]
}

describe('clear_thinking', () => {
  test('removes thinking blocks and reasoning_content from older turns; keeps the newest; never mutates', () => {
    const history = reasoningHistory()
    const before = snapshot(history)
    const { messages, report } = pipeline({ type: 'clear_thinking' }).edit(history)
    assert.deepEqual(snapshot(history), before, 'input unchanged')
    assert.equal(messages.length, 6)
    // Older turns lose their reasoning, keep everything else.
    assert.ok(messages[1] instanceof AIMessage)
    assert.notEqual(messages[1], history[1])
    assert.deepEqual(messages[1].content, [{ type: 'text', text: 'No: 7 × 11 × 13.' }])
    assert.equal(messages[1].id, 'a1')
    assert.deepEqual(messages[1].response_metadata, { model: 'claude' })
    assert.deepEqual(messages[1].usage_metadata, { input_tokens: 10, output_tokens: 20, total_tokens: 30 })
    assert.ok(!JSON.stringify(messages[1]).includes('sig-1'), 'serialization has no thinking either')
    assert.ok(messages[3] instanceof AIMessage)
    assert.equal(messages[3].content, 'Yes, 1009 is prime.')
    assert.deepEqual(messages[3].additional_kwargs, { keep_me: 1 })
    // Untouched: the same objects.
    for (const i of [0, 2, 4, 5]) assert.equal(messages[i], history[i])
    assert.equal(history[3].additional_kwargs.reasoning_content, 'No prime up to 31 divides 1009.')
    assert.equal(history[1].content.length, 3)
    assertSubset(report.appliedEdits, [{ type: 'clear_thinking', triggered: true, clearedThinkingTurns: 2 }])
    assert.equal(report.appliedEdits[0].clearedInputTokens, report.tokensBefore - report.tokensAfter)
    assert.ok(report.tokensAfter < report.tokensBefore)
  })

  test('keep: {thinkingTurns: N} and "all"', () => {
    const history = reasoningHistory()
    const two = pipeline({ type: 'clear_thinking', keep: { thinkingTurns: 2 } }).edit(history)
    assert.notEqual(two.messages[1], history[1])
    assert.equal(two.messages[3], history[3])
    const all = pipeline({ type: 'clear_thinking', keep: 'all' }).edit(history)
    assert.deepEqual(all.messages, history)
    all.messages.forEach((m, i) => assert.equal(m, history[i]))
    assert.equal(all.report.appliedEdits[0].clearedThinkingTurns, 0)
  })

  test('OpenAI-shaped messages with thinking blocks in their content stay plain objects', () => {
    const history = [
      { role: 'user', content: 'q1' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's1' },
          { type: 'text', text: 'a1' },
        ],
      },
      { role: 'user', content: 'q2' },
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'xyz' },
          { type: 'text', text: 'a2' },
        ],
      },
    ]
    const before = snapshot(history)
    const { messages, report } = pipeline({ type: 'clear_thinking' }).edit(history)
    assert.deepEqual(messages, [{ role: 'user', content: 'q1' }, { role: 'assistant', content: [{ type: 'text', text: 'a1' }] }, history[2], history[3]])
    assert.equal(messages[3], history[3])
    assert.equal(Object.getPrototypeOf(messages[1]), Object.prototype)
    assert.deepEqual(history, before)
    assert.equal(report.appliedEdits[0].clearedThinkingTurns, 1)
  })

  test('editing the output again changes nothing', () => {
    const editor = pipeline({ type: 'clear_thinking' })
    const once = editor.edit(reasoningHistory()).messages
    const twice = editor.edit(once)
    twice.messages.forEach((m, i) => assert.equal(m, once[i]))
    assert.equal(twice.report.appliedEdits[0].clearedThinkingTurns, 0)
  })
})

function weatherHistory() {
  return [
    new SystemMessage('You are a weather assistant.'),
    new HumanMessage('Weather in Paris and Rome?'),
    new AIMessage({
      content: [
        { type: 'text', text: 'Let me check both.' },
        { type: 'tool_use', id: 'c1', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'c2', name: 'get_weather', input: { city: 'Rome' } },
      ],
      tool_calls: [
        { id: 'c1', name: 'get_weather', args: { city: 'Paris' }, type: 'tool_call' },
        { id: 'c2', name: 'get_weather', args: { city: 'Rome' }, type: 'tool_call' },
      ],
    }),
    new ToolMessage({ content: 'Paris: 18°C', tool_call_id: 'c1', name: 'get_weather' }),
    new ToolMessage({ content: 'Rome: 24°C', tool_call_id: 'c2', name: 'get_weather' }),
    new AIMessage({ content: '', tool_calls: [{ id: 'c3', name: 'get_forecast', args: { city: 'Rome' }, type: 'tool_call' }] }),
    new ToolMessage({ content: 'Rome tomorrow: 26°C', tool_call_id: 'c3', name: 'get_forecast' }),
    new AIMessage('Paris 18°C; Rome 24°C, 26°C tomorrow.'),
    new HumanMessage('Thanks!'),
  ]
}

describe('last_n / strip_tool_calls / strip_and_truncate', () => {
  test('last_n keeps the system message and the last n; drops results whose call was cut', () => {
    const history = weatherHistory()
    const before = snapshot(history)
    const { messages, report } = pipeline({ type: 'last_n', n: 5 }).edit(history)
    // The last 5 are Rome, the forecast call, its result, the answer and the thanks: Rome lost its call.
    assert.deepEqual(types(messages), ['system', 'ai', 'tool', 'ai', 'human'])
    assert.equal(messages[0], history[0])
    assert.equal(messages[1], history[5])
    assert.deepEqual(snapshot(history), before)
    assertSubset(report.appliedEdits, [{ type: 'last_n', removedMessages: 4 }])
    assert.deepEqual(report.warnings, [])
  })

  test('last_n with at most n others returns the same objects', () => {
    const history = weatherHistory()
    const { messages } = pipeline({ type: 'last_n', n: 8 }).edit(history)
    messages.forEach((m, i) => assert.equal(m, history[i]))
  })

  test('strip_tool_calls: results and call-only messages go; text keeps, calls and tool_use blocks go', () => {
    const history = weatherHistory()
    const before = snapshot(history)
    const { messages, report } = pipeline({ type: 'strip_tool_calls' }).edit(history)
    assert.deepEqual(types(messages), ['system', 'human', 'ai', 'ai', 'human'])
    const ai = messages[2]
    assert.ok(ai instanceof AIMessage)
    assert.deepEqual(ai.tool_calls, [])
    assert.deepEqual(ai.content, [{ type: 'text', text: 'Let me check both.' }])
    assert.ok(!JSON.stringify(ai).includes('tool_use'))
    assert.equal(messages[3], history[7])
    assert.deepEqual(snapshot(history), before)
    assert.equal(history[2].tool_calls.length, 2)
    assertSubset(report.appliedEdits, [{ type: 'strip_tool_calls', removedMessages: 4, removedToolCalls: 2 }])
  })

  test('strip_tool_calls on OpenAI messages deletes the emptied tool_calls key', () => {
    const history = [
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Paris: 18°C' },
      { role: 'assistant', content: '18°C.' },
    ]
    const before = snapshot(history)
    const { messages } = pipeline({ type: 'strip_tool_calls' }).edit(history)
    assert.deepEqual(messages, [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: 'Checking.' },
      { role: 'assistant', content: '18°C.' },
    ])
    assert.ok(!('tool_calls' in messages[1]))
    assert.deepEqual(history, before)
  })

  test('strip_and_truncate strips, then keeps the last n', () => {
    const { messages, report } = pipeline({ type: 'strip_and_truncate', n: 2 }).edit(weatherHistory())
    assert.deepEqual(contents(messages), ['You are a weather assistant.', 'Paris 18°C; Rome 24°C, 26°C tomorrow.', 'Thanks!'])
    assertSubset(report.appliedEdits, [{ type: 'strip_and_truncate', removedMessages: 6, removedToolCalls: 2 }])
  })
})

describe('trim_turns', () => {
  test('keeps the last maxTurns turns whole, and the system message', () => {
    const history = weatherHistory()
    history.push(new AIMessage('Anything else?'), new HumanMessage('No'))
    const { messages, report } = pipeline({ type: 'trim_turns', maxTurns: 2 }).edit(history)
    assert.deepEqual(types(messages), ['system', 'human', 'ai', 'human'])
    assert.equal(messages[1], history[8])
    assertSubset(report.appliedEdits, [{ type: 'trim_turns', removedMessages: 7 }])
    // Default 8: nothing to trim in 3 turns.
    const same = pipeline({ type: 'trim_turns' }).edit(history)
    same.messages.forEach((m, i) => assert.equal(m, history[i]))
  })

  test('a turns trigger fires at that many turns (OpenAI messages)', () => {
    const turn = (k) => [
      { role: 'user', content: `q${k}` },
      { role: 'assistant', content: `a${k}` },
    ]
    const editor = pipeline({ type: 'trim_turns', maxTurns: 1, trigger: { turns: 3 } })
    const two = [...turn(0), ...turn(1)]
    assert.equal(editor.edit(two).report.appliedEdits[0].triggered, false)
    const three = [...two, ...turn(2)]
    const { messages } = editor.edit(three)
    assert.deepEqual(messages, turn(2))
    assert.equal(messages[0], three[4])
  })
})

describe('truncate_tool_results', () => {
  const long = 'line of output\n'.repeat(100) // 1500 chars

  test('keeps the head and a marker within maxChars; metadata marks it; other fields kept', () => {
    const history = [
      new HumanMessage('run it'),
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'shell', args: { cmd: 'make' }, type: 'tool_call' }] }),
      new ToolMessage({
        content: long,
        tool_call_id: 'c1',
        name: 'shell',
        id: 't1',
        status: 'success',
        artifact: { exitCode: 0 },
        response_metadata: { elapsed: 3 },
      }),
    ]
    const before = snapshot(history)
    const { messages, report } = pipeline({ type: 'truncate_tool_results', maxChars: 100 }).edit(history)
    const t = messages[2]
    assert.ok(t instanceof ToolMessage)
    assert.equal(t.content.length, 100)
    const m = /\n\[… (\d+) characters truncated\]$/.exec(t.content)
    assert.ok(m, t.content)
    const kept = t.content.length - m[0].length
    assert.equal(Number(m[1]), long.length - kept)
    assert.equal(t.content.slice(0, kept), long.slice(0, kept))
    assert.deepEqual(t.response_metadata, { elapsed: 3, context_editing: { truncated: true, strategy: 'truncate_tool_results' } })
    assert.equal(t.id, 't1')
    assert.equal(t.status, 'success')
    assert.equal(t.tool_call_id, 'c1')
    assert.equal(t.name, 'shell')
    assert.deepEqual(snapshot(history), before)
    assertSubset(report.appliedEdits, [{ type: 'truncate_tool_results', truncatedToolResults: 1 }])
    assert.equal(report.appliedEdits[0].clearedInputTokens, report.tokensBefore - report.tokensAfter)
    // The flag keeps it from being cut again.
    const again = pipeline({ type: 'truncate_tool_results', maxChars: 50 }).edit(messages)
    assert.equal(again.messages[2], messages[2])
    assert.equal(again.report.appliedEdits[0].truncatedToolResults, 0)
  })

  test('default 600; a cut never splits a surrogate pair; OpenAI results stay plain', () => {
    const emoji = '😀'.repeat(500) // 1000 UTF-16 units
    const history = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: emoji },
    ]
    for (const maxChars of [undefined, 101, 102, 103]) {
      const edit = { type: 'truncate_tool_results' }
      if (maxChars) edit.maxChars = maxChars
      const { messages } = pipeline(edit).edit(history)
      const content = messages[2].content
      assert.ok(content.isWellFormed(), `maxChars ${maxChars}: no lone surrogate`)
      assert.ok(content.length <= (maxChars ?? 600))
      assert.ok(content.startsWith('😀'))
      assert.deepEqual(Object.keys(messages[2]), ['role', 'tool_call_id', 'content'])
    }
    assert.equal(history[2].content, emoji)
  })

  test('excludeTools and results already cleared are skipped', () => {
    const history = [
      new HumanMessage('go'),
      new AIMessage({
        content: '',
        tool_calls: [
          { id: 'c1', name: 'read', args: {}, type: 'tool_call' },
          { id: 'c2', name: 'shell', args: {}, type: 'tool_call' },
          { id: 'c3', name: 'shell', args: {}, type: 'tool_call' },
        ],
      }),
      new ToolMessage({ content: long, tool_call_id: 'c1', name: 'read' }),
      new ToolMessage({
        content: long,
        tool_call_id: 'c2',
        name: 'shell',
        response_metadata: { context_editing: { cleared: true, strategy: 'clear_tool_uses' } },
      }),
      new ToolMessage({ content: long, tool_call_id: 'c3', name: 'shell' }),
    ]
    const { messages, report } = pipeline({ type: 'truncate_tool_results', maxChars: 80, excludeTools: ['read'] }).edit(history)
    assert.equal(messages[2], history[2])
    assert.equal(messages[3], history[3])
    assert.equal(messages[4].content.length, 80)
    assert.equal(report.appliedEdits[0].truncatedToolResults, 1)
  })
})

// ---------------------------------------------------------------------------------------------
// pipelines

describe('pipelines', () => {
  test('clear_thinking then truncate: each edit reports what it did', () => {
    const history = [
      ...reasoningHistory(),
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'shell', args: {}, type: 'tool_call' }] }),
      new ToolMessage({ content: 'x'.repeat(2000), tool_call_id: 'c1', name: 'shell' }),
    ]
    const before = snapshot(history)
    const { messages, report } = pipeline({ type: 'clear_thinking', keep: { thinkingTurns: 0 } }, { type: 'truncate_tool_results' }).edit(history)
    assert.deepEqual(snapshot(history), before)
    assert.equal(messages[7].content.length, 600)
    assert.deepEqual(messages[5].content, [{ type: 'text', text: 'Yes.' }])
    assertSubset(report.appliedEdits, [
      { type: 'clear_thinking', triggered: true, clearedThinkingTurns: 3 },
      { type: 'truncate_tool_results', triggered: true, truncatedToolResults: 1 },
    ])
    const freed = report.appliedEdits.reduce((n, a) => n + a.clearedInputTokens, 0)
    assert.equal(freed, report.tokensBefore - report.tokensAfter)
  })

  test('strip_tool_calls then summarize on OpenAI messages', () => {
    const history = [
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'r1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'a2' },
    ]
    const { messages, report } = pipeline({ type: 'strip_tool_calls' }, { type: 'summarize', trigger: { messages: 4 }, keep: { messages: 2 } }).edit(history, {
      summarize: (req) => `${req.replaced.length} messages`,
    })
    assert.deepEqual(messages, [{ role: 'user', content: 'Here is a summary of the conversation to date:\n\n2 messages' }, history[4], history[5]])
    assertSubset(report.appliedEdits, [
      { type: 'strip_tool_calls', removedMessages: 2 },
      { type: 'summarize', removedMessages: 2 },
    ])
  })
})

// ---------------------------------------------------------------------------------------------
// docs/edits.md

const DOC = new URL('../docs/edits.md', import.meta.url)
const doc = readFileSync(DOC, 'utf8')

/** Every ```json block with the heading of its section. */
function examples() {
  const out = []
  let heading = ''
  const re = /^## (.+)$|^```json\n([\s\S]*?)^```$/gm
  for (const m of doc.matchAll(re)) {
    if (m[1]) heading = m[1]
    else out.push({ heading, example: JSON.parse(m[2]) })
  }
  return out
}

describe('docs/edits.md examples', () => {
  const all = examples()

  test('there is an example for every edit type', () => {
    const documented = new Set(all.flatMap(({ example }) => example.options.edits.map((e) => e.type)))
    for (const type of [
      'clear_tool_uses',
      'clear_thinking',
      'last_n',
      'strip_tool_calls',
      'strip_and_truncate',
      'trim_turns',
      'truncate_tool_results',
      'summarize',
    ]) {
      assert.ok(documented.has(type), `no example for ${type}`)
      assert.ok(doc.includes(`## \`${type}\``), `no section for ${type}`)
    }
  })

  for (const [k, { heading, example }] of all.entries()) {
    test(`${heading} (example ${k + 1}) gives the documented result`, async () => {
      const input = structuredClone(example.messages)
      const context = example.context ?? {}
      const summarize = example.summary === undefined ? undefined : () => example.summary
      const editor = new ContextEditor(example.options)
      const sync = editor.edit(example.messages, { ...context, summarize })
      assert.deepEqual(sync.messages, example.result)
      if (example.report) assertSubset(sync.report, example.report)
      assert.deepEqual(example.messages, input, 'input unchanged')
      const async = await editor.editAsync(example.messages, { ...context, summarize: summarize && (async () => summarize()) })
      assert.deepEqual(async.messages, example.result)
    })
  }
})
