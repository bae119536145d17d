// Which field threw: when a caller's getter or Proxy trap throws while a message is read or
// copied, the message is read again, field by field, to name the field in the error.

import { ContextEditorError, errorText, unreadable } from '../errors.js'
import { isObject, throws } from './fields.js'
import { MAX_ITEMS, type AnyMessage } from './shapes.js'

/**
 * The error for something thrown while message `i` was read or copied. Our own errors pass; what a
 * caller's getter or Proxy trap threw becomes `INVALID_MESSAGE` naming the field that throws (found by
 * reading the message again, field by field), with the thrown value as `cause`. When no field throws
 * again, it was not the message's doing: `INTERNAL`.
 */
export function messageError(e: unknown, i: number, m: unknown): ContextEditorError {
  if (e instanceof ContextEditorError) return e
  const path = throwingPath(m)
  if (path === undefined)
    return new ContextEditorError('INTERNAL', `messages[${i}]: ${errorText(e)} (a bug in context-editor, please report it)`, { messageIndex: i, cause: e })
  return path === ''
    ? unreadable('INVALID_MESSAGE', `messages[${i}]`, e, { messageIndex: i })
    : unreadable('INVALID_MESSAGE', `messages[${i}].${path}`, e, { messageIndex: i, path })
}

/** The fields of a message (or of a stored message's `data`) that conversion or copying reads. */
const MESSAGE_FIELDS = [
  'content',
  'tool_calls',
  'response_metadata',
  'additional_kwargs',
  'name',
  'tool_call_id',
  'reasoning_content',
  'metadata',
  'lc_kwargs',
  'id',
]

/**
 * Which of a message's fields throws when read (`''`: the message object itself, e.g. a revoked
 * Proxy), or `undefined` when none does. Runs only after something threw, so it may be thorough.
 */
function throwingPath(m: unknown): string | undefined {
  if (!isObject(m)) return undefined
  const msg = m as AnyMessage
  if (throws(() => Array.isArray(msg))) return ''
  for (const key of ['_getType', 'type', 'role', 'data']) {
    let v: unknown
    if (throws(() => (v = msg[key]))) return key
    if (key === '_getType' && typeof v === 'function' && throws(() => msg._getType())) return 'type'
  }
  const stored = typeof msg.type === 'string' && isObject(msg.data) && !Array.isArray(msg.data)
  const f: AnyMessage = stored ? msg.data : msg
  const prefix = stored ? 'data.' : ''
  if (stored) {
    const inside = throwingBelow(f, 'data', 'data', 0)
    if (inside !== undefined && inside !== 'data') return inside
  }
  for (const key of MESSAGE_FIELDS) {
    let v: unknown
    if (throws(() => (v = f[key]))) return prefix + key
    const below = throwingBelow(v, prefix + key, key, 0)
    if (below !== undefined) return below
  }
  return throwingBelow(msg, '', '', 0)
}

/**
 * What conversion reads inside a message's objects, in its order, by the field holding them (the
 * entries of `content` are blocks, of `tool_calls` calls): own fields or not (a Proxy's traps).
 */
const READ_BELOW: Readonly<Record<string, readonly string[]>> = {
  content: ['type', 'text', 'id', 'mime_type', 'input', 'cache_control'],
  tool_calls: ['id', 'function', 'name', 'args', 'type'],
  function: ['name', 'arguments'],
  response_metadata: ['context_editing', 'pinned'],
  context_editing: ['cleared', 'truncated', 'cleared_tool_inputs', 'strategy', 'pinned'],
  additional_kwargs: ['reasoning_content', 'reasoning', 'tool_calls', 'pinned'],
  metadata: ['pinned'],
}

/**
 * `throwingPath` inside the value `v` of field `key`: its prototype, what conversion reads in it,
 * its own fields and entries, a few levels down.
 */
function throwingBelow(v: unknown, path: string, key: string, depth: number): string | undefined {
  if (!isObject(v) || depth > 3) return undefined
  const at = (k: string): string => (path === '' ? k : `${path}.${k}`)
  let keys: string[]
  try {
    Object.getPrototypeOf(v)
    if (Array.isArray(v)) {
      if (v.length > MAX_ITEMS) return undefined
      keys = Array.from({ length: v.length }, (_, k) => String(k))
    } else {
      const read = READ_BELOW[key] ?? []
      for (const k of read) if (throws(() => k in v)) return at(k)
      keys = [...new Set([...read, ...Object.keys(v)])]
    }
  } catch {
    return path
  }
  const isList = Array.isArray(v)
  for (const k of keys.slice(0, MAX_ITEMS)) {
    const where = isList ? `${path}[${k}]` : at(k)
    let x: unknown
    if (throws(() => (x = (v as AnyMessage)[k]))) return where
    // Entries of a list are read as what the list holds (`content` blocks, `tool_calls` calls).
    const below = throwingBelow(x, where, isList ? key : k, depth + 1)
    if (below !== undefined) return below
  }
  return undefined
}
