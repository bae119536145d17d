// When the caller's own code throws while the editor reads its input (a getter, a Proxy trap, a
// revoked Proxy), that is the caller's error, not a bug of context-editor: every public entry
// point, sync and async, shim and native, reports it with a stable code (INVALID_OPTIONS,
// INVALID_MESSAGE, INVALID_CONTEXT), the path or message index of what could not be read, and
// what was thrown as `cause`. Never INTERNAL, never a bare Error.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError, applyPlan } from '../dist/index.js'
import { NativeContextEditor, toWireContext, toWireMessages } from '../index.js'

/** A value thrown by the caller's code; each case gets its own, to check `cause` by identity. */
class Boom extends Error {}

function revoked(target = {}) {
  const r = Proxy.revocable(target, {})
  r.revoke()
  return r.proxy
}

/** A getter that throws `thrown`. */
function throwing(thrown) {
  return {
    get() {
      throw thrown
    },
    enumerable: true,
  }
}

function withGetter(obj, key, thrown) {
  return Object.defineProperty(obj, key, throwing(thrown))
}

/**
 * Checks a caller error: its code, path and index, and that `cause` is what was thrown (or, for
 * a revoked Proxy, the TypeError V8 throws).
 */
function check(err, { code, path, messageIndex, thrown }, where) {
  assert.ok(err, `${where}: expected an error`)
  assert.equal(err.code, code, `${where}: code (${err.message})`)
  assert.equal(err.path, path, `${where}: path (${err.message})`)
  assert.equal(err.messageIndex, messageIndex, `${where}: messageIndex (${err.message})`)
  if (thrown === TypeError) assert.ok(err.cause instanceof TypeError, `${where}: cause ${err.cause}`)
  else assert.equal(err.cause, thrown, `${where}: cause`)
  const named = messageIndex === undefined ? path : path === undefined ? `messages[${messageIndex}]` : `messages[${messageIndex}].${path}`
  assert.ok(err.message.includes(named), `${where}: the message names ${named}: ${err.message}`)
  assert.match(err.message, /could not be read/, where)
}

function caught(fn) {
  try {
    fn()
  } catch (e) {
    return e
  }
  return undefined
}

async function rejected(fn) {
  try {
    await fn()
  } catch (e) {
    return e
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------

/** Options whose reading throws: `[name, () => [options, thrown], path]`. */
const OPTION_CASES = [
  ['a getter at the top', (b) => [withGetter({}, 'keep', b), b], 'keep'],
  ['a getter inside an option', (b) => [{ trigger: withGetter({}, 'tokens', b) }, b], 'trigger.tokens'],
  ['a getter on a list entry', (b) => [{ excludeTools: withGetter(['a', 'b', 'c'], 2, b) }, b], 'excludeTools[2]'],
  ['a getter inside an edit', (b) => [{ edits: [{ type: 'clear_tool_uses', keep: withGetter({}, 'messages', b) }] }, b], 'edits[0].keep.messages'],
  [
    'a Proxy whose ownKeys trap throws',
    (b) => [
      new Proxy(
        {},
        {
          ownKeys: () => {
            throw b
          },
        },
      ),
      b,
    ],
    'options',
  ],
  [
    'a Proxy whose get trap throws',
    (b) => [
      new Proxy(
        { trigger: {} },
        {
          get: () => {
            throw b
          },
        },
      ),
      b,
    ],
    'trigger',
  ],
  ['a revoked Proxy', () => [revoked(), TypeError], 'options'],
  ['a revoked Proxy inside a list', () => [{ edits: [revoked()] }, TypeError], 'edits[0]'],
]

describe('options', () => {
  for (const [name, make, path] of OPTION_CASES) {
    test(`${name}: INVALID_OPTIONS at ${path}, from the shim and the native class`, () => {
      for (const [where, Class] of [
        ['new ContextEditor', ContextEditor],
        ['new NativeContextEditor', NativeContextEditor],
      ]) {
        const [options, thrown] = make(new Boom('options getter'))
        const err = caught(() => new Class(options))
        check(err, { code: 'INVALID_OPTIONS', path, thrown }, where)
        if (Class === ContextEditor) assert.ok(err instanceof ContextEditorError)
      }
    })
  }
})

// ---------------------------------------------------------------------------------------------

/** A valid LangChain history of 4 messages (a call and its result in the middle). */
function history() {
  return [
    new HumanMessage('go'),
    new AIMessage({ content: [{ type: 'text', text: 'reading' }], tool_calls: [{ id: 'c0', name: 'read', args: { path: 'a' } }] }),
    new ToolMessage({ content: 'x'.repeat(200), tool_call_id: 'c0', name: 'read' }),
    new HumanMessage('next'),
  ]
}

/** Histories whose reading throws: `[name, (thrown) => [messages, thrown], index, path]`. */
const MESSAGE_CASES = [
  ['a message field', (b) => [Object.assign(history(), { 3: withGetter({ role: 'user' }, 'content', b) }), b], 3, 'content'],
  [
    'a content block field',
    (b) => [Object.assign(history(), { 3: { role: 'user', content: [withGetter({ type: 'text' }, 'text', b)] } }), b],
    3,
    'content[0].text',
  ],
  [
    'a tool call field',
    (b) => {
      const h = history()
      h[1] = { type: 'ai', content: '', tool_calls: [withGetter({ id: 'c0', name: 'read' }, 'args', b)] }
      return [h, b]
    },
    1,
    'tool_calls[0].args',
  ],
  [
    'the cleared marker in metadata',
    (b) => {
      const h = history()
      h[2] = { type: 'tool', tool_call_id: 'c0', content: 'x', response_metadata: withGetter({}, 'context_editing', b) }
      return [h, b]
    },
    2,
    'response_metadata.context_editing',
  ],
  [
    'a Proxy get trap on a message field',
    (b) => [
      Object.assign(history(), {
        0: new Proxy(
          { role: 'user', content: 'go' },
          {
            get: (t, k) =>
              k === 'content'
                ? (() => {
                    throw b
                  })()
                : t[k],
          },
        ),
      }),
      b,
    ],
    0,
    'content',
  ],
  [
    'a Proxy has trap inside additional_kwargs',
    (b) => {
      const h = history()
      h[3] = {
        type: 'human',
        content: 'n',
        additional_kwargs: new Proxy(
          {},
          {
            get: () => {
              throw b
            },
          },
        ),
      }
      return [h, b]
    },
    3,
    'additional_kwargs.reasoning_content',
  ],
  ['a revoked Proxy as a message', () => [Object.assign(history(), { 1: revoked() }), TypeError], 1, undefined],
  ['a revoked Proxy as a content block', () => [Object.assign(history(), { 3: { role: 'user', content: [revoked()] } }), TypeError], 3, 'content[0]'],
  ['an entry of the array behind a getter', (b) => [withGetter(history(), 2, b), b], 2, undefined],
]

/** Every shim entry point that reads messages (the async ones reject). */
const SHIM_CALLS = [
  ['edit', (m) => new ContextEditor({}).edit(m)],
  ['editAsync', (m) => new ContextEditor({}).editAsync(m)],
  ['plan', (m) => new ContextEditor({}).plan(m)],
  ['planAsync', (m) => new ContextEditor({}).planAsync(m)],
  ['countTokens', (m) => new ContextEditor({ tokenCountMethod: 'model' }).countTokens(m)],
  ['countTokensAsync', (m) => new ContextEditor({}).countTokensAsync(m)],
  ['toWireMessages', (m) => toWireMessages(m, { sendText: true })],
]

describe('messages', () => {
  for (const [name, make, messageIndex, path] of MESSAGE_CASES) {
    test(`${name}: INVALID_MESSAGE at messages[${messageIndex}]${path ? `.${path}` : ''} from every entry point`, async () => {
      for (const [where, call] of SHIM_CALLS) {
        const [messages, thrown] = make(new Boom('message getter'))
        const err = where.endsWith('Async') ? await rejected(() => call(messages)) : caught(() => call(messages))
        check(err, { code: 'INVALID_MESSAGE', path, messageIndex, thrown }, where)
        assert.ok(err instanceof ContextEditorError, where)
      }
    })
  }

  test('an array that cannot be read (length getter, revoked Proxy): INVALID_MESSAGE at messages', async () => {
    for (const make of [
      (b) => [
        new Proxy([], {
          get: (t, k) =>
            k === 'length'
              ? (() => {
                  throw b
                })()
              : t[k],
        }),
        b,
      ],
      () => [revoked([]), TypeError],
    ]) {
      for (const [where, call] of SHIM_CALLS) {
        const [messages, thrown] = make(new Boom('array'))
        const err = where.endsWith('Async') ? await rejected(() => call(messages)) : caught(() => call(messages))
        check(err, { code: 'INVALID_MESSAGE', path: 'messages', messageIndex: undefined, thrown }, where)
      }
    }
  })

  test('a message that throws only while it is copied (ownKeys trap): INVALID_MESSAGE naming it', () => {
    const thrown = new Boom('ownKeys')
    const h = history()
    h[2] = new Proxy(
      { type: 'tool', tool_call_id: 'c0', content: 'x'.repeat(200) },
      {
        ownKeys: () => {
          throw thrown
        },
      },
    )
    const editor = new ContextEditor({ trigger: { tokens: 1 }, keep: { messages: 0 } })
    const plan = editor.plan(h)
    assert.ok(plan.ops.some((o) => o.type === 'clear_tool_result' && o.index === 2))
    check(
      caught(() => editor.edit(h)),
      { code: 'INVALID_MESSAGE', path: undefined, messageIndex: 2, thrown },
      'edit',
    )
    check(
      caught(() => applyPlan(h, plan)),
      { code: 'INVALID_MESSAGE', path: undefined, messageIndex: 2, thrown },
      'applyPlan',
    )
  })

  test('a held message whose field starts throwing on a later call is named there too', () => {
    const editor = new ContextEditor({})
    const h = history()
    editor.edit(h)
    const thrown = new Boom('later')
    withGetter(h[1], 'content', thrown)
    check(
      caught(() => editor.edit(h)),
      { code: 'INVALID_MESSAGE', path: 'content', messageIndex: 1, thrown },
      'edit',
    )
  })

  test('the native binding: a wire message field, a call field, an entry of the array', async () => {
    const native = new NativeContextEditor({})
    const wire = () => [
      { role: 'user', content: 'go' },
      { role: 'assistant', toolCalls: [{ id: 'c0', name: 'read', args: '{}' }] },
    ]
    const cases = [
      [(b) => Object.assign(wire(), { 0: withGetter({ role: 'user' }, 'content', b) }), 0, 'content'],
      [(b) => Object.assign(wire(), { 1: { role: 'assistant', toolCalls: [withGetter({ id: 'c0' }, 'name', b)] } }), 1, 'toolCalls[0].name'],
    ]
    for (const [make, messageIndex, path] of cases) {
      for (const [where, call] of [
        ['plan', (m) => native.plan(m)],
        ['planAsync', (m) => native.planAsync(m)],
        ['countTokens', (m) => native.countTokens(m)],
        ['countTokensAsync', (m) => native.countTokensAsync(m)],
        ['planSession', (m) => native.planSession(7, 0, m)],
        ['planSessionAsync', (m) => native.planSessionAsync(7, 0, m)],
        ['appendSession', (m) => native.appendSession(7, 0, m)],
      ]) {
        const thrown = new Boom('wire getter')
        const err = await rejected(async () => call(make(thrown)))
        check(err, { code: 'INVALID_MESSAGE', path, messageIndex, thrown }, `native ${where}`)
      }
    }
    const thrown = new Boom('index')
    const err = caught(() => native.plan(withGetter(wire(), 1, thrown)))
    check(err, { code: 'INVALID_MESSAGE', path: undefined, messageIndex: 1, thrown }, 'native entry getter')
  })
})

describe('whatever is thrown', () => {
  const thrownValues = () => [
    ['a string', 'plain string'],
    ['a number', 42],
    ['undefined', undefined],
    ['a revoked Proxy', revoked()],
    ['an object whose message getter throws', withGetter({}, 'message', new Error('inner'))],
  ]
  test('is the cause, by identity, from options, messages and context, shim and native', async () => {
    for (const [what, thrown] of thrownValues()) {
      const calls = [
        ['new ContextEditor', () => new ContextEditor(withGetter({}, 'keep', thrown)), { code: 'INVALID_OPTIONS', path: 'keep' }],
        ['new NativeContextEditor', () => new NativeContextEditor(withGetter({}, 'keep', thrown)), { code: 'INVALID_OPTIONS', path: 'keep' }],
        [
          'edit',
          () => new ContextEditor({}).edit([withGetter({ role: 'user' }, 'content', thrown)]),
          { code: 'INVALID_MESSAGE', path: 'content', messageIndex: 0 },
        ],
        [
          'editAsync',
          () => new ContextEditor({}).editAsync([withGetter({ role: 'user' }, 'content', thrown)]),
          { code: 'INVALID_MESSAGE', path: 'content', messageIndex: 0 },
        ],
        [
          'native plan',
          () => new NativeContextEditor({}).plan([withGetter({ role: 'user' }, 'content', thrown)]),
          { code: 'INVALID_MESSAGE', path: 'content', messageIndex: 0 },
        ],
        ['countTokens', () => new ContextEditor({}).countTokens([], withGetter({}, 'model', thrown)), { code: 'INVALID_CONTEXT', path: 'model' }],
        ['native countTokens', () => new NativeContextEditor({}).countTokens([], withGetter({}, 'model', thrown)), { code: 'INVALID_CONTEXT', path: 'model' }],
      ]
      for (const [where, call, expected] of calls) {
        const err = await rejected(async () => call())
        check(err, { ...expected, thrown }, `${where}, ${what} thrown`)
      }
    }
  })
})

// ---------------------------------------------------------------------------------------------

/** Contexts whose reading throws: `[name, (thrown) => [context, thrown], path]`. */
const CONTEXT_CASES = [
  ...['maxInputTokens', 'systemPrompt', 'tools', 'model'].map((field) => [`a ${field} getter`, (b) => [withGetter({}, field, b), b], field]),
  ['a tool definition behind a getter', (b) => [{ tools: withGetter(['{}', '{}'], 1, b) }, b], 'tools[1]'],
  ['a revoked Proxy', () => [revoked(), TypeError], 'maxInputTokens'],
]

describe('call context', () => {
  for (const [name, make, path] of CONTEXT_CASES) {
    test(`${name}: INVALID_CONTEXT at ${path}, shim and native`, async () => {
      const calls = [
        ['edit', (c) => new ContextEditor({}).edit(history(), c)],
        ['editAsync', (c) => new ContextEditor({}).editAsync(history(), c)],
        ['plan', (c) => new ContextEditor({}).plan(history(), c)],
        ['countTokens', (c) => new ContextEditor({}).countTokens(history(), c)],
        ['countTokensAsync', (c) => new ContextEditor({}).countTokensAsync(history(), c)],
        ['toWireContext', (c) => toWireContext(c)],
        ['native plan', (c) => new NativeContextEditor({}).plan([], c)],
        ['native planAsync', (c) => new NativeContextEditor({}).planAsync([], c)],
        ['native countTokensAsync', (c) => new NativeContextEditor({}).countTokensAsync([], c)],
        ['native planJson', (c) => new NativeContextEditor({}).planJson('[]', c)],
      ]
      for (const [where, call] of calls) {
        const [context, thrown] = make(new Boom('context getter'))
        const err = await rejected(async () => call(context))
        check(err, { code: 'INVALID_CONTEXT', path, thrown }, where)
      }
    })
  }

  test('shim-only fields: messageTokens, summarize, a system message whose content throws', async () => {
    for (const [field, make] of [
      ['messageTokens', (b) => withGetter({}, 'messageTokens', b)],
      ['summarize', (b) => withGetter({}, 'summarize', b)],
      ['systemPrompt', (b) => ({ systemPrompt: withGetter({ role: 'system' }, 'content', b) })],
      ['messageTokens[1]', (b) => ({ messageTokens: withGetter([1, 2], 1, b) })],
    ]) {
      const thrown = new Boom(field)
      check(
        caught(() => new ContextEditor({}).edit(history(), make(thrown))),
        { code: 'INVALID_CONTEXT', path: field, thrown },
        `edit ${field}`,
      )
      const again = new Boom(field)
      check(
        await rejected(() => new ContextEditor({}).editAsync(history(), make(again))),
        { code: 'INVALID_CONTEXT', path: field, thrown: again },
        `editAsync ${field}`,
      )
    }
  })

  test('toWireMessages: a per-message count behind a getter is INVALID_CONTEXT naming it', () => {
    const thrown = new Boom('count')
    const err = caught(() => toWireMessages(history(), { sendText: true, messageTokens: withGetter([1, 2, 3], 2, thrown) }))
    check(err, { code: 'INVALID_CONTEXT', path: 'messageTokens[2]', thrown }, 'toWireMessages')
  })

  test('native call arguments of the wrong kind are INVALID_CONTEXT / INVALID_MESSAGE naming them', () => {
    const native = new NativeContextEditor({})
    for (const [call, code, path] of [
      [() => native.planSession('1', 0, []), 'INVALID_CONTEXT', 'session'],
      [() => native.planSession(1, -1, []), 'INVALID_CONTEXT', 'reuse'],
      [() => native.appendSession(1, 0.5, []), 'INVALID_CONTEXT', 'reuse'],
      [() => native.dropSession({}), 'INVALID_CONTEXT', 'session'],
      [() => native.planJson(42), 'INVALID_MESSAGE', 'messages'],
    ]) {
      const err = caught(call)
      assert.equal(err?.code, code, String(err))
      assert.equal(err.path, path)
    }
  })
})
