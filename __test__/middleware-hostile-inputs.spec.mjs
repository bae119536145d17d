// The context-editing middlewares (LangChain's `contextEditingMiddleware`, the Xpert
// `ContextEditingStrategy`) read their options and each request with every read guarded: a getter
// or Proxy trap that throws, a revoked Proxy, at any depth, is the caller's error with a code
// (`INVALID_OPTIONS` when the middleware is built; `INVALID_MESSAGE` / `INVALID_CONTEXT` for a
// request) and the path of what throws, with what was thrown as `cause`; never a bare error. A
// request with such an error never reaches the model.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError } from '../dist/index.js'
import { contextEditingMiddleware } from '../dist/langchain/index.js'
import { ContextEditingStrategy } from '../dist/xpert/index.js'

class Boom extends Error {}
const throwing = (fields, key, thrown) =>
  Object.defineProperty({ ...fields }, key, {
    enumerable: true,
    get() {
      throw thrown
    },
  })
const revoked = (target = {}) => {
  const { proxy, revoke } = Proxy.revocable(target, {})
  revoke()
  return proxy
}
const trap = (name, thrown, target = {}) =>
  new Proxy(target, {
    [name]: () => {
      throw thrown
    },
  })

const BUILDERS = {
  'LangChain middleware': (options) => contextEditingMiddleware(options),
  'Xpert strategy': (options) => new ContextEditingStrategy().createMiddleware(options),
}

/** Options that cannot be read, the path each must be named by, and whether the thrown value is the cause. */
function optionCases() {
  const t = () => new Boom('option')
  return {
    'a getter at the top': (b) => [throwing({}, 'trigger', (b = t())), 'trigger', b],
    'a getter inside trigger': (b) => [{ trigger: throwing({}, 'tokens', (b = t())) }, 'trigger.tokens', b],
    'a getter inside keep': (b) => [{ keep: throwing({}, 'messages', (b = t())) }, 'keep.messages', b],
    'a getter in a list': (b = t()) => [
      {
        excludeTools: Object.defineProperty(['a', 'b'], 1, {
          get() {
            throw b
          },
        }),
      },
      'excludeTools[1]',
      b,
    ],
    'a revoked Proxy as the options': () => [revoked(), 'options', TypeError],
    'a revoked Proxy as trigger': () => [{ trigger: revoked() }, 'trigger', TypeError],
    'an ownKeys trap that throws': (b) => [trap('ownKeys', (b = t())), 'options', b],
    'a getPrototypeOf trap that throws': (b) => [trap('getPrototypeOf', (b = t())), 'options', b],
    'a getter of onReport': (b) => [throwing({}, 'onReport', (b = t())), 'onReport', b],
    'a getter of maxInputTokens': (b) => [throwing({}, 'maxInputTokens', (b = t())), 'maxInputTokens', b],
  }
}

describe('options that cannot be read: INVALID_OPTIONS naming the option, the thrown value as cause', () => {
  for (const [builder, build] of Object.entries(BUILDERS)) {
    for (const [name, make] of Object.entries(optionCases())) {
      test(`${builder}: ${name}`, () => {
        const [options, path, cause] = make()
        assert.throws(
          () => build(options),
          (e) => {
            assert.ok(e instanceof ContextEditorError, `not a ContextEditorError: ${e}`)
            assert.equal(e.code, 'INVALID_OPTIONS')
            assert.equal(e.path, path, e.message)
            if (typeof cause === 'function') assert.ok(e.cause instanceof cause, String(e.cause))
            else assert.equal(e.cause, cause)
            return true
          },
        )
      })
    }
  }

  test('LangChain middleware: a ClearToolUsesEdit-like edit whose field throws is named inside edits', () => {
    const thrown = new Boom('edit')
    const edit = Object.defineProperty({ apply() {}, trigger: { tokens: 5 }, keep: { messages: 1 }, placeholder: '[x]' }, 'clearToolInputs', {
      enumerable: true,
      get() {
        throw thrown
      },
    })
    Object.setPrototypeOf(edit, { constructor: class ClearToolUsesEdit {} })
    assert.throws(
      () => contextEditingMiddleware({ edits: [edit] }),
      (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.path === 'edits[0].clearToolInputs' && e.cause === thrown,
    )
  })
})

function history() {
  return [
    new HumanMessage('go'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c0', name: 'read', args: {} }] }),
    new ToolMessage({ content: 'x'.repeat(400), tool_call_id: 'c0', name: 'read' }),
    new HumanMessage('next'),
  ]
}

/** Requests that cannot be read, and the code and path each must be reported with. */
function requestCases() {
  const b = () => new Boom('request')
  return {
    'messages behind a getter': (x) => [throwing({}, 'messages', (x = b())), 'INVALID_MESSAGE', 'messages', x],
    'messages a revoked Proxy': () => [{ messages: revoked([]) }, 'INVALID_MESSAGE', 'messages', TypeError],
    'the request a revoked Proxy': () => [revoked(), 'INVALID_MESSAGE', 'messages', TypeError],
    'a message behind a getter': (x = b()) => [
      {
        messages: Object.defineProperty(history(), 2, {
          get() {
            throw x
          },
        }),
      },
      'INVALID_MESSAGE',
      undefined,
      x,
    ],
    'messages of length 2^32 - 1': () => {
      const messages = history()
      messages.length = 2 ** 32 - 1
      return [{ messages }, 'INVALID_MESSAGE', 'messages']
    },
    'systemMessage behind a getter': (x) => [throwing({ messages: history() }, 'systemMessage', (x = b())), 'INVALID_CONTEXT', 'systemMessage', x],
    'systemPrompt behind a getter': (x) => [throwing({ messages: history() }, 'systemPrompt', (x = b())), 'INVALID_CONTEXT', 'systemPrompt', x],
    'tools behind a getter': (x) => [throwing({ messages: history() }, 'tools', (x = b())), 'INVALID_CONTEXT', 'tools', x],
    'a tool behind a getter': (x = b()) => [
      {
        messages: history(),
        tools: Object.defineProperty([{}], 0, {
          get() {
            throw x
          },
        }),
      },
      'INVALID_CONTEXT',
      'tools[0]',
      x,
    ],
    'a LangChain tool whose name throws': (x = b()) => [
      {
        messages: history(),
        tools: [
          {
            invoke() {},
            lc_namespace: ['x'],
            get name() {
              throw x
            },
          },
        ],
      },
      'INVALID_CONTEXT',
      'tools[0]',
      x,
    ],
    'model behind a getter': (x) => [throwing({ messages: history() }, 'model', (x = b())), 'INVALID_CONTEXT', 'model', x],
    'the model’s profile behind a getter': (x) => [{ messages: history(), model: throwing({}, 'profile', (x = b())) }, 'INVALID_CONTEXT', 'model', x],
  }
}

describe('requests that cannot be read: the caller’s error, and the model is never called', () => {
  for (const [builder, build] of Object.entries(BUILDERS)) {
    for (const [name, make] of Object.entries(requestCases())) {
      test(`${builder}: ${name}`, async () => {
        const [request, code, path, cause] = make()
        const middleware = build({ trigger: { tokens: 50 }, keep: { messages: 1 } })
        let called = false
        await assert.rejects(
          () =>
            middleware.wrapModelCall(request, async () => {
              called = true
              return 'done'
            }),
          (e) => {
            assert.ok(e instanceof ContextEditorError, `not a ContextEditorError: ${e}`)
            assert.equal(e.code, code, e.message)
            if (path !== undefined) assert.equal(e.path, path, e.message)
            if (typeof cause === 'function') assert.ok(e.cause instanceof cause, String(e.cause))
            else if (cause !== undefined) assert.equal(e.cause, cause)
            return true
          },
        )
        assert.equal(called, false)
      })
    }
  }

  test('a request read through a Proxy whose array methods throw is edited from one read of its entries', async () => {
    const messages = new Proxy(history(), {
      get(target, key, receiver) {
        if (key === 'slice' || key === 'map') throw new Boom('array method')
        return Reflect.get(target, key, receiver)
      },
    })
    let sent
    await contextEditingMiddleware({ trigger: { tokens: 50 }, keep: { messages: 0 } }).wrapModelCall(
      { messages, systemMessage: new SystemMessage('s') },
      async (r) => {
        sent = r.messages
        return 'done'
      },
    )
    assert.equal(sent[2].content, '[cleared]')
  })
})

test('tool definitions given as JSON text with a lone surrogate: INVALID_CONTEXT naming the tool, as for the system prompt', async () => {
  const editor = new ContextEditor()
  for (const call of [(c) => editor.edit(history(), c), (c) => editor.editAsync(history(), c), (c) => editor.countTokens(history(), c)]) {
    await assert.rejects(
      async () => call({ tools: ['{"name":"ok"}', '{"name":"\ud800"}'] }),
      (e) => e instanceof ContextEditorError && e.code === 'INVALID_CONTEXT' && e.path === 'tools[1]' && /surrogate/.test(e.message),
    )
  }
})
