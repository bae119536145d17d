// Edited copies are faithful: a message an edit changes is a copy with every field of the
// original, as data, in its class. An own "__proto__" key (JSON.parse makes them) is a field like
// any other: kept, never the copy's prototype. A field the original gets from its prototype (a
// getter over private state, a method) reads the same on the copy. A setter is never run.
// For every edit, in every message shape, at every level (message, content block, tool call,
// metadata).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, applyPlan } from '../dist/index.js'
import { PIPELINES, SHAPES, dump, objectsIn, richSpecs } from './support/edits.mjs'

/**
 * `specs` with an extra own field `key` on every object (message, blocks, calls, metadata, args…),
 * holding a tag that says where it was. Defined, not assigned, so `"__proto__"` is a field too.
 */
function tagged(specs, key) {
  const tag = (v, at) => {
    if (Array.isArray(v)) return v.map((x, k) => tag(x, `${at}[${k}]`))
    if (v === null || typeof v !== 'object') return v
    const out = {}
    for (const [k, x] of Object.entries(v)) out[k] = tag(x, `${at}.${k}`)
    Object.defineProperty(out, key, { value: { tag: at }, enumerable: true, writable: true, configurable: true })
    return out
  }
  return specs.map((s, i) => tag(s, `m${i}`))
}

/** Class instances take their fields from the constructor: the message's own extra key is defined after. */
const ownKey = (key) => (m, spec) => Object.defineProperty(m, key, { value: spec[key], enumerable: true, writable: true, configurable: true })

describe('an own "__proto__" key is data, kept like any other field', () => {
  for (const [shape, build] of Object.entries(SHAPES)) {
    for (const [pipeline, options] of Object.entries(PIPELINES)) {
      test(`${shape}, ${pipeline}`, () => {
        const asProto = build(tagged(richSpecs(), '__proto__'), ownKey('__proto__'))
        const asField = build(tagged(richSpecs(), 'proto_tag'), ownKey('proto_tag'))
        const got = new ContextEditor(options).edit(asProto).messages
        const want = new ContextEditor(options).edit(asField).messages
        assert.ok(
          got.some((m, i) => m !== asProto[i]),
          'the edit changed something',
        )
        // Field for field, class for class, the same output as with an ordinary key in its place
        // (OpenAI arguments are JSON text: there the key is renamed inside the text).
        const rename = (k) => (k === '__proto__' ? 'proto_tag' : k)
        const text = (d) => JSON.stringify(d).replaceAll('\\"__proto__\\"', '\\"proto_tag\\"')
        assert.equal(text(dump(got, rename)), text(dump(want)))
        // No object got a tag object as its prototype, and Object.prototype is untouched.
        for (const o of objectsIn(got)) assert.equal(Object.getPrototypeOf(o)?.tag, undefined)
        assert.equal({}.tag, undefined)
      })
    }
  }

  test('the copy of a JSON.parse-d OpenAI tool message keeps its "__proto__" field and plain prototype', () => {
    const history = [
      { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: '{}' } }] },
      JSON.parse('{"role":"tool","tool_call_id":"a","content":"secret","__proto__":{"role":"user"}}'),
      { role: 'user', content: 'next' },
    ]
    const out = new ContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 } }).edit(history).messages
    assert.equal(out[1].content, '[cleared]')
    assert.equal(Object.getPrototypeOf(out[1]), Object.prototype)
    assert.deepEqual(Object.getOwnPropertyDescriptor(out[1], '__proto__').value, { role: 'user' })
  })
})

/** An OpenAI-style message class whose role lives in a private field behind a prototype getter. */
class PrivateRoleMessage {
  #role
  constructor(role, fields) {
    this.#role = role
    Object.assign(this, fields)
  }
  get role() {
    return this.#role
  }
}

/** A class that keeps `content` behind an accessor pair on its prototype (its setter must not run on a copy). */
class AccessorMessage {
  #content
  constructor(fields) {
    this.#content = fields.content
    this.role = fields.role
    this.tool_call_id = fields.tool_call_id
  }
  get content() {
    return this.#content
  }
  set content(_) {
    throw new Error('the setter of the original class ran')
  }
}

/** A LangChain-like dict class whose type comes from a method over private state. */
class MethodTypedMessage {
  #type
  constructor(type, fields) {
    this.#type = type
    Object.assign(this, fields)
  }
  _getType() {
    return this.#type
  }
}

/** Metadata as a class instance with a prototype getter. */
class Metadata {
  constructor(model) {
    this.model = model
  }
  get provider() {
    return 'acme'
  }
}

function openaiCalls(ids) {
  return ids.map((id) => ({ id, type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }))
}

describe('fields a message gets from its prototype survive the copy', () => {
  const clearing = { trigger: { tokens: 1 }, keep: { messages: 0 } }

  test('an OpenAI tool message whose role is a getter over a private field: cleared, truncated, stripped', () => {
    const history = () => [
      new PrivateRoleMessage('user', { content: 'go' }),
      new PrivateRoleMessage('assistant', { content: 'reading', tool_calls: openaiCalls(['c0']) }),
      new PrivateRoleMessage('tool', { tool_call_id: 'c0', content: 'x'.repeat(300) }),
      new PrivateRoleMessage('user', { content: 'next' }),
    ]
    for (const options of [
      { ...clearing, clearToolInputs: true },
      { edits: [{ type: 'truncate_tool_results', maxChars: 20 }] },
      { edits: [{ type: 'strip_tool_calls' }] },
    ]) {
      const h = history()
      const { messages } = new ContextEditor(options).edit(h)
      const copies = messages.filter((m) => !h.includes(m))
      assert.ok(copies.length > 0, JSON.stringify(options))
      for (const m of copies) {
        assert.ok(m instanceof PrivateRoleMessage, 'the class is kept')
        assert.ok(['assistant', 'tool'].includes(m.role), `role ${m.role}`)
      }
      // The output is valid input: editing it again counts it like a fresh history.
      assert.doesNotThrow(() => new ContextEditor(options).edit(messages))
    }
    const h = history()
    const out = new ContextEditor(clearing).edit(h).messages
    assert.equal(out[2].role, 'tool')
    assert.equal(out[2].content, '[cleared]')
    assert.equal(h[2].content, 'x'.repeat(300), 'the input is untouched')
  })

  test("a class's content accessor: the copy holds the new content as its own field and the setter never runs", () => {
    const h = [
      { role: 'assistant', content: '', tool_calls: openaiCalls(['c0']) },
      new AccessorMessage({ role: 'tool', tool_call_id: 'c0', content: 'x'.repeat(300) }),
      { role: 'user', content: 'next' },
    ]
    const out = new ContextEditor(clearing).edit(h).messages
    assert.ok(out[1] instanceof AccessorMessage)
    assert.equal(out[1].content, '[cleared]')
    assert.equal(h[1].content, 'x'.repeat(300))
  })

  test('a type from a method over private state, and metadata of a class, survive a clear', () => {
    const h = [
      new MethodTypedMessage('ai', { content: '', tool_calls: [{ id: 'c0', name: 'read', args: {} }] }),
      new MethodTypedMessage('tool', { tool_call_id: 'c0', content: 'x'.repeat(300), response_metadata: new Metadata('m') }),
      new MethodTypedMessage('human', { content: 'next' }),
    ]
    const out = new ContextEditor(clearing).edit(h).messages
    assert.equal(out[1]._getType(), 'tool')
    assert.equal(out[1].content, '[cleared]')
    const md = out[1].response_metadata
    assert.ok(md instanceof Metadata, 'the metadata keeps its class')
    assert.equal(md.provider, 'acme')
    assert.equal(md.model, 'm')
    assert.deepEqual(md.context_editing, { cleared: true, strategy: 'clear_tool_uses' })
    assert.equal(h[1].response_metadata.context_editing, undefined)
  })

  test('a message without a prototype keeps none', () => {
    const h = [
      { role: 'assistant', content: '', tool_calls: openaiCalls(['c0']) },
      Object.assign(Object.create(null), { role: 'tool', tool_call_id: 'c0', content: 'x'.repeat(300) }),
      { role: 'user', content: 'next' },
    ]
    const out = new ContextEditor(clearing).edit(h).messages
    assert.equal(Object.getPrototypeOf(out[1]), null)
    assert.equal(out[1].content, '[cleared]')
  })

  test('a caller array class is never called on (edits build plain arrays)', () => {
    class Calls extends Array {
      static get [Symbol.species]() {
        throw new Error('species constructor called')
      }
    }
    const calls = Calls.from([{ id: 'c0', name: 'read', args: { path: 'a' } }])
    const h = [
      new HumanMessage('go'),
      new AIMessage({ content: [{ type: 'text', text: 'x' }], tool_calls: calls }),
      new ToolMessage({ tool_call_id: 'c0', content: 'x'.repeat(300) }),
      new HumanMessage('next'),
    ]
    for (const options of [{ ...clearing, clearToolInputs: true }, { edits: [{ type: 'strip_tool_calls' }] }]) {
      const plan = new ContextEditor(options).plan(h)
      assert.doesNotThrow(() => applyPlan(h, plan))
    }
  })
})
