// The summarization middlewares (LangChain `summarizationMiddleware`, Xpert
// `ContextEditorSummarizationMiddleware`) recover from a provider's context-length error the way the
// context-editing middleware does (issue 16, part 3): the request that was sent is re-edited once to
// `recovery.target` of the limit and retried once; the recovery is in a report and in the answer's
// `response_metadata.context_editor.recovery`; any other error reaches the caller as the same object
// after one call. Real provider errors (support/provider-errors*.mjs) and a real `createAgent` run.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createAgent, tool } from 'langchain'
import { ChatOpenAI } from '@langchain/openai'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { z } from 'zod'
import { summarizationMiddleware } from 'context-editor/langchain'
import { SummarizationStrategy, contextEditingMiddlewareObject } from 'context-editor/xpert'
import { fakeOpenAI } from './support/fake-openai-server.mjs'
import { OVERFLOWS, OTHER_ERRORS } from './support/provider-errors.mjs'

const RESULT = 6000 // characters per tool result

const readFile = tool(async ({ path }) => `// ${path}\n${'export const value = 42;\n'.repeat(RESULT / 25)}`, {
  name: 'read_file',
  description: 'Read a file of the repository.',
  schema: z.object({ path: z.string() }),
})

function history() {
  const out = [new HumanMessage('Look at the old module first.')]
  for (let i = 0; i < 4; i++) {
    out.push(new AIMessage({ content: '', tool_calls: [{ id: `old_${i}`, name: 'read_file', args: { path: `old/${i}.ts` } }] }))
    out.push(new ToolMessage({ tool_call_id: `old_${i}`, name: 'read_file', content: `// old/${i}.ts\n${'legacy();\n'.repeat(RESULT / 10)}` }))
  }
  out.push(new AIMessage('The old module is a wrapper.'))
  out.push(new HumanMessage('Now read the new module, file by file, then say done.'))
  return out
}

/** The two middlewares, each with a list its reports go to. */
function middlewares(options = {}) {
  const reports = []
  return [
    ['LangChain', summarizationMiddleware({ trigger: { tokens: 10_000_000 }, ...options, onReport: (r) => reports.push(r) }), reports],
    ['Xpert', new SummarizationStrategy().createMiddleware({ trigger: { tokens: 10_000_000 }, ...options }), []],
  ]
}

test('createAgent with summarizationMiddleware: the first 5 model calls overflow, each is recovered once, the run finishes', async () => {
  const STEPS = 8
  const stated = new Map()
  let refusals = 0
  const server = fakeOpenAI({
    steps: STEPS,
    tool: 'read_file',
    args: (step) => ({ path: `src/${step}.ts` }),
    answer: 'done',
    refuse: ({ size, step }) => {
      const limit = stated.get(step)
      if (limit !== undefined) return size > limit ? limit : undefined
      if (refusals >= 5) return undefined
      refusals++
      const l = Math.floor(size * 0.85)
      stated.set(step, l)
      return l
    },
  })
  const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 'test', maxRetries: 0, configuration: { baseURL: 'http://fake.invalid/v1', fetch: server.fetch } })
  const reports = []
  const agent = createAgent({
    model,
    tools: [readFile],
    systemPrompt: 'You read code carefully.',
    // A trigger that never fires: the summary is not what saves these calls.
    middleware: [summarizationMiddleware({ trigger: { tokens: 10_000_000 }, onReport: (r) => reports.push(r) })],
  })
  const input = history()
  const result = await agent.invoke({ messages: input }, { recursionLimit: 100 })

  assert.equal(result.messages.at(-1).content, 'done', 'the run finishes')
  assert.equal(refusals, 5)
  assert.equal(server.requests.filter((r) => r.refusedWith !== undefined).length, 5, 'no retry was refused')
  assert.equal(server.requests.length, STEPS + 1 + 5, 'one retry per refused call, no more')
  server.requests.forEach((r, k) => {
    if (r.refusedWith === undefined) return
    const retry = server.requests[k + 1]
    assert.equal(retry.step, r.step)
    assert.ok(retry.size <= Math.floor(r.refusedWith * 0.8) * 1.05, `retry of step ${r.step}: ${retry.size}, limit ${r.refusedWith}`)
  })
  const recoveries = reports.filter((r) => r.recovery)
  assert.equal(recoveries.length, 5, 'every recovery is in a report')
  for (const r of recoveries) {
    assert.deepEqual([r.recovery.error, r.recovery.limitSource, r.recovery.ratioExact], ['openai', 'error', true])
    assert.ok(r.tokensAfter < r.tokensBefore)
  }
  assert.equal(result.messages.filter((m) => m.response_metadata?.context_editor?.recovery).length, 5)
  // The agent state keeps every tool result in full: only the retried request was cleared.
  const results = result.messages.filter((m) => m._getType() === 'tool')
  assert.equal(results.length, 4 + STEPS)
  assert.ok(results.every((m) => m.content.length > 1000))
  assert.ok(
    input.filter((m) => m._getType() === 'tool').every((m) => m.content.length > 1000),
    "the caller's input is untouched",
  )
})

test("createAgent with summarizationMiddleware({ recovery: false }): the provider's error ends the run", async () => {
  const server = fakeOpenAI({ steps: 2, tool: 'read_file', args: (s) => ({ path: `${s}` }), refuse: ({ size }) => Math.floor(size * 0.85) })
  const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 'test', maxRetries: 0, configuration: { baseURL: 'http://fake.invalid/v1', fetch: server.fetch } })
  const agent = createAgent({ model, tools: [readFile], middleware: [summarizationMiddleware({ recovery: false })] })
  await assert.rejects(agent.invoke({ messages: history() }), (e) => e.name === 'ContextOverflowError' && /maximum context length/.test(e.message))
  assert.equal(server.requests.length, 1)
})

describe('every provider overflow is recovered once; every other error reaches the caller as it is', () => {
  for (const overflow of OVERFLOWS) {
    test(overflow.name, async () => {
      for (const [host, middleware, reports] of middlewares({ recovery: { target: 0.7 } })) {
        const error = await overflow.make()
        const sent = []
        const answer = await middleware.wrapModelCall({ messages: history(), model: { model: 'gpt-4o' } }, async (request) => {
          sent.push(request.messages)
          if (sent.length === 1) throw error
          return new AIMessage({ content: 'ok', response_metadata: {} })
        })
        assert.equal(sent.length, 2, `${host}: one retry`)
        const record = answer.response_metadata.context_editor.recovery
        assert.equal(record.target, Math.floor(record.limit * 0.7), host)
        if (overflow.limit !== undefined) assert.deepEqual([record.limit, record.limitSource], [overflow.limit, 'error'], host)
        if (overflow.actual !== undefined) assert.deepEqual([record.actual, record.ratioExact], [overflow.actual, true], host)
        // The retry's tool results are cleared; the agent's own list is not.
        const cleared = sent[1].filter((m) => m._getType() === 'tool' && m.content !== sent[0].find((o) => o.tool_call_id === m.tool_call_id)?.content)
        assert.ok(cleared.length > 0 || sent[1].length < sent[0].length, `${host}: the retry is smaller`)
        if (host === 'LangChain') assert.equal(reports.filter((r) => r.recovery).length, 1)
      }
    })
  }

  test('other errors: the same object, one call', async () => {
    for (const other of OTHER_ERRORS) {
      for (const [host, middleware] of middlewares()) {
        const error = await other.make()
        let calls = 0
        await assert.rejects(
          middleware.wrapModelCall({ messages: history(), model: { model: 'gpt-4o' } }, async () => {
            calls++
            throw error
          }),
          (e) => e === error,
        )
        assert.equal(calls, 1, `${host}, ${other.name}`)
      }
    }
  })

  test("the retry's error goes to the caller: no second retry", async () => {
    for (const [host, middleware] of middlewares()) {
      const first = await OVERFLOWS[0].make()
      const second = await OVERFLOWS[0].make()
      let calls = 0
      await assert.rejects(
        middleware.wrapModelCall({ messages: history(), model: { model: 'gpt-4o' } }, async () => {
          calls++
          throw calls === 1 ? first : second
        }),
        (e) => e === second,
      )
      assert.equal(calls, 2, host)
    }
  })
})

test('a request the re-edit cannot shrink (no tool results, one message or a few short turns) is not sent again: the provider error, one call', async () => {
  const histories = [
    () => [new HumanMessage('hello there')],
    () => [new HumanMessage('   ')],
    () => [new HumanMessage('a'), new AIMessage('b'), new HumanMessage('c')],
  ]
  for (const make of histories) {
    const all = [...middlewares(), ['context-editing', contextEditingMiddlewareObject({}), []]]
    for (const [host, middleware] of all) {
      for (const overflow of OVERFLOWS) {
        const error = await overflow.make()
        const messages = make()
        let calls = 0
        await assert.rejects(
          middleware.wrapModelCall({ messages, model: { model: 'gpt-4o' } }, async () => {
            calls++
            throw error
          }),
          (e) => e === error,
        )
        assert.equal(calls, 1, `${host}, ${overflow.name}, ${messages.length} messages: no retry of an unchanged request`)
      }
    }
  }
})

test('the recovery option is checked like the context-editing middleware’s', () => {
  for (const make of [(o) => summarizationMiddleware(o), (o) => new SummarizationStrategy().createMiddleware(o)]) {
    assert.throws(() => make({ recovery: { target: 1.5 } }), { code: 'INVALID_OPTIONS', path: 'recovery.target' })
    assert.throws(() => make({ recovery: { retries: 2 } }), { code: 'INVALID_OPTIONS', path: 'recovery.retries' })
    assert.throws(() => make({ recovery: 'yes' }), { code: 'INVALID_OPTIONS', path: 'recovery' })
    make({ recovery: false })
    make({ recovery: null })
  }
})
