// The clear_media edit in a pipeline (`edits: [{ type: 'clear_media', keep, trigger?, placeholder? }]`)
// through ContextEditor.edit / editAsync, on a computer-use transcript with 40 screenshots in the
// four formats: the newest N stay byte for byte, each older one becomes the same short text naming
// what was there, every tool call keeps its result, the caller's messages are never mutated, the
// other edits of the pipeline still run, and its options are checked like every edit's.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { ContextEditor, ContextEditorError } from '../dist/index.js'
import { png, shot, transcripts } from './fixtures/screenshots.mjs'

const N = 40
const PLACEHOLDER = '[image removed: image/png 1280×800]'

/** Call ids asked for and call ids answered, in any of the four formats. */
function pairs(messages) {
  const calls = []
  const results = []
  for (const m of messages) {
    for (const c of m.tool_calls ?? []) calls.push(c.id)
    if (typeof m.tool_call_id === 'string') results.push(m.tool_call_id)
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (b.type === 'tool_use') calls.push(b.id)
      if (b.type === 'tool-call') calls.push(b.toolCallId)
      if (b.type === 'tool_result') results.push(b.tool_use_id)
      if (b.type === 'tool-result') results.push(b.toolCallId)
    }
  }
  return { calls, results }
}

describe('clear_media in edits keeps the newest screenshots, in every format', () => {
  for (const [name, make] of Object.entries(transcripts)) {
    for (const mode of ['edit', 'editAsync']) {
      test(`${name} (${mode}): 40 screenshots, keep 5`, async () => {
        const input = make(N)
        const before = JSON.stringify(input)
        const editor = new ContextEditor({ edits: [{ type: 'clear_media', keep: { media: 5 } }] })
        const { messages, media, report } = await editor[mode](input)
        assert.equal(JSON.stringify(input), before, 'the input is not mutated')
        assert.equal(messages.length, input.length)
        const text = JSON.stringify(messages)
        for (let k = 0; k < N; k++) assert.equal(text.includes(shot(k)), k >= N - 5, `screenshot ${k}`)
        assert.equal(text.split(PLACEHOLDER).length - 1, N - 5, 'each older one named by the same text')
        assert.equal(media.length, 1)
        assert.equal(media[0].kept, 5)
        assert.equal(media[0].cleared.length, N - 5)
        // Pair-safe: every call still has its result, and nothing else was removed.
        assert.deepEqual(pairs(messages), pairs(input))
        // The planned report counts the messages as sent: far fewer tokens than with 40 images.
        const full = new ContextEditor({}).countTokens(input).total
        assert.ok(report.tokensBefore < full - (N - 5) * 700, `${report.tokensBefore} vs ${full}`)
        // The newest messages are the caller's objects.
        assert.equal(messages.at(-1), input.at(-1))
      })
    }
  }
})

test('the other edits of the pipeline run on the result', () => {
  const input = transcripts.langchain(N)
  const editor = new ContextEditor({
    edits: [
      { type: 'clear_media', keep: { media: 2 } },
      { type: 'clear_tool_uses', trigger: { messages: 10 }, keep: { messages: 3 } },
    ],
  })
  const { messages, media, report } = editor.edit(input)
  assert.equal(media[0].cleared.length, N - 2)
  assert.equal(report.cleared.length, N - 3)
  // Results cleared by clear_tool_uses hold its placeholder; the newest keep their screenshot.
  assert.equal(JSON.stringify(messages.at(-1).content).includes(shot(N - 1)), true)
  assert.equal(typeof messages[2].content, 'string')
})

test('a custom placeholder, and the trigger decides whether it runs', () => {
  const input = transcripts.anthropic(10)
  const run = (edit) => new ContextEditor({ edits: [{ type: 'clear_media', ...edit }] }).edit(input)
  const custom = run({ keep: { media: 1 }, placeholder: '<{kind}: {what} dropped>' })
  assert.equal(JSON.stringify(custom.messages).split('<image: image/png 1280×800 dropped>').length - 1, 9)
  assert.equal(custom.report.appliedEdits[0].type, 'clear_media')
  assert.equal(custom.report.appliedEdits[0].triggered, true)
  const idle = run({ keep: { media: 1 }, trigger: { messages: 1000 } })
  assert.equal(idle.media, undefined)
  assert.equal(idle.report.appliedEdits[0].triggered, false)
  assert.equal(idle.report.triggered, false)
  assert.equal(JSON.stringify(idle.messages), JSON.stringify(input))
  const fired = run({ keep: { media: 1 }, trigger: [{ messages: 1000 }, { tokens: 1000 }] })
  assert.equal(fired.media[0].cleared.length, 9)
})

test('pinned messages keep their media, which do not count toward keep', () => {
  const input = transcripts.langchain(10)
  const marked = input.map((m, i) => (i === 2 ? new m.constructor({ ...m, additional_kwargs: { pinned: true } }) : m))
  const run = (messages, pin) => new ContextEditor({ edits: [{ type: 'clear_media', keep: { media: 2 } }], ...(pin ? { pin } : {}) }).edit(messages)
  const byMarker = run(marked)
  assert.equal(byMarker.media[0].kept, 2)
  assert.equal(byMarker.messages[2], marked[2], "the pinned message is the caller's")
  assert.equal(JSON.stringify(byMarker.messages).split(PLACEHOLDER).length - 1, 7)
  // The current run: everything after the last user message (all 10 steps here).
  const current = run(input, { currentRun: true })
  assert.equal(current.media[0].cleared.length, 0)
  assert.equal(JSON.stringify(current.messages).includes(PLACEHOLDER), false)
  // By tool name, in Anthropic messages (the name is on the tool_use block).
  const anthropic = transcripts.anthropic(6)
  const byTool = run(anthropic, { tools: ['computer'] })
  assert.equal(JSON.stringify(byTool.messages), JSON.stringify(anthropic))
  const other = run(anthropic, { tools: ['browser'] })
  assert.equal(other.media[0].cleared.length, 4)
})

test('keep by tokens keeps the newest that fit', () => {
  const editor = new ContextEditor({ edits: [{ type: 'clear_media', keep: { tokens: 1366 * 3 + 10 }, formula: 'anthropic' }] })
  const { media } = editor.edit(transcripts.anthropic(N))
  assert.equal(media[0].kept, 3)
  assert.equal(media[0].clearedTokens, (N - 3) * 1366)
})

test('a whole Anthropic request: its messages are edited', () => {
  const request = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: transcripts.anthropic(8) }
  const editor = new ContextEditor({ edits: [{ type: 'clear_media', keep: { media: 2 } }] })
  const out = editor.edit(request)
  assert.equal(JSON.stringify(out.messages).split(PLACEHOLDER).length - 1, 6)
  assert.equal(out.request.model, 'claude-sonnet-4-5')
})

test('bad clear_media options are INVALID_OPTIONS naming the field', () => {
  const bad = [
    [{ keep: { media: -1 } }, 'edits[0].keep.media'],
    [{ keep: { media: 1, tokens: 5 } }, 'edits[0].keep'],
    [{ keep: { images: 1 } }, 'edits[0].keep.images'],
    [{ placeholder: 3 }, 'edits[0].placeholder'],
    [{ formula: 'gemini' }, 'edits[0].formula'],
    [{ keepN: 1 }, 'edits[0].keepN'],
  ]
  for (const [edit, path] of bad) {
    assert.throws(
      () => new ContextEditor({ edits: [{ type: 'clear_media', ...edit }] }),
      (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.message.includes(path),
      JSON.stringify(edit),
    )
  }
})

test('the command line applies clear_media too (edit, Anthropic request)', async () => {
  const { execFileSync } = await import('node:child_process')
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dir = mkdtempSync(join(tmpdir(), 'clear-media-'))
  try {
    const request = { model: 'claude-sonnet-4-5', max_tokens: 100, messages: transcripts.anthropic(6) }
    writeFileSync(join(dir, 'in.json'), JSON.stringify(request))
    writeFileSync(join(dir, 'options.json'), JSON.stringify({ edits: [{ type: 'clear_media', keep: { media: 2 } }] }))
    const bin = new URL('../bin/context-editor.js', import.meta.url).pathname
    const out = execFileSync(process.execPath, [bin, 'edit', join(dir, 'in.json'), '--config', join(dir, 'options.json'), '--report', 'none'], {
      encoding: 'utf8',
    })
    const edited = JSON.parse(out)
    const text = JSON.stringify(edited.messages)
    for (let k = 0; k < 6; k++) assert.equal(text.includes(shot(k)), k >= 4, `screenshot ${k}`)
    assert.equal(text.split(PLACEHOLDER).length - 1, 4)
    assert.deepEqual(pairs(edited.messages), pairs(request.messages))
    assert.equal(edited.model, 'claude-sonnet-4-5')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('editing the edited history changes nothing more (stable placeholders, same text every call)', () => {
  for (const [name, make] of Object.entries(transcripts)) {
    const editor = new ContextEditor({ edits: [{ type: 'clear_media', keep: { media: 3 } }] })
    const once = editor.edit(make(12)).messages
    const again = editor.edit(make(12)).messages
    assert.equal(JSON.stringify(again), JSON.stringify(once), `${name}: the same text each call`)
    const twice = editor.edit(once)
    assert.equal(JSON.stringify(twice.messages), JSON.stringify(once), `${name}: idempotent`)
    assert.equal(twice.media[0].cleared.length, 0)
  }
})

test('documents are named by title and media type', () => {
  const pdf = (k) => ({ type: 'document', title: `report-${k}.pdf`, source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x'.repeat(50) } })
  const input = [1, 2, 3].map((k) => ({ role: 'user', content: [{ type: 'text', text: `read ${k}` }, pdf(k)] }))
  const { messages, media } = new ContextEditor({ edits: [{ type: 'clear_media', keep: { media: 1 } }] }).edit(input)
  assert.deepEqual(messages[0].content[1], { type: 'text', text: '[document removed: report-1.pdf application/pdf]' })
  assert.deepEqual(messages[2], input[2])
  assert.deepEqual(
    media[0].cleared.map((c) => c.kind),
    ['document', 'document'],
  )
})

/** `messages` as JSON, for comparing an editor's output with a new editor's. */
const json = (messages) => JSON.parse(JSON.stringify(messages))

/** Where each format keeps a message's screenshot block (the path inside `content`). */
const IMAGE_AT = {
  langchain: (m) => (Array.isArray(m.content) ? m.content.findIndex((b) => b.type === 'image_url') : -1),
  openai: (m) => (Array.isArray(m.content) ? m.content.findIndex((b) => b.type === 'image_url') : -1),
  anthropic: () => -1,
  'ai-sdk': () => -1,
}

test('a next call is given the copies of the previous one while nothing they were made from changed, and new ones after any change', () => {
  // The conversation's next edit then finds the same objects as its previous one, and continues
  // its session instead of reading everything after the first cleared screenshot again.
  for (const [name, make] of Object.entries(transcripts)) {
    const options = { edits: [{ type: 'clear_media', keep: { media: 3 } }] }
    const history = make(24)
    const editor = new ContextEditor(options)
    const cut = history.length - 6
    const first = editor.edit(history.slice(0, cut)).messages
    const second = editor.edit(history).messages
    assert.deepEqual(json(second), json(new ContextEditor(options).edit(history).messages), `${name}: a new editor's output`)
    // Cleared in both calls: the same copy; older ones cleared now only: new copies.
    const clearedBoth = []
    for (let i = 0; i < cut; i++)
      if (first[i] !== history[i] && second[i] !== history[i] && JSON.stringify(first[i]) === JSON.stringify(second[i])) clearedBoth.push(i)
    assert.ok(clearedBoth.length >= 8, `${name}: ${clearedBoth.length} messages cleared in both calls`)
    for (const i of clearedBoth) assert.equal(second[i], first[i], `${name}: message ${i} is the copy given before`)

    // Changes to what a copy was made from, or to the copy the caller got, make a new one; each
    // call's output is then a new editor's.
    const changes = {
      'the caller changed a copy it was given': (h, out, i) => {
        out[i].content = [{ type: 'text', text: 'the caller wrote this' }]
        return h
      },
      'the caller changed a block of a copy in place': (h, out, i) => {
        if (Array.isArray(out[i].content)) out[i].content[0] = { type: 'text', text: 'written over' }
        return h
      },
      'a field of the original replaced': (h, out, i) => {
        h[i].name = 'renamed'
        return h
      },
      'the original replaced by a new object': (h, out, i) => {
        h[i] = Array.isArray(h[i].content) ? Object.assign(Object.create(Object.getPrototypeOf(h[i])), h[i], { content: [...h[i].content] }) : h[i]
        return h
      },
      'a block of the original replaced in place by another screenshot': (h, out, i, ed) => {
        const at = IMAGE_AT[name](h[i])
        const shot = { type: 'image_url', image_url: { url: `data:image/png;base64,${png(640, 480, 99)}` } }
        if (at >= 0) h[i].content[at] = shot
        else {
          // Inside a tool result's blocks, which the change check does not read (as for every
          // message): declared with invalidate().
          if (name === 'anthropic') h[i].content[0].content[0] = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(640, 480, 99) } }
          else h[i].content[0].output.value[0] = { type: 'media', data: png(640, 480, 99), mediaType: 'image/png' }
          ed.invalidate(h[i])
        }
        return h
      },
    }
    for (const [what, change] of Object.entries(changes)) {
      const h = make(24)
      const ed = new ContextEditor(options)
      const out = ed.edit(h).messages
      const i = h.findIndex((m, k) => out[k] !== m)
      const before = out[i]
      const now = change(h.slice(), out, i, ed)
      const again = ed.edit(now).messages
      assert.notEqual(again[i], before, `${name}, ${what}: a new copy`)
      assert.deepEqual(json(again), json(new ContextEditor(options).edit(now).messages), `${name}, ${what}: a new editor's output`)
    }
  }
})

test('a screenshot changed inside a block the change check does not read is seen after invalidate()', () => {
  const options = { edits: [{ type: 'clear_media', keep: { media: 2 } }] }
  const history = transcripts.langchain(10)
  const editor = new ContextEditor(options)
  editor.edit(history)
  // The block's own `image_url` object is changed in place: another size, so another placeholder.
  const i = history.findIndex((m) => Array.isArray(m.content))
  const m = history[i]
  m.content.find((b) => b.type === 'image_url').image_url.url = `data:image/png;base64,${png(640, 480, 7)}`
  editor.invalidate(m)
  const { messages } = editor.edit(history)
  assert.deepEqual(json(messages), json(new ContextEditor(options).edit(history).messages))
  assert.match(JSON.stringify(messages[i]), /640×480/)
})
