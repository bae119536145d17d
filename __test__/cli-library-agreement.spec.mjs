// The command writes what the library's `ContextEditor.edit` returns, for every edit type the core
// has and every input format the command reads, as a whole file and as a --jsonl line. The library
// is the reference: the command used to apply a `summarize` plan through its own alignment and kept
// the oldest messages while dropping the newest (the last question among them).
//
// Anthropic requests are not a library format: the reference is the library's edit of the same
// conversation as LangChain dicts (one per message, one per tool_result block, one per run of other
// user blocks), put back by matching each edited message to its original by content, not by plan
// indices, so that the command's own alignment is checked, not repeated.

import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, mapChatMessagesToStoredMessages } from '@langchain/core/messages'
import { ContextEditor } from '../dist/index.js'
import { cliSandbox } from './support/cli.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

const box = cliSandbox('agree')
const cli = box.cli
let dir
before(() => {
  dir = box.dir
})

// ---------------------------------------------------------------------------------------------
// One conversation: 10 turns with reasoning, tool calls (some parallel), long results, and a
// final question; every text is unique (the Anthropic reference matches messages by it).

const TURNS = 10
const result = (t, k) => `result ${t}.${k}: ${'lorem ipsum dolor '.repeat(20 + t)}`
const calls = (t) => (t % 3 === 2 ? [] : t % 3 === 0 ? [`c${t}a`, `c${t}b`] : [`c${t}a`])
const tool = (id) => (id.endsWith('b') ? 'grep' : 'read_file')

function openaiMessages() {
  const out = [{ role: 'system', content: 'You are a coding agent.' }]
  for (let t = 0; t < TURNS; t++) {
    out.push({ role: 'user', content: `question ${t}` })
    const ids = calls(t)
    if (ids.length) {
      out.push({
        role: 'assistant',
        content: `looking ${t}`,
        reasoning_content: `why ${t}`,
        tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: tool(id), arguments: JSON.stringify({ path: `${id}.ts` }) } })),
      })
      ids.forEach((id, k) => out.push({ role: 'tool', tool_call_id: id, content: result(t, k) }))
    }
    out.push({ role: 'assistant', content: `answer ${t}`, reasoning_content: `so ${t}` })
  }
  out.push({ role: 'user', content: 'the last question' })
  return out
}

function langchainDicts() {
  const out = [{ type: 'system', content: 'You are a coding agent.' }]
  for (let t = 0; t < TURNS; t++) {
    out.push({ type: 'human', content: `question ${t}`, id: `h${t}` })
    const ids = calls(t)
    if (ids.length) {
      out.push({
        type: 'ai',
        content: [
          { type: 'thinking', thinking: `why ${t}`, signature: `s${t}` },
          { type: 'text', text: `looking ${t}` },
        ],
        tool_calls: ids.map((id) => ({ id, name: tool(id), args: { path: `${id}.ts` }, type: 'tool_call' })),
      })
      ids.forEach((id, k) => out.push({ type: 'tool', tool_call_id: id, name: tool(id), content: result(t, k), status: 'success' }))
    }
    out.push({ type: 'ai', content: `answer ${t}`, additional_kwargs: { reasoning_content: `so ${t}` } })
  }
  out.push({ type: 'human', content: 'the last question' })
  return out
}

function langchainInstances() {
  const out = [new SystemMessage('You are a coding agent.')]
  for (let t = 0; t < TURNS; t++) {
    out.push(new HumanMessage(`question ${t}`))
    const ids = calls(t)
    if (ids.length) {
      out.push(new AIMessage({ content: `looking ${t}`, tool_calls: ids.map((id) => ({ id, name: tool(id), args: { path: `${id}.ts` } })) }))
      ids.forEach((id, k) => out.push(new ToolMessage({ content: result(t, k), tool_call_id: id, name: tool(id) })))
    }
    out.push(new AIMessage({ content: `answer ${t}`, additional_kwargs: { reasoning_content: `so ${t}` } }))
  }
  out.push(new HumanMessage('the last question'))
  return out
}

/**
 * An Anthropic request: string and block contents, results in user messages, and once (turn 3) the
 * next question as a text block after the results, with no answer in between.
 */
function anthropicRequest() {
  const messages = [{ role: 'user', content: 'question 0' }]
  for (let t = 0; t < TURNS; t++) {
    const next = t + 1 < TURNS ? `question ${t + 1}` : 'the last question'
    const ids = calls(t)
    if (ids.length) {
      messages.push({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: `why ${t}`, signature: `s${t}` },
          { type: 'text', text: `looking ${t}` },
          ...ids.map((id) => ({ type: 'tool_use', id, name: tool(id), input: { path: `${id}.ts` } })),
        ],
      })
      const results = ids.map((id, k) => ({ type: 'tool_result', tool_use_id: id, content: result(t, k) }))
      if (t === 3) {
        messages.push({ role: 'user', content: [...results, { type: 'text', text: next }] })
        continue
      }
      messages.push({ role: 'user', content: results })
    }
    messages.push({ role: 'assistant', content: `answer ${t}` })
    messages.push({ role: 'user', content: t + 1 < TURNS ? [{ type: 'text', text: next }] : next })
  }
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: 'You are a coding agent.',
    tools: [{ name: 'read_file', input_schema: { type: 'object' } }],
    messages,
  }
}

// ---------------------------------------------------------------------------------------------
// Every edit type (and the README's and the demo's pipelines)

const README_PIPELINE = [
  { type: 'trim_turns', maxTurns: 8 },
  { type: 'summarize', trigger: { turns: 6 }, keep: { turns: 2 }, summaryRole: 'assistant', maxTokens: 400 },
]
const EDITS = {
  clear_tool_uses: [{ type: 'clear_tool_uses', trigger: { toolUses: 3 }, keep: { messages: 2 } }],
  'clear_tool_uses (inputs, exclusions, clearAtLeast)': [
    { type: 'clear_tool_uses', trigger: { tokens: 100 }, keep: { messages: 1 }, clearToolInputs: true, excludeTools: ['grep'], clearAtLeast: 50 },
  ],
  'clear_tool_uses (cacheBreakpoints)': [{ type: 'clear_tool_uses', trigger: { tokens: 100 }, keep: { messages: 2 }, cacheBreakpoints: true }],
  clear_thinking: [{ type: 'clear_thinking', keep: { thinkingTurns: 1 } }],
  last_n: [{ type: 'last_n', n: 5 }],
  strip_tool_calls: [{ type: 'strip_tool_calls' }],
  strip_and_truncate: [{ type: 'strip_and_truncate', n: 4 }],
  trim_turns: [{ type: 'trim_turns', maxTurns: 3 }],
  truncate_tool_results: [{ type: 'truncate_tool_results', maxChars: 80, excludeTools: ['grep'] }],
  summarize: [{ type: 'summarize', trigger: { messages: 10 }, keep: { messages: 5 } }],
  'summarize (turns)': [{ type: 'summarize', trigger: { turns: 4 }, keep: { turns: 2 }, summaryRole: 'assistant' }],
  "the README's turn pipeline (trim_turns + summarize)": README_PIPELINE,
  'the demo pipeline (data/demo-pipeline.json)': JSON.parse(readFileSync(join(ROOT, 'data/demo-pipeline.json'), 'utf8')).edits,
}
/** The budget both sides are given (fractions in the demo pipeline need one). */
const MAX_INPUT = 4000

// ---------------------------------------------------------------------------------------------
// Formats: the document the command reads, and what the library's edit says it must write

/** The library's edit of `messages`: the messages and the report. */
function libraryEdit(edits, messages, context = {}) {
  const editor = new ContextEditor({ edits })
  return editor.edit(messages, { maxInputTokens: MAX_INPUT, ...context })
}

const plain = (v) => JSON.parse(JSON.stringify(v))

const FORMATS = {
  'OpenAI request': () => {
    const doc = { model: 'gpt-4o', temperature: 0, messages: openaiMessages() }
    return { doc, expect: (edits) => wrap(doc, libraryEdit(edits, openaiMessages(), { model: 'gpt-4o' })) }
  },
  'OpenAI messages array': () => {
    const doc = openaiMessages()
    return { doc, expect: (edits) => bare(libraryEdit(edits, openaiMessages())) }
  },
  'LangChain dicts in {messages}': () => {
    const doc = { thread_id: 't-1', messages: langchainDicts() }
    return { doc, expect: (edits) => wrap(doc, libraryEdit(edits, langchainDicts())) }
  },
  'LangChain StoredMessage[]': () => {
    const stored = () => plain(mapChatMessagesToStoredMessages(langchainInstances()))
    return { doc: stored(), expect: (edits) => bare(libraryEdit(edits, stored())) }
  },
  'LangChain serialized instances': () => {
    // The library edits the instances themselves; their JSON is what the command must write.
    return { doc: plain(langchainInstances()), expect: (edits) => bare(libraryEdit(edits, langchainInstances())) }
  },
  'Anthropic request': () => {
    const doc = anthropicRequest()
    return { doc, expect: (edits) => anthropicExpected(doc, edits) }
  },
}

function wrap(doc, res) {
  return { doc: { ...doc, messages: plain(res.messages) }, report: res.report }
}
function bare(res) {
  return { doc: plain(res.messages), report: res.report }
}

/** The Anthropic request as LangChain dicts, with where each came from. */
function anthropicUnits(req) {
  const units = []
  const from = []
  const names = new Map()
  req.messages.forEach((m, i) => {
    if (m.role === 'assistant') {
      const uses = Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_use') : []
      const unit = { type: 'ai', content: m.content }
      if (uses.length) unit.tool_calls = uses.map((b) => (names.set(b.id, b.name), { id: b.id, name: b.name, args: b.input, type: 'tool_call' }))
      units.push(unit)
      from.push({ message: i })
    } else if (typeof m.content === 'string') {
      units.push({ type: 'human', content: m.content })
      from.push({ message: i })
    } else {
      let run
      m.content.forEach((b, k) => {
        if (b.type === 'tool_result') {
          run = undefined
          units.push({ type: 'tool', tool_call_id: b.tool_use_id, name: names.get(b.tool_use_id), content: b.content })
          from.push({ message: i, blocks: [k] })
          return
        }
        if (!run) {
          run = { type: 'human', content: [] }
          units.push(run)
          from.push({ message: i, blocks: [] })
        }
        run.content.push(b)
        from[from.length - 1].blocks.push(k)
      })
    }
  })
  return { units, from }
}

/** What identifies a message whatever an edit did to it: its text, or its first tool call id. */
function keyOf(m) {
  if (m.type === 'tool') return `tool:${m.tool_call_id}`
  const content = typeof m.content === 'string' ? m.content : m.content.find((b) => b.type === 'text')?.text
  return `${m.type}:${content ?? m.tool_calls?.[0]?.id}`
}

function anthropicExpected(req, edits) {
  const { units, from } = anthropicUnits(req)
  const res = libraryEdit(edits, units, { systemPrompt: req.system, tools: req.tools, model: req.model })
  const edited = new Map(res.messages.map((m) => [keyOf(m), m]))
  assert.equal(edited.size, res.messages.length, 'the reference needs unique keys')
  const messages = []
  req.messages.forEach((m, i) => {
    const mine = units.map((u, k) => ({ u, k })).filter(({ k }) => from[k].message === i)
    const outs = mine.map(({ u }) => edited.get(keyOf(u)))
    if (outs.every((o, j) => o === mine[j].u)) return messages.push(m)
    if (outs.every((o) => o === undefined)) return
    if (from[mine[0].k].blocks === undefined) return messages.push({ ...m, content: outs[0].content })
    const content = []
    mine.forEach(({ u, k }, j) => {
      const o = outs[j]
      if (o === undefined) return
      if (u.type === 'tool') content.push(o === u ? m.content[from[k].blocks[0]] : { ...m.content[from[k].blocks[0]], content: o.content })
      else content.push(...(o === u ? from[k].blocks.map((b) => m.content[b]) : o.content))
    })
    messages.push({ ...m, content })
  })
  return { doc: { ...req, messages: plain(messages) }, report: res.report }
}

// ---------------------------------------------------------------------------------------------

const messagesOf = (doc) => (Array.isArray(doc) ? doc : doc.messages)

describe('edit writes what the library returns, for every edit type and every format', { concurrency: 4 }, () => {
  for (const [name, edits] of Object.entries(EDITS)) {
    test(name, async () => {
      const config = join(dir, `${name.replace(/\W+/g, '-')}.json`)
      writeFileSync(config, JSON.stringify({ edits }))
      const cases = Object.entries(FORMATS).map(([format, make]) => ({ format, ...make() }))
      let fired = 0
      for (const c of cases) {
        const want = c.expect(edits)
        if (want.report.triggered) fired++
        const f = join(dir, `${name.replace(/\W+/g, '-')}.${c.format.replace(/\W+/g, '-')}.json`)
        writeFileSync(f, JSON.stringify(c.doc, null, 2))
        const r = await cli(['edit', f, '--config', config, '--max-input-tokens', String(MAX_INPUT), '--report', 'json'])
        assert.equal(r.code, 0, `${c.format}: ${r.stderr}`)
        assert.deepEqual(JSON.parse(r.stdout), want.doc, `${c.format}: the messages the library returns`)
        const report = JSON.parse(r.stderr)
        assert.equal(report.messagesAfter, messagesOf(want.doc).length, `${c.format}: the report counts what was written`)
        assert.equal(report.triggered, want.report.triggered, c.format)
        assert.deepEqual(
          report.warnings.map((w) => w.code).sort(),
          want.report.warnings.map((w) => w.code).sort(),
          `${c.format}: the same warnings (summary_skipped when a summary would be written)`,
        )
        if (c.format !== 'Anthropic request') assert.equal(report.tokensAfter, want.report.tokensAfter, `${c.format}: tokens after`)
      }
      assert.ok(fired > 0, 'the edit fires on this conversation (else the comparison proves little)')
      // The same documents as JSONL lines: the same output, line by line.
      const input = `${cases.map((c) => JSON.stringify(c.doc)).join('\n')}\n`
      const r = await cli(['edit', '-', '--jsonl', '--config', config, '--max-input-tokens', String(MAX_INPUT), '--report', 'none'], input)
      assert.equal(r.code, 0, r.stderr)
      const lines = r.stdout.trimEnd().split('\n')
      assert.equal(lines.length, cases.length)
      cases.forEach((c, k) => assert.deepEqual(JSON.parse(lines[k]), c.expect(edits).doc, `--jsonl ${c.format}`))
    })
  }
})

describe('summarize through the command keeps the history whole', () => {
  test("the README's turn pipeline on a 10-turn chat keeps the newest turns and the last question", async () => {
    const f = join(dir, 'ten-turns.json')
    writeFileSync(f, JSON.stringify({ model: 'gpt-4o', messages: openaiMessages() }))
    const config = join(dir, 'readme-pipeline.json')
    writeFileSync(config, JSON.stringify({ edits: README_PIPELINE }))
    const r = await cli(['edit', f, '--config', config])
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout).messages
    const questions = out.filter((m) => m.role === 'user').map((m) => m.content)
    // trim_turns keeps the last 8 turns (the last question is turn 11), summarize would replace all
    // but the last 2: without a summary they stay.
    assert.deepEqual(questions, ['question 3', 'question 4', 'question 5', 'question 6', 'question 7', 'question 8', 'question 9', 'the last question'])
    // Every tool call has its result, in order.
    const answered = new Set(out.filter((m) => m.role === 'tool').map((m) => m.tool_call_id))
    for (const m of out) for (const c of m.tool_calls ?? []) assert.ok(answered.has(c.id), `call ${c.id} keeps its result`)
    // Exactly the system prompt and the last 8 turns, untouched.
    const all = openaiMessages()
    const kept = [all[0], ...all.slice(all.findIndex((m) => m.content === 'question 3'))]
    assert.deepEqual(out, kept)
    assert.match(r.stderr, /warning summary_skipped: a `summarize` edit fired, but the command line writes no summaries/)
    assert.match(r.stderr, new RegExp(`messages ${all.length} → ${kept.length} `))
  })
})
