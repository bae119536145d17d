// Loads one built addon (a `.node` file, or a WebAssembly package folder) and uses it the way the
// package does: plan an edit, count tokens exactly with an embedded tokenizer (offline), and
// check that bad options fail with their stable code. Prints what it saw; exits 1 on a mismatch.
// Run by scripts/verify-platforms.sh, also under qemu and with other Node builds, so plain CJS.
'use strict'
const path = require('path')
const binding = require(path.resolve(process.argv[2]))
const failures = []
const expect = (what, actual, expected) => {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) failures.push(`${what}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`)
}
const editor = new binding.NativeContextEditor({ trigger: { messages: 2 }, keep: { messages: 0 } })
const plan = editor.plan([
  { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'search', args: '{}' }] },
  { role: 'tool', toolCallId: 'a', content: 'a long tool result' },
])
expect(
  'plan ops',
  plan.ops.map((op) => [op.type, op.index]),
  [['clear_tool_result', 1]],
)
const exact = new binding.NativeContextEditor({ tokenCountMethod: 'model', encoding: 'o200k_base' })
const counted = exact.countTokens([{ role: 'user', content: 'Hello, world! Tokenizers are fun.' }])
expect('o200k_base count', counted.method, 'model')
expect('reference count', binding.__referenceCountTokens(['Hello, world! Tokenizers are fun.'], 'o200k_base'), [9])
let code
try {
  new binding.NativeContextEditor({ trigger: 'soon' })
} catch (e) {
  code = e.code
}
expect('bad option code', code, 'INVALID_OPTIONS')
console.log(
  JSON.stringify({
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    ops: plan.ops.length,
    tokens: counted.total,
    ok: failures.length === 0,
  }),
)
if (failures.length) {
  console.error(failures.join('\n'))
  process.exit(1)
}
