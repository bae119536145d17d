// The editor's memo of conversions, keyed by message object and valid while the message's
// fingerprint holds (fingerprint.ts): a message an agent sends again on its next model call is not
// converted again, and the fingerprints are what a conversation's next call checks its messages
// against (sessions.ts).

import type { WireMessage } from '../native.js'
import { ContextEditorError, errorText, unreadable } from '../errors.js'
import { messageList, suppliedTokens, toWire, type WireCache, type WireOptions } from './convert.js'
import { describe, entry, field, isObject, notePollution } from './fields.js'
import { fingerprint, stale, unchanged } from './fingerprint.js'
import { messageError } from './locate.js'
import { MAX_ITEMS, MAX_MESSAGES } from './shapes.js'

/**
 * `toWire` through the editor's memo (`opts.cache`): a message converted before and unchanged since
 * (same fingerprint) is not converted again. Returns the wire form and the message's fingerprint
 * (`undefined` when the memo is bypassed: no memo, or a caller-supplied token count, which depends
 * on the index).
 */
export function toWireRemembered(m: unknown, i: number, opts: WireOptions): [WireMessage, unknown[] | undefined] {
  try {
    return remembered(m, i, opts)
  } catch (e) {
    throw messageError(e, i, m)
  }
}

function remembered(m: unknown, i: number, opts: WireOptions): [WireMessage, unknown[] | undefined] {
  const entry = memoEntry(m, i, opts)
  if (entry === null) return [toWire(m, i, opts), undefined]
  const hit = liveEntry(m as object, entry)
  if (hit !== undefined) return [(hit.wire ??= toWire(m, i, opts)), hit.print]
  const wire = toWire(m, i, opts)
  return [wire, newPrint(m as object, entry, opts, wire)]
}

/**
 * Forgets what the memo knows of `m` and fails every check of it from now on: the caller changed
 * it in a way the check cannot see (see `ContextEditor.invalidate`).
 */
export function forgetMessage(cache: WireCache, m: unknown): void {
  if (!isObject(m)) return
  const hit = cache.get(m)
  if (hit !== undefined) stale(hit.print)
  cache.delete(m)
}

type MemoEntry = WireCache extends WeakMap<object, infer E> ? E : never

/**
 * The memo's entry for message `i`: `undefined` when it holds none, `null` when the memo is not used
 * for it (no memo, not an object, a caller-supplied count: see `toWireRemembered`). One lookup
 * serves `liveEntry` and, on a miss, `newPrint`.
 */
export function memoEntry(m: unknown, i: number, opts: WireOptions): MemoEntry | undefined | null {
  const cache = opts.cache
  if (cache === undefined || !isObject(m) || Array.isArray(m) || suppliedTokens(opts, i) != null) return null
  return cache.get(m)
}

/** `entry` (`memoEntry`'s) when message `m` is unchanged since it was made, else `undefined`. */
export function liveEntry(m: object, entry: MemoEntry | undefined | null): MemoEntry | undefined {
  return entry != null && unchanged(m, entry.print) ? entry : undefined
}

/**
 * The fingerprint of a message read (by the caller first, so that a message that does not convert
 * leaves the memo as it was) without a live entry (`entry`: `memoEntry`'s answer), remembered with
 * its `wire` form when the caller made one (columns make none): `undefined` where the memo is not
 * used; else a new one, and the entry's old one, if any, stale: a conversation still holding it
 * must not pass its check should the message come back to how it was (one fingerprint per message
 * is live).
 */
export function newPrint(m: object, entry: MemoEntry | undefined | null, opts: WireOptions, wire?: WireMessage): unknown[] | undefined {
  if (entry === null) return undefined
  const print = fingerprint(m)!
  if (entry !== undefined) stale(entry.print)
  opts.cache!.set(m, { print, wire })
  return print
}

/**
 * Converts a whole conversation to wire form. `opts` is read once (`undefined`: lengths only).
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming an option of the wrong kind or one that
 * cannot be read (`INVALID_CONTEXT` for `messageTokens`), `INVALID_MESSAGE` naming the message.
 */
export function toWireMessages(messages: unknown, opts?: WireOptions | null): WireMessage[] {
  notePollution()
  const options = wireOptionsOf(opts)
  const list = messageList(messages)
  const out = new Array<WireMessage>(list.length)
  for (let i = 0; i < list.length; i++) out[i] = toWireRemembered(list[i], i, options)[0]
  return out
}

/** `toWireMessages`' options, read once into options of our own. */
function wireOptionsOf(opts: unknown): WireOptions {
  // Every field its own: nothing is read from a key put on Object.prototype.
  const out: WireOptions = { sendText: false, sendToolText: false, placeholders: undefined, cache: undefined, messageTokens: undefined }
  if (opts === undefined || opts === null) return out
  const fail = (path: string, what: string, cause?: unknown): ContextEditorError =>
    new ContextEditorError('INVALID_OPTIONS', `${path}: ${what}`, cause === undefined ? { path } : { path, cause })
  const read = <V>(path: string, get: () => V): V => {
    try {
      return get()
    } catch (e) {
      throw fail(path, `could not be read (${errorText(e)})`, e)
    }
  }
  if (typeof opts !== 'object') throw fail('options', `expected an object, got ${describe(opts)}`)
  const flag = (key: string): boolean => {
    const v = read(key, () => field(opts, key))
    if (v !== undefined && v !== null && typeof v !== 'boolean') throw fail(key, `expected a boolean, got ${describe(v)}`)
    return v === true
  }
  out.sendText = flag('sendText')
  out.sendToolText = flag('sendToolText')
  const placeholders = read('placeholders', () => field(opts, 'placeholders'))
  if (placeholders !== undefined && placeholders !== null) {
    const list = read('placeholders', () => (placeholders instanceof Set ? [...placeholders] : Array.isArray(placeholders) ? [...placeholders] : undefined))
    if (list === undefined || list.length > MAX_ITEMS || list.some((p) => typeof p !== 'string')) {
      throw fail('placeholders', 'expected a Set (or an array) of placeholder strings')
    }
    out.placeholders = new Set(list as string[])
  }
  const cache = read('cache', () => field(opts, 'cache'))
  if (cache !== undefined && cache !== null) {
    if (!read('cache', () => cache instanceof WeakMap)) throw fail('cache', `expected a WeakMap, got ${describe(cache)}`)
    out.cache = cache as WireCache
  }
  const counts = read('messageTokens', () => field(opts, 'messageTokens'))
  if (counts !== undefined && counts !== null) out.messageTokens = countsOf(counts) as Array<number | null | undefined>
  return out
}

/** `messageTokens` given to `toWireMessages`, read once (as `ContextEditor` reads its context's). */
function countsOf(counts: unknown): Array<unknown> {
  const fail = (path: string, what: string, cause?: unknown): ContextEditorError =>
    new ContextEditorError('INVALID_CONTEXT', `context.${path}: ${what}`, cause === undefined ? { path } : { path, cause })
  let n: number
  try {
    if (!Array.isArray(counts)) throw fail('messageTokens', 'expected an array of token counts (one per message)')
    n = counts.length
  } catch (e) {
    throw e instanceof ContextEditorError ? e : unreadable('INVALID_CONTEXT', 'context.messageTokens', e, { path: 'messageTokens' })
  }
  if (n > MAX_MESSAGES) throw fail('messageTokens', `expected at most ${MAX_MESSAGES.toLocaleString('en-US')} counts, got ${n.toLocaleString('en-US')}`)
  const out = new Array<unknown>(n)
  for (let k = 0; k < n; k++) {
    try {
      out[k] = entry(counts, k)
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', `context.messageTokens[${k}]`, e, { path: `messageTokens[${k}]` })
    }
  }
  return out
}
