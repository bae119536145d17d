// Types of the summarization entries: a TypeScript consumer type-checks against the built
// declarations (LangChain's option names, `createAgent`'s middleware list, the SDK's
// `IAgentMiddlewareStrategy`), and wrong options are type errors.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const project = fileURLToPath(new URL('./fixtures/summarization/types/tsconfig.json', import.meta.url))

test('a TypeScript consumer of summarizationMiddleware and SummarizationStrategy type-checks', () => {
  try {
    const output = execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' })
    assert.equal(output.trim(), '')
  } catch (e) {
    assert.fail(`tsc reported errors:\n${e.stdout}${e.stderr}`)
  }
})
