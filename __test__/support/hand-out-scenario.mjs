// The scenario of hand-out-shells.spec.mjs: every pipeline on every message shape (LangChain
// instances of @langchain/core 1.x and 0.3, dicts, stored messages, OpenAI messages), five calls on
// one editor with the history growing, and what a caller sees of each message handed out. The spec
// runs it in its own process (shells made by compiled makers) and in a child process where code
// generation is disallowed (shells spread, the way that needs no maker): both must see the same.
import * as core1 from '@langchain/core/messages'
import * as core03 from '@langchain/core-03/messages'
import { ContextEditor } from '../../dist/index.js'
import { PIPELINES, SHAPES, dump, richSpecs } from './edits.mjs'
import { generateConversation } from '../../benchmark/generate.mjs'

const CORES = { '@langchain/core 1.x': core1, '@langchain/core 0.3': core03 }
const CLASS = { system: 'SystemMessage', human: 'HumanMessage', ai: 'AIMessage', tool: 'ToolMessage' }

/** Message shapes: the spec's, with LangChain instances of each core. */
function shapes() {
  const out = { ...SHAPES }
  delete out['LangChain instance']
  for (const [name, core] of Object.entries(CORES)) {
    out[`LangChain instance, ${name}`] = (specs) => {
      const seen = {}
      return specs.map((s) => {
        const { type, ...fields } = s
        const m = new core[CLASS[type]](fields)
        // Instances of one class with other field lists: a host's own fields on the later ones,
        // each holding more than the one before (one list must not pass for another that begins
        // like it).
        const k = (seen[type] = (seen[type] ?? -1) + 1)
        if (k >= 1) m.host_note = `note ${k}`
        if (k >= 2) Object.defineProperty(m, 'host_flag', { value: true, enumerable: true, writable: true, configurable: true })
        return m
      })
    }
  }
  return out
}

/** What a caller can see of a message object: its class, its own keys in order and their descriptors, nested objects by content. */
export function anatomy(m) {
  const proto = Object.getPrototypeOf(m)
  return {
    class: proto === Object.prototype ? 'Object' : proto?.constructor?.name,
    keys: Reflect.ownKeys(m).map(String),
    descriptors: Reflect.ownKeys(m).map((k) => {
      const d = Object.getOwnPropertyDescriptor(m, k)
      const value = typeof d.value === 'object' && d.value !== null ? dump(d.value) : typeof d.value === 'function' ? 'a function' : d.value
      return [String(k), 'value' in d, d.writable, d.enumerable, d.configurable, value === undefined ? '(undefined)' : value]
    }),
    type: typeof m._getType === 'function' ? m._getType() : m.type,
  }
}

/**
 * A long agent history (the benchmark's generator) as instances of `core`'s classes, tool results
 * in several field lists: a host's own fields on some, no id on others (their `lc_kwargs` are
 * each caller's own).
 */
function longHistory(core) {
  let tools = 0
  return generateConversation({ seed: 7, messages: 240 }).messages.map((m) => {
    const type = m._getType()
    const fields = { content: m.content, id: m.id }
    if (type === 'ai' && m.tool_calls?.length) fields.tool_calls = m.tool_calls
    if (type === 'tool') Object.assign(fields, { tool_call_id: m.tool_call_id, name: m.name })
    if (type === 'tool' && tools % 4 === 3) delete fields.id
    const out = new core[CLASS[type]](fields)
    if (type === 'tool') {
      if (tools % 2 === 1) out.host_note = `note ${tools}`
      if (tools % 3 === 2) Object.defineProperty(out, 'host_flag', { value: tools, enumerable: true, writable: true, configurable: true })
      tools++
    }
    return out
  })
}

/** Five calls on one editor, the history growing by a turn from the third; what each hands out, and whether a call handed out another's object. */
function calls(options, first, next) {
  const editor = new ContextEditor(options)
  let history = first
  const out = []
  const made = new Set()
  let reused = 0
  for (let k = 0; k < 5; k++) {
    if (k >= 2) history = next(history, k)
    const got = editor.edit(history).messages
    const copies = got.filter((m) => !history.includes(m))
    // What is the caller's own: the message object, and the lc_kwargs of one without an id
    // (LangGraph's reducer writes the id it gives there).
    const own = copies.flatMap((m) => (m.id == null && m.lc_kwargs && typeof m.lc_kwargs === 'object' ? [m, m.lc_kwargs] : [m]))
    for (const o of own) if (made.has(o)) reused++
    for (const o of own) made.add(o)
    out.push(got.map(anatomy))
  }
  return { calls: out, copies: made.size, reused }
}

/**
 * Runs the scenario: for each shape and pipeline, the anatomy of every message of five calls, and
 * whether any message object a call made was handed out by another call.
 */
export function run() {
  const out = {}
  for (const [shape, build] of Object.entries(shapes())) {
    for (const [pipeline, options] of Object.entries(PIPELINES)) {
      out[`${shape}, ${pipeline}`] = calls(options, build(richSpecs()), (h, k) => [...h, new core1.HumanMessage(`turn ${k}`)])
    }
  }
  for (const [name, core] of Object.entries(CORES)) {
    const all = longHistory(core)
    // Cut before assistant messages, as an agent's model calls see the history.
    const cuts = all.flatMap((m, i) => (i > 120 && m._getType() === 'ai' ? [i] : []))
    out[`a long history, ${name}`] = calls({ trigger: { tokens: 1 }, keep: { messages: 2 } }, all.slice(0, cuts[0]), (_, k) => all.slice(0, cuts[k]))
  }
  return out
}
