// Seeded generators of agent conversations and editor options for the differential parity test
// and the property-style specs. A conversation is first generated as plain field objects ("specs"),
// then built into real @langchain/core messages as often as needed (one copy per system under test).

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

export const TOOL_NAMES = ['search', 'read_file', 'shell', 'calc', 'fetch_url']

// Words mixing ASCII, accents, CJK and astral-plane emoji, so UTF-16 lengths differ from byte and
// code-point lengths (LangChain's approx counter measures UTF-16 code units).
const WORDS = [
  'the',
  'tool',
  'result',
  'file',
  'line',
  'error',
  'ok',
  'value',
  'naïve',
  'café',
  '日本語',
  'データ',
  '😀',
  '🚀',
  'x',
  'lorem',
  'ipsum',
  'dolor',
  '{"json":true}',
  'path/to/file.rs',
  '—',
  'ß',
  '\n',
  '\t',
]

/** Random text of about `words` words. */
export function text(rng, words) {
  const out = []
  for (let i = 0; i < words; i++) out.push(rng.pick(WORDS))
  return out.join(rng.chance(0.8) ? ' ' : '')
}

/** A text size: mostly small, sometimes large (a big tool output). */
function size(rng) {
  const r = rng.next()
  if (r < 0.15) return 0
  if (r < 0.7) return rng.int(1, 12)
  if (r < 0.95) return rng.int(12, 80)
  return rng.int(80, 400)
}

/** String content or an array of text blocks with the same kind of text. */
function content(rng, words) {
  if (rng.chance(0.6)) return text(rng, words)
  const n = rng.int(1, 3)
  const blocks = []
  for (let i = 0; i < n; i++) {
    const t = text(rng, Math.ceil(words / n))
    // LangChain's counter also accepts bare strings inside a content array.
    blocks.push(rng.chance(0.1) ? t : { type: 'text', text: t })
  }
  return blocks
}

function args(rng) {
  const a = {}
  const keys = rng.int(0, 4)
  for (let i = 0; i < keys; i++) {
    const k = rng.pick(['query', 'path', 'n', 'flags', 'nested', 'url', 'cmd'])
    const kind = rng.int(0, 3)
    if (kind === 0) a[k] = text(rng, size(rng))
    else if (kind === 1) a[k] = rng.int(-5, 1000)
    else if (kind === 2) a[k] = [rng.chance(0.5), null, text(rng, 2)]
    else a[k] = { inner: text(rng, rng.int(0, 6)), deep: { x: rng.int(0, 9) } }
  }
  return a
}

const CLEARED_MD = () => ({ context_editing: { cleared: true, strategy: 'clear_tool_uses' } })

/**
 * A random conversation as plain specs: `{ type, content, tool_calls?, tool_call_id?, name?,
 * response_metadata?, id? }`. Contains orphans (unknown ids, results placed before their call),
 * multi-call AI messages, ids reused across AI messages (never within one), duplicate results,
 * pre-cleared results, tool messages with, without, empty or mismatching `name`, string and
 * text-block content. `opts.maxTurns` bounds the length.
 */
export function conversationSpecs(rng, opts = {}) {
  const maxTurns = opts.maxTurns ?? 10
  const specs = []
  const usedIds = []
  let seq = 0
  if (rng.chance(0.2)) specs.push({ type: 'system', content: text(rng, size(rng)) })
  const turns = rng.int(1, maxTurns)
  for (let t = 0; t < turns; t++) {
    if (rng.chance(0.8)) specs.push({ type: 'human', content: content(rng, size(rng)), id: `h${t}` })
    if (rng.chance(0.08)) {
      // An orphan: a result for a call nobody made.
      specs.push(toolSpec(rng, `ghost_${seq++}`, rng.pick(TOOL_NAMES)))
    }
    const ncalls = rng.chance(0.15) ? 0 : rng.int(1, 4)
    const calls = []
    for (let k = 0; k < ncalls; k++) {
      let id
      const reusable = usedIds.filter((u) => !calls.some((c) => c.id === u))
      if (reusable.length && rng.chance(0.07)) id = rng.pick(reusable)
      else id = `call_${seq++}`
      calls.push({ id, name: rng.pick(TOOL_NAMES), args: args(rng) })
    }
    const ai = { type: 'ai', content: content(rng, size(rng)), tool_calls: calls, id: `ai${t}` }
    const md = {}
    if (rng.chance(0.2)) md.model_name = 'gpt-test'
    if (calls.length && rng.chance(0.1)) {
      md.context_editing = { cleared_tool_inputs: rng.subset(calls.map((c) => c.id)).sort() }
    }
    if (Object.keys(md).length) ai.response_metadata = md
    const results = []
    for (const c of calls) {
      const r = rng.next()
      if (r < 0.1) continue // dangling call, no result
      results.push(toolSpec(rng, c.id, c.name))
      if (r > 0.96) results.push(toolSpec(rng, c.id, c.name)) // duplicate result
    }
    // Sometimes a result arrives before its call: an orphan (unless an older call had that id).
    if (results.length && rng.chance(0.06)) specs.push(results.shift())
    specs.push(ai)
    for (const r of rng.chance(0.2) ? rng.shuffle(results) : results) {
      specs.push(r)
      if (rng.chance(0.05)) specs.push({ type: 'human', content: text(rng, 3) })
    }
    for (const c of calls) usedIds.push(c.id)
    if (rng.chance(0.3)) specs.push({ type: 'ai', content: content(rng, size(rng)) })
  }
  return specs
}

function toolSpec(rng, id, callName) {
  const spec = { type: 'tool', tool_call_id: id, content: content(rng, size(rng)) }
  const r = rng.next()
  if (r < 0.65) spec.name = callName
  else if (r < 0.8)
    spec.name = rng.pick(TOOL_NAMES) // the tool message's own name wins
  else if (r < 0.85) spec.name = ''
  // else: no name, the call's name is used
  if (rng.chance(0.12)) {
    spec.response_metadata = CLEARED_MD()
    spec.content = rng.chance(0.5) ? '[cleared]' : spec.content
  } else if (rng.chance(0.15)) {
    spec.response_metadata = { source: 'cache', latency_ms: rng.int(1, 99) }
  }
  return spec
}

/** Builds real @langchain/core message instances from specs (a fresh copy each call). */
export function buildMessages(specs) {
  const copy = structuredClone(specs)
  return copy.map((s) => {
    const { type, ...fields } = s
    if (type === 'human') return new HumanMessage(fields)
    if (type === 'system') return new SystemMessage(fields)
    if (type === 'ai') return new AIMessage(fields)
    if (type === 'tool') return new ToolMessage(fields)
    throw new Error(`unknown spec type ${type}`)
  })
}

/**
 * Random `ClearToolUsesEdit` options sized to a conversation of `tokens` approx tokens and
 * `count` messages, plus the call's `maxInputTokens` (undefined = unknown). Covers single and
 * array triggers with every key combination, every keep kind (including 0), excluded tools,
 * placeholders, clearToolInputs, clearAtLeast, and fractions with known and unknown limits.
 */
export function editOptions(rng, tokens, count) {
  const t = Math.max(tokens, 1)
  let maxInputTokens
  const m = rng.next()
  if (m < 0.45) maxInputTokens = rng.int(Math.ceil(t / 2), t * 3) + 1
  else if (m < 0.55) maxInputTokens = rng.int(1, 9) // fraction thresholds that floor to 0
  const condition = () => {
    const c = {}
    const keys = rng.subset(['tokens', 'messages', 'fraction'], 0.45)
    if (keys.length === 0) keys.push(rng.pick(['tokens', 'messages', 'fraction']))
    for (const k of keys) {
      if (k === 'tokens') c.tokens = rng.int(1, Math.ceil(t * 1.4))
      if (k === 'messages') c.messages = rng.int(1, count + 3)
      if (k === 'fraction') c.fraction = rng.pick([0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 1])
    }
    return c
  }
  const options = {}
  const tr = rng.next()
  if (tr < 0.55) options.trigger = condition()
  else if (tr < 0.95) options.trigger = Array.from({ length: rng.int(1, 3) }, condition)
  // else: default trigger { tokens: 100000 }
  const kr = rng.next()
  if (kr < 0.4) options.keep = { messages: rng.int(0, 6) }
  else if (kr < 0.7) options.keep = { tokens: rng.int(0, Math.ceil(t * 0.6)) }
  else if (kr < 0.92) options.keep = { fraction: rng.pick([0, 0.01, 0.05, 0.1, 0.3, 0.5, 1]) }
  // else: default keep { messages: 3 }
  if (rng.chance(0.35)) options.excludeTools = rng.subset(TOOL_NAMES, 0.3)
  const pr = rng.next()
  if (pr < 0.15) options.placeholder = '[tool result removed]'
  else if (pr < 0.22) options.placeholder = '🧹 cleared — 日本'
  else if (pr < 0.25) options.placeholder = ''
  if (rng.chance(0.4)) options.clearToolInputs = true
  else if (rng.chance(0.2)) options.clearToolInputs = false
  if (rng.chance(0.35)) options.clearAtLeast = rng.int(1, Math.ceil(t * 0.7))
  return { options, maxInputTokens }
}

/** The same conversation in OpenAI chat-completions shape (ids and LangChain metadata dropped). */
export function toOpenAI(specs) {
  return structuredClone(specs).map((s) => {
    if (s.type === 'human') return { role: 'user', content: s.content }
    if (s.type === 'system') return { role: 'system', content: s.content }
    if (s.type === 'ai') {
      const m = { role: 'assistant', content: s.content }
      if (s.tool_calls?.length) {
        m.tool_calls = s.tool_calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.args) },
        }))
      }
      return m
    }
    const m = { role: 'tool', tool_call_id: s.tool_call_id, content: s.content }
    if (s.name) m.name = s.name
    return m
  })
}

/** The same conversation as LangChain `StoredMessage` dumps (`{ type, data }`). */
export function toStored(specs) {
  return structuredClone(specs).map(({ type, ...data }) => ({ type, data }))
}
