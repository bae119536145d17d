// What each plan operation does to one message: a copy with the edited fields changed (copy.ts),
// never the caller's message.

import type { PlanOp } from '../native.js'
import { KEPT, changed, closedWith, copyOf, filterList, listOf, mapList, withFields, type Seal } from './copy.js'
import { field, hasField, isObject, own } from './fields.js'
import { REASONING_KWARGS, THINKING_BLOCKS, metadataOf, partsOf, textOf, type AnyMessage } from './shapes.js'

/** The `context_editing` marker a copy starts from: the message's own when it is an object. */
function markerOf(md: AnyMessage): AnyMessage {
  const ce = field(md, 'context_editing')
  return isObject(ce) && !Array.isArray(ce) ? ce : {}
}

/** An OpenAI call with its `function.arguments` emptied. */
function withoutArguments(c: AnyMessage, close: Seal): AnyMessage {
  return closedWith(c, { function: closedWith(field(c, 'function'), { arguments: '{}' }, KEPT.call, close) }, KEPT.call, close)
}

export function clearedResult(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const placeholder = own(op, 'placeholder') ?? '[cleared]'
  if (p.shape === 'openai') return withFields(m, { content: placeholder })
  // Replaced, not merged: LangChain writes exactly `{ cleared, strategy }` (SEMANTICS §2 rule 4).
  const context_editing = close({ cleared: true, strategy: own(op, 'strategy') ?? 'clear_tool_uses' })
  const response_metadata = closedWith(metadataOf(p) ?? {}, { context_editing }, KEPT.metadata, close)
  return changed(m, p, { content: placeholder, response_metadata }, close, ['artifact'])
}

export function clearedInputs(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const positions = new Set(own(op, 'callIndices') ?? [])
  const ids = new Set<string>(own(op, 'toolCallIds') ?? [])
  const tool_calls = close(
    mapList(listOf(field(p.fields, 'tool_calls'), i, 'tool_calls'), (c, k) => {
      if (!positions.has(k)) return c
      return field(c, 'function') !== undefined ? withoutArguments(c, close) : closedWith(c, { args: close({}) }, KEPT.call, close)
    }),
  )
  if (p.shape === 'openai') return withFields(m, { tool_calls })
  const fields = changes({ tool_calls })
  const md = metadataOf(p) ?? {}
  const inputs = close([...(own(op, 'clearedToolInputs') ?? [...ids].sort(byCodeUnits))])
  const context_editing = closedWith(markerOf(md), { cleared_tool_inputs: inputs }, KEPT.metadata, close)
  fields.response_metadata = closedWith(md, { context_editing }, KEPT.metadata, close)
  // Anthropic-format content: the `tool_use` block of a cleared call loses its input too.
  const content = field(p.fields, 'content')
  if (Array.isArray(content)) {
    let emptied = false
    const next = mapList(listOf(content, i, 'content'), (b) => {
      if (isObject(b) && field(b, 'type') === 'tool_use' && ids.has(field(b, 'id'))) {
        emptied = true
        return closedWith(b, { input: close({}) }, KEPT.block, close)
      }
      return b
    })
    if (emptied) fields.content = close(next)
  }
  // Provider-raw OpenAI calls kept by @langchain/core 0.3 in `additional_kwargs.tool_calls`.
  const ak = field(p.fields, 'additional_kwargs')
  const rawCalls = isObject(ak) ? field(ak, 'tool_calls') : undefined
  if (Array.isArray(rawCalls)) {
    const raw = listOf(rawCalls, i, 'additional_kwargs.tool_calls')
    const emptied = mapList(raw, (c) => (isObject(c) && ids.has(field(c, 'id')) && isObject(field(c, 'function')) ? withoutArguments(c, close) : c))
    fields.additional_kwargs = closedWith(ak, { tool_calls: close(emptied) }, KEPT.metadata, close)
  }
  return changed(m, p, fields, close)
}

export function truncatedResult(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  let head = textOf(field(p.fields, 'content')).slice(0, own(op, 'keep') ?? 0)
  // Never end on the first half of a surrogate pair.
  const last = head.charCodeAt(head.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1)
  const content = head + (own(op, 'marker') ?? '')
  if (p.shape === 'openai') return withFields(m, { content })
  const md = metadataOf(p) ?? {}
  const context_editing = closedWith(markerOf(md), { truncated: true, strategy: own(op, 'strategy') ?? 'truncate_tool_results' }, KEPT.metadata, close)
  return changed(m, p, { content, response_metadata: closedWith(md, { context_editing }, KEPT.metadata, close) }, close)
}

export function withoutThinking(m: AnyMessage, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const fields = changes({})
  const content = field(p.fields, 'content')
  if (Array.isArray(content)) {
    fields.content = close(filterList(listOf(content, i, 'content'), (b) => !(isObject(b) && THINKING_BLOCKS.has(field(b, 'type')))))
  }
  const ak = field(p.fields, 'additional_kwargs')
  if (isObject(ak) && REASONING_KWARGS.some((k) => hasField(ak, k))) {
    const rest = copyOf(ak, KEPT.metadata)
    for (const k of REASONING_KWARGS) delete rest[k]
    fields.additional_kwargs = close(rest)
  }
  if (p.shape === 'openai') {
    const out = withFields(m, fields)
    delete out.reasoning_content
    return out
  }
  return changed(m, p, fields, close)
}

export function withoutCalls(m: AnyMessage, op: PlanOp, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  const positions = new Set(own(op, 'callIndices') ?? [])
  const ids = new Set(own(op, 'toolCallIds') ?? [])
  const tool_calls = close(filterList(listOf(field(p.fields, 'tool_calls'), i, 'tool_calls'), (_, k) => !positions.has(k)))
  if (p.shape === 'openai') {
    const out = withFields(m, { tool_calls })
    // OpenAI rejects an empty `tool_calls` array.
    if (tool_calls.length === 0) delete out.tool_calls
    return out
  }
  const fields = changes({ tool_calls })
  const content = field(p.fields, 'content')
  if (Array.isArray(content)) {
    fields.content = close(filterList(listOf(content, i, 'content'), (b) => !(isObject(b) && field(b, 'type') === 'tool_use' && ids.has(field(b, 'id')))))
  }
  const ak = field(p.fields, 'additional_kwargs')
  const rawCalls = isObject(ak) ? field(ak, 'tool_calls') : undefined
  if (Array.isArray(rawCalls)) {
    const kept = filterList(listOf(rawCalls, i, 'additional_kwargs.tool_calls'), (c) => !(isObject(c) && ids.has(field(c, 'id'))))
    fields.additional_kwargs = closedWith(ak, { tool_calls: close(kept) }, KEPT.metadata, close)
  }
  return changed(m, p, fields, close)
}

/**
 * The fields an edit changes, in an object without a prototype: a setter someone put on
 * Object.prototype (`content`, say) must not run when one is added.
 */
function changes(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, fields)
}

/** The order `Array.prototype.sort()` gives strings without a comparator: by UTF-16 code units. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
