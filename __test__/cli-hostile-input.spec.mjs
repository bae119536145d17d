// Input an attacker (or an unlucky export) hands the command: bytes that are not UTF-8, numbers a
// double cannot hold, duplicate keys, control characters in names, class names that are
// Object.prototype's, empty and endless inputs. Each is either written back exactly or refused with
// one line naming the file (and line:column or field), exit 2, the output untouched; nothing is
// silently changed, nothing hangs.

import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, constants, mkdtempSync, open, openSync, readFileSync, readdirSync, rmSync, write, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const BIN = fileURLToPath(new URL('../bin/context-editor.js', import.meta.url))

let dir
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'context-editor-hostile-'))
})
after(() => rmSync(dir, { recursive: true, force: true }))

/** A hang guard only: every case finishes in seconds; a run still going after this is a failure. */
const HANG = 120_000

/**
 * Runs the command; resolves to { code, stdout, stderr } (strings). `stdin`: text or bytes to feed,
 * or a file descriptor to hand over.
 */
function cli(args, stdin = '') {
  return new Promise((resolve, reject) => {
    const fd = typeof stdin === 'number' ? stdin : 'pipe'
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: [fd, 'pipe', 'pipe'] })
    const out = []
    const err = []
    child.stdout.on('data', (d) => out.push(d))
    child.stderr.on('data', (d) => err.push(d))
    if (fd === 'pipe') child.stdin.end(stdin)
    const guard = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`context-editor ${args.join(' ')} still running after ${HANG / 1000} s`))
    }, HANG)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(guard)
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') })
    })
  })
}

const put = (name, data) => {
  const path = join(dir, name)
  writeFileSync(path, data)
  return path
}
/** Temporary files left for the target `name` (other tests may be writing theirs right now). */
const temps = (name) => readdirSync(dir).filter((n) => n.startsWith(`.${name}.`) && n.endsWith('.tmp'))

/** An error the command reports: one line (plus at most a hint line), no stack trace, no raw control characters. */
function oneLineError(stderr) {
  const lines = stderr.trimEnd().split('\n')
  assert.ok(lines.length <= 2, `one error line and a hint at most:\n${stderr}`)
  assert.match(lines[0], /^context-editor: /)
  assert.doesNotMatch(stderr, /\n\s+at |Error:|[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, stderr)
}

const OPENAI = (content) => `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},\n{"role":"assistant","content":"${content}"}]}`

describe('bytes that are not UTF-8', { concurrency: 4 }, () => {
  // Each would have been decoded to U+FFFD and written back changed, exit 0.
  const cases = [
    ['latin-1 byte', Buffer.from([0xe9]), 0xe9],
    ['lone continuation byte', Buffer.from([0x80]), 0x80],
    ['overlong encoding of /', Buffer.from([0xc0, 0xaf]), 0xc0],
    ['UTF-16 surrogate in 3 bytes (CESU-8)', Buffer.from([0xed, 0xa0, 0x80]), 0xed],
    ['code point past U+10FFFF', Buffer.from([0xf4, 0x90, 0x80, 0x80]), 0xf4],
    ['sequence cut short', Buffer.from([0xe2, 0x82]), 0xe2],
  ]
  for (const [name, bytes, first] of cases) {
    test(`${name}: edit and inspect exit 2 naming line:column and the byte; -o in place unchanged`, async () => {
      const [head, tail] = OPENAI('ok ⌘ X').split('X')
      const data = Buffer.concat([Buffer.from(head), bytes, Buffer.from(tail)])
      const f = put(`bad-${first}-${bytes.length}.json`, data)
      // Line 2; the column counts characters (⌘ is one), not bytes.
      const column = head.split('\n')[1].length + 1
      const byte = `0x${first.toString(16).toUpperCase()}`
      for (const args of [
        ['edit', f, '-o', f],
        ['inspect', f],
      ]) {
        const r = await cli(args)
        assert.equal(r.code, 2, r.stderr)
        assert.match(r.stderr, new RegExp(`bad-${first}-${bytes.length}\\.json:2:${column}: not UTF-8 text \\(byte ${byte}\\)`))
        oneLineError(r.stderr)
      }
      assert.deepEqual(readFileSync(f), data)
      assert.deepEqual(temps(`bad-${first}-${bytes.length}.json`), [])
    })
  }

  test('a JSONL line: file:line:column, exit 2; with --keep-going it is skipped and every other line written unchanged', async () => {
    const good = (n) => JSON.stringify([{ role: 'user', content: `é ${n}` }])
    const bad = Buffer.concat([Buffer.from('[{"role":"user","content":"caf'), Buffer.from([0xe9]), Buffer.from('"}]')])
    const f = put('latin1.jsonl', Buffer.concat([Buffer.from(`${good(1)}\n`), bad, Buffer.from(`\n${good(3)}\n`)]))
    const r = await cli(['edit', f, '--jsonl', '--report', 'none'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /latin1\.jsonl:2:31: not UTF-8 text \(byte 0xE9\)/)
    oneLineError(r.stderr)
    const k = await cli(['edit', f, '--jsonl', '--keep-going', '--report', 'json'])
    assert.equal(k.code, 3, k.stderr)
    assert.equal(k.stdout, `${good(1)}\n${good(3)}\n`)
    const summary = JSON.parse(k.stderr.trim().split('\n').at(-1))
    assert.deepEqual(summary.failures, [{ line: 2, column: 31, reason: 'not UTF-8 text (byte 0xE9): the input must be UTF-8' }])
  })

  test('UTF-16 (with or without a byte order mark) is named as such; stdin too', async () => {
    const doc = '{"messages":[{"role":"user","content":"hi"}]}'
    const le = put('utf16le.json', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(doc, 'utf16le')]))
    const r = await cli(['edit', le])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /utf16le\.json:1:1: not UTF-8 text \(byte 0xFF\): it starts with a UTF-16 byte order mark/)
    oneLineError(r.stderr)
    const be = Buffer.from(doc, 'utf16le').swap16()
    const s = await cli(['edit', '-'], be)
    assert.equal(s.code, 2)
    assert.match(s.stderr, /<stdin>:1:1: invalid JSON: .*\(NUL bytes: is it UTF-16\? convert it to UTF-8\)/)
    oneLineError(s.stderr)
  })

  test('a UTF-8 byte order mark is still accepted', async () => {
    const f = put('bom.json', `\ufeff${OPENAI('fine')}`)
    const r = await cli(['edit', f, '--report', 'none'])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(JSON.parse(r.stdout).messages[1].content, 'fine')
  })
})

describe('numbers a double cannot hold are written back exactly', { concurrency: 4 }, () => {
  // JSON.parse made 1e400 Infinity (written as null), rounded big integers and dropped -0's sign.
  const EXACT = ['12345678901234567890', '-98765432109876543210', '9007199254740993', '1e400', '-1e400', '2.5e-400', '-0', '-0.0', '0.30000000000000000000001']

  test('OpenAI and LangChain documents, edited or not, on fields the edits keep', async () => {
    const extra = `[${EXACT.join(', ')}]`
    const openai = put(
      'numbers-openai.json',
      `{"model":"gpt-4o","seed":12345678901234567891,"messages":[{"role":"user","content":"go","ids":${extra}},` +
        '{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},' +
        '{"role":"tool","tool_call_id":"c1","content":"' +
        'r'.repeat(400) +
        '","meta":{"t":1e999}},' +
        '{"role":"assistant","content":"done","n":-0}]}',
    )
    const langchain = put(
      'numbers-langchain.json',
      `[{"type":"human","content":"go","ids":${extra}},` +
        '{"type":"ai","content":"","tool_calls":[{"id":"c1","name":"f","args":{"big":98765432109876543210}}]},' +
        '{"type":"tool","tool_call_id":"c1","content":"' +
        'r'.repeat(400) +
        '","meta":{"t":1e999}},' +
        '{"type":"ai","content":"done","n":-0}]',
    )
    for (const f of [openai, langchain]) {
      for (const opts of [[], ['--option', 'trigger.tokens=1', '--option', 'keep.messages=0']]) {
        const r = await cli(['edit', f, '--report', 'json', ...opts])
        assert.equal(r.code, 0, r.stderr)
        const compact = r.stdout.replace(/\s+/g, '')
        assert.ok(compact.includes(`"ids":[${EXACT.join(',')}]`), compact)
        assert.ok(compact.includes('"t":1e999'), compact)
        assert.ok(compact.includes('"n":-0}'), compact)
        if (f === openai) assert.ok(compact.includes('"seed":12345678901234567891'), compact)
        else assert.ok(compact.includes('98765432109876543210'), compact)
        // The edits ran: with the tight options the tool result was cleared.
        if (opts.length) assert.equal(JSON.parse(r.stderr).cleared.length, 1)
        assert.doesNotMatch(compact, /@context-editor|[[,]null[,\]]|"t":null/)
      }
    }
  })

  test('JSONL lines and Anthropic requests; numbers that only change form (1.0, 1E2) are read as numbers', async () => {
    const anthropic = `{"model":"claude","max_tokens":1e400,"messages":[{"role":"user","content":[{"type":"text","text":"hi","n":12345678901234567890}]}]}`
    const f = put('numbers.jsonl', `${anthropic}\n[{"role":"user","content":"x","a":1.0,"b":1E2,"c":-0}]\n`)
    const r = await cli(['edit', f, '--jsonl', '--report', 'none'])
    assert.equal(r.code, 0, r.stderr)
    const [one, two] = r.stdout.split('\n')
    assert.equal(one, anthropic)
    assert.equal(two, '[{"role":"user","content":"x","a":1,"b":100,"c":-0}]')
  })

  test('a number kept exactly is still a number to the editor: a big numeric tool-call id is refused like a small one, quoted as written', async () => {
    for (const id of ['5', '12345678901234567890', '1e400']) {
      const f = put(
        `numeric-id-${id}.json`,
        `[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":${id},"type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":${id},"content":"r"}]`,
      )
      const r = await cli(['edit', f])
      assert.equal(r.code, 2, `${id}: ${r.stderr}`)
      assert.match(r.stderr, new RegExp(`messages\\[1\\]\\.tool_calls\\[0\\]\\.id: expected a non-empty string, got number ${id}\\n`))
      assert.equal(r.stdout, '')
    }
  })

  test('tiny negative numbers of the document itself are never mistaken for kept ones (also inside strings)', async () => {
    const text = '[{"role":"user","content":"-5e-324 -1e-323","a":-5e-324,"b":-1e-323,"c":1e400,"d":[1e400,-0,1e400],"e":"1e400"}]'
    const r = await cli(['edit', put('tiny.json', text), '--report', 'none'])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, `${text}\n`)
  })

  test("in --config and --option, numbers are the options' own business (1e400 is refused there, named)", async () => {
    const f = put('plain.json', OPENAI('x'))
    const c = put('opts-big.json', '{"trigger":{"tokens":1e400}}')
    for (const args of [
      ['--config', c],
      ['--option', 'trigger.tokens=1e400'],
    ]) {
      const r = await cli(['edit', f, ...args])
      assert.equal(r.code, 2)
      assert.match(r.stderr, /trigger\.tokens: expected a finite number/)
      oneLineError(r.stderr)
    }
  })
})

describe('duplicate keys are an error, never a value silently dropped', { concurrency: 4 }, () => {
  // JSON.parse keeps the last: a second "messages" erased the conversation, exit 0.
  // [name, text, the duplicate as written (its last occurrence is the one reported), key, where]
  const cases = [
    ['a second messages array', '{"messages":[{"role":"user","content":"keep me"}],\n"messages":[]}', '"messages"', '"messages"', ''],
    ['a field of a message', '[{"role":"user","content":"a",\n "role":"system"}]', '"role"', '"role"', ' in \\[0\\]'],
    ['keys equal once unescaped', '[{"role":"user","content":"a","x":1,"\\u0078":2}]', '"\\u0078"', '"x"', ' in \\[0\\]'],
    [
      'deep inside a tool call',
      '[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","name":"g","arguments":"{}"}}]}]',
      '"name"',
      '"name"',
      ' in \\[0\\]\\.tool_calls\\[0\\]\\.function',
    ],
    ['the empty key', '{"messages":[],"":1,"":2}', '""', '""', ''],
    ['an own __proto__ key', '[{"role":"user","content":"a","__proto__":{},"__proto__":{}}]', '"__proto__"', '"__proto__"', ' in \\[0\\]'],
  ]
  for (const [name, text, written, key, path] of cases) {
    test(`${name}: file:line:column, the key and where; exit 2; nothing written`, async () => {
      const at = text.lastIndexOf(written)
      const line = text.slice(0, at).split('\n').length
      const column = at - text.lastIndexOf('\n', at - 1)
      const slug = name.replace(/\W+/g, '-')
      const f = put(`dup-${slug}.json`, text)
      const out = put(`dup-out-${slug}.json`, 'previous')
      for (const args of [
        ['edit', f, '-o', out],
        ['inspect', f],
      ]) {
        const r = await cli(args)
        assert.equal(r.code, 2, r.stderr)
        assert.match(r.stderr, new RegExp(`\\.json:${line}:${column}: invalid JSON: duplicate key ${key}${path} `))
        oneLineError(r.stderr)
      }
      assert.equal(readFileSync(out, 'utf8'), 'previous')
    })
  }

  test('in a JSONL line (file:line:column; skipped with --keep-going), in --config and in an --option value', async () => {
    const f = put('dup.jsonl', '[{"role":"user","content":"a"}]\n{"messages":[],"messages":[]}\n')
    const r = await cli(['edit', f, '--jsonl', '--keep-going', '--report', 'none'])
    assert.equal(r.code, 3)
    assert.match(r.stderr, /dup\.jsonl:2:16: invalid JSON: duplicate key "messages" .*\(skipped\)/)
    assert.equal(r.stdout, '[{"role":"user","content":"a"}]\n')
    const plain = put('dup-plain.json', OPENAI('x'))
    const c = put('dup-opts.json', '{"trigger":{"tokens":5},"trigger":{"tokens":9000}}')
    const rc = await cli(['edit', plain, '--config', c])
    assert.equal(rc.code, 2)
    assert.match(rc.stderr, /dup-opts\.json:1:25: invalid JSON: duplicate key "trigger"/)
    const ro = await cli(['edit', plain, '--option', 'trigger={"tokens":5,"tokens":6}'])
    assert.equal(ro.code, 2)
    assert.match(ro.stderr, /--option trigger:1:13: invalid JSON: duplicate key "tokens"/)
    for (const x of [rc, ro]) oneLineError(x.stderr)
  })

  test('equal keys in different objects are not duplicates', async () => {
    const text = '{"messages":[{"role":"user","content":"a","m":{"role":1,"x":{"role":2}}},{"role":"assistant","content":"b"}],"x":[{"a":1},{"a":2}]}'
    const r = await cli(['edit', put('nodup.json', text), '--report', 'none'])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, `${text}\n`)
  })
})

describe('names from the input cannot write control characters to the terminal', { concurrency: 4 }, () => {
  const ESC = '\u001b'
  const evil = `read${ESC}]0;owned\u0007${ESC}[2J\nFAKE LINE\u202e`

  test('tool names and ids in inspect tables, edit reports and warnings are escaped', async () => {
    const doc = {
      model: `gpt-4o${ESC}[31m`,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: evil, arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'result' },
        { role: 'tool', tool_call_id: `orphan${ESC}[2J\nX`, content: 'lost' },
      ],
    }
    const f = put('evil.json', JSON.stringify(doc))
    const i = await cli(['inspect', f, '--color', 'never'])
    assert.equal(i.code, 0, i.stderr)
    const e = await cli(['edit', f, '-o', join(dir, 'evil-out.json')])
    assert.equal(e.code, 0, e.stderr)
    for (const text of [i.stdout, e.stderr]) {
      assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/)
      assert.doesNotMatch(text, /^FAKE LINE/m)
    }
    assert.match(i.stdout, /read\\u001b\]0;owned/)
    assert.match(e.stderr, /warning orphaned_tool_result: tool result for `orphan\\u001b\[2J\\nX`/)
    // The data itself is written back as it was.
    assert.equal(JSON.parse(readFileSync(join(dir, 'evil-out.json'), 'utf8')).messages[1].tool_calls[0].function.name, evil)
  })

  test('errors quoting the input or a file name stay one line', async () => {
    const role = await cli(['edit', put('evil-role.json', JSON.stringify([{ role: `user${ESC}[2J\nsystem`, content: 'x' }]))])
    assert.equal(role.code, 2)
    assert.match(role.stderr, /messages\[0\]\.role: unknown role `user\\u001b\[2J\\nsystem`/)
    const name = `new\nline${ESC}[31m.json`
    const f = put(name, OPENAI('x'))
    const ok = await cli(['edit', f, '-o', f])
    assert.equal(ok.code, 0, ok.stderr)
    assert.match(ok.stderr, /new\\nline\\u001b\[31m\.json \(openai, 2 messages\)/)
    const missing = await cli(['edit', join(dir, `gone\n${ESC}[2J.json`)])
    assert.equal(missing.code, 2)
    assert.match(missing.stderr, /gone\\n\\u001b\[2J\.json: no such file/)
    const token = await cli(['edit', put('evil-token.json', `[{"role":"user","content":"x"}]${ESC}[2J`)])
    assert.equal(token.code, 2)
    for (const r of [role, ok, missing, token]) assert.doesNotMatch(r.stderr, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    for (const r of [role, missing, token]) oneLineError(r.stderr)
  })
})

describe('errors quoting huge values', { concurrency: 4 }, () => {
  test('are shortened in the middle: the place and the reason stay, the line stays short (edit, --jsonl, --report json)', async () => {
    const role = 'r'.repeat(100_000)
    const f = put('huge-role.json', JSON.stringify([{ role, content: 'x' }]))
    const r = await cli(['edit', f])
    assert.equal(r.code, 2)
    assert.ok(r.stderr.length < 1100, `${r.stderr.length} characters`)
    assert.match(
      r.stderr,
      /huge-role\.json: messages\[0\]\.role: unknown role `r+…\(99,\d{3} characters\)…r+` \(expected system, developer, user, assistant or tool\)\n$/,
    )
    const lines = Array.from({ length: 50 }, () => JSON.stringify([{ role, content: 'x' }])).join('\n')
    const j = await cli(['edit', put('huge-roles.jsonl', `${lines}\n`), '--jsonl', '--keep-going', '--report', 'json'])
    assert.equal(j.code, 3)
    assert.ok(j.stderr.length < 60_000, `${j.stderr.length} characters for 50 failures`)
    const summary = JSON.parse(j.stderr)
    assert.equal(summary.failures.length, 50)
    assert.ok(summary.failures.every((x) => x.reason.length < 1000 && x.reason.startsWith('messages[0].role: unknown role')))
    const deep = await cli(['edit', put('deep-dup.json', `${'['.repeat(50_000)}{"a":1,"a":2}${']'.repeat(50_000)}`)])
    assert.equal(deep.code, 2)
    assert.match(deep.stderr, /deep-dup\.json:1:50008: invalid JSON: duplicate key "a" in (\[0\]){20}…\(49,?970 levels\)…(\[0\]){10} /)
    assert.ok(deep.stderr.length < 400)
  })
})

describe('odd documents', { concurrency: 4 }, () => {
  test('LangChain class names that are Object.prototype members are unsupported classes, named', async () => {
    for (const cls of ['__proto__', 'toString', 'constructor', 'hasOwnProperty', 'valueOf']) {
      const f = put(`class-${cls}.json`, JSON.stringify([{ lc: 1, type: 'constructor', id: ['langchain_core', 'messages', cls], kwargs: { content: 'x' } }]))
      const r = await cli(['edit', f])
      assert.equal(r.code, 2, cls)
      assert.match(r.stderr, new RegExp(`messages\\[0\\]\\.id: unsupported LangChain class "${cls}" \\(expected HumanMessage`))
      oneLineError(r.stderr)
    }
  })

  test('an empty input says so (file, whitespace, byte order mark alone, stdin, a JSONL line is not one)', async () => {
    for (const [name, data] of [
      ['empty.json', ''],
      ['blank.json', ' \n\t\r\n'],
      ['bom-only.json', '\ufeff'],
    ]) {
      const r = await cli(['edit', put(name, data)])
      assert.equal(r.code, 2)
      assert.match(r.stderr, new RegExp(`${name.replace('.', '\\.')}: empty input \\(expected a JSON document\\)`))
      oneLineError(r.stderr)
    }
    const s = await cli(['inspect', '-'])
    assert.equal(s.code, 2)
    assert.match(s.stderr, /<stdin>: empty input/)
    // Blank JSONL lines are kept as blank lines, as before.
    const j = await cli(['edit', '-', '--jsonl', '--report', 'none'], '\n[]\n\n')
    assert.equal(j.code, 0, j.stderr)
    assert.equal(j.stdout, '\n[]\n\n')
  })

  test('two documents in a .json file: the position of the second and a pointer to --jsonl', async () => {
    const r = await cli(['edit', put('two.json', '[{"role":"user","content":"a"}]\n[{"role":"user","content":"b"}]\n')])
    assert.equal(r.code, 2)
    assert.match(
      r.stderr,
      /two\.json:2:1: invalid JSON: unexpected non-whitespace character \(a second JSON document: one conversation per line is read by edit --jsonl\)/,
    )
    oneLineError(r.stderr)
  })
})

describe('endless inputs are bounded', { concurrency: 1 }, () => {
  test('a whole document from a device that never ends (/dev/zero): refused at the string limit, not read until memory runs out', async () => {
    const r = await cli(['edit', '/dev/zero'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /\/dev\/zero: more than 512\.0 MB, which is more than one JSON document can be here/)
    oneLineError(r.stderr)
  })

  test('a document from a FIFO fed in many small writes is read whole', async () => {
    const fifo = join(dir, 'feed.fifo')
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0)
    const messages = Array.from({ length: 3000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` }))
    const run = cli(['edit', fifo, '--report', 'none'])
    // Opening for writing waits for the command to open it for reading; should the command end
    // without opening it, a reader of our own releases the wait (no hang, the assertions fail).
    const release = () => {
      try {
        closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK))
      } catch {}
    }
    run.then(release, release)
    const w = await new Promise((resolve, reject) => open(fifo, 'w', (e, fd) => (e ? reject(e) : resolve(fd))))
    const text = JSON.stringify(messages)
    for (let at = 0; at < text.length; at += 64) await new Promise((resolve) => write(w, text.slice(at, at + 64), resolve))
    closeSync(w)
    const r = await run
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stdout, `${text}\n`)
  })

  test('a JSONL line that never ends: refused once it passes --max-line-bytes, without waiting for its end', async () => {
    const zero = openSync('/dev/zero', 'r')
    try {
      for (const args of [
        ['edit', '/dev/zero', '--jsonl', '--max-line-bytes', '4096'],
        ['edit', '-', '--jsonl', '--max-line-bytes', '4096'],
      ]) {
        const r = await cli(args, zero)
        assert.equal(r.code, 2, r.stderr)
        assert.match(r.stderr, /(\/dev\/zero|<stdin>):1: line longer than 4,096 bytes \(--max-line-bytes\)/)
        oneLineError(r.stderr)
      }
    } finally {
      closeSync(zero)
    }
  })
})
