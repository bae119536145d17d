// Foreign-format messages that attack the reader: getters and Proxy traps that throw, revoked
// Proxies, sparse arrays of huge length, keys put on Object.prototype, and malformed messages of a
// known format. Each is the caller's ContextEditorError naming the message (and field), from every
// entry point; nothing hangs, nothing escapes as a bare TypeError, and pollution decides nothing.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { ContextEditor, ContextEditorError } from '../dist/index.js'
import { conversation, toAiSdk, toAnthropic, toResponses } from './support/formats.mjs'
import { Rng } from './support/prng.mjs'

const OPTIONS = { trigger: { tokens: 200 }, keep: { messages: 1 } }

/** Every entry point, sync and async: the error each throws (or `undefined`). */
async function errorsOf(messages, context) {
  const editor = new ContextEditor(OPTIONS)
  const out = {}
  for (const [name, call] of Object.entries({
    edit: () => editor.edit(messages, context),
    editAsync: () => editor.editAsync(messages, context),
    plan: () => editor.plan(messages, context),
    planAsync: () => editor.planAsync(messages, context),
    countTokens: () => editor.countTokens(messages, context),
    countTokensAsync: () => editor.countTokensAsync(messages, context),
  })) {
    try {
      await call()
      out[name] = undefined
    } catch (e) {
      out[name] = e
    }
  }
  return out
}

function assertNamed(errors, index, path, where) {
  for (const [entry, e] of Object.entries(errors)) {
    assert.ok(e instanceof ContextEditorError, `${where}, ${entry}: ${e}`)
    assert.equal(e.code, 'INVALID_MESSAGE', `${where}, ${entry}: ${e.message}`)
    assert.equal(e.messageIndex, index, `${where}, ${entry}: ${e.message}`)
    if (path !== undefined) assert.equal(e.path, path, `${where}, ${entry}: ${e.message}`)
  }
}

const anthropic = () => toAnthropic(conversation(new Rng(3), { turns: 6, big: 1 })).messages
const aisdk = () => toAiSdk(conversation(new Rng(3), { turns: 6, big: 1 }))
const responses = () => toResponses(conversation(new Rng(3), { turns: 6, big: 1 })).input

test("a getter that throws inside a foreign message is the caller's INVALID_MESSAGE at that message, from every entry point", async () => {
  for (const [name, make, format] of [
    ['anthropic', anthropic, 'anthropic'],
    ['aisdk', aisdk, 'aisdk'],
    ['responses', responses, 'responses'],
  ]) {
    const messages = make()
    const k = messages.length - 1
    const bad = { ...messages[k] }
    Object.defineProperty(bad, 'content', {
      get: () => {
        throw new Error('boom')
      },
      enumerable: true,
    })
    messages[k] = bad
    // Told from the other messages, or given: the culprit is named either way.
    for (const context of [undefined, { format }]) {
      const errors = await errorsOf(messages, context)
      assertNamed(errors, k, undefined, `${name} ${JSON.stringify(context)}`)
      for (const e of Object.values(errors)) assert.equal(e.cause?.message, 'boom')
    }
  }
})

test('revoked Proxies as a message, a block, or the whole list are named, never a bare TypeError', async () => {
  for (const [name, make] of [
    ['anthropic', anthropic],
    ['aisdk', aisdk],
    ['responses', responses],
  ]) {
    const asMessage = make()
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    asMessage[2] = proxy
    for (const e of Object.values(await errorsOf(asMessage))) {
      assert.ok(e instanceof ContextEditorError && e.code === 'INVALID_MESSAGE' && e.messageIndex === 2, `${name}: ${e}`)
    }
    const list = Proxy.revocable([], {})
    list.revoke()
    for (const e of Object.values(await errorsOf(list.proxy))) assert.ok(e instanceof ContextEditorError && e.code === 'INVALID_MESSAGE', `${name}: ${e}`)
  }
  const blocks = anthropic()
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  const user = blocks.findIndex((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'))
  blocks[user] = { ...blocks[user], content: [...blocks[user].content, proxy] }
  for (const e of Object.values(await errorsOf(blocks, { format: 'anthropic' }))) {
    assert.ok(e instanceof ContextEditorError && e.code === 'INVALID_MESSAGE' && e.messageIndex === user, String(e))
  }
})

test('a request whose message list is sparse and huge is refused at once, not walked', async () => {
  const messages = []
  messages.length = 2 ** 32 - 1
  messages[0] = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'r' }] }
  for (const input of [messages, { system: 'x', messages }, { instructions: 'x', input: messages }]) {
    for (const e of Object.values(await errorsOf(input))) {
      assert.ok(e instanceof ContextEditorError && e.code === 'INVALID_MESSAGE', String(e))
      assert.match(e.message, /at most/)
    }
  }
})

test('keys put on Object.prototype decide nothing for foreign messages', async () => {
  const run = () => {
    const out = {}
    for (const [name, input] of [
      ['anthropic', toAnthropic(conversation(new Rng(9), { turns: 8, big: 0.8 }))],
      ['aisdk', toAiSdk(conversation(new Rng(9), { turns: 8, big: 0.8 }), true)],
      ['responses', toResponses(conversation(new Rng(9), { turns: 8, big: 0.8 }))],
    ]) {
      const r = new ContextEditor(OPTIONS).edit(input)
      out[name] = { messages: JSON.stringify(r.request ?? r.messages), cleared: r.report.cleared, tokens: [r.report.tokensBefore, r.report.tokensAfter] }
    }
    return out
  }
  const clean = run()
  for (const [key, value] of Object.entries({
    type: 'message',
    role: 'tool',
    format: 'aisdk',
    call_id: 'ghost',
    callId: 'ghost',
    tool_calls: [],
    providerOptions: {},
    input: [],
  })) {
    Object.defineProperty(Object.prototype, key, { value, configurable: true, writable: true })
    try {
      assert.deepEqual(run(), clean, `Object.prototype.${key}`)
    } finally {
      delete Object.prototype[key]
    }
  }
})

test("malformed messages of a known format name the field, in the caller's indices", async () => {
  const cases = [
    [
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'tool-call', toolName: 't', input: {} }] },
      ],
      1,
      'content[0].toolCallId',
    ],
    [
      [
        { role: 'user', content: 'go' },
        { role: 'tool', content: [{ type: 'tool-result', toolName: 't', output: { type: 'text', value: 'x' } }] },
      ],
      1,
      'content[0].toolCallId',
    ],
    [
      [
        { role: 'user', content: 'go' },
        { type: 'function_call', name: 'n', arguments: '{}' },
      ],
      1,
      'call_id',
    ],
    [
      [
        { role: 'user', content: 'go' },
        { type: 'function_call_output', output: 'x' },
      ],
      1,
      'call_id',
    ],
    [
      [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 't', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'tool_result', content: 'r' },
          ],
        },
      ],
      1,
      'content[1].tool_use_id',
    ],
  ]
  for (const [messages, index, path] of cases) assertNamed(await errorsOf(messages), index, path, JSON.stringify(messages).slice(0, 80))
})
