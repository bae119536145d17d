// One conversation, five formats. A seeded well-formed agent conversation (`events`) is written as
// LangChain dicts, Anthropic Messages, OpenAI Responses items and AI SDK ModelMessages, and any of
// them is read back into the same event list (`canonical`), so edits in different formats can be
// compared decision by decision.

import { text as words } from './conversations.mjs'

const TOOLS = ['search', 'read_file', 'shell', 'calc']

/**
 * A random conversation: `{ system, events }`, events `{ kind: 'human', text }`, `{ kind: 'ai',
 * text, calls: [{ id, name, args }] }`, `{ kind: 'tool', id, content }`. Every call gets its result
 * right after its assistant message (in order, or shuffled), sometimes followed by a user note.
 */
export function conversation(rng, { turns = rng.int(1, 12), big = 0.3 } = {}) {
  const events = []
  let seq = 0
  for (let t = 0; t < turns; t++) {
    // A user message starts a turn unless tool results ended the last one (then the loop goes on):
    // Responses items cannot tell two assistant turns in a row from one.
    if (t === 0 || events[events.length - 1].kind !== 'tool' || rng.chance(0.5)) events.push({ kind: 'human', text: words(rng, rng.int(1, 30)) || 'go' })
    const calls = []
    const n = rng.chance(0.2) ? 0 : rng.int(1, 3)
    for (let k = 0; k < n; k++) calls.push({ id: `call_${seq++}`, name: rng.pick(TOOLS), args: { q: words(rng, rng.int(0, 20)), n: rng.int(0, 99) } })
    events.push({ kind: 'ai', text: calls.length && rng.chance(0.3) ? '' : words(rng, rng.int(1, 25)) || 'done', calls })
    const results = calls.map((c) => ({ kind: 'tool', id: c.id, content: words(rng, rng.chance(big) ? rng.int(200, 900) : rng.int(1, 60)) || 'ok' }))
    events.push(...(rng.chance(0.2) ? rng.shuffle(results) : results))
    if (calls.length && rng.chance(0.2)) events.push({ kind: 'human', text: words(rng, rng.int(1, 10)) || 'more' })
  }
  return { system: rng.chance(0.7) ? words(rng, rng.int(5, 40)) : undefined, events }
}

const lcCall = (c) => ({ id: c.id, name: c.name, args: structuredClone(c.args), type: 'tool_call' })

/** LangChain dicts; the system prompt as a leading system message when `withSystem`. */
export function toLangChain({ system, events }, withSystem = false) {
  const out = withSystem && system !== undefined ? [{ type: 'system', content: system }] : []
  for (const e of events) {
    if (e.kind === 'human') out.push({ type: 'human', content: e.text })
    else if (e.kind === 'tool') out.push({ type: 'tool', tool_call_id: e.id, content: e.content })
    else out.push(e.calls.length ? { type: 'ai', content: e.text, tool_calls: e.calls.map(lcCall) } : { type: 'ai', content: e.text })
  }
  return out
}

/** An Anthropic request: results and the user note after them share one user message. */
export function toAnthropic({ system, events }) {
  const messages = []
  let user
  for (const e of events) {
    if (e.kind === 'ai') {
      user = undefined
      const blocks = e.text ? [{ type: 'text', text: e.text }] : []
      for (const c of e.calls) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: structuredClone(c.args) })
      messages.push({ role: 'assistant', content: e.calls.length ? blocks : e.text })
      continue
    }
    const block = e.kind === 'tool' ? { type: 'tool_result', tool_use_id: e.id, content: e.content } : { type: 'text', text: e.text }
    if (e.kind === 'human' && user === undefined) {
      messages.push({ role: 'user', content: e.text })
      continue
    }
    if (user === undefined || typeof user.content === 'string') {
      user = { role: 'user', content: [] }
      messages.push(user)
    }
    user.content.push(block)
    // A note closes the user message: the next user text is a message of its own.
    if (e.kind === 'human') user = undefined
  }
  return system === undefined ? { model: 'claude-test', max_tokens: 1024, messages } : { model: 'claude-test', max_tokens: 1024, system, messages }
}

/** A Responses request (`instructions`, `input`). */
export function toResponses({ system, events }) {
  const input = []
  for (const e of events) {
    if (e.kind === 'human') input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: e.text }] })
    else if (e.kind === 'tool') input.push({ type: 'function_call_output', call_id: e.id, output: e.content })
    else {
      if (e.text)
        input.push({
          type: 'message',
          role: 'assistant',
          id: `msg_${input.length}`,
          status: 'completed',
          content: [{ type: 'output_text', text: e.text, annotations: [] }],
        })
      for (const c of e.calls)
        input.push({ type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.args), status: 'completed' })
    }
  }
  return system === undefined ? { model: 'gpt-test', input } : { model: 'gpt-test', instructions: system, input }
}

/** AI SDK ModelMessages (the system prompt as a system message when `withSystem`); results of one step share a tool message. */
export function toAiSdk({ system, events }, withSystem = false) {
  const out = withSystem && system !== undefined ? [{ role: 'system', content: system }] : []
  let tool
  for (const e of events) {
    if (e.kind === 'tool') {
      if (tool === undefined) {
        tool = { role: 'tool', content: [] }
        out.push(tool)
      }
      tool.content.push({ type: 'tool-result', toolCallId: e.id, toolName: 'tool', output: { type: 'text', value: e.content } })
      continue
    }
    tool = undefined
    if (e.kind === 'human') out.push({ role: 'user', content: e.text })
    else {
      const parts = e.text ? [{ type: 'text', text: e.text }] : []
      for (const c of e.calls) parts.push({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: structuredClone(c.args) })
      out.push({ role: 'assistant', content: parts })
    }
  }
  return out
}

const textOf = (content) =>
  typeof content === 'string'
    ? content
    : content
        .filter((b) => b.type === 'text' || b.type === 'input_text' || b.type === 'output_text')
        .map((b) => b.text)
        .join('')

/** Appends an AI event, merging a call-only item into the open assistant turn (Responses). */
function ai(out, text, calls, merge) {
  const last = out[out.length - 1]
  if (merge && last?.kind === 'ai' && (text === '' || last.calls.length === 0) && !(text && last.text)) {
    if (text) last.text = text
    last.calls.push(...calls)
  } else out.push({ kind: 'ai', text, calls })
}

/** The events `messages` (in `format`) stand for: what a model would be sent, comparable across formats. */
export function canonical(format, messages) {
  const out = []
  for (const m of messages) {
    if (format === 'langchain') {
      if (m.type === 'system') continue
      if (m.type === 'human') out.push({ kind: 'human', text: textOf(m.content) })
      else if (m.type === 'tool') out.push({ kind: 'tool', id: m.tool_call_id, content: textOf(m.content) })
      else
        ai(
          out,
          textOf(m.content),
          (m.tool_calls ?? []).map((c) => ({ id: c.id, args: c.args })),
          false,
        )
    } else if (format === 'anthropic') {
      if (m.role === 'assistant') {
        ai(
          out,
          textOf(m.content),
          (typeof m.content === 'string' ? [] : m.content).filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, args: b.input })),
          false,
        )
      } else if (typeof m.content === 'string') out.push({ kind: 'human', text: m.content })
      else {
        for (const b of m.content) {
          if (b.type === 'tool_result') out.push({ kind: 'tool', id: b.tool_use_id, content: textOf(b.content) })
          else if (out[out.length - 1]?.kind === 'human' && out[out.length - 1].open) out[out.length - 1].text += b.text
          else out.push({ kind: 'human', text: b.text, open: true })
        }
        for (const e of out) delete e.open
      }
    } else if (format === 'responses') {
      if (m.type === 'function_call_output') out.push({ kind: 'tool', id: m.call_id, content: textOf(m.output) })
      else if (m.type === 'function_call') ai(out, '', [{ id: m.call_id, args: JSON.parse(m.arguments) }], true)
      else if (m.role === 'assistant') ai(out, textOf(m.content), [], true)
      else if (m.role === 'user') out.push({ kind: 'human', text: textOf(m.content) })
    } else if (format === 'aisdk') {
      if (m.role === 'system') continue
      if (m.role === 'user') out.push({ kind: 'human', text: textOf(m.content) })
      else if (m.role === 'tool') {
        for (const p of m.content)
          out.push({ kind: 'tool', id: p.toolCallId, content: p.output.type === 'text' ? p.output.value : JSON.stringify(p.output.value) })
      } else {
        const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
        ai(
          out,
          textOf(parts),
          parts.filter((p) => p.type === 'tool-call').map((p) => ({ id: p.toolCallId, args: p.input })),
          false,
        )
      }
    }
  }
  return out
}

/** Deep-freezes `value` (a mutation then throws in strict mode). */
export function deepFreeze(value) {
  // Typed arrays cannot be frozen (their bytes stay writable); URLs keep their state inside.
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value) && !ArrayBuffer.isView(value) && !(value instanceof URL)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
