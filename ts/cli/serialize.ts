// JSON output in pieces, byte for byte what `JSON.stringify(value, null, indent)` writes, for any
// depth and any size: `JSON.stringify` recurses (a document nested 100,000 levels deep overflows
// the stack) and builds one string (a document larger than ~512 MB cannot be one string). Near the
// top the walk is structural, below it each value goes through `JSON.stringify` at native speed,
// and a value that makes it fail (too deep, too large) is walked here instead, with an explicit stack.

import type { ExactNumbers } from './json.js'
import type { Output } from './output.js'

/** Depth down to which containers are always walked here (document, its fields, messages). */
const STRUCTURAL_DEPTH = 2
/** A string longer than this is escaped in slices (its escaped form may exceed the string limit). */
const STRING_SLICE = 1 << 24

type Frame =
  | { kind: 'array'; items: readonly unknown[]; next: number; depth: number }
  | { kind: 'object'; obj: Record<string, unknown>; keys: string[]; next: number; depth: number; wrote: boolean }

/**
 * Yields the pieces of the JSON text of `value` (no trailing newline). `numbers`: the input's
 * numbers kept exactly, written back as they were read (stand-ins replaced).
 */
export function* jsonPieces(value: unknown, indent?: string, numbers?: ExactNumbers): Generator<string> {
  const gap = indent ?? ''
  const stack: Frame[] = []
  const ancestors = new Set<unknown>()
  const newline = (depth: number) => (gap ? `\n${gap.repeat(depth)}` : '')

  /** Opens `v` at `depth` (`key`: its key in its parent, for `toJSON`): pieces, or a frame to walk. */
  function* open(key: string, raw: unknown, depth: number, walk: boolean): Generator<string, Frame | undefined> {
    let v = raw
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      v = (v as { toJSON(k: string): unknown }).toJSON(key)
    }
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'string' && v.length > STRING_SLICE) {
        yield* stringPieces(v)
        return undefined
      }
      yield (typeof v === 'number' && numbers?.text(v)) || primitive(v)
      return undefined
    }
    if (!walk && depth > STRUCTURAL_DEPTH - 1) {
      const text = native(v, gap, depth)
      if (text !== undefined) {
        // A whole JSON value: its strings are whole, so stand-ins are found outside them.
        yield numbers ? numbers.restore(text) : text
        return undefined
      }
    }
    if (ancestors.has(v)) throw new TypeError('Converting circular structure to JSON')
    ancestors.add(v)
    if (Array.isArray(v)) return { kind: 'array', items: v, next: 0, depth }
    const obj = v as Record<string, unknown>
    return { kind: 'object', obj, keys: Object.keys(obj), next: 0, depth, wrote: false }
  }

  /** Children of a frame that had to be walked here are walked here too (no retrying natively). */
  const walkBelow = (depth: number) => depth >= STRUCTURAL_DEPTH
  const top = yield* open('', value, 0, false)
  if (top === undefined) return
  stack.push(top)
  while (stack.length > 0) {
    const f = stack[stack.length - 1]
    const child = f.depth + 1
    if (f.kind === 'array') {
      if (f.next === 0) yield f.items.length === 0 ? '[' : `[${newline(child)}`
      if (f.next >= f.items.length) {
        yield f.items.length === 0 ? ']' : `${newline(f.depth)}]`
        ancestors.delete(f.items)
        stack.pop()
        continue
      }
      const k = f.next++
      if (k > 0) yield `,${newline(child)}`
      let item = f.items[k]
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') item = null
      const frame = yield* open(String(k), item, child, walkBelow(f.depth))
      if (frame) stack.push(frame)
      continue
    }
    if (f.next === 0 && !f.wrote) yield '{'
    let pushed = false
    while (f.next < f.keys.length) {
      const key = f.keys[f.next++]
      const v = f.obj[key]
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue
      yield `${f.wrote ? ',' : ''}${newline(child)}${JSON.stringify(key)}${gap ? ': ' : ':'}`
      f.wrote = true
      const frame = yield* open(key, v, child, walkBelow(f.depth))
      if (frame) {
        stack.push(frame)
        pushed = true
        break
      }
    }
    if (pushed) continue
    yield f.wrote ? `${newline(f.depth)}}` : '}'
    ancestors.delete(f.obj)
    stack.pop()
  }
}

/** `JSON.stringify` of a container at `depth`, or `undefined` when it is too deep or too large. */
function native(v: object, gap: string, depth: number): string | undefined {
  let text: string
  try {
    text = JSON.stringify(v, null, gap)
  } catch (e) {
    if (e instanceof RangeError) return undefined
    throw e
  }
  // Raw newlines in JSON text are only indentation (strings escape theirs).
  return gap && depth > 0 ? text.replace(/\n/g, `\n${gap.repeat(depth)}`) : text
}

function primitive(v: unknown): string {
  if (typeof v === 'bigint') throw new TypeError('Do not know how to serialize a BigInt')
  return JSON.stringify(v) ?? 'null'
}

/** A long string, escaped in slices that never split a surrogate pair. */
function* stringPieces(s: string): Generator<string> {
  yield '"'
  for (let at = 0; at < s.length;) {
    let end = Math.min(s.length, at + STRING_SLICE)
    const c = s.charCodeAt(end - 1)
    if (end < s.length && c >= 0xd800 && c <= 0xdbff) end--
    const piece = JSON.stringify(s.slice(at, end))
    yield piece.slice(1, -1)
    at = end
  }
  yield '"'
}

/**
 * Writes `value` as JSON and a newline: `JSON.stringify` when it can, else in pieces. `numbers`: the
 * numbers of the input kept exactly (stand-ins in `value`), written back as they were read.
 */
export async function writeJson(out: Output, value: unknown, indent?: string, numbers?: ExactNumbers): Promise<void> {
  let text: string | undefined
  try {
    text = JSON.stringify(value, null, indent)
    if (text !== undefined && numbers) text = numbers.restore(text)
  } catch (e) {
    // Too deep or too long for one string (the exact numbers may make it longer): in pieces.
    if (!(e instanceof RangeError)) throw e
    text = undefined
  }
  if (text !== undefined) {
    await out.write(`${text}\n`)
    return
  }
  for (const piece of jsonPieces(value, indent, numbers)) {
    const flushing = out.write(piece)
    if (flushing) await flushing
  }
  await out.write('\n')
}
