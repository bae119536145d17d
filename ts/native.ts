// The napi-rs binding. `binding.cjs` at the package root is the loader napi-rs generates: it picks
// the `.node` file of this platform (a `context-editor-<platform>` package) or the WebAssembly
// fallback (`context-editor-wasm32-wasi`). It is CommonJS, so it is loaded here with `require`
// inside a `try`, on every Node version and without top-level await: importing this package never
// throws, even where no binary fits (a host that loads plugins at boot would lose every other
// plugin). The first use then throws `NATIVE_BINDING_MISSING`, naming the package to install.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type * as Binding from '../binding.cjs'
import { ContextEditorError } from './errors.js'
import { prototypePolluted } from './wire/fields.js'
import { asNative } from './wasi.js'

export type {
  AppliedEdit,
  ClearedInput,
  ClearedResult,
  ClearToolUsesOptions,
  EditContext,
  EditorOptions,
  EditPlan,
  EditReport,
  EditWarning,
  KeepPolicy,
  Message as WireMessage,
  PackedPlan,
  PlanOp,
  RemovedOrphan,
  SummaryRequest,
  ClearThinkingEdit,
  LastNEdit,
  StripToolCallsEdit,
  StripAndTruncateEdit,
  TrimTurnsEdit,
  TruncateToolResultsEdit,
  SummarizeEdit,
  TokenCountResult,
  ToolCall as WireToolCall,
  TriggerCondition,
  WireColumns,
} from '../binding.cjs'

const require = createRequire(import.meta.url)
const pkg = require('../package.json') as { name: string; version: string }

/** Platforms with a published native package (`npm/<platform>`; a test keeps this list in step). */
export const NATIVE_PLATFORMS = [
  'linux-x64-gnu',
  'linux-arm64-gnu',
  'linux-x64-musl',
  'linux-arm64-musl',
  'darwin-x64',
  'darwin-arm64',
  'win32-x64-gnu',
] as const

let binding: typeof Binding | undefined
let loadError: unknown
try {
  binding = load()
} catch (e) {
  loadError = e
}
// The native side asks this check whether Object.prototype is polluted before it reads a context or
// messages, instead of reading the prototype's keys itself (src/input/polluted.rs). A binding built
// before it lacks the hook and reads them as before.
;(binding as { __setPrototypeCheck?: (check: () => boolean) => void } | undefined)?.__setPrototypeCheck?.(prototypePolluted)

/** The `Array` of the package's load: a caller's later `globalThis.Array = …` does not reach `numberList`. */
const ArrayAtLoad = Array

/** A plain array of `numbers`. */
function numberList(numbers: Float64Array): number[] {
  const out = new ArrayAtLoad<number>(numbers.length)
  for (let i = 0; i < numbers.length; i++) out[i] = numbers[i]
  return out
}

// A count's per-message numbers cross as one Float64Array, made a plain array here (src/numbers.rs):
// napi-rs makes an array two Node-API calls an element.
;(binding as { __setNumberList?: (list: (numbers: Float64Array) => number[]) => void } | undefined)?.__setNumberList?.(numberList)

/**
 * Runs the generated loader. On Windows x64 it looks for a `win32-x64-msvc` package in the official
 * Node (built with MSVC), but the Windows package is built with MinGW (`win32-x64-gnu`, see
 * docs/platforms.md) and loads in either Node: it is tried when the loader finds nothing, unless
 * WebAssembly is required (`NAPI_RS_FORCE_WASI=error` or `NAPI_RS_WASI_FLAVOR`).
 */
function load(): typeof Binding {
  try {
    return asNative(withoutWasiWarning(() => require('../binding.cjs') as typeof Binding))
  } catch (e) {
    const wasiRequired = process.env.NAPI_RS_FORCE_WASI === 'error' || !!process.env.NAPI_RS_WASI_FLAVOR
    if (process.platform !== 'win32' || process.arch !== 'x64' || wasiRequired) throw e
    try {
      return require(`${pkg.name}-win32-x64-gnu`) as typeof Binding
    } catch (gnu) {
      throw new AggregateError([e, gnu], `the generated loader and ${pkg.name}-win32-x64-gnu both failed`)
    }
  }
}

/**
 * Runs `f` without Node's "WASI is an experimental feature" warning, which loading the WebAssembly
 * build prints to stderr in every process (a CLI's output included) and which asks nothing of our
 * users: the fallback is chosen for them. Every other warning goes through.
 */
function withoutWasiWarning<T>(f: () => T): T {
  // oxlint-disable-next-line typescript/unbound-method -- called below with the caller's `this`
  const emitWarning = process.emitWarning
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning?.message
    if (typeof text === 'string' && text.startsWith('WASI is an experimental feature')) return
    return (emitWarning as (...a: unknown[]) => void).call(this, warning, ...rest)
  } as typeof process.emitWarning
  try {
    return f()
  } finally {
    process.emitWarning = emitWarning
  }
}

/** This process's platform as napi-rs names packages: `linux-arm64-musl`, `darwin-x64`, `win32-x64`. */
function platformName(): string {
  const { platform, arch } = process
  return platform === 'linux' ? `${platform}-${arch}-${isMusl() ? 'musl' : 'gnu'}` : `${platform}-${arch}`
}

/** The C library, detected as napi-rs's loader does: /usr/bin/ldd, else the diagnostic report. */
function isMusl(): boolean {
  try {
    return readFileSync('/usr/bin/ldd', 'utf8').includes('musl')
  } catch {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header
    return !header?.glibcVersionRuntime
  }
}

/** Windows has one package for both Node builds (see docs/platforms.md). */
function packageFor(platform: string): string | undefined {
  const name = platform === 'win32-x64' ? 'win32-x64-gnu' : platform
  return (NATIVE_PLATFORMS as readonly string[]).includes(name) ? `${pkg.name}-${name}` : undefined
}

/** The error every use throws when no binding loaded: what is missing, and what to install. */
function missingBinding(): ContextEditorError {
  const platform = platformName()
  const native = packageFor(platform)
  // Both are optional dependencies, installed with the package unless optional dependencies are
  // left out (`--omit=optional`, a lockfile made on another platform) or, for WebAssembly, the Node
  // version is below what its runtime needs.
  const wasi = `\`npm install ${pkg.name}-wasm32-wasi@${pkg.version}\` (Node ^20.19.0 || ^22.13.0 || >=23.5.0; it brings @napi-rs/wasm-runtime)`
  const install = native
    ? `Install \`${native}@${pkg.version}\`, or the WebAssembly build: ${wasi}.`
    : `No native package is published for ${platform}: install the WebAssembly build, ${wasi}.`
  return new ContextEditorError(
    'NATIVE_BINDING_MISSING',
    `${pkg.name} could not load its native binding on ${platform} (Node ${process.version}). ${install} The loader's errors are in \`cause\`.`,
    { cause: loadError },
  )
}

/** The loaded binding; throws `NATIVE_BINDING_MISSING` when none could be loaded. */
export function nativeBinding(): typeof Binding {
  if (binding) return binding
  throw missingBinding()
}

/** Which artifact was loaded: `'native'`, `'wasm32-wasi'`, or `undefined` when none was. */
export const bindingTarget: 'native' | 'wasm32-wasi' | 'wasm32-wasip1' | undefined = binding ? (binding.__napiBindingTarget ?? 'native') : undefined

// Where no binding loaded, the exports are stand-ins that throw the error above when used.
const Missing = class {
  constructor() {
    throw missingBinding()
  }
}

export const NativeContextEditor: typeof Binding.NativeContextEditor =
  binding?.NativeContextEditor ?? (Missing as unknown as typeof Binding.NativeContextEditor)
export type NativeContextEditor = Binding.NativeContextEditor
/**
 * A call context read once and kept native (src/input/context.rs): a conversation's next calls
 * send it instead of the object while their context reads the same (ts/sessions.ts). `undefined`
 * where the binding predates it: the object is sent as before.
 */
export const HeldContext: typeof Binding.HeldContext | undefined = binding
  ? (binding as { HeldContext?: typeof Binding.HeldContext }).HeldContext
  : (Missing as unknown as typeof Binding.HeldContext)
export type HeldContext = Binding.HeldContext
export const PackedReport: typeof Binding.PackedReport = binding?.PackedReport ?? (Missing as unknown as typeof Binding.PackedReport)
export type PackedReport = Binding.PackedReport
/**
 * The kinds of a `PackedPlan`'s operations at run time (`binding.d.cts` declares them as a const
 * enum, which TypeScript inlines); `undefined` where no binding loaded.
 */
export const PackedOpKind = (binding as { PackedOpKind?: Readonly<Record<string, number>> } | undefined)?.PackedOpKind

// The test hooks (`__panicForTests`, `__referenceCountTokens`) are in ts/internal.ts, outside the
// package's entries.

/**
 * Whether a string holds no lone UTF-16 surrogate, checked natively (src/text.rs): V8's own
 * `isWellFormed` walks a two-byte string a code unit at a time, about 7x slower on long text.
 * `undefined` where no binding loaded or the binding predates it (see `isWellFormed` in
 * ts/wire/shapes.ts, which falls back to V8's check).
 */
export const nativeIsWellFormed: ((text: string) => boolean) | undefined =
  // Native builds only: emnapi (WebAssembly) copies a string out one code unit at a time.
  bindingTarget === 'native' && typeof (binding as { __isWellFormed?: unknown } | undefined)?.__isWellFormed === 'function'
    ? (binding as unknown as { __isWellFormed: (text: string) => boolean }).__isWellFormed
    : undefined

/**
 * The defaults declared with the options (crates/core/src/options/spec.rs), by edit type (`editor`
 * for the top-level keys): what the core assumes for an option left out. The shim reads them here
 * instead of keeping copies.
 */
export function optionDefaults(): Binding.OptionDefaults {
  if (!binding) throw missingBinding()
  return binding.optionDefaults()
}
