// `-o` in place, when things go wrong: a full disk (tmpfs, or a file size limit where mounting is
// not permitted), a file size limit (EFBIG), signals in the middle of a long --jsonl run, symbolic
// links, devices and FIFOs, modes and owners, and two commands writing the same target at once.
// Each case checks that nothing is lost (the target is byte for byte what it was, or the complete
// new output), that every failure exits non-zero naming the file, and that no temporary file is left.

import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  createWriteStream,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
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
  dir = mkdtempSync(join(tmpdir(), 'context-editor-crash-'))
})
after(() => rmSync(dir, { recursive: true, force: true }))

/**
 * Runs the command (through `bash -c` when `shell` sets limits first); resolves to
 * { code, signal, stdout, stderr }. `stdin`: a string, or 'keep' to get the child to feed by hand.
 */
function spawnCli(args, { shell, stdin, stdout = 'pipe', cwd } = {}) {
  const argv = shell ? ['bash', ['-c', `${shell}; exec "$0" "$@"`, process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]]
  const child = spawn(argv[0], argv[1], { cwd: cwd ?? dir, stdio: ['pipe', stdout, 'pipe'] })
  let out = ''
  let err = ''
  child.stdout?.setEncoding('utf8').on('data', (d) => (out += d))
  child.stderr.setEncoding('utf8').on('data', (d) => (err += d))
  if (stdin !== 'keep') child.stdin.end(stdin ?? '')
  const done = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout: out, stderr: err })))
  return { child, done }
}
const cli = (args, opts) => spawnCli(args, opts).done

/** Temporary files (ours are `.name.pid.random.tmp`) left in `where`. */
const temps = (where = dir) => readdirSync(where).filter((n) => n.endsWith('.tmp'))

/** A chat-completions request of about `kb` KB that the default options leave unchanged. */
function request(kb, tag = 'r') {
  const messages = [{ role: 'system', content: 'You are terse.' }]
  for (let i = 0; messages.length * 520 < kb * 1024; i++) {
    messages.push({ role: i % 2 ? 'assistant' : 'user', content: `${tag}${i} ${'lorem ipsum '.repeat(42)}` })
  }
  return { model: 'gpt-4o', messages }
}

/** A request whose tool results the TIGHT options clear (so two option sets give different outputs). */
function toolRequest(results, size = 2000) {
  const messages = [{ role: 'user', content: 'go' }]
  for (let i = 0; i < results; i++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read', arguments: '{}' } }] })
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: `${i} ${'x'.repeat(size)}` })
  }
  return { model: 'gpt-4o', messages }
}
const TIGHT = ['--option', 'trigger.tokens=100', '--option', 'keep.messages=1']

const put = (name, content) => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : `${JSON.stringify(content, null, 2)}\n`)
  return path
}
const jsonl = (n, make) => `${Array.from({ length: n }, (_, i) => JSON.stringify(make(i))).join('\n')}\n`

/** Asserts a failed write: exit 1 (not a signal), the file named with the reason, nothing left over. */
function assertFailedWrite(r, name, reason, where = dir) {
  assert.equal(r.signal, null, `killed by ${r.signal}: SIGXFSZ must be ignored so the write fails with EFBIG`)
  assert.equal(r.code, 1, r.stderr)
  assert.match(r.stderr, new RegExp(`cannot write .*${name.replace(/\./g, '\\.')}: .*${reason}`))
  assert.equal(r.stdout, '')
  assert.deepEqual(temps(where), [], 'no temporary file is left')
}

describe('a full disk or a file size limit leaves the target as it was', { concurrency: 1 }, () => {
  // A file size limit of 16 blocks (16 KB in bash): the output is larger.
  const LIMIT = 'ulimit -f 16'

  test('EFBIG: edit -o naming the input exits 1, names the file, and leaves the input byte for byte', async () => {
    const path = put('efbig.json', request(64))
    const before = readFileSync(path)
    const r = await cli(['edit', 'efbig.json', '-o', 'efbig.json', ...TIGHT], { shell: LIMIT })
    assertFailedWrite(r, 'efbig.json', 'file too large.*EFBIG.*efbig\\.json is unchanged')
    assert.ok(readFileSync(path).equals(before))
  })

  test('EFBIG: --jsonl -o naming the input, the same', async () => {
    const path = put(
      'efbig.jsonl',
      jsonl(40, (i) => request(2, `l${i}-`)),
    )
    const before = readFileSync(path)
    const r = await cli(['edit', 'efbig.jsonl', '--jsonl', '-o', 'efbig.jsonl'], { shell: LIMIT })
    assertFailedWrite(r, 'efbig.jsonl', 'EFBIG')
    assert.ok(readFileSync(path).equals(before))
  })

  test('EFBIG: a new output file is not created at all', async () => {
    put('efbig-src.json', request(64))
    const r = await cli(['edit', 'efbig-src.json', '-o', 'efbig-new.json'], { shell: LIMIT })
    assertFailedWrite(r, 'efbig-new.json', 'EFBIG.*was not created')
    assert.throws(() => statSync(join(dir, 'efbig-new.json')), /ENOENT/)
  })

  test('the same output under the limit is written whole (the limit is what failed above)', async () => {
    const path = put('small.json', request(4))
    const r = await cli(['edit', 'small.json', '-o', 'small.json', '--report', 'none'], { shell: LIMIT })
    assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), request(4))
  })

  /**
   * A small tmpfs when this process may mount one (root in CI); else the same cases under a file
   * size limit, which fails the same write path with EFBIG instead of ENOSPC (said in the output).
   */
  function smallDisk(t, kb) {
    const mnt = join(dir, `disk-${kb}`)
    mkdirSync(mnt)
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k`, 'tmpfs', mnt], { encoding: 'utf8' })
    if (m.status === 0) return { mnt, shell: undefined, reason: 'no space left on device.*ENOSPC', unmount: () => spawnSync('umount', [mnt]) }
    t.diagnostic(`tmpfs not mountable here (${(m.stderr || m.error?.message || '').trim()}); ENOSPC simulated by a file size limit (EFBIG)`)
    return { mnt, shell: `ulimit -f ${Math.floor(kb / 2)}`, reason: 'EFBIG', unmount: () => {} }
  }

  test('ENOSPC: edit -o and --jsonl -o in place on a full disk, and a new file there', async (t) => {
    const disk = smallDisk(t, 256)
    try {
      const json = join(disk.mnt, 'full.json')
      writeFileSync(json, `${JSON.stringify(request(150), null, 2)}\n`)
      assert.ok(statSync(json).size > 128 * 1024)
      const before = readFileSync(json)
      const r = await cli(['edit', json, '-o', json], { shell: disk.shell })
      assertFailedWrite(r, 'full.json', `${disk.reason}.*is unchanged`, disk.mnt)
      assert.ok(readFileSync(json).equals(before))

      const lines = join(disk.mnt, 'full.jsonl')
      rmSync(json)
      writeFileSync(
        lines,
        jsonl(80, (i) => request(2, `d${i}-`)),
      )
      assert.ok(statSync(lines).size > 128 * 1024, 'more than half the disk: no room for a second copy')
      const beforeLines = readFileSync(lines)
      const r2 = await cli(['edit', lines, '--jsonl', '-o', lines], { shell: disk.shell })
      assertFailedWrite(r2, 'full.jsonl', disk.reason, disk.mnt)
      assert.ok(readFileSync(lines).equals(beforeLines))

      const src = put('to-full-disk.json', request(200))
      const r3 = await cli(['edit', src, '-o', join(disk.mnt, 'new.json')], { shell: disk.shell })
      assertFailedWrite(r3, 'new.json', `${disk.reason}.*was not created`, disk.mnt)
      assert.deepEqual(readdirSync(disk.mnt), ['full.jsonl'])
    } finally {
      disk.unmount()
    }
  })

  test('ENOSPC on a device (-o /dev/full) and on stdout redirected to it: exit 1, named', async () => {
    put('dev.json', request(8))
    const r = await cli(['edit', 'dev.json', '-o', '/dev/full'])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /cannot write \/dev\/full: no space left on device \(ENOSPC\)/)
    assert.ok(lstatSync('/dev/full').isCharacterDevice())
    const fd = openSync('/dev/full', 'w')
    try {
      const r2 = await cli(['edit', 'dev.json'], { stdout: fd })
      assert.equal(r2.code, 1)
      assert.match(r2.stderr, /cannot write <stdout>: no space left on device \(ENOSPC\)/)
      const r3 = await cli(['inspect', 'dev.json'], { stdout: fd })
      assert.equal(r3.code, 1, 'inspect checks its writes too')
    } finally {
      closeSync(fd)
    }
  })
})

describe('signals during a long --jsonl -o run', { concurrency: 1 }, () => {
  /** Waits until a temporary file of at least `bytes` exists in `where` (the run is mid-write). */
  async function tempGrows(where, bytes, child) {
    for (;;) {
      const t = temps(where).map((n) => statSync(join(where, n), { throwIfNoEntry: false })?.size ?? 0)
      if (t.some((s) => s >= bytes)) return
      if (child.exitCode !== null) throw new Error(`the command ended before the signal (exit ${child.exitCode})`)
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ]) {
    test(`${signal} with megabytes written: exit ${code}, the target unchanged, no temporary file`, async () => {
      const sub = join(dir, `sig-${signal}`)
      mkdirSync(sub)
      const target = join(sub, 'out.jsonl')
      writeFileSync(target, 'the previous output\n')
      // The input comes from a pipe the test holds open, so the run cannot end before the signal.
      const { child, done } = spawnCli(['edit', '-', '--jsonl', '-o', target, ...TIGHT], { stdin: 'keep' })
      const line = `${JSON.stringify(toolRequest(4, 2000))}\n`
      const chunk = line.repeat(200)
      for (let sent = 0; sent < 8 << 20; sent += chunk.length) {
        if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r))
      }
      // The output (old results cleared) is about a quarter of the input.
      await tempGrows(sub, 1 << 20, child)
      child.kill(signal)
      const r = await done
      child.stdin.destroy()
      assert.equal(r.code, code, r.stderr)
      assert.equal(readFileSync(target, 'utf8'), 'the previous output\n')
      assert.deepEqual(readdirSync(sub), ['out.jsonl'])
    })
  }

  test('SIGINT while a large generated file is edited in place: exit 130, the file byte for byte', async () => {
    const sub = join(dir, 'sig-file')
    mkdirSync(sub)
    const path = join(sub, 'data.jsonl')
    const line = `${JSON.stringify(toolRequest(4, 2000))}\n`
    const stream = createWriteStream(path)
    for (let i = 0; i < 40; i++) stream.write(line.repeat(100))
    await new Promise((r) => stream.end(r))
    const size = statSync(path).size
    assert.ok(size > 30 << 20)
    const { child, done } = spawnCli(['edit', path, '--jsonl', '-o', path, ...TIGHT])
    await tempGrows(sub, 1 << 20, child)
    child.kill('SIGINT')
    const r = await done
    assert.equal(r.code, 130, r.stderr)
    assert.equal(statSync(path).size, size)
    assert.equal(readFileSync(path, 'utf8').slice(0, line.length), line)
    assert.deepEqual(readdirSync(sub), ['data.jsonl'])
  })
})

describe('-o in place keeps what the target is', { concurrency: 1 }, () => {
  test('a 0600 file stays 0600 (and 0640 stays 0640); a new file gets 0666 minus the umask', async () => {
    for (const mode of [0o600, 0o640, 0o604]) {
      const path = put(`mode-${mode.toString(8)}.json`, toolRequest(3))
      chmodSync(path, mode)
      const r = await cli(['edit', path, '-o', path, ...TIGHT, '--report', 'none'])
      assert.equal(r.code, 0, r.stderr)
      assert.equal(statSync(path).mode & 0o7777, mode)
      assert.equal(JSON.parse(readFileSync(path, 'utf8')).messages[2].content, '[cleared]')
    }
    put('umask-src.json', toolRequest(3))
    const r = await cli(['edit', 'umask-src.json', '-o', 'umask-new.json'], { shell: 'umask 077' })
    assert.equal(r.code, 0, r.stderr)
    assert.equal(statSync(join(dir, 'umask-new.json')).mode & 0o777, 0o600)
    const r2 = await cli(['edit', 'umask-src.json', '-o', 'umask-new2.json'], { shell: 'umask 022' })
    assert.equal(r2.code, 0, r2.stderr)
    assert.equal(statSync(join(dir, 'umask-new2.json')).mode & 0o777, 0o644)
    assert.deepEqual(temps(), [])
  })

  test('the owner and group are kept (as root, for a file owned by someone else)', async (t) => {
    const path = put('owned.json', toolRequest(3))
    const root = process.getuid?.() === 0
    if (root) chownSync(path, 1234, 2345)
    else t.diagnostic('not root: checks that the owner (this user) is kept')
    const { uid, gid } = statSync(path)
    const r = await cli(['edit', path, '-o', path, ...TIGHT])
    assert.equal(r.code, 0, r.stderr)
    const st = statSync(path)
    assert.deepEqual([st.uid, st.gid], [uid, gid])
    if (root) assert.deepEqual([st.uid, st.gid], [1234, 2345])
  })

  test('a symbolic link (relative, to a link, into another directory) stays a link; its target is rewritten', async () => {
    const real = join(dir, 'real')
    mkdirSync(real)
    const target = join(real, 'conversation.json')
    writeFileSync(target, JSON.stringify(toolRequest(3)))
    chmodSync(target, 0o600)
    symlinkSync('real/conversation.json', join(dir, 'link1.json'))
    symlinkSync('link1.json', join(dir, 'link2.json'))
    const r = await cli(['edit', 'link2.json', '-o', 'link2.json', ...TIGHT])
    assert.equal(r.code, 0, r.stderr)
    assert.ok(lstatSync(join(dir, 'link2.json')).isSymbolicLink())
    assert.ok(lstatSync(join(dir, 'link1.json')).isSymbolicLink())
    assert.equal(readlinkSync(join(dir, 'link2.json')), 'link1.json')
    assert.equal(readlinkSync(join(dir, 'link1.json')), 'real/conversation.json')
    assert.equal(JSON.parse(readFileSync(target, 'utf8')).messages[2].content, '[cleared]')
    assert.equal(statSync(target).mode & 0o777, 0o600)
    assert.deepEqual(temps(), [])
    assert.deepEqual(temps(real), [])
    // A dangling link: its target is created, the link stays.
    symlinkSync('real/created.json', join(dir, 'dangling.json'))
    const r2 = await cli(['edit', 'link2.json', '-o', 'dangling.json'])
    assert.equal(r2.code, 0, r2.stderr)
    assert.ok(lstatSync(join(dir, 'dangling.json')).isSymbolicLink())
    assert.deepEqual(JSON.parse(readFileSync(join(real, 'created.json'), 'utf8')), JSON.parse(readFileSync(target, 'utf8')))
  })

  test('character devices are written, not replaced: -o /dev/stdout reaches stdout, -o /dev/null discards', async () => {
    put('chr.json', toolRequest(3))
    const r = await cli(['edit', 'chr.json', '-o', '/dev/stdout', ...TIGHT, '--report', 'none'])
    assert.equal(r.code, 0, r.stderr)
    assert.equal(JSON.parse(r.stdout).messages[2].content, '[cleared]')
    const n = await cli(['edit', 'chr.json', '-o', '/dev/null', ...TIGHT])
    assert.equal(n.code, 0, n.stderr)
    assert.ok(lstatSync('/dev/null').isCharacterDevice())
    put('chr.jsonl', `${JSON.stringify(toolRequest(3))}\n`)
    const j = await cli(['edit', 'chr.jsonl', '--jsonl', '-o', '/dev/stdout', ...TIGHT, '--report', 'none'])
    assert.equal(j.code, 0, j.stderr)
    assert.equal(j.stdout.split('\n').length, 2, 'one line and the final newline')
    assert.equal(JSON.parse(j.stdout).messages[2].content, '[cleared]')
    assert.deepEqual(temps(), [])
  })

  test('a FIFO is written directly (a reader gets the output) and stays a FIFO', async () => {
    const fifo = join(dir, 'pipe.fifo')
    const mk = spawnSync('mkfifo', [fifo], { encoding: 'utf8' })
    assert.equal(mk.status, 0, `mkfifo: ${mk.stderr ?? mk.error}`)
    put('fifo-src.json', toolRequest(3))
    const reader = spawn('cat', [fifo])
    let got = ''
    reader.stdout.setEncoding('utf8').on('data', (d) => (got += d))
    const readerDone = new Promise((r) => reader.on('close', r))
    const r = await cli(['edit', 'fifo-src.json', '-o', fifo, ...TIGHT])
    // Had the command failed before opening the FIFO, the reader would wait for a writer for ever.
    // (ENXIO: the reader has just gone by itself.)
    if (reader.exitCode === null) {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK))
      } catch (e) {
        if (e.code !== 'ENXIO') throw e
      }
    }
    await readerDone
    assert.equal(r.code, 0, r.stderr)
    assert.equal(JSON.parse(got).messages[2].content, '[cleared]')
    assert.ok(lstatSync(fifo).isFIFO())
    assert.deepEqual(temps(), [])
  })

  test('a directory as -o is refused (exit 1); a file with two hard links: the other name keeps its content, and a note says so', async () => {
    put('d-src.json', toolRequest(3))
    mkdirSync(join(dir, 'a-dir'))
    const r = await cli(['edit', 'd-src.json', '-o', 'a-dir'])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /cannot write a-dir: is a directory/)
    const path = put('hard.json', toolRequest(3))
    linkSync(path, join(dir, 'hard-other.json'))
    const r2 = await cli(['edit', 'hard.json', '-o', 'hard.json', ...TIGHT])
    assert.equal(r2.code, 0, r2.stderr)
    assert.match(r2.stderr, /note: hard\.json had 2 hard links; the other names keep the old content/)
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'hard-other.json'), 'utf8')), toolRequest(3))
  })
})

describe('two commands writing the same target at once', { concurrency: 1 }, () => {
  test('the result is one complete output, never a mix; temporary names never collide', async () => {
    // Two option sets, two different outputs of a few MB each, so the writes overlap.
    const src = put('shared-src.json', toolRequest(400, 6000))
    const expected = await Promise.all([cli(['edit', src, '--report', 'none']), cli(['edit', src, ...TIGHT, '--report', 'none'])])
    assert.notEqual(expected[0].stdout, expected[1].stdout)
    const target = join(dir, 'shared.json')
    for (let round = 0; round < 4; round++) {
      writeFileSync(target, 'old')
      const [a, b] = await Promise.all([cli(['edit', src, '-o', target, '--report', 'none']), cli(['edit', src, ...TIGHT, '-o', target, '--report', 'none'])])
      assert.equal(a.code, 0, a.stderr)
      assert.equal(b.code, 0, b.stderr)
      const text = readFileSync(target, 'utf8')
      assert.ok(text === expected[0].stdout || text === expected[1].stdout, `round ${round}: the target is one of the two outputs`)
      assert.deepEqual(temps(), [])
    }
  })

  test('--jsonl: two runs writing the input in place at once leave one complete output', async () => {
    const lines = jsonl(300, () => toolRequest(4, 1500))
    const path = put('shared.jsonl', lines)
    const expected = await Promise.all([cli(['edit', path, '--jsonl', '--report', 'none']), cli(['edit', path, '--jsonl', ...TIGHT, '--report', 'none'])])
    writeFileSync(path, lines)
    const [a, b] = await Promise.all([
      cli(['edit', path, '--jsonl', '-o', path, '--report', 'none']),
      cli(['edit', path, '--jsonl', ...TIGHT, '-o', path, '--report', 'none']),
    ])
    assert.equal(a.code, 0, a.stderr)
    assert.equal(b.code, 0, b.stderr)
    const text = readFileSync(path, 'utf8')
    assert.ok(text === expected[0].stdout || text === expected[1].stdout)
    assert.deepEqual(temps(), [])
  })
})

describe('stdout', { concurrency: 1 }, () => {
  test('a reader that goes away (| head) ends the run quietly with 0; a full stdout is exit 1 (above)', async () => {
    put(
      'head.jsonl',
      jsonl(2000, (i) => toolRequest(2, 500 + i)),
    )
    const { child, done } = spawnCli(['edit', 'head.jsonl', '--jsonl', '--report', 'none'])
    child.stdout.once('data', () => child.stdout.destroy())
    const r = await done
    assert.equal(r.code, 0, r.stderr)
    assert.equal(r.stderr, '')
  })
})

describe('failures before the output is complete leave nothing behind', { concurrency: 1 }, () => {
  test('a bad line in the middle of --jsonl -o in place: exit 2 naming the line, the file unchanged', async () => {
    const good = JSON.stringify(toolRequest(2))
    const path = put('midbad.jsonl', `${good}\n${good}\n{"messages": [}\n${good}\n`)
    const before = readFileSync(path)
    const r = await cli(['edit', path, '--jsonl', '-o', path, ...TIGHT])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /midbad\.jsonl:3:15: invalid JSON/)
    assert.ok(readFileSync(path).equals(before))
    assert.deepEqual(temps(), [])
  })
})
