// The `context-editor` command's picture: `inspect` without a TTY (plain table and context map),
// colours with --color / FORCE_COLOR / NO_COLOR, Anthropic rows, the bundled demo, and colours on a
// pseudo-terminal via script(1). Shared helpers and inputs in support/cli-spec.mjs.

import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'

import { BIN, ESC, ROOT, TIGHT, anthropicRequest, cli, dir, file, openaiRequest, useCliDir } from './support/cli-spec.mjs'

useCliDir()

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
