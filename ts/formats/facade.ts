// The editor's entry points for messages in a foreign format: decode, run the editor on the units,
// encode the result back (see index.ts). `ContextEditor` calls `formatted` first on every call;
// `undefined` means the messages are native and the editor goes on as before.

import { unreadable } from '../errors.js'
import type { EditPlan, EditReport, TokenCountResult } from '../native.js'
import { field, notePollution } from '../wire.js'
import { type Decoded, type FormatCodec, type FormatOption, readFormat } from './index.js'
import type { RequestParts } from './types.js'

export type CallKind = 'edit' | 'plan' | 'count'

/** The plan each `EditResult` was applied from (set by the editor, read here to align the output). */
export const RESULT_PLANS = new WeakMap<object, EditPlan>()

const FORMATTED_PLANS = new WeakMap<object, () => EditPlan>()

/** The plan an edit result was made from, in the indices of the messages it was given. */
export function planOf(result: object): EditPlan | undefined {
  return RESULT_PLANS.get(result) ?? FORMATTED_PLANS.get(result)?.()
}

/** What a call returns for foreign messages: `edit`'s result also holds the rebuilt request. */
export interface FormattedResult {
  messages: unknown[]
  request?: unknown
  report: EditReport
}

/**
 * Runs `inner` (the editor's own call) on the decoded units of `messages` when they are foreign or
 * a whole request; `undefined` when they are native (the caller runs its own path).
 */
export function formatted(
  codec: FormatCodec,
  option: FormatOption | undefined,
  messages: unknown,
  context: unknown,
  kind: CallKind,
  inner: (units: unknown[], context: unknown) => unknown,
): unknown {
  // The editor's own call on decoded units.
  if (context !== null && typeof context === 'object' && DECODED.has(context)) return undefined
  // Whether Object.prototype holds keys now (see `field` in wire.ts): detection reads around them.
  notePollution()
  let given: unknown
  try {
    given = context !== null && typeof context === 'object' ? field(context, 'format') : undefined
  } catch {
    // A context that cannot be read (a revoked Proxy, say): the editor reads it field by field and
    // names the first that throws; `format` is then not given.
    given = undefined
  }
  const d = codec.decode(messages, readFormat(given, 'context') ?? option)
  if (d === undefined) return undefined
  const ctx = withParts(context, d.parts)
  let out: unknown
  try {
    out = inner(d.units, ctx)
  } catch (e) {
    throw d.remapError(e)
  }
  if (out instanceof Promise) {
    return out.then(
      (r) => back(d, kind, r),
      (e) => {
        throw d.remapError(e)
      },
    )
  }
  return back(d, kind, out)
}

/** Contexts of calls on decoded units (which are native, whatever the `format` option says). */
const DECODED = new WeakSet<object>()

/** The call's context, with what the request brings for the fields it leaves out. */
function withParts(context: unknown, parts: RequestParts): object {
  const ctx: Record<string, unknown> = Object.create(context !== null && typeof context === 'object' ? context : null)
  DECODED.add(ctx)
  for (const key of ['systemPrompt', 'tools', 'model'] as const) {
    if (parts[key] === undefined) continue
    let mine: unknown
    try {
      mine = field(ctx, key)
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', `context.${key}`, e, { path: key })
    }
    if (mine === undefined || mine === null) ctx[key] = parts[key]
  }
  return ctx
}

function back(d: Decoded, kind: CallKind, out: unknown): unknown {
  if (kind === 'count') return d.remapCounts(out as TokenCountResult)
  if (kind === 'plan') return d.remapPlan(out as EditPlan)
  const result = out as { messages: Record<string, any>[]; report: EditReport }
  const plan = RESULT_PLANS.get(result)
  if (plan === undefined) throw new Error('internal error: an edit result without its plan')
  const { messages, request } = d.encode(result.messages, plan)
  let report: EditReport | undefined
  const formattedResult: FormattedResult = {
    messages,
    get report(): EditReport {
      if (report === undefined) {
        report = d.remapReport(result.report)
        report.messagesBefore = d.count
        report.messagesAfter = messages.length
      }
      return report
    },
    set report(value: EditReport) {
      report = value
    },
  }
  if (request !== undefined) formattedResult.request = request
  // Adapters that store a summary read the plan in the caller's indices (made when asked).
  let remapped: EditPlan | undefined
  FORMATTED_PLANS.set(formattedResult, () => (remapped ??= d.remapPlan(plan)))
  return formattedResult
}
