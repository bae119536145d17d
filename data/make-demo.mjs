#!/usr/bin/env node
// Generates data/demo-transcript.json: a long coding-agent session (OpenAI chat-completions request)
// with many large tool results. Seeded, so the output is the same on every run:
//   node data/make-demo.mjs            writes data/demo-transcript.json
//   node data/make-demo.mjs --check    exits 1 if the committed file differs

import { readFileSync, writeFileSync } from 'node:fs'

const SEED = 20261122

function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const rand = mulberry32(SEED)
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1))
const pick = (xs) => xs[Math.floor(rand() * xs.length)]
const cap = (s) => s[0].toUpperCase() + s.slice(1)

const NOUNS = [
  'bucket',
  'token',
  'request',
  'limit',
  'window',
  'client',
  'route',
  'quota',
  'burst',
  'clock',
  'entry',
  'key',
  'store',
  'policy',
  'header',
  'retry',
  'lease',
  'shard',
  'counter',
  'config',
]
const VERBS = [
  'get',
  'refill',
  'consume',
  'reset',
  'resolve',
  'load',
  'check',
  'apply',
  'record',
  'compute',
  'update',
  'flush',
  'parse',
  'acquire',
  'release',
  'schedule',
]
const TYPES = ['number', 'string', 'boolean', 'RateLimitConfig', 'BucketState', 'Request', 'Clock', 'Store<BucketState>', 'Promise<void>', 'LimitDecision']
const ident = () => pick(VERBS) + cap(pick(NOUNS)) + (rand() < 0.3 ? cap(pick(NOUNS)) : '')
const field = () => pick(NOUNS) + (rand() < 0.4 ? cap(pick(NOUNS)) : '')

function statement(depth) {
  const r = rand()
  const ind = '  '.repeat(depth)
  if (r < 0.25) return `${ind}const ${field()} = ${pick(['this.', 'state.', 'config.', ''])}${field()}${pick([' ?? 0', '', ' * 1000', ' - now', '.length'])}`
  if (r < 0.4)
    return `${ind}if (${field()} ${pick(['>', '<=', '===', '!=='])} ${pick(['0', 'limit', 'undefined', 'this.capacity', 'now'])}) {\n${statement(depth + 1)}\n${ind}}`
  if (r < 0.55) return `${ind}${pick(['await ', ''])}this.${ident()}(${field()}${rand() < 0.5 ? `, ${field()}` : ''})`
  if (r < 0.65)
    return `${ind}// ${pick(['NOTE', 'TODO', 'FIXME', 'XXX'])}: ${pick(['the clock can go backwards on VM migration', 'refill must be monotonic', 'keep this in sync with gateway/README.md', 'see incident 2291', 'called on every request, keep it cheap', 'burst is capped by capacity'])}`
  if (r < 0.75) return `${ind}logger.${pick(['debug', 'info', 'warn'])}('${pick(VERBS)} ${pick(NOUNS)}', { ${field()}, ${field()} })`
  if (r < 0.85) return `${ind}${field()} = Math.${pick(['min', 'max'])}(${field()}, ${field()} + ${int(1, 64)})`
  return `${ind}return ${pick(['decision', 'state', 'true', 'false', 'undefined', `{ allowed: ${field()} > 0, remaining: ${field()} }`])}`
}

function tsFile(path, blocks) {
  const out = [
    `// ${path}`,
    `import { ${cap(field())}, ${cap(field())} } from '${pick(['../core', './types', '@acme/shared', './clock'])}'`,
    `import { logger } from '@acme/log'`,
    '',
  ]
  for (let b = 0; b < blocks; b++) {
    if (rand() < 0.25) {
      out.push(`export interface ${cap(field())}${cap(pick(NOUNS))} {`)
      for (let k = int(3, 8); k > 0; k--) out.push(`  ${field()}${rand() < 0.3 ? '?' : ''}: ${pick(TYPES)}`)
      out.push('}', '')
      continue
    }
    out.push('/**', ` * ${cap(pick(VERBS))}s the ${pick(NOUNS)} ${pick(['for one request', 'of a client', 'after a refill', 'under the global lock'])}.`, ' */')
    out.push(`export ${rand() < 0.4 ? 'async ' : ''}function ${ident()}(${field()}: ${pick(TYPES)}, ${field()}: ${pick(TYPES)}): ${pick(TYPES)} {`)
    for (let k = int(4, 14); k > 0; k--) out.push(statement(1))
    out.push('}', '')
  }
  return out.join('\n')
}

function testLog(total, failing) {
  const out = [`> @acme/gateway@3.14.0 test`, `> vitest run --reporter=verbose`, '', ` RUN  v1.6.0 /repo/packages/gateway`, '']
  for (let k = 0; k < total; k++) {
    const fail = k < failing.length
    const name = fail
      ? failing[k]
      : `${pick(VERBS)}s the ${pick(NOUNS)} ${pick(['when the window rolls over', 'per client', 'with burst', 'after reset', 'for anonymous requests', 'under load'])}`
    out.push(` ${fail ? '×' : '✓'} src/${pick(['limiter', 'bucket', 'policy', 'store'])}.test.ts > ${cap(pick(NOUNS))} > ${name} ${int(1, 900)}ms`)
  }
  for (const f of failing) {
    out.push('', `⎯⎯⎯⎯⎯⎯ Failed Tests ${failing.length} ⎯⎯⎯⎯⎯⎯⎯`, '', ` FAIL  src/limiter.test.ts > TokenBucket > ${f}`)
    out.push(`AssertionError: expected ${int(90, 99)} to be ${100} // Object.is equality`, '', '- Expected', '+ Received', '', '- 100', `+ ${int(90, 99)}`, '')
    for (let k = int(6, 12); k > 0; k--)
      out.push(` ❯ ${pick(['src/limiter.ts', 'src/bucket.ts', 'node_modules/vitest/dist/runner.js', 'src/clock.ts'])}:${int(10, 400)}:${int(3, 40)}`)
  }
  out.push(
    '',
    ` Test Files  ${failing.length ? '1 failed | ' : ''}${int(8, 14)} passed`,
    `      Tests  ${failing.length ? `${failing.length} failed | ` : ''}${total - failing.length} passed (${total})`,
    `   Duration  ${(rand() * 20 + 3).toFixed(2)}s`,
  )
  return out.join('\n')
}

function grepOutput(pattern, hits) {
  const out = []
  for (let k = 0; k < hits; k++)
    out.push(`packages/${pick(['gateway', 'shared', 'billing', 'auth'])}/src/${field()}.ts:${int(3, 480)}:${statement(1).split('\n')[0]} // ${pattern}`)
  return out.join('\n')
}

function listing(dir) {
  const out = []
  for (let k = int(12, 30); k > 0; k--)
    out.push(
      `${rand() < 0.2 ? 'd' : '-'}rw-r--r--  ${String(int(200, 30000)).padStart(6)}  ${dir}/${field()}${rand() < 0.2 ? '' : pick(['.ts', '.test.ts', '.json', '.md'])}`,
    )
  return out.join('\n')
}

function logs(n) {
  const out = []
  let t = Date.UTC(2026, 10, 20, 9, 30)
  for (let k = 0; k < n; k++) {
    t += int(1, 900)
    const status = rand() < 0.08 ? 429 : 200
    out.push(
      `${new Date(t).toISOString()} ${status === 429 ? 'WARN' : 'INFO'} gateway req=${int(0, 1e9).toString(16)} client=c${int(1, 40)} route=/v1/${pick(NOUNS)}s status=${status} tokens=${int(0, 100)} refill_ms=${int(-40, 120)}`,
    )
  }
  return out.join('\n')
}

const TOOLS = [
  ['read_file', 'Read a file of the repository.', { path: { type: 'string' } }],
  ['list_dir', 'List a directory.', { path: { type: 'string' } }],
  ['grep', 'Search the repository with a regular expression.', { pattern: { type: 'string' }, path: { type: 'string' } }],
  ['run_command', 'Run a shell command in the repository and return its output.', { command: { type: 'string' }, timeout_s: { type: 'integer' } }],
  ['write_file', 'Write a whole file.', { path: { type: 'string' }, content: { type: 'string' } }],
  ['edit_file', 'Replace one exact string in a file.', { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } }],
  ['todo_write', 'Update the task list.', { todos: { type: 'array', items: { type: 'string' } } }],
].map(([name, description, properties]) => ({
  type: 'function',
  function: { name, description, parameters: { type: 'object', properties, required: Object.keys(properties) } },
}))

const SYSTEM = `You are a senior software engineer working in the repository at /repo (a TypeScript monorepo: packages/gateway, packages/shared, packages/billing, packages/auth).
Work autonomously: read the code before changing it, make small focused edits, and run the tests after every change.
Tools: read_file, list_dir, grep, run_command, write_file, edit_file, todo_write. Prefer grep over reading whole directories.
Never push, never rewrite history, never disable a test to make it pass. When a test is flaky, find the cause.
Report at the end: what was wrong, what you changed, how you verified it.
${'Coding standards: strict TypeScript, no any, no default exports, errors as values at module boundaries, logger instead of console. '.repeat(4)}`

const messages = [{ role: 'system', content: SYSTEM }]
let callNo = 0
const callId = () => `call_${(++callNo).toString(36).padStart(4, '0')}${Math.floor(rand() * 1e8).toString(36)}`

function step(text, calls) {
  const tool_calls = calls.map(([name, args]) => ({ id: callId(), type: 'function', function: { name, arguments: JSON.stringify(args) } }))
  messages.push({ role: 'assistant', content: text, tool_calls })
  calls.forEach(([, , result], k) => messages.push({ role: 'tool', tool_call_id: tool_calls[k].id, content: result }))
}
const say = (text) => messages.push({ role: 'assistant', content: text })
const user = (text) => messages.push({ role: 'user', content: text })

const read = (f) => ['read_file', { path: `packages/gateway/src/${f}` }, tsFile(`packages/gateway/src/${f}`, int(22, 40))]

user(
  "The gateway rate limiter drops requests under load (we see 429s well below the configured limit) and `limiter.test.ts` is flaky in CI. Find the cause, fix it, and run the whole gateway test suite. Don't touch the billing package.",
)
step("I'll start by getting an overview of the gateway package.", [
  ['list_dir', { path: 'packages/gateway/src' }, listing('packages/gateway/src')],
  ['todo_write', { todos: ['reproduce the flaky test', 'find the cause of early 429s', 'fix', 'run the full suite'] }, 'ok: 4 todos'],
])
step('Let me run the limiter tests a few times to reproduce the flakiness.', [
  [
    'run_command',
    { command: 'cd packages/gateway && for i in 1 2 3; do npx vitest run src/limiter.test.ts; done', timeout_s: 300 },
    testLog(36, ['refills tokens after the window', 'allows a burst up to capacity']),
  ],
])
step('Two failures, both about refills. Reading the limiter and the bucket.', [read('limiter.ts'), read('bucket.ts')])
step(null, [['grep', { pattern: 'Date\\.now\\(\\)|performance\\.now', path: 'packages' }, grepOutput('Date.now()', int(40, 80))]])
step('The bucket mixes `Date.now()` and the injected clock. Let me look at the clock and the policy.', [read('clock.ts'), read('policy.ts')])
for (const f of ['store.ts', 'redis-store.ts', 'middleware.ts']) step(`Checking how ${f} reads the time.`, [read(f)])
step('Let me see the production logs around the 429s the issue mentions.', [
  ['run_command', { command: 'kubectl logs deploy/gateway --since=30m | grep -E "status=(200|429)" | head -400', timeout_s: 60 }, logs(int(420, 520))],
])
say(
  "The logs show negative `refill_ms` values right before most 429s: the refill is computed from a wall-clock delta that can go backwards, and a negative refill removes tokens. I'll confirm by grepping for every refill computation.",
)
step(null, [['grep', { pattern: 'refill', path: 'packages/gateway' }, grepOutput('refill', int(50, 90))]])
for (const f of ['config.ts', 'headers.ts', 'metrics.ts']) step(`Reading ${f} for anything else that touches the bucket state.`, [read(f)])
step('Now the tests themselves.', [['read_file', { path: 'packages/gateway/src/limiter.test.ts' }, tsFile('packages/gateway/src/limiter.test.ts', 26)]])
const fixed = tsFile('packages/gateway/src/bucket.ts', 18)
step('Rewriting the bucket so the refill uses the monotonic clock and clamps negative deltas to zero.', [
  ['write_file', { path: 'packages/gateway/src/bucket.ts', content: fixed }, 'wrote 1 file'],
])
step('Running the limiter tests again.', [
  ['run_command', { command: 'cd packages/gateway && npx vitest run src/limiter.test.ts', timeout_s: 300 }, testLog(36, ['allows a burst up to capacity'])],
])
step('One failure left: the burst test. Reading the store, which caches bucket state.', [read('store.ts'), read('redis-store.ts')])
step('The Redis store serializes `lastRefill` in seconds but the bucket expects milliseconds.', [
  [
    'edit_file',
    { path: 'packages/gateway/src/redis-store.ts', old: 'lastRefill: Math.floor(state.lastRefill / 1000)', new: 'lastRefill: state.lastRefill' },
    'replaced 1 occurrence',
  ],
])
step(null, [
  [
    'run_command',
    { command: 'cd packages/gateway && for i in $(seq 1 20); do npx vitest run src/limiter.test.ts || exit 1; done', timeout_s: 900 },
    testLog(36, []) + '\n(20 runs, all passed)',
  ],
])
user('Nice. Can you also check that the billing package does not depend on the old seconds format? Read only, no changes there.')
step('Searching billing for `lastRefill`.', [['grep', { pattern: 'lastRefill', path: 'packages/billing' }, grepOutput('lastRefill', int(10, 20))]])
for (let k = 0; k < 4; k++) {
  const f = `${field()}.ts`
  step(`Reading billing/${f}.`, [['read_file', { path: `packages/billing/src/${f}` }, tsFile(`packages/billing/src/${f}`, int(12, 22))]])
}
step('Looking for the same wall-clock pattern elsewhere.', [
  ['grep', { pattern: 'Date\\.now\\(\\) -', path: 'packages/shared packages/auth' }, grepOutput('Date.now() -', int(30, 60))],
])
for (const f of ['shared/src/cache.ts', 'shared/src/backoff.ts', 'auth/src/session.ts', 'auth/src/lockout.ts', 'shared/src/ttl-map.ts']) {
  step(`Reading ${f}: it computes elapsed time too.`, [['read_file', { path: `packages/${f}` }, tsFile(`packages/${f}`, int(14, 26))]])
}
say(
  '`backoff.ts` and `lockout.ts` have the same pattern but only use the delta for logging; `ttl-map.ts` uses it for expiry, where a negative delta only delays an expiry. Worth a follow-up issue, not part of this fix.',
)
say(
  'Billing reads `lastRefill` only through `getBucketState()`, which now returns milliseconds consistently; nothing in billing depends on the seconds format.',
)
step('Running the whole gateway suite.', [['run_command', { command: 'cd packages/gateway && npx vitest run', timeout_s: 900 }, testLog(140, [])]])
for (let k = 0; k < 3; k++) {
  step('Double-checking the middleware integration under load.', [
    [
      'run_command',
      { command: `cd packages/gateway && npx vitest run src/middleware.load.test.ts --seed ${int(1, 9999)}`, timeout_s: 600 },
      testLog(48, []) + '\n' + logs(int(60, 120)),
    ],
  ])
}
step('Updating the task list.', [
  ['todo_write', { todos: ['[x] reproduce the flaky test', '[x] find the cause of early 429s', '[x] fix', '[x] run the full suite'] }, 'ok: 4 todos'],
])
user('Great. Last thing: write a short summary for the PR description.')
say(
  '**Rate limiter: early 429s and flaky `limiter.test.ts`**\n\nCause: the token bucket computed refills from `Date.now()` deltas while the rest of the limiter used the injected monotonic clock. After a wall-clock step backwards (NTP, VM migration) the delta went negative and the refill *removed* tokens, so clients hit 429 below their limit; the same race made the refill tests flaky. Separately, the Redis store persisted `lastRefill` in seconds while the bucket expects milliseconds, which broke the burst test after a round-trip.\n\nChanges: `bucket.ts` uses the injected clock and clamps negative deltas to 0; `redis-store.ts` stores milliseconds. Billing reads bucket state through `getBucketState()` and is unaffected.\n\nVerified: `limiter.test.ts` 20× in a row, the full gateway suite (140 tests) and 3 seeded load runs of the middleware.',
)

const request = { model: 'gpt-4o', temperature: 0, tools: TOOLS, tool_choice: 'auto', messages }
const text = `${JSON.stringify(request, null, 2)}\n`
const target = new URL('./demo-transcript.json', import.meta.url)
if (process.argv.includes('--check')) {
  const same = readFileSync(target, 'utf8') === text
  if (!same) console.error('data/demo-transcript.json is stale: run node data/make-demo.mjs')
  process.exit(same ? 0 : 1)
}
writeFileSync(target, text)
console.error(`wrote ${target.pathname}: ${messages.length} messages, ${Math.round(text.length / 1024)} KB`)
