// A hand-made plan, read and checked before `applyPlan` applies it. The core checks its own plans
// (the editor's go straight to `applyEdits`), but `applyPlan` takes plans from anywhere: a plan
// edited by hand, stored as JSON, or made by another version. It never reaches the core, so it is
// checked here, once, with `INVALID_PLAN` naming the operation's field (`plan.ops[3].index`).

import { ContextEditorError, errorText } from '../errors.js'
import type { EditPlan, PlanOp, SummaryRequest } from '../native.js'
import { checkSummaryRequest } from '../summary.js'
import { describe, entry, field } from './fields.js'
import { messageError } from './locate.js'
import { MAX_ITEMS, MAX_MESSAGES, partsOf, type Parts } from './shapes.js'

/** A plan as `applyPlan` applies it: its operations and, when it asks for one, its summary request. */
export type ApplicablePlan = Pick<EditPlan, 'ops'> & { summary?: SummaryRequest | null }

/** Most operations a hand-made plan may hold (a longer list is a mistake, or sparse). */
const MAX_PLAN_OPS = MAX_MESSAGES
const OP_TYPES: ReadonlySet<string> = new Set([
  'remove',
  'clear_tool_result',
  'truncate_tool_result',
  'remove_thinking',
  'clear_tool_inputs',
  'remove_tool_calls',
  'cache_breakpoint',
])
/** The role of the messages an operation applies to (the others apply to any message). */
const OP_ROLES: ReadonlyMap<string, string> = new Map([
  ['clear_tool_result', 'tool'],
  ['truncate_tool_result', 'tool'],
  ['clear_tool_inputs', 'assistant'],
  ['remove_tool_calls', 'assistant'],
])

/** A caller's value in an error message, never converted (which could throw). */
function shownValue(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : describe(v)
}

/**
 * A plan given to `applyPlan`, read once into data of our own and checked against `messages`: what
 * `applyPlan` applies is exactly what was checked, whatever a getter answers later.
 */
export function readPlan(plan: unknown, messages: readonly unknown[]): ApplicablePlan {
  const fail = (path: string, what: string, cause?: unknown): ContextEditorError =>
    new ContextEditorError('INVALID_PLAN', `${path}: ${what}`, cause === undefined ? { path } : { path, cause })
  const read = <V>(path: string, get: () => V): V => {
    try {
      return get()
    } catch (e) {
      throw fail(path, `could not be read (${errorText(e)})`, e)
    }
  }
  if (plan === null || typeof plan !== 'object') throw fail('plan', `expected a plan (an object with \`ops\`), got ${describe(plan)}`)
  const list = read('plan.ops', () => field(plan, 'ops'))
  // The request before the operations: a plan for other messages is named by it when it has one.
  const summary = readRequest(plan, messages.length)
  if (!read('plan.ops', () => Array.isArray(list))) throw fail('plan.ops', `expected a list of operations, got ${describe(list)}`)
  const n = read('plan.ops', () => (list as unknown[]).length)
  if (n > MAX_PLAN_OPS) {
    throw fail('plan.ops', `expected at most ${MAX_PLAN_OPS.toLocaleString('en-US')} operations, got ${n.toLocaleString('en-US')}`)
  }
  const ops = new Array<PlanOp>(n)
  for (let k = 0; k < n; k++) {
    const at = `plan.ops[${k}]`
    ops[k] = readOp(
      read(at, () => entry(list as unknown[], k)),
      at,
      messages,
      read,
      fail,
    )
  }
  if (summary !== undefined) {
    // Each replaced message goes through its `remove` operation (kept when no summary is written).
    const removed = new Set(ops.filter((op) => op.type === 'remove').map((op) => op.index))
    summary.replaced.forEach((i, k) => {
      if (!removed.has(i)) {
        throw new ContextEditorError('INVALID_SUMMARY', `plan.summary.replaced[${k}]: message ${i} has no \`remove\` operation (a plan changed by hand?)`, {
          path: `plan.summary.replaced[${k}]`,
        })
      }
    })
  }
  return summary === undefined ? { ops } : { ops, summary }
}

type Read = <V>(path: string, get: () => V) => V
type Fail = (path: string, what: string, cause?: unknown) => ContextEditorError

/** One operation of a hand-made plan, as a plain `PlanOp` (see `readPlan`). */
function readOp(op: unknown, at: string, messages: readonly unknown[], read: Read, fail: Fail): PlanOp {
  if (op === null || typeof op !== 'object') throw fail(at, `expected an operation (an object), got ${describe(op)}`)
  const get = (key: string): unknown => read(`${at}.${key}`, () => field(op, key))
  const type = get('type')
  if (typeof type !== 'string' || !OP_TYPES.has(type)) throw fail(`${at}.type`, `expected one of ${[...OP_TYPES].join(', ')}, got ${shownValue(type)}`)
  const index = get('index')
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0 || index >= messages.length) {
    throw fail(`${at}.index`, `expected a message index below ${messages.length} (a plan for other messages?), got ${shownValue(index)}`)
  }
  const out = { type, index } as PlanOp & Record<string, unknown>
  const text = (key: string): void => {
    const v = get(key)
    if (v === undefined || v === null) return
    if (typeof v !== 'string') throw fail(`${at}.${key}`, `expected a string, got ${describe(v)}`)
    if (!v.isWellFormed()) throw fail(`${at}.${key}`, 'contains a lone UTF-16 surrogate (not valid Unicode)')
    out[key] = v
  }
  const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= 0xffffffff
  const list = (key: string, what: 'positions' | 'ids'): void => {
    const v = get(key)
    if (v === undefined || v === null) return
    if (!read(`${at}.${key}`, () => Array.isArray(v))) throw fail(`${at}.${key}`, `expected a list of ${what}, got ${describe(v)}`)
    const given = v as unknown[]
    const n = read(`${at}.${key}`, () => given.length)
    if (n > MAX_ITEMS) throw fail(`${at}.${key}`, `expected at most ${MAX_ITEMS.toLocaleString('en-US')} ${what}, got ${n.toLocaleString('en-US')}`)
    const copy = new Array<unknown>(n)
    for (let k = 0; k < n; k++) {
      const x = read(`${at}.${key}[${k}]`, () => entry(given, k))
      const ok = what === 'positions' ? isCount(x) : typeof x === 'string' && x.isWellFormed()
      if (!ok) throw fail(`${at}.${key}[${k}]`, `expected ${what === 'positions' ? 'a tool call position' : 'a tool call id'}, got ${shownValue(x)}`)
      copy[k] = x
    }
    out[key] = copy
  }
  switch (type) {
    case 'clear_tool_result':
      text('placeholder')
      text('strategy')
      break
    case 'truncate_tool_result': {
      const keep = get('keep')
      if (keep !== undefined && keep !== null) {
        if (!isCount(keep)) throw fail(`${at}.keep`, `expected a non-negative integer, got ${shownValue(keep)}`)
        out.keep = keep as number
      }
      text('marker')
      text('strategy')
      break
    }
    case 'clear_tool_inputs':
      list('callIndices', 'positions')
      list('toolCallIds', 'ids')
      list('clearedToolInputs', 'ids')
      break
    case 'remove_tool_calls':
      list('callIndices', 'positions')
      list('toolCallIds', 'ids')
      break
  }
  const role = OP_ROLES.get(type)
  if (role !== undefined) {
    const m = messages[index]
    let p: Parts
    try {
      p = partsOf(m, index)
    } catch (e) {
      throw messageError(e, index, m)
    }
    if (p.role !== role) {
      throw fail(
        at,
        `\`${type}\` applies to ${role === 'tool' ? 'a tool' : 'an assistant'} message, messages[${index}] is \`${p.role}\` (a plan for other messages?)`,
      )
    }
  }
  return out
}

/** A hand-made plan's summary request, read once into data of our own and checked (`checkSummaryRequest`). */
function readRequest(plan: object, length: number): SummaryRequest | undefined {
  // The path is the request's (its message names the field), as `checkSummaryRequest` reports it.
  const fail = (where: string, e: unknown): ContextEditorError =>
    new ContextEditorError('INVALID_SUMMARY', `${where}: could not be read (${errorText(e)})`, { path: 'plan.summary', cause: e })
  const read = <V>(path: string, get: () => V): V => {
    try {
      return get()
    } catch (e) {
      throw fail(path, e)
    }
  }
  const request = read('plan.summary', () => field(plan, 'summary'))
  if (request === undefined || request === null) return undefined
  if (typeof request !== 'object') {
    checkSummaryRequest(request, length)
    return undefined
  }
  const get = (key: string): unknown => read(`plan.summary.${key}`, () => field(request, key))
  let replaced = get('replaced')
  if (read('plan.summary.replaced', () => Array.isArray(replaced))) {
    const given = replaced as unknown[]
    const n = read('plan.summary.replaced', () => given.length)
    // Longer than the messages: `checkSummaryRequest` says so, without walking it.
    if (n <= length) replaced = Array.from({ length: n }, (_, k) => read(`plan.summary.replaced[${k}]`, () => entry(given, k)))
  }
  const copy = { replaced, insertAt: get('insertAt'), prefix: get('prefix'), role: get('role') }
  checkSummaryRequest(copy, length)
  return copy as unknown as SummaryRequest
}
