// `npm run test:js` (part of `npm test`): every __test__/*.spec.mjs, two files at a time, longest
// first (scripts/spec-order.mjs). Arguments: flags for `node --test` (`--test-name-pattern=…`),
// or spec files to run instead of all of them.
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runSpecs } from './spec-order.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const flags = args.filter((a) => a.startsWith('-'))
const given = args.filter((a) => !a.startsWith('-'))
const specs = given.length
  ? given
  : readdirSync(join(root, '__test__'))
      .filter((f) => f.endsWith('.spec.mjs'))
      .map((f) => join('__test__', f))
process.exit(runSpecs(specs, { cwd: root, flags }))
