// `prestart` / `pretest`: builds the addon and the TypeScript (`npm run build`) when a fresh clone
// has neither yet, so `npm ci && npm start` and `npm ci && npm test` work on a new machine. After a
// change to the sources, run `npm run build` yourself: this only checks that a build exists.
import { execSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
let built = existsSync(join(root, 'dist', 'index.js'))
if (built) {
  const { __napiBindingTarget } = await import('../index.js')
  built = __napiBindingTarget === 'native'
}
if (!built) {
  console.error('context-editor: no build yet; running `npm run build` (Rust release build and tsc, about a minute)')
  execSync('npm run build', { cwd: root, stdio: 'inherit' })
}
