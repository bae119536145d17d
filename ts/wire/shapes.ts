// Which shape a message is in: a LangChain instance (from @langchain/core 0.3.x or 1.x, told
// apart without `instanceof`: a plugin and its host may hold different copies), a LangChain
// `ChatMessage`, a LangChain dict, a `StoredMessage` dump or an OpenAI chat-completions message;
// its role, where its fields are, and the limits and checks every reader of a message shares.

import { ContextEditorError, errorText, invalidMessage } from '../errors.js'
import { nativeIsWellFormed } from '../native.js'
import { describe, entry, field, isObject, jsonText, show } from './fields.js'

/** Any message this package accepts: a LangChain message (instance or dict) or an OpenAI message. */
export type AnyMessage = Record<string, any>

/** Which representation a message is in; the output keeps it. */
export type MessageShape = 'langchain' | 'stored' | 'openai'

export interface Parts {
  shape: MessageShape
  /** The object holding the fields (the message itself, or `data` of a stored message). */
  fields: AnyMessage
  role: string
}

// A Map, not an object literal: a type or role named `constructor` or `__proto__` must not find
// Object.prototype's members.
const LC_TYPES: ReadonlyMap<unknown, string> = new Map([
  ['human', 'user'],
  ['user', 'user'],
  ['ai', 'assistant'],
  ['assistant', 'assistant'],
  ['system', 'system'],
  ['developer', 'system'],
  ['tool', 'tool'],
])

/**
 * Longest conversation accepted. Longer arrays are a mistake, or sparse (`length = 2 ** 32 - 1`
 * costs nothing to make and minutes to walk); they are rejected before anything walks them.
 */
export const MAX_MESSAGES = 10_000_000
/** Most content blocks or tool calls one message may carry, and tool definitions one call may send. */
export const MAX_ITEMS = 100_000

export function isLangChainInstance(m: AnyMessage): boolean {
  if (typeof field(m, '_getType') === 'function') return true
  const kwargs = field(m, 'lc_kwargs')
  return typeof kwargs === 'object' && kwargs !== null
}

/** The LangChain type of message `m`: `_getType()` where it has one, else its `type`. */
function typeOf(m: AnyMessage): unknown {
  const getType = field(m, '_getType')
  return typeof getType === 'function' ? getType.call(m) : field(m, 'type')
}

/** Rejects an array longer than `max` before it is walked (see `MAX_MESSAGES`). */
export function checkLength(list: readonly unknown[], max: number, i: number, field: string, what: string): void {
  if (list.length > max) {
    throw invalidMessage(i, field, `expected at most ${max.toLocaleString('en-US')} ${what}, got ${list.length.toLocaleString('en-US')}`)
  }
}

export function partsOf(m: unknown, i: number): Parts {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    throw invalidMessage(i, 'type', `expected a message object, got ${describe(m)}`)
  }
  const msg = m as AnyMessage
  const unsupported = (type: unknown): ContextEditorError =>
    invalidMessage(i, 'type', `unsupported message type \`${show(type)}\` (expected human, ai, system or tool)`)
  switch (kindOf(msg)) {
    case INSTANCE:
    case GENERIC: {
      let type = typeOf(msg)
      if (type === 'generic') type = field(msg, 'role')
      const role = LC_TYPES.get(type)
      if (!role) throw unsupported(type)
      return { shape: 'langchain', fields: msg, role }
    }
    case STORED: {
      const type = field(msg, 'type')
      const role = LC_TYPES.get(type)
      if (!role) throw unsupported(type)
      return { shape: 'stored', fields: field(msg, 'data'), role }
    }
    case OPENAI: {
      const given = field(msg, 'role')
      const role = LC_TYPES.get(given)
      if (!role) {
        throw invalidMessage(i, 'role', `unknown role \`${show(given)}\` (expected system, developer, user, assistant or tool)`)
      }
      return { shape: 'openai', fields: msg, role }
    }
    case DICT: {
      const type = field(msg, 'type')
      const role = LC_TYPES.get(type)
      if (!role) throw unsupported(type)
      return { shape: 'langchain', fields: msg, role }
    }
    default:
      throw invalidMessage(i, 'role', 'missing `role` (OpenAI) or `type` (LangChain)')
  }
}

export function checkString(v: unknown, i: number, field: string): string {
  if (typeof v !== 'string') throw invalidMessage(i, field, `expected a string, got ${describe(v)}`)
  if (!isWellFormed(v)) throw invalidMessage(i, field, 'contains a lone UTF-16 surrogate (not valid Unicode)')
  return v
}

/**
 * From this length a string is searched for its first code unit past U+00FF before it is checked
 * (see `isWellFormed`), and the rest from there is checked natively: below it a native call costs
 * more than V8's own walk (measured: 0.26 us by V8 and 0.74 us natively at 256 CJK characters,
 * 1.0 us and 0.35 us at 1,024, 9.9 us and 1.3 us at 8,192).
 */
const NATIVE_CHECK_FROM = 512
/** A code unit past U+00FF. V8 answers a search for it at once on a one-byte string. */
const PAST_LATIN1 = /[\u0100-\uffff]/

/**
 * `s.isWellFormed()`, the lone-surrogate check every string a message holds goes through. A
 * surrogate is a code unit past U+00FF, so a long string is first searched for one
 * (`PAST_LATIN1`): V8 answers at once for a one-byte string, which cannot hold one, and finds the
 * first in a two-byte string at 0.6-0.8 ns a unit. Only the rest of the string from there can hold
 * a lone surrogate (the unit before it is no high surrogate), and it is checked natively
 * (src/text.rs: copied out, one vectorized pass, about 0.3 ns a unit against V8's 0.7-1.3 ns), or
 * by V8 on the WebAssembly build or when short. Same answer either way. (Probing one unit in 32 for
 * a two-byte character, as before, read the whole of a long one-byte string from memory, 24-30 ms
 * for 128 M units, and missed a short run of Chinese in a long log, which V8 then walked.)
 */
export function isWellFormed(s: string): boolean {
  if (s.length < NATIVE_CHECK_FROM) return s.isWellFormed()
  const at = s.search(PAST_LATIN1)
  if (at < 0) return true
  if (s.length - at < NATIVE_CHECK_FROM || nativeIsWellFormed === undefined) return (at === 0 ? s : s.slice(at)).isWellFormed()
  return checkedInPieces(s, at, nativeIsWellFormed)
}

/**
 * Units checked natively per call: the native side keeps a buffer of `2^20` units between calls
 * (src/text.rs `KEPT_UNITS`), and a longer string is checked in pieces that fit it (4 M units:
 * 1.1-1.4 ms in pieces, 1.7-2.7 ms whole, where a buffer of its own is allocated and freed on every
 * call).
 */
const NATIVE_PIECE = 2 ** 20 - 1

/**
 * `check` of `s` from `from`, in pieces of `NATIVE_PIECE` units (one more where a cut would fall
 * between the halves of a pair: a piece never ends on a high surrogate whose low one follows, so a
 * surrogate is lone in its piece exactly when it is lone in `s`).
 */
function checkedInPieces(s: string, from: number, check: (text: string) => boolean): boolean {
  const n = s.length
  while (from < n) {
    let to = Math.min(n, from + NATIVE_PIECE)
    if (to < n && (s.charCodeAt(to) & 0xfc00) === 0xdc00) to++
    if (!check(from === 0 && to === n ? s : s.slice(from, to))) return false
    from = to
  }
  return true
}

export function stringify(v: unknown, i: number, field: string): string {
  let s: string | undefined
  try {
    s = jsonText(v)
  } catch (e) {
    throw new ContextEditorError('INVALID_MESSAGE', `messages[${i}].${field}: not JSON-serializable (${errorText(e)})`, {
      messageIndex: i,
      path: field,
      cause: e,
    })
  }
  if (s === undefined) throw invalidMessage(i, field, `not JSON-serializable (got ${describe(v)})`)
  return s
}

export const THINKING_BLOCKS = new Set(['thinking', 'redacted_thinking', 'reasoning'])
/** `additional_kwargs` keys where providers keep reasoning (DeepSeek/Qwen, OpenAI responses). */
export const REASONING_KWARGS = ['reasoning_content', 'reasoning'] as const

export function metadataOf(p: Parts): Record<string, any> | undefined {
  const md = field(p.fields, 'response_metadata')
  return md !== null && typeof md === 'object' ? md : undefined
}

// Kinds (the header's low bits), as `partsOf` tells them apart.
/** A LangChain instance: type from `_getType()` (1.x: the own `type` field; 0.3: the class). */
export const INSTANCE = 0
/** A LangChain `ChatMessage` (type `generic`): `role` says what it is. */
export const GENERIC = 1
/** A LangChain dict: `{ type, content, ... }` (a `data` object would make it a stored message). */
export const DICT = 2
/** A `StoredMessage`: `{ type, data: { content, ... } }`. */
export const STORED = 3
/** An OpenAI message: `{ role, content, ... }`, no `type`, top-level `reasoning_content`. */
export const OPENAI = 4
/** Anything else (conversion rejects it): every field any kind reads. */
export const OTHER = 5
/** A fingerprint that no message passes any more (see `stale`). */
export const STALE = 6
export const KIND_BITS = 7

export function kindOf(m: AnyMessage): number {
  if (isLangChainInstance(m)) return typeOf(m) === 'generic' ? GENERIC : INSTANCE
  const type = field(m, 'type')
  if (typeof type === 'string') {
    const data = field(m, 'data')
    return isObject(data) && !Array.isArray(data) ? STORED : DICT
  }
  return typeof field(m, 'role') === 'string' && type === undefined ? OPENAI : OTHER
}

/** The text of a message's content: the string, or its text blocks joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  if (content.length > MAX_ITEMS) {
    throw new ContextEditorError(
      'INVALID_MESSAGE',
      `content: expected at most ${MAX_ITEMS.toLocaleString('en-US')} content blocks, got ${content.length.toLocaleString('en-US')}`,
      {
        path: 'content',
      },
    )
  }
  let text = ''
  for (let k = 0; k < content.length; k++) {
    const b = entry(content, k)
    if (typeof b === 'string') text += b
    else if (isObject(b) && field(b, 'type') === 'text') {
      const value = field(b, 'text')
      if (typeof value === 'string') text += value
    }
  }
  return text
}
