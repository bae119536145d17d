// A careful single-pass JavaScript implementation of LangChain's `ClearToolUsesEdit` in approx mode
// (trigger by tokens/messages, keep by messages, excludeTools, placeholder; no clearToolInputs or
// clearAtLeast), used by the benchmark as the "what plain JS costs" reference. Pure: returns a new
// array, builds cleared messages the way LangChain does. With a `memo` (a WeakMap), each message's
// size is memoised by object identity: the least a host could write to make next calls cheap
// (benchmark/cold.mjs compares our next calls with it).

import { ToolMessage } from '@langchain/core/messages'

const typeOf = (m) => (typeof m._getType === 'function' ? m._getType() : m.type)

function textLength(m) {
  const c = m.content
  if (typeof c === 'string') return c.length
  if (!Array.isArray(c)) return 0
  let n = 0
  for (const b of c) {
    if (typeof b === 'string') n += b.length
    else if (b && b.type === 'text' && typeof b.text === 'string') n += b.text.length
  }
  return n
}

/**
 * @param {import('@langchain/core/messages').BaseMessage[]} messages
 * @param {{ trigger?: { tokens?: number, messages?: number }, keep?: { messages: number }, excludeTools?: string[], placeholder?: string }} options
 * @param {WeakMap<object, number>} [memo] per-message sizes (characters), by message object
 */
export function jsClearToolUses(messages, options = {}, memo) {
  const triggerTokens = options.trigger?.tokens
  const triggerMessages = options.trigger?.messages
  const keep = options.keep?.messages ?? 3
  const exclude = new Set(options.excludeTools ?? [])
  const placeholder = options.placeholder ?? '[cleared]'

  // One pass: lengths, the latest AI message per tool-call id, orphans.
  const n = messages.length
  const owner = new Map() // tool_call_id → the call of the latest earlier AI message listing it
  const kept = []
  const tools = [] // positions in `kept` of tool messages, with their call
  let chars = 0
  for (let i = 0; i < n; i++) {
    const m = messages[i]
    const type = typeOf(m)
    let len = memo?.get(m)
    const known = len !== undefined
    if (!known) len = textLength(m)
    if (type === 'ai') {
      const calls = m.tool_calls
      if (Array.isArray(calls) && calls.length > 0) {
        if (!known) len += JSON.stringify(calls).length
        for (const c of calls) owner.set(c.id, c)
      }
    } else if (type === 'tool') {
      const call = owner.get(m.tool_call_id)
      if (!call) continue // orphan: removed
      if (!known) len += (m.tool_call_id ?? '').length
      tools.push({ at: kept.length, call })
    }
    if (memo && !known) memo.set(m, len)
    chars += len
    kept.push(m)
  }
  const tokens = Math.ceil(chars / 4)
  let triggered = triggerTokens !== undefined || triggerMessages !== undefined
  if (triggerTokens !== undefined && tokens < triggerTokens) triggered = false
  if (triggerMessages !== undefined && kept.length < triggerMessages) triggered = false
  if (!triggered) return kept

  const end = Math.max(0, tools.length - keep)
  for (let k = 0; k < end; k++) {
    const { at, call } = tools[k]
    const t = kept[at]
    if (t.response_metadata?.context_editing?.cleared) continue
    if (exclude.has(t.name || call.name)) continue
    kept[at] = new ToolMessage({
      tool_call_id: t.tool_call_id,
      // A `{tool_call_id}` slot (the recall tool's placeholder) is filled with the result's own id.
      content: placeholder.includes('{tool_call_id}') ? placeholder.replaceAll('{tool_call_id}', () => t.tool_call_id) : placeholder,
      name: t.name,
      artifact: undefined,
      response_metadata: { ...t.response_metadata, context_editing: { cleared: true, strategy: 'clear_tool_uses' } },
    })
  }
  return kept
}
