// The order in which the suites give their spec files to `node --test`. It starts them in the
// order given, two at a time (`--test-concurrency=2`), so a long spec given late runs alone at the
// end while the other core idles: in alphabetical order the two tokenizer specs (20-40 s each)
// came last. The longest specs go first, longest first (measured each alone on the 2-core
// machine CI runs on); the rest follow alphabetically. Only the suites' time depends on this
// list: a spec that is not in it still runs, and a name that no longer exists is ignored.
// `runSpecs` is how both suites run theirs.
import { spawnSync } from 'node:child_process'

/** The longest spec files, longest first. */
const LONGEST = [
  // seconds alone, npm test / test:wasi (the WebAssembly build)
  'sync-loop-memory.spec.mjs', // 26 / 26
  'object-prototype-pollution.spec.mjs', // 18 / 29
  'tokenizer-families.spec.mjs', // 26 / 24
  'tokenizer-templates.spec.mjs', // 6 / 23
  'columnar-red-team-lengths.spec.mjs', // 13 / 21
  'cli-input-limits.spec.mjs', // 15
  'bad-input-odd.spec.mjs', // 2 / 14
  'summarization-lengths-first.spec.mjs', // 5 / 13
  'cli-crash-consistency.spec.mjs', // 12
  'cli-library-agreement.spec.mjs', // 11
  'soak.spec.mjs', // 3 / 10
  'cli-hostile-input.spec.mjs', // 10
  'sessions.spec.mjs', // 3 / 10
  'summarization-agent-long-run.spec.mjs', // 9
  'columnar-red-team.spec.mjs', // 5 / 9
  'sessions-history-changes.spec.mjs', // 3 / 8
  'cli-output-targets.spec.mjs', // 8
  'public-api.spec.mjs', // 8
  'cli-keeps-every-field.spec.mjs', // 7
  'tokenizer-files.spec.mjs', // 3 / 7
  'summarization-cutoff-property.spec.mjs', // 7
  'size-check.spec.mjs', // 7
  'parity.spec.mjs', // 6
  'docs-examples.spec.mjs', // 6
  'columnar-wire.spec.mjs', // 3 / 6
]

/** `files` (paths ending in a spec file's name) in the order to run them. */
export function specOrder(files) {
  const rank = (f) => {
    const k = LONGEST.indexOf(f.split(/[\\/]/).pop())
    return k < 0 ? LONGEST.length : k
  }
  return [...files].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
}

/**
 * Runs `specs` (paths from `cwd`) with `node --test`, two files at a time, in `specOrder`, with the
 * spec reporter and `flags` for `node --test`; returns its exit status.
 */
export function runSpecs(specs, { cwd, flags = [] }) {
  const args = ['--test', '--test-concurrency=2', '--test-reporter=spec', ...flags, ...specOrder(specs)]
  const { status, error } = spawnSync(process.execPath, args, { cwd, stdio: 'inherit' })
  if (error) throw error
  return status ?? 1
}
