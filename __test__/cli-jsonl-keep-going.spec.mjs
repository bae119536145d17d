// `edit --jsonl --keep-going`: a bad line (invalid JSON, not a conversation, a message the editor
// rejects, a line over --max-line-bytes) is reported as file:line with its reason and skipped; every
// good line is written, in order; the exit code (3) says some failed; `--report json` lists them.
// Without --keep-going the first bad line stops the run and the output is left as it was.

import assert from 'node:assert/strict'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { cliSandbox } from './support/cli.mjs'

const box = cliSandbox('keepgoing')
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
/**
 * Temporary files left for the target `name` (`.name.pid.random.tmp`). Only that target's: the tests
 * of a describe run at once, and another test's run may be writing its own at this moment.
 */
const temps = (name) => readdirSync(dir).filter((n) => n.startsWith(`.${name}.`) && n.endsWith('.tmp'))

/** A conversation whose old tool results TIGHT clears. */
function conversation(tag) {
  return {
    model: 'gpt-4o',
    messages: [
      { role: 'user', content: `question ${tag}` },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: `${tag} ${'x'.repeat(600)}` },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: 'read', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c2', content: `${tag} newest` },
    ],
  }
}
const TIGHT = ['--option', 'trigger.tokens=100', '--option', 'keep.messages=1']

/** Good and bad lines; `bad` says which input lines (1-based) must fail and why. */
function dataset() {
  const lines = [
    JSON.stringify(conversation('a')), // 1
    '{"messages": [', // 2: invalid JSON
    JSON.stringify(conversation('b')), // 3
    JSON.stringify({ hello: 1 }), // 4: not a conversation
    '', // 5: blank, kept
    JSON.stringify([
      { role: 'user', content: 'x' },
      { role: 'wizard', content: 'y' },
    ]), // 6: rejected message
    JSON.stringify({ messages: [{ role: 'user', content: 'y'.repeat(5000) }] }), // 7: too long for --max-line-bytes 4000
    JSON.stringify(conversation('c')), // 8
  ]
  const bad = [
    [2, /invalid JSON/],
    [4, /expected a JSON array of messages or an object with a `messages` array/],
    [6, /messages\[1\]\.role: unknown role `wizard`/],
    [7, /line of 5,0\d\d bytes is longer than 4,000 bytes \(--max-line-bytes\)/],
  ]
  return { text: `${lines.join('\n')}\n`, lines, bad }
}
const KEEP = ['--jsonl', '--keep-going', '--max-line-bytes', '4000', ...TIGHT]

describe('--jsonl --keep-going', { concurrency: 3 }, () => {
  test('bad lines are reported as file:line: reason (skipped); good lines are all written, in order; exit 3', async () => {
    const { text, bad } = dataset()
    const f = put('mixed.jsonl', text)
    const out = join(dir, 'mixed.out.jsonl')
    const r = await cli(['edit', f, ...KEEP, '-o', out])
    assert.equal(r.code, 3, r.stderr)
    for (const [line, reason] of bad) {
      assert.match(r.stderr, new RegExp(`mixed\\.jsonl:${line}(:\\d+)?: ${reason.source}.* \\(skipped\\)`), `line ${line}`)
    }
    assert.match(r.stderr, /3 conversations \(3 triggered\).* · 4 lines failed and skipped\n$/)
    const written = readFileSync(out, 'utf8').split('\n')
    assert.deepEqual(written.length, 5, 'three conversations, the blank line, the final newline')
    const docs = written.filter(Boolean).map((l) => JSON.parse(l))
    assert.deepEqual(
      docs.map((d) => d.messages[0].content),
      ['question a', 'question b', 'question c'],
    )
    assert.ok(
      docs.every((d) => d.messages[2].content === '[cleared]'),
      'good lines are edited',
    )
    assert.equal(written[2], '', 'the blank line keeps its place')
    assert.deepEqual(temps('mixed.out.jsonl'), [])
  })

  test('--report json lists every failure with its line (and column for JSON syntax errors)', async () => {
    const { text, bad } = dataset()
    const r = await cli(['edit', '-', ...KEEP, '--report', 'json'], text)
    assert.equal(r.code, 3)
    const summary = JSON.parse(r.stderr)
    assert.equal(summary.conversations, 3)
    assert.equal(summary.failed, 4)
    assert.equal(summary.written, true)
    assert.deepEqual(
      summary.failures.map((f) => f.line),
      bad.map(([line]) => line),
    )
    for (const [k, [, reason]] of bad.entries()) assert.match(summary.failures[k].reason, reason)
    assert.equal(summary.failures[0].column, 15)
    assert.equal(r.stdout.split('\n').filter(Boolean).length, 3)
  })

  test('all good: exit 0 and the same output as without --keep-going; the summary says 0 failed', async () => {
    const text = `${[1, 2, 3].map((i) => JSON.stringify(conversation(i))).join('\n')}\n`
    const a = await cli(['edit', '-', '--jsonl', '--keep-going', ...TIGHT, '--report', 'json'], text)
    const b = await cli(['edit', '-', '--jsonl', ...TIGHT, '--report', 'none'], text)
    assert.equal(a.code, 0, a.stderr)
    assert.equal(a.stdout, b.stdout)
    const summary = JSON.parse(a.stderr)
    assert.equal(summary.failed, 0)
    assert.deepEqual(summary.failures, [])
  })

  test('without --keep-going the first bad line stops the run: exit 2, file:line, the output left as it was', async () => {
    const { text } = dataset()
    const f = put('stop.jsonl', text)
    const out = put('stop.out.jsonl', 'previous\n')
    const r = await cli(['edit', f, '--jsonl', '--max-line-bytes', '4000', ...TIGHT, '-o', out])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /stop\.jsonl:2:15: invalid JSON/)
    assert.doesNotMatch(r.stderr, /stop\.jsonl:4/)
    assert.equal(readFileSync(out, 'utf8'), 'previous\n')
    assert.deepEqual(temps('stop.out.jsonl'), [])
  })

  test('-o naming the input: every bad line is reported, and the input is left unchanged rather than lose them (exit 2)', async () => {
    const { text } = dataset()
    const f = put('inplace.jsonl', text)
    const r = await cli(['edit', f, ...KEEP, '-o', f, '--report', 'json'])
    assert.equal(r.code, 2, r.stderr)
    const [summary, ...rest] = r.stderr.split('\n')
    assert.equal(JSON.parse(summary).failed, 4)
    assert.equal(JSON.parse(summary).written, false)
    assert.match(rest.join('\n'), /4 lines failed; .*inplace\.jsonl is the input itself, so it was left unchanged rather than lose them/)
    assert.equal(readFileSync(f, 'utf8'), text)
    assert.deepEqual(temps('inplace.jsonl'), [])
    // With every line good, -o in place is written as usual.
    const good = put('inplace-good.jsonl', `${JSON.stringify(conversation('g'))}\n`)
    const ok = await cli(['edit', good, '--jsonl', '--keep-going', ...TIGHT, '-o', good])
    assert.equal(ok.code, 0, ok.stderr)
    assert.equal(JSON.parse(readFileSync(good, 'utf8')).messages[2].content, '[cleared]')
  })

  test('--keep-going is for --jsonl only; its exit code is in the help', async () => {
    const f = put('one.json', JSON.stringify(conversation('x')))
    const r = await cli(['edit', f, '--keep-going'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /--keep-going applies to --jsonl only/)
    const help = await cli(['edit', '--help'])
    assert.match(help.stdout, /--keep-going {12}with --jsonl: a bad line is reported/)
    const main = await cli(['--help'])
    assert.match(main.stdout, /3 {8}edit --jsonl --keep-going: some lines failed and were skipped/)
  })

  test('lines are split as before: CRLF endings, a BOM, no final newline, multi-byte characters across read chunks', async () => {
    const wide = conversation(`${'é😀'.repeat(150_000)}`) // ~1 MB of multi-byte text: split across read chunks
    const text = `\uFEFF${JSON.stringify(conversation('a'))}\r\n${JSON.stringify(wide)}\r\n\r\n${JSON.stringify(conversation('z'))}`
    const r = await cli(['edit', '-', '--jsonl', ...TIGHT, '--report', 'json'], text)
    assert.equal(r.code, 0, r.stderr)
    const lines = r.stdout.split('\n')
    assert.equal(lines.length, 5, 'three conversations, the blank line, the final newline')
    assert.equal(JSON.parse(lines[0]).messages[0].content, 'question a')
    assert.equal(JSON.parse(lines[1]).messages[0].content, wide.messages[0].content)
    assert.equal(lines[2], '')
    assert.equal(JSON.parse(lines[3]).messages[0].content, 'question z')
    assert.equal(JSON.parse(r.stderr).conversations, 3)
  })
})
