// Mastra's stored messages (`MastraMessageV2`: `{ id, role, createdAt, content: { format: 2, parts,
// toolInvocations?, content? } }`), as the codec layer reads them (see ts/formats/types.ts).
//
// An assistant message holds a whole agent step loop: text, reasoning, and `tool-invocation` parts
// that carry the call and, once run, its result (`state: 'result'`). It is cut into the chat shape
// the editor knows: each step is an AI unit (its text and reasoning, its calls) followed by one tool
// unit per result. A `step-start` part, or text after a call, starts the next step. Encoding
// rebuilds only the parts the edit changed: a cleared result is its invocation with `result`
// replaced (in `parts` and in the legacy `toolInvocations` list alike), a cleared call's `args` are
// `{}`, a call the edit removed goes with its invocation, a removed reasoning part is left out.

import { randomUUID } from 'node:crypto'

import { mediaBlock } from '../formats/aisdk.js'
import { invalid } from '../formats/errors.js'
import { argsCleared, argsObject, clearedMarker, isObject, onlyBreakpoint, type Segment, type UnitSource, unmarked, isPlaceholder } from '../formats/types.js'
import type { AnyMessage } from '../wire.js'

const textOf = (parts: unknown[]): string => parts.map((p) => (isObject(p) && p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('')

/** A result as the content of a tool message (text as it is, anything else as JSON). */
const resultText = (r: unknown): string => (typeof r === 'string' ? r : (JSON.stringify(r ?? null) ?? ''))

/** Decodes Mastra message `m` (at index `i`, for errors). */
export function mastraSegment(m: Record<string, any>, i: number, placeholders: ReadonlySet<string>): Segment {
  const content = m.content
  if (!isObject(content) || !Array.isArray(content.parts)) throw invalid(i, 'content.parts', 'expected a Mastra message (`content.parts`)')
  if (m.role !== 'assistant') return userSegment(m, content)
  const steps = decodeSteps(content.parts, i, placeholders)
  return { members: [m], prints: [], units: steps.units, from: steps.from, encode: (edited) => encodeSteps(m, content, steps, edited) }
}

/** A user or system message: one unit, kept or dropped whole. */
function userSegment(m: Record<string, any>, content: Record<string, any>): Segment {
  const parts: unknown[] = content.parts
  const text = textOf(parts) || (typeof content.content === 'string' ? content.content : '')
  const unit = { type: m.role === 'system' ? 'system' : 'human', content: withMedia(text, parts, content.experimental_attachments) }
  return { members: [m], prints: [], units: [unit], from: [{ message: 0 }], encode: ([e]) => (e === undefined ? [] : [m]) }
}

/** An assistant message cut into units, and what encoding needs to map the edited units back. */
interface Steps {
  parts: unknown[]
  units: AnyMessage[]
  from: UnitSource[]
  /** The call each tool call id decoded to (to tell whether the edit cleared its args). */
  callOf: Map<string, AnyMessage>
  /** The tool unit each tool call id's result decoded to. */
  resultUnit: Map<string, number>
}

/** Cuts an assistant message's parts into steps: an AI unit each, then a tool unit per result. */
function decodeSteps(parts: unknown[], i: number, placeholders: ReadonlySet<string>): Steps {
  const steps: Steps = { parts, units: [], from: [], callOf: new Map(), resultUnit: new Map() }
  let ai: AnyMessage | undefined
  let pending: Array<{ id: string; k: number; result: unknown }> = []
  /** Ends the current step: its results become tool units after it. */
  const close = (): void => {
    for (const r of pending) pushResult(steps, r.id, r.k, r.result, placeholders)
    pending = []
    ai = undefined
  }
  /** The current step's AI unit, started at part `k` if there is none. */
  const open = (k: number): AnyMessage => {
    if (ai === undefined) {
      ai = { type: 'ai', content: [] }
      steps.units.push(ai)
      steps.from.push({ message: 0, part: k })
    }
    return ai
  }
  parts.forEach((p, k) => {
    if (!isObject(p)) return
    if (p.type === 'step-start' || ((p.type === 'text' || p.type === 'reasoning') && pending.length > 0)) close()
    if (p.type === 'text' && typeof p.text === 'string') open(k).content.push({ type: 'text', text: p.text })
    else if (p.type === 'reasoning') open(k).content.push(p)
    // A file the model made (an image, say): counted; written back as it is.
    else if (p.type === 'file') open(k).content.push(mediaBlock(p))
    else if (p.type === 'tool-invocation') {
      const inv = toolInvocation(p, i, k)
      const unit = open(k)
      const call = { id: inv.toolCallId, name: String(inv.toolName ?? ''), args: argsObject(inv.args), type: 'tool_call' }
      unit.tool_calls = [...(unit.tool_calls ?? []), call]
      steps.callOf.set(inv.toolCallId, call)
      if (inv.state === 'result') pending.push({ id: inv.toolCallId, k, result: inv.result })
    }
  })
  close()
  if (steps.units.length === 0) {
    steps.units.push({ type: 'ai', content: textOf(parts) })
    steps.from.push({ message: 0 })
  }
  return steps
}

/** Part `k`'s `toolInvocation`, checked to have a call id. */
function toolInvocation(p: Record<string, any>, i: number, k: number): Record<string, any> {
  const inv = p.toolInvocation
  if (!isObject(inv) || typeof inv.toolCallId !== 'string' || inv.toolCallId === '') {
    throw invalid(i, `content.parts[${k}].toolInvocation.toolCallId`, 'a tool invocation needs a non-empty string `toolCallId`')
  }
  return inv
}

/** Adds the tool unit for call `id`'s result (from part `k`). */
function pushResult(steps: Steps, id: string, k: number, result: unknown, placeholders: ReadonlySet<string>): void {
  const unit: AnyMessage = { type: 'tool', tool_call_id: id, content: resultText(result) }
  if (isPlaceholder(placeholders, unit.content, id)) unit.response_metadata = clearedMarker()
  steps.resultUnit.set(id, steps.units.length)
  steps.units.push(unit)
  steps.from.push({ message: 0, part: k })
}

/** Writes the edited units back as message `m`, rebuilding only the parts the edit changed. */
function encodeSteps(m: Record<string, any>, content: Record<string, any>, steps: Steps, edited: ReadonlyArray<AnyMessage | undefined>): unknown[] {
  if (edited.every((e) => e === undefined)) return []
  const keptBlocks = new Set<unknown>()
  const calls = new Map<string, AnyMessage>()
  edited.forEach((e, u) => {
    if (e === undefined || steps.units[u].type !== 'ai') return
    for (const b of Array.isArray(e.content) ? e.content : []) keptBlocks.add(b)
    for (const c of Array.isArray(e.tool_calls) ? e.tool_calls : []) calls.set(c.id, c)
  })
  const invocation = (inv: Record<string, any>): Record<string, any> | undefined => editedInvocation(inv, steps, calls, edited)
  const next: unknown[] = []
  for (const p of steps.parts) {
    if (isObject(p) && p.type === 'tool-invocation') {
      const inv = invocation(p.toolInvocation)
      if (inv !== undefined) next.push(inv === p.toolInvocation ? p : { ...p, toolInvocation: inv })
    } else if (isObject(p) && p.type === 'reasoning') {
      if (keptBlocks.has(p)) next.push(p)
    } else next.push(p)
  }
  // Nothing left (its reasoning cleared, say): no message, as for the other formats.
  if (next.length === 0) return []
  const rebuilt: Record<string, any> = { ...content, parts: next }
  if (Array.isArray(content.toolInvocations)) {
    rebuilt.toolInvocations = content.toolInvocations.flatMap((inv: unknown) => {
      if (!isObject(inv)) return [inv]
      const out = invocation(inv)
      return out === undefined ? [] : [out]
    })
  }
  return [{ ...m, content: rebuilt }]
}

/**
 * Invocation `inv` after the edit: undefined if its call or its result was removed, its `args` `{}`
 * if the call's args were cleared, its `result` replaced if the result was cleared; else `inv` itself.
 */
function editedInvocation(
  inv: Record<string, any>,
  steps: Steps,
  calls: Map<string, AnyMessage>,
  edited: ReadonlyArray<AnyMessage | undefined>,
): Record<string, any> | undefined {
  const after = calls.get(inv.toolCallId)
  if (after === undefined) return undefined
  let out = inv
  if (argsCleared(steps.callOf.get(inv.toolCallId), after)) out = { ...out, args: {} }
  const u = steps.resultUnit.get(inv.toolCallId)
  const e = u === undefined ? undefined : edited[u]
  if (u !== undefined && e === undefined) return undefined
  // Mastra has no cache breakpoints: a mark alone leaves the result as it is.
  if (u !== undefined && e !== steps.units[u] && !onlyBreakpoint(steps.units[u].content, e!.content)) out = { ...out, result: unmarked(e!.content) }
  return out
}

/**
 * A user message's content as the editor counts it: its text, and its images and files (`file` parts,
 * `experimental_attachments`) as blocks, so they are counted, not dropped.
 */
function withMedia(text: string, parts: unknown[], attachments: unknown): unknown {
  const media: unknown[] = []
  for (const p of parts) if (isObject(p) && (p.type === 'file' || p.type === 'image')) media.push(mediaBlock(p))
  if (Array.isArray(attachments)) {
    for (const a of attachments) {
      if (!isObject(a) || typeof a.url !== 'string') continue
      media.push(mediaBlock({ type: 'file', data: a.url, mediaType: a.contentType, filename: a.name }))
    }
  }
  return media.length === 0 ? text : [...(text ? [{ type: 'text', text }] : []), ...media]
}

/** A summary message in Mastra's shape. */
export function mastraSummary(role: 'user' | 'assistant', text: string): unknown {
  return {
    // Unique: two summaries written in the same millisecond (two threads, say) never share an id.
    id: `context-editor-summary-${randomUUID()}`,
    role,
    createdAt: new Date(),
    content: { format: 2, parts: [{ type: 'text', text }], content: text },
  }
}
