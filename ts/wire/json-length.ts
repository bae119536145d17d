// `JSON.stringify(v).length` without making the text, for the tool-call lists whose length approx
// counting needs (LangChain's counter stringifies them as the message holds them). Exact for plain
// data: strings, finite numbers, booleans, null, and objects and arrays whose prototype is
// Object.prototype or Array.prototype with no `toJSON`, nested at most `MAX_DEPTH` deep. Anything
// else (a class instance, a `toJSON`, a BigInt, a polluted Object.prototype) answers -1, and the
// caller stringifies instead, which also throws what stringifying throws. A call's `args` is
// measured on its own first (`jsonLength`, or stringified where its text crosses): that length is
// used in the list's, not walked again.

import { isPolluted } from './fields.js'

const MAX_DEPTH = 16
/**
 * Past this length the list is stringified after all: the text may be longer than the engine's
 * longest string (V8: 2**29 - 24 code units), and then stringifying throws, as it did before
 * lengths were worked out; a sum has no such bound. Below every engine's limit.
 */
const MAX_WORKED_OUT = 2 ** 28
/** A character `JSON.stringify` escapes: a quote, a backslash, a control character or a surrogate. */
// oxlint-disable-next-line no-control-regex -- control characters are what it looks for
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/
const OBJECT = Object.prototype
const ARRAY = Array.prototype

/** The length of the JSON text of string `s`. */
function stringLength(s: string): number {
  return ESCAPED.test(s) ? JSON.stringify(s).length : s.length + 2
}

/** `JSON.stringify(v).length` for plain data, else -1 (see above). */
function valueLength(v: unknown, depth: number): number {
  switch (typeof v) {
    case 'string':
      return stringLength(v)
    case 'number':
      return Number.isFinite(v) ? String(v).length : 4
    case 'boolean':
      return v ? 4 : 5
    case 'object':
      return v === null ? 4 : objectLength(v, depth)
    default:
      return -1
  }
}

/** Whether `JSON.stringify` leaves out a property holding `v` (and writes `null` for such an entry). */
const skipped = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol'

function objectLength(o: object, depth: number): number {
  if (depth >= MAX_DEPTH || 'toJSON' in o) return -1
  const proto = Object.getPrototypeOf(o)
  if (Array.isArray(o)) {
    if (proto !== ARRAY) return -1
    let n = 1 + Math.max(o.length, 1)
    for (let k = 0; k < o.length; k++) {
      const item: unknown = o[k]
      const len = skipped(item) ? 4 : valueLength(item, depth + 1)
      if (len < 0) return -1
      n += len
    }
    return n
  }
  if (proto !== OBJECT) return -1
  return fieldsLength(o as Record<string, unknown>, depth, undefined)
}

/** The JSON length of a plain object's fields; `args`, when given, is the length of its `args`. */
function fieldsLength(o: Record<string, unknown>, depth: number, args: number | undefined): number {
  let n = 2
  let fields = 0
  for (const key in o) {
    const v = o[key]
    if (skipped(v)) continue
    let len: number
    if (key === 'args' && args !== undefined && typeof v === 'object' && v !== null && !('toJSON' in v)) len = args
    else len = valueLength(v, depth + 1)
    if (len < 0) return -1
    n += stringLength(key) + 1 + len + (fields++ > 0 ? 1 : 0)
  }
  return n
}

/**
 * `JSON.stringify(v).length` for plain data `v` (a tool call's `args`, a tool definition), or -1
 * (stringify it then), also where reading it throws (a getter): stringifying it then throws that,
 * where it did before.
 */
export function jsonLength(v: unknown): number {
  if (isPolluted()) return -1
  let n: number
  try {
    n = valueLength(v, 0)
  } catch {
    return -1
  }
  return n > MAX_WORKED_OUT ? -1 : n
}

/**
 * `JSON.stringify(calls).length` for a list of tool calls, or -1 (stringify it then). `views[k].objectArgs`
 * is the length of `JSON.stringify(calls[k].args)` when call `k` holds its arguments as an object.
 */
export function callsLength(calls: readonly unknown[], views: ReadonlyArray<{ objectArgs: number | undefined }>): number {
  if (isPolluted() || Object.getPrototypeOf(calls) !== ARRAY || 'toJSON' in calls) return -1
  let n = 1 + Math.max(calls.length, 1)
  for (let k = 0; k < calls.length; k++) {
    const c: unknown = calls[k]
    if (typeof c !== 'object' || c === null || Array.isArray(c) || 'toJSON' in c || Object.getPrototypeOf(c) !== OBJECT) return -1
    const len = fieldsLength(c as Record<string, unknown>, 1, views[k].objectArgs)
    if (len < 0) return -1
    n += len
  }
  return n > MAX_WORKED_OUT ? -1 : n
}
