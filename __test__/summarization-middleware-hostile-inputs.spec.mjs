// The summarization middlewares (LangChain's `summarizationMiddleware` and the Xpert strategy) read
// what the caller and the host give them with every read guarded. Options are copied once, as
// plain data, when the middleware is built: a getter or Proxy trap that throws at any depth, a
// value JSON cannot carry, a list too long or options nested too deep are INVALID_OPTIONS naming
// the option (never `edits[0]…` or another middleware's name), with the original as `cause`. A
// state or request whose messages cannot be read is logged and goes through as it is: nothing is
// lost and nothing bare escapes. A runtime field that cannot be read only leaves the summarizing
// call untagged. A `tokenCounter` that answers with no count is the option's error. And the
// summary written on the first call is persisted even when a later `afterModel` hook appended a
// message after the model's answer, and a retried model call sends that same summary (the
// summarizer is asked once), instead of the whole history it was written to shorten.
import { test, describe, beforeEach, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { createAgent, createMiddleware, modelRetryMiddleware } from 'langchain'
import { AIMessage, HumanMessage } from '@langchain/core/messages'
import { summarizationMiddleware } from '../dist/langchain/index.js'
import { SummarizationStrategy } from '../dist/xpert/index.js'
import { ContextEditorError } from '../dist/index.js'
import { AgentModel } from './fixtures/summarization/models.mjs'

const isSummary = (m) => m?.additional_kwargs?.lc_source === 'summarization'

function chat(n) {
  const out = []
  for (let k = 0; k < n; k++) out.push(new HumanMessage({ content: `question ${k}`, id: `h${k}` }), new AIMessage({ content: `answer ${k}`, id: `a${k}` }))
  return out
}

function summarizer() {
  return {
    prompts: [],
    configs: [],
    async invoke(prompt, config) {
      this.prompts.push(prompt)
      this.configs.push(config)
      return { content: `SUMMARY ${this.prompts.length}` }
    },
  }
}

function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

const throwing = (what) => {
  throw new Error(what)
}

let warnings
let originalWarn
beforeEach(() => {
  warnings = []
  originalWarn = console.warn
  console.warn = (...args) => warnings.push(args)
})
afterEach(() => {
  console.warn = originalWarn
})

/** The two ways to build a summarization middleware, by name: LangChain's and Xpert's. */
const BUILDERS = {
  summarizationMiddleware: { build: (options) => summarizationMiddleware(options), name: 'SummarizationMiddleware' },
  'Xpert SummarizationStrategy': { build: (options) => new SummarizationStrategy().createMiddleware(options), name: 'ContextEditorSummarizationMiddleware' },
}

/** Options that cannot be read, or are not JSON, by the path the error must name. */
const BAD_OPTIONS = {
  options: [() => revoked(), () => new Proxy({}, { ownKeys: () => throwing('ownKeys trap') })],
  trigger: [
    () => ({
      get trigger() {
        return throwing('getter')
      },
    }),
    () => ({ trigger: revoked() }),
    () => ({ trigger: Object.assign([], { length: 2 ** 32 - 1 }) }),
  ],
  'trigger.messages': [
    () => ({
      trigger: {
        get messages() {
          return throwing('nested getter')
        },
      },
    }),
  ],
  'trigger[1].tokens': [() => ({ trigger: [{ messages: 3 }, { tokens: NaN }] })],
  'keep.messages': [() => ({ keep: { messages: Infinity } })],
  keep: [() => ({ keep: new Proxy({}, { ownKeys: () => throwing('keys of keep') }) })],
  summaryPrompt: [() => ({ summaryPrompt: Symbol('prompt') }), () => ({ summaryPrompt: 10n })],
  'summaryPrompt.toString': [() => ({ summaryPrompt: { toString: () => 'prompt' } })],
  maxTokens: [() => ({ maxTokens: NaN })],
}

describe('options that cannot be read or are not JSON: INVALID_OPTIONS naming the option, when the middleware is built', () => {
  for (const [label, { build, name }] of Object.entries(BUILDERS)) {
    for (const [path, makers] of Object.entries(BAD_OPTIONS)) {
      test(`${label}: ${path}`, () => {
        for (const make of makers) {
          assert.throws(
            () => build(make()),
            (e) =>
              e instanceof ContextEditorError &&
              e.code === 'INVALID_OPTIONS' &&
              e.path === path &&
              e.message.startsWith(`${name}: ${path}: `) &&
              !/edits\[0\]|ContextEditingMiddleware/.test(e.message),
          )
        }
      })
    }
    test(`${label}: a cycle in the options is named, not a stack overflow`, () => {
      const trigger = { messages: 3 }
      trigger.self = trigger
      assert.throws(
        () => build({ trigger }),
        (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.path.startsWith('trigger.self') && /levels deep/.test(e.message),
      )
    })
    test(`${label}: a throwing read keeps the original as cause`, () => {
      const original = new Error('the getter broke')
      assert.throws(
        () =>
          build({
            keep: {
              get messages() {
                throw original
              },
            },
          }),
        (e) => e instanceof ContextEditorError && e.path === 'keep.messages' && e.cause === original,
      )
    })
  }

  test('options are read once: changing them after the middleware is built changes nothing', async () => {
    const keep = { messages: 2 }
    const options = { model: summarizer(), trigger: { messages: 6 }, keep }
    const mw = summarizationMiddleware(options)
    keep.messages = 9
    options.trigger = { messages: 1000 }
    const update = await mw.beforeModel({ messages: chat(4) }, {})
    assert.deepEqual(
      update.messages.slice(2).map((m) => m.id),
      ['h3', 'a3'],
    )
  })
})

describe('a state or request whose messages cannot be read goes through as it is, logged with the culprit', () => {
  const UNREADABLE = {
    'a messages getter that throws': () => ({
      get messages() {
        return throwing('state getter')
      },
    }),
    'a list whose length throws': () => ({ messages: new Proxy(chat(4), { get: (t, k) => (k === 'length' ? throwing('length trap') : t[k]) }) }),
    'a list whose entry getter throws': () => ({ messages: Object.defineProperty(chat(4), 2, { get: () => throwing('entry getter') }) }),
    'a revoked Proxy as the list': () => ({ messages: revoked() }),
    'a sparse list claiming 2^32 - 1 messages': () => ({ messages: Object.assign([], { length: 2 ** 32 - 1 }) }),
  }
  for (const [name, state] of Object.entries(UNREADABLE)) {
    test(`beforeModel, afterModel and wrapModelCall: ${name}`, async () => {
      const model = summarizer()
      const mw = summarizationMiddleware({ model, trigger: { messages: 2 }, keep: { messages: 1 } })
      assert.equal(await mw.beforeModel(state(), {}), undefined)
      assert.equal(await mw.afterModel(state(), {}), undefined)
      const request = Object.defineProperties({ model }, Object.getOwnPropertyDescriptors(state()))
      assert.equal(await mw.wrapModelCall(request, (r) => (r === request ? 'the request as it was' : 'changed')), 'the request as it was')
      assert.equal(model.prompts.length, 0)
      assert.equal(warnings.length, 1, 'logged once')
      const [text, error] = warnings[0]
      assert.match(text, /planning_failed/)
      assert.ok(error instanceof ContextEditorError && error.code === 'INVALID_MESSAGE' && error.path === 'messages', String(error))
    })
  }
})

describe('the summarizing call gets the runtime’s runnable config, as LangChain builds it', () => {
  test('metadata merged with lc_source, tags a union with the no-stream tag, signal and callbacks passed on', async () => {
    const model = summarizer()
    const signal = new AbortController().signal
    const callbacks = [{ handleLLMStart() {} }]
    const runtime = { context: {}, metadata: { thread: 'T1' }, tags: ['parent', 'nostream'], signal, callbacks, configurable: { thread_id: 'T1' } }
    await summarizationMiddleware({ model, trigger: { messages: 2 }, keep: { messages: 1 } }).beforeModel({ messages: chat(3) }, runtime)
    const [config] = model.configs
    assert.deepEqual(config.metadata, { thread: 'T1', lc_source: 'summarization' })
    assert.deepEqual(config.tags, ['parent', 'nostream'])
    assert.equal(config.signal, signal)
    assert.equal(config.callbacks, callbacks)
    assert.deepEqual(config.configurable, { thread_id: 'T1' })
    assert.deepEqual(runtime.metadata, { thread: 'T1' }, "the runtime's own metadata is not changed")
  })

  test('runtime fields that cannot be read are left out; the summary is still written', async () => {
    const runtimes = {
      'a getter that throws': {
        get signal() {
          return throwing('signal getter')
        },
        metadata: { keep: 'me' },
      },
      'a revoked Proxy': revoked(),
      'metadata that cannot be spread': { metadata: new Proxy({}, { ownKeys: () => throwing('keys') }) },
      'no runtime': undefined,
    }
    for (const [name, runtime] of Object.entries(runtimes)) {
      const model = summarizer()
      const update = await summarizationMiddleware({ model, trigger: { messages: 2 }, keep: { messages: 1 } }).beforeModel({ messages: chat(3) }, runtime)
      assert.ok(isSummary(update?.messages[1]), `${name}: summarized`)
      assert.equal(model.configs[0].metadata.lc_source, 'summarization', name)
      assert.ok(model.configs[0].tags.includes('nostream'), name)
    }
    assert.deepEqual(warnings, [])
  })
})

describe('a tokenCounter that answers with no token count is the option’s error', () => {
  for (const [name, answer] of Object.entries({
    NaN: NaN,
    Infinity: Infinity,
    'beyond 2^53': 1e300,
    'a numeric string': '12',
    'a bigint': 12n,
    'an object': {},
    undefined: undefined,
  })) {
    test(name, async () => {
      const mw = summarizationMiddleware({ model: summarizer(), trigger: { tokens: 10 }, keep: { messages: 1 }, tokenCounter: () => answer })
      for (let call = 0; call < 2; call++) {
        await assert.rejects(
          mw.beforeModel({ messages: chat(3) }, {}),
          (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.path === 'tokenCounter' && /message 0/.test(e.message),
        )
      }
    })
  }

  test('negative and fractional counts are counts (0, rounded up)', async () => {
    const model = summarizer()
    const counts = [-5, 0.2, 7.5, 3]
    let k = 0
    const tokenCounter = () => counts[k++ % counts.length]
    const update = await summarizationMiddleware({ model, trigger: { tokens: 12 }, keep: { messages: 1 }, tokenCounter }).beforeModel({ messages: chat(2) }, {})
    // 0 + 1 + 8 + 3 = 12 tokens: the trigger (inclusive) holds.
    assert.ok(isSummary(update?.messages[1]))
  })
})

describe('the summary written on the first call is persisted when a later afterModel hook appends a message', () => {
  test("default model: one summary, in the state, before the agent's answer and the appended note", async () => {
    const model = new AgentModel({ turns: 0 })
    const noter = createMiddleware({
      name: 'Noter',
      afterModel: () => ({ messages: [new HumanMessage({ content: 'a note added after the answer', id: 'note' })] }),
    })
    // afterModel hooks run in reverse order: Noter's runs first, then the summarization's.
    const agent = createAgent({ model, tools: [], middleware: [summarizationMiddleware({ trigger: { messages: 6 }, keep: { messages: 2 } }), noter] })
    const out = await agent.invoke({ messages: [...chat(5), new HumanMessage({ content: 'And now?', id: 'now' })] })
    assert.equal(model.summaryCalls.length, 1)
    assert.deepEqual(
      model.calls[0].map((m) => m.id),
      ['h0', 'a4', 'now'],
    )
    assert.ok(isSummary(out.messages[0]))
    assert.deepEqual(
      out.messages.slice(1, 3).map((m) => m.id),
      ['a4', 'now'],
    )
    assert.equal(out.messages[3].content, 'Done.')
    assert.equal(out.messages[4].id, 'note')
    assert.equal(out.messages.length, 5)
  })
})

describe('a model call retried around the middleware sends the summary it already has', () => {
  test('default model, modelRetryMiddleware outside: one summary, sent on the retry, persisted', async () => {
    const model = new AgentModel({ turns: 0 })
    let failures = 1
    const generate = model._generate.bind(model)
    model._generate = async (messages, ...rest) => {
      if (!messages.some((m) => String(m.content).includes('Messages to summarize:')) && failures-- > 0) throw new Error('rate limited (429)')
      return generate(messages, ...rest)
    }
    const agent = createAgent({
      model,
      tools: [],
      middleware: [
        modelRetryMiddleware({ maxRetries: 2, initialDelayMs: 0, backoffFactor: 0, jitter: false }),
        summarizationMiddleware({ trigger: { messages: 6 }, keep: { messages: 2 } }),
      ],
    })
    const out = await agent.invoke({ messages: [...chat(5), new HumanMessage({ content: 'And now?', id: 'now' })] })
    assert.equal(model.summaryCalls.length, 1, 'the summarizer was asked once')
    // The call that answered got the summarized history, not the whole one.
    assert.deepEqual(
      model.calls.at(-1).map((m) => m.id),
      ['h0', 'a4', 'now'],
    )
    assert.ok(isSummary(out.messages[0]))
    assert.deepEqual(
      out.messages.slice(1, 3).map((m) => m.id),
      ['a4', 'now'],
    )
    assert.equal(out.messages.length, 4)
  })
})
