// Where `-o` (or stdout) may point, spelled every way a user or an attacker can: a name ending in
// `/`, an empty name, a name of NAME_MAX bytes, the input itself reached through stdout or a
// descriptor (`>> in.jsonl`, `-o /dev/fd/3`), a read-only file, a stderr nobody reads. And the
// command line around it: value flags given twice, command names that are Object.prototype's, stdin
// asked for twice. Every refusal exits non-zero with one line naming the file; nothing is lost.

import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import {
  chmodSync,
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const BIN = fileURLToPath(new URL('../bin/context-editor.js', import.meta.url))

let dir
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'context-editor-targets-'))
})
after(() => rmSync(dir, { recursive: true, force: true }))

/** A hang guard only: every case finishes in seconds. */
const HANG = 120_000

/**
 * Runs the command; resolves to { code, stdout, stderr }. `stdio`: descriptors to hand over
 * (`[stdin, stdout, stderr]`, `'pipe'` where omitted); `extra`: more descriptors (fd 3, ...).
 */
function cli(args, { stdin = '', stdio = [], extra = [], uid, gid } = {}) {
  return new Promise((resolve, reject) => {
    const io = [stdio[0] ?? 'pipe', stdio[1] ?? 'pipe', stdio[2] ?? 'pipe', ...extra]
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, stdio: io, uid, gid })
    let out = ''
    let err = ''
    child.stdout?.setEncoding('utf8').on('data', (d) => (out += d))
    child.stderr?.setEncoding('utf8').on('data', (d) => (err += d))
    child.stdin?.end(stdin)
    const guard = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`context-editor ${args.join(' ')} still running after ${HANG / 1000} s`))
    }, HANG)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(guard)
      resolve({ code, stdout: out, stderr: err })
    })
  })
}

const put = (name, data, where = dir) => {
  const path = join(where, name)
  writeFileSync(path, data)
  return path
}
/** Temporary files left for targets whose names start with `prefix` (other tests may be writing theirs right now). */
const temps = (prefix, where = dir) => readdirSync(where).filter((n) => n.startsWith(`.${prefix}`) && n.endsWith('.tmp'))

/** One error line (plus at most a hint), no stack trace. */
function oneLineError(stderr) {
  const lines = stderr.trimEnd().split('\n')
  assert.ok(lines.length <= 2, `one error line and a hint at most:\n${stderr}`)
  assert.match(lines[0], /^context-editor: /)
  assert.doesNotMatch(stderr, /\n\s+at |Error:/, stderr)
}

/** A request whose tool result the TIGHT options clear: the output differs from the input. */
function request(tag = 'r') {
  return `${JSON.stringify({
    model: 'gpt-4o',
    messages: [
      { role: 'user', content: `go ${tag}` },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'x'.repeat(2000) },
      { role: 'assistant', content: 'done' },
    ],
  })}\n`
}
const TIGHT = ['--option', 'trigger.tokens=10', '--option', 'keep.messages=0']

describe('-o names', { concurrency: 4 }, () => {
  test('a name ending in / names a directory: never the file without the slash (existing, new, through a link)', async () => {
    const existing = put('slash.json', request())
    const link = join(dir, 'slash-link')
    symlinkSync('made-by-link/', link)
    for (const [target, reason] of [
      [`${existing}/`, /not a directory .*\(ENOTDIR\)/],
      [join(dir, 'slash-new.json/'), /no such directory \(a name ending in \/ names a directory\)/],
      [link, /no such directory/],
    ]) {
      const r = await cli(['edit', existing, '-o', target, ...TIGHT])
      assert.equal(r.code, 1, r.stderr)
      assert.match(r.stderr, reason)
      oneLineError(r.stderr)
    }
    assert.equal(readFileSync(existing, 'utf8'), request())
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.startsWith('slash') || n.startsWith('made-by')),
      ['slash-link', 'slash.json'],
    )
    const d = join(dir, 'slash-dir')
    mkdirSync(d)
    const r = await cli(['edit', existing, '-o', `${d}/`])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /slash-dir\/: is a directory/)
  })

  test('an empty -o, input or --config name is a usage error, not "is a directory"', async () => {
    const f = put('named.json', request())
    for (const [args, message] of [
      [['edit', f, '-o', ''], /-o: the file name is empty/],
      [['edit', ''], /the input file name is empty/],
      [['inspect', ''], /the input file name is empty/],
      [['demo', '-o', ''], /-o: the file name is empty/],
      [['edit', f, '--config', ''], /--config: the file name is empty/],
    ]) {
      const r = await cli(args)
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
      assert.match(r.stderr, message)
      oneLineError(r.stderr)
    }
  })

  test('a target name of NAME_MAX (255) bytes is written, in place too: its temporary name is shortened to fit', async () => {
    for (const name of ['a'.repeat(250) + '.json', 'é'.repeat(125) + '.json', '📄'.repeat(62) + '.json']) {
      assert.ok(Buffer.byteLength(name) >= 250 && Buffer.byteLength(name) <= 255, name)
      const f = put(name, request())
      const r = await cli(['edit', f, '-o', f, ...TIGHT, '--report', 'none'])
      assert.equal(r.code, 0, r.stderr)
      assert.equal(JSON.parse(readFileSync(f, 'utf8')).messages[2].content, '[cleared]')
      const fresh = join(dir, `n${name.slice(1)}`)
      const n = await cli(['edit', f, '-o', fresh, '--report', 'none'])
      assert.equal(n.code, 0, n.stderr)
      assert.equal(readFileSync(fresh, 'utf8'), readFileSync(f, 'utf8'))
    }
    assert.deepEqual(temps('a'), [])
    assert.deepEqual(temps('é'), [])
    assert.deepEqual(temps('📄'), [])
    assert.deepEqual(temps('n'), [])
  })
})

describe('the output is never the input reached through a descriptor', { concurrency: 4 }, () => {
  const lines = (n) => Array.from({ length: n }, (_, i) => JSON.stringify([{ role: 'user', content: `line ${i} ${'y'.repeat(900)}` }])).join('\n') + '\n'

  test('--jsonl appending to its own input (>> in.jsonl, stdin and stdout both the file, -o /dev/fd/3): refused at once, the file unchanged', async () => {
    // Before: the command read the lines it had just appended, for ever, filling the disk.
    const f = put('self.jsonl', lines(3000))
    const size = statSync(f).size
    const cases = [
      [['edit', f, '--jsonl'], { stdio: ['pipe', 'a'] }, /the output \(stdout\) is the input .*self\.jsonl itself/],
      [['edit', '-', '--jsonl'], { stdio: ['r', 'a'] }, /the output \(stdout\) is the input <stdin> itself/],
      [['edit', f, '--jsonl', '-o', '/dev/fd/3'], { extra: ['a'] }, /the output \(\/dev\/fd\/3\) is the input .*self\.jsonl itself/],
      [['edit', f, '--jsonl', '-o', '/proc/self/fd/3'], { extra: ['r+'] }, /the output \(\/proc\/self\/fd\/3\) is the input/],
      [['edit', f, '-o', '/dev/stdout'], { stdio: ['pipe', 'a'] }, /is the input .*self\.jsonl itself/],
    ]
    for (const [args, how, message] of cases) {
      const fds = []
      const open = (mode) => {
        const fd = openSync(f, mode)
        fds.push(fd)
        return fd
      }
      try {
        const stdio = (how.stdio ?? []).map((m) => (m === 'pipe' ? 'pipe' : open(m)))
        const extra = (how.extra ?? []).map(open)
        const r = await cli(args, { stdio, extra })
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
        assert.match(r.stderr, message)
        assert.match(r.stderr, /to replace the input safely/)
      } finally {
        for (const fd of fds) closeSync(fd)
      }
      assert.equal(statSync(f).size, size, args.join(' '))
    }
    assert.equal(readFileSync(f, 'utf8'), lines(3000))
  })

  test('a whole document (edit or inspect) onto itself through stdout: refused; when the shell already emptied it (> in.json), the hint says so', async () => {
    const f = put('self.json', request())
    const fd = openSync(f, 'a')
    const r = await cli(['edit', f, ...TIGHT], { stdio: ['pipe', fd] })
    closeSync(fd)
    assert.equal(r.code, 2)
    assert.match(r.stderr, /is the input .*self\.json itself/)
    assert.equal(readFileSync(f, 'utf8'), request())
    const truncated = openSync(f, 'w')
    const t = await cli(['edit', f], { stdio: ['pipe', truncated] })
    closeSync(truncated)
    assert.equal(t.code, 2)
    assert.match(t.stderr, /self\.json is empty now: a shell redirection `>` emptied it before the command started/)
    // inspect's table appended to the conversation made it invalid JSON.
    writeFileSync(f, request())
    const appended = openSync(f, 'a')
    const i = await cli(['inspect', f], { stdio: ['pipe', appended] })
    closeSync(appended)
    assert.equal(i.code, 2)
    assert.match(i.stderr, /is the input .*self\.json itself.*\ninspect writes a table, not the conversation/)
    assert.equal(readFileSync(f, 'utf8'), request())
    // -o naming it is the way: replaced whole.
    const ok = await cli(['edit', f, '-o', f, ...TIGHT, '--report', 'none'])
    assert.equal(ok.code, 0, ok.stderr)
    assert.equal(JSON.parse(readFileSync(f, 'utf8')).messages[2].content, '[cleared]')
  })

  test('--keep-going with stdin redirected from the -o file: the input is not replaced without its failed lines', async () => {
    const text = `${lines(2)}not json\n`
    const f = put('kg-stdin.jsonl', text)
    const fd = openSync(f, 'r')
    const r = await cli(['edit', '-', '--jsonl', '--keep-going', '-o', f], { stdio: [fd] })
    closeSync(fd)
    assert.equal(r.code, 2, r.stderr)
    assert.match(r.stderr, /1 line failed; .*kg-stdin\.jsonl is the input itself, so it was left unchanged/)
    assert.equal(readFileSync(f, 'utf8'), text)
    assert.deepEqual(temps('kg-stdin.jsonl.'), [])
  })
})

describe('permissions and a stderr nobody reads', { concurrency: 1 }, () => {
  test('a read-only target is refused (EACCES, unchanged), as `>` refuses it; a writable one of another user is replaced with a note', async (t) => {
    // Renaming over a file needs only the directory's permission: a 0444 file was replaced.
    // Root may write any file, so as root the command runs as `nobody` when that user can run it.
    const root = process.getuid?.() === 0
    const area = join(dir, 'shared')
    mkdirSync(area)
    chmodSync(area, 0o777)
    chmodSync(dir, 0o755)
    const as = root ? { uid: 65534, gid: 65534 } : {}
    if (root && spawnSync(process.execPath, [BIN, '--version'], { ...as, encoding: 'utf8' }).status !== 0) {
      t.diagnostic('the command cannot run as nobody here (the repository is not readable by it): checked as root, which may write the file, like `>`')
      const f = put('ro.json', request(), area)
      chmodSync(f, 0o444)
      const r = await cli(['edit', f, '-o', f, ...TIGHT, '--report', 'none'])
      assert.equal(r.code, 0, r.stderr)
      assert.equal(statSync(f).mode & 0o777, 0o444)
      return
    }
    const ro = put('ro.json', request(), area)
    chmodSync(ro, 0o444)
    const r = await cli(['edit', ro, '-o', ro, ...TIGHT], as)
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stderr, /cannot write .*ro\.json: permission denied \(EACCES\); .*ro\.json is unchanged/)
    oneLineError(r.stderr)
    assert.equal(readFileSync(ro, 'utf8'), request())
    assert.equal(statSync(ro).mode & 0o777, 0o444)
    assert.deepEqual(temps('ro.json.', area), [])
    if (root) {
      // Root's file, writable by all: nobody may replace it, and is told that the owner changes.
      const shared = put('shared.json', request(), area)
      chmodSync(shared, 0o666)
      const w = await cli(['edit', shared, '-o', shared, ...TIGHT, '--report', 'none'], as)
      assert.equal(w.code, 0, w.stderr)
      assert.match(w.stderr, /note: .*shared\.json belonged to user 0; only root can keep that, so the new file is yours \(mode kept\)/)
      assert.equal(statSync(shared).mode & 0o777, 0o666)
      assert.equal(JSON.parse(readFileSync(shared, 'utf8')).messages[2].content, '[cleared]')
    }
  })

  test('stderr with no reader: the exit code still says how the run went (0 written, 2 invalid input), no crash', async () => {
    // A FIFO whose read end is closed: every write to it fails with EPIPE, deterministically.
    const fifo = join(dir, 'no-reader')
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0)
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
    const writer = openSync(fifo, constants.O_WRONLY)
    closeSync(reader)
    try {
      const f = put('quiet.json', request())
      const out = join(dir, 'quiet-out.json')
      const ok = await cli(['edit', f, '-o', out, ...TIGHT], { stdio: ['pipe', 'pipe', writer] })
      assert.equal(ok.code, 0)
      assert.equal(JSON.parse(readFileSync(out, 'utf8')).messages[2].content, '[cleared]')
      const bad = await cli(['edit', put('quiet-bad.json', '[')], { stdio: ['pipe', 'pipe', writer] })
      assert.equal(bad.code, 2)
      const kg = await cli(['edit', put('quiet.jsonl', `${request().trim()}\n[\n`), '--jsonl', '--keep-going'], { stdio: ['pipe', 'pipe', writer] })
      assert.equal(kg.code, 3)
      assert.equal(kg.stdout.split('\n').length, 2)
    } finally {
      closeSync(writer)
    }
  })
})

describe('every signal that would end the run removes the temporary file', { concurrency: 1 }, () => {
  // SIGINT, SIGTERM and SIGHUP were handled; SIGQUIT (Ctrl-\\), SIGXCPU (ulimit -t), SIGALRM,
  // SIGUSR2 ended Node at once and left the temporary file beside the target.
  for (const [signal, number] of [
    ['SIGQUIT', 3],
    ['SIGXCPU', 24],
    ['SIGALRM', 14],
    ['SIGUSR2', 12],
  ]) {
    test(`${signal} mid-run: exit ${128 + number}, the target unchanged, no temporary file`, async () => {
      const sub = join(dir, `signal-${signal}`)
      mkdirSync(sub)
      const target = put('out.jsonl', 'the previous output\n', sub)
      // The input is a pipe the test holds open: the run is in progress until the signal.
      const child = spawn(process.execPath, [BIN, 'edit', '-', '--jsonl', '-o', target, ...TIGHT], { cwd: sub, stdio: ['pipe', 'pipe', 'pipe'] })
      let err = ''
      child.stderr.setEncoding('utf8').on('data', (d) => (err += d))
      const done = new Promise((resolve) => child.on('close', (code, sig) => resolve({ code, sig })))
      child.stdin.write(request())
      // The temporary file exists from the start of the run: wait for it, then signal.
      const deadline = Date.now() + HANG
      while (readdirSync(sub).length < 2) {
        if (child.exitCode !== null) throw new Error(`ended before the signal: ${err}`)
        if (Date.now() > deadline) {
          child.kill('SIGKILL')
          throw new Error('no temporary file appeared (hang guard)')
        }
        await new Promise((r) => setTimeout(r, 10))
      }
      child.kill(signal)
      const r = await done
      child.stdin.destroy()
      assert.deepEqual([r.code, r.sig], [128 + number, null], err)
      assert.equal(readFileSync(target, 'utf8'), 'the previous output\n')
      assert.deepEqual(readdirSync(sub), ['out.jsonl'])
    })
  }
})

describe("an error outside the command's own handling", { concurrency: 1 }, () => {
  test('is one line and exit 1, never a stack trace, and the temporary file is removed', async () => {
    const sub = join(dir, 'last-resort')
    mkdirSync(sub)
    const target = put('out.jsonl', 'the previous output\n', sub)
    // A module loaded before the command throws from a timer once the temporary file exists: an
    // exception no code of the command can catch (as a stream callback's would be).
    const hook = `import { readdirSync } from 'node:fs'
      const t = setInterval(() => { if (readdirSync(${JSON.stringify(sub)}).some((n) => n.endsWith('.tmp'))) { clearInterval(t); throw new Error('boom from a timer') } }, 5)`
    const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, BIN, 'edit', '-', '--jsonl', '-o', target], {
      cwd: sub,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let err = ''
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d))
    child.stdin.write(request())
    const guard = setTimeout(() => child.kill('SIGKILL'), HANG)
    const code = await new Promise((resolve) => child.on('close', resolve))
    clearTimeout(guard)
    child.stdin.destroy()
    assert.equal(code, 1, err)
    assert.equal(err, 'context-editor: internal error: boom from a timer\n')
    assert.equal(readFileSync(target, 'utf8'), 'the previous output\n')
    assert.deepEqual(readdirSync(sub), ['out.jsonl'])
  })
})

describe('the command line', { concurrency: 4 }, () => {
  test('a value flag given twice is refused, naming both; nothing is written (repeated --option and booleans are fine)', async () => {
    const f = put('twice.json', request())
    const a = join(dir, 'twice-a.json')
    const b = join(dir, 'twice-b.json')
    for (const [args, flag] of [
      [['-o', a, '-o', b], 'output'],
      [['-o', a, `--output=${b}`], 'output'],
      [['--format', 'openai', '--format', 'anthropic'], 'format'],
      [['--report', 'none', '--report', 'json'], 'report'],
      [['--config', f, '--config', f], 'config'],
      [['--max-input-tokens', '1000', '--max-input-tokens', '2000'], 'max-input-tokens'],
    ]) {
      const r = await cli(['edit', f, ...args])
      assert.equal(r.code, 2, args.join(' '))
      assert.match(r.stderr, new RegExp(`--${flag} given twice \\(.*, then .*\\)`))
      oneLineError(r.stderr)
    }
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.startsWith('twice-')),
      [],
    )
    const ok = await cli(['edit', f, '-o', a, '--jsonl', '--jsonl', ...TIGHT, '--report', 'none'])
    assert.equal(ok.code, 0, ok.stderr)
  })

  test("command names and help topics are the command's own, never Object.prototype members", async () => {
    for (const name of ['__proto__', 'toString', 'constructor', 'hasOwnProperty', 'valueOf']) {
      for (const args of [
        [name, 'x.json'],
        ['help', name],
      ]) {
        const r = await cli(args)
        assert.equal(r.code, 2, args.join(' '))
        assert.match(r.stderr, new RegExp(`^context-editor: unknown command \`${name}\`\ncommands: edit, inspect, demo`))
        assert.equal(r.stdout, '')
      }
    }
  })

  test('an option parsing error is one line and a hint', async () => {
    const f = put('parse.json', request())
    const r = await cli(['edit', f, '-o', '--report', 'none'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /^context-editor: option `-o` argument is ambiguous\.\n.*see context-editor edit --help\n$/)
  })

  test('stdin is read once: the input - and --config - together are refused before reading', async () => {
    const r = await cli(['edit', '-', '--config', '-'], { stdin: '{}' })
    assert.equal(r.code, 2)
    assert.match(r.stderr, /stdin can be read once: it cannot be both the input \(-\) and --config -/)
    oneLineError(r.stderr)
    for (const [input, config] of [
      ['/dev/stdin', '-'],
      ['-', '/dev/stdin'],
      ['/dev/fd/0', '/proc/self/fd/0'],
    ]) {
      const d = await cli(['edit', input, '--config', config], { stdin: '{}' })
      assert.equal(d.code, 2, `${input} ${config}`)
      assert.match(d.stderr, /stdin can be read once/)
    }
    const c = await cli(['edit', put('stdin-config.json', request()), '--config', '-', '--report', 'none'], {
      stdin: '{"trigger":{"tokens":10},"keep":{"messages":0}}',
    })
    assert.equal(c.code, 0, c.stderr)
    assert.equal(JSON.parse(c.stdout).messages[2].content, '[cleared]', 'the options were read from stdin')
    const bad = await cli(['edit', put('stdin-config-2.json', request()), '--config', '-'], { stdin: '{"keep":{"lines":1}}' })
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /invalid options \(<stdin>\): keep\.lines/)
  })
})
