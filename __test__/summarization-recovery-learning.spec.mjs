// The summarization middlewares learn from a recovery (issue 16, part 3), as the context-editing
// middleware does: when a provider refused a conversation's request as too long, the limit its
// error stated and its count over ours plan that conversation's later calls. So the summary fires
// before the provider refuses again, instead of every later call being refused and recovered.
// Real OpenAI errors (made by @langchain/openai against a fake endpoint); a fake summarizer model.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { summarizationMiddleware } from 'context-editor/langchain'
import { SummarizationStrategy } from 'context-editor/xpert'
import { ContextEditor } from 'context-editor'
import { openaiBody, openaiCompatible, thrown } from './support/provider-fakes.mjs'

/** A conversation of `n` read_file turns, each result `size` characters. */
function history(n, size = 4000) {
  const out = [new HumanMessage('Read the module, file by file.')]
  for (let i = 0; i < n; i++) {
    out.push(new AIMessage({ content: '', tool_calls: [{ id: `c${i}`, name: 'read_file', args: { path: `src/${i}.ts` } }] }))
    out.push(new ToolMessage({ tool_call_id: `c${i}`, name: 'read_file', content: `// src/${i}.ts\n${'x = compute(x);\n'.repeat(size / 16)}` }))
  }
  return out
}

/** A chat model that writes summaries (and answers the agent's calls in the Xpert case). */
function summarizer() {
  return {
    calls: 0,
    profile: { maxInputTokens: 1_000_000 },
    async invoke() {
      this.calls++
      return new AIMessage('The files read so far define compute().')
    },
  }
}

/** OpenAI's context-length error, as @langchain/openai throws it, stating `limit` and `actual`. */
const overflow = (limit, actual) =>
  thrown(
    openaiCompatible(
      400,
      openaiBody(
        `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${actual} tokens. Please reduce the length of the messages.`,
      ),
    ),
  )

const counted = (messages) => new ContextEditor().countTokens(messages).total

/**
 * Each middleware: its wrapModelCall, with a handler that refuses the first call with `error`;
 * then the `beforeModel` of a later call of the same conversation. Returns the summary update.
 */
async function refusedThenNext(make, error, later) {
  const out = []
  const model = summarizer()
  for (const [host, mw] of make(model)) {
    const first = history(6)
    let calls = 0
    await mw.wrapModelCall({ messages: first, model }, async () => {
      calls++
      if (calls === 1) throw error
      return new AIMessage('ok')
    })
    assert.equal(calls, 2, `${host}: the refused call was recovered once`)
    const next = [...first, ...later]
    out.push([host, await mw.beforeModel({ messages: next }, { context: {} }), model])
  }
  return out
}

const both = (options) => (model) => [
  ['LangChain', summarizationMiddleware({ model, keep: { messages: 2 }, ...options })],
  ['Xpert', new SummarizationStrategy().createMiddleware({ keep: { messages: 2 }, ...options })],
]

test('the limit a refusal stated plans later calls: a fraction trigger fires against it', async () => {
  const later = [new AIMessage('Next file.'), new HumanMessage('go on')]
  const size = counted(history(6))
  // The profile says 1,000,000; the server serves about half of what was sent.
  const limit = Math.floor(size / 2)
  for (const [host, update] of await refusedThenNext(both({ trigger: { fraction: 0.5 }, maxInputTokens: 1_000_000 }), await overflow(limit, size), later)) {
    assert.ok(update?.messages?.length > 0, `${host}: the next call is summarized (limit ${limit} learned)`)
    assert.ok(
      update.messages.some((m) => typeof m.content === 'string' && m.content.includes('compute()')),
      `${host}: the summary is in the update`,
    )
  }
})

test('the count a refusal stated corrects later counts: a token trigger fires at the true size', async () => {
  const later = [new AIMessage('Next file.'), new HumanMessage('go on')]
  const size = counted(history(6))
  // The provider counts three times what we count (a tokenizer far from ours); the trigger sits
  // between our count and the true size.
  const trigger = { tokens: size * 2 }
  for (const [host, update] of await refusedThenNext(both({ trigger }), await overflow(size * 2, size * 3), later)) {
    assert.ok(update?.messages?.length > 0, `${host}: summarized at the corrected count`)
  }
})

test('without a refusal nothing is learned: the same later call is not summarized', async () => {
  const size = counted(history(6))
  const model = summarizer()
  for (const [host, mw] of both({ trigger: { fraction: 0.5 }, maxInputTokens: 1_000_000 })(model)) {
    const first = history(6)
    await mw.wrapModelCall({ messages: first, model }, async () => new AIMessage('ok'))
    const update = await mw.beforeModel({ messages: [...first, new AIMessage('Next file.'), new HumanMessage('go on')] }, { context: {} })
    assert.equal(update, undefined, `${host}: ${size} tokens are far below half of 1,000,000`)
  }
  assert.equal(model.calls, 0, 'no summary was asked for')
})

test('what one conversation learned does not plan another', async () => {
  const size = counted(history(6))
  const model = summarizer()
  const mw = summarizationMiddleware({ model, keep: { messages: 2 }, trigger: { fraction: 0.5 }, maxInputTokens: 1_000_000 })
  const error = await overflow(Math.floor(size / 2), size)
  let calls = 0
  await mw.wrapModelCall({ messages: history(6), model }, async () => {
    if (++calls === 1) throw error
    return new AIMessage('ok')
  })
  // Another thread: its own first message object.
  assert.equal(await mw.beforeModel({ messages: history(6) }, { context: {} }), undefined)
})
