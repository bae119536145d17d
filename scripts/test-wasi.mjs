// `npm run test:wasi`: the JS suite with the WebAssembly build forced (NAPI_RS_FORCE_WASI=error).
// First checks that the WebAssembly build is what loads (`npm run build:platforms wasm32-wasi`),
// so the suite cannot pass on the native addon by mistake. The two packaging specs are left out:
// they install given tarballs and choose the binding themselves (their WebAssembly cases force it).
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

process.env.NAPI_RS_FORCE_WASI = 'error'
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { __napiBindingTarget } = await import('../index.js')
if (__napiBindingTarget !== 'wasm32-wasi') {
  console.error(`expected the wasm32-wasi binding, loaded ${__napiBindingTarget ?? 'none'}: run \`npm run build:platforms wasm32-wasi\``)
  process.exit(1)
}
const own = new Set(['packaging.spec.mjs', 'xpert-tarball.spec.mjs'])
const specs = readdirSync(join(root, '__test__'))
  .filter((f) => f.endsWith('.spec.mjs') && !own.has(f))
  .map((f) => join('__test__', f))
console.log(`test:wasi: ${specs.length} spec files on the wasm32-wasi binding`)
const { status } = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...specs], { cwd: root, stdio: 'inherit' })
process.exit(status ?? 1)
