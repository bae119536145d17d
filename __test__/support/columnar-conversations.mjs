// Seeded conversations in every message shape the converter reads (LangChain instances, dicts,
// StoredMessage dumps, ChatMessage, OpenAI messages; content blocks, images, reasoning, tool calls
// with and without args, orphans, cleared markers, pins, names, ids) and option sets of every kind:
// what the columns-against-JSON specs (columnar-*.spec.mjs) run both wires on.

import { AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

const WORDS = ['alpha', 'beta', 'naïve', '日本語', '😀', 'x\n', '"quoted"', 'back\\slash', '\u0001', 'γάμμα']
/** A 1×1 PNG (its header gives the image size to the image-token formulas). */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

/** Values whose JSON text is easy to get wrong: numbers, escapes, nesting, skipped entries, a class. */
const ODD_VALUES = [
  1.5,
  -0,
  1e21,
  -3e-7,
  NaN,
  Infinity,
  null,
  true,
  false,
  '',
  'a"b\\c\n\u0001\u001f',
  '😀日本',
  [1, 'a', null, undefined, () => 1],
  { x: undefined, y: 'z', n: [] },
  { deep: { deeper: [{ a: 1 }] } },
  new Date(0),
  undefined,
  Symbol('s'),
]

export function words(r, n) {
  return Array.from({ length: n }, () => r.pick(WORDS)).join(' ')
}

/** Content of a user, assistant or tool message: a string or blocks of every kind the converter reads. */
function content(r, calls = []) {
  if (r.chance(0.5)) return words(r, r.int(0, 12))
  const blocks = []
  for (let k = r.int(0, 5); k > 0; k--) {
    const kind = r.int(0, 11)
    if (kind === 0) blocks.push(words(r, 2))
    else if (kind <= 3) blocks.push({ type: 'text', text: words(r, r.int(1, 8)) })
    else if (kind === 4) blocks.push({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: r.pick(['low', 'high', undefined]) } })
    else if (kind === 5) blocks.push({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } })
    else if (kind === 6) blocks.push({ type: 'input_image', image_url: 'https://example.com/x.png' })
    else if (kind === 7) blocks.push({ type: 'file', mime_type: r.pick(['image/jpeg', 'application/pdf']), data: 'AAAA' })
    else if (kind === 8) blocks.push({ type: r.pick(['thinking', 'redacted_thinking', 'reasoning']), thinking: words(r, 4), signature: 's' })
    else if (kind === 9 && calls.length) blocks.push({ type: 'tool_use', id: r.pick(calls).id, name: 'search', input: { q: 'x' } })
    else blocks.push({ type: 'json', data: { k: words(r, 2) } })
  }
  return blocks
}

/** Response metadata: none, plain, or with the markers earlier edits leave. */
function metadata(r) {
  const x = r.int(0, 6)
  if (x === 0) return { context_editing: { cleared: true, strategy: 'clear_tool_uses' } }
  if (x === 1) return { context_editing: { truncated: true } }
  if (x === 2) return { context_editing: { cleared_tool_inputs: ['c0', 7, 'c1'] } }
  if (x === 3) return { pinned: true }
  if (x === 4) return { model: 'm' }
  return undefined
}

/** A LangChain conversation (instances), with orphans, markers, pins, names and ids. */
export function langchain(r, n) {
  const out = []
  const open = []
  let id = 0
  if (r.chance(0.7)) out.push(new SystemMessage({ content: words(r, 5), id: 'sys' }))
  while (out.length < n) {
    const x = r.next()
    if (x < 0.2) out.push(new HumanMessage({ content: content(r), id: `h${out.length}`, additional_kwargs: r.chance(0.1) ? { pinned: true } : {} }))
    else if (x < 0.45) {
      const calls = Array.from({ length: r.int(0, 3) }, () => ({
        id: `c${id++}`,
        name: r.pick(['search', 'read_file', 'shell']),
        ...(r.chance(0.85) ? { args: { q: words(r, 3), n: r.int(0, 9), ...(r.chance(0.5) ? { v: r.pick(ODD_VALUES) } : {}) } } : {}),
        type: 'tool_call',
        ...(r.chance(0.2) ? { [r.pick(['index', 'extra', '"odd" key'])]: r.pick(ODD_VALUES) } : {}),
      }))
      open.push(...calls)
      const reasoning = r.chance(0.2) ? { reasoning_content: words(r, 3) } : {}
      out.push(
        new AIMessage({
          content: content(r, calls),
          tool_calls: calls,
          additional_kwargs: reasoning,
          response_metadata: metadata(r) ?? {},
          id: `a${out.length}`,
        }),
      )
    } else if (x < 0.85) {
      const call = open.length && r.chance(0.9) ? open.splice(r.int(0, open.length - 1), 1)[0] : { id: `orphan${id++}`, name: 'gone' }
      const name = r.chance(0.7) ? call.name : undefined
      out.push(new ToolMessage({ content: content(r), tool_call_id: call.id, name, response_metadata: metadata(r) ?? {}, id: `t${out.length}` }))
    } else if (x < 0.9) out.push(new ChatMessage({ content: words(r, 3), role: r.pick(['user', 'assistant']) }))
    else out.push(new AIMessage({ content: words(r, 4), id: `a${out.length}` }))
  }
  return out
}

/** The same kinds of messages as OpenAI chat messages, dicts and StoredMessage dumps. */
export function plain(r, n) {
  const out = [{ role: r.pick(['system', 'developer']), content: words(r, 4) }]
  let id = 0
  const open = []
  while (out.length < n) {
    const shape = r.pick(['openai', 'dict', 'stored'])
    const x = r.next()
    if (x < 0.25) {
      const m = { content: content(r) }
      out.push(shape === 'openai' ? { role: 'user', ...m } : shape === 'dict' ? { type: 'human', ...m } : { type: 'human', data: m })
    } else if (x < 0.5) {
      const ids = Array.from({ length: r.int(0, 2) }, () => `p${id++}`)
      open.push(...ids)
      if (shape === 'openai') {
        const calls = ids.map((cid) => ({
          id: cid,
          type: 'function',
          function: { name: 'search', ...(r.chance(0.8) ? { arguments: JSON.stringify({ q: words(r, 2) }) } : {}) },
        }))
        out.push({
          role: 'assistant',
          content: words(r, 2),
          ...(calls.length ? { tool_calls: calls } : {}),
          ...(r.chance(0.3) ? { reasoning_content: words(r, 3) } : {}),
        })
      } else {
        const m = {
          content: content(r),
          tool_calls: ids.map((cid) => ({ id: cid, name: 'read', args: { path: words(r, 1) } })),
          response_metadata: metadata(r),
        }
        out.push(shape === 'dict' ? { type: 'ai', ...m } : { type: 'ai', data: m })
      }
    } else {
      const cid = open.length && r.chance(0.85) ? open.shift() : `lost${id++}`
      const text = r.chance(0.2) ? r.pick(['[cleared]', `cleared ${cid}`]) : words(r, r.int(1, 20))
      const m = { content: text, tool_call_id: cid, ...(r.chance(0.5) ? { name: 'search' } : {}) }
      out.push(shape === 'openai' ? { role: 'tool', ...m } : shape === 'dict' ? { type: 'tool', ...m } : { type: 'tool', data: m })
    }
  }
  return out
}

/** Option sets: clear_tool_uses in its variants, stable mode, pins, and pipelines of other edits. */
export function options(r) {
  const trigger = r.pick([{ tokens: r.int(1, 400) }, { messages: r.int(1, 30) }, [{ tokens: r.int(1, 200) }, { messages: r.int(5, 40) }]])
  const keep = r.pick([{ messages: r.int(0, 4) }, { tokens: r.int(0, 100) }])
  const clear = {
    trigger,
    keep,
    ...(r.chance(0.4) ? { clearToolInputs: true } : {}),
    ...(r.chance(0.3) ? { excludeTools: ['shell'] } : {}),
    ...(r.chance(0.3) ? { clearAtLeast: r.int(1, 60) } : {}),
    ...(r.chance(0.3) ? { placeholder: r.pick(['cleared {tool_call_id}', '🧹']) } : {}),
  }
  const x = r.int(0, 8)
  if (x <= 2) return clear
  if (x === 3) return { ...clear, stable: true }
  if (x === 4) return { ...clear, pin: { ids: ['h3', 'a5', 't7'] } }
  if (x === 5) return { ...clear, prefer: 'newest' }
  if (x === 6)
    return {
      edits: [
        { type: 'clear_thinking', trigger, keep: { turns: 1 } },
        { type: 'clear_tool_uses', ...clear },
      ],
    }
  if (x === 7)
    return {
      edits: [
        { type: 'truncate_tool_results', trigger, maxChars: r.int(1, 40) },
        { type: 'strip_tool_calls', trigger },
      ],
    }
  return {
    edits: [
      { type: 'last_n', trigger, n: r.int(1, 6) },
      { type: 'trim_turns', trigger, maxTurns: 2 },
    ],
  }
}
