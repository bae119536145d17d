// `recall_tool_result` in a real Xpert host (NestJS + @xpert-ai/plugin-sdk, the fixture host), on
// @langchain/core 0.3.72 and 1.x messages: `ContextEditingMiddleware` with `recall: true` offers the
// tool in its `tools`; a cleared result's placeholder names its call; the model calls the tool on
// that id and the host's tool run returns the exact original; an id that is not in the history gets
// the plain "gone" answer.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as Messages1 from '@langchain/core/messages'
import { bootHost, callModel } from './fixtures/xpert-host/host.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')

const cores = [
  { label: '@langchain/core 0.3.72 (CommonJS, as Xpert hosts pin it)', M: require('@langchain/core-03/messages') },
  { label: '@langchain/core 1.x', M: Messages1 },
]

const ORIGINAL = `export function a() {\n  return ${'"α"'.repeat(200)}\n}\n`

describe('Xpert host: ContextEditingMiddleware with recall: true', () => {
  let host
  before(async () => {
    host = await bootHost([{ name: 'context-editor', dir: root }])
  })
  after(async () => {
    await host?.close()
  })

  for (const { label, M } of cores) {
    test(`${label}: the model recalls a cleared result by its id and gets the exact original`, async () => {
      const mw = host.registry
        .get('ContextEditingMiddleware')
        .createMiddleware({ trigger: { toolUses: 2 }, keep: { messages: 1 }, recall: true }, { tenantId: 't', userId: 'u', node: {} })
      assert.deepEqual(
        mw.tools.map((t) => t.name),
        ['recall_tool_result'],
      )
      const history = [
        new M.HumanMessage({ content: 'Review a.ts and b.ts', id: 'h0' }),
        new M.AIMessage({ content: '', id: 'ai1', tool_calls: [{ id: 'c1', name: 'read_file', args: { path: 'a.ts' } }] }),
        new M.ToolMessage({ content: ORIGINAL, tool_call_id: 'c1', name: 'read_file', id: 't1' }),
        new M.AIMessage({ content: '', id: 'ai2', tool_calls: [{ id: 'c2', name: 'read_file', args: { path: 'b.ts' } }] }),
        new M.ToolMessage({ content: 'export const b = 2', tool_call_id: 'c2', name: 'read_file', id: 't2' }),
      ]
      const system = new M.SystemMessage('You review code.')
      let seen
      const { result } = await callModel([mw], { messages: history, systemMessage: system, tools: [] }, async (messages) => {
        seen = messages
        return new M.AIMessage({
          content: '',
          id: 'ai3',
          tool_calls: [
            { id: 'r1', name: 'recall_tool_result', args: { tool_call_id: 'c1' } },
            { id: 'r2', name: 'recall_tool_result', args: { tool_call_id: 'c9' } },
          ],
        })
      })
      const cleared = seen.find((m) => m.tool_call_id === 'c1')
      assert.equal(cleared.content, '[cleared; recall_tool_result("c1") returns it]')
      assert.equal(history[2].content, ORIGINAL, 'the host state is untouched')
      // The host's tool node runs the calls.
      const [recall] = mw.tools
      const back = await recall.invoke({ ...result.tool_calls[0], type: 'tool_call' })
      assert.equal(back.content, ORIGINAL)
      assert.equal(back.tool_call_id, 'r1')
      const gone = await recall.invoke({ ...result.tool_calls[1], type: 'tool_call' })
      assert.match(gone.content, /^The result of tool call "c9" is gone/)
    })
  }

  test('recall must be a boolean; without it there is no tool and the placeholder is the usual one', async () => {
    const strategy = host.registry.get('ContextEditingMiddleware')
    assert.throws(
      () => strategy.createMiddleware({ recall: 'yes' }, {}),
      (e) => e.code === 'INVALID_OPTIONS' && e.path === 'recall',
    )
    const plain = strategy.createMiddleware({ recall: null }, {})
    assert.equal(plain.tools, undefined)
  })
})
