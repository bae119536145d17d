// examples/langchain.mjs (the README's LangChain example) runs as written, with a scripted model in
// place of ChatOpenAI; examples/xpert-options.json is exercised by the Xpert host tests.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildAgent } from '../examples/langchain.mjs'
import { ScriptedToolModel } from './fixtures/langchain-agent/scripted-model.mjs'

test('examples/langchain.mjs: past 100k tokens old file reads are cleared for the model, the state keeps them', async () => {
  const model = new ScriptedToolModel({ turns: 12, toolName: 'read_file', args: (turn) => ({ path: `src/${turn}.ts` }), answer: 'Reviewed.' })
  const reports = []
  const agent = buildAgent(model, { onReport: (r) => reports.push(r) })
  const result = await agent.invoke({ messages: [{ role: 'user', content: 'Review src/1.ts to src/12.ts.' }] }, { recursionLimit: 100 })

  assert.equal(result.messages.at(-1).content, 'Reviewed.')
  assert.equal(model.calls.length, 13)
  const first = reports.findIndex((r) => r.triggered)
  assert.ok(first > 0 && reports[first].tokensBefore >= 100000 && reports[first - 1].tokensBefore < 100000, `fires at 100k tokens (call ${first})`)
  const last = model.calls.at(-1).filter((m) => m.type === 'tool')
  assert.deepEqual(
    last.map((m) => m.content === '[cleared]'),
    [...Array(9).fill(true), false, false, false],
  )
  assert.ok(model.calls.at(-1)[0].type === 'system', 'the system prompt is sent')
  const stored = result.messages.filter((m) => m.type === 'tool')
  assert.equal(stored.length, 12)
  assert.ok(
    stored.every((m) => m.content.length > 50000),
    'every file is kept in the agent state',
  )
})
