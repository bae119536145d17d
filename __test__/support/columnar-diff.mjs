// Helpers of the columns-against-JSON red-team specs (columnar-red-team*.spec.mjs): odd ids and
// conversations built from them, and `same`, which runs every call of an editor with the JSON wire
// and with columns and asks for the same results and for the caller's messages left as they were.

import assert from 'node:assert/strict'
import { inspect } from 'node:util'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from '../../dist/index.js'
import { setColumnarWire } from '../../dist/wire.js'

/** Ids and names that are hard for a joined string with lengths: every odd code unit and size. */
export const ODD_IDS = [
  'c',
  '',
  '\u0000',
  '\u0000\u0000',
  'a\u0000b',
  '\uffff',
  '\ufffe\uffff',
  '😀',
  '\u{10ffff}',
  'x'.repeat(70_000),
  '{tool_call_id}',
  'cleared ',
  '"quoted"\\',
]
/** Ids that are not valid (lone surrogates, numbers, null): a conversation holding one fails. */
export const BAD_IDS = ['\ud800', 'a\udfffb', '\udc00\ud800', 7, null, 0]

/** What a call gives, as data: its value, or its error's code, message, path and index. */
export async function outcome(f) {
  try {
    return { value: JSON.parse(JSON.stringify(await f())) }
  } catch (e) {
    return { error: { code: e.code, message: e.message, path: e.path, messageIndex: e.messageIndex } }
  }
}

/** How the caller's messages look, every own field and hidden state included, without running a getter or a trap. */
export const look = (messages) => inspect(messages, { depth: Infinity, showHidden: true, getters: false, maxArrayLength: Infinity, maxStringLength: 64 })

/** Plans, edits (sync and async, first and next calls), counts; the messages must be left as they were. */
export async function run(opts, messages, context = {}) {
  const before = look(messages)
  const out = []
  let editor
  out.push(await outcome(() => (editor = new ContextEditor(opts))))
  if (editor === undefined) return out
  out.push(await outcome(() => editor.plan(messages, context)))
  out.push(await outcome(() => editor.edit(messages, context)))
  out.push(await outcome(() => editor.edit([...messages, new HumanMessage('next')], context)))
  out.push(await outcome(() => editor.planAsync(messages, context)))
  out.push(await outcome(() => new ContextEditor(opts).editAsync(messages, context)))
  const counted = new ContextEditor(opts)
  out.push(await outcome(() => counted.countTokens(messages, context)))
  out.push(await outcome(() => counted.edit(messages, context)))
  assert.equal(look(messages), before, 'the caller’s messages are left as they were')
  return out
}

/** `run` with the JSON wire, then with columns: the same results. `make` gives fresh messages each time. */
export async function same(opts, make, context, where) {
  const was = setColumnarWire(false)
  let json
  try {
    json = await run(opts, make(), context)
  } finally {
    setColumnarWire(was)
  }
  const columns = await run(opts, make(), context)
  assert.deepEqual(columns, json, where)
  return columns
}

/** A conversation whose ids, names, message ids and cleared-input ids come from `ODD_IDS`. */
export function oddConversation(r, n, lc) {
  const id = () => (r.chance(0.015) ? r.pick(BAD_IDS) : r.pick(ODD_IDS))
  const out = [lc ? new SystemMessage('sys') : { role: 'system', content: 'sys' }]
  const calls = []
  while (out.length < n) {
    const x = r.next()
    if (x < 0.35) {
      const made = Array.from({ length: r.int(1, 3) }, () => ({ id: id(), name: r.chance(0.8) ? id() : undefined, args: { q: 'word '.repeat(r.int(0, 40)) } }))
      calls.push(...made)
      const md = r.chance(0.3) ? { context_editing: { cleared_tool_inputs: [id(), r.chance(0.3) ? '\udc00' : id()] } } : {}
      if (lc) {
        const fields = { content: 'thinking '.repeat(r.int(0, 9)), tool_calls: made.map((c) => ({ ...c, type: 'tool_call' })), id: id(), response_metadata: md }
        try {
          out.push(new AIMessage(fields))
        } catch {
          out.push({ type: 'ai', ...fields })
        }
      } else {
        out.push({
          role: 'assistant',
          content: 'ok',
          tool_calls: made.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })),
        })
      }
    } else if (x < 0.8) {
      const call = calls.length && r.chance(0.8) ? r.pick(calls) : { id: id(), name: id() }
      const content = r.chance(0.2) ? r.pick(['[cleared]', `cleared ${call.id}`]) : 'result '.repeat(r.int(1, 60))
      const fields = { content, tool_call_id: call.id, name: r.chance(0.6) ? call.name : id(), id: id() }
      if (lc) {
        try {
          out.push(new ToolMessage(fields))
        } catch {
          out.push({ type: 'tool', ...fields })
        }
      } else out.push({ role: 'tool', ...fields })
    } else out.push(lc ? new HumanMessage({ content: 'q '.repeat(r.int(1, 20)), id: id(), name: id() }) : { role: 'user', content: 'q', name: id() })
  }
  return out
}

export function oddOptions(r) {
  const clear = {
    trigger: r.pick([{ tokens: r.int(1, 200) }, { messages: r.int(1, 12) }]),
    keep: r.pick([{ messages: r.int(0, 3) }, { tokens: r.int(0, 80) }]),
    ...(r.chance(0.4) ? { clearToolInputs: true } : {}),
    ...(r.chance(0.5) ? { excludeTools: ODD_IDS.filter((x) => typeof x === 'string' && r.chance(0.3)) } : {}),
    ...(r.chance(0.4) ? { placeholder: r.pick(['cleared {tool_call_id}', '[cleared]']) } : {}),
    ...(r.chance(0.3) ? { pin: { ids: ODD_IDS.filter((x) => typeof x === 'string' && x !== '' && r.chance(0.3)) } } : {}),
    ...(r.chance(0.2) ? { prefer: 'newest' } : {}),
    ...(r.chance(0.2) ? { stable: true } : {}),
  }
  return r.chance(0.7)
    ? clear
    : {
        edits: [
          { type: 'truncate_tool_results', trigger: clear.trigger, maxChars: r.int(1, 30) },
          { type: 'clear_tool_uses', ...clear },
        ],
      }
}
