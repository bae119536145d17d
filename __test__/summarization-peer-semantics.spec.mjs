// Summarization semantics users rely on when they migrate from LangChain (JS `summarizationMiddleware`
// of langchain 1.5.14; Python's `SummarizationMiddleware` decides the same in these cases), checked
// differentially against the real package where the two mean the same: a fraction whose threshold
// rounds down to 0 fires, a keep fraction that rounds down to 0 keeps a 1-token budget, `trigger: []`
// is accepted and never fires, and a fraction without a known limit throws on every call. Where we
// differ on purpose, it is earlier: wrong-typed options fail when the middleware is built. And the
// report names its encoding in every counting mode, on every path, as the README lists it.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createAgent, summarizationMiddleware as lcSummarization, countTokensApproximately } from 'langchain'
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError } from '../dist/index.js'
import { summarizationMiddleware } from '../dist/langchain/index.js'
import { SummarizationStrategy } from '../dist/xpert/index.js'
import { AgentModel } from './fixtures/summarization/models.mjs'
import { randomConversation, rng } from './fixtures/summarization/conversations.mjs'

/** A summarizing model both sides can call; `limit` is its profile's input limit (none if undefined). */
function summarizer(limit) {
  return {
    calls: 0,
    ...(limit === undefined ? {} : { profile: { maxInputTokens: limit } }),
    async invoke() {
      this.calls++
      return new AIMessage('SUMMARY')
    },
  }
}

/** The ids kept after the summary, or `undefined` when the middleware did not fire. */
function tail(update) {
  return update === undefined ? undefined : update.messages.slice(2).map((m) => m.id)
}

async function both(messages, options, limit) {
  const theirs = await lcSummarization({ model: summarizer(limit), ...options }).beforeModel({ messages: [...messages] }, { context: {} })
  const ours = await summarizationMiddleware({ model: summarizer(limit), ...options }).beforeModel({ messages: [...messages] }, { context: {} })
  return { lc: tail(theirs), ours: tail(ours) }
}

function chat(n) {
  const out = []
  for (let k = 0; k < n; k++) out.push(new HumanMessage({ content: `question ${k}`, id: `h${k}` }), new AIMessage({ content: `answer ${k}`, id: `a${k}` }))
  return out
}

describe('fractions that round down to 0, as LangChain', () => {
  test('a fraction trigger whose threshold floor(limit * f) is 0 fires (alone, ANDed, ORed)', async () => {
    const messages = chat(4)
    const cases = [
      { trigger: { fraction: 0.001 }, keep: { messages: 2 } },
      { trigger: { fraction: 0.0099 }, keep: { messages: 3 } },
      { trigger: { fraction: 0.001, messages: 8 }, keep: { messages: 2 } },
      { trigger: { fraction: 0.001, messages: 9 }, keep: { messages: 2 } },
      { trigger: [{ tokens: 1e9 }, { fraction: 0.005 }], keep: { messages: 2 } },
    ]
    for (const options of cases) {
      const { lc, ours } = await both(messages, options, 100)
      assert.deepEqual(ours, lc, JSON.stringify(options))
    }
    // The decisions themselves: the first, second, third and fifth fire; the fourth needs 9 messages.
    assert.deepEqual((await both(messages, cases[0], 100)).ours, ['h3', 'a3'])
    assert.equal((await both(messages, cases[3], 100)).ours, undefined)
  })

  test('a keep fraction (or budget) that rounds down to 0 keeps a 1-token budget: the newest message', async () => {
    const messages = chat(4)
    for (const keep of [{ fraction: 0.001 }, { fraction: 0 }, { tokens: 0 }, { tokens: 0.5 }]) {
      const options = { trigger: { messages: 1 }, keep }
      const { lc, ours } = await both(messages, options, 100)
      assert.deepEqual(ours, lc, JSON.stringify(keep))
      assert.deepEqual(ours, ['a3'], JSON.stringify(keep))
    }
  })

  test('300 seeded conversations with limits so small that every fraction rounds down to 0: same decision, same tail', async () => {
    let fired = 0
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed * 104729)
      const messages = randomConversation(seed, 1 + Math.floor(r() * 40))
      const limit = 1 + Math.floor(r() * 60)
      const fraction = () => Math.max(0.0001, Math.floor(((r() * 0.99) / limit) * 1e6) / 1e6) // floor(limit * f) === 0
      const trigger = r() < 0.3 ? [{ fraction: fraction(), messages: 1 + Math.floor(r() * 30) }] : { fraction: fraction() }
      const keep = r() < 0.5 ? { fraction: fraction() } : { messages: Math.floor(r() * 10) }
      const options = { trigger, keep }
      const { lc, ours } = await both(messages, options, limit)
      const where = `seed ${seed}: ${messages.length} messages, limit ${limit}, ${JSON.stringify(options)}`
      assert.deepEqual(ours, lc, where)
      if (lc) fired++
    }
    assert.ok(fired >= 150, `fired ${fired} times`)
  })

  test('the library edit: the same fraction fires and keeps the newest message', () => {
    const editor = new ContextEditor({ edits: [{ type: 'summarize', trigger: { fraction: 0.001 }, keep: { fraction: 0.001 } }] })
    const history = chat(3)
    const { messages, report } = editor.edit(history, { maxInputTokens: 100, summarize: () => 'S' })
    assert.deepEqual(
      messages.map((m) => m.id ?? 'summary'),
      ['summary', 'a2'],
    )
    assert.equal(report.appliedEdits[0].triggered, true)
  })
})

describe('trigger: [] is accepted and never fires, as LangChain', () => {
  test('the middleware: never fires, however long the history, like LangChain’s', async () => {
    const messages = randomConversation(7, 60)
    for (const keep of [{ messages: 1 }, { tokens: 10 }, { fraction: 0.1 }]) {
      const { lc, ours } = await both(messages, { trigger: [], keep }, 100)
      assert.equal(lc, undefined)
      assert.equal(ours, undefined, JSON.stringify(keep))
    }
  })

  test('the library and the Xpert strategy accept it too', () => {
    const editor = new ContextEditor({ edits: [{ type: 'summarize', trigger: [], keep: { messages: 1 } }] })
    const history = chat(30)
    let asked = 0
    const { messages, report } = editor.edit(history, { summarize: () => (asked++, 'S') })
    assert.equal(asked, 0)
    messages.forEach((m, i) => assert.equal(m, history[i]))
    assert.equal(report.triggered, false)
    assert.doesNotThrow(() => new SummarizationStrategy().createMiddleware({ trigger: [] }, {}))
    // An empty condition inside the list is still an error.
    assert.throws(
      () => new ContextEditor({ edits: [{ type: 'summarize', trigger: [{}] }] }),
      (e) => e.code === 'INVALID_OPTIONS' && e.path === 'edits[0].trigger[0]',
    )
  })
})

describe('a fraction without a known input limit throws on every call, as LangChain', () => {
  const isMissingLimit = (e) => e instanceof ContextEditorError && e.path === 'maxInputTokens' && /fraction/.test(e.message) && /maxInputTokens/.test(e.message)

  for (const options of [{ trigger: { fraction: 0.5 } }, { trigger: { messages: 2 }, keep: { fraction: 0.2 } }, { trigger: [], keep: { fraction: 0.2 } }]) {
    test(`${JSON.stringify(options)}, configured model without a profile: beforeModel throws, every time, like LangChain's`, async () => {
      const ours = summarizationMiddleware({ model: summarizer(undefined), ...options })
      const theirs = lcSummarization({ model: summarizer(undefined), ...options })
      for (let k = 0; k < 3; k++) {
        await assert.rejects(theirs.beforeModel({ messages: chat(3) }, { context: {} }), /Model profile information is required/)
        await assert.rejects(ours.beforeModel({ messages: chat(3) }, { context: {} }), isMissingLimit)
      }
    })
  }

  test("the agent's own model without a profile: every run of createAgent rejects (first call and later ones)", async () => {
    const model = new AgentModel({ turns: 0 })
    const agent = createAgent({ model, tools: [], middleware: [summarizationMiddleware({ trigger: { fraction: 0.5 }, keep: { messages: 2 } })] })
    // LangChain wraps a middleware's error in its `MiddlewareError`, with ours as the cause.
    const ours = (e) => (e instanceof ContextEditorError || !e?.cause ? e : ours(e.cause))
    for (let k = 0; k < 2; k++) await assert.rejects(agent.invoke({ messages: chat(3) }), (e) => isMissingLimit(ours(e)))
    assert.equal(model.summaryCalls.length, 0)
    // With the limit given, the same middleware summarizes.
    const fine = new AgentModel({ turns: 0 })
    const limit = countTokensApproximately(chat(3)) * 2
    const ok = createAgent({
      model: fine,
      tools: [],
      middleware: [summarizationMiddleware({ trigger: { fraction: 0.5 }, keep: { messages: 2 }, maxInputTokens: limit })],
    })
    await ok.invoke({ messages: chat(3) })
    assert.equal(fine.summaryCalls.length, 1)
  })

  test('a model name that does not resolve is thrown on every call, never a silent "no summaries"', async () => {
    const mw = summarizationMiddleware({ model: 'nosuchprovider:some-model', trigger: { messages: 2 } })
    for (let k = 0; k < 2; k++) {
      await assert.rejects(mw.beforeModel({ messages: chat(3) }, { context: {} }), (e) => e.code === 'INVALID_OPTIONS' && e.path === 'model')
    }
  })

  test('a tokenCounter that throws or returns no number is thrown, naming tokenCounter', async () => {
    for (const tokenCounter of [
      () => {
        throw new Error('no tokenizer')
      },
      () => NaN,
      () => 'many',
      async () => undefined,
    ]) {
      const mw = summarizationMiddleware({ model: summarizer(100), trigger: { messages: 2 }, tokenCounter })
      await assert.rejects(mw.beforeModel({ messages: chat(3) }, { context: {} }), (e) => e.code === 'INVALID_OPTIONS' && e.path === 'tokenCounter')
    }
  })
})

describe('wrong-typed options fail when the middleware is built', () => {
  test('model: a number, boolean, object without invoke, array, empty name: INVALID_OPTIONS naming model', () => {
    for (const model of [42, true, {}, { model: 'gpt-4o' }, [], '', '  ', Symbol('m'), 10n]) {
      assert.throws(
        () => summarizationMiddleware({ model }),
        (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.path === 'model' && /model: expected a chat model/.test(e.message),
        String(typeof model === 'symbol' ? 'symbol' : typeof model === 'bigint' ? 'bigint' : JSON.stringify(model)),
      )
    }
    // What is accepted: unset, a chat model instance, a name.
    for (const model of [undefined, null, new AgentModel({ turns: 0 }), summarizer(100), 'openai:gpt-4o-mini']) {
      assert.equal(summarizationMiddleware({ model }).name, 'SummarizationMiddleware')
    }
  })

  test('options that are not an object, and other wrong types: INVALID_OPTIONS naming the field', () => {
    const cases = [
      ['fast', 'options'],
      [42, 'options'],
      [[{ trigger: { messages: 2 } }], 'options'],
      [{ tokenCounter: 5 }, 'tokenCounter'],
      [{ trigger: 'often' }, 'trigger'],
      [{ keep: 3 }, 'keep'],
      [{ summaryPrefix: 7 }, 'summaryPrefix'],
      [{ maxTokens: 'many' }, 'maxTokens'],
      [{ maxInputTokens: '128k' }, 'maxInputTokens'],
    ]
    for (const [options, path] of cases) {
      assert.throws(
        () => summarizationMiddleware(options),
        (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.path === path,
        JSON.stringify(options),
      )
    }
  })

  test('a getter or Proxy trap that throws while the options are read: INVALID_OPTIONS naming what was read, the original as cause', () => {
    const thrown = new Error('trap')
    const cases = [
      [
        {
          get model() {
            throw thrown
          },
        },
        'model',
      ],
      [
        {
          trigger: { messages: 2 },
          get tokenCounter() {
            throw thrown
          },
        },
        'tokenCounter',
      ],
      [
        new Proxy(
          {},
          {
            ownKeys() {
              throw thrown
            },
          },
        ),
        'options',
      ],
      [
        {
          model: new Proxy(
            {},
            {
              get() {
                throw thrown
              },
            },
          ),
        },
        'model',
      ],
    ]
    for (const [options, path] of cases) {
      assert.throws(
        () => summarizationMiddleware(options),
        (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.path === path && e.cause === thrown,
        path,
      )
    }
  })
  test("error messages describe a wrong value, never print a function's source or [object Object]", async () => {
    function notOptions() {
      return 'SOURCE-TEXT'
    }
    const cases = [
      [notOptions, /options: expected an object, got a function$/],
      ['fast', /options: expected an object, got "fast"$/],
      [10n, /options: expected an object, got bigint 10$/],
      [Symbol('s'), /options: expected an object, got symbol Symbol\(s\)$/],
    ]
    for (const [options, message] of cases) {
      assert.throws(
        () => summarizationMiddleware(options),
        (e) => e instanceof ContextEditorError && e.path === 'options' && message.test(e.message) && !e.message.includes('SOURCE-TEXT'),
        String(typeof options),
      )
    }
    // A model instance that loses `invoke` before the first call: named as what it is.
    const model = summarizer(100)
    const mw = summarizationMiddleware({ model, trigger: { messages: 2 } })
    delete model.invoke
    await assert.rejects(
      mw.beforeModel({ messages: chat(3) }, { context: {} }),
      (e) =>
        e instanceof ContextEditorError &&
        e.code === 'INVALID_OPTIONS' &&
        e.path === 'model' &&
        /model: an object without `invoke` did not resolve to a chat model/.test(e.message) &&
        !e.message.includes('[object Object]'),
    )
  })
})

describe('report.encoding, as the README lists it: every counting mode, every path', () => {
  const history = [new SystemMessage('sys'), ...chat(3)]
  for (const method of ['approx', 'model', 'estimate']) {
    for (const [label, options, context, encoding] of [
      ['no model', {}, {}, 'o200k_base'],
      ['model gpt-4', {}, { model: 'gpt-4' }, 'cl100k_base'],
      ['encoding option', { encoding: 'p50k_base' }, { model: 'gpt-4' }, 'p50k_base'],
    ]) {
      test(`${method}, ${label}: ${encoding} in edit, editAsync, plan, planAsync, countTokens, countTokensAsync and a session's next call`, async () => {
        const editor = new ContextEditor({ tokenCountMethod: method, ...options })
        const reports = {
          edit: editor.edit(history, context).report,
          editAsync: (await editor.editAsync(history, context)).report,
          plan: editor.plan(history, context).report,
          planAsync: (await editor.planAsync(history, context)).report,
          countTokens: editor.countTokens(history, context),
          countTokensAsync: await editor.countTokensAsync(history, context),
          'next call': editor.edit([...history, new HumanMessage('more')], context).report,
        }
        for (const [path, report] of Object.entries(reports)) assert.equal(report.encoding, encoding, path)
      })
    }
  }

  test('a summary edit recounts with the same encoding', () => {
    const editor = new ContextEditor({ edits: [{ type: 'summarize', trigger: { messages: 2 }, keep: { messages: 1 } }] })
    assert.equal(editor.edit(chat(3), { summarize: () => 'S' }).report.encoding, 'o200k_base')
  })
})
