// Reading the caller's options, once, into data of our own. Every entry point that takes options
// (the editor, the context-editing middleware, the summarization middleware, the Xpert strategies)
// goes through `readTree` with its own policy; `withoutNulls` and `checkJsonValues` then shape the
// copy for the core. The core validates the options (types, bounds, unknown keys, with paths); what
// is checked here is what the core cannot see, each for a reason:
// - getters and Proxy traps run only here, each read guarded: one that throws (a revoked Proxy
//   included) is the caller's `INVALID_OPTIONS` naming the option, with what it threw as `cause`,
//   instead of a TypeError from somewhere inside (napi's conversion, or our own later reads);
// - a copy is read once: the caller's later changes to the objects it passed change nothing;
// - keys are defined, not assigned, so a `"__proto__"` key (from `JSON.parse`) stays a key (the
//   core rejects it as unknown) and never becomes a prototype;
// - lists are length-checked before they are walked (limits.ts: a sparse list of length 2**32 - 1
//   would hang, then exhaust memory), and nesting is bounded (a cycle would overflow the stack);
// - values JSON cannot carry (NaN, functions) are named here: napi would drop or mangle them.
// A reader that leaves a check to a later one says so in its policy.

import { ContextEditorError, errorText, unreadable } from './errors.js'
import { MAX_OPTIONS_DEPTH, MAX_OPTIONS_LIST } from './limits.js'
import type { OptionDefaults } from './generated/options.js'
import { optionDefaults } from './native.js'
import { field } from './wire.js'

/** How one entry point reads its options (see `readTree`). */
interface Policy {
  /** The error for a read that threw at `where`. */
  unreadable(where: string, thrown: unknown): ContextEditorError
  /** The error for a list longer than `MAX_OPTIONS_LIST`; `undefined`: the list is kept as it is, unread, for a later check. */
  tooLong?: (where: string, n: number) => ContextEditorError
  /** The error for nesting deeper than `MAX_OPTIONS_DEPTH`; `undefined`: the value is kept as it is. */
  tooDeep?: (where: string) => ContextEditorError
  /** Checks a value that is not an object (`undefined`: taken as it is). */
  leaf?: (value: unknown, where: string) => unknown
  /** A class instance (not a plain object or list): `undefined` copies it like a plain object. */
  instance?: (value: object, where: string, read: <T>(where: string, get: () => T) => T) => unknown
  /** Copies without a prototype (a key put on Object.prototype is then no option of theirs). */
  bare?: boolean
  /** Keeps keys whose value is `undefined` (JSON drops them). */
  keepUndefined?: boolean
}

const listed = (n: number): string => n.toLocaleString('en-US')
/** What a list longer than `MAX_OPTIONS_LIST` is told. */
export const tooLongText = (n: number): string => `expected a list of at most ${listed(MAX_OPTIONS_LIST)} entries, got ${listed(n)}`

/** Defines `key` as an own data property (a plain assignment to `__proto__` would set the prototype). */
export function define(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** `value` copied under `policy`: plain objects and lists become our own, every read guarded. */
function readTree(value: unknown, path: string, depth: number, policy: Policy): unknown {
  if (value === null || typeof value !== 'object') return policy.leaf ? policy.leaf(value, path) : value
  const at = path || 'options'
  if (depth >= MAX_OPTIONS_DEPTH) {
    if (policy.tooDeep) throw policy.tooDeep(at)
    return value
  }
  const read = <T>(where: string, get: () => T): T => {
    try {
      return get()
    } catch (e) {
      throw policy.unreadable(where || 'options', e)
    }
  }
  if (read(at, () => Array.isArray(value))) {
    const list = value as unknown[]
    const n = read(at, () => list.length)
    if (n > MAX_OPTIONS_LIST) {
      if (policy.tooLong) throw policy.tooLong(at, n)
      return value
    }
    const out = new Array<unknown>(n)
    for (let k = 0; k < n; k++) {
      const where = `${path}[${k}]`
      // A hole is `undefined`, whatever Array.prototype holds at that index.
      out[k] = readTree(
        read(where, () => (Object.hasOwn(list, k) ? list[k] : undefined)),
        where,
        depth + 1,
        policy,
      )
    }
    return out
  }
  if (policy.instance) {
    const proto = read(at, () => Object.getPrototypeOf(value))
    if (proto !== Object.prototype && proto !== null) return policy.instance(value, path, read)
  }
  const out: Record<string, unknown> = policy.bare ? Object.create(null) : {}
  for (const key of read(at, () => Object.keys(value))) {
    const where = path ? `${path}.${key}` : key
    const copy = readTree(
      read(where, () => (value as Record<string, unknown>)[key]),
      where,
      depth + 1,
      policy,
    )
    if (copy !== undefined || policy.keepUndefined) define(out, key, copy)
  }
  return out
}

/**
 * The editor's options as JSON would see them (own enumerable keys, `undefined` fields left out),
 * each read guarded (`INVALID_OPTIONS` naming the option). Values JSON cannot carry are passed on
 * as they are, for the binding to reject in its words; so is anything nested deeper than it accepts.
 */
export function optionsCopy(value: unknown): unknown {
  const copy = readTree(value, '', 0, EDITOR_POLICY)
  if (copy !== null && typeof copy === 'object') middlewareOnly(copy as Record<string, unknown>)
  return copy
}

/**
 * The middlewares' own options given to `ContextEditor`: `INVALID_OPTIONS` saying where they belong
 * (the core would only call them unknown). `tokenCountMethod: "usage"` needs what a middleware has and
 * an editor does not: having seen the call that produced the usage, unchanged since, and what that
 * call's edits freed. The editor takes that anchor per call instead (`context.usageAnchor`).
 */
function middlewareOnly(o: Record<string, unknown>): void {
  const fail = (path: string, what: string) => new ContextEditorError('INVALID_OPTIONS', `${path}: ${what}`, { path })
  if (o.tokenCountMethod === 'usage')
    throw fail(
      'tokenCountMethod',
      '"usage" is read by the middlewares (contextEditingMiddleware, the Xpert strategy), which see the calls that produced the usage; ContextEditor counts with "approx", "model" or "estimate" and takes a usage anchor per call: context.usageAnchor { index, tokens } (docs/token-counting.md)',
    )
  for (const key of ['recovery', 'usageFallback']) {
    if (o[key] !== undefined && o[key] !== null)
      throw fail(
        key,
        'an option of the middlewares (contextEditingMiddleware, the Xpert strategy) only: ContextEditor does not call the model (docs/token-counting.md)',
      )
  }
}

const EDITOR_POLICY: Policy = {
  unreadable: (where, e) => unreadable('INVALID_OPTIONS', where, e, { path: where }),
  tooLong: (where, n) => new ContextEditorError('INVALID_OPTIONS', `${where}: ${tooLongText(n)}`, { path: where }),
}

/** What `resolveOptions` reads of a class instance among the options (a `ClearToolUsesEdit`). */
const INSTANCE_FIELDS = ['apply', 'trigger', 'keep', 'placeholder', 'excludeTools', 'clearToolInputs', 'clearAtLeast', 'constructor']

/**
 * A middleware's options read once into data of our own, every read guarded: a getter or Proxy
 * trap that throws (at any depth) is the caller's `INVALID_OPTIONS` naming the option (prefixed
 * with `name`), with what it threw as `cause`. Plain objects and lists are copied (own keys
 * defined, lists length-checked); functions (`onReport`) and class instances (a `ClearToolUsesEdit`)
 * are taken as they are once what `resolveOptions` reads of them has been read without a throw.
 * Copies have no prototype: a key put on Object.prototype is no option. What is not valid is left
 * for `resolveOptions` to reject in its words (a list too long included, with its length).
 */
export function readMiddlewareOptions(config: unknown, name: string): unknown {
  return readTree(config, '', 0, {
    unreadable: (where, e) => new ContextEditorError('INVALID_OPTIONS', `${name}: ${where}: could not be read (${errorText(e)})`, { path: where, cause: e }),
    instance: (value, path, read) => {
      // A class instance: read what the reader will, so that a throw is named here.
      for (const key of INSTANCE_FIELDS) read(path ? `${path}.${key}` : key, () => field(value, key))
      read(path || 'options', () => Object.keys(value))
      return value
    },
    bare: true,
    keepUndefined: true,
  })
}

/**
 * A plain copy of a summarization middleware's options, each value read once with every read
 * guarded (named by what was being read: `options` for the object itself or its key list, with
 * the original as `cause`). The keys in `live` (a model instance, functions) are taken as they
 * are; every other option is JSON, copied as plain data, so nothing later reads the caller's
 * objects again.
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming the option: unreadable, not an object, not
 * JSON (a function, a symbol, a bigint, NaN or ±Infinity), nested too deep, or a list too long.
 */
export function readSummarizationOptions(config: unknown, name: string, live: ReadonlySet<string>): Record<string, unknown> {
  const fail = (path: string, what: string, cause?: unknown) => new ContextEditorError('INVALID_OPTIONS', `${name}: ${path}: ${what}`, { path, cause })
  const policy: Policy = {
    unreadable: (where, e) => fail(where, `could not be read (${errorText(e)})`, e),
    tooLong: (where, n) => fail(where, tooLongText(n)),
    tooDeep: (where) => fail(where, `nested more than ${MAX_OPTIONS_DEPTH} levels deep (a cycle?)`),
    leaf: (v, where) => {
      if (v === null || v === undefined || typeof v === 'string' || typeof v === 'boolean') return v
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) throw fail(where, `expected a finite number, got ${String(v)}`)
        return v
      }
      throw fail(where, `expected a JSON value, got a ${typeof v}`)
    },
    keepUndefined: true,
  }
  if (config === undefined || config === null) return {}
  const isList = (() => {
    try {
      return Array.isArray(config)
    } catch (e) {
      throw policy.unreadable('options', e)
    }
  })()
  if (typeof config !== 'object' || isList) {
    const got = isList ? 'an array' : describeValue(config)
    throw fail('options', `expected an object, got ${got}`)
  }
  const out: Record<string, unknown> = {}
  let keys: string[]
  try {
    keys = Object.keys(config)
  } catch (e) {
    throw policy.unreadable('options', e)
  }
  for (const key of keys) {
    let value: unknown
    try {
      value = (config as Record<string, unknown>)[key]
    } catch (e) {
      throw policy.unreadable(key, e)
    }
    define(out, key, live.has(key) ? value : readTree(value, key, 1, policy))
  }
  return out
}

/** Describes a value in an error message without reading into it. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return 'an object'
  // Never `String(v)` on anything else: a function would print its source.
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof v} ${String(v)}`
    case 'symbol':
      return `symbol ${v.toString()}`
    case 'function':
      return 'a function'
    default:
      return typeof v
  }
}

/** Whether `v` is a plain object (its prototype is Object.prototype or none). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** The list-length check of `withoutNulls` and `checkJsonValues`, in the middleware's words. */
function checkListLength(v: readonly unknown[], path: string, invalid: (path: string, what: string) => ContextEditorError): void {
  if (v.length > MAX_OPTIONS_LIST) throw invalid(path || 'options', tooLongText(v.length))
}

/**
 * Drops `null` values (the Xpert UI's "unset") from a copy made by the readers above; an object
 * left empty by that is unset too. This is the only place where `null` is interpreted in the
 * shim. Keys are defined, so a `"__proto__"` key stays an option key, rejected as unknown.
 * @throws {ContextEditorError} from `invalid`: options nested deeper than 64 levels (or cyclic),
 * or a list too long.
 */
export function withoutNulls(v: unknown, invalid: (path: string, what: string) => ContextEditorError, path = '', depth = 0): unknown {
  if (depth > MAX_OPTIONS_DEPTH) throw invalid(path || 'options', `nested more than ${MAX_OPTIONS_DEPTH} levels deep (a cycle?)`)
  if (Array.isArray(v)) {
    checkListLength(v, path, invalid)
    // A plain loop, not `map`: holes of a sparse list become `undefined` and are rejected by the
    // core with their index, instead of staying holes.
    const out: unknown[] = []
    for (let i = 0; i < v.length; i++) out.push(withoutNulls(v[i], invalid, `${path}[${i}]`, depth + 1))
    return out
  }
  if (!isPlainObject(v)) return v
  const out: Record<string, unknown> = {}
  let hadNull = false
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined) {
      hadNull = true
      continue
    }
    const y = withoutNulls(x, invalid, path ? `${path}.${k}` : k, depth + 1)
    if (y !== undefined) define(out, k, y)
  }
  return hadNull && Object.keys(out).length === 0 ? undefined : out
}

/** Rejects what JSON cannot carry (NaN, ±Infinity, functions, ...) with its path, before the core sees it. */
export function checkJsonValues(v: unknown, path: string, invalid: (path: string, what: string) => ContextEditorError): void {
  if (typeof v === 'number' && !Number.isFinite(v)) throw invalid(path, `expected a finite number, got ${String(v)}`)
  if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') {
    throw invalid(path, `expected a JSON value, got a ${typeof v}`)
  }
  if (Array.isArray(v)) {
    checkListLength(v, path, invalid)
    for (let i = 0; i < v.length; i++) checkJsonValues(v[i], `${path}[${i}]`, invalid)
  } else if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) checkJsonValues(x, path ? `${path}.${k}` : k, invalid)
}

let defaults: OptionDefaults | undefined

/**
 * The declared defaults (the binding's `optionDefaults()`, read once, frozen): what the core
 * assumes for an option left out, for the shim's own decisions (the placeholders it recognizes,
 * the thresholds the CLI marks).
 * @throws {ContextEditorError} `NATIVE_BINDING_MISSING` where no binding loaded.
 */
export function declaredDefaults(): OptionDefaults {
  defaults ??= deepFreeze(optionDefaults())
  return defaults
}

/** Freezes `value` and every object in it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}
