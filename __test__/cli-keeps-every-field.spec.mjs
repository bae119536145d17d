// What the command writes back keeps every field of the input, and stays a valid document of its
// format: an own "__proto__" key (JSON.parse makes it an ordinary property) is data and is written
// back, in every format and path, on messages the edits change and on those they keep; a message an
// edit removes is dropped, never written as an empty shell; the report counts what was written.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { cliSandbox } from './support/cli.mjs'

const box = cliSandbox('fields')
const cli = box.cli
let dir
before(() => {
  dir = box.dir
})
const put = (name, text) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

// ---------------------------------------------------------------------------------------------
// "__proto__" keys

let tags = 0
/** `"__proto__": {"tag": N}` with a fresh N, as JSON text (an object literal would set the prototype). */
const P = () => `"__proto__": {"tag": ${++tags}}`
const big = 'x'.repeat(600)

/** Tags of own "__proto__" keys anywhere in `v` (own properties only, so inherited ones never count). */
function ownTags(v, out = new Set()) {
  if (v === null || typeof v !== 'object') return out
  if (Object.hasOwn(v, '__proto__')) out.add(v.__proto__?.tag)
  for (const k of Object.keys(v)) if (k !== '__proto__') ownTags(v[k], out)
  return out
}

/**
 * One document per format; tags on every object an edit keeps or copies, not on those an edit
 * removes (tool inputs, thinking blocks, a result's content blocks).
 */
const DOCS = {
  openai: () => `{"model": "gpt-4o", ${P()}, "messages": [
    {"role": "system", "content": "s", ${P()}},
    {"role": "user", "content": [{"type": "text", "text": "q", ${P()}}], ${P()}},
    {"role": "assistant", "content": null, ${P()}, "reasoning_content": "r", "tool_calls": [
      {"id": "c1", "type": "function", ${P()}, "function": {"name": "read", "arguments": "{}", ${P()}}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "${big}", ${P()}},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c2", "content": "${big}", ${P()}},
    {"role": "assistant", "content": "done", "reasoning_content": "r2", ${P()}},
    {"role": "user", "content": "last", ${P()}}]}`,
  'langchain dicts': () => `[
    {"type": "human", "content": "q", ${P()}},
    {"type": "ai", "content": [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "a", ${P()}}], ${P()},
      "additional_kwargs": {${P()}}, "tool_calls": [{"id": "c1", "name": "read", "args": {}, ${P()}}]},
    {"type": "tool", "tool_call_id": "c1", "content": "${big}", ${P()}, "response_metadata": {${P()}}},
    {"type": "ai", "content": "", "tool_calls": [{"id": "c2", "name": "read", "args": {}}]},
    {"type": "tool", "tool_call_id": "c2", "content": "${big}", ${P()}},
    {"type": "ai", "content": [{"type": "thinking", "thinking": "t2"}, {"type": "text", "text": "done"}], ${P()}},
    {"type": "human", "content": "last", ${P()}}]`,
  'langchain stored': () => `[
    {"type": "human", ${P()}, "data": {"content": "q", ${P()}}},
    {"type": "ai", "data": {"content": "", ${P()}, "tool_calls": [{"id": "c1", "name": "read", "args": {}, ${P()}}]}},
    {"type": "tool", ${P()}, "data": {"content": "${big}", "tool_call_id": "c1", ${P()}, "response_metadata": {${P()}}}},
    {"type": "ai", "data": {"content": "", "tool_calls": [{"id": "c2", "name": "read", "args": {}}]}},
    {"type": "tool", "data": {"content": "${big}", "tool_call_id": "c2", ${P()}}},
    {"type": "human", "data": {"content": "last", ${P()}}}]`,
  'langchain serialized': () => `[
    {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "HumanMessage"], ${P()}, "kwargs": {"content": "q", ${P()}}},
    {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"], "kwargs": {"content": "", ${P()},
      "tool_calls": [{"id": "c1", "name": "read", "args": {}, ${P()}}]}},
    {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ToolMessage"], ${P()},
      "kwargs": {"content": "${big}", "tool_call_id": "c1", ${P()}}},
    {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "AIMessage"], "kwargs": {"content": "",
      "tool_calls": [{"id": "c2", "name": "read", "args": {}}]}},
    {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ToolMessage"], "kwargs": {"content": "${big}", "tool_call_id": "c2", ${P()}}},
    {"lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "HumanMessage"], "kwargs": {"content": "last", ${P()}}}]`,
  anthropic: () => `{"model": "claude-sonnet-4-5", ${P()}, "system": [{"type": "text", "text": "s", ${P()}}], "messages": [
    {"role": "user", "content": "q", ${P()}},
    {"role": "assistant", ${P()}, "content": [{"type": "thinking", "thinking": "t", "signature": "x"}, {"type": "text", "text": "a", ${P()}},
      {"type": "tool_use", "id": "c1", "name": "read", "input": {}, ${P()}}]},
    {"role": "user", ${P()}, "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "${big}", ${P()}}, {"type": "text", "text": "more", ${P()}}]},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "t2", "signature": "y"}, {"type": "tool_use", "id": "c2", "name": "read", "input": {}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c2", "content": [{"type": "text", "text": "${big}"}], ${P()}}]},
    {"role": "assistant", "content": "done", ${P()}},
    {"role": "user", "content": [{"type": "text", "text": "last", ${P()}}]}]}`,
}

/** Edits that change nearly every message: clear every result and its inputs, cut, drop reasoning. */
const EDITS = [
  ['clear_tool_uses', '{"edits": [{"type": "clear_tool_uses", "trigger": {"tokens": 1}, "keep": {"messages": 0}, "clearToolInputs": true}]}'],
  ['truncate_tool_results', '{"edits": [{"type": "truncate_tool_results", "maxChars": 50}]}'],
  ['clear_thinking', '{"edits": [{"type": "clear_thinking", "keep": {"thinkingTurns": 0}}]}'],
  ['cacheBreakpoints', '{"edits": [{"type": "clear_tool_uses", "trigger": {"tokens": 1}, "keep": {"messages": 1}, "cacheBreakpoints": true}]}'],
]

describe('an own "__proto__" key is data: written back in every format and path', { concurrency: 4 }, () => {
  for (const [format, make] of Object.entries(DOCS)) {
    test(format, async () => {
      const text = make()
      const input = JSON.parse(text)
      const want = ownTags(input)
      assert.ok(want.size >= 5)
      for (const [edit, config] of EDITS) {
        const cfg = put(`${format}-${edit}.config.json`, config)
        const f = put(`${format}-${edit}.json`, text)
        const r = await cli(['edit', f, '--config', cfg, '--report', 'json'])
        assert.equal(r.code, 0, r.stderr)
        assert.ok(JSON.parse(r.stderr).triggered, `${edit} changes this ${format} document`)
        const out = JSON.parse(r.stdout)
        assert.deepEqual([...ownTags(out)].sort(), [...want].sort(), `${format}, ${edit}: every own __proto__ key is kept`)
        // The same through --jsonl.
        const j = await cli(['edit', '-', '--jsonl', '--config', cfg, '--report', 'none'], `${JSON.stringify(input)}\n`)
        assert.equal(j.code, 0, j.stderr)
        assert.deepEqual([...ownTags(JSON.parse(j.stdout))].sort(), [...want].sort(), `--jsonl ${format}, ${edit}`)
      }
      assert.equal(Object.prototype.tag, undefined)
    })
  }
})

// ---------------------------------------------------------------------------------------------
// Removed messages and counts

describe('a removing edit writes a valid document and counts what it wrote', { concurrency: 4 }, () => {
  const anthropic = {
    model: 'claude-sonnet-4-5',
    system: 'You are terse.',
    messages: [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: [{ type: 'text', text: 'second question' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'second answer' }] },
      { role: 'user', content: 'third question' },
      { role: 'assistant', content: 'third answer' },
      { role: 'user', content: 'last question' },
    ],
  }

  for (const [name, edits, kept] of [
    ['last_n', [{ type: 'last_n', n: 2 }], 2],
    ['trim_turns', [{ type: 'trim_turns', maxTurns: 2 }], 3],
    ['strip_and_truncate', [{ type: 'strip_and_truncate', n: 3 }], 3],
  ]) {
    test(`Anthropic, ${name}: removed string-content messages are dropped, never {"content": []}; "7 → ${kept}"`, async () => {
      const f = put(`anth-${name}.json`, JSON.stringify(anthropic))
      const r = await cli(['edit', f, '--option', `edits=${JSON.stringify(edits)}`, '--format', 'anthropic'])
      assert.equal(r.code, 0, r.stderr)
      const out = JSON.parse(r.stdout)
      assert.deepEqual(out.messages, anthropic.messages.slice(-kept))
      for (const m of out.messages) assert.ok(m.content.length > 0, 'no empty content')
      assert.match(r.stderr, new RegExp(`messages 7 → ${kept}(?!\\d)`))
      const json = await cli(['edit', f, '--option', `edits=${JSON.stringify(edits)}`, '--report', 'json', '--format', 'anthropic'])
      assert.equal(JSON.parse(json.stderr).messagesAfter, kept)
    })
  }

  test('Anthropic: a message whose tool results all go with their calls is dropped; text after them stays', async () => {
    const req = {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r1' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'and' },
            { type: 'tool_use', id: 't2', name: 'read', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't2', content: 'r2' },
            { type: 'text', text: 'now this' },
          ],
        },
        { role: 'assistant', content: 'ok' },
      ],
    }
    const f = put('anth-strip.json', JSON.stringify(req))
    const r = await cli(['edit', f, '--option', 'edits=[{"type":"strip_tool_calls"}]', '--report', 'json'])
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.deepEqual(out.messages, [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'text', text: 'and' }] },
      { role: 'user', content: [{ type: 'text', text: 'now this' }] },
      { role: 'assistant', content: 'ok' },
    ])
    assert.equal(JSON.parse(r.stderr).messagesAfter, 4)
  })

  test('Anthropic: a cache breakpoint on the last user message is written, whether its content is a string or blocks', async () => {
    for (const [last, want] of [
      ['next', [{ type: 'text', text: 'next', cache_control: { type: 'ephemeral' } }]],
      [
        [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          { type: 'text', text: 'next' },
        ],
        [
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          { type: 'text', text: 'next', cache_control: { type: 'ephemeral' } },
        ],
      ],
    ]) {
      const req = {
        model: 'claude-sonnet-4-5',
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: big }] },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'read', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: big }] },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: last },
        ],
      }
      const f = put('anth-cache.json', JSON.stringify(req))
      const r = await cli(['edit', f, '--option', 'trigger.tokens=1', '--option', 'keep.messages=1', '--option', 'cacheBreakpoints=true'])
      assert.equal(r.code, 0, r.stderr)
      const out = JSON.parse(r.stdout)
      assert.deepEqual(out.messages.at(-1), { role: 'user', content: want })
      assert.match(JSON.stringify(out.messages[2].content[0].content), /\[cleared\]/)
    }
  })

  test('OpenAI and LangChain: removed messages are dropped, leading system kept, the count is what was written', async () => {
    const openai = {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'r1' },
        { role: 'assistant', content: 'a1' },
        { role: 'user', content: 'q2' },
        { role: 'assistant', content: 'a2' },
      ],
    }
    const f = put('oa-last.json', JSON.stringify(openai))
    const r = await cli(['edit', f, '--option', 'edits=[{"type":"last_n","n":3}]', '--report', 'json'])
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.deepEqual(out.messages, [openai.messages[0], ...openai.messages.slice(-3)])
    assert.equal(JSON.parse(r.stderr).messagesAfter, 4)
    const lc = put(
      'lc-last.json',
      JSON.stringify(openai.messages.map((m) => ({ ...m, type: { system: 'system', user: 'human', assistant: 'ai', tool: 'tool' }[m.role], role: undefined }))),
    )
    const r2 = await cli(['edit', lc, '--option', 'edits=[{"type":"last_n","n":3}]', '--report', 'json'])
    assert.equal(r2.code, 0, r2.stderr)
    assert.deepEqual(
      JSON.parse(r2.stdout).map((m) => m.content),
      ['s', 'a1', 'q2', 'a2'],
    )
    assert.equal(JSON.parse(r2.stderr).messagesAfter, 4)
  })
})
