// Types ship for every entry: a TypeScript consumer of ".", "./langchain" and "./xpert" type-checks
// against the built declarations, gets errors for wrong options, and the default export and the
// strategy are assignable to the real SDK's `XpertPlugin` / `IAgentMiddlewareStrategy`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const project = fileURLToPath(new URL('./fixtures/langchain-types/tsconfig.json', import.meta.url))

test('a TypeScript consumer of every entry type-checks (wrong options are type errors)', () => {
  let output = ''
  try {
    output = execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' })
  } catch (e) {
    output = `${e.stdout}${e.stderr}`
    assert.fail(`tsc reported errors:\n${output}`)
  }
  assert.equal(output.trim(), '')
})
