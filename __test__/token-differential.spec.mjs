// Differential test of the exact counter: every string of a generated agent conversation (code,
// JSON, logs, markdown, CJK) and thousands of fuzzed strings are counted through the public API
// (`ContextEditor.countTokens`, model mode) and compared with plain tiktoken-rs
// (`encode_ordinary(text).len()`, the native `__referenceCountTokens` hook), for o200k_base,
// o200k_harmony and cl100k_base. (js-tiktoken is not used as a second oracle: its JavaScript regex
// splits some of the fuzzed strings differently from tiktoken's, about 1 % of them.)

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { ContextEditor } from '../dist/index.js'
import { __referenceCountTokens } from '../dist/internal.js'
import { generateConversation, rng } from '../benchmark/generate.mjs'

const ENCODINGS = ['o200k_base', 'o200k_harmony', 'cl100k_base']
// Model-mode count of a user message: 3 framing tokens + the `user` role token + the content.
const OVERHEAD = 4

/** Our count of each string, through the public API, in one call (so large batches use both cores). */
function ours(texts, encoding, options = {}) {
  const editor = new ContextEditor({ tokenCountMethod: 'model', encoding, ...options })
  return editor.countTokens(texts.map((content) => ({ role: 'user', content }))).messages.map((n) => n - OVERHEAD)
}

function assertSameCounts(texts, encoding, got, want, label) {
  const bad = []
  for (let i = 0; i < texts.length; i++) if (got[i] !== want[i]) bad.push(i)
  assert.equal(
    bad.length,
    0,
    `${label} (${encoding}): ${bad.length} of ${texts.length} strings differ, e.g. ${JSON.stringify(texts[bad[0]])?.slice(0, 200)}: ours ${got[bad[0]]}, reference ${want[bad[0]]}`,
  )
}

/** The contents and tool-call arguments of a generated 600-message conversation (~1.2 MB). */
function conversationTexts() {
  const { messages } = generateConversation({ seed: 5, messages: 600 })
  const texts = messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
  for (const m of messages) if (m.tool_calls?.length) texts.push(JSON.stringify(m.tool_calls.map((c) => c.args)))
  return texts
}

/** Fragments on the edges of the pre-tokenizer patterns and of BPE. */
const FRAGMENTS = [
  'a',
  'Z',
  'the',
  ' the',
  'The',
  'HTTP',
  'Server',
  "'s",
  "'S",
  "'ſ",
  "'t",
  "'T",
  "'re",
  "'RE",
  "'Re",
  "'ve",
  "'VE",
  "'m",
  "'M",
  "'ll",
  "'LL",
  "'lL",
  "'d",
  "'D",
  "'",
  "''",
  "don't",
  "I'M",
  '0',
  '7',
  '42',
  '123',
  '2024',
  '3.14159',
  '1,000,000',
  '٣٤٥',
  'Ⅻ',
  '½',
  '中',
  '文本',
  '日本語',
  'ー',
  '한국어',
  'ภาษาไทย',
  'العربية',
  '\u064b',
  'é',
  'e\u0301',
  '\u0301',
  '\u20dd',
  'ǅ',
  'ʰ',
  '😀',
  '👍🏽',
  '👨\u200d👩\u200d👧',
  '\u200d',
  'ß',
  'İ',
  'ﬀ',
  'Ω',
  '\u{1d400}',
  '\u{10428}',
  '\ue000',
  '\ufffd',
  ' ',
  '  ',
  '    ',
  '\t',
  '\n',
  '\n\n',
  '\r',
  '\r\n',
  '\r\n\r\n',
  '\u00a0',
  '\u3000',
  '\u0085',
  '\u2028',
  '\u000b',
  '\u000c',
  '\u0000',
  '\u001f',
  '.',
  ',',
  '!',
  '?',
  '/',
  '//',
  '-',
  '--',
  '->',
  '=>',
  '"',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '_',
  '$',
  '#',
  '@',
  '*',
  '`',
  '```',
  '<|endoftext|>',
  '<|im_start|>',
  'fn main() {',
  'let x = vec![1, 2, 3];',
  '{"key": "value"}',
  'https://example.com/a/b?c=d',
  'C:\\Users\\x',
  '€',
  '£',
  '±',
  '→',
  'supercalifragilisticexpialidocious',
]

/** Seeded strings: fragment mixes, random code points (any plane) and long runs. */
function fuzzedTexts(seed, n) {
  const r = rng(seed)
  const texts = []
  for (let i = 0; i < n; i++) {
    const kind = i % 4
    let t = ''
    if (kind === 0 || kind === 1) {
      const parts = r.int(0, 40)
      for (let k = 0; k < parts; k++) t += r.pick(FRAGMENTS)
    } else if (kind === 2) {
      const len = r.int(0, 30)
      for (let k = 0; k < len; k++) {
        const cp = r.next() < 0.6 ? r.int(0x20, 0x7e) : r.next() < 0.8 ? r.int(0x80, 0xffff) : r.int(0x10000, 0x10ffff)
        // Surrogate halves are not scalar values (the addon would see U+FFFD); keep the test about counting.
        t += cp >= 0xd800 && cp <= 0xdfff ? ' ' : String.fromCodePoint(cp)
      }
    } else {
      t = r.pick(FRAGMENTS).repeat(r.int(1, 150)) + r.pick(['', ' ', '\n', 'x', '  '])
    }
    texts.push(t)
  }
  return texts
}

describe('exact token counts equal tiktoken-rs', () => {
  const corpus = conversationTexts()
  const fuzzed = fuzzedTexts(20251122, 4000)

  for (const encoding of ENCODINGS) {
    test(`every string of a generated conversation, ${encoding}`, () => {
      assert.ok(corpus.join('').length > 1_000_000, 'large enough for the multi-threaded path')
      const want = __referenceCountTokens(corpus, encoding)
      assertSameCounts(corpus, encoding, ours(corpus, encoding), want, 'conversation, cold')
      assertSameCounts(corpus, encoding, ours(corpus, encoding, { tokenCacheSize: 0 }), want, 'conversation, no message cache')
    })

    test(`fuzzed strings, ${encoding}`, () => {
      const want = __referenceCountTokens(fuzzed, encoding)
      assertSameCounts(fuzzed, encoding, ours(fuzzed, encoding), want, 'fuzzed')
      // One string per call as well (the single-string path, not the batch).
      const editor = new ContextEditor({ tokenCountMethod: 'model', encoding, tokenCacheSize: 0 })
      const one = fuzzed.slice(0, 300).map((content) => editor.countTokens([{ role: 'user', content }]).messages[0] - OVERHEAD)
      assertSameCounts(fuzzed.slice(0, 300), encoding, one, want.slice(0, 300), 'fuzzed, one per call')
    })
  }

  test('the reference hook rejects an unknown encoding', () => {
    assert.throws(() => __referenceCountTokens(['x'], 'nope'), /unknown encoding/)
  })
})
