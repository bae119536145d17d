// Property: whatever a caller does between calls (replacing fields at any depth of its messages,
// content blocks, tool calls and metadata, changing them in place, changing the results it got
// back) followed by the README's remedy for what the change check does not see (`invalidate(message)`,
// or `clearCache()`), every call of a warm editor gives exactly what a fresh editor gives:
// deep-equal messages (class, fields) and equal reports, plans and counts. Seeded, every message
// shape, random options; changes the check sees get no remedy, so the check is tested too.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ContextEditor } from '../dist/index.js'
import { Rng } from './support/prng.mjs'
import { TOOL_NAMES, buildMessages, conversationSpecs, editOptions, text, toOpenAI, toStored } from './support/conversations.mjs'
import { approxTokens } from './support/util.mjs'
import { dump, objectsIn } from './support/edits.mjs'

const SHAPES = {
  'LangChain instance': buildMessages,
  'LangChain dict': (specs) => structuredClone(specs),
  StoredMessage: toStored,
  OpenAI: toOpenAI,
}

const fieldsOf = (m) => (typeof m.type === 'string' && m.data && typeof m.data === 'object' ? m.data : m)
const isOpenAI = (m) => typeof m.role === 'string' && m.type === undefined

function block(rng) {
  const r = rng.next()
  if (r < 0.5) return { type: 'text', text: text(rng, rng.int(0, 40)) }
  if (r < 0.7) return { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(rng.int(1, 400))}` } }
  if (r < 0.85) return { type: 'thinking', thinking: text(rng, rng.int(1, 40)), signature: 's' }
  return { type: 'document', source: { data: text(rng, rng.int(1, 60)) } }
}

function someArgs(rng) {
  return { q: text(rng, rng.int(0, 60)), n: rng.int(0, 99) }
}

/**
 * Changes a caller may make in place to one of its messages: `[name, seen, apply]`. `seen` says
 * whether the README lists the change as one the check notices by itself; `apply(m, f, rng)`
 * returns false when the message has nothing to change that way.
 */
const CHANGES = [
  ['content replaced by text', true, (m, f, rng) => ((f.content = text(rng, rng.int(0, 80))), true)],
  ['content replaced by blocks', true, (m, f, rng) => ((f.content = Array.from({ length: rng.int(1, 3) }, () => block(rng))), true)],
  ['a block pushed', true, (m, f, rng) => Array.isArray(f.content) && (f.content.push(block(rng)), true)],
  [
    'a block replaced',
    true,
    (m, f, rng) => Array.isArray(f.content) && f.content.length > 0 && ((f.content[rng.int(0, f.content.length - 1)] = block(rng)), true),
  ],
  [
    'a block text edited in place',
    true,
    (m, f, rng) => {
      const b = Array.isArray(f.content) && f.content.find((x) => x?.type === 'text')
      return Boolean(b) && ((b.text = text(rng, rng.int(0, 60))), true)
    },
  ],
  [
    'inside a non-text block, in place',
    false,
    (m, f, rng) => {
      const b = Array.isArray(f.content) && f.content.find((x) => x && typeof x === 'object' && x.type !== 'text')
      if (!b) return false
      if (b.image_url) b.image_url.url += 'B'.repeat(rng.int(1, 200))
      else if (b.source) b.source.data += text(rng, 20)
      else b.thinking = text(rng, rng.int(1, 80))
      return true
    },
  ],
  [
    'another field of a block replaced',
    false,
    (m, f, rng) =>
      Array.isArray(f.content) &&
      f.content.some((x) => x && typeof x === 'object') &&
      ((f.content.find((x) => x && typeof x === 'object').note = text(rng, 10)), true),
  ],
  [
    'a tool call’s args replaced',
    true,
    (m, f, rng) => {
      const c = f.tool_calls?.[rng.int(0, Math.max(0, (f.tool_calls?.length ?? 1) - 1))]
      if (!isObjectLike(c)) return false
      if (c.function) c.function.arguments = JSON.stringify(someArgs(rng))
      else c.args = someArgs(rng)
      return true
    },
  ],
  [
    'inside a tool call’s args, in place',
    false,
    (m, f, rng) => {
      const c = f.tool_calls?.[0]
      if (!isObjectLike(c) || (!isObjectLike(c.function) && !isObjectLike(c.args))) return false
      if (c.function) c.function.extra = text(rng, 10)
      else c.args.extra = text(rng, rng.int(1, 60))
      return true
    },
  ],
  ['another field of a tool call', false, (m, f, rng) => isObjectLike(f.tool_calls?.[0]) && ((f.tool_calls[0].note = text(rng, rng.int(1, 40))), true)],
  ['a tool call replaced by a copy', true, (m, f) => isObjectLike(f.tool_calls?.[0]) && ((f.tool_calls[0] = { ...f.tool_calls[0] }), true)],
  ['name replaced', true, (m, f, rng) => ((f.name = rng.pick(TOOL_NAMES)), true)],
  [
    'metadata replaced',
    true,
    (m, f, rng) => ((f.response_metadata = rng.chance(0.5) ? { source: 'x' } : { context_editing: { cleared: true, strategy: 'clear_tool_uses' } }), true),
  ],
  ['a metadata value added in place', false, (m, f, rng) => isObjectLike(f.response_metadata) && ((f.response_metadata.latency = rng.int(0, 99)), true)],
  [
    'the marker set in place',
    true,
    (m, f) => isObjectLike(f.response_metadata) && ((f.response_metadata.context_editing = { cleared: true, strategy: 'clear_tool_uses' }), true),
  ],
  [
    'the marker’s strategy edited in place',
    false,
    (m, f) => isObjectLike(f.response_metadata?.context_editing) && ((f.response_metadata.context_editing.strategy = 'mine'), true),
  ],
  [
    'reasoning added',
    true,
    (m, f, rng) => {
      if (isOpenAI(m)) f.reasoning_content = text(rng, rng.int(1, 40))
      else f.additional_kwargs = { ...(f.additional_kwargs ?? {}), reasoning_content: text(rng, rng.int(1, 40)) }
      return true
    },
  ],
  ['id replaced', false, (m, f, rng) => ((f.id = `id${rng.int(0, 1e6)}`), true)],
  ['status replaced', false, (m, f) => ((f.status = 'error'), true)],
]

function isObjectLike(v) {
  return v !== null && typeof v === 'object'
}

/** What a caller observes of a call, or of its failure. */
async function observe(call) {
  try {
    const r = await call()
    if (r && Array.isArray(r.messages)) return { messages: dump(r.messages), report: r.report }
    return r
  } catch (e) {
    return { error: { code: e.code, path: e.path, messageIndex: e.messageIndex } }
  }
}

const CALLS = [
  ['edit', (e, h, c) => e.edit(h, c)],
  ['editAsync', (e, h, c) => e.editAsync(h, c)],
  ['plan', (e, h, c) => e.plan(h, c)],
  ['planAsync', (e, h, c) => e.planAsync(h, c)],
  ['countTokens', (e, h, c) => e.countTokens(h, c)],
]

const SEEDS = 120

test(`after any caller changes and the documented remedy, results equal a fresh editor's (${SEEDS} seeds)`, async () => {
  const counts = { seen: 0, declared: 0, frozen: 0, cleared: 0 }
  for (let seed = 1; seed <= SEEDS; seed++) {
    const rng = new Rng(7000 + seed)
    const shape = rng.pick(Object.keys(SHAPES))
    const specs = conversationSpecs(rng, { maxTurns: 14 })
    const all = SHAPES[shape](specs)
    const { options, maxInputTokens } = editOptions(rng, approxTokens(buildMessages(specs)), all.length)
    if (rng.chance(0.2)) options.tokenCountMethod = rng.pick(['model', 'estimate'])
    if (rng.chance(0.2)) options.cacheBreakpoints = true
    const context = { maxInputTokens }
    const editor = new ContextEditor(options)
    let view = []
    let last
    for (let step = 0; step < 16; step++) {
      const where = `seed ${seed} (${shape}), step ${step}`
      if (view.length < all.length && (view.length === 0 || rng.chance(0.6))) view = all.slice(0, Math.min(all.length, view.length + rng.int(1, 4)))
      else view = view.slice()
      // Changes to the caller's own messages.
      for (let k = rng.int(0, 3); k > 0 && view.length > 0; k--) {
        const m = view[rng.int(0, view.length - 1)]
        const [, seen, apply] = rng.pick(CHANGES)
        if (!apply(m, fieldsOf(m), rng)) continue
        if (seen) counts.seen++
        else {
          counts.declared++
          editor.invalidate(m)
        }
      }
      // Changes to what the last call returned.
      if (last && rng.chance(0.5)) {
        const mine = new Map(view.map((m) => [m, objectsIn(m)]))
        const objects = [...objectsIn(last)].filter((o) => o !== last)
        const copies = objects.filter((o) => Object.isFrozen(o))
        for (let k = rng.int(1, 4); k > 0 && objects.length > 0; k--) {
          const o = copies.length > 0 && rng.chance(0.5) ? rng.pick(copies) : rng.pick(objects)
          if (Object.isFrozen(o)) {
            // A copy the editor made (and may hand out again): it cannot be changed.
            assert.throws(
              () => {
                o.note = 'mine'
              },
              TypeError,
              where,
            )
            counts.frozen++
          } else {
            // One of the caller's own objects: changing it changes its messages, in place.
            if (Array.isArray(o)) {
              if (o.length === 0) continue
              o.push(o[0])
            } else o.note = text(rng, rng.int(1, 30))
            for (const [m, inside] of mine) if (inside.has(o)) editor.invalidate(m)
            counts.declared++
          }
        }
        if (rng.chance(0.3)) last.reverse()
      }
      if (rng.chance(0.08)) {
        editor.clearCache()
        counts.cleared++
      }
      if (rng.chance(0.05)) editor.forget(view)
      const [name, call] = rng.pick(CALLS)
      const got = await observe(() => call(editor, view, context))
      const want = await observe(() => call(new ContextEditor(options), view, context))
      assert.deepEqual(got, want, `${where}: ${name}`)
      if (name.startsWith('edit') && !got.error) last = (await Promise.resolve(call(editor, view, context))).messages
    }
  }
  // The run exercised every kind of step.
  for (const [k, n] of Object.entries(counts)) assert.ok(n > 10, `${k}: ${n}`)
})
