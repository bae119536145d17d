// `npm run lint`'s size check (scripts/check-sizes.mjs) on a scratch git work tree: files over 600
// lines and TypeScript functions over 80 lines of code fail unless the allow-list names them with a
// reason, and an entry that is no longer needed fails too.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '..', 'scripts', 'check-sizes.mjs')
const scratch = mkdtempSync(join(tmpdir(), 'context-editor-sizes-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

let trees = 0
/** A git work tree holding `files` (path → text); untracked files are checked too. */
function tree(files) {
  const root = join(scratch, `t${trees++}`)
  mkdirSync(root)
  execFileSync('git', ['init', '-q'], { cwd: root })
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

function check(root) {
  const r = spawnSync(process.execPath, [SCRIPT, '--root', root], { encoding: 'utf8' })
  return { code: r.status, stderr: r.stderr }
}

const lines = (n, line = 'x') => `${Array.from({ length: n }, (_, i) => `${line}${i}`).join('\n')}\n`
/** A TypeScript function with `n` lines of code in its body, padded with blank and comment lines. */
const fn = (name, n) => `export function ${name}(): number {\n  let a = 0\n${'  // a comment\n\n'.repeat(50)}${'  a++\n'.repeat(n)}  return a\n}\n`

describe('size check', () => {
  test('files up to 600 lines and functions up to 80 lines of code pass; blank and comment lines do not count', () => {
    const root = tree({ 'src/ok.rs': lines(600, '// '), 'ts/ok.ts': fn('exactly80', 76) })
    assert.deepEqual(check(root), { code: 0, stderr: '' })
  })

  test('a file over 600 lines fails, naming the file, its length and the allow-list', () => {
    const root = tree({ 'crates/core/src/big.rs': lines(601, '// ') })
    const r = check(root)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /^crates\/core\/src\/big\.rs: 601 lines, over 600: .*scripts\/size-allowlist\.txt/)
  })

  test('a TypeScript function over 80 lines of code fails, named with its class', () => {
    const root = tree({ 'ts/a.ts': `export class Planner {\n  run(): void {\n${'    void 0\n'.repeat(80)}  }\n}\n${fn('fine', 70)}` })
    const r = check(root)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /^ts\/a\.ts:2: function Planner\.run has 82 code lines, over 80/)
    assert.doesNotMatch(r.stderr, /fine/)
  })

  test('generated files are not checked', () => {
    const root = tree({ 'ts/generated/options.ts': fn('generated', 200), 'ts/types.d.ts': lines(700, '// ') })
    assert.equal(check(root).code, 0)
  })

  test('an allow-list entry with a reason lets a file or a function through; one without a reason fails', () => {
    const files = { 'ts/big.ts': fn('long', 90) + lines(600, '// ') }
    const allowed = tree({ ...files, 'scripts/size-allowlist.txt': '# comment\nts/big.ts: generated tables\nts/big.ts long: a hot loop\n' })
    assert.deepEqual(check(allowed), { code: 0, stderr: '' })
    const bare = tree({ ...files, 'scripts/size-allowlist.txt': 'ts/big.ts\nts/big.ts long: a hot loop\n' })
    const r = check(bare)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /size-allowlist\.txt:1: entry without a reason/)
  })

  test('an entry that is no longer needed fails, so the list only shrinks', () => {
    const root = tree({ 'ts/small.ts': fn('short', 10), 'scripts/size-allowlist.txt': 'ts/small.ts: was big\nts/small.ts short: was long\n' })
    const r = check(root)
    assert.equal(r.code, 1)
    assert.match(r.stderr, /size-allowlist\.txt:1: "ts\/small\.ts" is within its limit now/)
    assert.match(r.stderr, /size-allowlist\.txt:2: "ts\/small\.ts short" is within its limit now/)
  })
})
