// Fingerprints: has a message seen before changed?
//
// A fingerprint is a flat array: a header (the message's kind and what its fields hold), a fixed
// head of top-level fields, then what hangs below them (the `context_editing` marker, reasoning
// kwargs, the pin markers, each content block and tool call, `metadata.pinned`), in an order where
// each entry depends only on entries before it. A check re-reads the same values and stops at the first difference.
//
// The check runs over the whole held history on every call, where nearly every load misses the
// cache, so it is written to touch little memory and run few instructions per message:
// - the kind is decided once, when the fingerprint is taken: a check reads only the fields the
//   conversion of that kind reads (no `_getType` call, no misses on fields a LangChain message never
//   has), and each kind has its own check function, so inline caches see a few classes;
// - a LangChain instance's fields are all loaded before any comparison: one class check covers
//   them and their cache misses overlap;
// - strings (and `args` objects) are compared with `Object.is`, whose identical-pointer case reads
//   nothing (`===` on two strings first loads their headers: a cache miss per message);
// - the header says which fields are objects or arrays (their identity is compared, so that cannot
//   change) and whether `response_metadata` and `additional_kwargs` held none of the keys the
//   conversion reads, the usual case: then the check only asks that they still hold none.
// What the check does not read is not seen: changes inside a tool call's `args`, other fields of a
// block, a call or the message. The README states this list as the contract; the caller declares
// other changes with `ContextEditor.invalidate` (see `stale`). Reading every field of every message,
// block and call measured 6-10x this check on the benchmark history.

import { isObject } from './fields.js'
import { DICT, GENERIC, INSTANCE, KIND_BITS, MAX_ITEMS, OPENAI, OTHER, STALE, STORED, kindOf, type AnyMessage } from './shapes.js'

// Header flags.
/** `response_metadata` is an object without `context_editing` or `pinned` (no entries). */
const NO_MARKER = 8
/**
 * `response_metadata` is an object with `context_editing` or `pinned` (entries: `context_editing`,
 * its fields if an object, `pinned`).
 */
const HAS_MARKER = 16
/** `additional_kwargs` is an object without reasoning or `pinned` (no entries). */
const NO_REASONING = 32
/** `additional_kwargs` is an object with reasoning or `pinned` (entries: `reasoning_content`, `reasoning`, `pinned`). */
const HAS_REASONING = 64
/** `content` is an array (entries: its length, each block and its fields). */
const BLOCKS = 128
/** `tool_calls` is an array (entries: its length, each call and its fields). */
const CALL_LIST = 256
/** `metadata` is an object (entry, last: its `pinned`). */
const META_OBJECT = 512

// The head: one slot per top-level field; a kind that does not read a field leaves it undefined.
const HEADER = 0
const TYPE = 1
const ROLE = 2
const DATA = 3
const CONTENT = 4
const CALLS = 5
const METADATA = 6
const KWARGS = 7
const NAME = 8
const CALL_ID = 9
const REASONING = 10
/** `metadata` (the pin marker of dicts and other shapes). */
const META = 11
const HEAD = 12

/** A message's fingerprint; `undefined` for a non-object. */
export function fingerprint(m: unknown): unknown[] | undefined {
  if (!isObject(m) || Array.isArray(m)) return undefined
  const kind = kindOf(m)
  const f: AnyMessage = kind === STORED ? m.data : m
  const md = f.response_metadata
  const ak = f.additional_kwargs
  const content = f.content
  const calls = f.tool_calls
  const meta = f.metadata
  const fp: unknown[] = [
    kind,
    // `type` decides the kind of every shape (1.x instances hold it; 0.3 ones have none, harmlessly).
    m.type,
    kind === GENERIC || kind === OPENAI || kind === OTHER ? m.role : undefined,
    kind === DICT || kind === STORED || kind === OTHER ? m.data : undefined,
    content,
    calls,
    md,
    ak,
    f.name,
    f.tool_call_id,
    kind === OPENAI || kind === OTHER ? f.reasoning_content : undefined,
    meta,
  ]
  let header = kind
  if (isObject(md)) {
    const ce = md.context_editing
    if (ce === undefined && md.pinned === undefined) header |= NO_MARKER
    else {
      header |= HAS_MARKER
      fp.push(ce)
      if (isObject(ce)) fp.push(ce.cleared, ce.truncated, ce.cleared_tool_inputs, ce.pinned)
      fp.push(md.pinned)
    }
  }
  if (isObject(ak)) {
    if (ak.reasoning_content === undefined && ak.reasoning === undefined && ak.pinned === undefined) header |= NO_REASONING
    else {
      header |= HAS_REASONING
      fp.push(ak.reasoning_content, ak.reasoning, ak.pinned)
    }
  }
  // Conversion rejects longer lists; should a getter hand out another one here, never pass.
  if ((Array.isArray(content) && content.length > MAX_ITEMS) || (Array.isArray(calls) && calls.length > MAX_ITEMS)) return [STALE]
  if (Array.isArray(content)) {
    header |= BLOCKS
    fp.push(content.length)
    for (let i = 0; i < content.length; i++) {
      const b = content[i]
      fp.push(b)
      if (!isObject(b)) continue
      fp.push(b.type, b.text, b.id)
      // `text: undefined` counts nothing, no `text` at all counts the block's JSON.
      if (b.type === 'text' && b.text === undefined) fp.push('text' in b)
      // A file block is an image or not by its MIME type.
      if (b.type === 'file') fp.push(b.mime_type)
    }
  }
  if (Array.isArray(calls)) {
    header |= CALL_LIST
    fp.push(calls.length)
    for (let i = 0; i < calls.length; i++) {
      const c = calls[i]
      fp.push(c)
      if (!isObject(c)) continue
      const fn = c.function
      fp.push(c.id, c.name, c.args, fn)
      if (isObject(fn)) fp.push(fn.name, fn.arguments)
    }
  }
  if (isObject(meta)) {
    header |= META_OBJECT
    fp.push(meta.pinned)
  }
  fp[HEADER] = header
  // An exact-size copy: the history's fingerprints are read on every call, so they should be small.
  return fp.slice()
}

/** Makes `fp` fail every check from now on (its message changed in a way the check cannot see). */
export function stale(fp: unknown[]): void {
  fp[HEADER] = STALE
}

/** Whether `m` still has the fingerprint `fp` taken earlier. */
export function unchanged(m: unknown, fp: readonly unknown[] | undefined): boolean {
  return headUnchanged(m, fp) && belowUnchanged(fp!)
}

/** The message's own fields (the fingerprint's head). */
function headUnchanged(m: unknown, fp: readonly unknown[] | undefined): boolean {
  if (fp === undefined || !isObject(m) || Array.isArray(m)) return false
  switch ((fp[HEADER] as number) & KIND_BITS) {
    case INSTANCE:
    case GENERIC:
      return instanceUnchanged(m, fp)
    case STORED:
      return storedUnchanged(m, fp)
    case STALE:
      return false
    default:
      return plainUnchanged(m, fp)
  }
}

function instanceUnchanged(m: AnyMessage, fp: readonly unknown[]): boolean {
  const content = m.content
  const calls = m.tool_calls
  const md = m.response_metadata
  const ak = m.additional_kwargs
  const name = m.name
  const id = m.tool_call_id
  const type = m.type
  const meta = m.metadata
  return (
    Object.is(content, fp[CONTENT]) &&
    calls === fp[CALLS] &&
    md === fp[METADATA] &&
    ak === fp[KWARGS] &&
    Object.is(name, fp[NAME]) &&
    Object.is(id, fp[CALL_ID]) &&
    Object.is(meta, fp[META]) &&
    // Type names are a few shared strings: `===` is cheap here.
    type === fp[TYPE] &&
    (((fp[HEADER] as number) & KIND_BITS) !== GENERIC || Object.is(m.role, fp[ROLE]))
  )
}

function storedUnchanged(m: AnyMessage, fp: readonly unknown[]): boolean {
  const type = m.type
  const f = m.data
  if (!(Object.is(type, fp[TYPE]) && f === fp[DATA])) return false
  return (
    Object.is(f.content, fp[CONTENT]) &&
    Object.is(f.tool_calls, fp[CALLS]) &&
    Object.is(f.response_metadata, fp[METADATA]) &&
    Object.is(f.additional_kwargs, fp[KWARGS]) &&
    Object.is(f.name, fp[NAME]) &&
    Object.is(f.tool_call_id, fp[CALL_ID]) &&
    Object.is(f.metadata, fp[META])
  )
}

/** Dicts, OpenAI messages and the rest: plain objects, whose extra top-level reads are cheap. */
function plainUnchanged(m: AnyMessage, fp: readonly unknown[]): boolean {
  const kind = (fp[HEADER] as number) & KIND_BITS
  return (
    Object.is(m.type, fp[TYPE]) &&
    Object.is(m.content, fp[CONTENT]) &&
    Object.is(m.tool_calls, fp[CALLS]) &&
    Object.is(m.response_metadata, fp[METADATA]) &&
    Object.is(m.additional_kwargs, fp[KWARGS]) &&
    Object.is(m.name, fp[NAME]) &&
    Object.is(m.tool_call_id, fp[CALL_ID]) &&
    Object.is(m.metadata, fp[META]) &&
    (kind === DICT || Object.is(m.role, fp[ROLE])) &&
    (kind === OPENAI || Object.is(m.data, fp[DATA])) &&
    (kind === DICT || Object.is(m.reasoning_content, fp[REASONING]))
  )
}

/**
 * What hangs below the head's objects, read through the fingerprint's references to them (the
 * head check has found the message still holds them), against the entries after the head.
 */
function belowUnchanged(fp: readonly unknown[]): boolean {
  const header = fp[HEADER] as number
  if (header & NO_MARKER) {
    const md = fp[METADATA] as AnyMessage
    if (md.context_editing !== undefined || md.pinned !== undefined) return false
  }
  if (header & NO_REASONING) {
    const ak = fp[KWARGS] as AnyMessage
    if (ak.reasoning_content !== undefined || ak.reasoning !== undefined || ak.pinned !== undefined) return false
  }
  let k = HEAD
  if (header & (HAS_MARKER | HAS_REASONING | BLOCKS)) {
    k = unchangedRare(fp, header)
    if (k < 0) return false
  }
  if (header & CALL_LIST) {
    const calls = fp[CALLS] as unknown[]
    const n = calls.length
    if (n !== fp[k++]) return false
    for (let i = 0; i < n; i++) {
      const c = fp[k++]
      if (calls[i] !== c) return false
      if (!isObject(c)) continue
      const fn = c.function
      const id = c.id
      const name = c.name
      const args = c.args
      if (!(Object.is(id, fp[k++]) && Object.is(name, fp[k++]) && Object.is(args, fp[k++]) && fn === fp[k++])) return false
      if (isObject(fn) && !(Object.is(fn.name, fp[k++]) && Object.is(fn.arguments, fp[k++]))) return false
    }
  }
  if (header & META_OBJECT && !Object.is((fp[META] as AnyMessage).pinned, fp[k++])) return false
  return k === fp.length
}

/** The entries of a marker, reasoning kwargs and content blocks: where the calls' entries start, or -1 on a difference. */
function unchangedRare(fp: readonly unknown[], header: number): number {
  const md = fp[METADATA] as AnyMessage
  const ak = fp[KWARGS] as AnyMessage
  const content = fp[CONTENT] as unknown[]
  let k = HEAD
  if (header & HAS_MARKER) {
    const ce = md.context_editing
    if (!Object.is(ce, fp[k++])) return -1
    if (
      isObject(ce) &&
      !(Object.is(ce.cleared, fp[k++]) && Object.is(ce.truncated, fp[k++]) && Object.is(ce.cleared_tool_inputs, fp[k++]) && Object.is(ce.pinned, fp[k++]))
    ) {
      return -1
    }
    if (!Object.is(md.pinned, fp[k++])) return -1
  }
  if (header & HAS_REASONING && !(Object.is(ak.reasoning_content, fp[k++]) && Object.is(ak.reasoning, fp[k++]) && Object.is(ak.pinned, fp[k++]))) {
    return -1
  }
  if (header & BLOCKS) {
    const n = content.length
    if (n !== fp[k++]) return -1
    for (let i = 0; i < n; i++) {
      const b = fp[k++]
      if (!Object.is(content[i], b)) return -1
      if (!isObject(b)) continue
      const type = b.type
      if (!(Object.is(type, fp[k++]) && Object.is(b.text, fp[k++]) && Object.is(b.id, fp[k++]))) return -1
      if (type === 'text' && b.text === undefined && 'text' in b !== fp[k++]) return -1
      if (type === 'file' && !Object.is(b.mime_type, fp[k++])) return -1
    }
  }
  return k
}
