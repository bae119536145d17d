// GLM-4 (issue 16): no npm package carries its tokenizer.json, so a user gives the file's path. This
// checks the code path that takes: a tokenizer.json by path with a GLM-4 model name counts with that
// file and GLM-4's chat framing, and a GLM-4 model without the path falls back to o200k_base and says
// so. The tokenizer here is SYNTHETIC (made up for this test, not GLM-4's vocabulary): GLM-4's special
// tokens as added tokens, and one token per character for everything else, so every character of
// framing the template writes is counted and a framing that drifts by one character fails.
// GLM_TEMPLATE is the chat template of THUDM/glm-4-9b-chat (tokenizer_config.json), without its
// tool-definition preamble (our count adds tool definitions as their JSON, see docs/token-counting.md).

import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'

import { Template } from '@huggingface/jinja'

import { ContextEditor } from '../dist/index.js'
import { __referenceCountHf } from '../dist/internal.js'

const SPECIAL = ['[gMASK]', '<sop>', '<|system|>', '<|user|>', '<|assistant|>', '<|observation|>']

/** A synthetic tokenizer.json: GLM-4's special tokens, one token per other character. */
function syntheticGlmTokenizer() {
  const vocab = { '[UNK]': 0 }
  SPECIAL.forEach((t, i) => (vocab[t] = i + 1))
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content, i) => ({ id: i + 1, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: null,
    pre_tokenizer: { type: 'Split', pattern: { Regex: '[\\s\\S]' }, behavior: 'Isolated', invert: false },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: '[UNK]' },
  }
  const path = join(mkdtempSync(join(tmpdir(), 'glm4-synthetic-')), 'tokenizer.json')
  writeFileSync(path, JSON.stringify(json))
  return path
}

const GLM_TEMPLATE =
  "[gMASK]<sop>{% for item in messages %}{% if item['content'] %}<|{{ item['role'] }}|>{{ item['metadata'] }}\n{{ item['content'] }}{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"

/** OpenAI-format messages as GLM-4's template takes them: tool results as `observation`, each call as an assistant message whose metadata is the tool's name. */
function forGlm(messages) {
  const out = []
  for (const m of messages) {
    if (m.role === 'tool') out.push({ role: 'observation', content: m.content, metadata: '' })
    else if (m.tool_calls) {
      out.push({ role: 'assistant', content: m.content, metadata: '' })
      for (const c of m.tool_calls)
        out.push({
          role: 'assistant',
          metadata: c.function.name,
          content: JSON.stringify(JSON.parse(c.function.arguments), null, 1)
            .replace(/\n */gu, ' ')
            .replace(/([[{]) /gu, '$1')
            .replace(/ ([\]}])/gu, '$1'),
        })
    } else out.push({ ...m, metadata: '' })
  }
  return out
}

const call = (id, name, args) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } })
const CONVERSATIONS = {
  plain: [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: '你好，世界!' },
    { role: 'assistant', content: 'Hi.' },
    { role: 'user', content: 'Again?' },
  ],
  'tool calls and results': [
    { role: 'user', content: 'Weather in Tokyo and Paris?' },
    { role: 'assistant', content: '', tool_calls: [call('a', 'weather', { city: 'Tokyo' }), call('b', 'weather', { city: 'Paris', days: [1, 2] })] },
    { role: 'tool', tool_call_id: 'a', content: '{"temp":12}' },
    { role: 'tool', tool_call_id: 'b', content: '' },
    { role: 'assistant', content: 'Tokyo 12°C.', tool_calls: [call('c', 'log', {})] },
    { role: 'tool', tool_call_id: 'c', content: 'logged' },
  ],
  'empty contents are not rendered': [
    { role: 'system', content: '' },
    { role: 'user', content: 'x' },
    { role: 'assistant', content: '' },
    { role: 'user', content: 'y' },
  ],
}

describe('GLM-4: a tokenizer.json given by path, with the model name', () => {
  const path = syntheticGlmTokenizer()
  const template = new Template(GLM_TEMPLATE)

  test("counts with the file and GLM-4's chat framing, equal to the template's rendering", () => {
    for (const model of ['glm-4-plus', 'THUDM/glm-4-9b-chat', 'glm-z1-air']) {
      const editor = new ContextEditor({ tokenCountMethod: 'model', tokenizer: path, model })
      for (const [name, messages] of Object.entries(CONVERSATIONS)) {
        const rendered = template.render({ messages: forGlm(messages), add_generation_prompt: true })
        const count = editor.countTokens(messages)
        assert.equal(count.encoding, path)
        assert.deepEqual(count.warnings, [])
        assert.equal(count.total, __referenceCountHf([rendered], path)[0], `${model}, ${name}: ${JSON.stringify(rendered)}`)
      }
    }
  })

  test('a system prompt beside the messages is a system turn', () => {
    const editor = new ContextEditor({ tokenCountMethod: 'model', tokenizer: path, model: 'glm-4-plus' })
    const messages = CONVERSATIONS.plain.slice(1)
    const rendered = template.render({ messages: forGlm([{ role: 'system', content: 'Be brief.' }, ...messages]), add_generation_prompt: true })
    assert.equal(editor.countTokens(messages, { systemPrompt: 'Be brief.' }).total, __referenceCountHf([rendered], path)[0])
  })

  test('without the path, a GLM-4 model counts with o200k_base and warns tokenizer_not_installed', () => {
    const count = new ContextEditor({ tokenCountMethod: 'model', model: 'glm-4-plus' }).countTokens(CONVERSATIONS.plain)
    assert.equal(count.encoding, 'o200k_base')
    assert.deepEqual(
      count.warnings.map((w) => w.code),
      ['tokenizer_not_installed'],
    )
    assert.match(count.warnings[0].message, /glm4.*tokenizer\.json/)
    assert.equal(count.total, new ContextEditor({ tokenCountMethod: 'model', model: 'gpt-4o' }).countTokens(CONVERSATIONS.plain).total)
  })
})
