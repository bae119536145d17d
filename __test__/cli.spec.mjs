// The `context-editor` command, spawned as a user runs it: each input format, the outputs and exit
// codes, the error messages, the plain (non-TTY) picture, --jsonl, the demo, and colours on a pty.

import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages } from '@langchain/core/messages'
import { load } from '@langchain/core/load'

const BIN = fileURLToPath(new URL('../bin/context-editor.js', import.meta.url))
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ESC = '\x1b['
const execFileP = promisify(execFile)

/** Runs the command; resolves to { code, stdout, stderr }. Never a TTY; NO_COLOR/FORCE_COLOR unset. */
async function cli(args, { input, env = {}, cwd } = {}) {
  const baseEnv = { ...process.env }
  delete baseEnv.NO_COLOR
  delete baseEnv.FORCE_COLOR
  const child = execFileP(process.execPath, [BIN, ...args], { cwd: cwd ?? dir, env: { ...baseEnv, ...env }, maxBuffer: 64 << 20 })
  if (input !== undefined) child.child.stdin.end(input)
  else child.child.stdin.end()
  try {
    const { stdout, stderr } = await child
    return { code: 0, stdout, stderr }
  } catch (e) {
    if (typeof e.code !== 'number') throw e
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

let dir
const file = (name, content) => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  return path
}
const read = (name) => readFileSync(join(dir, name), 'utf8')
const big = (c, n = 2000) => c.repeat(n)

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'context-editor-cli-'))
})
after(() => rmSync(dir, { recursive: true, force: true }))

/** An OpenAI chat-completions request with three large tool results. */
function openaiRequest() {
  const call = (id, name, args) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } })
  return {
    model: 'gpt-4o',
    temperature: 0.2,
    tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }],
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'fix it' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'read_file', { path: 'a.ts' })] },
      { role: 'tool', tool_call_id: 'c1', content: big('a') },
      { role: 'assistant', content: 'next', tool_calls: [call('c2', 'read_file', { path: 'b.ts' })] },
      { role: 'tool', tool_call_id: 'c2', content: big('b') },
      { role: 'assistant', content: null, tool_calls: [call('c3', 'grep', { q: 'x' })] },
      { role: 'tool', tool_call_id: 'c3', content: big('c') },
      { role: 'assistant', content: 'done' },
    ],
  }
}

/** An Anthropic Messages request: top-level system, thinking, tool_use / tool_result blocks. */
function anthropicRequest() {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object' } }],
    messages: [
      { role: 'user', content: 'fix the bug' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should read a.ts', signature: 'sig1' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 'a.ts' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: big('a') }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'tu_2', name: 'read_file', input: { path: 'b.ts' } },
          { type: 'tool_use', id: 'tu_3', name: 'grep', input: { q: 'x' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'tu_2', content: [{ type: 'text', text: big('b') }] },
          { type: 'tool_result', tool_use_id: 'tu_3', content: big('c', 100), is_error: true },
          { type: 'text', text: 'also check c.ts' },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_missing', content: 'orphan' }] },
      { role: 'assistant', content: 'Done.' },
    ],
  }
}

function langchainMessages() {
  return [
    new SystemMessage('You are helpful.'),
    new HumanMessage('go'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'search', args: { q: 'a' } }] }),
    new ToolMessage({ content: big('a'), tool_call_id: 'c1', name: 'search', artifact: { raw: 1 } }),
    new AIMessage({ content: 'more', tool_calls: [{ id: 'c2', name: 'search', args: { q: 'b' } }] }),
    new ToolMessage({ content: big('b'), tool_call_id: 'c2', name: 'search' }),
    new AIMessage('done'),
  ]
}

const TIGHT = ['--option', 'trigger.tokens=100', '--option', 'keep.messages=1']

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

describe('inspect', { concurrency: 3 }, () => {
  test('non-TTY: a plain table and context map, no escape codes, trigger and budget marked', async () => {
    const f = file('insp.json', openaiRequest())
    const r = await cli(['inspect', f, ...TIGHT, '--max-input-tokens', '3000', '--width', '40'])
    assert.equal(r.code, 0, r.stderr)
    assert.ok(!r.stdout.includes(ESC), 'no ANSI escapes when stdout is not a TTY')
    const lines = r.stdout.split('\n')
    assert.match(lines[0], /insp\.json · openai · 9 messages · model gpt-4o · 1 tool definition$/)
    assert.match(r.stdout, /#\s+role\s+tool\s+tokens\s+budget\s+after\s+edit/)
    assert.match(r.stdout, /\n\s+3\s+tool\s+read_file\s+501\s+17%\s+3\s+cleared\n/)
    assert.match(r.stdout, /\n\s+7\s+tool\s+grep\s+501\s+17%\s+501\n/)
    const before = lines.find((l) => l.startsWith('  before '))
    const afterLine = lines.find((l) => l.startsWith('  after  '))
    const map = (l) => l.slice(9, 49)
    assert.match(map(before), /^[SUACRxK.]{40}$/)
    assert.match(map(before), /R{5}/)
    assert.ok((map(before).match(/R/g) ?? []).length > (map(afterLine).match(/R/g) ?? []).length)
    assert.match(afterLine, /−\d+%$/)
    const marks = lines[lines.indexOf(afterLine) + 1]
    assert.match(marks, /^ {9}\s*T\s+B$/)
    assert.match(r.stdout, /T trigger 100 · B budget \(max input tokens\) 3,000/)
    assert.match(r.stdout, /S system {2}U user {2}A AI text {2}C tool call {2}R tool result {2}x cleared {2}\. free/)
    assert.match(r.stdout, /triggered · cleared 2 tool results/)
  })

  test('colours with --color always or FORCE_COLOR; NO_COLOR wins over FORCE_COLOR in auto mode', async () => {
    const f = file('col.json', openaiRequest())
    const always = await cli(['inspect', f, '--color', 'always'])
    assert.ok(always.stdout.includes(`${ESC}33m█`), 'tool results are yellow blocks')
    const forced = await cli(['inspect', f], { env: { FORCE_COLOR: '1' } })
    assert.ok(forced.stdout.includes(ESC))
    const no = await cli(['inspect', f], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } })
    assert.ok(!no.stdout.includes(ESC))
    const never = await cli(['inspect', f, '--color', 'never'], { env: { FORCE_COLOR: '1' } })
    assert.ok(!never.stdout.includes(ESC))
  })

  test('Anthropic: one row per request message, thinking and tool_result shown, --top limits rows', async () => {
    const f = file('insp-anth.json', anthropicRequest())
    const r = await cli(['inspect', f, ...TIGHT])
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /· anthropic · 7 messages · model claude-sonnet-4-5 · 1 tool definition · system prompt/)
    assert.match(r.stdout, /\n\s+2\s+tool_result\s+read_file\s+[\d,]+\s+[\d.]+%\s+\d+\s+cleared\n/)
    assert.match(r.stdout, /\n\s+5\s+tool_result\s+\d+\s+[\d.]+%\s+-\s+removed \(orphan\)\n/)
    assert.match(r.stdout, /K thinking/)
    const top = await cli(['inspect', f, '--top', '2'])
    assert.match(top.stdout, /… 5 smaller messages not shown \(the 2 largest are; --top 0 shows all\)/)
  })
})

describe('--jsonl', { concurrency: 3 }, () => {
  test('one conversation per line in and out, each in its own format; blank lines kept; summary on stderr', async () => {
    const lines = [
      JSON.stringify(openaiRequest()),
      JSON.stringify(anthropicRequest()),
      '',
      JSON.stringify(mapChatMessagesToStoredMessages(langchainMessages())),
    ]
    const f = file('set.jsonl', `${lines.join('\n')}\n`)
    const r = await cli(['edit', f, '--jsonl', ...TIGHT])
    assert.equal(r.code, 0, r.stderr)
    const out = r.stdout.split('\n')
    assert.equal(out.length, 5)
    assert.equal(out[2], '')
    assert.equal(out[4], '')
    const [openai, anthropic, , stored] = out.map((l) => (l ? JSON.parse(l) : l))
    assert.equal(openai.model, 'gpt-4o')
    assert.equal(openai.messages[3].content, '[cleared]')
    assert.deepEqual(anthropic.system, anthropicRequest().system)
    assert.equal(anthropic.messages[2].content[0].content, '[cleared]')
    assert.equal(stored[3].data.content, '[cleared]')
    assert.match(r.stderr, /^context-editor: 3 conversations \(3 triggered\) · tokens [\d,]+ → [\d,]+ \(−\d+%\) · messages 23 → 22 · [\d.]+ s\n$/)
    assert.ok(!r.stderr.includes('\r'), 'no progress bar when stderr is not a TTY')
    const json = await cli(['edit', '-', '--jsonl', '--report', 'json'], { input: lines[0] })
    assert.equal(json.code, 0)
    assert.equal(JSON.parse(json.stderr).conversations, 1)
  })

  test('errors name the line: invalid JSON (line:column) and a rejected message (line + index)', async () => {
    const good = JSON.stringify(openaiRequest())
    const f = file('bad.jsonl', `${good}\n${good}\n{"messages": [1,\n`)
    const r = await cli(['edit', f, '--jsonl', '-o', join(dir, 'bad.out.jsonl')])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /bad\.jsonl:3:17: invalid JSON/)
    assert.throws(() => statSync(join(dir, 'bad.out.jsonl')), /ENOENT/, 'no partial output file is left behind')
    const g = file('badmsg.jsonl', `${good}\n[{"role":"user","content":"x"},{"role":"wizard"}]\n`)
    const r2 = await cli(['edit', g, '--jsonl'])
    assert.equal(r2.code, 2)
    assert.match(r2.stderr, /badmsg\.jsonl:2: messages\[1\]\.role: unknown role `wizard`/)
  })

  test('streams a larger dataset with -o naming the input', async () => {
    const line = JSON.stringify(openaiRequest())
    const f = file('many.jsonl', `${Array.from({ length: 300 }, () => line).join('\n')}\n`)
    const r = await cli(['edit', f, '--jsonl', ...TIGHT, '-o', f])
    assert.equal(r.code, 0, r.stderr)
    const out = read('many.jsonl').trimEnd().split('\n')
    assert.equal(out.length, 300)
    assert.ok(out.every((l) => JSON.parse(l).messages[3].content === '[cleared]'))
    assert.match(r.stderr, /300 conversations \(300 triggered\)/)
  })
})

describe('demo', () => {
  test('inspects and edits the bundled transcript with the defaults and the pipeline', async () => {
    const out = join(dir, 'demo-out.json')
    const r = await cli(['demo', '-o', out])
    assert.equal(r.code, 0, r.stderr)
    assert.ok(!r.stdout.includes(ESC))
    assert.match(r.stdout, /^context-editor demo\nA coding agent fixing a flaky rate limiter: \d+ messages, \d+ KB of JSON, \d+ tool results/)
    assert.match(r.stdout, /1\. Default options/)
    assert.match(r.stdout, /2\. A trimming pipeline \(data\/demo-pipeline\.json\)/)
    assert.equal((r.stdout.match(/context map/g) ?? []).length, 2)
    assert.match(r.stdout, /tokens 1\d\d,\d{3} → [\d,]+ \(−\d+%, approx\)/)
    assert.match(r.stdout, /edit 2 clear_tool_uses: triggered/)
    const source = JSON.parse(readFileSync(join(ROOT, 'data/demo-transcript.json'), 'utf8'))
    const edited = JSON.parse(readFileSync(out, 'utf8'))
    assert.deepEqual(Object.keys(edited), Object.keys(source))
    assert.equal(edited.messages.length, source.messages.length)
    assert.ok(readFileSync(out).length < readFileSync(join(ROOT, 'data/demo-transcript.json')).length / 4)
  })

  test('the bundled transcript is what the seeded generator makes', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'data/make-demo.mjs'), '--check'], { encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    assert.ok(statSync(join(ROOT, 'data/demo-transcript.json')).size > 200 * 1024)
  })
})

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0

describe('on a terminal (pseudo-terminal via script(1))', { skip: hasScript ? false : 'script(1) is not installed' }, () => {
  const onPty = (cmd, env = {}) => {
    const baseEnv = { ...process.env, ...env }
    delete baseEnv.FORCE_COLOR
    if (!('NO_COLOR' in env)) delete baseEnv.NO_COLOR
    return spawnSync('script', ['-qefc', cmd, '/dev/null'], { encoding: 'utf8', env: { ...baseEnv, COLUMNS: '120' } })
  }
  const q = (s) => `'${s.replace(/'/g, "'\\''")}'`

  test('colours on a TTY; NO_COLOR turns them off', () => {
    const f = file('tty.json', openaiRequest())
    const r = onPty(`${q(process.execPath)} ${q(BIN)} inspect ${q(f)} --option trigger.tokens=100 --option keep.messages=1`)
    assert.equal(r.status, 0, r.stdout)
    assert.ok(r.stdout.includes(`${ESC}33m█`), 'coloured blocks on a TTY')
    assert.ok(r.stdout.includes(`${ESC}1;31mT`), 'the trigger mark in red')
    const plain = onPty(`${q(process.execPath)} ${q(BIN)} inspect ${q(f)}`, { NO_COLOR: '1' })
    assert.equal(plain.status, 0)
    assert.ok(!plain.stdout.includes(ESC))
    assert.match(plain.stdout, /before R/)
  })
})
