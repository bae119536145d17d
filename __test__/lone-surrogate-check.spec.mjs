// The lone-surrogate check every string of a message goes through (ts/wire/shapes.ts `isWellFormed`):
// long strings that look two-byte are checked natively (src/text.rs), the rest by V8. Whichever
// path a string takes, the answer must be V8's `String.prototype.isWellFormed`, and a message holding
// a lone surrogate anywhere must be `INVALID_MESSAGE` naming it, in every mode.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor, ContextEditorError } from '../dist/index.js'
import { isWellFormed } from '../dist/wire/shapes.js'
import { Rng } from './support/prng.mjs'

const HIGH = [0xd800, 0xdbff, 0xd83d]
const LOW = [0xdc00, 0xdfff, 0xde00]
const TWO_BYTE = ['这', '個', 'ü', 'é', 'й', 'ا', '😀', 'x', ' ', '\n']
const ONE_BYTE = ['a', 'b', ' ', '\n', '{', 'ÿ', 'é']

/** A string of `n` units from `alphabet`, with `lone` lone surrogates spliced in at random places. */
function drawn(rand, n, alphabet, lone) {
  let s = ''
  while (s.length < n) s += alphabet[Math.floor(rand() * alphabet.length)]
  const units = s.slice(0, n).split('')
  for (let k = 0; k < lone; k++) {
    const at = Math.floor(rand() * (units.length + 1))
    const pick = rand() < 0.5 ? HIGH : LOW
    units.splice(at, 0, String.fromCharCode(pick[Math.floor(rand() * pick.length)]))
  }
  return units.join('')
}

describe('isWellFormed agrees with String.prototype.isWellFormed', () => {
  test('seeded strings around every threshold, one-byte and two-byte, with 0 to 3 lone surrogates', () => {
    const rng = new Rng(20261128)
    const rand = () => rng.next()
    const lengths = [0, 1, 31, 32, 33, 63, 64, 65, 255, 256, 511, 512, 513, 1000, 1023, 1024, 1025, 4096, 5000, 40_000]
    let checked = 0
    let bad = 0
    for (const n of lengths) {
      for (const alphabet of [ONE_BYTE, TWO_BYTE]) {
        for (let lone = 0; lone <= 3; lone++) {
          for (let r = 0; r < 6; r++) {
            const s = drawn(rand, n, alphabet, lone)
            assert.equal(isWellFormed(s), s.isWellFormed(), `length ${s.length}, ${lone} lone, ${JSON.stringify(s.slice(0, 40))}`)
            checked++
            if (!s.isWellFormed()) bad++
          }
        }
      }
    }
    assert.ok(checked > 900 && bad > 300, `${checked} strings, ${bad} of them with a lone surrogate`)
  })

  test('mostly-ASCII text with a short run of Chinese anywhere (found by a probe or not), with and without a lone surrogate', () => {
    const rng = new Rng(20261129)
    const rand = () => rng.next()
    // Past 2^21 units (64 Ki probes) the stride widens and a short run falls between probes.
    for (const n of [512, 700, 5000, 40_000, 2 ** 21 - 1, 2 ** 21 + 1, 3_000_000]) {
      for (let r = 0; r < (n > 40_000 ? 8 : 40); r++) {
        const run = '请注意并发'.slice(0, 1 + Math.floor(rand() * 5))
        const at = Math.floor(rand() * n)
        let s = 'a'.repeat(at) + run + 'b'.repeat(n - at)
        if (r % 2 === 1) {
          const lone = Math.floor(rand() * s.length)
          s = s.slice(0, lone) + String.fromCharCode(rand() < 0.5 ? 0xd800 : 0xdc00) + s.slice(lone)
        }
        assert.equal(isWellFormed(s), s.isWellFormed(), `length ${s.length}, run at ${at}, lone: ${r % 2 === 1}`)
      }
    }
  })

  test('a lone surrogate at every position of a long two-byte string, and pairs split across blocks', () => {
    const base = '这个函数负责解析配置文件'.repeat(60) // 720 units, two-byte
    for (let at = 0; at <= base.length; at += 7) {
      for (const u of [0xd800, 0xdfff]) {
        const s = base.slice(0, at) + String.fromCharCode(u) + base.slice(at)
        assert.equal(isWellFormed(s), false, `${u.toString(16)} at ${at}`)
      }
      const paired = base.slice(0, at) + '😀' + base.slice(at)
      assert.equal(isWellFormed(paired), true, `a pair at ${at}`)
    }
    // Runs of surrogates: two lows, two highs, a high before a pair, a pair before a low.
    for (const run of ['\udc00\udc00', '\ud800\ud800', '\ud800\ud83d\ude00', '\ud83d\ude00\ude00']) {
      for (const at of [0, 31, 32, 400, base.length]) {
        const s = base.slice(0, at) + run + base.slice(at)
        assert.equal(isWellFormed(s), false, `${JSON.stringify(run)} at ${at}`)
      }
    }
    // A high surrogate as the last unit, and a low one as the first.
    assert.equal(isWellFormed(base + '\ud83d'), false)
    assert.equal(isWellFormed('\ude00' + base), false)
  })

  test('a two-byte string whose probes land on Latin-1 characters only still finds its lone surrogate', () => {
    // Two-byte (it holds one CJK character), but every eighth character is ASCII.
    const s = 'a'.repeat(600) + '这' + 'b'.repeat(600) + '\udc00' + 'c'.repeat(50)
    assert.equal(isWellFormed(s), false)
    assert.equal(isWellFormed(s.replace('\udc00', '')), true)
  })

  test('the first unit past U+00FF is where the check starts: a surrogate there, the rest from it short or long', () => {
    // Latin-1 text (one-byte alone, two-byte once joined to what follows) before the first unit past
    // U+00FF; the rest from there is checked by V8 below 512 units and natively from 512.
    const latin = 'aé{ÿ\n'.repeat(300)
    for (const before of [0, 1, 511, 512, 1500]) {
      for (const restLength of [1, 2, 511, 512, 513, 2000]) {
        const tail = '这'.repeat(restLength)
        const cases = [
          ['a lone low surrogate first', '\udc00' + tail.slice(1), false],
          ['a lone high surrogate first', '\ud800' + tail.slice(1), false],
          ['a pair first', '😀' + tail.slice(2), true],
          ['a lone high surrogate last', tail.slice(0, -1) + '\ud83d', false],
          ['no surrogate', tail, true],
        ]
        for (const [what, rest, want] of cases) {
          const s = latin.slice(0, before) + rest
          assert.equal(isWellFormed(s), want, `${what}: ${before} Latin-1 units, then ${rest.length}`)
          assert.equal(isWellFormed(s), s.isWellFormed(), `${what}: ${before} Latin-1 units, then ${rest.length}`)
        }
      }
    }
    // A slice of a two-byte string with nothing past U+00FF in it: no surrogate can be there.
    const wide = ('这' + 'ü'.repeat(2000)).slice(1)
    assert.equal(isWellFormed(wide), true)
  })

  test('a string checked natively in pieces: a pair across a cut, a surrogate alone at one, after Latin-1 text or not', () => {
    // Pieces of 2^20 - 1 units from the first unit past U+00FF (ts/wire/shapes.ts `NATIVE_PIECE`).
    const piece = 2 ** 20 - 1
    for (const prefix of ['', 'a'.repeat(700)]) {
      const body = '这'.repeat(2 ** 21 + 50)
      for (const cut of [piece, 2 * piece]) {
        const at = prefix.length + cut
        const put = (k, unit) => {
          const s = prefix + body
          return s.slice(0, k) + unit + s.slice(k + unit.length)
        }
        const cases = [
          ['a pair across the cut', put(at - 1, '😀'), true],
          ['a pair from the cut', put(at, '😀'), true],
          ['a lone low surrogate at the cut', put(at, '\udc00'), false],
          ['a lone high surrogate before the cut', put(at - 1, '\ud800'), false],
          ['a lone high surrogate at the cut', put(at, '\ud800'), false],
          ['a lone low surrogate after the cut', put(at + 1, '\udfff'), false],
          ['two highs across the cut', put(at - 1, '\ud800\ud800'), false],
        ]
        for (const [what, s, want] of cases) {
          assert.equal(isWellFormed(s), want, `${what} (${prefix.length} Latin-1 units first, cut at ${at})`)
        }
      }
      assert.equal(isWellFormed(prefix + body + '\ud83d'), false, 'a lone high surrogate last')
    }
  })

  test('a string of more than a million units (its buffer is not kept)', () => {
    const big = '这'.repeat(1_200_000)
    assert.equal(isWellFormed(big), true)
    assert.equal(isWellFormed(big + '\ud800'), false)
    assert.equal(isWellFormed('\ud800' + big), false)
  })
})

describe('a lone surrogate in a long two-byte string is INVALID_MESSAGE naming the message and field', () => {
  const long = (extra) => '这个函数负责解析配置文件并返回默认值。'.repeat(80) + extra
  const history = (result) => [
    new HumanMessage('read it'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read', args: { path: long('') } }] }),
    new ToolMessage({ tool_call_id: 'c1', content: result }),
  ]
  const cases = [
    ['a tool result', () => history(long('\ud800')), 2, 'content'],
    ['a text block', () => [new HumanMessage({ content: [{ type: 'text', text: long('\udc00 tail') }] })], 0, 'content[0].text'],
    [
      'reasoning kept in additional_kwargs',
      () => [new AIMessage({ content: 'ok', additional_kwargs: { reasoning_content: long('\udfff') } })],
      0,
      'additional_kwargs.reasoning_content',
    ],
  ]
  for (const method of ['approx', 'model']) {
    for (const [what, make, index, path] of cases) {
      test(`${what}, ${method} mode`, () => {
        const editor = new ContextEditor({ tokenCountMethod: method, model: 'gpt-4o', trigger: { tokens: 10 } })
        const messages = make()
        assert.throws(
          () => editor.edit(messages),
          (e) =>
            e instanceof ContextEditorError &&
            e.code === 'INVALID_MESSAGE' &&
            e.messageIndex === index &&
            e.path === path &&
            /lone UTF-16 surrogate/.test(e.message),
        )
      })
    }
  }

  test('tool-call arguments holding one cross as JSON, where JSON.stringify escapes it (\\ud83d): accepted', () => {
    const messages = [new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'read', args: { path: long('\ud83d') } }] })]
    for (const method of ['approx', 'model']) {
      const { report } = new ContextEditor({ tokenCountMethod: method, model: 'gpt-4o' }).edit(messages)
      assert.ok(report.tokensBefore > 0)
    }
  })

  test('the same history without the lone surrogate is edited', () => {
    const editor = new ContextEditor({ trigger: { tokens: 10 }, keep: { messages: 0 } })
    const { report } = editor.edit(history(long('😀')))
    assert.equal(report.cleared.length, 1)
  })
})

describe('a lone surrogate in a long system prompt or tool definition is INVALID_CONTEXT naming it', () => {
  // Long and two-byte: past the length from which the check searches and checks natively.
  const long = (extra) => '这个函数负责解析配置文件并返回默认值。'.repeat(80) + extra
  const cases = [
    ['the system prompt', (bad) => ({ systemPrompt: long(bad ? '\ud800' : '') }), 'systemPrompt'],
    ['a tool definition given as text', (bad) => ({ tools: [long(bad ? '\udc00 tail' : ' tail')] }), 'tools[0]'],
  ]
  for (const method of ['approx', 'model']) {
    for (const [what, context, path] of cases) {
      test(`${what}, ${method} mode`, () => {
        const editor = new ContextEditor({ tokenCountMethod: method, model: 'gpt-4o' })
        const messages = [new HumanMessage('hi')]
        assert.ok(editor.countTokens(messages, context(false)).total > 100)
        assert.throws(
          () => editor.edit(messages, context(true)),
          (e) => e instanceof ContextEditorError && e.code === 'INVALID_CONTEXT' && e.path === path && /lone UTF-16 surrogate/.test(e.message),
        )
      })
    }
  }

  // The last prompt found well-formed is remembered (an agent sends the same one on every call).
  test('a prompt accepted on the call before lets no other through, even of its length or from another editor', () => {
    const good = long('尾')
    const bad = long('\ud800')
    assert.equal(good.length, bad.length)
    const messages = [new HumanMessage('hi')]
    const [first, second] = [new ContextEditor(), new ContextEditor()]
    for (let round = 0; round < 2; round++) {
      assert.ok(first.edit(messages, { systemPrompt: good }).report.tokensBefore > 100)
      for (const editor of [first, second]) {
        assert.throws(
          () => editor.edit(messages, { systemPrompt: bad }),
          (e) => e instanceof ContextEditorError && e.code === 'INVALID_CONTEXT' && e.path === 'systemPrompt',
        )
      }
      // An equal string made anew is the same text: accepted.
      assert.ok(second.edit(messages, { systemPrompt: [...good].join('') }).report.tokensBefore > 100)
    }
  })
})
