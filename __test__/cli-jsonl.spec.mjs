// The `context-editor` command with --jsonl: one conversation per line in and out, errors naming the
// line, and a larger dataset streamed in place. Shared helpers and inputs in support/cli-spec.mjs.

import assert from 'node:assert/strict'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { mapChatMessagesToStoredMessages } from '@langchain/core/messages'

import { TIGHT, anthropicRequest, cli, dir, file, langchainMessages, openaiRequest, read, useCliDir } from './support/cli-spec.mjs'

useCliDir()

describe('--jsonl', { concurrency: 3 }, () => {
  test('one conversation per line in and out, each in its own format; blank lines kept; summary on stderr', async () => {
    const lines = [
      JSON.stringify(openaiRequest()),
      JSON.stringify(anthropicRequest()),
      '',
      JSON.stringify(mapChatMessagesToStoredMessages(langchainMessages())),
    ]
    const f = file('set.jsonl', `${lines.join('\n')}\n`)
    const r = await cli(['edit', f, '--jsonl', ...TIGHT])
    assert.equal(r.code, 0, r.stderr)
    const out = r.stdout.split('\n')
    assert.equal(out.length, 5)
    assert.equal(out[2], '')
    assert.equal(out[4], '')
    const [openai, anthropic, , stored] = out.map((l) => (l ? JSON.parse(l) : l))
    assert.equal(openai.model, 'gpt-4o')
    assert.equal(openai.messages[3].content, '[cleared]')
    assert.deepEqual(anthropic.system, anthropicRequest().system)
    assert.equal(anthropic.messages[2].content[0].content, '[cleared]')
    assert.equal(stored[3].data.content, '[cleared]')
    assert.match(r.stderr, /^context-editor: 3 conversations \(3 triggered\) · tokens [\d,]+ → [\d,]+ \(−\d+%\) · messages 23 → 22 · [\d.]+ s\n$/)
    assert.ok(!r.stderr.includes('\r'), 'no progress bar when stderr is not a TTY')
    const json = await cli(['edit', '-', '--jsonl', '--report', 'json'], { input: lines[0] })
    assert.equal(json.code, 0)
    assert.equal(JSON.parse(json.stderr).conversations, 1)
  })

  test('errors name the line: invalid JSON (line:column) and a rejected message (line + index)', async () => {
    const good = JSON.stringify(openaiRequest())
    const f = file('bad.jsonl', `${good}\n${good}\n{"messages": [1,\n`)
    const r = await cli(['edit', f, '--jsonl', '-o', join(dir, 'bad.out.jsonl')])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /bad\.jsonl:3:17: invalid JSON/)
    assert.throws(() => statSync(join(dir, 'bad.out.jsonl')), /ENOENT/, 'no partial output file is left behind')
    const g = file('badmsg.jsonl', `${good}\n[{"role":"user","content":"x"},{"role":"wizard"}]\n`)
    const r2 = await cli(['edit', g, '--jsonl'])
    assert.equal(r2.code, 2)
    assert.match(r2.stderr, /badmsg\.jsonl:2: messages\[1\]\.role: unknown role `wizard`/)
  })

  test('streams a larger dataset with -o naming the input', async () => {
    const line = JSON.stringify(openaiRequest())
    const f = file('many.jsonl', `${Array.from({ length: 300 }, () => line).join('\n')}\n`)
    const r = await cli(['edit', f, '--jsonl', ...TIGHT, '-o', f])
    assert.equal(r.code, 0, r.stderr)
    const out = read('many.jsonl').trimEnd().split('\n')
    assert.equal(out.length, 300)
    assert.ok(out.every((l) => JSON.parse(l).messages[3].content === '[cleared]'))
    assert.match(r.stderr, /300 conversations \(300 triggered\)/)
  })
})
