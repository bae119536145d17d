// Classes of defects in the budget-truth pieces (issue #16), each checked over a whole class:
// context-length errors recognized through any wrapping and never by accident, recovery exactly
// once per call also when calls overlap, windows by model names as hosts write them, and the usage
// anchor's accounting of reasoning and cached tokens.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { contextEditingMiddlewareObject } from 'context-editor/xpert'
import { classifyOverflow } from '../dist/overflow.js'
import { contextWindowOf } from '../dist/windows.js'
import { usageOf } from '../dist/usage.js'
import { OVERFLOWS, OTHER_ERRORS } from './support/provider-errors.mjs'

function history(results = 10, size = 4000) {
  const out = [new HumanMessage('Read every file.')]
  for (let i = 0; i < results; i++) {
    out.push(new AIMessage({ content: '', tool_calls: [{ id: `c${i}`, name: 'read_file', args: { path: `f${i}` } }] }))
    out.push(new ToolMessage({ tool_call_id: `c${i}`, name: 'read_file', content: 'const x = 1;\n'.repeat(size / 13) }))
  }
  out.push(new HumanMessage('Summarize.'))
  return out
}

describe('context-length errors through any wrapping', () => {
  for (const shape of OVERFLOWS) {
    test(`${shape.name}: wrapped as the cause of a status-less error, still an overflow with the same sizes`, async () => {
      const inner = await shape.make()
      const direct = classifyOverflow(inner)
      assert.ok(direct, 'recognized unwrapped')
      const wrapped = classifyOverflow(new Error('tool node failed', { cause: inner }))
      assert.deepEqual(wrapped, direct)
    })
  }
  for (const shape of OVERFLOWS) {
    test(`${shape.name}: the same error answered with 429, 500 or 401 is not an overflow (the status decides, not the words)`, async () => {
      for (const status of [429, 500, 401]) {
        const e = await shape.make()
        Object.defineProperty(e, 'status', { value: status, configurable: true })
        assert.equal(classifyOverflow(e), undefined, String(status))
      }
    })
  }
  for (const shape of OTHER_ERRORS) {
    test(`${shape.name}: not an overflow wrapped either`, async () => {
      const inner = await shape.make()
      assert.equal(classifyOverflow(new Error('tool node failed', { cause: inner })), undefined)
    })
  }

  test('a provider overflow under a rate limit (429 outside) is the rate limit: not an overflow', async () => {
    const inner = await OVERFLOWS[0].make()
    assert.equal(classifyOverflow(Object.assign(new Error('retry budget exhausted', { cause: inner }), { status: 429 })), undefined)
  })

  test('classifying never throws: throwing getters, proxies, cyclic causes', () => {
    const cyclic = Object.assign(new Error("This model's maximum context length is 10 tokens"), { status: 400 })
    cyclic.cause = cyclic
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error('trap')
        },
        has() {
          throw new Error('trap')
        },
      },
    )
    const getter = Object.defineProperty({ status: 400 }, 'message', {
      get() {
        throw new Error('no')
      },
    })
    assert.equal(classifyOverflow(cyclic)?.limit, 10)
    assert.equal(classifyOverflow(trap), undefined)
    assert.equal(classifyOverflow(getter), undefined)
    assert.equal(classifyOverflow(new Error('x', { cause: trap })), undefined)
  })

  test('status-less errors need an API error body: the same words thrown by code are not an overflow', () => {
    const words = 'prompt is too long: 204000 tokens > 200000 maximum'
    assert.equal(classifyOverflow(new Error(words)), undefined)
    assert.equal(classifyOverflow(Object.assign(new Error(words), { code: 'ERR_SOMETHING' })), undefined)
    assert.deepEqual(
      classifyOverflow(Object.assign(new Error(words), { error: { type: 'error', error: { type: 'invalid_request_error', message: words } } })),
      {
        kind: 'anthropic',
        limit: 200000,
        actual: 204000,
      },
    )
  })
})

describe('recovery: once per call, also when calls overlap', () => {
  test('two overlapping calls that both overflow are each retried exactly once and each gets its own answer', async () => {
    const mw = contextEditingMiddlewareObject({ recovery: true })
    const calls = { a: 0, b: 0 }
    const make = (id) => async (request) => {
      calls[id]++
      await new Promise((r) => setTimeout(r, 5))
      if (calls[id] === 1) throw await OVERFLOWS[0].make()
      return new AIMessage(`answer ${id} after ${request.messages.length} messages`)
    }
    const [a, b] = await Promise.all([mw.wrapModelCall({ messages: history(10) }, make('a')), mw.wrapModelCall({ messages: history(12) }, make('b'))])
    assert.deepEqual(calls, { a: 2, b: 2 })
    assert.match(a.content, /^answer a/)
    assert.match(b.content, /^answer b/)
    assert.ok(a.response_metadata.context_editor.recovery)
    assert.ok(b.response_metadata.context_editor.recovery)
  })

  test('a retry that fails with another error (a rate limit) rethrows that second error object, not the first', async () => {
    const mw = contextEditingMiddlewareObject({})
    const second = await OTHER_ERRORS[0].make()
    let n = 0
    await assert.rejects(
      mw.wrapModelCall({ messages: history() }, async () => {
        n++
        throw n === 1 ? await OVERFLOWS[0].make() : second
      }),
      (e) => e === second,
    )
    assert.equal(n, 2)
  })

  test('an error thrown synchronously by the handler is rethrown as the same object (no recovery for non-overflows)', async () => {
    const mw = contextEditingMiddlewareObject({})
    const boom = new TypeError('boom')
    let n = 0
    await assert.rejects(
      mw.wrapModelCall({ messages: history(2) }, () => {
        n++
        throw boom
      }),
      (e) => e === boom,
    )
    assert.equal(n, 1)
  })
})

describe('windows by model names as hosts write them', () => {
  const rows = [
    ['openai/gpt-4o', 128000],
    ['gpt-4o-2024-08-06', 128000],
    ['gpt-4', 8192],
    ['gpt-4-0613', 8192],
    ['gpt-4-32k-0613', 32768],
    ['gpt-4.1-nano-2025-04-14', 1047576],
    ['gpt-4.5-preview', 128000],
    ['gpt-5-chat-latest', 128000],
    ['gpt-5-mini-2025-08-07', 272000],
    ['gpt-3.5-turbo-instruct', 4096],
    ['gpt-3.5-turbo-0125', 16385],
    ['o1-preview', 128000],
    ['o4-mini-2025-04-16', 200000],
    ['Qwen/Qwen3-32B', 131072],
    ['deepseek-chat', 131072],
    ['deepseek-reasoner', 131072],
    ['claude-sonnet-4-5-20250929', 200000],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', 200000],
    ['claude-instant-1.2', 100000],
    ['gemini-2.5-pro', 1048576],
    ['models/gemini-2.5-flash', 1048576],
    ['gemini-pro', 30720],
    ['gemini-1.0-pro-001', 30720],
    ['glm-4.6', 204800],
    ['glm-4.5-air', 131072],
    ['llama-3.3-70b-versatile', 131072],
    ['llama3:8b', 8192],
    ['accounts/fireworks/models/llama-v3p1-70b-instruct', 131072],
    ['grok-4', 256000],
    ['grok-3-mini', 131072],
    ['moonshot-v1-8k', 8192],
    ['kimi-k2-0905-preview', 262144],
  ]
  for (const [name, tokens] of rows) test(`${name}: ${tokens}`, () => assert.equal(contextWindowOf(name), tokens))

  test('a near name does not borrow a longer family member’s window, and unknown names have none', () => {
    assert.notEqual(contextWindowOf('gpt-4'), contextWindowOf('gpt-4o'))
    assert.notEqual(contextWindowOf('gpt-4'), contextWindowOf('gpt-4.1'))
    assert.notEqual(contextWindowOf('o1-mini'), contextWindowOf('o1'))
    for (const name of ['gpt-40-custom', 'o1x', 'acme-chat-7', '', null, undefined, 42, 'x'.repeat(300)])
      assert.equal(contextWindowOf(name), undefined, String(name))
  })
})

describe('usage anchor accounting', () => {
  test('reasoning tokens counted in the output but not carried by the message are not part of the next request', () => {
    const openai = { content: 'answer', usage_metadata: { input_tokens: 1000, output_tokens: 900, output_token_details: { reasoning: 800 } } }
    assert.deepEqual(usageOf(openai), { input: 1000, output: 100, source: 'usage_metadata' })
    const raw = { role: 'assistant', content: 'x', usage: { prompt_tokens: 50, completion_tokens: 70, completion_tokens_details: { reasoning_tokens: 64 } } }
    assert.deepEqual(usageOf(raw), { input: 50, output: 6, source: 'usage' })
  })

  test('raw answers kept beside a message: Bedrock Converse (cache reads and writes added), Gemini, Ollama (a cached prompt, 0, is no report)', () => {
    const bedrock = {
      role: 'assistant',
      content: 'x',
      usage: { inputTokens: 40, cacheReadInputTokens: 900, cacheWriteInputTokens: 60, outputTokens: 7, totalTokens: 1007 },
    }
    assert.deepEqual(usageOf(bedrock), { input: 1000, output: 7, source: 'usage' })
    const gemini = { content: 'x', response_metadata: { usageMetadata: { promptTokenCount: 1200, cachedContentTokenCount: 1000, candidatesTokenCount: 30 } } }
    assert.deepEqual(usageOf(gemini), { input: 1200, output: 30, source: 'usageMetadata' })
    const ollama = { content: 'x', response_metadata: { model: 'qwen3:8b', prompt_eval_count: 812, eval_count: 44 } }
    assert.deepEqual(usageOf(ollama), { input: 812, output: 44, source: 'response_metadata.prompt_eval_count' })
    assert.equal(usageOf({ content: 'x', response_metadata: { prompt_eval_count: 0, eval_count: 44 } }), undefined)
    assert.equal(usageOf({ content: 'x', response_metadata: { usageMetadata: { promptTokenCount: 1200 } } }), undefined, 'no output: no report')
    // LangChain's own usage_metadata, when there, is read first.
    assert.equal(usageOf({ ...ollama, usage_metadata: { input_tokens: 900, output_tokens: 44 } }).input, 900)
  })

  test('reasoning the message carries (thinking blocks) stays in the output', () => {
    const thinking = {
      content: [
        { type: 'thinking', thinking: 'step by step', signature: 's' },
        { type: 'text', text: 'answer' },
      ],
      usage_metadata: { input_tokens: 1000, output_tokens: 900, output_token_details: { reasoning: 800 } },
    }
    assert.equal(usageOf(thinking).output, 900)
  })

  test("Anthropic's own usage wins over a usage_metadata that left the cached tokens out (older @langchain/anthropic)", () => {
    const older = {
      usage_metadata: { input_tokens: 40, output_tokens: 5, input_token_details: { cache_read: 30, cache_creation: 0 } },
      response_metadata: { usage: { input_tokens: 40, cache_read_input_tokens: 30, cache_creation_input_tokens: 0, output_tokens: 5 } },
    }
    assert.deepEqual(usageOf(older), { input: 70, output: 5, source: 'response_metadata.usage' })
    // LangChain 1.x already sums them: the same figure either way.
    const current = { ...older, usage_metadata: { input_tokens: 70, output_tokens: 5, input_token_details: { cache_read: 30, cache_creation: 0 } } }
    assert.equal(usageOf(current).input, 70)
  })
})

describe("the middlewares' own options given to ContextEditor", () => {
  test('tokenCountMethod "usage", recovery and usageFallback are INVALID_OPTIONS that say where they belong; the middleware takes them', async () => {
    const { ContextEditor } = await import('context-editor')
    for (const [options, path, words] of [
      [{ tokenCountMethod: 'usage' }, 'tokenCountMethod', /context\.usageAnchor/],
      [{ recovery: { target: 0.7 } }, 'recovery', /middlewares/],
      [{ recovery: false }, 'recovery', /middlewares/],
      [{ usageFallback: 'model' }, 'usageFallback', /middlewares/],
    ]) {
      assert.throws(
        () => new ContextEditor(options),
        (e) => e.code === 'INVALID_OPTIONS' && e.path === path && words.test(e.message),
        JSON.stringify(options),
      )
      assert.ok(contextEditingMiddlewareObject(options))
    }
    // The anchor the middleware would use, given per call, is what the editor reads instead.
    const messages = history(3)
    const editor = new ContextEditor({ trigger: [] })
    const total = editor.countTokens(messages, { usageAnchor: { index: 2, tokens: 5000 } }).total
    assert.ok(total > 5000, `${total}`)
  })
})

describe('the usage anchor after a recovery, and with a host that reuses its array', () => {
  const answer = (input) => new AIMessage({ content: 'done', usage_metadata: { input_tokens: input, output_tokens: 7, total_tokens: input + 7 } })

  test('the answer of a recovered call anchors with what the recovery pass freed (the request it measured), not the refused one', async () => {
    const reports = []
    const mw = contextEditingMiddlewareObject({ tokenCountMethod: 'usage', onReport: (r) => reports.push(r) })
    const first = history(10)
    let n = 0
    const reply = await mw.wrapModelCall({ messages: first }, async (request) => {
      if (++n === 1) throw await OVERFLOWS[0].make()
      return answer(2000 + request.messages.length)
    })
    const recovery = reports.find((r) => r.recovery)
    assert.ok(recovery, 'recovered')
    const freed = recovery.tokensBefore - recovery.tokensAfter
    assert.ok(freed > 1000, `the recovery freed ${freed}`)
    await mw.wrapModelCall({ messages: [...first, reply, new HumanMessage('and then?')] }, async () => answer(1))
    const anchor = reports.at(-1).usageAnchor
    assert.equal(anchor.status, 'used')
    assert.equal(anchor.tokens, reply.usage_metadata.input_tokens + 7 + freed)
  })

  test('a host that pushes the answer onto the same array still gets a fresh anchor', async () => {
    const reports = []
    const mw = contextEditingMiddlewareObject({ tokenCountMethod: 'usage', onReport: (r) => reports.push(r) })
    const messages = history(2)
    const reply = await mw.wrapModelCall({ messages }, async () => answer(reports[0].tokensAfter))
    messages.push(reply, new HumanMessage('more'))
    await mw.wrapModelCall({ messages }, async () => answer(1))
    assert.equal(reports.at(-1).usageAnchor.status, 'used')
    assert.equal(reports.at(-1).usageAnchor.index, messages.length - 2)
  })
})

describe('a server that cuts the prompt (Ollama past num_ctx) teaches nothing', () => {
  const reply = (input) => new AIMessage({ content: 'ok', usage_metadata: { input_tokens: input, output_tokens: 3, total_tokens: input + 3 } })

  test('usage mode: a report under half of what was sent is no anchor ("truncated"); the fallback counts', async () => {
    const reports = []
    const mw = contextEditingMiddlewareObject({ tokenCountMethod: 'usage', trigger: { tokens: 10_000_000 }, onReport: (r) => reports.push(r) })
    const first = history(6)
    const sent = []
    const answer = await mw.wrapModelCall({ messages: first }, async () => reply(2048))
    sent.push(reports.at(-1).tokensAfter)
    assert.ok(sent[0] > 4096, `the request counted ${sent[0]}`)
    const next = [...first, answer, new HumanMessage('and?')]
    await mw.wrapModelCall({ messages: next }, async () => reply(2048))
    const report = reports.at(-1)
    assert.equal(report.usageAnchor.status, 'truncated')
    assert.equal(report.tokensBefore, new (await import('context-editor')).ContextEditor({ trigger: [] }).countTokens(next).total)
  })

  test('other methods: reports under half of the count are no correction', async () => {
    const reports = []
    const mw = contextEditingMiddlewareObject({ trigger: { tokens: 10_000_000 }, onReport: (r) => reports.push(r) })
    let messages = history(6)
    for (let k = 0; k < 4; k++) {
      const answer = await mw.wrapModelCall({ messages }, async () => reply(1000))
      messages = [...messages, answer, new HumanMessage(`step ${k}`)]
    }
    for (const r of reports) assert.equal(r.tokenCorrection, undefined)
  })
})

describe('recovery keeps the editor-wide options', () => {
  test('with format or pin among the options the recovery retries (it failed with INVALID_OPTIONS), and a pinned result survives it', async () => {
    for (const options of [{ format: 'langchain' }, { pin: { tools: ['pinned_tool'] } }, { pin: { ids: ['keep-me'] }, edits: [{ type: 'clear_tool_uses' }] }]) {
      const messages = history(8)
      messages.splice(
        1,
        0,
        new AIMessage({ content: '', tool_calls: [{ id: 'p1', name: 'pinned_tool', args: {} }] }),
        new ToolMessage({ id: 'keep-me', tool_call_id: 'p1', name: 'pinned_tool', content: 'PINNED '.repeat(50) }),
      )
      const mw = contextEditingMiddlewareObject(options)
      const seen = []
      const answer = await mw.wrapModelCall({ messages }, async (request) => {
        seen.push(request.messages)
        if (seen.length === 1) throw await OVERFLOWS[0].make()
        return new AIMessage('ok')
      })
      assert.equal(answer.content, 'ok', JSON.stringify(options))
      assert.equal(seen.length, 2)
      const retried = seen[1]
      assert.ok(retried.length < messages.length || retried.some((m, i) => m !== messages[i]), 'the retry was re-edited')
      if (options.pin) {
        const kept = retried.find((m) => m.tool_call_id === 'p1')
        assert.ok(kept && /PINNED/.test(kept.content), `the pinned result survives the recovery (${JSON.stringify(options)})`)
      }
    }
  })
})

describe('a recovery that cannot edit', () => {
  test("leaves the provider's error to the caller as the same object (not an error of ours in its place), model called once", async () => {
    let broken = false
    const odd = {
      role: 'user',
      get content() {
        if (broken) throw new Error('gone')
        return 'a question '.repeat(200)
      },
    }
    const messages = [new HumanMessage('start'), ...history(4).slice(1), odd]
    const mw = contextEditingMiddlewareObject({})
    const overflow = await OVERFLOWS[0].make()
    let n = 0
    await assert.rejects(
      mw.wrapModelCall({ messages }, async () => {
        n++
        broken = true
        throw overflow
      }),
      (e) => e === overflow,
    )
    assert.equal(n, 1)
  })
})

describe('only the call’s own answer anchors', () => {
  test("an AI message with another call's usage in the answer's place (a subagent's, a summary's) is stale, not an anchor", async () => {
    const reports = []
    const mw = contextEditingMiddlewareObject({ tokenCountMethod: 'usage', onReport: (r) => reports.push(r) })
    const first = history(3)
    const usage = (input, output) => ({ input_tokens: input, output_tokens: output, total_tokens: input + output })
    const own = await mw.wrapModelCall({ messages: first }, async () => new AIMessage({ content: 'mine', usage_metadata: usage(reports[0].tokensAfter, 4) }))
    const other = new AIMessage({ content: 'from a subagent', usage_metadata: usage(reports[0].tokensAfter + 900, 40) })
    await mw.wrapModelCall({ messages: [...first, other, new HumanMessage('next')] }, async () => new AIMessage('x'))
    assert.equal(reports.at(-1).usageAnchor.status, 'stale')
    assert.equal(reports.at(-1).usageAnchor.changedAt, first.length)
    await mw.wrapModelCall({ messages: [...first, own, new HumanMessage('next')] }, async () => new AIMessage('x'))
    assert.equal(reports.at(-1).usageAnchor.status, 'used')
  })
})
