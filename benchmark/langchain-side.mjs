// The LangChain side of benchmark/bench.mjs: the options both sides run, LangChain's model-mode
// counter on js-tiktoken (with a deadline), a capped ClearToolUsesEdit run, the approx counter, and
// the field-by-field output comparison (everything but `id`).

import { ClearToolUsesEdit, countTokensApproximately } from 'langchain'
import { SystemMessage } from '@langchain/core/messages'

import { CAP_MS, Capped } from './bench-common.mjs'

// ---------------------------------------------------------------------------------------------
// LangChain side

export const EDIT_OPTIONS = { trigger: { tokens: 100000 }, keep: { messages: 3 } }
export const CHECK_OPTIONS = {
  trigger: [{ tokens: 50000, messages: 50 }, { messages: 5000 }],
  keep: { tokens: 20000 },
  excludeTools: ['read_ticket'],
  clearToolInputs: true,
}

/**
 * LangChain's model-mode counter as `contextEditingMiddleware` builds it over ChatOpenAI's
 * `getNumTokensFromMessages` (3 tokens per message, the role, the name + 1, 3 for the reply's
 * priming; the system message included), on js-tiktoken o200k_base with the ranks loaded locally
 * (LangChain itself would fetch them from the network first). `deadline` interrupts it.
 */
export async function makeJsTiktokenCounter() {
  const { Tiktoken } = await import('js-tiktoken/lite')
  const ranks = (await import('js-tiktoken/ranks/o200k_base')).default
  const enc = new Tiktoken(ranks)
  const roleOf = { human: 'user', ai: 'assistant', system: 'system', tool: 'tool' }
  const text = (m) => (typeof m.content === 'string' ? m.content : m.content.map((b) => (typeof b === 'string' ? b : (b.text ?? ''))).join(''))
  return { enc, roleOf, text }
}

export function exactCounter(js, systemPrompt, clock) {
  const system = new SystemMessage(systemPrompt)
  return async (messages) => {
    const all = [system, ...messages]
    let total = 3
    for (let i = 0; i < all.length; i++) {
      const m = all[i]
      total += 3 + js.enc.encode(js.text(m)).length + js.enc.encode(js.roleOf[m._getType()] ?? 'user').length
      if (m.name !== undefined) total += 1 + js.enc.encode(m.name ?? '').length
      clock.tick(i, all.length)
    }
    clock.call()
    return total
  }
}

/**
 * Runs one LangChain `ClearToolUsesEdit.apply` under a time cap. `expectedCalls` (how many times
 * LangChain will count the whole history: once, then once per cleared result) turns a capped run
 * into an estimate of the full call.
 */
export async function runLangChain(messages, options, { counter, expectedCalls, capMs = CAP_MS }) {
  const copy = messages.slice()
  const edit = new ClearToolUsesEdit(options)
  let calls = 0
  let t0 = 0
  const clock = {
    tick(i, n) {
      const el = performance.now() - t0
      if (el > capMs) throw new Capped(el, (calls + i / n) / expectedCalls)
    },
    call() {
      calls++
      const el = performance.now() - t0
      if (el > capMs) throw new Capped(el, calls / expectedCalls)
    },
  }
  const countTokens = counter(clock)
  t0 = performance.now()
  try {
    await edit.apply({ messages: copy, model: undefined, countTokens })
    return { ms: performance.now() - t0, messages: copy, calls }
  } catch (e) {
    if (!(e instanceof Capped)) throw e
    return { ms: e.elapsed, capped: true, estimateMs: e.elapsed / Math.max(e.progress, 1e-9), calls }
  }
}

export const approxCounter = (clock) => (messages) => {
  const n = countTokensApproximately(messages)
  clock.call()
  return n
}

// ---------------------------------------------------------------------------------------------
// Output equality

function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(v)
}

// Everything but `id`: LangChain builds cleared ToolMessages anew and drops their `id`; we keep it.
function view(m) {
  return canonical({
    type: m._getType(),
    content: m.content,
    name: m.name,
    tool_call_id: m.tool_call_id,
    tool_calls: m.tool_calls?.map((c) => ({ id: c.id, name: c.name, args: c.args })),
    response_metadata: m.response_metadata,
    artifact: m.artifact,
  })
}

export function sameOutput(ours, theirs) {
  if (ours.length !== theirs.length) return `length ${ours.length} vs ${theirs.length}`
  for (let i = 0; i < ours.length; i++) {
    if (view(ours[i]) !== view(theirs[i])) return `message ${i} differs`
  }
  return null
}
