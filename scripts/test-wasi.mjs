// `npm run test:wasi`: JS specs with the WebAssembly build forced (NAPI_RS_FORCE_WASI=error).
// First checks that the WebAssembly build is what loads (`npm run build:platforms wasm32-wasi`),
// so the specs cannot pass on the native addon by mistake.
//
// By default (CI) the specs where the WebAssembly build can differ from the native one: every call
// of the binding and its argument checks (strings cross through emnapi, whose conversion differs),
// the columns and packed-plan wires, counting with every tokenizer (tiktoken, Hugging Face files,
// chat templates) compiled to wasm32, the async calls and their pacing (wasi threads), huge and
// hostile inputs, sessions, worker threads, and one real host of each kind. The rest of the suite
// drives the shim's own JavaScript, which is the same on either build. `--all` runs every spec
// (about 3x as long). A spec may leave out, on this build, what checks only the shim's JavaScript or
// an independent reference (`ON_WASM`, __test__/support/binding.mjs). The two packaging specs are
// always left out: they install given tarballs and choose the binding themselves (their
// WebAssembly cases force it).
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runSpecs } from './spec-order.mjs'

process.env.NAPI_RS_FORCE_WASI = 'error'
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { __napiBindingTarget } = await import('../index.js')
if (__napiBindingTarget !== 'wasm32-wasi') {
  console.error(`expected the wasm32-wasi binding, loaded ${__napiBindingTarget ?? 'none'}: run \`npm run build:platforms wasm32-wasi\``)
  process.exit(1)
}
const own = new Set(['packaging.spec.mjs', 'xpert-tarball.spec.mjs'])
/** The specs that exercise what differs on the WebAssembly build (see above). */
const BINDING_SPECS = [
  /^native/,
  /^columnar-/,
  /^count-sessions/,
  /^count-result-lists/,
  /^packed-plan/,
  /^held-context/,
  /^token-differential/,
  /^tokenizer-/,
  /^bad-input/,
  /^huge-lists/,
  /^async-yields/,
  /^editor\.spec/,
  /^sessions/,
  /^strategies\.spec/,
  /^strategies-summarize/,
  /^summarization-lengths-first/,
  /^usage-anchor/,
  /^soak/,
  // Memory in a synchronous loop: emnapi frees what a finalizer frees, on a later turn too.
  /^sync-loop-memory/,
  /^langchain\.spec/,
  /^xpert-host\.spec/,
  /^caller-errors/,
  // The lone-surrogate check takes another path where no native check is loaded (V8's, from the
  // first unit past U+00FF).
  /^lone-surrogate/,
  /^revoked-proxies/,
  /^object-prototype-pollution/,
]
const all = process.argv.includes('--all')
const specs = readdirSync(join(root, '__test__'))
  .filter((f) => f.endsWith('.spec.mjs') && !own.has(f) && (all || BINDING_SPECS.some((r) => r.test(f))))
  .map((f) => join('__test__', f))
console.log(`test:wasi: ${specs.length} spec files on the wasm32-wasi binding`)
process.exit(runSpecs(specs, { cwd: root }))
