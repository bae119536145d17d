// Helpers shared by the specs: deep freezing, structural snapshots, LangChain's approx counter.

import { AIMessage, ToolMessage } from '@langchain/core/messages'

/** Freezes `value` and everything reachable from it (own properties), in place; returns it. */
export function deepFreeze(value, seen = new Set()) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return value
  seen.add(value)
  for (const key of Reflect.ownKeys(value)) {
    const d = Object.getOwnPropertyDescriptor(value, key)
    if (d && 'value' in d) deepFreeze(d.value, seen)
  }
  return Object.freeze(value)
}

/**
 * A structural snapshot: plain data with each object's class name recorded, so two snapshots are
 * `deepStrictEqual` exactly when nothing reachable was mutated or replaced by another class.
 */
export function snapshot(value, seen = new Map()) {
  if (value === null || typeof value !== 'object') return value
  if (seen.has(value)) return seen.get(value)
  if (Array.isArray(value)) {
    const out = []
    seen.set(value, out)
    for (const v of value) out.push(snapshot(v, seen))
    return out
  }
  const out = { __class: value.constructor?.name ?? null }
  seen.set(value, out)
  for (const key of Object.keys(value)) out[key] = snapshot(value[key], seen)
  return out
}

/**
 * LangChain's `countTokensApproximately` (langchain 1.5.14, dist/agents/middleware/utils.js), for
 * messages only. langchain exports it from its root too; `parity.spec.mjs` checks both agree, this
 * copy lets other specs count without loading the agent runtime.
 */
export function approxTokens(messages) {
  let totalChars = 0
  for (const msg of messages) {
    let textContent
    if (typeof msg.content === 'string') textContent = msg.content
    else if (Array.isArray(msg.content)) {
      textContent = msg.content.map((item) => (typeof item === 'string' ? item : item.type === 'text' && 'text' in item ? item.text : '')).join('')
    } else textContent = ''
    if (AIMessage.isInstance(msg) && Array.isArray(msg.tool_calls) && msg.tool_calls.length > 0) {
      textContent += JSON.stringify(msg.tool_calls)
    }
    if (ToolMessage.isInstance(msg)) textContent += msg.tool_call_id ?? ''
    totalChars += textContent.length
  }
  return Math.ceil(totalChars / 4)
}

/** Runs `fn` with `console.warn` silenced (LangChain warns about deprecated `clearAtLeast`). */
export function quietly(fn) {
  const warn = console.warn
  console.warn = () => {}
  try {
    return fn()
  } finally {
    console.warn = warn
  }
}

/** The LangChain type of a message instance (`human`, `ai`, `tool`, `system`). */
export function typeOf(m) {
  return typeof m._getType === 'function' ? m._getType() : m.type
}
