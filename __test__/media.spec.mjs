// clearMedia on a computer-use transcript with 40 screenshots, in LangChain, OpenAI chat, Anthropic
// and AI SDK messages: the newest N stay as they were; each older one becomes a text block naming
// what was there (type and size, read from the PNG header); nothing else changes, the input is not
// mutated and unchanged messages are the caller's objects. Image tokens follow each provider's
// documented formula (OpenAI's tiles, Anthropic's w·h/750).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { clearMedia, imageTokens } from '../dist/index.js'

/** Base64 of a PNG that says it is `width` × `height` (signature and IHDR, then some bytes). */
function png(width, height, salt) {
  const b = Buffer.alloc(64, salt)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(b, 0)
  b.write('IHDR', 12, 'latin1')
  b.writeUInt32BE(width, 16)
  b.writeUInt32BE(height, 20)
  return b.toString('base64')
}

const N = 40
const shot = (k) => png(1280, 800, k)

/** The four transcripts: each step is a click (a tool call) whose result is a screenshot. */
const formats = {
  langchain: () => {
    const out = [new HumanMessage('Book a flight.')]
    for (let k = 0; k < N; k++) {
      out.push(new AIMessage({ content: '', tool_calls: [{ id: `c${k}`, name: 'computer', args: { action: 'screenshot' } }] }))
      out.push(
        new ToolMessage({
          tool_call_id: `c${k}`,
          content: [
            { type: 'text', text: `step ${k}` },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${shot(k)}` } },
          ],
        }),
      )
    }
    return out
  },
  openai: () => {
    const out = [{ role: 'user', content: 'Book a flight.' }]
    for (let k = 0; k < N; k++) {
      out.push({ role: 'assistant', content: `step ${k}` })
      out.push({
        role: 'user',
        content: [
          { type: 'text', text: `screen ${k}` },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${shot(k)}`, detail: 'high' } },
        ],
      })
    }
    return out
  },
  anthropic: () => {
    const out = [{ role: 'user', content: 'Book a flight.' }]
    for (let k = 0; k < N; k++) {
      out.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${k}`, name: 'computer', input: { action: 'screenshot' } }] })
      out.push({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: `t${k}`, content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: shot(k) } }] },
        ],
      })
    }
    return out
  },
  'ai-sdk': () => {
    const out = [{ role: 'user', content: [{ type: 'text', text: 'Book a flight.' }] }]
    for (let k = 0; k < N; k++) {
      out.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `t${k}`, toolName: 'computer', input: {} }] })
      out.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `t${k}`,
            toolName: 'computer',
            output: { type: 'content', value: [{ type: 'media', data: shot(k), mediaType: 'image/png' }] },
          },
        ],
      })
    }
    return out
  },
}

describe('clearMedia keeps the newest screenshots in every format', () => {
  for (const [name, make] of Object.entries(formats)) {
    test(`${name}: 40 screenshots, keep 5`, () => {
      const input = make()
      const before = JSON.stringify(input)
      const { messages, report } = clearMedia(input, { keep: { media: 5 } })
      assert.equal(JSON.stringify(input), before, 'the input is not mutated')
      assert.equal(messages.length, input.length)
      assert.equal(report.kept, 5)
      assert.equal(report.cleared.length, N - 5)
      assert.equal(report.clearedTokens, (N - 5) * 1105)
      const text = JSON.stringify(messages)
      // The 35 oldest are gone, each named; the 5 newest are there byte for byte.
      for (let k = 0; k < N; k++) assert.equal(text.includes(shot(k)), k >= N - 5, `screenshot ${k}`)
      assert.equal(text.split('[image removed: image/png 1280×800]').length - 1, N - 5)
      // Messages without media, and the newest ones, are the caller's objects.
      messages.forEach((m, i) => {
        const cleared = report.cleared.some((c) => c.index === i)
        assert.equal(m === input[i], !cleared, `message ${i}`)
      })
      // The other blocks of a changed message stay.
      if (name === 'langchain') {
        assert.ok(messages[2] instanceof ToolMessage)
        assert.equal(messages[2].tool_call_id, 'c0')
        assert.deepEqual(messages[2].content[0], { type: 'text', text: 'step 0' })
      }
    })
  }

  test('keep by tokens: the newest that fit', () => {
    const { report } = clearMedia(formats.anthropic(), { keep: { tokens: 1366 * 3 + 10 }, formula: 'anthropic' })
    assert.equal(report.kept, 3)
    assert.equal(report.cleared[0].tokens, 1366)
  })
})

test("image tokens: OpenAI's tiles and Anthropic's w·h/750, as their docs give them", () => {
  assert.equal(imageTokens(1024, 1024, 'openai'), 765)
  assert.equal(imageTokens(2048, 4096, 'openai'), 1105)
  assert.equal(imageTokens(4096, 8192, 'openai', 'low'), 85)
  assert.equal(imageTokens(1092, 1092, 'anthropic'), 1590)
  assert.equal(imageTokens(1000, 1000, 'anthropic'), 1334)
  // Past 1568 px on the long edge the image is scaled down first.
  assert.equal(imageTokens(3136, 3136, 'anthropic'), imageTokens(1568, 1568, 'anthropic'))
})

test('the editor counts images by the formula of their provider when the size is in the data', async () => {
  const { ContextEditor } = await import('../dist/index.js')
  const editor = new ContextEditor({ tokenCountMethod: 'model' })
  const text = { type: 'text', text: 'look' }
  const count = (content) => editor.countTokens([{ role: 'user', content }]).total
  const base = count([text])
  const png1280 = `data:image/png;base64,${png(1280, 800, 1)}`
  assert.equal(count([text, { type: 'image_url', image_url: { url: png1280 } }]) - base, 1105, 'OpenAI tiles')
  assert.equal(count([text, { type: 'image_url', image_url: { url: png1280, detail: 'low' } }]) - base, 85, 'detail low')
  assert.equal(count([text, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(1280, 800, 2) } }]) - base, 1366, 'Anthropic w*h/750')
  assert.equal(count([text, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }]) - base, 765, 'size unknown')
  // Two images: each by its own size.
  assert.equal(
    count([text, { type: 'image_url', image_url: { url: png1280 } }, { type: 'image_url', image_url: { url: `data:image/png;base64,${png(512, 512, 3)}` } }]) -
      base,
    1105 + 255,
  )
})

test('sizes are read from the headers of screenshot-sized data: PNG, GIF, WebP, and a JPEG whose frame header follows a 40 KB EXIF segment', () => {
  const big = (head) => Buffer.concat([head, Buffer.alloc(150_000, 7)]).toString('base64')
  const pngHead = Buffer.alloc(24)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(pngHead)
  pngHead.write('IHDR', 12, 'latin1')
  pngHead.writeUInt32BE(1920, 16)
  pngHead.writeUInt32BE(1080, 20)
  const gifHead = Buffer.from('GIF89a\x00\x00\x00\x00', 'latin1')
  gifHead.writeUInt16LE(320, 6)
  gifHead.writeUInt16LE(200, 8)
  const webpHead = Buffer.alloc(30)
  webpHead.write('RIFF', 0, 'latin1')
  webpHead.write('WEBPVP8X', 8, 'latin1')
  webpHead.writeUIntLE(1279, 24, 3)
  webpHead.writeUIntLE(799, 27, 3)
  // SOI, then APP1 (EXIF) of 40,000 bytes, then SOF0 with height 900 and width 1600.
  const exif = Buffer.alloc(40_004)
  exif.writeUInt16BE(0xffd8, 0)
  exif.writeUInt16BE(0xffe1, 2)
  exif.writeUInt16BE(40_000, 4)
  const sof = Buffer.from([0xff, 0xc0, 0, 17, 8, 0, 0, 0, 0, 3])
  sof.writeUInt16BE(900, 5)
  sof.writeUInt16BE(1600, 7)
  const images = [
    ['image/png', big(pngHead), 'image/png 1920×1080'],
    ['image/gif', big(gifHead), 'image/gif 320×200'],
    ['image/webp', big(webpHead), 'image/webp 1280×800'],
    ['image/jpeg', big(Buffer.concat([exif, sof])), 'image/jpeg 1600×900'],
  ]
  const messages = images.map(([mime, data]) => ({ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:${mime};base64,${data}` } }] }))
  const { report } = clearMedia([...messages, ...messages], { keep: { media: 4 } })
  assert.deepEqual(
    report.cleared.map((c) => c.what),
    images.map(([, , what]) => what),
  )
  // Counted by their sizes, not as images of unknown size.
  assert.deepEqual(
    report.cleared.map((c) => c.tokens),
    [imageTokens(1920, 1080), imageTokens(320, 200), imageTokens(1280, 800), imageTokens(1600, 900)],
  )
})
