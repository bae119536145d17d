// Every code block of README.md and docs/*.md runs, or is checked, here:
// - ```js / ```ts blocks run as ES modules (TypeScript transpiled first) against the built package,
//   imported by its name. Names an example uses without defining them (`history`, `systemPrompt`,
//   `tools`, `readFile`, `model`, `myModel`, `ContextEditor`) come from support/doc-prelude.mjs.
// - ```sh blocks: `context-editor …` lines run (through bash, pipes and redirections included) in a
//   folder holding the files they name, made from the bundled sample, and must exit 0; `npm run X`
//   names a script of package.json; other commands name files or packages that exist. Developer
//   commands that build or fuzz are not run here (CI runs them itself).
// - ```json blocks parse; those of docs/edits.md run in strategies.spec.mjs.
// - ```text blocks and blocks without a language are output, not code.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import ts from 'typescript'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const PRELUDE = ['history', 'systemPrompt', 'tools', 'readFile', 'model', 'myModel']
const RUNNABLE = new Set(['js', 'mjs', 'ts'])
const KNOWN = new Set([...RUNNABLE, 'sh', 'json', 'text', ''])

function blocks() {
  const files = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ]
  const out = []
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const m of text.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
      out.push({ file, line: text.slice(0, m.index).split('\n').length, lang: m[1], code: m[2] })
    }
  }
  return out
}

const all = blocks()

/** The module to run: TypeScript transpiled, the prelude imported for the names the block uses but does not define. */
function moduleSource({ lang, code }) {
  const js = lang === 'ts' ? ts.transpileModule(code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText : code
  const declared = (name) => new RegExp(`(?:const|let|var|function|class)\\s+${name}\\b|import\\s*\\{[^}]*\\b${name}\\b[^}]*\\}`).test(js)
  const used = (name) => new RegExp(`\\b${name}\\b`).test(js)
  const names = PRELUDE.filter((n) => used(n) && !declared(n))
  const imports = [`import { ${names.join(', ')} } from ${JSON.stringify(pathToFileURL(join(root, '__test__/support/doc-prelude.mjs')).href)}`]
  if (used('ContextEditor') && !declared('ContextEditor')) imports.push(`import { ContextEditor } from 'context-editor'`)
  if (!names.length) imports.shift()
  return `${imports.join('\n')}\n${js}`
}

test('every code block has a language this runner knows', () => {
  for (const b of all) assert.ok(KNOWN.has(b.lang), `${b.file}:${b.line}: \`\`\`${b.lang}`)
  assert.ok(all.filter((b) => RUNNABLE.has(b.lang)).length >= 8)
})

describe('js and ts examples run as written', () => {
  let dir
  before(() => {
    // Inside the package, so that `import … from 'context-editor'` resolves to this package by name.
    dir = join(root, '.tmp', `doc-examples-${process.pid}`)
    mkdirSync(dir, { recursive: true })
    process.env.OPENAI_API_KEY ??= 'sk-doc-example-never-sent'
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  for (const b of all.filter((x) => RUNNABLE.has(x.lang))) {
    test(`${b.file}:${b.line}`, async () => {
      const file = join(dir, `${b.file.replace(/\W/g, '_')}_${b.line}.mjs`)
      writeFileSync(file, moduleSource(b))
      const warn = console.warn
      console.warn = () => {}
      try {
        await import(pathToFileURL(file).href)
      } finally {
        console.warn = warn
      }
    })
  }
})

describe('shell examples', () => {
  let work
  let bin
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'ce-doc-sh-'))
    bin = join(work, '.bin')
    mkdirSync(bin)
    const cli = join(bin, 'context-editor')
    writeFileSync(cli, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, 'bin/context-editor.js'))} "$@"\n`)
    chmodSync(cli, 0o755)
    const request = readFileSync(join(root, 'data/demo-transcript.json'), 'utf8')
    const parsed = JSON.parse(request)
    writeFileSync(join(work, 'request.json'), request)
    writeFileSync(join(work, 'session.json'), JSON.stringify(parsed.messages))
    writeFileSync(join(work, 'sessions.jsonl'), `${JSON.stringify(parsed.messages)}\n${JSON.stringify(parsed.messages.slice(0, 20))}\n`)
    writeFileSync(join(work, 'options.json'), readFileSync(join(root, 'examples/xpert-options.json')))
  })
  after(() => rmSync(work, { recursive: true, force: true }))

  const lines = (code) =>
    code
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter((l) => l && !l.startsWith('#'))

  for (const b of all.filter((x) => x.lang === 'sh')) {
    test(`${b.file}:${b.line}`, () => {
      for (const line of lines(b.code)) {
        const words = line.split(/\s+/)
        const program = words.find((w) => !/^\w+=/.test(w)) ?? ''
        if (/^context-editor\b/.test(line) || /\|\s*context-editor\b/.test(line)) {
          execFileSync('bash', ['-c', line], { cwd: work, env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1' }, stdio: 'pipe' })
        } else if (/^PLUGINS=/.test(line)) {
          assert.equal(line, `PLUGINS=${pkg.name}`, 'the plugin is installed by its package name')
        } else if (program === 'npm') {
          const [, sub, script] = words
          if (sub === 'run') assert.ok(pkg.scripts[script], `${b.file}:${b.line}: npm run ${script}: no such script`)
          else if (sub === 'install') assert.equal(words[2], pkg.name, line)
          else assert.ok(['ci', 'start', 'test'].includes(sub) && (sub === 'ci' || pkg.scripts[sub]), line)
        } else if (program === 'bash' || program === 'node' || program === 'nice' || program.startsWith('scripts/')) {
          const file = words.find((w) => /^(scripts|benchmark)\//.test(w))
          assert.ok(file && existsSync(join(root, file)), `${b.file}:${b.line}: ${line}: names no file of the repository`)
        } else if (program === 'cargo') {
          assert.match(line, /^cargo install cargo-fuzz --locked$/, `${b.file}:${b.line}: an unchecked cargo command: ${line}`)
        } else {
          assert.fail(`${b.file}:${b.line}: a shell line this runner does not know: ${line}`)
        }
      }
    })
  }
})

test('json blocks parse', () => {
  for (const b of all.filter((x) => x.lang === 'json')) {
    assert.doesNotThrow(() => JSON.parse(b.code), `${b.file}:${b.line}`)
  }
})

test('links between the documents point at files that exist', () => {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)]
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
      if (/^[a-z]+:/.test(target)) continue
      assert.ok(existsSync(join(root, dirname(file), target)), `${file}: link to ${target}`)
    }
  }
})
