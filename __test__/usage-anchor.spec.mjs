// Counting anchored to provider-reported usage, in a real createAgent run: a real ChatOpenAI talks
// to a fake chat-completions endpoint that reports `usage` (its own count of each request), which
// LangChain puts in the AI messages' `usage_metadata`. With `tokenCountMethod: "usage"` a request
// counts as the newest AI message's reported input + output + the counted size of what follows it;
// a history changed at or before that message falls back to the fallback method and says so; the
// reports also correct the other methods.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createAgent, createMiddleware, tool } from 'langchain'
import { ChatOpenAI } from '@langchain/openai'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { z } from 'zod'
import { contextEditingMiddleware } from 'context-editor/langchain'
import { ContextEditor } from 'context-editor'
import { contextEditingMiddlewareObject, ContextEditingStrategy } from 'context-editor/xpert'
import { fakeOpenAI } from './support/fake-openai-server.mjs'
import { convertToOpenAITool } from '@langchain/core/utils/function_calling'
import { usageOf } from '../dist/usage.js'

const STEPS = 5
const COMPLETION = 17

const readFile = tool(async ({ path }) => `// ${path}\n${'export const answer = 42; // 数据\n'.repeat(60)}`, {
  name: 'read_file',
  description: 'Read a file of the repository.',
  schema: z.object({ path: z.string() }),
})

function agentWith(middleware, server = fakeOpenAI({ steps: STEPS, tool: 'read_file', args: (s) => ({ path: `src/${s}.ts` }), completionTokens: COMPLETION })) {
  const model = new ChatOpenAI({ model: 'gpt-4o', apiKey: 'test', maxRetries: 0, configuration: { baseURL: 'http://fake.invalid/v1', fetch: server.fetch } })
  return { server, agent: createAgent({ model, tools: [readFile], systemPrompt: 'You read code.', middleware }) }
}

/** An outer middleware that records what each model call is given. */
function recorder(seen, change) {
  return createMiddleware({
    name: 'Recorder',
    wrapModelCall: (request, handler) => {
      const messages = change ? change(request.messages, seen.length) : request.messages
      seen.push(messages)
      return handler({ ...request, messages })
    },
  })
}

const newestAi = (messages) => messages.findLastIndex((m) => m._getType() === 'ai')
const exact = new ContextEditor({ tokenCountMethod: 'model', trigger: [] })
const countedAfter = (messages, index) => exact.countTokens(messages.slice(index + 1)).messages.reduce((a, b) => a + b, 0)
/** The fallback's count of a whole request as the middleware sees it (system prompt and tool schema included). */
const fallbackCount = (messages) =>
  exact.countTokens(messages, { systemPrompt: 'You read code.', tools: [JSON.stringify(convertToOpenAITool(readFile))] }).total

describe('tokenCountMethod "usage" in createAgent', () => {
  test('after the first call, the count is the reported input + output + the counted size after the anchor', async () => {
    const seen = []
    const usage = []
    const { agent, server } = agentWith([
      recorder(seen),
      contextEditingMiddleware({ tokenCountMethod: 'usage', usageFallback: 'model', trigger: { tokens: 1e9 }, onReport: (r) => usage.push(r) }),
    ])
    const result = await agent.invoke({ messages: [new HumanMessage('Read the files, then say done.')] })
    assert.equal(result.messages.at(-1).content, 'done')
    assert.equal(usage.length, STEPS + 1)
    assert.equal(usage[0].usageAnchor.status, 'none')
    assert.equal(usage[0].tokensBefore, fallbackCount(seen[0]), 'the first call is counted with the fallback')
    for (let k = 1; k <= STEPS; k++) {
      const messages = seen[k]
      const a = newestAi(messages)
      const reported = usageOf(messages[a])
      assert.equal(reported.input, server.requests[k - 1].size, 'LangChain carried the reported input')
      assert.equal(reported.output, COMPLETION)
      const anchor = usage[k].usageAnchor
      assert.equal(anchor.status, 'used', `call ${k}`)
      assert.equal(anchor.index, a)
      assert.equal(anchor.source, 'usage_metadata')
      assert.equal(anchor.tokens, reported.input + reported.output)
      assert.equal(usage[k].tokensBefore, reported.input + reported.output + countedAfter(messages, a), `call ${k}: the anchored size`)
      assert.notEqual(usage[k].tokensBefore, fallbackCount(messages), 'differs from the model count (the server counts its own way)')
    }
  })

  test('a history edited at or before the anchor falls back to the fallback count and says so', async () => {
    const usage = []
    const seen = []
    const edited = new Set([2, 4])
    // Calls 2 and 4: the host replaces the first tool result by a shorter copy (a new object).
    const change = (messages, call) => {
      if (!edited.has(call)) return messages
      const k = messages.findIndex((m) => m._getType() === 'tool')
      const copy = [...messages]
      copy[k] = new ToolMessage({ tool_call_id: messages[k].tool_call_id, name: 'read_file', content: 'short' })
      return copy
    }
    const { agent } = agentWith([
      recorder(seen, change),
      contextEditingMiddleware({ tokenCountMethod: 'usage', usageFallback: 'model', trigger: { tokens: 1e9 }, onReport: (r) => usage.push(r) }),
    ])
    await agent.invoke({ messages: [new HumanMessage('Read the files, then say done.')] })
    for (let k = 1; k <= STEPS; k++) {
      const anchor = usage[k].usageAnchor
      if (edited.has(k) || edited.has(k - 1)) {
        // The edited call itself, and the call after it (its anchor's call saw the other history).
        assert.equal(anchor.status, 'stale', `call ${k}`)
        assert.equal(typeof anchor.changedAt, 'number')
        assert.equal(usage[k].tokensBefore, fallbackCount(seen[k]), `call ${k}: the fallback count`)
        assert.equal(anchor.tokens, undefined)
      } else {
        assert.equal(anchor.status, 'used', `call ${k}`)
      }
    }
  })

  test('a message changed in place (same object) is noticed by its fingerprint', async () => {
    const history = [new HumanMessage('Read a.'), new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read_file', args: { path: 'a' } }] })]
    history.push(new ToolMessage({ tool_call_id: 'c1', name: 'read_file', content: 'x'.repeat(3000) }))
    const reports = []
    const mw = contextEditingMiddlewareObject({ tokenCountMethod: 'usage', trigger: { tokens: 1e9 }, onReport: (r) => reports.push(r) })
    const answer = async () => new AIMessage({ content: 'ok', usage_metadata: { input_tokens: 5000, output_tokens: 20, total_tokens: 5020 } })
    await mw.wrapModelCall({ messages: history }, answer)
    const reply = await answer()
    const next = [...history, reply, new HumanMessage('And b?')]
    await mw.wrapModelCall({ messages: next }, answer)
    assert.equal(reports[1].usageAnchor.status, 'used')
    assert.equal(reports[1].tokensBefore, 5020 + new ContextEditor({ trigger: [] }).countTokens([next[4]]).messages[0])
    history[2].content = 'y'.repeat(10) // the host rewrites a stored result in place
    await mw.wrapModelCall({ messages: next }, answer)
    assert.equal(reports[2].usageAnchor.status, 'stale')
    assert.equal(reports[2].usageAnchor.changedAt, 2)
  })

  test('a system prompt or tool definitions changed since the anchor’s call make it stale, by one character too', async () => {
    const reports = []
    const mw = contextEditingMiddlewareObject({ tokenCountMethod: 'usage', trigger: { tokens: 1e9 }, onReport: (r) => reports.push(r) })
    const answer = async () => new AIMessage({ content: 'ok', usage_metadata: { input_tokens: 5000, output_tokens: 20, total_tokens: 5020 } })
    // Long and two-byte, and changed by a character of the same length.
    const prompt = 'You read code. '.repeat(300) + '尾'
    const otherPrompt = prompt.slice(0, -1) + '首'
    const tool = (description) => ({ type: 'function', function: { name: 'read_file', description, parameters: { type: 'object' } } })
    const [tools, otherTools] = [[JSON.stringify(tool('Reads a file.'))], [JSON.stringify(tool('Reads a fild.'))]]
    let messages = [new HumanMessage('Read a.')]
    const call = async (systemPrompt, tools) => {
      await mw.wrapModelCall({ messages, systemPrompt, tools }, answer)
      messages = [...messages, await answer(), new HumanMessage('And the next?')]
      return reports.at(-1).usageAnchor
    }
    // Each pair: a call whose anchor's call had the same context, then one with a change, in turn.
    const steps = [
      [prompt, tools, 'none'],
      [prompt, tools, 'used'],
      [otherPrompt, tools, 'stale'],
      [otherPrompt, tools, 'used'],
      [otherPrompt, otherTools, 'stale'],
      [otherPrompt, otherTools, 'used'],
      [prompt, tools, 'stale'],
      // The same texts made anew are the same context.
      [[...prompt].join(''), tools.map((t) => `${t} `.trimEnd()), 'used'],
    ]
    for (const [k, [systemPrompt, defs, status]] of steps.entries()) {
      const anchor = await call(systemPrompt, defs)
      assert.equal(anchor.status, status, `call ${k}`)
      if (status === 'stale') assert.equal(anchor.changedAt, -1, `call ${k}: the context changed, not a message`)
    }
  })

  test('usage the middleware did not see made is not used (a new middleware instance)', async () => {
    const reports = []
    const mw = contextEditingMiddlewareObject({ tokenCountMethod: 'usage', onReport: (r) => reports.push(r) })
    const messages = [
      new HumanMessage('hi'),
      new AIMessage({ content: 'hello', usage_metadata: { input_tokens: 900, output_tokens: 3, total_tokens: 903 } }),
      new HumanMessage('again'),
    ]
    await mw.wrapModelCall({ messages }, async () => new AIMessage('ok'))
    assert.equal(reports[0].usageAnchor.status, 'unverified')
    assert.equal(reports[0].tokensBefore, new ContextEditor({ trigger: [] }).countTokens(messages).total)
  })

  test('usage read from OpenAI and Anthropic shapes, cache fields included', () => {
    assert.deepEqual(usageOf({ usage_metadata: { input_tokens: 100, output_tokens: 5, input_token_details: { cache_read: 60 } } }), {
      input: 100,
      output: 5,
      source: 'usage_metadata',
    })
    // A provider that leaves cached tokens out of input_tokens: they are added.
    assert.deepEqual(usageOf({ usage_metadata: { input_tokens: 10, output_tokens: 5, input_token_details: { cache_read: 60, cache_creation: 30 } } }), {
      input: 100,
      output: 5,
      source: 'usage_metadata',
    })
    assert.deepEqual(usageOf({ response_metadata: { usage: { prompt_tokens: 70, completion_tokens: 9 } } }), {
      input: 70,
      output: 9,
      source: 'response_metadata.usage',
    })
    assert.deepEqual(
      usageOf({ response_metadata: { usage: { input_tokens: 10, cache_creation_input_tokens: 20, cache_read_input_tokens: 30, output_tokens: 4 } } }),
      { input: 60, output: 4, source: 'response_metadata.usage' },
    )
    assert.deepEqual(usageOf({ role: 'assistant', content: 'x', usage: { prompt_tokens: 3, completion_tokens: 1 } }), { input: 3, output: 1, source: 'usage' })
    for (const bad of [
      null,
      1,
      {},
      { usage_metadata: { input_tokens: -1, output_tokens: 2 } },
      { usage_metadata: { input_tokens: 1.5, output_tokens: 2 } },
      { usage_metadata: { input_tokens: '9', output_tokens: 2 } },
    ]) {
      assert.equal(usageOf(bad), undefined)
    }
  })

  test('the Xpert strategy takes tokenCountMethod "usage" and usageFallback from its JSON options', async () => {
    const mw = new ContextEditingStrategy().createMiddleware({ tokenCountMethod: 'usage', usageFallback: 'model', trigger: null })
    const first = [new HumanMessage('hi')]
    const answer = new AIMessage({ content: 'hello', usage_metadata: { input_tokens: 700, output_tokens: 9, total_tokens: 709 } })
    await mw.wrapModelCall({ messages: first }, async () => answer)
    // The host sends the grown history; the strategy has no onReport, so the count shows in what a
    // trigger does: 709 + the new question is over a 700-token trigger only when anchored.
    const anchored = new ContextEditingStrategy().createMiddleware({ tokenCountMethod: 'usage', trigger: { tokens: 700 }, keep: { messages: 0 } })
    const history = [
      new HumanMessage('read'),
      new AIMessage({ content: '', tool_calls: [{ id: 'c', name: 'read_file', args: {} }] }),
      new ToolMessage({ tool_call_id: 'c', name: 'read_file', content: 'short' }),
    ]
    const reply = new AIMessage({
      content: '',
      tool_calls: [{ id: 'd', name: 'read_file', args: {} }],
      usage_metadata: { input_tokens: 900, output_tokens: 9, total_tokens: 909 },
    })
    await anchored.wrapModelCall({ messages: history }, async () => reply)
    let sent
    await anchored.wrapModelCall(
      { messages: [...history, reply, new ToolMessage({ tool_call_id: 'd', name: 'read_file', content: 'also short' })] },
      async (r) => {
        sent = r.messages
        return new AIMessage('ok')
      },
    )
    assert.equal(sent[2].content, '[cleared]', 'the anchored size (909 + …) fired the 700-token trigger')
    assert.equal(mw.name, 'ContextEditingMiddleware')
  })

  test('usageFallback: a method it cannot fall back to is INVALID_OPTIONS; without "usage" it has no effect', async () => {
    assert.throws(
      () => contextEditingMiddlewareObject({ tokenCountMethod: 'usage', usageFallback: 'usage' }),
      (e) => e.code === 'INVALID_OPTIONS' && e.path === 'usageFallback',
    )
    assert.throws(
      () => contextEditingMiddlewareObject({ usageFallback: 5 }),
      (e) => e.code === 'INVALID_OPTIONS' && e.path === 'usageFallback',
    )
    const reports = []
    const mw = contextEditingMiddlewareObject({ usageFallback: 'model', onReport: (r) => reports.push(r) })
    await mw.wrapModelCall({ messages: [new HumanMessage('hello there')] }, async () => new AIMessage('ok'))
    assert.equal(reports[0].tokenCountMethod, 'approx')
    assert.equal(reports[0].usageAnchor, undefined)
  })
})

describe('provider usage corrects the other methods', () => {
  test('approx counts off by more than 10 % are multiplied by reported / counted from the next call on', async () => {
    const reports = []
    const { agent, server } = agentWith([contextEditingMiddleware({ trigger: { tokens: 1e9 }, onReport: (r) => reports.push(r) })])
    await agent.invoke({ messages: [new HumanMessage('Read the files, then say done.')] })
    // The server counts characters / 3 of the JSON it receives; approx counts characters / 4 of the
    // text: more than 10 % apart, so from the third call on (the second call's anchor is the first
    // call's answer, whose call the middleware saw) totals are corrected.
    assert.equal(reports[0].tokenCorrection, undefined)
    for (let k = 2; k <= STEPS; k++) {
      const ratio = reports[k].tokenCorrection
      assert.ok(ratio > 1.1, `call ${k}: corrected by ${ratio}`)
      const sent = server.requests[k - 1].size
      const counted = reports[k - 1].tokensAfter / (reports[k - 1].tokenCorrection ?? 1)
      assert.ok(Math.abs(ratio - sent / counted) < 1e-9, 'the ratio of the previous call: reported / counted')
    }
  })
})
