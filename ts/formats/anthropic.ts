// Anthropic Messages: `{ role: 'user' | 'assistant', content: string | blocks }`, the system prompt in
// the request's top-level `system`.
//
// An assistant message is one AI unit whose content is the message's own block list (so `thinking`,
// `redacted_thinking`, `tool_use` inputs and `cache_control` are edited where they are) and whose
// `tool_calls` mirror its `tool_use` blocks (counted once, through the calls). A user message is
// cut at its `tool_result` blocks: each result is a tool unit, each run of other blocks (text,
// images, documents) a human unit. Encoding puts the edited blocks back in their places: a cleared
// result is its block with `content` replaced, every other field (`is_error`, `cache_control`, …)
// kept; a message whose units are all removed is removed.

import type { AnyMessage } from '../wire.js'
import { invalid } from './errors.js'
import { clearedMarker, isObject, printOf, type Segment, type UnitSource, isPlaceholder } from './types.js'

const FIELDS = ['role', 'content']

/** Decodes message `m` (at index `i`, for errors). */
export function anthropicSegment(m: Record<string, any>, i: number, placeholders: ReadonlySet<string>): Segment {
  const role = m.role
  const content = m.content
  if (role !== 'user' && role !== 'assistant') {
    throw invalid(
      i,
      'role',
      `expected "user" or "assistant" in the Anthropic Messages format, got ${JSON.stringify(role)}${role === 'system' ? " (the system prompt goes in the request's top-level `system`)" : ''}`,
    )
  }
  if (typeof content !== 'string' && !Array.isArray(content)) {
    throw invalid(i, 'content', 'expected a string or an array of content blocks')
  }
  const print = printOf(m, FIELDS, content)
  if (role === 'assistant') return assistant(m, i, print)
  return user(m, i, print, placeholders)
}

function assistant(m: Record<string, any>, i: number, print: unknown[]): Segment {
  const unit: AnyMessage = { type: 'ai', content: m.content }
  if (Array.isArray(m.content)) {
    const calls: AnyMessage[] = []
    m.content.forEach((b: unknown, k: number) => {
      if (!isObject(b) || b.type !== 'tool_use') return
      if (typeof b.id !== 'string' || b.id === '') throw invalid(i, `content[${k}].id`, 'a `tool_use` block needs a non-empty string `id`')
      if (typeof b.name !== 'string') throw invalid(i, `content[${k}].name`, 'a `tool_use` block needs a string `name`')
      calls.push({ id: b.id, name: b.name, args: isObject(b.input) ? b.input : {}, type: 'tool_call' })
    })
    if (calls.length) unit.tool_calls = calls
  }
  return {
    members: [m],
    prints: [print],
    units: [unit],
    from: [{ message: 0 }],
    // An edit that leaves an assistant message nothing (`clear_thinking` on a message that was only
    // thinking) removes it: Anthropic refuses an empty `content`.
    encode: ([edited]) => (edited === undefined || isEmpty(edited.content) ? [] : [{ ...m, content: edited.content }]),
  }
}

/** Whether `content` says nothing (Anthropic requires non-empty content but for a final assistant prefill). */
const isEmpty = (content: unknown): boolean => content === '' || (Array.isArray(content) && content.length === 0)

function user(m: Record<string, any>, i: number, print: unknown[], placeholders: ReadonlySet<string>): Segment {
  const units: AnyMessage[] = []
  const from: UnitSource[] = []
  /** For each unit, the block indices it stands for (`undefined`: the whole string content). */
  const blocks: Array<number[] | undefined> = []
  if (!Array.isArray(m.content) || m.content.length === 0) {
    units.push({ type: 'human', content: m.content })
    from.push({ message: 0 })
    blocks.push(undefined)
  } else {
    let run: number[] | undefined
    m.content.forEach((b: unknown, k: number) => {
      if (isObject(b) && b.type === 'tool_result') {
        run = undefined
        if (typeof b.tool_use_id !== 'string' || b.tool_use_id === '') {
          throw invalid(i, `content[${k}].tool_use_id`, 'a `tool_result` block needs a non-empty string `tool_use_id`')
        }
        const unit: AnyMessage = { type: 'tool', tool_call_id: b.tool_use_id, content: b.content ?? '' }
        if (isPlaceholder(placeholders, b.content, b.tool_use_id)) unit.response_metadata = clearedMarker()
        units.push(unit)
        from.push({ message: 0, part: k })
        blocks.push([k])
        return
      }
      if (run === undefined) {
        run = []
        units.push({ type: 'human', content: [] })
        from.push({ message: 0, part: k })
        blocks.push(run)
      }
      run.push(k)
      units[units.length - 1].content.push(b)
    })
  }
  return {
    members: [m],
    prints: [print],
    units,
    from,
    encode(edited) {
      if (edited.every((e) => e === undefined)) return []
      if (blocks[0] === undefined) return [{ ...m, content: edited[0]!.content }]
      const out: unknown[] = []
      edited.forEach((e, u) => {
        if (e === undefined) return
        const own = blocks[u]!
        if (units[u].type === 'tool') {
          const block = m.content[own[0]]
          out.push(e === units[u] ? block : { ...block, content: e.content })
        } else if (e === units[u]) {
          for (const k of own) out.push(m.content[k])
        } else if (Array.isArray(e.content)) {
          // A run of blocks the edit changed (a cache breakpoint on its last block).
          for (const b of e.content) out.push(b)
        } else {
          out.push({ type: 'text', text: String(e.content) })
        }
      })
      return [{ ...m, content: out }]
    },
  }
}

/** A summary message in Anthropic's shape. */
export function anthropicSummary(role: 'user' | 'assistant', text: string): unknown {
  return { role, content: text }
}
