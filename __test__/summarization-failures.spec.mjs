// A summary that fails never costs history. When the summarizer answers with no text (empty,
// blank, null, or only reasoning: a reasoning model that spent its tokens thinking), the messages
// it would replace are kept and the report warns `summary_empty` — through `edit`, `editAsync`,
// the LangChain middleware and the Xpert strategy. An answer that cannot be a summary (a number, an
// object without content, a lone surrogate) keeps them too and warns `summary_invalid`, both with
// `path: "summary"`: never `INVALID_MESSAGE` on the caller's valid input. A Promise given to the
// synchronous `edit` is `INVALID_SUMMARY`, and a throw inside the callback `SUMMARY_FAILED` with the
// original as `cause`. LangChain's own middleware writes an empty summary over the history; a test
// shows it.
import { test, describe, beforeEach, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { summarizationMiddleware as lcSummarization } from 'langchain'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError, applyPlan } from '../dist/index.js'
import { summarizationMiddleware } from '../dist/langchain/index.js'
import { SummarizationStrategy } from '../dist/xpert/index.js'

const SUMMARIZE = { edits: [{ type: 'summarize', trigger: { messages: 6 }, keep: { messages: 2 } }] }

function chat(n) {
  const out = [new SystemMessage({ content: 'You are a travel assistant.', id: 'sys' })]
  for (let k = 0; k < n; k++) out.push(new HumanMessage({ content: `question ${k}`, id: `h${k}` }), new AIMessage({ content: `answer ${k}`, id: `a${k}` }))
  return out
}

/** What summarizers answer with no summary in it, by name. */
const NO_TEXT = {
  'an empty string': '',
  'whitespace only': ' \n\t ',
  null: null,
  undefined: undefined,
  'an AIMessage with only thinking blocks': new AIMessage({ content: [{ type: 'thinking', thinking: 'Let me think about the trip…', signature: 'sig' }] }),
  'an AIMessage with only reasoning blocks': new AIMessage({ content: [{ type: 'reasoning', reasoning: 'The user wants a summary…' }] }),
  'an AIMessage with redacted thinking and an empty text block': new AIMessage({
    content: [
      { type: 'redacted_thinking', data: 'xx' },
      { type: 'text', text: '  ' },
    ],
  }),
  'an AIMessage whose content is empty': new AIMessage({ content: '' }),
  'content blocks without a text block': [
    { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    { type: 'thinking', thinking: 'hmm' },
  ],
  'an empty content array': [],
  'a plain message object with null content': { role: 'assistant', content: null },
}

/** What cannot be a summary at all. */
const NOT_A_SUMMARY = {
  'a number': 42,
  'a boolean': true,
  'a bigint': 10n,
  'a symbol': Symbol('summary'),
  'a function': () => 'summary',
  'an object without content': { text: 'a summary' },
  'a message whose content is a number': { role: 'assistant', content: 7 },
  'a string with a lone surrogate': 'They talked about \ud800travel.',
  'an AIMessage whose text has a lone surrogate': new AIMessage({ content: [{ type: 'text', text: 'trip \udc00' }] }),
  'content blocks claiming 2^32 - 1 entries (sparse)': Object.assign([], { length: 2 ** 32 - 1 }),
  'a Proxy whose has-trap throws': new Proxy(
    {},
    {
      has() {
        throw new Error('trap')
      },
    },
  ),
  'a message whose content getter throws': {
    get content() {
      throw new Error('getter')
    },
  },
}

function assertKeptWithWarning(history, { messages, report }, where, code = 'summary_empty') {
  assert.equal(messages.length, history.length, where)
  messages.forEach((m, i) => assert.equal(m, history[i], `${where}: message ${i} is the caller's own`))
  const warning = report.warnings.find((w) => w.code === code)
  assert.ok(warning, `${where}: warns ${code}, got ${JSON.stringify(report.warnings.map((w) => w.code))}`)
  assert.equal(warning.path, 'summary', where)
  assert.match(warning.message, /^summary: /, where)
  assert.ok(!report.warnings.some((w) => /messages\[/.test(w.message)), `${where}: no message is blamed`)
  assert.equal(report.messagesAfter, history.length, where)
  const summarize = report.appliedEdits.find((e) => e.type === 'summarize')
  assert.equal(summarize.triggered, true, where)
  assert.equal(summarize.removedMessages, 0, `${where}: nothing was replaced`)
  assert.equal(summarize.clearedInputTokens, 0, where)
  assert.equal(report.stillTriggered, true, `${where}: the trigger still holds`)
}

describe('edit / editAsync: a summary with no text keeps the history and warns summary_empty', () => {
  for (const [name, answer] of Object.entries(NO_TEXT)) {
    test(`the summarizer returns ${name}`, async () => {
      const editor = new ContextEditor(SUMMARIZE)
      const history = chat(4)
      const sync = editor.edit(history, { summarize: () => answer })
      assertKeptWithWarning(history, sync, 'edit')
      assert.equal(sync.report.tokensAfter, editor.countTokens(history).total)
      const async = await editor.editAsync(history, { summarize: async () => answer })
      assertKeptWithWarning(history, async, 'editAsync')
      assert.deepEqual(async.report, sync.report)
    })
  }

  test('a message or content blocks with text are a summary (text blocks only, trimmed)', async () => {
    const editor = new ContextEditor(SUMMARIZE)
    const history = chat(4)
    const answers = [
      new AIMessage({
        content: [
          { type: 'thinking', thinking: 'planning…' },
          { type: 'text', text: ' They talked ' },
          { type: 'text', text: 'about travel. ' },
        ],
      }),
      [{ type: 'reasoning', reasoning: 'x' }, 'They talked about travel.'],
      '\n They talked about travel.\n',
    ]
    for (const answer of answers) {
      for (const { messages, report } of [
        editor.edit(history, { summarize: () => answer }),
        await editor.editAsync(history, { summarize: async () => answer }),
      ]) {
        assert.equal(messages.length, 4)
        assert.equal(messages[1].content, 'Here is a summary of the conversation to date:\n\nThey talked about travel.')
        assert.ok(!report.warnings.some((w) => w.code.startsWith('summary_')))
      }
    }
  })

  test('other edits of the pipeline still apply when the summary is empty', () => {
    const editor = new ContextEditor({
      edits: [
        { type: 'truncate_tool_results', maxChars: 100 },
        { type: 'summarize', trigger: { messages: 4 }, keep: { messages: 1 } },
      ],
    })
    const history = [
      new HumanMessage({ content: 'read it', id: 'h0' }),
      new AIMessage({ content: '', id: 'a0', tool_calls: [{ id: 'c1', name: 'read', args: {}, type: 'tool_call' }] }),
      new ToolMessage({ content: 'x'.repeat(200), tool_call_id: 'c1', id: 't0' }),
      new AIMessage({ content: 'done', id: 'a1' }),
    ]
    const { messages, report } = editor.edit(history, { summarize: () => '' })
    assert.deepEqual(
      messages.map((m) => m.id),
      ['h0', 'a0', 't0', 'a1'],
    )
    assert.match(messages[2].content, /^x+\n\[… \d+ characters truncated\]$/)
    assert.ok(messages[2].content.length <= 100)
    assert.ok(report.warnings.some((w) => w.code === 'summary_empty'))
    assert.equal(report.tokensAfter, editor.countTokens(messages).total)
  })
})

describe('applyPlan(messages, plan, { summary }): the same rules for hosts that apply plans themselves', () => {
  test('a blank summary keeps the replaced messages; text is trimmed; a lone surrogate is INVALID_SUMMARY', () => {
    const history = chat(4)
    const plan = new ContextEditor(SUMMARIZE).plan(history)
    assert.ok(plan.summary)
    for (const summary of ['', '   ', '\n\t']) {
      const out = applyPlan(history, plan, { summary })
      assert.equal(out.length, history.length)
      out.forEach((m, i) => assert.equal(m, history[i]))
    }
    const written = applyPlan(history, plan, { summary: '  S \n' })
    assert.equal(written.length, 4)
    assert.equal(written[1].content, 'Here is a summary of the conversation to date:\n\nS')
    assert.throws(
      () => applyPlan(history, plan, { summary: 'S \udbff' }),
      (e) => e.code === 'INVALID_SUMMARY' && e.path === 'summary',
    )
  })
})

describe('edit / editAsync: an answer that is not a summary keeps the history and warns summary_invalid', () => {
  for (const [name, answer] of Object.entries(NOT_A_SUMMARY)) {
    test(`the summarizer returns ${name}`, async () => {
      const editor = new ContextEditor(SUMMARIZE)
      const history = chat(4)
      const before = history.map((m) => m.content)
      const sync = editor.edit(history, { summarize: () => answer })
      assertKeptWithWarning(history, sync, 'edit', 'summary_invalid')
      const async = await editor.editAsync(history, { summarize: async () => answer })
      assertKeptWithWarning(history, async, 'editAsync', 'summary_invalid')
      assert.deepEqual(async.report, sync.report)
      assert.deepEqual(
        history.map((m) => m.content),
        before,
      )
      // The editor is still fine afterwards.
      assert.equal(editor.edit(history, { summarize: () => 'S' }).messages.length, 4)
    })
  }

  test('a lone surrogate names the summary, not messages[1].content', () => {
    const { report } = new ContextEditor(SUMMARIZE).edit(chat(4), { summarize: () => 'trip \ud800' })
    const warning = report.warnings.find((w) => w.code === 'summary_invalid')
    assert.match(warning.message, /^summary: contains a lone UTF-16 surrogate/)
  })
})

describe('edit / editAsync: misuse and a failing summarizer are errors that blame the summarizer', () => {
  test('a Promise from the synchronous edit: INVALID_SUMMARY naming editAsync, and its rejection is not left unhandled', async () => {
    const editor = new ContextEditor(SUMMARIZE)
    const unhandled = []
    const onUnhandled = (reason) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      for (const summarize of [async () => 'S', () => Promise.reject(new Error('model down'))]) {
        assert.throws(
          () => editor.edit(chat(4), { summarize }),
          (e) => e.code === 'INVALID_SUMMARY' && e.path === 'summary' && /editAsync/.test(e.message),
        )
      }
      await new Promise((resolve) => setImmediate(resolve))
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
    assert.deepEqual(unhandled, [])
  })

  test('a summarizer that throws or rejects: SUMMARY_FAILED at path summary, the original as cause', async () => {
    const editor = new ContextEditor(SUMMARIZE)
    const failure = new Error('rate limited (429)')
    const check = (e) => {
      assert.ok(e instanceof ContextEditorError)
      assert.equal(e.code, 'SUMMARY_FAILED')
      assert.equal(e.path, 'summary')
      assert.equal(e.cause, failure)
      assert.match(e.message, /rate limited \(429\)/)
      return true
    }
    assert.throws(
      () =>
        editor.edit(chat(4), {
          summarize: () => {
            throw failure
          },
        }),
      check,
    )
    await assert.rejects(
      editor.editAsync(chat(4), {
        summarize: () => {
          throw failure
        },
      }),
      check,
    )
    await assert.rejects(
      editor.editAsync(chat(4), {
        summarize: async () => {
          throw failure
        },
      }),
      check,
    )
    // A thrown non-Error is kept as the cause too, even one that cannot be printed.
    const symbol = Symbol('boom')
    const unprintable = {
      toString() {
        throw new Error('x')
      },
      get message() {
        throw new Error('y')
      },
    }
    for (const thrown of ['boom', symbol, unprintable, undefined]) {
      assert.throws(
        () =>
          editor.edit(chat(4), {
            summarize: () => {
              throw thrown
            },
          }),
        (e) => e instanceof ContextEditorError && e.code === 'SUMMARY_FAILED' && e.path === 'summary' && e.cause === thrown,
      )
    }
  })

  test('a String object is text', () => {
    const { messages } = new ContextEditor(SUMMARIZE).edit(chat(4), { summarize: () => new String(' S ') })
    assert.equal(messages[1].content, 'Here is a summary of the conversation to date:\n\nS')
  })

  test('summarize that is not a function: INVALID_CONTEXT naming context.summarize', () => {
    assert.throws(
      () => new ContextEditor(SUMMARIZE).edit(chat(4), { summarize: 'please' }),
      (e) => e.code === 'INVALID_CONTEXT' && e.path === 'summarize',
    )
  })
})

// ---------------------------------------------------------------------------------------------
// middlewares

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

/** A summarizing model (with a profile) that answers every prompt with `answer`. */
function answering(answer) {
  return {
    calls: 0,
    profile: { maxInputTokens: 100000 },
    async invoke() {
      this.calls++
      return typeof answer === 'function' ? answer() : answer
    },
  }
}

const MODEL_ANSWERS = {
  'an AIMessage with an empty string': new AIMessage(''),
  'an AIMessage with whitespace only': new AIMessage('  \n '),
  'an AIMessage with only thinking blocks': new AIMessage({ content: [{ type: 'thinking', thinking: 'I should summarize…' }] }),
  'an AIMessage with only reasoning blocks': new AIMessage({ content: [{ type: 'reasoning', reasoning: '…' }] }),
  'content blocks without text': new AIMessage({ content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }),
  'a response with null content': { content: null },
  'a response without content': {},
  'a response whose content is a number': { content: 42 },
  null: null,
  'a lone surrogate': new AIMessage('summary \ud800'),
}

describe('LangChain summarizationMiddleware: an unusable summary keeps the state and warns', () => {
  for (const [name, answer] of Object.entries(MODEL_ANSWERS)) {
    test(`the model answers ${name}`, async () => {
      const model = answering(answer)
      // `retryAfter: { calls: 0 }`: asked again on the next call (the default backs off 5 calls).
      const mw = summarizationMiddleware({ model, trigger: { messages: 6 }, keep: { messages: 2 }, retryAfter: { calls: 0 } })
      const history = chat(4)
      const update = await mw.beforeModel({ messages: history }, { context: {} })
      assert.equal(model.calls, 1)
      assert.equal(update, undefined, 'no state update: the history stays')
      assert.equal(warnings.length, 1)
      assert.match(String(warnings[0][0]), /SummarizationMiddleware: .*the request goes through unsummarized \(summary_(empty|invalid)\)/)
      // The next step tries again (the warning is not repeated).
      assert.equal(await mw.beforeModel({ messages: history }, { context: {} }), undefined)
      assert.equal(model.calls, 2)
      assert.equal(warnings.length, 1)
    })
  }

  test('one warning per kind of failure: empty, then failing, then invalid', async () => {
    const answers = [new AIMessage(''), new Error('503'), { content: 5 }, new AIMessage('')]
    const model = answering(() => {
      const a = answers.shift()
      if (a instanceof Error) throw a
      return a
    })
    const mw = summarizationMiddleware({ model, trigger: { messages: 6 }, keep: { messages: 2 }, retryAfter: { calls: 0 } })
    for (let k = 0; k < 4; k++) assert.equal(await mw.beforeModel({ messages: chat(4) }, { context: {} }), undefined)
    assert.deepEqual(
      warnings.map((w) => /\((summary_\w+)\)$/.exec(w[0])[1]),
      ['summary_empty', 'summary_failed', 'summary_invalid'],
    )
  })

  test('LangChain’s own middleware replaces the history by an empty summary; ours keeps it', async () => {
    const history = chat(4)
    const options = { trigger: { messages: 6 }, keep: { messages: 2 } }
    const reasoningOnly = new AIMessage({ content: [{ type: 'thinking', thinking: 'Let me think…' }] })
    const theirs = await lcSummarization({ model: answering(reasoningOnly), ...options }).beforeModel({ messages: [...history] }, { context: {} })
    // LangChain: [remove all, "prefix\n\n" (nothing), ...last 2]: six messages are gone.
    assert.equal(theirs.messages[1].content, 'Here is a summary of the conversation to date:\n\n')
    assert.equal(theirs.messages.length, 4)
    const ours = await summarizationMiddleware({ model: answering(reasoningOnly), ...options }).beforeModel({ messages: [...history] }, { context: {} })
    assert.equal(ours, undefined)
  })
})

describe('Xpert SummarizationMiddleware strategy: an unusable summary keeps the state and warns', () => {
  /** The agent's model: answers the summary prompt with `answer`, other calls with "Next step.". */
  function agentModel(answer) {
    return {
      summaryPrompts: 0,
      sent: [],
      async invoke(input) {
        if (typeof input === 'string' && input.includes('Messages to summarize:')) {
          this.summaryPrompts++
          return answer
        }
        this.sent.push(input)
        return new AIMessage({ content: 'Next step.', id: `resp${this.sent.length}` })
      },
    }
  }

  for (const [name, answer] of Object.entries(MODEL_ANSWERS)) {
    test(`the agent's model answers ${name}: first step and later steps`, async () => {
      const mw = new SummarizationStrategy().createMiddleware({ trigger: { messages: 6 }, keep: { messages: 2 }, retryAfter: { calls: 0 } }, {})
      const model = agentModel(answer)
      const history = chat(4)
      // First step: no model known in beforeModel; wrapModelCall summarizes with the agent's model.
      assert.equal(await mw.beforeModel({ messages: history }, {}), undefined)
      const response = await mw.wrapModelCall({ messages: history, model }, (request) => request.model.invoke(request.messages))
      assert.equal(model.summaryPrompts, 1)
      assert.equal(model.sent[0], history, 'the model got the full history')
      assert.equal(await mw.afterModel({ messages: [...history, response] }, {}), undefined)
      // Later step: beforeModel knows the model now; still nothing replaced.
      assert.equal(await mw.beforeModel({ messages: [...history, response] }, {}), undefined)
      assert.equal(model.summaryPrompts, 2)
      assert.equal(warnings.length, 1)
      assert.match(String(warnings[0][0]), /\(summary_(empty|invalid)\)$/)
    })
  }
})
