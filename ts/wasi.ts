// The WebAssembly build (wasm32-wasi) behind the same contract as the native addon. Rust cannot
// unwind on WebAssembly, so a panic aborts the call: a trap, thrown here as `RuntimeError:
// unreachable`, where the native addon throws an `INTERNAL` error. Each call of the binding's
// functions and classes turns that trap into the same `INTERNAL` error, with the panic's message
// (recorded by src/wasi.rs). After such a trap the WebAssembly instance may hold a lock the call
// never released: like any `INTERNAL` error, it is a bug to report, and the process should restart.
import { availableParallelism } from 'node:os'

import type * as Binding from '../binding.cjs'

// The compiler's lib has no WebAssembly declarations; Node has the class.
const RuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: new () => Error } }).WebAssembly.RuntimeError

/** The error the native addon throws for a panic, made from a WebAssembly trap. */
function fromTrap(binding: typeof Binding, e: unknown): unknown {
  if (!(e instanceof RuntimeError)) return e
  let what: string | null = null
  try {
    what = binding.__takePanicMessage()
  } catch {
    // the instance cannot answer: report the trap itself
  }
  const message =
    what !== null ? `context-editor panicked: ${what} (please report this bug)` : `context-editor crashed in WebAssembly: ${e.message} (please report this bug)`
  return Object.assign(new Error(message, { cause: e }), { code: 'INTERNAL' })
}

// emnapi, unlike Node's napi, asks a value for its prototype while converting it, and so throws
// V8's bare TypeError on a revoked Proxy (as an argument, inside one, or thrown by a getter)
// before our code can name it. Then the arguments are walked again to find the culprit, and the
// error is the one the native addon gives: the code of what was being read, its path, and the
// original as `cause`.
const MAX_WALK_DEPTH = 64
const MAX_WALK_ENTRIES = 100_000

interface Culprit {
  path: string
  cause: unknown
}

function isRevoked(v: unknown): boolean {
  if ((typeof v !== 'object' && typeof v !== 'function') || v === null) return false
  try {
    Reflect.getPrototypeOf(v)
    return false
  } catch {
    return true
  }
}

/** The first revoked Proxy or throwing read inside `v`, with its path (`''` for `v` itself). */
function culpritIn(v: unknown, path: string, depth: number, revokedError: unknown): Culprit | undefined {
  if (isRevoked(v)) return { path, cause: revokedError }
  if (typeof v !== 'object' || v === null || depth > MAX_WALK_DEPTH) return undefined
  let keys: string[]
  try {
    keys = Array.isArray(v) ? Array.from({ length: Math.min(v.length, MAX_WALK_ENTRIES) }, (_, i) => String(i)) : Object.keys(v)
  } catch (e) {
    return { path, cause: e }
  }
  for (const key of keys.slice(0, MAX_WALK_ENTRIES)) {
    const at = Array.isArray(v) ? `${path}[${key}]` : path ? `${path}.${key}` : key
    let x: unknown
    try {
      x = (v as Record<string, unknown>)[key]
    } catch (e) {
      return { path: at, cause: e }
    }
    const found = culpritIn(x, at, depth + 1, revokedError)
    if (found) return found
  }
  return undefined
}

function callerError(code: string, message: string, fields: { path?: string; messageIndex?: number }, cause: unknown): Error {
  return Object.assign(new Error(message, { cause }), { code, ...fields })
}

/** The native addon's error for a conversion emnapi failed on, or `e` itself when no culprit is found. */
function fromConversion(e: unknown, method: string, args: readonly unknown[]): unknown {
  if (!(e instanceof TypeError) || !/revoked/.test(e.message)) return e
  if (method === 'constructor') {
    const found = culpritIn(args[0], '', 0, e)
    return found
      ? callerError('INVALID_OPTIONS', `${found.path || 'options'}: could not be read (${e.message})`, { path: found.path || 'options' }, found.cause)
      : e
  }
  // Methods take their messages first (`tail` for sessions: after two numbers) and the call
  // context last. A revoked context is named by its first field read, as the native addon does.
  const contextAt = args.length - 1
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (typeof arg !== 'object' || arg === null) continue
    if (i === contextAt && i > 0) {
      if (isRevoked(arg)) return callerError('INVALID_CONTEXT', `maxInputTokens: could not be read (${e.message})`, { path: 'maxInputTokens' }, e)
      const found = culpritIn(arg, '', 0, e)
      if (found) return callerError('INVALID_CONTEXT', `${found.path}: could not be read (${e.message})`, { path: found.path }, found.cause)
      continue
    }
    const found = culpritIn(arg, '', 0, e)
    if (!found) continue
    const m = /^\[(\d+)\]\.?(.*)$/.exec(found.path)
    if (!m) return callerError('INVALID_MESSAGE', `messages: could not be read (${e.message})`, { path: 'messages' }, found.cause)
    const fields = { messageIndex: Number(m[1]), ...(m[2] ? { path: m[2] } : {}) }
    return callerError('INVALID_MESSAGE', `messages${found.path}: could not be read (${e.message})`, fields, found.cause)
  }
  return e
}

function guard<F extends (...args: never[]) => unknown>(binding: typeof Binding, f: F, method: string): F {
  return function (this: unknown, ...args: Parameters<F>) {
    try {
      const out = f.apply(this, args)
      return out instanceof Promise ? out.catch((e: unknown) => Promise.reject(fromTrap(binding, fromConversion(e, method, args)))) : out
    } catch (e) {
      throw fromTrap(binding, fromConversion(e, method, args))
    }
  } as F
}

/** `TextEncoder.prototype.encodeInto`, taken once: what the encoder calls cannot be replaced afterwards. */
const encodeInto = typeof TextEncoder === 'function' ? TextEncoder.prototype.encodeInto.bind(new TextEncoder()) : undefined

/**
 * The string encoder the WebAssembly build reads strings through (src/wasi.rs,
 * `__setStringEncoder`), writing into `buffer`: a string's UTF-8 from the fifth byte, as
 * `TextEncoder.encodeInto` writes it (a lone surrogate as U+FFFD, as Node's napi writes it), and
 * its byte count in the first four (little-endian; `0xFFFFFFFF` for a value that is no string or
 * a string that does not fit, which the binding then has written into a buffer of its own, made by
 * this function again; `0xFFFFFFFE` when encoding failed, after which the binding drops the
 * encoder).
 */
export function stringEncoder(buffer: Uint8Array): (text: unknown) => void {
  const bytes = buffer.subarray(4)
  const count = (n: number): void => {
    buffer[0] = n & 0xff
    buffer[1] = (n >>> 8) & 0xff
    buffer[2] = (n >>> 16) & 0xff
    buffer[3] = n >>> 24
  }
  return (text: unknown): void => {
    try {
      const r = typeof text === 'string' ? encodeInto!(text, bytes) : undefined
      count(r !== undefined && r.read === (text as string).length ? r.written : 0xffffffff)
    } catch {
      count(0xfffffffe)
    }
  }
}

/**
 * Hands the WebAssembly build its string encoder. emnapi copies every string the binding reads
 * into the WebAssembly memory in a JavaScript loop, about 30 ns a character; `encodeInto` writes
 * the same UTF-8 natively, 20 times faster (docs/performance.md, *The WebAssembly build against the
 * native one*).
 */
function installStringEncoder(binding: typeof Binding): void {
  if (typeof binding.__setStringEncoder !== 'function' || encodeInto === undefined) return
  try {
    binding.__setStringEncoder(stringEncoder)
  } catch {
    // strings are read through emnapi
  }
}

/**
 * The loaded binding as the shim uses it: a WebAssembly build gets its string encoder and has
 * every function, method and constructor guarded; the native addon is returned as it is.
 */
export function asNative(binding: typeof Binding): typeof Binding {
  if (binding.__napiBindingTarget === 'native' || binding.__napiBindingTarget === undefined) return binding
  installStringEncoder(binding)
  countOnCores(binding)
  passColumnsInMemory(binding)
  return guardTraps(binding)
}

/** The methods of `NativeContextEditor` that take columns, and the position of that argument. */
const COLUMNS_AT: Readonly<Record<string, number>> = {
  planColumns: 0,
  planColumnsAsync: 0,
  countTokensColumns: 0,
  countTokensColumnsAsync: 0,
  planSessionColumns: 2,
  planSessionColumnsAsync: 2,
  appendSessionColumns: 2,
  countSessionColumns: 2,
  countHeldColumns: 2,
  countHeldColumnsAsync: 2,
}

/**
 * Has every method that takes columns pass them in the WebAssembly memory: the numeric columns
 * are written into a region of it (src/arena.rs, `__columnArena`) with a header saying their
 * lengths, and the `strings` column alone goes where the columns object went. The binding then
 * reads them there, without a Node-API call per column (each a round of emnapi's JavaScript).
 * No code runs between the writing and the call, so a call made from inside another (a getter of
 * a message) cannot write over its columns.
 */
function passColumnsInMemory(binding: typeof Binding): void {
  const arena = (binding as { __columnArena?: unknown }).__columnArena
  const proto = (binding.NativeContextEditor as unknown as { prototype?: Record<string, unknown> } | undefined)?.prototype
  if (typeof arena !== 'function' || proto === undefined) return
  for (const [name, at] of Object.entries(COLUMNS_AT)) {
    const method = proto[name]
    if (typeof method !== 'function') continue
    const value = function (this: unknown, ...args: unknown[]): unknown {
      const header = inMemory(arena as (bytes: number) => Uint8Array | null, args, at)
      try {
        return (method as (...a: unknown[]) => unknown).apply(this, args)
      } finally {
        // Read by the call (which clears it), unless it failed before: a header serves one call.
        if (header !== undefined) header[0] = 0
      }
    }
    Object.defineProperty(proto, name, { ...Object.getOwnPropertyDescriptor(proto, name), value })
  }
}

/** Word 0 of a header just written (`COLS`, little-endian: `ARENA_MAGIC` in src/arena.rs). */
const ARENA_MAGIC = 0x534c4f43
/** Bytes of the header: eight 32-bit words (src/arena.rs). */
const ARENA_HEADER_BYTES = 32

/**
 * Replaces `args[at]`, when it is a columns object (its five fields its own data, the four columns
 * typed arrays of their kinds, `strings` a string), by its `strings` column, its numeric columns
 * written into the region `arena` gives behind a header (src/arena.rs), and returns the header.
 * Anything else (getters run nowhere here), or when no region is given, stays as it is, and the
 * binding reads and checks it as before.
 */
function inMemory(arena: (bytes: number) => Uint8Array | null, argList: unknown[], position: number): Uint32Array | undefined {
  try {
    const value = argList[position]
    if (typeof value !== 'object' || value === null) return undefined
    const fields = ['ints', 'nums', 'args', 'lengths', 'strings'].map((key) => Object.getOwnPropertyDescriptor(value, key))
    if (!fields.every((d) => d !== undefined && 'value' in d)) return undefined
    const [ints, nums, args, lengths, strings] = fields.map((d) => d!.value as unknown)
    if (!(ints instanceof Uint32Array && nums instanceof Float64Array && args instanceof Float64Array && lengths instanceof Uint32Array)) return undefined
    if (typeof strings !== 'string') return undefined
    const bytes = ARENA_HEADER_BYTES + (nums.length + args.length) * 8 + (ints.length + lengths.length) * 4
    const view = arena(bytes)
    if (view === null) return undefined
    const { buffer } = view
    let at = view.byteOffset + ARENA_HEADER_BYTES
    const copy = <A extends Float64Array | Uint32Array>(Kind: new (b: ArrayBufferLike, at: number, n: number) => A, from: A): void => {
      new Kind(buffer, at, from.length).set(from)
      at += from.byteLength
    }
    // The 8-byte columns first, from the header's end (a multiple of 8).
    copy(Float64Array, nums)
    copy(Float64Array, args)
    copy(Uint32Array, ints)
    copy(Uint32Array, lengths)
    const header = new Uint32Array(buffer, view.byteOffset, ARENA_HEADER_BYTES / 4)
    header.set([0, ints.length, nums.length, args.length, lengths.length, 0, 0, 0])
    header[0] = ARENA_MAGIC
    argList[position] = strings
    return header
  } catch {
    // A detached buffer, a Proxy that throws: the binding reads and names it as before.
    return undefined
  }
}

/**
 * Lets the WebAssembly build count large batches on every core (at most 8), as the native build
 * does: WASI reports one core, so it would count on the calling thread only. Its threads are Web
 * Workers that Node lets the main thread wait for (a browser's main thread may not wait, and the
 * browser loader never gets here).
 */
function countOnCores(binding: typeof Binding): void {
  if (typeof binding.__setCountingThreads !== 'function') return
  try {
    binding.__setCountingThreads(availableParallelism())
  } catch {
    // an older build or a failing call: it counts on one thread, as before
  }
}

/** The binding with every function, method and constructor guarded (WebAssembly builds only). */
function guardTraps(binding: typeof Binding): typeof Binding {
  const guarded: Record<string, unknown> = { __napiBindingTarget: binding.__napiBindingTarget }
  for (const [name, value] of Object.entries(binding)) {
    if (typeof value !== 'function') {
      guarded[name] = value
    } else if (/^[A-Z]/.test(name)) {
      const proto = (value as { prototype: object }).prototype
      for (const key of Object.getOwnPropertyNames(proto)) {
        const d = Object.getOwnPropertyDescriptor(proto, key)
        if (key !== 'constructor' && typeof d?.value === 'function') Object.defineProperty(proto, key, { ...d, value: guard(binding, d.value, key) })
      }
      guarded[name] = new Proxy(value, {
        construct(target, args, newTarget) {
          try {
            return Reflect.construct(target, args, newTarget === guarded[name] ? target : newTarget)
          } catch (e) {
            throw fromTrap(binding, fromConversion(e, 'constructor', args))
          }
        },
      })
    } else {
      guarded[name] = guard(binding, value as (...args: never[]) => unknown, name)
    }
  }
  return guarded as typeof Binding
}
