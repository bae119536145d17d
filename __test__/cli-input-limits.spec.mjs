// No input size or shape makes the command crash, hang or answer without saying what and where:
// documents nested 100,000 levels deep (read and written back), unterminated ones (line:column),
// inputs and JSONL lines beyond the longest string V8 holds, 200,000 messages or content blocks,
// and option indexes or flag values that would allocate without bound.

import assert from 'node:assert/strict'
import { closeSync, openSync, readFileSync, readdirSync, statSync, writeFileSync, ftruncateSync } from 'node:fs'
import { constants } from 'node:buffer'
import { join } from 'node:path'
import { before, describe, test } from 'node:test'
import { jsonPieces } from '../dist/cli/serialize.js'
import { cliSandbox } from './support/cli.mjs'

const box = cliSandbox('limits', { maxBuffer: 256 << 20 })
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
const temps = () => readdirSync(dir).filter((n) => n.endsWith('.tmp'))
/** No stack trace, no bare JavaScript error name: one line naming the problem. */
const clean = (stderr) => assert.doesNotMatch(stderr, /RangeError|TypeError|Maximum call stack|\n\s+at /)

const DEEP = 100_000
const nested = (n) => `${'['.repeat(n)}${']'.repeat(n)}`
/** Compact, as the command writes a compact input back. */
const deepRequest = () => `{"model":"gpt-4o","messages":[{"role":"user","content":"hi","extra":${nested(DEEP)}}],"meta":{"x":${nested(DEEP)}}}`

describe('deeply nested valid JSON is read and written back', { concurrency: 3 }, () => {
  test('edit: 100,000 levels in unread fields come back byte for byte (file and -o in place)', async () => {
    const text = deepRequest()
    const f = put('deep.json', text)
    const r = await cli(['edit', f, '--report', 'none'])
    assert.equal(r.code, 0, r.stderr)
    assert.ok(r.stdout === `${text}\n`, 'the document comes back byte for byte')
    const w = await cli(['edit', f, '-o', f])
    assert.equal(w.code, 0, w.stderr)
    assert.ok(readFileSync(f, 'utf8') === `${text}\n`, 'written back in place byte for byte')
  })

  test('edit, pretty-printed: indentation kept at every depth (the walk matches JSON.stringify)', async () => {
    const doc = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi', extra: JSON.parse(nested(3000)) }] }
    let deep = doc.messages[0].extra
    for (let i = 0; i < 2999; i++) deep = deep[0]
    deep.push({ k: 'v', n: [1, { z: null }] }, 'tail')
    const f = put('deep-pretty.json', JSON.stringify(doc, null, 2))
    const r = await cli(['edit', f, '--report', 'none'])
    assert.equal(r.code, 0, r.stderr)
    assert.ok(r.stdout === `${JSON.stringify(doc, null, 2)}\n`, 'the same text as JSON.stringify(doc, null, 2)')
  })

  test('inspect and --jsonl on the same documents', async () => {
    const text = deepRequest()
    const i = await cli(['inspect', put('deep-i.json', text)])
    assert.equal(i.code, 0, i.stderr)
    assert.match(i.stdout, /1 messages|1 message/)
    const j = await cli(['edit', '-', '--jsonl', '--report', 'none'], `${text}\n${text}\n`)
    assert.equal(j.code, 0, j.stderr)
    assert.ok(j.stdout === `${text}\n${text}\n`, 'each line comes back byte for byte')
  })

  test('the piecewise writer equals JSON.stringify on odd values (undefined, toJSON, -0, sparse arrays, long strings)', () => {
    const long = `${'é'.repeat((1 << 24) - 1)}😀${'a'.repeat(10)}` // an emoji across the slice boundary
    const values = [
      { a: undefined, b: () => 1, c: [undefined, () => 1, Symbol('s')], d: -0, e: NaN, f: new Date(0), g: [, 1] }, // eslint-disable-line no-sparse-arrays
      [[[{}]], [], {}, '', 0, null, true],
      JSON.parse('{"__proto__": {"x": 1}, "y": [1, 2]}'),
      { messages: [{ content: long }] },
      long,
    ]
    for (const v of values) {
      for (const indent of [undefined, '  ', '\t']) {
        assert.equal([...jsonPieces(v, indent)].join(''), JSON.stringify(v, null, indent))
      }
    }
  })
})

describe('invalid JSON is reported at its line and column, at any depth', { concurrency: 3 }, () => {
  test('an unterminated [ x 200,000 → 1:200001 for edit, inspect, --jsonl and --config', async () => {
    const text = '['.repeat(200_000)
    const f = put('unterminated.json', text)
    for (const args of [
      ['edit', f],
      ['inspect', f],
    ]) {
      const r = await cli(args)
      assert.equal(r.code, 2)
      assert.match(r.stderr, /unterminated\.json:1:200001: invalid JSON: unexpected end of JSON input/)
      clean(r.stderr)
    }
    const j = await cli(['edit', '-', '--jsonl'], `[]\n${text}\n`)
    assert.equal(j.code, 2)
    assert.match(j.stderr, /<stdin>:2:200001: invalid JSON: unexpected end of JSON input/)
    const c = await cli(['edit', put('ok.json', '[]'), '--config', f])
    assert.equal(c.code, 2)
    assert.match(c.stderr, /unterminated\.json:1:200001: invalid JSON/)
  })

  test('an error deep inside: the column of the bad token, on its line', async () => {
    const n = 150_000
    const f = put('deep-bad.json', `{"messages":\n${'['.repeat(n)}1,]${']'.repeat(n - 1)}}`)
    const r = await cli(['edit', f])
    assert.equal(r.code, 2)
    assert.match(r.stderr, new RegExp(`deep-bad\\.json:2:${n + 3}: invalid JSON`))
    clean(r.stderr)
    const g = put('deep-obj.json', `${'{"a":'.repeat(n)}x`)
    const r2 = await cli(['inspect', g])
    assert.equal(r2.code, 2)
    assert.match(r2.stderr, new RegExp(`deep-obj\\.json:1:${5 * n + 1}: invalid JSON`))
  })
})

describe('inputs and lines longer than the longest string', { concurrency: 1 }, () => {
  /** A sparse file of `bytes` zero bytes: no disk space, no time. */
  function sparse(name, bytes) {
    const path = join(dir, name)
    const fd = openSync(path, 'w')
    ftruncateSync(fd, bytes)
    closeSync(fd)
    return path
  }
  const OVER = constants.MAX_STRING_LENGTH + 1024

  test('a whole-document input over the limit: a clear usage error at once, the output untouched', async () => {
    const f = sparse('huge.json', OVER)
    const out = put('huge-out.json', 'previous')
    const r = await cli(['edit', f, '-o', out])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /huge\.json: 512\.0 MB is more than one JSON document can be here \(512\.0 MB, the longest string Node\.js holds\)/)
    assert.match(r.stderr, /use --jsonl/)
    assert.equal(readFileSync(out, 'utf8'), 'previous')
    const i = await cli(['inspect', f])
    assert.equal(i.code, 2)
    clean(i.stderr)
  })

  test('a JSONL line over the default limit (the longest string): file:line, exit 2, -o in place unchanged, no temporary file', async () => {
    const f = sparse('huge-line.jsonl', OVER)
    const before = statSync(f).size
    const r = await cli(['edit', f, '--jsonl', '-o', f])
    assert.equal(r.code, 2, r.stderr)
    assert.match(r.stderr, /huge-line\.jsonl:1: line longer than 536,870,888 bytes \(--max-line-bytes, and the longest string Node\.js holds\)/)
    clean(r.stderr)
    assert.equal(statSync(f).size, before)
    assert.deepEqual(temps(), [])
  })

  test('--max-line-bytes: a line of exactly N bytes is read, N + 1 is a bad line; N is bounded by the longest string', async () => {
    const line = JSON.stringify([{ role: 'user', content: 'x'.repeat(100) }])
    const n = Buffer.byteLength(line)
    const f = put('limit.jsonl', `${line}\n${line}x\n${line}\n`)
    const ok = await cli(['edit', f, '--jsonl', '--max-line-bytes', String(n + 1), '--report', 'none'])
    assert.equal(ok.code, 2, 'the second line is invalid JSON')
    assert.match(ok.stderr, /limit\.jsonl:2:\d+: invalid JSON/)
    const r = await cli(['edit', f, '--jsonl', '--max-line-bytes', String(n), '--keep-going', '--report', 'none'])
    assert.equal(r.code, 3, r.stderr)
    assert.match(r.stderr, new RegExp(`limit\\.jsonl:2: line of ${n + 1} bytes is longer than ${n} bytes \\(--max-line-bytes\\) \\(skipped\\)`))
    assert.equal(r.stdout, `${line}\n${line}\n`)
    for (const bad of ['0', String(constants.MAX_STRING_LENGTH + 1), '1e9', '-5']) {
      const b = await cli(['edit', f, '--jsonl', `--max-line-bytes=${bad}`])
      assert.equal(b.code, 2, bad)
      assert.match(b.stderr, /--max-line-bytes: expected an integer from 1 to 536870888/)
    }
    const nojsonl = await cli(['edit', f, '--max-line-bytes', '10'])
    assert.equal(nojsonl.code, 2)
    assert.match(nojsonl.stderr, /--max-line-bytes applies to --jsonl only/)
  })
})

describe('many messages and many content blocks', { concurrency: 2 }, () => {
  test('200,000 messages: inspect draws every row and edit writes them (no spread-argument overflow)', async () => {
    const messages = Array.from({ length: 200_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }))
    const f = put('many.json', JSON.stringify(messages))
    const i = await cli(['inspect', f])
    assert.equal(i.code, 0, i.stderr)
    assert.match(i.stdout, /\n\s+199999\s+assistant\s+\d+/)
    const e = await cli(['edit', f, '--option', 'edits=[{"type":"last_n","n":100000}]', '--report', 'json'])
    assert.equal(e.code, 0, e.stderr)
    assert.equal(JSON.parse(e.stdout).length, 100_000)
    assert.equal(JSON.parse(e.stderr).messagesAfter, 100_000)
  })

  test('Anthropic messages of 99,999 content blocks (the editor takes up to 100,000) are rebuilt; beyond, the error names the block', async () => {
    const blocks = (n, tag) => Array.from({ length: n }, (_, k) => ({ type: 'text', text: `${tag}${k}` }))
    const req = (n) => ({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'user', content: blocks(n, 'u') },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, ...blocks(n - 1, 'a')] },
        { role: 'user', content: 'next' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 't2', signature: 's2' },
            { type: 'text', text: 'ok' },
          ],
        },
      ],
    })
    const edits = '[{"type":"clear_thinking"},{"type":"clear_tool_uses","trigger":{"tokens":1},"cacheBreakpoints":true}]'
    const f = put('blocks.json', JSON.stringify(req(99_999)))
    const r = await cli(['edit', f, '--option', `edits=${edits}`, '--format', 'anthropic'])
    assert.equal(r.code, 0, r.stderr)
    const out = JSON.parse(r.stdout)
    assert.equal(out.messages[1].content.length, 99_998, 'the old thinking block is gone, the text blocks stay')
    assert.equal(out.messages[0].content.length, 99_999)
    const g = put('blocks-over.json', JSON.stringify(req(200_000)))
    const r2 = await cli(['edit', g, '--option', `edits=${edits}`, '--format', 'anthropic'])
    assert.equal(r2.code, 2)
    assert.match(r2.stderr, /blocks-over\.json: messages\[0\]\.content: expected at most 100,000 content blocks, got 200,000/)
    clean(r2.stderr)
  })
})

describe('option indexes and flag values are bounded', { concurrency: 3 }, () => {
  const f = () => put('opt.json', JSON.stringify([{ role: 'user', content: 'hi' }]))

  test('--option excludeTools.4294967294=x is refused at once, naming the option and the allowed range', async () => {
    const r = await cli(['edit', f(), '--option', 'excludeTools.4294967294=x'])
    assert.equal(r.code, 2)
    assert.match(
      r.stderr,
      /--option excludeTools\.4294967294=x|--option excludeTools\.4294967294: index 4294967294 is past the end of excludeTools \(0 elements\)/,
    )
    clean(r.stderr)
  })

  test('length, leading zeros, gaps and non-index keys on lists are refused; appending works', async () => {
    for (const [opts, re] of [
      [['excludeTools=[]', 'excludeTools.length=4294967295'], /excludeTools is a list: expected an index from 0 to 0, got `length`/],
      [
        ['edits=[{"type":"clear_tool_uses","excludeTools":[]}]', 'edits.0.excludeTools.1=x'],
        /index 1 is past the end of edits\.0\.excludeTools \(0 elements\)/,
      ],
      [['excludeTools=["a"]', 'excludeTools.00=x'], /got `00`/],
      [['edits.0.type=last_n', 'edits.2.type=trim_turns'], /index 2 is past the end of edits \(1 element\): set edits\.1 to append/],
    ]) {
      const r = await cli(['edit', f(), ...opts.flatMap((o) => ['--option', o])])
      assert.equal(r.code, 2, opts.join(' '))
      assert.match(r.stderr, re)
    }
    const big = await cli(['edit', f(), '--option', 'excludeTools=["a"]', '--option', 'excludeTools.999999999=b'])
    assert.equal(big.code, 2)
    assert.match(big.stderr, /index 999999999 is past the end of excludeTools \(1 element\)/)
    const ok = await cli(['edit', f(), '--option', 'excludeTools.0=a', '--option', 'excludeTools.1=b', '--option', 'excludeTools.0=c', '--report', 'none'])
    assert.equal(ok.code, 0, ok.stderr)
    const cfg = put('opt-cfg.json', JSON.stringify({ edits: [{ type: 'last_n', n: 5 }, { type: 'trim_turns' }] }))
    const r2 = await cli(['edit', f(), '--config', cfg, '--option', 'edits.1.maxTurns=2', '--option', 'edits.2.type=truncate_tool_results', '--report', 'json'])
    assert.equal(r2.code, 0, r2.stderr)
    assert.deepEqual(
      JSON.parse(r2.stderr).appliedEdits.map((e) => e.type),
      ['last_n', 'trim_turns', 'truncate_tool_results'],
    )
  })

  test('--width beyond 10,000 cells is refused (it allocates the map line)', async () => {
    const r = await cli(['inspect', f(), '--width', '1000000000'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /--width: expected an integer from 10 to 10000, got "1000000000"/)
  })
})
