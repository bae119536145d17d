// An image costs the same in every format: the same picture, sent as a LangChain / OpenAI chat
// `image_url`, a Responses `input_image`, an AI SDK `image` part (base64, bytes, data URL) or image
// `file` part, a tool output's `media` entry, or a Mastra `file` part or attachment, adds the
// tokens of its size by the same formula; none is dropped from the count, none priced as an image
// of unknown size when its header says how big it is.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { ContextEditor, imageTokens } from '../dist/index.js'

/** A PNG header for a `width` × `height` image (all the counter reads of it), in base64. */
function png(width, height) {
  const b = Buffer.alloc(33)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0)
  b.writeUInt32BE(13, 8)
  b.write('IHDR', 12, 'latin1')
  b.writeUInt32BE(width, 16)
  b.writeUInt32BE(height, 20)
  b.writeUInt8(8, 24)
  b.writeUInt8(6, 25)
  return b
}

const mastra = (content) => ({ id: 'u1', role: 'user', createdAt: new Date(0), content: { format: 2, ...content } })

/** The same user message, text and one image, in each format's words; and the text alone. */
function messages(bytes) {
  const b64 = bytes.toString('base64')
  const url = `data:image/png;base64,${b64}`
  return {
    'LangChain image_url': [
      [
        {
          type: 'human',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
      [{ type: 'human', content: 'see' }],
    ],
    'OpenAI chat image_url': [
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image_url', image_url: { url } },
          ],
        },
      ],
      [{ role: 'user', content: 'see' }],
    ],
    'Responses input_image': [
      [
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'see' },
            { type: 'input_image', image_url: url, detail: 'auto' },
          ],
        },
      ],
      [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'see' }] }],
    ],
    'AI SDK image (base64)': [
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image', image: b64, mediaType: 'image/png' },
          ],
        },
      ],
      [{ role: 'user', content: 'see' }],
    ],
    'AI SDK image (bytes)': [
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image', image: new Uint8Array(bytes) },
          ],
        },
      ],
      [{ role: 'user', content: 'see' }],
    ],
    'AI SDK image (data URL)': [
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image', image: url },
          ],
        },
      ],
      [{ role: 'user', content: 'see' }],
    ],
    'AI SDK file (bytes)': [
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'file', data: bytes, mediaType: 'image/png' },
          ],
        },
      ],
      [{ role: 'user', content: 'see' }],
    ],
    'Mastra file part': [
      [
        mastra({
          parts: [
            { type: 'text', text: 'see' },
            { type: 'file', data: b64, mimeType: 'image/png' },
          ],
        }),
      ],
      [mastra({ parts: [{ type: 'text', text: 'see' }] })],
    ],
    'Mastra attachment': [
      [mastra({ parts: [{ type: 'text', text: 'see' }], experimental_attachments: [{ url, contentType: 'image/png', name: 'a.png' }] })],
      [mastra({ parts: [{ type: 'text', text: 'see' }] })],
    ],
  }
}

test('one image adds the tokens of its size by the same formula in every format (none dropped, none unsized)', () => {
  const editor = new ContextEditor({})
  for (const [w, h] of [
    [1, 1],
    [1280, 800],
    [3000, 2000],
  ]) {
    const expected = imageTokens(w, h, 'openai')
    for (const [name, [withImage, textOnly]] of Object.entries(messages(png(w, h)))) {
      const added = editor.countTokens(withImage).total - editor.countTokens(textOnly).total
      assert.equal(added, expected, `${name} ${w}×${h}`)
    }
  }
})

test("an AI SDK tool output's image is counted by its size", () => {
  const b64 = png(1280, 800).toString('base64')
  const media = { type: 'media', data: b64, mediaType: 'image/png' }
  const result = (value) => ({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'shot', output: { type: 'content', value } }],
  })
  const call = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'shot', input: {} }] }
  const editor = new ContextEditor({})
  const text = { type: 'text', text: 'the screen' }
  const added =
    editor.countTokens([{ role: 'user', content: 'go' }, call, result([text, media])]).total -
    editor.countTokens([{ role: 'user', content: 'go' }, call, result([text])]).total
  assert.equal(added, imageTokens(1280, 800, 'openai'))
})

test('Responses: a computer-use screenshot and a generated image are counted as images of their size, not as base64 text', () => {
  // A real screenshot's bytes: a header, then a large body that a text count would charge for.
  const shot = Buffer.concat([png(1280, 800), Buffer.alloc(150_000, 7)]).toString('base64')
  const editor = new ContextEditor({})
  const turn = (extra) => [
    { type: 'message', role: 'user', content: 'open the site' },
    { type: 'computer_call', id: 'cu_1', call_id: 'c1', action: { type: 'screenshot' }, pending_safety_checks: [], status: 'completed' },
    ...extra,
  ]
  const bare = editor.countTokens(turn([{ type: 'computer_call_output', call_id: 'c1', output: { type: 'computer_screenshot' } }])).total
  const withShot = editor.countTokens(
    turn([{ type: 'computer_call_output', call_id: 'c1', output: { type: 'computer_screenshot', image_url: `data:image/png;base64,${shot}` } }]),
  ).total
  assert.equal(withShot - bare, imageTokens(1280, 800, 'openai'))
  const generated = editor.countTokens(turn([{ type: 'image_generation_call', id: 'ig_1', status: 'completed', result: shot }])).total
  const noImage = editor.countTokens(turn([{ type: 'image_generation_call', id: 'ig_1', status: 'completed' }])).total
  assert.equal(generated - noImage, imageTokens(1280, 800, 'openai'))
})

test('Responses: the items holding images are sent back as they were when the turn is edited', () => {
  const shot = `data:image/png;base64,${png(1280, 800).toString('base64')}`
  const input = [
    { type: 'message', role: 'user', content: 'open the site' },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'e1' },
    { type: 'computer_call', id: 'cu_1', call_id: 'c1', action: { type: 'screenshot' }, pending_safety_checks: [], status: 'completed' },
    { type: 'computer_call_output', call_id: 'c1', output: { type: 'computer_screenshot', image_url: shot } },
    { type: 'message', role: 'user', content: 'thanks' },
    { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'e2' },
    { type: 'message', role: 'assistant', id: 'msg_2', content: [{ type: 'output_text', text: 'done' }] },
  ]
  const { messages: out } = new ContextEditor({ edits: [{ type: 'clear_thinking' }] }).edit(input)
  assert.equal(out.length, 6)
  assert.equal(out[1].type, 'computer_call')
  assert.equal(out[2], input[3])
  assert.equal(out[5], input[6])
})

test('Mastra: an image the assistant made (a file part) is counted, and the message is written back with it', () => {
  const b64 = png(1280, 800).toString('base64')
  const assistant = (parts) => ({ id: 'a1', role: 'assistant', createdAt: new Date(0), content: { format: 2, parts } })
  const user = { id: 'u1', role: 'user', createdAt: new Date(0), content: { format: 2, parts: [{ type: 'text', text: 'draw' }] } }
  const editor = new ContextEditor({})
  const text = { type: 'text', text: 'here it is' }
  const file = { type: 'file', data: b64, mimeType: 'image/png' }
  const added = editor.countTokens([user, assistant([text, file])]).total - editor.countTokens([user, assistant([text])]).total
  assert.equal(added, imageTokens(1280, 800, 'openai'))
  const withThinking = [
    user,
    assistant([{ type: 'reasoning', reasoning: 'plan', details: [] }, text, file]),
    { ...user, id: 'u2' },
    assistant([{ type: 'reasoning', reasoning: 'p2', details: [] }, text]),
  ]
  const { messages: out } = new ContextEditor({ edits: [{ type: 'clear_thinking' }] }).edit(withThinking, { format: 'mastra' })
  assert.deepEqual(out[1].content.parts, [text, file])
})
