// Test and benchmark hooks of the native binding (src/hooks.rs). Not part of the package's API: no
// entry of package.json `exports` reaches this module and no public type names them; the tests
// and benchmarks import dist/internal.js by path.
import { nativeBinding } from './native.js'
import { alwaysSendText } from './text-wire.js'
import { sendContextLengths } from './call-context.js'
import { stringEncoder } from './wasi.js'

/**
 * While on, editors made afterwards send every message's text whenever a `summarize` edit may need
 * it, as before lengths first (ts/editor.ts): the differential tests compare both paths.
 */
export function __alwaysSendText(on: boolean): void {
  alwaysSendText(on)
}

/**
 * While off, approx-mode editors send the system prompt's and the tools' texts instead of their
 * lengths (ts/call-context.ts, `lengthsOnly`), as before: the tests compare both. Returns the
 * previous setting.
 */
export function __contextLengths(on: boolean): boolean {
  return sendContextLengths(on)
}

/**
 * The encoder the WebAssembly build reads strings through (ts/wasi.ts, `stringEncoder`): the tests
 * check what it writes on either build.
 */
export const __stringEncoder = stringEncoder

/** At most as many texts as an editor takes messages. */
const MAX_REFERENCE_TEXTS = 10_000_000

/**
 * Panics inside the guard every native entry point uses: the error is `INTERNAL`, the process
 * lives on (native), or the WebAssembly trap becomes the same error (ts/wasi.ts).
 */
export function __panicForTests(): void {
  nativeBinding().__panicForTests()
}

/**
 * The exact-count oracle of the tests and benchmarks: plain tiktoken-rs counts, no cache. napi
 * converts its whole list before Rust sees it, so the length is checked first: a sparse array of
 * length 2**32 - 1 would be allocated whole.
 */
export function __referenceCountTokens(texts: string[], encoding: string): number[] {
  const binding = nativeBinding()
  if (!Array.isArray(texts)) throw Object.assign(new TypeError('texts: expected a list of strings'), { code: 'INVALID_CONTEXT', path: 'texts' })
  if (texts.length > MAX_REFERENCE_TEXTS) {
    throw Object.assign(
      new RangeError(`texts: expected at most ${MAX_REFERENCE_TEXTS.toLocaleString('en-US')} entries, got ${texts.length.toLocaleString('en-US')}`),
      {
        code: 'INVALID_CONTEXT',
        path: 'texts',
      },
    )
  }
  return binding.__referenceCountTokens(texts, encoding)
}

/**
 * The open-model oracle of the tests and benchmarks: the `tokenizers` crate's plain
 * `encode(text, false)` length of each string with the tokenizer loaded from `source` (a path
 * the shim loaded, see ts/tokenizers.ts), one thread, no cache.
 */
export function __referenceCountHf(texts: string[], source: string): number[] {
  const binding = nativeBinding()
  if (!Array.isArray(texts)) throw Object.assign(new TypeError('texts: expected a list of strings'), { code: 'INVALID_CONTEXT', path: 'texts' })
  if (texts.length > MAX_REFERENCE_TEXTS) {
    throw Object.assign(
      new RangeError(`texts: expected at most ${MAX_REFERENCE_TEXTS.toLocaleString('en-US')} entries, got ${texts.length.toLocaleString('en-US')}`),
      {
        code: 'INVALID_CONTEXT',
        path: 'texts',
      },
    )
  }
  return binding.__referenceCountHf(texts, source)
}
