// Lengths-only conversations as columns: the wire of approx mode. One walk over the caller's
// messages reads each into one reused record (`readWire`: every check and error of `toWire`, in
// the same order) and writes it into typed arrays of flags, counts and lengths plus a list of the
// strings the core needs (ids, names, and text only where an edit reads it); the native side
// (src/columns.rs) builds its messages from them. No wire object per message and no JSON: about
// what the old path spent on `toWire` objects, `JSON.stringify` and serde's parse.
//
// The layout (per message: 3 integers, 7 numbers with `NaN` for absent, its calls' argument
// lengths, its strings) is documented with `WireColumns` in src/columns.rs; the bits below are its
// flags. Both ends must agree: __test__/columnar-wire.spec.mjs checks that columns and JSON give
// the same plans and errors.

import {
  HeldContext as HeldContextClass,
  NativeContextEditor,
  bindingTarget,
  type EditContext as WireContext,
  type HeldContext,
  type PackedPlan,
  type TokenCountResult,
  type WireColumns,
  type WireMessage,
} from '../native.js'
import { newParts, readWire, wireOf, type WireOptions, type WireParts } from './convert.js'
import { isPolluted } from './fields.js'
import { messageError } from './locate.js'
import { liveEntry, memoEntry, newPrint } from './memo.js'

const ROLES: ReadonlyMap<string, number> = new Map([
  ['system', 0],
  ['user', 1],
  ['assistant', 2],
  ['tool', 3],
])
const CLEARED = 1 << 2
const TRUNCATED = 1 << 3
const PINNED = 1 << 4
const TOOL_CALL_ID = 1 << 5
const NAME = 1 << 6
const CONTENT = 1 << 7
const OTHER = 1 << 8
const ARGS = 1 << 9

let columnar = true

/**
 * Whether approx-mode editors send columns (the default) or, as before them, JSON text. For the
 * differential test and the benchmark; returns the previous setting.
 */
export function setColumnarWire(on: boolean): boolean {
  const was = columnar
  columnar = on
  return was
}

let loaded: boolean | undefined

/**
 * Whether approx-mode editors send columns (see `setColumnarWire`): only where the loaded binding
 * takes them for plans and counts (a WebAssembly build made before them does not; it is sent JSON,
 * or wire objects to count).
 */
export function columnarWire(): boolean {
  const proto = NativeContextEditor.prototype as Partial<NativeContextEditor> | undefined
  loaded ??= typeof proto?.planColumns === 'function' && typeof proto.countTokensColumns === 'function'
  return columnar && loaded
}

let withText = bindingTarget !== undefined
/**
 * Natively, columns that carry text send their strings as an array (`WireColumns.strings`):
 * joined, a history with two-byte text became one two-byte string twice its text's size, which the
 * binding then decoded from UTF-16 (a cold exact `edit` of 2,000 messages took a fifth longer than
 * with wire objects). On WebAssembly the joined string is what the shim's encoder writes at once.
 */
const LIST_TEXT = bindingTarget === 'native'

/**
 * Whether messages whose text crosses (model and estimate counting) cross as columns too, as
 * lengths-only messages do: on both builds (natively, a wire object costs napi a property read per
 * field, 18 per message: a cold exact `edit` of 200 messages took 9 % less as columns,
 * docs/performance.md). For the differential test: returns the previous setting.
 */
export function setTextColumns(on: boolean): boolean {
  const was = withText
  withText = on
  return was
}

/** Whether messages that cross with `sendText` go as columns (see `columnarWire`, `setTextColumns`). */
export function columnsCarry(sendText: boolean): boolean {
  return (!sendText || withText) && columnarWire()
}

/** Writes messages into columns, growing them as needed. */
class ColumnWriter {
  ints: Uint32Array
  nums: Float64Array
  args: Float64Array
  lengths: Uint32Array
  readonly strings: string[] = []
  n = 0
  calls = 0
  /** Whether a message's text (content, other blocks, arguments) is among the strings. */
  text = false

  constructor(messages: number) {
    this.ints = new Uint32Array(messages * 3)
    this.nums = new Float64Array(messages * 7)
    this.args = new Float64Array(Math.max(16, messages))
    this.lengths = new Uint32Array(Math.max(16, messages * 2))
  }

  /** Room for twice the messages. */
  grow(): void {
    this.ints = grown(this.ints, Math.max(3, this.ints.length * 2))
    this.nums = grown(this.nums, Math.max(7, this.nums.length * 2))
  }

  #string(s: string): void {
    const k = this.strings.length
    if (k === this.lengths.length) this.lengths = grown(this.lengths, k * 2)
    this.lengths[k] = s.length
    this.strings.push(s)
  }

  /** A string of text (see `text`); returns its length. */
  #text(s: string): number {
    this.#string(s)
    this.text = true
    return s.length
  }

  /**
   * Adds the message `w` holds; returns the characters of text it sends (as sessions.ts counts a
   * piece), or -1 when it cannot cross as columns: a cleared-input id that is not valid Unicode
   * (`readWire` refuses those now, naming the message and id: a guard, should another reader let
   * one through).
   */
  add(w: WireParts): number {
    const inputs = w.clearedToolInputs
    if (inputs !== undefined) for (const id of inputs) if (!id.isWellFormed()) return -1
    const i = this.n++
    let flags = ROLES.get(w.role)!
    if (w.cleared) flags |= CLEARED
    if (w.truncated) flags |= TRUNCATED
    if (w.pinned) flags |= PINNED
    if (w.toolCallId !== undefined) flags |= TOOL_CALL_ID
    if (w.name !== undefined) flags |= NAME
    const text = w.sendText && w.text !== ''
    const other = w.sendText && w.other !== ''
    if (text) flags |= CONTENT
    if (other) flags |= OTHER
    if (w.argsText) flags |= ARGS
    const calls = w.calls
    this.ints[i * 3] = flags
    this.ints[i * 3 + 1] = calls.length
    this.ints[i * 3 + 2] = inputs === undefined ? 0 : inputs.length
    const at = i * 7
    const nums = this.nums
    nums[at] = !w.sendText && w.text !== '' ? w.text.length : NaN
    nums[at + 1] = !w.sendText && w.other !== '' ? w.other.length : NaN
    nums[at + 2] = w.thinkingLength || NaN
    nums[at + 3] = w.images || NaN
    nums[at + 4] = w.imageTokens ?? NaN
    nums[at + 5] = calls.length ? w.toolCallsLength : NaN
    nums[at + 6] = w.tokens ?? NaN
    let chars = 64
    if (w.toolCallId !== undefined) this.#string(w.toolCallId)
    if (w.name !== undefined) this.#string(w.name)
    if (text) chars += this.#text(w.text)
    if (other) chars += this.#text(w.other)
    if (calls.length) chars += this.#calls(w)
    if (inputs !== undefined) for (const id of inputs) this.#string(id)
    return chars
  }

  /**
   * `add` for a message the memo holds as a wire object (made by an earlier call of the editor with
   * the same options, e.g. `countTokens`): the same row, without reading the message again.
   */
  addWire(given: WireMessage): number {
    // A field a wire object lacks must read as absent, not as what a key put on Object.prototype
    // holds (JSON.stringify, the JSON wire, reads own fields only).
    const wire = isPolluted() ? ownWire(given) : given
    const inputs = wire.clearedToolInputs
    if (inputs !== undefined) for (const id of inputs) if (!id.isWellFormed()) return -1
    const i = this.n++
    const calls = wire.toolCalls ?? []
    const argsText = calls.length > 0 && calls[0].args !== undefined
    let flags = ROLES.get(wire.role)!
    if (wire.cleared) flags |= CLEARED
    if (wire.truncated) flags |= TRUNCATED
    if (wire.pinned) flags |= PINNED
    if (wire.toolCallId != null) flags |= TOOL_CALL_ID
    if (wire.name != null) flags |= NAME
    if (wire.content != null) flags |= CONTENT
    if (wire.other != null) flags |= OTHER
    if (argsText) flags |= ARGS
    this.ints[i * 3] = flags
    this.ints[i * 3 + 1] = calls.length
    this.ints[i * 3 + 2] = inputs === undefined ? 0 : inputs.length
    const at = i * 7
    const nums = this.nums
    nums[at] = wire.contentLength ?? NaN
    nums[at + 1] = wire.otherLength ?? NaN
    nums[at + 2] = wire.thinkingLength ?? NaN
    nums[at + 3] = wire.images ?? NaN
    nums[at + 4] = wire.imageTokens ?? NaN
    nums[at + 5] = wire.toolCallsLength ?? NaN
    nums[at + 6] = wire.tokens ?? NaN
    let chars = 64
    if (wire.toolCallId != null) this.#string(wire.toolCallId)
    if (wire.name != null) this.#string(wire.name)
    if (wire.content != null) chars += this.#text(wire.content)
    if (wire.other != null) chars += this.#text(wire.other)
    if (this.calls + calls.length > this.args.length) this.args = grown(this.args, (this.calls + calls.length) * 2)
    for (const c of calls) {
      this.args[this.calls++] = c.argsLength ?? NaN
      this.#string(c.id)
      this.#string(c.name ?? '')
      if (argsText) chars += this.#text(c.args!)
    }
    if (inputs !== undefined) for (const id of inputs) this.#string(id)
    return chars
  }

  /** The tool calls of `w`; returns the characters of arguments sent as text. */
  #calls(w: WireParts): number {
    let chars = 0
    if (this.calls + w.calls.length > this.args.length) this.args = grown(this.args, (this.calls + w.calls.length) * 2)
    for (const c of w.calls) {
      this.args[this.calls++] = w.argsText ? NaN : c.argsLength
      this.#string(c.id)
      this.#string(c.name)
      if (w.argsText) chars += this.#text(c.args)
    }
    return chars
  }

  /**
   * The columns written; natively the strings as an array when they hold text (see `LIST_TEXT`;
   * ids and names alone are cheaper joined: a cold approx edit of 2,000 messages took 5-10 % more
   * with them listed), else joined.
   */
  columns(): WireColumns {
    const strings = this.strings
    return {
      ints: this.ints.subarray(0, this.n * 3),
      nums: this.nums.subarray(0, this.n * 7),
      args: this.args.subarray(0, this.calls),
      strings: LIST_TEXT && this.text ? strings : strings.join(''),
      lengths: this.lengths.subarray(0, strings.length),
    }
  }
}

/** `wire` and its tool calls as objects without a prototype: only their own fields can be read. */
function ownWire(wire: WireMessage): WireMessage {
  const out: WireMessage = Object.assign(Object.create(null), wire)
  if (Object.hasOwn(wire, 'toolCalls') && wire.toolCalls !== undefined) out.toolCalls = wire.toolCalls.map((c) => Object.assign(Object.create(null), c))
  return out
}

function grown<A extends Uint32Array | Float64Array>(a: A, size: number): A {
  const b = new (a.constructor as new (n: number) => A)(size)
  b.set(a)
  return b
}

/**
 * `messages[from..to)` as columns, or fewer once they hold `maxChars` of text (a piece of a long
 * history, counted as sessions.ts counts one), each message read and checked as `toWire` reads
 * it, through the editor's memo: their fingerprints are pushed to `prints`. Returns the columns
 * and where they end; `undefined` when a message cannot cross as columns (send JSON then; `prints`
 * is left as it was).
 * @throws {ContextEditorError} `INVALID_MESSAGE` naming the message, as `toWireRemembered`.
 */
export function toColumns(
  messages: readonly unknown[],
  from: number,
  to: number,
  opts: WireOptions,
  prints: Array<unknown[] | undefined>,
  maxChars = Infinity,
): [WireColumns, number] | undefined {
  const writer = new ColumnWriter(Math.min(to - from, 1 << 16))
  const w = newParts()
  const mark = prints.length
  let chars = 0
  let i = from
  while (i < to && chars < maxChars) {
    const m = messages[i]
    let print: unknown[] | undefined
    let wire: WireMessage | undefined
    try {
      // A message the memo holds unchanged as a wire object is not read again. One read a second
      // time unchanged (a count each turn, a history planned whole again) keeps its wire form for
      // the reads after; a first read keeps none, so a cold call makes no object per message.
      const entry = memoEntry(m, i, opts)
      const hit = liveEntry(m as object, entry)
      wire = hit?.wire
      if (wire === undefined) {
        readWire(m, i, opts, w)
        if (hit !== undefined) wire = hit.wire = wireOf(w)
      }
      print = hit !== undefined ? hit.print : newPrint(m as object, entry, opts)
    } catch (e) {
      throw messageError(e, i, m)
    }
    if (writer.n * 3 === writer.ints.length) writer.grow()
    const sent = wire === undefined ? writer.add(w) : writer.addWire(wire)
    if (sent < 0) {
      prints.length = mark
      return undefined
    }
    chars += sent
    prints.push(print)
    i++
  }
  return [writer.columns(), i]
}

/** New messages for a session, in any wire form: JSON text, wire objects or columns. */
export type Tail = string | WireMessage[] | WireColumns

const isColumns = (tail: Tail): tail is WireColumns => typeof tail === 'object' && !Array.isArray(tail)

/** `planSession`, or `planSessionColumns` for columns. */
export function planSession(native: NativeContextEditor, id: number, reuse: number, tail: Tail, ctx: WireContext | HeldContext): PackedPlan | null {
  return isColumns(tail) ? native.planSessionColumns(id, reuse, tail, ctx) : native.planSession(id, reuse, tail, ctx)
}

/** `planSessionAsync`, or `planSessionColumnsAsync` for columns. */
export function planSessionAsync(
  native: NativeContextEditor,
  id: number,
  reuse: number,
  tail: Tail,
  ctx: WireContext | HeldContext,
): Promise<PackedPlan | null> {
  return isColumns(tail) ? native.planSessionColumnsAsync(id, reuse, tail, ctx) : native.planSessionAsync(id, reuse, tail, ctx)
}

/**
 * `countSession`, or `countSessionColumns` for columns; `null` (a miss) from a binding without
 * them, as from an unknown session.
 */
export function countSession(native: NativeContextEditor, id: number, reuse: number, tail: Tail, ctx: WireContext | HeldContext): TokenCountResult | null {
  if (isColumns(tail)) return typeof native.countSessionColumns === 'function' ? native.countSessionColumns(id, reuse, tail, ctx) : null
  return typeof native.countSession === 'function' ? native.countSession(id, reuse, tail, ctx) : null
}

/** `countHeld`, or `countHeldColumns` for columns (see `Sessions.count`: only with a binding that has them). */
export function countHeld(native: NativeContextEditor, id: number, reuse: number, tail: Tail, ctx: WireContext | HeldContext): TokenCountResult | null {
  return isColumns(tail) ? native.countHeldColumns(id, reuse, tail, ctx) : native.countHeld(id, reuse, tail, ctx)
}

/** `countHeldAsync`, or `countHeldColumnsAsync` for columns. */
export function countHeldAsync(
  native: NativeContextEditor,
  id: number,
  reuse: number,
  tail: Tail,
  ctx: WireContext | HeldContext,
): Promise<TokenCountResult | null> {
  return isColumns(tail) ? native.countHeldColumnsAsync(id, reuse, tail, ctx) : native.countHeldAsync(id, reuse, tail, ctx)
}

/** `appendSession`, or `appendSessionColumns` for columns. */
export function appendSession(native: NativeContextEditor, id: number, reuse: number, tail: Tail): boolean {
  return isColumns(tail) ? native.appendSessionColumns(id, reuse, tail) : native.appendSession(id, reuse, tail)
}

let primed = false

/**
 * The WebAssembly build compiles each of its functions the first time it runs (V8's lazy
 * compilation of WebAssembly), so a process's first plan paid for compiling the whole approx path:
 * the first `wrapModelCall` of the bench took 27-30 ms there against 10 ms natively. At load, a
 * conversation of three messages is planned, then again with a fourth (a cold call and a next
 * call, with a held context, through columns and the packed plan: what every approx plan runs), on
 * an editor of its own, which is then dropped. About 16 ms of the import on the WebAssembly build;
 * the native addon is compiled already and is not primed. Nothing it does can fail the load.
 */
function primeWebAssembly(): void {
  try {
    const opts: WireOptions = { sendText: false, sendToolText: false, placeholders: undefined, cache: undefined, messageTokens: undefined }
    const messages = [
      { role: 'user', content: 'read a' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c', type: 'function', function: { name: 'read', arguments: '{"p":"a"}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'the text of a' },
      { role: 'user', content: 'thanks' },
    ]
    const editor = new NativeContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 } })
    const context = new (HeldContextClass as NonNullable<typeof HeldContextClass>)({ systemPromptLength: 4, toolLengths: [40] })
    const first = toColumns(messages, 0, 3, opts, [])
    const next = toColumns(messages, 3, 4, opts, [])
    if (first === undefined || next === undefined) return
    editor.planSessionColumns(1, 0, first[0], context)
    editor.planSessionColumns(1, 3, next[0], context)
    editor.countTokensColumns(first[0], context)
    primed = true
  } catch {
    // a build without one of these calls: its first plan compiles them, as before
  }
}

/** Whether the WebAssembly build was primed at load (see `primeWebAssembly`); natively `false`. */
export function primedAtLoad(): boolean {
  return primed
}

if (bindingTarget !== undefined && bindingTarget !== 'native' && columnarWire() && HeldContextClass !== undefined) primeWebAssembly()
