// The `context-editor` command, spawned as a user runs it: usage and exit codes, each input format
// written back in its own format, and error messages that name where the problem is. The picture
// (inspect, colours on a pty) and the demo are in cli-inspect.spec.mjs, --jsonl in
// cli-jsonl.spec.mjs; shared helpers and inputs in support/cli-spec.mjs.

import assert from 'node:assert/strict'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages } from '@langchain/core/messages'
import { load } from '@langchain/core/load'

import { BIN, ROOT, TIGHT, anthropicRequest, big, cli, dir, file, langchainMessages, openaiRequest, read, useCliDir } from './support/cli-spec.mjs'

useCliDir()

describe('usage', { concurrency: 3 }, () => {
  test('--help for the command and for every subcommand exits 0', async () => {
    const main = await cli(['--help'])
    assert.equal(main.code, 0)
    for (const c of ['edit', 'inspect', 'demo']) assert.match(main.stdout, new RegExp(`context-editor ${c}`))
    for (const c of ['edit', 'inspect', 'demo']) {
      const r = await cli([c, '--help'])
      assert.equal(r.code, 0, c)
      assert.match(r.stdout, new RegExp(`^Usage: context-editor ${c}`))
      const h = await cli(['help', c])
      assert.equal(h.stdout, r.stdout)
    }
    assert.match((await cli(['edit', '--help'])).stdout, /--max-input-tokens N/)
  })

  test('no arguments prints the usage and exits 2; --version prints the package version', async () => {
    const r = await cli([])
    assert.equal(r.code, 2)
    assert.match(r.stdout, /Usage:/)
    const v = await cli(['--version'])
    assert.equal(v.code, 0)
    assert.equal(v.stdout.trim(), JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version)
  })

  test('an unknown command, an unknown flag, a missing file argument or a bad flag value exit 2', async () => {
    const unknown = await cli(['frobnicate'])
    assert.equal(unknown.code, 2)
    assert.match(unknown.stderr, /unknown command `frobnicate`/)
    const f = file('ok.json', [{ role: 'user', content: 'hi' }])
    const flag = await cli(['edit', f, '--frob'])
    assert.equal(flag.code, 2)
    assert.match(flag.stderr, /unknown option `--frob`/)
    const missing = await cli(['edit'])
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /missing input file \(use - for stdin\)/)
    const two = await cli(['inspect', f, f])
    assert.equal(two.code, 2)
    for (const [args, re] of [
      [['--format', 'xml'], /--format: expected auto, langchain, openai, anthropic; got "xml"/],
      [['--max-input-tokens', '12k'], /--max-input-tokens: expected an integer >= 1/],
      [['--option', 'keep'], /--option keep: expected key=value/],
      [['--report', 'yaml'], /--report: expected text, json or none/],
    ]) {
      const r = await cli(['edit', f, ...args])
      assert.equal(r.code, 2, args.join(' '))
      assert.match(r.stderr, re)
      assert.equal(r.stdout, '')
    }
  })

  test('package.json exposes the bin and `npm start` runs the demo', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    assert.equal(pkg.bin['context-editor'], './bin/context-editor.js')
    assert.match(pkg.scripts.start, /bin\/context-editor\.js demo/)
    assert.ok(pkg.files.includes('bin') && pkg.files.includes('data/demo-transcript.json'))
    assert.match(readFileSync(BIN, 'utf8'), /^#!\/usr\/bin\/env node/)
  })
})

describe('edit: each format is written back in the same format', { concurrency: 3 }, () => {
  test('OpenAI request: other fields kept, old results cleared, report on stderr, input untouched', async () => {
    const req = openaiRequest()
    const f = file('openai.json', req)
    const before = readFileSync(f)
    const mtime = statSync(f).mtimeMs
    const r = await cli(['edit', f, ...TIGHT])
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.deepEqual(Object.keys(out), Object.keys(req))
    assert.equal(out.model, 'gpt-4o')
    assert.equal(out.temperature, 0.2)
    assert.deepEqual(out.tools, req.tools)
    assert.equal(out.messages.length, req.messages.length)
    assert.deepEqual(
      out.messages.map((m) => m.content),
      ['You are a coding agent.', 'fix it', null, '[cleared]', 'next', '[cleared]', null, big('c'), 'done'],
    )
    // Only the content of a cleared OpenAI tool message changes; no LangChain fields leak in.
    assert.deepEqual(out.messages[3], { role: 'tool', tool_call_id: 'c1', content: '[cleared]' })
    assert.deepEqual(out.messages[2], req.messages[2])
    assert.match(r.stderr, /openai\.json \(openai, 9 messages\)/)
    assert.match(r.stderr, /triggered · cleared 2 tool results/)
    assert.match(r.stderr, /budget 128,000/) // gpt-4o's known limit, from the request's model
    assert.ok(readFileSync(f).equals(before), 'the input file is not modified')
    assert.equal(statSync(f).mtimeMs, mtime)
    // The output keeps the input's indentation.
    assert.match(r.stdout, /^\{\n {2}"model": "gpt-4o",/)
  })

  test('OpenAI bare array, compact input → compact output; a second run changes nothing (idempotent)', async () => {
    const f = file('bare.json', JSON.stringify(openaiRequest().messages))
    const r = await cli(['edit', f, ...TIGHT, '-o', join(dir, 'bare.out.json')])
    assert.equal(r.code, 0, r.stderr)
    const text = read('bare.out.json')
    assert.equal(text.split('\n').length, 2) // one line + final newline
    const out = JSON.parse(text)
    assert.ok(Array.isArray(out))
    assert.equal(out[3].content, '[cleared]')
    const again = await cli(['edit', join(dir, 'bare.out.json'), ...TIGHT, '--report', 'json'])
    assert.equal(again.code, 0)
    assert.deepEqual(JSON.parse(again.stdout), out)
    assert.equal(JSON.parse(again.stderr).cleared.length, 0)
  })

  test('LangChain StoredMessage[] dump: cleared with the context_editing marker and revivable', async () => {
    const stored = mapChatMessagesToStoredMessages(langchainMessages())
    const f = file('stored.json', stored)
    const r = await cli(['edit', f, ...TIGHT])
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.equal(out.length, 7)
    assert.deepEqual(Object.keys(out[3]), ['type', 'data'])
    assert.equal(out[3].data.content, '[cleared]')
    assert.deepEqual(out[3].data.response_metadata.context_editing, { cleared: true, strategy: 'clear_tool_uses' })
    assert.equal(out[3].data.artifact, undefined)
    assert.deepEqual(out[5], JSON.parse(JSON.stringify(stored[5])), 'kept results are unchanged')
    const revived = mapStoredMessagesToChatMessages(out)
    assert.equal(revived[3].getType(), 'tool')
    assert.equal(revived[3].content, '[cleared]')
    assert.equal(revived[3].tool_call_id, 'c1')
    assert.match(r.stderr, /\(langchain, 7 messages\)/)
  })

  test('LangChain serialized messages (JSON.stringify of instances): written back serialized, loadable', async () => {
    const f = file('lc.json', JSON.stringify(langchainMessages()))
    const r = await cli(['edit', f, ...TIGHT])
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.equal(out[3].lc, 1)
    assert.deepEqual(out[3].id, ['langchain_core', 'messages', 'ToolMessage'])
    assert.equal(out[3].kwargs.content, '[cleared]')
    assert.equal(out[3].kwargs.type, undefined)
    const revived = await load(JSON.stringify(out[3]))
    assert.equal(revived.getType(), 'tool')
    assert.equal(revived.content, '[cleared]')
    assert.equal(revived.response_metadata.context_editing.cleared, true)
  })

  test('LangChain dicts in {messages} with other fields; --format langchain forces the reading', async () => {
    const doc = {
      thread_id: 't-1',
      messages: [
        { type: 'human', content: 'go' },
        { type: 'ai', content: '', tool_calls: [{ id: 'c1', name: 'search', args: {} }] },
        { type: 'tool', tool_call_id: 'c1', content: big('a'), id: 'msg-7', status: 'success' },
        { type: 'ai', content: '', tool_calls: [{ id: 'c2', name: 'search', args: {} }] },
        { type: 'tool', tool_call_id: 'c2', content: big('b') },
      ],
    }
    const f = file('dicts.json', doc)
    const r = await cli(['edit', f, ...TIGHT, '--format', 'langchain'])
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.equal(out.thread_id, 't-1')
    assert.equal(out.messages[2].content, '[cleared]')
    assert.equal(out.messages[2].id, 'msg-7')
    assert.equal(out.messages[2].status, 'success')
    assert.equal(out.messages[4].content, big('b'))
    const wrong = await cli(['edit', f, '--format', 'openai'])
    assert.equal(wrong.code, 2)
    assert.match(wrong.stderr, /messages\[0\]: expected an OpenAI chat message with a `role` \(try --format\)/)
  })

  test('Anthropic request: system counted, tool_result blocks cleared in place, inputs cleared, orphans dropped', async () => {
    const req = anthropicRequest()
    const f = file('anthropic.json', req)
    const r = await cli(['edit', f, ...TIGHT, '--option', 'clearToolInputs=true', '--report', 'json'])
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    const report = JSON.parse(r.stderr)
    assert.equal(report.format, 'anthropic')
    assert.deepEqual(Object.keys(out), Object.keys(req))
    assert.deepEqual(out.system, req.system)
    assert.deepEqual(out.tools, req.tools)
    // The orphaned tool_result's user message is gone; everything else stays in place.
    assert.equal(out.messages.length, 6)
    assert.deepEqual(report.removedOrphans.length, 1)
    // Message 1: thinking and text kept, the cleared call's input emptied.
    assert.deepEqual(out.messages[1].content, [
      { type: 'thinking', thinking: 'I should read a.ts', signature: 'sig1' },
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'tu_1', name: 'read_file', input: {} },
    ])
    assert.deepEqual(out.messages[2], { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: '[cleared]' }] })
    // Message 4: the older result cleared, the newest kept (is_error kept), the text block kept.
    assert.deepEqual(out.messages[4].content, [
      { type: 'tool_result', tool_use_id: 'tu_2', content: '[cleared]' },
      { type: 'tool_result', tool_use_id: 'tu_3', content: big('c', 100), is_error: true },
      { type: 'text', text: 'also check c.ts' },
    ])
    assert.deepEqual(out.messages[3].content[1], req.messages[3].content[1], 'the kept call keeps its input')
    assert.deepEqual(out.messages[5], req.messages[6])
    // Nothing LangChain-specific leaks into the Anthropic output.
    assert.doesNotMatch(r.stdout, /response_metadata|tool_call_id|"type": "tool"/)
    assert.deepEqual(
      report.cleared.map((c) => c.toolName),
      ['read_file', 'read_file'],
    )
    // The top-level system prompt and the tools count toward the trigger.
    const noSystem = { ...req }
    delete noSystem.system
    delete noSystem.tools
    const g = file('anthropic-nosys.json', noSystem)
    const r2 = await cli(['edit', g, '--report', 'json', '--format', 'anthropic'])
    assert.ok(report.tokensBefore > JSON.parse(r2.stderr).tokensBefore)
  })

  test('Anthropic output is edited idempotently (placeholders are recognised on a second run)', async () => {
    const f = file('anthropic2.json', anthropicRequest())
    const once = await cli(['edit', f, ...TIGHT, '-o', join(dir, 'anthropic2.out.json')])
    assert.equal(once.code, 0, once.stderr)
    const twice = await cli(['edit', join(dir, 'anthropic2.out.json'), ...TIGHT, '--report', 'json'])
    assert.equal(twice.code, 0, twice.stderr)
    assert.deepEqual(JSON.parse(twice.stdout), JSON.parse(read('anthropic2.out.json')))
    assert.equal(JSON.parse(twice.stderr).cleared.length, 0)
  })

  test('reads stdin with -, writes stdout; -o naming the input rewrites it (atomically)', async () => {
    const req = openaiRequest()
    const r = await cli(['edit', '-', ...TIGHT, '--report', 'none'], { input: JSON.stringify(req) })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stderr, '')
    assert.equal(JSON.parse(r.stdout).messages[3].content, '[cleared]')
    const f = file('inplace.json', req)
    const w = await cli(['edit', f, ...TIGHT, '-o', f])
    assert.equal(w.code, 0, w.stderr)
    assert.equal(w.stdout, '')
    assert.equal(JSON.parse(read('inplace.json')).messages[3].content, '[cleared]')
    assert.match(w.stderr, /→ .*inplace\.json/)
  })

  test('--config with a pipeline, --option on top (dotted keys, JSON values), --max-input-tokens', async () => {
    const cfg = file('options.json', {
      edits: [
        { type: 'clear_tool_uses', trigger: { tokens: 1000000 }, keep: { messages: 1 } },
        { type: 'clear_tool_uses', trigger: { fraction: 0.5 }, keep: { messages: 2 }, placeholder: '[gone]' },
      ],
    })
    const f = file('pipe.json', openaiRequest())
    const r = await cli(['edit', f, '--config', cfg, '--option', 'edits.1.excludeTools=["grep"]', '--max-input-tokens', '2000', '--report', 'json'])
    assert.equal(r.code, 0, r.stderr)
    const report = JSON.parse(r.stderr)
    assert.equal(report.maxInputTokens, 2000)
    assert.deepEqual(
      report.appliedEdits.map((e) => [e.triggered, e.clearedToolUses]),
      [
        [false, 0],
        [true, 1],
      ],
    )
    const out = JSON.parse(r.stdout)
    assert.deepEqual(
      out.messages.filter((m) => m.role === 'tool').map((m) => m.content.slice(0, 6)),
      ['[gone]', 'bbbbbb', 'cccccc'],
    )
  })
})

describe('errors name where the problem is', { concurrency: 3 }, () => {
  test('invalid JSON → file, line and column (with and without a position from JSON.parse)', async () => {
    const a = file('bad1.json', '{\n  "messages": [\n    {"role": "user" "content": 1}\n  ]\n}\n')
    const r = await cli(['edit', a])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /bad1\.json:3:21: invalid JSON: expected ',' or '}' after property value/)
    assert.equal(r.stdout, '')
    const b = file('bad2.json', '[\n  {"role": "user",\n   "content": tru}\n]')
    const r2 = await cli(['inspect', b])
    assert.equal(r2.code, 2)
    assert.match(r2.stderr, /bad2\.json:3:18: invalid JSON: unexpected token '}'$/m)
    const c = file('bad3.json', '[{"role": "user"')
    assert.match((await cli(['edit', c])).stderr, /bad3\.json:1:17: invalid JSON/)
    const d = file('bad4.json', '')
    assert.match((await cli(['edit', d])).stderr, /bad4\.json: empty input \(expected a JSON document\)/)
  })

  test('invalid options → the option path and what is allowed (from --option and from --config)', async () => {
    const f = file('opts.json', openaiRequest())
    const r = await cli(['edit', f, '--option', 'keep.lines=3'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /invalid options \(--option\): keep\.lines: unknown keep measure \(expected messages, tokens or fraction\)/)
    const cfg = file('badopts.json', { trigger: { tokens: -5 } })
    const r2 = await cli(['inspect', f, '--config', cfg])
    assert.equal(r2.code, 2)
    assert.match(r2.stderr, /invalid options \(.*badopts\.json\): trigger\.tokens: expected a number > 0, got -5/)
    const r3 = await cli(['edit', f, '--option', 'placeholders=x'])
    assert.equal(r3.code, 2)
    assert.match(r3.stderr, /placeholders: unknown option \(expected one of .*placeholder/)
    const cfgJson = file('badcfg.json', '{"keep": {"messages": 3,}}')
    const r4 = await cli(['edit', f, '--config', cfgJson])
    assert.equal(r4.code, 2)
    assert.match(r4.stderr, /badcfg\.json:1:25: invalid JSON: expected double-quoted property name/)
    const r5 = await cli(['edit', f, '--config', join(dir, 'nope.json')])
    assert.equal(r5.code, 2)
    assert.match(r5.stderr, /nope\.json: no such file/)
  })

  test('a message the editor rejects → its index (Anthropic: the index in the request)', async () => {
    const f = file('badmsg.json', [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: 'y' },
      { role: 'tool', content: 'z' },
    ])
    const r = await cli(['edit', f])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /badmsg\.json: messages\[2\]\.tool_call_id: tool message without `tool_call_id`/)
    const req = anthropicRequest()
    req.messages[4].content[1] = { type: 'tool_result', content: 'no id' }
    const g = file('badanth.json', req)
    const r2 = await cli(['inspect', g])
    assert.equal(r2.code, 2)
    assert.match(r2.stderr, /messages\[4\]\.content\[1\]\.tool_call_id: tool message without `tool_call_id`/)
    const sys = anthropicRequest()
    sys.messages.unshift({ role: 'system', content: 'x' })
    const r3 = await cli(['edit', file('anthsys.json', sys), '--format', 'anthropic'])
    assert.equal(r3.code, 2)
    assert.match(r3.stderr, /messages\[0\]\.role: expected `user` or `assistant`.*top-level `system`/)
    const r4 = await cli(['edit', file('notconv.json', { hello: 1 })])
    assert.equal(r4.code, 2)
    assert.match(r4.stderr, /expected a JSON array of messages or an object with a `messages` array/)
  })

  test('a missing input is a usage error (2); an unwritable output is a runtime failure (1)', async () => {
    const r = await cli(['edit', join(dir, 'missing.json')])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /missing\.json: no such file/)
    const f = file('w.json', openaiRequest())
    const w = await cli(['edit', f, '-o', join(f, 'out.json')])
    assert.equal(w.code, 1)
    assert.match(w.stderr, /cannot write .*out\.json: not a directory/)
  })
})
