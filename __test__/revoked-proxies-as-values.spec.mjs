// A revoked Proxy given as a value (every operation on it throws, even `Array.isArray`) anywhere the
// editor reads: a context field, a message field, a block, a tool call, an option. Each entry point
// answers with a ContextEditorError of the input's code naming where it is, sync and async alike,
// never a bare TypeError from describing the value in an error message.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ContextEditor, ContextEditorError } from '../dist/index.js'

const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

function history() {
  return [
    new HumanMessage('go'),
    new AIMessage({ content: [{ type: 'text', text: 'x' }], tool_calls: [{ id: 'c0', name: 'read', args: { p: 1 } }] }),
    new ToolMessage({ content: 'x'.repeat(300), tool_call_id: 'c0', name: 'read' }),
    new HumanMessage('next'),
  ]
}

const CALLS = {
  edit: (e, h, c) => e.edit(h, c),
  editAsync: (e, h, c) => e.editAsync(h, c),
  plan: (e, h, c) => e.plan(h, c),
  planAsync: (e, h, c) => e.planAsync(h, c),
  countTokens: (e, h, c) => e.countTokens(h, c),
  countTokensAsync: (e, h, c) => e.countTokensAsync(h, c),
}

/** Where the revoked Proxy goes, and the code and path it must be reported with. */
const PLACES = {
  'context.maxInputTokens': [(h) => [h, { maxInputTokens: revoked() }], 'INVALID_CONTEXT', 'maxInputTokens'],
  'context.model': [(h) => [h, { model: revoked() }], 'INVALID_CONTEXT', 'model'],
  'context.systemPrompt': [(h) => [h, { systemPrompt: revoked() }], 'INVALID_CONTEXT', 'systemPrompt'],
  'context.tools': [(h) => [h, { tools: revoked() }], 'INVALID_CONTEXT', 'tools'],
  'context.tools[0]': [(h) => [h, { tools: [revoked()] }], 'INVALID_CONTEXT', 'tools[0]'],
  'context.messageTokens': [(h) => [h, { messageTokens: revoked() }], 'INVALID_CONTEXT', 'messageTokens'],
  'a message': [(h) => [((h[1] = revoked()), h)], 'INVALID_MESSAGE', undefined, 1],
  content: [(h) => [((h[2].content = revoked()), h)], 'INVALID_MESSAGE', 'content', 2],
  'a block': [(h) => [((h[1].content[0] = revoked()), h)], 'INVALID_MESSAGE', 'content[0]', 1],
  tool_calls: [(h) => [((h[1].tool_calls = revoked()), h)], 'INVALID_MESSAGE', 'tool_calls', 1],
  'a tool call': [(h) => [((h[1].tool_calls[0] = revoked()), h)], 'INVALID_MESSAGE', 'tool_calls[0]', 1],
  args: [(h) => [((h[1].tool_calls[0].args = revoked()), h)], 'INVALID_MESSAGE', 'tool_calls[0].args', 1],
  response_metadata: [(h) => [((h[2].response_metadata = revoked()), h)], 'INVALID_MESSAGE', 'response_metadata', 2],
  additional_kwargs: [(h) => [((h[1].additional_kwargs = revoked()), h)], 'INVALID_MESSAGE', 'additional_kwargs', 1],
  name: [(h) => [((h[2].name = revoked()), h)], 'INVALID_MESSAGE', 'name', 2],
}

describe('a revoked Proxy as a value is the caller’s error, named, from every entry point', () => {
  for (const options of [{ trigger: { tokens: 1 }, keep: { messages: 0 }, clearToolInputs: true }, { tokenCountMethod: 'model' }]) {
    for (const [place, [make, code, path, messageIndex]] of Object.entries(PLACES)) {
      test(`${place} (${options.tokenCountMethod ?? 'approx'})`, async () => {
        for (const [name, call] of Object.entries(CALLS)) {
          const [h, context] = make(history())
          await assert.rejects(
            async () => call(new ContextEditor(options), h, context),
            (e) => {
              assert.ok(e instanceof ContextEditorError, `${name}: not a ContextEditorError: ${e}`)
              assert.equal(e.code, code, `${name}: ${e.message}`)
              if (path !== undefined) assert.equal(e.path, path, `${name}: ${e.message}`)
              if (messageIndex !== undefined) assert.equal(e.messageIndex, messageIndex, `${name}: ${e.message}`)
              return true
            },
          )
        }
      })
    }
  }
})

test('an option that is a revoked Proxy: INVALID_OPTIONS naming it', () => {
  for (const [options, path] of [
    [{ trigger: revoked() }, 'trigger'],
    [{ keep: revoked() }, 'keep'],
    [{ excludeTools: [revoked()] }, 'excludeTools[0]'],
    [{ edits: [revoked()] }, 'edits[0]'],
  ]) {
    assert.throws(
      () => new ContextEditor(options),
      (e) => e instanceof ContextEditorError && e.code === 'INVALID_OPTIONS' && e.path === path,
    )
  }
})
