// A session call's plan comes packed (src/packed.rs): four numbers per operation, `[kind, index,
// a, b]`, in one Uint32Array, the strings they name as UTF-8 bytes (read when an operation is
// made, see `StringTable`), an operation with lists as its JSON text among those strings, and the
// report native until read. `PackedOpKind` is the Rust enum napi generates into binding.d.cts as a
// const enum: its values are inlined here at compile time, and tsc drops the import (it is type-level;
// `isolatedModules` would keep it and load the binding from this module: replace it by the
// run-time `PackedOpKind` of native.ts before turning that on).

import type { EditPlan, EditReport, PackedPlan, PlanOp } from '../native.js'
import { PackedOpKind } from '../../binding.cjs'
import { isPolluted, own } from './fields.js'

/** The op types of the kinds that carry no strings, by kind. */
const BARE_KINDS: Readonly<Record<number, 'remove' | 'remove_thinking' | 'cache_breakpoint'>> = {
  [PackedOpKind.Remove]: 'remove',
  [PackedOpKind.RemoveThinking]: 'remove_thinking',
  [PackedOpKind.CacheBreakpoint]: 'cache_breakpoint',
}

interface Extra {
  summary?: EditPlan['summary']
  /** A binding built before `stringBytes`. */
  strings?: string[]
}

/**
 * The strings a packed plan's operations name, by position: UTF-8 bytes one after another, each
 * decoded when first read. A next call makes the few operations past what it reuses (see
 * `samePrefix`), and reads only their strings: with the recall tool's placeholder, one string per
 * cleared result, all of which JSON made into strings on every call. Each string decoded is a
 * string of its own (never a slice of a larger one, which a cleared copy would keep alive).
 */
export class StringTable {
  readonly #bytes: Buffer
  readonly #ends: Uint32Array
  readonly #read: Array<string | undefined>

  constructor(bytes: Uint8Array, ends: Uint32Array) {
    this.#bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.#ends = ends
    // No holes: a hole would be read through the prototype chain (a key put on Object.prototype).
    this.#read = new Array<string | undefined>(ends.length).fill(undefined)
  }

  /** The table of a binding built before `stringBytes`: the strings as a list. */
  static of(list: readonly string[]): StringTable {
    const ends = new Uint32Array(list.length)
    let end = 0
    for (let k = 0; k < list.length; k++) ends[k] = end += Buffer.byteLength(list[k])
    const table = new StringTable(Buffer.from(list.join('')), ends)
    for (let k = 0; k < list.length; k++) table.#read[k] = list[k]
    return table
  }

  get length(): number {
    return this.#ends.length
  }

  /** The `k`-th string. */
  at(k: number): string {
    let s = this.#read[k]
    if (s === undefined) {
      s = this.#bytes.toString('utf8', k === 0 ? 0 : this.#ends[k - 1], this.#ends[k])
      this.#read[k] = s
    }
    return s
  }

  /** How many leading strings this table and `other` have in common (compared as bytes, none decoded). */
  sharedWith(other: StringTable): number {
    const [a, b] = [this.#ends, other.#ends]
    const n = Math.min(a.length, b.length)
    let k = 0
    while (k < n && a[k] === b[k]) k++
    // The same ends up to `k`: usually the same bytes too (a next call's table starts with the previous one's).
    if (k === 0 || this.#bytes.compare(other.#bytes, 0, a[k - 1], 0, a[k - 1]) === 0) return k
    let j = 0
    for (let start = 0; j < k && this.#bytes.compare(other.#bytes, start, a[j], start, a[j]) === 0; j++) start = a[j]
    return j
  }
}

/**
 * The plan from its packed form. The operations are made when first read, the report (the bulk of
 * the text when many results are cleared) parsed when first read. `opsFrom(k)` makes the
 * operations from the `k`-th on (an edit that reuses its previous output needs only the last few).
 */
export function unpack(packed: PackedPlan): { plan: EditPlan; strings: StringTable; opsFrom: (first: number) => PlanOp[] } {
  const extra = JSON.parse(packed.extra) as Extra
  const words = packed.ops
  const strings = packed.stringEnds === undefined ? StringTable.of(extra.strings ?? []) : new StringTable(packed.stringBytes, packed.stringEnds)
  const opsFrom = (first: number): PlanOp[] => {
    const ops = new Array<PlanOp>(Math.max(0, (words.length >>> 2) - first))
    for (let k = 0, w = first * 4; w < words.length; k++, w += 4) ops[k] = opAt(words, w, strings)
    return ops
  }
  const plan = {} as EditPlan
  let ops: PlanOp[] | undefined
  Object.defineProperty(plan, 'ops', {
    enumerable: true,
    configurable: true,
    get(): PlanOp[] {
      ops ??= opsFrom(0)
      return ops
    },
    set(value: PlanOp[]) {
      ops = value
    },
  })
  const summary = own(extra, 'summary')
  if (summary) plan.summary = summary
  // Kept native until read, or its text already: a small report (totals and a few entries), or any
  // while many unread reports are kept native (see `SMALL_REPORT` and `PackedReport` in
  // src/packed.rs).
  const handle = packed.report
  const text = packed.reportJson
  let report: EditReport | undefined
  Object.defineProperty(plan, 'report', {
    enumerable: true,
    configurable: true,
    get(): EditReport {
      report ??= JSON.parse(typeof text === 'string' ? text : handle!.json()) as EditReport
      return report
    },
    set(value: EditReport) {
      report = value
    },
  })
  return { plan: settled(plan), strings, opsFrom }
}

/** The operation whose four numbers start at `words[w]`. */
function opAt(words: Uint32Array, w: number, strings: StringTable): PlanOp {
  const kind = words[w]
  const index = words[w + 1]
  if (kind === PackedOpKind.ClearToolResult) {
    return { type: 'clear_tool_result', index, placeholder: strings.at(words[w + 2]), strategy: strings.at(words[w + 3]) }
  }
  // An operation with lists (`clear_tool_inputs`, `remove_tool_calls`, `truncate_tool_result`):
  // its JSON text.
  if (kind === PackedOpKind.Other) return JSON.parse(strings.at(words[w + 2])) as PlanOp
  return { type: BARE_KINDS[kind], index }
}

/**
 * `plan`, whose `summary` is read as a field of its own: a plan without a summary gets an own
 * (hidden) `undefined` one while Object.prototype is polluted (see `field` in fields.ts).
 */
export function settled<P extends EditPlan>(plan: P): P {
  if (isPolluted() && !Object.hasOwn(plan, 'summary')) Object.defineProperty(plan, 'summary', { value: undefined, writable: true, configurable: true })
  return plan
}

/**
 * How far two packed plans of one conversation (this call's `words`, the previous call's `before`)
 * agree, below message `upTo`: the first message where their operations differ (`upTo`, lowered),
 * how many operations come before it (`ops`) and how many of those remove a message (`removed`).
 * The two string tables agree on their first `sharedStrings` entries: an operation naming a later
 * string is taken as different. Strings are listed in the order first named, so a plan that only
 * clears more results than the previous one (each with a placeholder naming its call, as the
 * recall tool's does) shares the previous table as its start, and the operations that name it.
 * The same holds for an operation with lists, whose string is its JSON text (with
 * `clearToolInputs`, one per assistant message whose calls' arguments are cleared).
 */
export function samePrefix(words: Uint32Array, before: Uint32Array, upTo: number, sharedStrings: number): { upTo: number; ops: number; removed: number } {
  let w = 0
  for (; w < words.length && w < before.length; w += 4) {
    const index = words[w + 1]
    if (index >= upTo) break
    if (
      words[w] !== before[w] ||
      index !== before[w + 1] ||
      words[w + 2] !== before[w + 2] ||
      words[w + 3] !== before[w + 3] ||
      ((words[w] === PackedOpKind.ClearToolResult || words[w] === PackedOpKind.Other) && (words[w + 2] >= sharedStrings || words[w + 3] >= sharedStrings))
    )
      break
  }
  if (w < words.length) upTo = Math.min(upTo, words[w + 1])
  if (w < before.length) upTo = Math.min(upTo, before[w + 1])
  let removed = 0
  let v = 0
  for (; v < w && words[v + 1] < upTo; v += 4) if (words[v] === PackedOpKind.Remove) removed++
  return { upTo, ops: v >>> 2, removed }
}
