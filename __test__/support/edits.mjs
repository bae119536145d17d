// A history on which every edit changes something (cleared results, cleared inputs, a cache
// breakpoint, a truncated result, removed thinking, stripped calls), in every message shape the
// package accepts, and a structural dump to compare outputs field by field, class included.

import * as LC from '@langchain/core/messages'

/** The history as LangChain-style field objects (`type` + fields). */
export function richSpecs() {
  return [
    { type: 'system', content: 'be brief' },
    { type: 'human', content: 'look at a and b', id: 'h0' },
    {
      type: 'ai',
      id: 'a0',
      content: [
        { type: 'thinking', thinking: 'read a first', signature: 's0' },
        { type: 'text', text: 'reading a' },
        { type: 'tool_use', id: 'c0', name: 'read', input: { path: 'a' } },
      ],
      tool_calls: [{ id: 'c0', name: 'read', args: { path: 'a', opts: { deep: [1, 2] } }, type: 'tool_call' }],
      additional_kwargs: {
        reasoning_content: 'because',
        tool_calls: [{ id: 'c0', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }],
      },
      response_metadata: { model_name: 'm', context_editing: { cleared_tool_inputs: [] } },
    },
    {
      type: 'tool',
      tool_call_id: 'c0',
      name: 'read',
      id: 't0',
      content: 'x'.repeat(300),
      response_metadata: { latency: 3 },
      artifact: { raw: 1 },
      status: 'success',
    },
    {
      type: 'ai',
      id: 'a1',
      content: [{ type: 'text', text: 'now b' }],
      tool_calls: [{ id: 'c1', name: 'read', args: { path: 'b' }, type: 'tool_call' }],
      additional_kwargs: {},
      response_metadata: {},
    },
    { type: 'tool', tool_call_id: 'c1', name: 'read', id: 't1', content: [{ type: 'text', text: 'y'.repeat(300) }], response_metadata: {} },
    { type: 'human', content: [{ type: 'text', text: 'thanks' }], id: 'h1' },
    {
      type: 'ai',
      id: 'a2',
      content: [
        { type: 'thinking', thinking: 'wrap up', signature: 's1' },
        { type: 'text', text: 'a and b are long' },
      ],
    },
    { type: 'human', content: 'and now?', id: 'h2' },
  ]
}

/** Editor options under which each edit changes messages of `richSpecs`. */
export const PIPELINES = {
  'clear results and inputs, cache breakpoints': { trigger: { tokens: 1 }, keep: { messages: 0 }, clearToolInputs: true, cacheBreakpoints: true },
  'truncate results': { edits: [{ type: 'truncate_tool_results', maxChars: 50 }] },
  'clear thinking': { edits: [{ type: 'clear_thinking' }] },
  'strip tool calls': { edits: [{ type: 'strip_tool_calls' }] },
}

const CLASSES = { system: LC.SystemMessage, human: LC.HumanMessage, ai: LC.AIMessage, tool: LC.ToolMessage }
const ROLES = { system: 'system', human: 'user', ai: 'assistant', tool: 'tool' }

/**
 * Builds messages of one shape from specs (fresh objects every call). `own(target, spec)` runs on
 * each built message with its spec, e.g. to define extra own fields on class instances.
 */
export const SHAPES = {
  'LangChain instance': (specs, own = () => {}) =>
    specs.map((s) => {
      const { type, ...fields } = s
      const m = new CLASSES[type](fields)
      own(m, s)
      return m
    }),
  'LangChain dict': (specs) => specs.map((s) => ({ ...s })),
  StoredMessage: (specs) => specs.map(({ type, ...data }) => ({ type, data })),
  OpenAI: (specs) =>
    specs.map((s) => {
      const { type, tool_calls, additional_kwargs, response_metadata, ...rest } = s
      const m = { role: ROLES[type], ...rest }
      delete m.artifact
      delete m.status
      if (tool_calls) {
        m.tool_calls = tool_calls.map((c) => ({ ...c, args: undefined, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }))
        for (const c of m.tool_calls) {
          delete c.args
          delete c.name
        }
      }
      if (typeof additional_kwargs?.reasoning_content === 'string') m.reasoning_content = additional_kwargs.reasoning_content
      return m
    }),
}

/** The own enumerable string keys and values of `v`, as `Object.keys` sees them. */
function entriesOf(v) {
  return Object.keys(v).map((k) => [k, v[k]])
}

/**
 * A structural dump: every object's own enumerable fields in order, with its class (`Object`,
 * `null`, an array, the constructor's name, or `a foreign prototype` when its prototype is some
 * other object, e.g. one that an `Object.assign` of a `"__proto__"` key put there). `rename` maps a
 * key to the name it is dumped under.
 */
export function dump(v, rename = (k) => k, seen = new Set()) {
  if (v === null || typeof v !== 'object') return v
  if (seen.has(v)) return '[cycle]'
  seen.add(v)
  const proto = Object.getPrototypeOf(v)
  const kind = Array.isArray(v)
    ? 'Array'
    : proto === Object.prototype
      ? 'Object'
      : proto === null
        ? 'null'
        : Object.hasOwn(proto, 'constructor') && typeof proto.constructor === 'function'
          ? proto.constructor.name
          : 'a foreign prototype'
  const out = { kind, fields: entriesOf(v).map(([k, x]) => [rename(k), dump(x, rename, seen)]) }
  seen.delete(v)
  return out
}

/** Every object reachable from `v` through own enumerable fields (`"__proto__"` keys included). */
export function objectsIn(v, out = new Set()) {
  if (v === null || typeof v !== 'object' || out.has(v)) return out
  out.add(v)
  for (const [, x] of entriesOf(v)) objectsIn(x, out)
  return out
}
