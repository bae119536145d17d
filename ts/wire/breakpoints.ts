// Prompt-cache breakpoints (Anthropic `cache_control`)

import { unreadable } from '../errors.js'
import { KEPT, changed, filterList, listOf, withFields, type Seal } from './copy.js'
import { entry, field, isObject } from './fields.js'
import { messageError } from './locate.js'
import { MAX_ITEMS, MAX_MESSAGES, THINKING_BLOCKS, partsOf, type AnyMessage } from './shapes.js'

const EPHEMERAL = Object.freeze({ type: 'ephemeral' })

function hasCacheControl(x: unknown): boolean {
  return x !== null && typeof x === 'object' && field(x, 'cache_control') != null
}

/** `cache_control` markers in a message's content blocks (or on the message itself). */
function cacheControlsOf(fields: AnyMessage | undefined): number {
  if (!fields || typeof fields !== 'object') return 0
  let n = hasCacheControl(fields) ? 1 : 0
  const content = field(fields, 'content')
  // A longer list is rejected by conversion (after this count): never walk it here.
  if (Array.isArray(content) && content.length <= MAX_ITEMS) for (let k = 0; k < content.length; k++) if (hasCacheControl(entry(content, k))) n++
  return n
}

/**
 * Prompt-cache breakpoints a request already carries: `cache_control` on content blocks of the
 * messages and the system message, and on tool definitions (Anthropic allows 4 per request).
 * @throws {ContextEditorError} when a getter or Proxy trap of a message or the context throws.
 */
export function countCacheBreakpoints(messages: unknown, systemPrompt?: unknown, tools?: ReadonlyArray<unknown> | null): number {
  let n = 0
  if (Array.isArray(messages) && messages.length <= MAX_MESSAGES) {
    for (let k = 0; k < messages.length; k++) {
      const m = entry(messages, k)
      if (m === null || typeof m !== 'object') continue
      try {
        const data = typeof field(m, 'type') === 'string' ? field(m, 'data') : undefined
        n += cacheControlsOf(data && typeof data === 'object' ? data : m)
      } catch (e) {
        throw messageError(e, k, m)
      }
    }
  }
  if (systemPrompt !== null && typeof systemPrompt === 'object') {
    try {
      n += cacheControlsOf(systemPrompt as AnyMessage)
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', 'context.systemPrompt', e, { path: 'systemPrompt' })
    }
  }
  if (Array.isArray(tools) && tools.length <= MAX_ITEMS) {
    for (let k = 0; k < tools.length; k++) {
      try {
        if (hasCacheControl(entry(tools, k))) n++
      } catch (e) {
        throw unreadable('INVALID_CONTEXT', `context.tools[${k}]`, e, { path: `tools[${k}]` })
      }
    }
  }
  return n
}

/**
 * Marks the last content block with `cache_control: { type: 'ephemeral' }` (a string content
 * becomes one text block). OpenAI-shaped messages, empty contents and a last block that is
 * reasoning (Anthropic rejects breakpoints there) or already marked are left as they are.
 */
export function withCacheBreakpoint(m: AnyMessage, i: number, close: Seal): AnyMessage {
  const p = partsOf(m, i)
  if (p.shape === 'openai') return m
  const content = field(p.fields, 'content')
  let next: unknown[]
  if (typeof content === 'string') {
    if (content === '') return m
    next = [close({ type: 'text', text: content, cache_control: EPHEMERAL })]
  } else if (Array.isArray(content) && content.length > 0) {
    const blocks = listOf(content, i, 'content')
    const last = entry(blocks, blocks.length - 1)
    if (hasCacheControl(last)) return m
    if (typeof last === 'string') {
      if (last === '') return m
      next = filterList(blocks, (_, k) => k < blocks.length - 1)
      next.push(close({ type: 'text', text: last, cache_control: EPHEMERAL }))
    } else if (isObject(last) && !THINKING_BLOCKS.has(field(last, 'type'))) {
      next = filterList(blocks, (_, k) => k < blocks.length - 1)
      next.push(close(withFields(last, { cache_control: EPHEMERAL }, KEPT.block)))
    } else {
      return m
    }
  } else {
    return m
  }
  return changed(m, p, { content: close(next) }, close)
}
