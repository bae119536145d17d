// Recovery when the provider says "too long": the context-editing middleware (LangChain and Xpert)
// recognizes each provider's real context-length error (made by the providers' own client classes,
// see support/provider-errors.mjs), re-edits the original messages to the recovery target and
// retries exactly once; every other error reaches the caller as the very same object, with the
// model called once.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError } from 'context-editor'
import { ContextEditingStrategy, contextEditingMiddlewareObject } from 'context-editor/xpert'
import { classifyOverflow } from '../dist/overflow.js'
import { OVERFLOWS, OTHER_ERRORS } from './support/provider-errors.mjs'

/** A conversation of `results` tool calls with `size`-character results, then a question. */
function history(results = 12, size = 4000) {
  const out = [new HumanMessage('Read every file and summarize.')]
  for (let i = 0; i < results; i++) {
    out.push(new AIMessage({ content: '', tool_calls: [{ id: `call_${i}`, name: 'read_file', args: { path: `src/file${i}.ts` } }] }))
    out.push(new ToolMessage({ tool_call_id: `call_${i}`, name: 'read_file', content: `// file ${i}\n${'const x = 1;\n'.repeat(size / 13)}` }))
  }
  out.push(new HumanMessage('Now summarize.'))
  return out
}

const snapshot = (messages) => messages.map((m) => JSON.stringify({ type: m._getType(), content: m.content, tool_calls: m.tool_calls ?? null }))

/** Counts `messages` the way the middleware does (approx). */
const counted = (messages) => new ContextEditor({ trigger: [] }).countTokens(messages).total

/**
 * Runs one model call through the middleware; `failures` are thrown by the handler, in order, on
 * its first calls. Returns what the handler received, the reports and the outcome.
 */
async function call(options, failures, messages = history()) {
  const reports = []
  const mw = contextEditingMiddlewareObject({ ...options, onReport: (r) => reports.push(r) })
  const received = []
  const answer = new AIMessage('done')
  const handler = async (request) => {
    received.push(request.messages)
    if (received.length <= failures.length) throw failures[received.length - 1]
    return answer
  }
  const before = snapshot(messages)
  let result
  let error
  try {
    result = await mw.wrapModelCall({ messages, systemMessage: new SystemMessage('You read code.') }, handler)
  } catch (e) {
    error = { thrown: e }
  }
  assert.deepEqual(snapshot(messages), before, "the caller's messages are untouched")
  return { received, reports, result, error, answer }
}

describe('recovery after a context-length error, every provider shape', () => {
  for (const shape of OVERFLOWS) {
    test(`${shape.name}: re-edited to the target and retried once`, async () => {
      const error = await shape.make()
      const { received, reports, result, answer } = await call({}, [error])
      assert.equal(received.length, 2, 'the model is called again exactly once')
      assert.equal(result, answer, 'the retry answers the call')
      const record = reports[1].recovery
      assert.ok(record, 'the report of the recovery pass carries the record')
      assert.equal(reports[0].recovery, undefined)
      assert.equal(result.response_metadata.context_editor.recovery, record, 'the answer carries the record too')
      if (shape.limit !== undefined) {
        assert.equal(record.limit, shape.limit)
        assert.equal(record.limitSource, 'error')
      }
      if (shape.actual !== undefined) {
        assert.equal(record.actual, shape.actual)
        assert.equal(record.ratioExact, true)
        assert.equal(record.ratio, shape.actual / record.counted, 'the correction is true / counted')
      } else {
        assert.equal(record.ratioExact, false)
      }
      assert.equal(record.counted, counted([new SystemMessage('You read code.'), ...received[0]]), 'counted = what was sent, as counted')
      assert.equal(record.target, Math.floor(record.limit * 0.8), 'default target: 80 % of the limit')
      const retry = counted([new SystemMessage('You read code.'), ...received[1]])
      assert.equal(retry, record.tokensAfter)
      assert.ok(retry <= record.targetCounted, `the retry (${retry}) fits the target (${record.targetCounted})`)
      assert.ok(retry < record.counted)
      assert.equal(received[1].at(-1).content, 'Now summarize.', 'the newest message is kept')
    })
  }

  test('an error without a limit, on a model whose table window is larger than what was refused: the refused size bounds it', async () => {
    const error = await OVERFLOWS.find((o) => o.name.startsWith('@langchain/ollama')).make()
    const reports = []
    const mw = contextEditingMiddlewareObject({ onReport: (r) => reports.push(r) })
    const sent = []
    await mw.wrapModelCall({ messages: history(), model: { model: 'qwen3:8b' } }, async (request) => {
      sent.push(request.messages)
      if (sent.length === 1) throw error
      return new AIMessage('ok')
    })
    assert.equal(reports[0].maxInputTokens, 131072, 'the table knows qwen3')
    const record = reports[1].recovery
    assert.equal(record.limitSource, 'refused')
    assert.equal(record.limit, record.counted)
    assert.ok(counted(sent[1]) < counted(sent[0]) * 0.85, 'the retry is smaller than what was refused')
  })

  test('a known limit below the refused size is the limit', async () => {
    const error = await OVERFLOWS.find((o) => o.name.startsWith('Zhipu GLM')).make()
    const reports = []
    const mw = contextEditingMiddlewareObject({ maxInputTokens: 8000, onReport: (r) => reports.push(r) })
    await mw.wrapModelCall({ messages: history() }, async () => {
      if (reports.length === 1) throw error
      return new AIMessage('ok')
    })
    const record = reports[1].recovery
    assert.equal(record.limitSource, 'known')
    assert.equal(record.limit, 8000)
    assert.ok(record.tokensAfter <= Math.floor(8000 * 0.8))
  })

  test("a second context-length error is the caller's: no second retry", async () => {
    const first = await OVERFLOWS[0].make()
    const second = await OVERFLOWS[3].make()
    const { received, error } = await call({}, [first, second])
    assert.equal(received.length, 2)
    assert.equal(error.thrown, second, "the retry's own error object, as it is")
  })

  test('recovery: false leaves the error to the caller, model called once', async () => {
    const overflow = await OVERFLOWS[0].make()
    const { received, error, reports } = await call({ recovery: false }, [overflow])
    assert.equal(received.length, 1)
    assert.equal(error.thrown, overflow)
    assert.equal(reports.length, 1)
  })

  test('recovery.target sets the share of the limit', async () => {
    const shape = OVERFLOWS[0]
    const { reports, received } = await call({ recovery: { target: 0.5 } }, [await shape.make()])
    const record = reports[1].recovery
    assert.equal(record.target, Math.floor(shape.limit * 0.5))
    assert.ok(counted([new SystemMessage('You read code.'), ...received[1]]) <= record.targetCounted)
  })

  test('when clearing is not enough, the oldest messages go (never the newest), and it fits', async () => {
    const messages = [new HumanMessage('x'.repeat(40000)), new AIMessage('ok'), ...history(3, 400)]
    const overflow = await OVERFLOWS[3].make() // 208310 > 200000: target = 0.8 × 200000 / ratio
    const { received, reports } = await call({}, [overflow], messages)
    const record = reports[1].recovery
    assert.ok(record.droppedMessages > 0)
    assert.equal(record.messagesAfter, received[1].length)
    assert.notEqual(received[1][0].content, messages[0].content, 'the huge first message went')
    assert.equal(received[1].at(-1).content, 'Now summarize.')
    assert.ok(counted([new SystemMessage('You read code.'), ...received[1]]) <= record.targetCounted)
  })
})

describe('every other error reaches the caller untouched', () => {
  for (const shape of OTHER_ERRORS) {
    test(shape.name, async () => {
      const error = await shape.make()
      assert.equal(classifyOverflow(error), undefined)
      const { received, error: out, reports } = await call({}, [error])
      assert.equal(received.length, 1, 'the model is called once')
      assert.ok(out, 'the call fails')
      assert.equal(out.thrown, error, 'with the very same error (object identity)')
      assert.equal(reports.length, 1, 'no recovery pass')
    })
  }

  test('an error thrown by a middleware inside this one is not a model overflow unless it is one', async () => {
    const mw = contextEditingMiddlewareObject({})
    const bug = new RangeError('maximum context length reached in my cache')
    let calls = 0
    await assert.rejects(
      mw.wrapModelCall({ messages: history(2) }, async () => {
        calls++
        throw bug
      }),
      (e) => e === bug,
    )
    assert.equal(calls, 1)
  })
})

describe('the recovery option', () => {
  const bad = [
    [{ recovery: 'yes' }, 'recovery'],
    [{ recovery: [] }, 'recovery'],
    [{ recovery: { target: 0 } }, 'recovery.target'],
    [{ recovery: { target: 1.5 } }, 'recovery.target'],
    [{ recovery: { target: '0.8' } }, 'recovery.target'],
    [{ recovery: { enabled: 'no' } }, 'recovery.enabled'],
    [{ recovery: { retries: 2 } }, 'recovery.retries'],
  ]
  for (const [options, path] of bad) {
    test(`${JSON.stringify(options)} is INVALID_OPTIONS at ${path}`, () => {
      assert.throws(
        () => contextEditingMiddlewareObject(options),
        (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.path === path,
      )
    })
  }

  test('the Xpert strategy takes recovery from its options and recovers', async () => {
    const mw = new ContextEditingStrategy().createMiddleware({ trigger: null, keep: null, recovery: { enabled: true, target: 0.7 } })
    const overflow = await OVERFLOWS[0].make()
    let calls = 0
    const sent = []
    const answer = await mw.wrapModelCall({ messages: history() }, async (request) => {
      sent.push(request.messages)
      if (++calls === 1) throw overflow
      return new AIMessage('ok')
    })
    assert.equal(calls, 2)
    assert.equal(answer.response_metadata.context_editor.recovery.target, Math.floor(128000 * 0.7))
    assert.ok(sent[1].length === sent[0].length && counted(sent[1]) < counted(sent[0]))
    assert.throws(
      () => new ContextEditingStrategy().createMiddleware({ recovery: { target: 2 } }),
      (e) => e.code === 'INVALID_OPTIONS' && e.path === 'recovery.target',
    )
  })
})
