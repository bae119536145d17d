// Every framework adapter checks its options when it is made, not in the middle of a run: a bad
// option is INVALID_OPTIONS naming the option's path and the adapter the caller made (not another
// adapter's name), for each adapter of the package.

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { ContextEditorError } from '../dist/index.js'
import { contextEditingMiddleware, contextEditingPrepareStep } from '../dist/ai/index.js'
import { contextEditingPreModelHook } from '../dist/langgraph/index.js'
import { contextEditingProcessor } from '../dist/mastra/index.js'
import { contextEditingInputFilter } from '../dist/openai-agents/index.js'

const ADAPTERS = [
  ['contextEditingPrepareStep', contextEditingPrepareStep, /^ai\.prepareStep: /],
  ['contextEditingMiddleware', contextEditingMiddleware, /^ai\.middleware: /],
  ['contextEditingPreModelHook', contextEditingPreModelHook, /^langgraph\.preModelHook: /],
  ['contextEditingProcessor', contextEditingProcessor, /^mastra\.processInput: /],
  ['contextEditingInputFilter', contextEditingInputFilter, /^openai-agents\.callModelInputFilter: /],
]

const BAD = [
  [{ trigger: 'soon' }, 'trigger'],
  [{ keep: { messages: -1 } }, 'keep.messages'],
  [{ edits: [{ type: 'clear_tool_uses' }, { type: 'nope' }] }, 'edits[1].type'],
  [{ onReport: 'log' }, 'onReport'],
  [{ maxInputTokens: 0 }, 'maxInputTokens'],
]

test('a bad option is INVALID_OPTIONS at construction, naming its path and the adapter', () => {
  for (const [name, make, hook] of ADAPTERS) {
    for (const [options, path] of BAD) {
      assert.throws(
        () => make(options),
        (e) => {
          assert.ok(e instanceof ContextEditorError, `${name} ${JSON.stringify(options)}: ${e}`)
          assert.equal(e.code, 'INVALID_OPTIONS')
          assert.equal(e.path, path, `${name} ${JSON.stringify(options)}`)
          assert.match(e.message, hook, name)
          assert.ok(e.message.includes(path), e.message)
          assert.ok(!e.message.includes('ContextEditingMiddleware'), e.message)
          return true
        },
      )
    }
  }
})
