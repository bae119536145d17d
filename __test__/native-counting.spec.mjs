// Counting through `ContextEditor`: exact offline counts in model mode (cross-checked against
// js-tiktoken), the encoding a model name picks, warnings and report fields (stillTriggered,
// overMaxInputTokens, freed tokens), and the token cache.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'
import { Tiktoken } from 'js-tiktoken/lite'
import cl100k from 'js-tiktoken/ranks/cl100k_base'
import o200k from 'js-tiktoken/ranks/o200k_base'

import { ContextEditor } from '../dist/index.js'
import { buildMessages, conversationSpecs, toOpenAI } from './support/conversations.mjs'
import { lcHistory } from './support/native.mjs'
import { Rng } from './support/prng.mjs'
import { snapshot } from './support/util.mjs'

const REFERENCE = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) }

describe('model mode: exact offline counts', () => {
  // Pinned counts of the text alone, cross-checked against js-tiktoken's ranks so the pins are not
  // self-referential. A user message costs 3 framing tokens + 1 role token + its text.
  const PINS = [
    ['hello world', { o200k_base: 2, cl100k_base: 2 }],
    ['The quick brown fox jumps over the lazy dog.', { o200k_base: 10, cl100k_base: 10 }],
    ['你好，世界', { o200k_base: 3, cl100k_base: 6 }],
    ['naïve café 😀🚀', { o200k_base: 7, cl100k_base: 8 }],
    ['fn main() {\n    println!("{}", 1 + 2);\n}', { o200k_base: 14, cl100k_base: 14 }],
    ['<|endoftext|> is plain text here', { o200k_base: 11, cl100k_base: 11 }],
    ['lorem ipsum dolor sit amet '.repeat(20), { o200k_base: 102, cl100k_base: 102 }],
  ]

  for (const encoding of ['o200k_base', 'cl100k_base']) {
    test(`${encoding}: pinned counts equal js-tiktoken's and include the per-message overhead`, () => {
      const editor = new ContextEditor({ tokenCountMethod: 'model', encoding })
      for (const [text, pins] of PINS) {
        const reference = REFERENCE[encoding].encode(text, [], []).length
        assert.equal(reference, pins[encoding], `js-tiktoken ${encoding} ${JSON.stringify(text)}`)
        const r = editor.countTokens([{ role: 'user', content: text }])
        assert.equal(r.method, 'model')
        assert.equal(r.encoding, encoding)
        assert.equal(r.messages[0], 3 + 1 + pins[encoding], JSON.stringify(text))
        assert.equal(r.total, r.messages[0] + 3, 'reply priming')
      }
      // A whole conversation: sum of framed messages (+1 + name for a named one) + 3.
      const enc = REFERENCE[encoding]
      const n = (s) => enc.encode(s, [], []).length
      const msgs = [new SystemMessage('Be precise.'), new HumanMessage({ content: 'What is 2+2?', name: 'alice' }), new AIMessage('4')]
      const expected = 3 + n('system') + n('Be precise.') + (3 + n('user') + n('What is 2+2?') + 1 + n('alice')) + (3 + n('assistant') + n('4')) + 3
      assert.equal(editor.countTokens(msgs).total, expected)
    })
  }

  test('the model name picks the encoding; `encoding` wins over it', () => {
    const text = [{ role: 'user', content: '你好，世界' }]
    assert.equal(new ContextEditor({ tokenCountMethod: 'model', model: 'gpt-4o' }).countTokens(text).encoding, 'o200k_base')
    const gpt4 = new ContextEditor({ tokenCountMethod: 'model', model: 'gpt-4' }).countTokens(text)
    assert.equal(gpt4.encoding, 'cl100k_base')
    assert.equal(gpt4.messages[0], 4 + 6)
    const over = new ContextEditor({ tokenCountMethod: 'model', model: 'gpt-4', encoding: 'o200k_base' }).countTokens(text)
    assert.equal(over.encoding, 'o200k_base')
    // Per call, `context.model` chooses too.
    const perCall = new ContextEditor({ tokenCountMethod: 'model' }).countTokens(text, { model: 'gpt-3.5-turbo' })
    assert.equal(perCall.encoding, 'cl100k_base')
  })

  test('unknown model → o200k_base and an `unknown_model` warning', () => {
    // deepseek-chat and qwen-max are open-model families now (their tokenizer packages are
    // devDependencies): see tokenizer-families.spec.mjs. An unknown name still falls back.
    const editor = new ContextEditor({ tokenCountMethod: 'model', model: 'mystery-model-7b' })
    const { report } = editor.edit([{ role: 'user', content: 'hello world' }])
    assert.equal(report.encoding, 'o200k_base')
    assert.equal(report.tokensBefore, 3 + 1 + 2 + 3)
    const w = report.warnings.find((x) => x.code === 'unknown_model')
    assert.ok(w, JSON.stringify(report.warnings))
    assert.match(w.message, /mystery-model-7b/)
    const perCall = new ContextEditor({ tokenCountMethod: 'model' }).countTokens([], { model: 'acme-large' })
    assert.ok(perCall.warnings.some((x) => x.code === 'unknown_model'))
    assert.equal(perCall.encoding, 'o200k_base')
  })
})

describe('warnings and report fields', () => {
  test('a fraction option without a known limit warns `max_input_tokens_unknown` instead of guessing', () => {
    const editor = new ContextEditor({ trigger: { fraction: 0.5 } })
    const { report } = editor.edit(lcHistory())
    assert.equal(report.triggered, false)
    assert.equal(report.maxInputTokens, undefined)
    assert.ok(report.warnings.some((w) => w.code === 'max_input_tokens_unknown'))
    const keepFraction = new ContextEditor({ trigger: { messages: 1 }, keep: { fraction: 0.5 } })
    assert.ok(keepFraction.edit(lcHistory()).report.warnings.some((w) => w.code === 'max_input_tokens_unknown'))
    // With the limit given: no warning, and it fires.
    const known = editor.edit(lcHistory(), { maxInputTokens: 100 }).report
    assert.equal(known.maxInputTokens, 100)
    assert.equal(known.triggered, true)
    assert.ok(!known.warnings.some((w) => w.code === 'max_input_tokens_unknown'))
  })

  for (const [method, shape] of [
    ['approx', 'langchain'],
    ['model', 'langchain'],
    ['approx', 'openai'],
    ['model', 'openai'],
  ]) {
    test(`${method}, ${shape} shape: tokensBefore/After equal countTokens of input and output; appliedEdits add up`, () => {
      const rng = new Rng(method === 'approx' ? 5 : 6)
      const build = shape === 'openai' ? toOpenAI : buildMessages
      const editor = new ContextEditor({ trigger: { tokens: 30 }, keep: { messages: 1 }, clearToolInputs: true, tokenCountMethod: method })
      let triggered = 0
      for (let n = 0; n < 40; n++) {
        const input = build(conversationSpecs(rng))
        const ctx = { systemPrompt: 'You are an agent.', tools: [{ type: 'function', function: { name: 'search' } }] }
        const { messages, report } = editor.edit(input, ctx)
        assert.equal(report.tokensBefore, editor.countTokens(input, ctx).total)
        assert.equal(report.tokensAfter, editor.countTokens(messages, ctx).total)
        assert.equal(report.messagesBefore, input.length)
        assert.equal(report.messagesAfter, messages.length)
        assert.equal(report.tokenCountMethod, method)
        assert.equal(report.appliedEdits.length, 1)
        const [applied] = report.appliedEdits
        assert.equal(applied.type, 'clear_tool_uses')
        assert.equal(applied.triggered, report.triggered)
        assert.equal(applied.clearedToolUses, report.cleared.length)
        if (report.triggered) {
          triggered++
          // Tokens freed by clearing = the count after orphan removal minus the final count.
          const withoutOrphans = input.filter((_, i) => !report.removedOrphans.some((o) => o.index === i))
          assert.equal(applied.clearedInputTokens, editor.countTokens(withoutOrphans, ctx).total - report.tokensAfter)
        }
        for (const c of report.cleared) {
          assert.equal(
            messages.find((m) => m === input[c.index]),
            undefined,
            'a cleared message is a new object',
          )
          assert.equal(input[c.index].tool_call_id, c.toolCallId)
        }
      }
      assert.ok(triggered > 10)
    })
  }

  test('OpenAI arguments with escaped characters: freed tokens match a recount of the output', () => {
    // Inside JSON.stringify(tool_calls) OpenAI's `arguments` text is escaped ("\"" per quote); the
    // tokens freed by clearing it must be measured in that form.
    const args = JSON.stringify({ q: 'a "quoted" value with "many" \\ escapes' })
    const msgs = [
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'result' },
    ]
    const editor = new ContextEditor({ trigger: { messages: 1 }, keep: { messages: 0 }, clearToolInputs: true })
    const { messages, report } = editor.edit(msgs)
    assert.equal(messages[0].tool_calls[0].function.arguments, '{}')
    assert.equal(report.tokensAfter, editor.countTokens(messages).total)
    // LangChain's formula on the output: tool calls JSON + placeholder + tool_call_id.
    assert.equal(report.tokensAfter, Math.ceil((JSON.stringify(messages[0].tool_calls).length + '[cleared]c1'.length) / 4))
    assert.equal(report.appliedEdits[0].clearedInputTokens, report.tokensBefore - report.tokensAfter)
  })

  test('stillTriggered when non-tool text alone exceeds the trigger', () => {
    const editor = new ContextEditor({ trigger: { tokens: 100 }, keep: { messages: 0 } })
    const history = [
      new HumanMessage('please summarize this: ' + 'word '.repeat(200)), // ~250 tokens of non-tool text
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'search', args: {} }] }),
      new ToolMessage({ content: 'z'.repeat(400), tool_call_id: 'c1', name: 'search' }),
    ]
    const { report } = editor.edit(history)
    assert.equal(report.triggered, true)
    assert.equal(report.cleared.length, 1)
    assert.ok(report.tokensAfter >= 100)
    assert.equal(report.stillTriggered, true)
    assert.ok(report.warnings.some((w) => w.code === 'still_over_trigger'))
    // Clearing is enough when the text is small: not still triggered.
    const small = [new HumanMessage('hi'), ...history.slice(1)]
    const ok = editor.edit(small).report
    assert.equal(ok.triggered, true)
    assert.equal(ok.stillTriggered, false)
    assert.ok(!ok.warnings.some((w) => w.code === 'still_over_trigger'))
  })

  test('overMaxInputTokens when the result exceeds the model limit', () => {
    const { report } = new ContextEditor({ trigger: { tokens: 1e9 } }).edit([new HumanMessage('x'.repeat(400))], { maxInputTokens: 50 })
    assert.equal(report.overMaxInputTokens, true)
    assert.ok(report.warnings.some((w) => w.code === 'over_max_input_tokens'))
  })
})

describe('token cache', () => {
  const longTexts = (n, tag) => Array.from({ length: n }, (_, i) => `${tag} ${i} ` + 'some long tool output text '.repeat(4))

  test('cacheSize grows in model mode, stays 0 in approx mode, and a warm call gives identical results', () => {
    const model = new ContextEditor({ tokenCountMethod: 'model', trigger: { tokens: 50 }, keep: { messages: 2 } })
    const approx = new ContextEditor({ trigger: { tokens: 50 }, keep: { messages: 2 } })
    assert.equal(model.cacheSize, 0)
    const history = []
    for (const [i, t] of longTexts(10, 'a').entries()) {
      history.push(new AIMessage({ content: '', tool_calls: [{ id: `c${i}`, name: 'read', args: { i } }] }))
      history.push(new ToolMessage({ content: t, tool_call_id: `c${i}`, name: 'read' }))
    }
    const cold = model.edit(history)
    const afterCold = model.cacheSize
    assert.ok(afterCold >= 10, `cache holds the long strings (${afterCold})`)
    const warm = model.edit(history)
    assert.deepStrictEqual(warm.report, cold.report)
    assert.deepStrictEqual(snapshot(warm.messages), snapshot(cold.messages))
    assert.equal(model.cacheSize, afterCold, 'a warm call adds nothing')
    // A growing conversation only adds what is new.
    history.push(new HumanMessage(longTexts(1, 'new')[0]))
    model.edit(history)
    assert.equal(model.cacheSize, afterCold + 1)
    approx.edit(history)
    assert.equal(approx.cacheSize, 0)
    model.clearCache()
    assert.equal(model.cacheSize, 0)
    assert.deepStrictEqual(model.edit(history.slice(0, -1)).report, cold.report, 'same result after clearing the cache')
  })

  test('the cache is bounded by tokenCacheSize (eviction) and 0 disables it', () => {
    const small = new ContextEditor({ tokenCountMethod: 'model', tokenCacheSize: 8 })
    const uncached = new ContextEditor({ tokenCountMethod: 'model', tokenCacheSize: 0 })
    const texts = longTexts(100, 'b')
    let max = 0
    for (const t of texts) {
      const msgs = [{ role: 'user', content: t }]
      const a = small.countTokens(msgs)
      max = Math.max(max, small.cacheSize)
      assert.deepStrictEqual(a, uncached.countTokens(msgs))
    }
    assert.ok(max <= 8, `cache size ${max} exceeds the bound`)
    assert.ok(max >= 4)
    assert.equal(uncached.cacheSize, 0)
    // Counts stay right after evictions.
    const all = texts.map((t) => ({ role: 'user', content: t }))
    assert.deepStrictEqual(small.countTokens(all), uncached.countTokens(all))
    assert.ok(small.cacheSize <= 8)
  })
})
