// The edit pipeline through the public JS API: clear_thinking, last_n, strip_tool_calls,
// strip_and_truncate, trim_turns, truncate_tool_results and summarize, on real @langchain/core 1.x
// messages and on OpenAI chat messages; the wire-level ops through NativeContextEditor; and every
// JSON example of docs/edits.md, run and checked against its documented result.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor, applyPlan } from '../dist/index.js'
import { NativeContextEditor } from '../index.js'
import { Rng } from './support/prng.mjs'

const pipeline = (...edits) => new ContextEditor({ edits })
const types = (msgs) => msgs.map((m) => (typeof m._getType === 'function' ? m._getType() : (m.role ?? m.type)))
const contents = (msgs) => msgs.map((m) => m.content)

/** `structuredClone` keeps data, not classes: enough to show the input's data did not change. */
function snapshot(msgs) {
  return JSON.parse(JSON.stringify(msgs))
}

/** Checks that every key of `expected` has the same value in `actual` (arrays: same length, each element a subset). */
function assertSubset(actual, expected, path = 'report') {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array`)
    assert.equal(actual.length, expected.length, `${path}.length`)
    expected.forEach((e, k) => assertSubset(actual[k], e, `${path}[${k}]`))
  } else if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${path}: expected an object`)
    for (const [k, v] of Object.entries(expected)) assertSubset(actual[k], v, `${path}.${k}`)
  } else {
    assert.equal(actual, expected, path)
  }
}

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
// summarize

function chat(n) {
  const out = [new SystemMessage('You are a travel assistant.')]
  for (let k = 0; k < n; k++) out.push(new HumanMessage(`question ${k}`), new AIMessage(`answer ${k}`))
  return out
}

const SUMMARIZE = { type: 'summarize', trigger: { messages: 6 }, keep: { messages: 2 } }

describe('summarize', () => {
  test('edit(msgs, { summarize }) writes a HumanMessage with lc_source where the replaced messages were', () => {
    const history = chat(4)
    const before = snapshot(history)
    const seen = []
    const { messages, report } = pipeline(SUMMARIZE).edit(history, {
      summarize: (request) => {
        seen.push(request)
        return 'They talked about travel.'
      },
    })
    assert.equal(seen.length, 1)
    const req = seen[0]
    assert.deepEqual(req.replaced, [1, 2, 3, 4, 5, 6])
    assert.equal(req.insertAt, 1)
    assert.equal(req.role, 'user')
    assert.equal(req.prefix, 'Here is a summary of the conversation to date:')
    assert.ok(req.prompt.includes('Human: question 0\nAI: answer 0'))
    assert.ok(!req.prompt.includes('question 3'), 'the kept tail is not summarized')
    assert.ok(!req.prompt.includes('{messages}'))
    assert.equal(messages.length, 4)
    assert.equal(messages[0], history[0])
    const s = messages[1]
    assert.ok(s instanceof HumanMessage)
    assert.equal(s.content, 'Here is a summary of the conversation to date:\n\nThey talked about travel.')
    assert.deepEqual(s.additional_kwargs, { lc_source: 'summarization' })
    assert.equal(messages[2], history[7])
    assert.equal(messages[3], history[8])
    assert.deepEqual(snapshot(history), before)
    assertSubset(report.appliedEdits, [{ type: 'summarize', triggered: true, removedMessages: 6 }])
  })

  test('editAsync awaits an async summarizer; summaryRole assistant gives an AIMessage', async () => {
    const history = chat(4)
    const editor = pipeline({ ...SUMMARIZE, summaryRole: 'assistant', summaryPrefix: 'Earlier:' })
    const { messages } = await editor.editAsync(history, {
      summarize: async (request) => {
        await new Promise((r) => setTimeout(r, 5))
        return `summary of ${request.replaced.length}`
      },
    })
    assert.ok(messages[1] instanceof AIMessage)
    assert.equal(messages[1].content, 'Earlier:\n\nsummary of 6')
    assert.equal(messages.length, 4)
  })

  test('without a summarizer the messages are kept and the report warns summary_skipped', () => {
    const history = chat(4)
    const { messages, report } = pipeline(SUMMARIZE).edit(history)
    messages.forEach((m, i) => assert.equal(m, history[i]))
    assert.equal(messages.length, history.length)
    assert.ok(report.warnings.some((w) => w.code === 'summary_skipped'))
  })

  test('an async summarizer in edit is an error that says to use editAsync', () => {
    assert.throws(
      () => pipeline(SUMMARIZE).edit(chat(4), { summarize: async () => 'x' }),
      (e) => e.code === 'INVALID_SUMMARY' && e.path === 'summary' && /editAsync/.test(e.message),
    )
  })

  test('OpenAI messages get an OpenAI summary message; pairs are never split', () => {
    const history = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'r1' },
      { role: 'assistant', content: 'done' },
    ]
    // keep 2 would start at the tool result: the cut moves back to its call.
    const { messages } = pipeline({ type: 'summarize', trigger: { messages: 2 }, keep: { messages: 2 } }).edit(history, {
      summarize: () => 'S',
    })
    assert.deepEqual(messages, [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'Here is a summary of the conversation to date:\n\nS' },
      history[4],
      history[5],
      history[6],
    ])
  })

  test('a fraction without maxInputTokens is INVALID_CONTEXT; with it, DeepAgents defaults apply', () => {
    assert.throws(
      () => pipeline({ type: 'summarize', trigger: { fraction: 0.5 } }).edit(chat(2)),
      (e) => e.code === 'INVALID_CONTEXT',
    )
    const { report } = pipeline({ type: 'summarize' }).edit(chat(30), { maxInputTokens: 100, summarize: () => 'S' })
    assert.equal(report.appliedEdits[0].triggered, true)
  })

  test('plan() returns the request; applyPlan(messages, plan, { summary }) writes it', () => {
    const history = chat(4)
    const editor = pipeline(SUMMARIZE)
    const plan = editor.plan(history)
    assert.ok(plan.summary)
    const out = applyPlan(history, plan, { summary: 'S' })
    assert.equal(out.length, 4)
    assert.ok(out[1] instanceof HumanMessage)
    const kept = applyPlan(history, plan)
    assert.equal(kept.length, history.length)
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

describe('stored messages ({ type, data })', () => {
  test('clear_thinking, truncate and strip keep the stored shape', () => {
    const history = [
      { type: 'human', data: { content: 'q', additional_kwargs: {}, response_metadata: {} } },
      {
        type: 'ai',
        data: {
          content: [
            { type: 'thinking', thinking: 'old', signature: 's' },
            { type: 'text', text: 'calling' },
          ],
          tool_calls: [{ id: 'c1', name: 'f', args: {} }],
          additional_kwargs: {},
          response_metadata: {},
        },
      },
      { type: 'tool', data: { content: 'z'.repeat(300), tool_call_id: 'c1', name: 'f', additional_kwargs: {}, response_metadata: { a: 1 } } },
      // A new user turn: reasoning is kept per assistant turn (a whole tool loop is one turn).
      { type: 'human', data: { content: 'and now?', additional_kwargs: {}, response_metadata: {} } },
      {
        type: 'ai',
        data: {
          content: [
            { type: 'thinking', thinking: 'new', signature: 't' },
            { type: 'text', text: 'done' },
          ],
          additional_kwargs: {},
          response_metadata: {},
        },
      },
    ]
    const before = snapshot(history)
    const thinned = pipeline({ type: 'clear_thinking' }, { type: 'truncate_tool_results', maxChars: 50 }).edit(history).messages
    assert.deepEqual(thinned[1].data.content, [{ type: 'text', text: 'calling' }])
    assert.equal(thinned[1].type, 'ai')
    assert.equal(thinned[2].data.content.length, 50)
    assert.deepEqual(thinned[2].data.response_metadata, { a: 1, context_editing: { truncated: true, strategy: 'truncate_tool_results' } })
    assert.equal(thinned[3], history[3])
    const stripped = pipeline({ type: 'strip_tool_calls' }).edit(history).messages
    assert.equal(stripped.length, 4)
    assert.deepEqual(stripped[1].data.tool_calls, [])
    assert.equal(stripped[1].type, 'ai')
    assert.deepEqual(snapshot(history), before)
  })
})

// ---------------------------------------------------------------------------------------------
// wire level

describe('NativeContextEditor ops', () => {
  test('remove_thinking, truncate_tool_result, remove_tool_calls, remove and the summary request', () => {
    const editor = new NativeContextEditor({
      edits: [{ type: 'clear_thinking' }, { type: 'truncate_tool_results', maxChars: 40 }, { type: 'strip_tool_calls' }],
    })
    const plan = editor.plan([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a', thinking: 'long reasoning', toolCalls: [{ id: 'c1', name: 'f', args: '{}' }] },
      { role: 'tool', toolCallId: 'c1', content: 'r'.repeat(100) },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'b', thinkingLength: 50 },
    ])
    assert.deepEqual(plan.ops, [
      { type: 'remove_thinking', index: 1 },
      { type: 'remove_tool_calls', index: 1, callIndices: [0], toolCallIds: ['c1'] },
      { type: 'remove', index: 2 },
    ])
    assert.equal(plan.summary ?? undefined, undefined)
    // Truncation alone, to see its op.
    const t = new NativeContextEditor({ edits: [{ type: 'truncate_tool_results', maxChars: 40 }] }).plan([
      { role: 'assistant', toolCalls: [{ id: 'c1', name: 'f', args: '{}' }] },
      { role: 'tool', toolCallId: 'c1', content: 'r'.repeat(100) },
    ])
    assert.deepEqual(t.ops, [{ type: 'truncate_tool_result', index: 1, keep: 12, marker: '\n[… 88 characters truncated]', strategy: 'truncate_tool_results' }])
    const s = new NativeContextEditor({
      edits: [{ type: 'summarize', trigger: { messages: 3 }, keep: { messages: 1 }, model: 'gpt-4o-mini', maxTokens: 400 }],
    }).plan([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
    ])
    assert.deepEqual(s.ops, [
      { type: 'remove', index: 1 },
      { type: 'remove', index: 2 },
    ])
    assertSubset(s.summary, {
      replaced: [1, 2],
      insertAt: 1,
      summarized: [1, 2],
      role: 'user',
      model: 'gpt-4o-mini',
      maxTokens: 400,
    })
    assert.ok(s.summary.prompt.includes('Human: q1\nAI: a1'))
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

// ---------------------------------------------------------------------------------------------
// seeded random conversations through the shim

/** A float in [0, 1) per call, from the shared seeded PRNG (support/prng.mjs), so failures reproduce. */
function rng(seed) {
  const source = new Rng(seed)
  return () => source.next()
}

/** A well-formed LangChain 1.x conversation with reasoning, Anthropic tool_use blocks and long results. */
function randomConversation(r) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)]
  const words = (n) => Array.from({ length: n }, () => pick(['alpha', 'beta', 'γάμμα', '日本', '😀', 'x\n'])).join(' ')
  const msgs = []
  if (r() < 0.6) msgs.push(new SystemMessage(words(3)))
  let id = 0
  const turns = 1 + Math.floor(r() * 7)
  for (let t = 0; t < turns; t++) {
    msgs.push(new HumanMessage(words(1 + Math.floor(r() * 6))))
    const steps = Math.floor(r() * 3)
    for (let s = 0; s < steps; s++) {
      const calls = Array.from({ length: 1 + Math.floor(r() * 2) }, () => ({
        id: `c${id++}`,
        name: pick(['search', 'read']),
        args: { q: words(2) },
        type: 'tool_call',
      }))
      const text = r() < 0.5 ? words(3) : ''
      const thinking = r() < 0.4
      const anthropic = r() < 0.5
      let content = text
      if (anthropic || thinking) {
        content = [
          ...(thinking ? [{ type: 'thinking', thinking: words(5), signature: 's' }] : []),
          ...(text ? [{ type: 'text', text }] : []),
          ...(anthropic ? calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })) : []),
        ]
      }
      const additional_kwargs = !thinking && r() < 0.2 ? { reasoning_content: words(4) } : {}
      msgs.push(new AIMessage({ content, tool_calls: calls, additional_kwargs }))
      for (const c of calls) {
        const long = r() < 0.3
        msgs.push(new ToolMessage({ content: long ? words(300) : words(4), tool_call_id: c.id, name: c.name }))
      }
    }
    if (r() < 0.8) msgs.push(new AIMessage(words(4)))
  }
  return msgs
}

function randomEdit(r, last) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)]
  const kinds = ['clear_tool_uses', 'clear_thinking', 'last_n', 'strip_tool_calls', 'strip_and_truncate', 'trim_turns', 'truncate_tool_results']
  if (last) kinds.push('summarize')
  const type = pick(kinds)
  switch (type) {
    case 'clear_tool_uses':
      return { type, trigger: { messages: 1 }, keep: { messages: Math.floor(r() * 3) }, clearToolInputs: r() < 0.5 }
    case 'clear_thinking':
      return { type, keep: r() < 0.2 ? 'all' : { thinkingTurns: Math.floor(r() * 3) } }
    case 'last_n':
    case 'strip_and_truncate':
      return { type, n: Math.floor(r() * 10) }
    case 'trim_turns':
      return { type, maxTurns: 1 + Math.floor(r() * 4) }
    case 'truncate_tool_results':
      return { type, maxChars: pick([1, 30, 101, 600]) }
    case 'summarize':
      return { type, trigger: { messages: 1 }, keep: pick([{ messages: Math.floor(r() * 6) }, { turns: Math.floor(r() * 3) }, { tokens: 40 }]) }
    default:
      return { type }
  }
}

/** The ids of the tool calls an AI message carries, and of its `tool_use` blocks. */
const callIds = (m) => (m.tool_calls ?? []).map((c) => c.id)
const toolUseIds = (m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_use').map((b) => b.id) : [])

describe('random conversations through ContextEditor', () => {
  test('every edit and two-edit pipeline, every counting method: valid for the APIs, input unchanged, report matches the output', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed)
      const history = randomConversation(r)
      const edits = r() < 0.5 ? [randomEdit(r, true)] : [randomEdit(r, false), randomEdit(r, true)]
      const tokenCountMethod = ['approx', 'model', 'estimate'][seed % 3]
      const editor = new ContextEditor({ edits, tokenCountMethod })
      const before = snapshot(history)
      const summarized = []
      const { messages, report } = editor.edit(history, { summarize: (req) => (summarized.push(req), 'S') })
      const at = `seed ${seed}, ${tokenCountMethod}, edits ${JSON.stringify(edits)}`
      assert.deepEqual(snapshot(history), before, `${at}: input unchanged`)
      // Tool results follow their calls; calls have results; tool_use blocks mirror the calls.
      const called = new Set()
      for (const [i, m] of messages.entries()) {
        if (m instanceof ToolMessage) assert.ok(called.has(m.tool_call_id), `${at}: result ${i} without its call`)
        if (m instanceof AIMessage) {
          for (const c of callIds(m)) called.add(c)
          assert.deepEqual(toolUseIds(m), Array.isArray(m.content) && toolUseIds(m).length ? callIds(m) : [], `${at}: tool_use blocks of ${i}`)
          for (const c of callIds(m)) {
            assert.ok(
              messages.some((t, j) => j > i && t instanceof ToolMessage && t.tool_call_id === c),
              `${at}: call ${c} of ${i} without its result`,
            )
          }
          if (callIds(m).length === 0) {
            const text = typeof m.content === 'string' ? m.content : m.content.map((b) => b.text ?? '').join('')
            const blocks = Array.isArray(m.content) ? m.content.length : 0
            assert.ok(text !== '' || blocks > 0, `${at}: an empty assistant message ${i} was left`)
          }
        }
      }
      const lead = history.findIndex((m) => !(m instanceof SystemMessage))
      for (let i = 0; i < (lead < 0 ? history.length : lead); i++) assert.equal(messages[i], history[i], `${at}: system ${i}`)
      assert.equal(report.warnings.filter((w) => w.code === 'dangling_tool_call').length, 0, at)
      // Without a summary, the report describes the output exactly.
      if (summarized.length === 0) {
        assert.equal(report.messagesAfter, messages.length, `${at}: messagesAfter`)
        assert.equal(report.tokensAfter, editor.countTokens(messages).total, `${at}: tokensAfter == recount`)
      } else {
        assert.equal(messages.filter((m) => m.additional_kwargs?.lc_source === 'summarization').length, 1, at)
      }
    }
  })
})
