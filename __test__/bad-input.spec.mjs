// Bad-input catalogue: malformed options, messages and call contexts, through every entry point
// that takes them — the addon (`NativeContextEditor`, wire form, sync and async), the shim
// (`ContextEditor`, sync and async), the LangChain middleware and the Xpert strategy. Each row
// asserts the exact `error.code`, that the message names the culprit (option path, message index
// and field), and that the process survives. Inputs that are not errors (duplicate ids, orphans,
// 100 MB strings, `__proto__` keys in messages, …) are in bad-input-odd.spec.mjs; that no option
// makes the editor read files, open sockets or run code (options are data) is in
// bad-input-options-data.spec.mjs. Shared helpers: support/bad-input.mjs.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage } from '@langchain/core/messages'

import { ContextEditor, ContextEditorError } from 'context-editor'
import { contextEditingMiddleware } from 'context-editor/langchain'
import { ContextEditingStrategy } from 'context-editor/xpert'
import { NativeContextEditor } from '../index.js'
import { TRIGGER_NOW, cyclic, escape, lcHistory, nested, rejects, throws, wireHistory } from './support/bad-input.mjs'

// ---------------------------------------------------------------------------------------------
// options

/**
 * `path` is the `error.path` (a RegExp for very long ones); `culprit` defaults to the path.
 * `langchain` / `xpert`: overrides for the middleware entry points (`{ ok: true }` = accepted there
 * on purpose), `only`: entry points the row applies to.
 */
const OPTION_CASES = [
  { name: 'options is a string', options: () => 'often', path: 'options' },
  { name: 'options is an array', options: () => [{ trigger: { tokens: 1 } }], path: 'options' },
  { name: 'options is a number', options: () => 42, path: 'options' },
  { name: 'unknown option (typo)', options: () => ({ triger: { tokens: 1 } }), path: 'triger' },
  { name: '__proto__ key (JSON.parse)', options: () => JSON.parse('{"__proto__": {"trigger": {"tokens": 1}}}'), path: '__proto__' },
  { name: '__proto__ key inside keep', options: () => JSON.parse('{"keep": {"__proto__": {"messages": 1}}}'), path: 'keep.__proto__' },
  { name: 'constructor key', options: () => ({ constructor: { prototype: { polluted: true } } }), path: 'constructor' },
  { name: 'prototype key inside trigger', options: () => ({ trigger: { tokens: 1, prototype: 1 } }), path: 'trigger.prototype' },
  { name: 'trigger.tokens NaN', options: () => ({ trigger: { tokens: NaN } }), path: 'trigger.tokens', culprit: /trigger\.tokens.*NaN/ },
  { name: 'trigger.tokens Infinity', options: () => ({ trigger: { tokens: Infinity } }), path: 'trigger.tokens', culprit: /trigger\.tokens.*Infinity/ },
  { name: 'trigger.tokens negative', options: () => ({ trigger: { tokens: -5 } }), path: 'trigger.tokens', culprit: /trigger\.tokens.*-5/ },
  { name: 'trigger.tokens zero', options: () => ({ trigger: { tokens: 0 } }), path: 'trigger.tokens' },
  { name: 'trigger.tokens a string', options: () => ({ trigger: { tokens: '100' } }), path: 'trigger.tokens' },
  { name: 'trigger.tokens a function', options: () => ({ trigger: { tokens: () => 1 } }), path: 'trigger.tokens' },
  { name: 'trigger a string', options: () => ({ trigger: 'often' }), path: 'trigger' },
  { name: 'trigger an empty object', options: () => ({ trigger: {} }), path: 'trigger' },
  { name: 'trigger.fraction above 1', options: () => ({ trigger: { fraction: 1.5 } }), path: 'trigger.fraction' },
  { name: 'trigger[1].messages not an integer', options: () => ({ trigger: [{ tokens: 5 }, { messages: 2.5 }] }), path: 'trigger[1].messages' },
  { name: 'trigger unknown condition', options: () => ({ trigger: { hours: 3 } }), path: 'trigger.hours' },
  { name: 'keep with two measures', options: () => ({ keep: { messages: 1, tokens: 2 } }), path: 'keep' },
  { name: 'keep.messages negative', options: () => ({ keep: { messages: -1 } }), path: 'keep.messages' },
  { name: 'keep.messages NaN', options: () => ({ keep: { messages: NaN } }), path: 'keep.messages' },
  { name: 'keep.messages huge (2^64)', options: () => ({ keep: { messages: 2 ** 64 } }), path: 'keep.messages' },
  { name: 'keep.fraction 2', options: () => ({ keep: { fraction: 2 } }), path: 'keep.fraction' },
  { name: 'keep.tokens -Infinity', options: () => ({ keep: { tokens: -Infinity } }), path: 'keep.tokens' },
  { name: 'excludeTools a string', options: () => ({ excludeTools: 'read' }), path: 'excludeTools' },
  { name: 'excludeTools[1] a number', options: () => ({ excludeTools: ['read', 1] }), path: 'excludeTools[1]' },
  { name: 'placeholder a number', options: () => ({ placeholder: 5 }), path: 'placeholder' },
  { name: 'placeholder a symbol', options: () => ({ placeholder: Symbol('x') }), path: 'placeholder' },
  { name: 'placeholder with a lone surrogate', options: () => ({ placeholder: 'cut \ud800' }), path: 'placeholder', culprit: /placeholder.*surrogate/ },
  { name: 'clearToolInputs a string', options: () => ({ clearToolInputs: 'yes' }), path: 'clearToolInputs' },
  { name: 'clearAtLeast a numeric string', options: () => ({ clearAtLeast: '5' }), path: 'clearAtLeast' },
  { name: 'clearAtLeast huge (2^64)', options: () => ({ clearAtLeast: 2 ** 64 }), path: 'clearAtLeast' },
  { name: 'clearAtLeast a BigInt', options: () => ({ clearAtLeast: 10n }), path: 'clearAtLeast' },
  { name: 'tokenCountMethod unknown', options: () => ({ tokenCountMethod: 'exact' }), path: 'tokenCountMethod' },
  { name: 'encoding unknown', options: () => ({ encoding: 'gpt2' }), code: 'UNKNOWN_ENCODING', path: 'encoding', culprit: /gpt2/ },
  { name: 'tokenCacheSize negative', options: () => ({ tokenCacheSize: -1 }), path: 'tokenCacheSize' },
  { name: 'tokenCacheSize 1e20', options: () => ({ tokenCacheSize: 1e20 }), path: 'tokenCacheSize' },
  { name: 'model a number', options: () => ({ model: 4 }), path: 'model' },
  {
    name: 'unknown edit type',
    options: () => ({ edits: [{ type: 'clear_everything', keep: 'all' }] }),
    path: 'edits[0].type',
    culprit: /edits\[0\]\.type.*clear_everything/,
    xpert: { path: 'edits' },
  },
  {
    name: 'edit without a type',
    options: () => ({ edits: [{ trigger: { tokens: 1 } }] }),
    path: 'edits[0].type',
    langchain: { ok: true }, // LangChain's shape: a plain edit defaults to clear_tool_uses
    xpert: { path: 'edits' },
  },
  { name: 'edits not a list', options: () => ({ edits: { type: 'clear_tool_uses' } }), path: 'edits', xpert: { path: 'edits' } },
  {
    name: 'edits mixed with top-level clearing keys',
    options: () => ({ edits: [{ type: 'clear_tool_uses' }], keep: { messages: 1 } }),
    path: 'keep',
    xpert: { path: 'edits' },
  },
  { name: 'a cycle', options: cyclic, path: /^trigger\.self/, culprit: /trigger\.self.*(cycle|deep)/ },
  { name: 'a depth bomb (100,000 nested objects)', options: () => ({ trigger: nested(100_000) }), path: /^trigger\.a\.a/, culprit: /trigger\.a\.a.*deep/ },
  {
    name: 'a depth bomb (100,000 nested arrays)',
    options: () => ({ excludeTools: nested(100_000, true) }),
    path: /^excludeTools\[0\]\[0\]/,
    culprit: /excludeTools\[0\]\[0\]/,
  },
  { name: 'onReport not a function', options: () => ({ onReport: 'log' }), path: 'onReport', only: ['langchain', 'xpert'] },
  { name: 'maxInputTokens NaN', options: () => ({ maxInputTokens: NaN }), path: 'maxInputTokens', only: ['langchain'] },
  { name: 'maxInputTokens negative', options: () => ({ maxInputTokens: -1 }), path: 'maxInputTokens', only: ['langchain'] },
]

const OPTION_ENTRIES = {
  native: (o) => new NativeContextEditor(o),
  shim: (o) => new ContextEditor(o),
  langchain: (o) => contextEditingMiddleware(o),
  xpert: (o) => new ContextEditingStrategy().createMiddleware(o),
}

describe('bad options', () => {
  for (const row of OPTION_CASES) {
    test(row.name, () => {
      const entries = row.only ?? Object.keys(OPTION_ENTRIES)
      for (const entry of entries) {
        const override = row[entry] ?? {}
        if (override.ok) {
          assert.doesNotThrow(() => OPTION_ENTRIES[entry](row.options()), `${entry}: accepted`)
          continue
        }
        const path = override.path ?? row.path
        const culprit =
          override.culprit ??
          (override.path ? new RegExp(escape(override.path)) : (row.culprit ?? new RegExp(escape(row.path instanceof RegExp ? '' : row.path))))
        const err = throws(() => OPTION_ENTRIES[entry](row.options()), { code: row.code ?? 'INVALID_OPTIONS', culprit, path }, entry)
        if (entry !== 'native') assert.ok(err instanceof ContextEditorError, `${entry}: a ContextEditorError`)
      }
      assert.equal({}.polluted, undefined, 'Object.prototype untouched')
      assert.equal({}.trigger, undefined, 'Object.prototype untouched')
    })
  }
})

// ---------------------------------------------------------------------------------------------
// messages

/**
 * `wire`: the messages in the addon's wire form (omitted when the case cannot be expressed there),
 * `shim`: in LangChain/OpenAI form. Both must fail with INVALID_MESSAGE at `index`, naming
 * `wirePath` / `shimPath`.
 */
const MESSAGE_CASES = [
  { name: 'messages not an array', wire: () => 'hello', shim: () => 'hello', wirePath: 'messages', shimPath: 'messages', culprit: /messages/ },
  {
    name: 'a null message',
    wire: () => [{ role: 'user', content: 'a' }, null],
    shim: () => [{ role: 'user', content: 'a' }, null],
    index: 1,
    wirePath: 'role',
    shimPath: 'type',
    culprit: /messages\[1\].*null/,
  },
  { name: 'a message that is a number', wire: () => [7], shim: () => [7], index: 0, wirePath: 'role', shimPath: 'type' },
  {
    name: 'unknown role',
    wire: () => [{ role: 'robot' }],
    shim: () => [{ role: 'robot', content: 'x' }],
    index: 0,
    wirePath: 'role',
    shimPath: 'role',
    culprit: /robot/,
  },
  { name: 'unknown LangChain type', shim: () => [{ type: 'robot', content: 'x' }], index: 0, shimPath: 'type', culprit: /robot/ },
  { name: 'missing role and type', wire: () => [{ content: 'x' }], shim: () => [{ content: 'x' }], index: 0, wirePath: 'role', shimPath: 'role' },
  { name: 'role of the wrong type', wire: () => [{ role: 5 }], shim: () => [{ role: 5, content: 'x' }], index: 0, wirePath: 'role', shimPath: 'role' },
  {
    name: 'content of the wrong type',
    wire: () => [{ role: 'user', content: 5 }],
    shim: () => [{ role: 'user', content: 5 }],
    index: 0,
    wirePath: 'content',
    shimPath: 'content',
  },
  {
    name: 'a null content block',
    shim: () => [{ role: 'user', content: [{ type: 'text', text: 'a' }, null] }],
    index: 0,
    shimPath: 'content[1]',
  },
  {
    name: 'tool message without tool_call_id',
    wire: () => [
      { role: 'assistant', toolCalls: [{ id: 'a' }] },
      { role: 'user', content: 'x' },
      { role: 'tool', content: 'x' },
    ],
    shim: () => [new AIMessage({ content: '', tool_calls: [{ id: 'a', name: 't', args: {} }] }), new HumanMessage('x'), { role: 'tool', content: 'x' }],
    index: 2,
    wirePath: 'toolCallId',
    shimPath: 'tool_call_id',
  },
  {
    name: 'tool message with an empty tool_call_id',
    wire: () => [{ role: 'tool', toolCallId: '', content: 'x' }],
    shim: () => [{ role: 'tool', tool_call_id: '', content: 'x' }],
    index: 0,
    wirePath: 'toolCallId',
    shimPath: 'tool_call_id',
  },
  {
    name: 'tool call without an id',
    wire: () => [{ role: 'assistant', toolCalls: [{ name: 'read' }] }],
    shim: () => [{ type: 'ai', content: '', tool_calls: [{ name: 'read', args: {} }] }],
    index: 0,
    wirePath: 'toolCalls',
    shimPath: 'tool_calls[0].id',
  },
  {
    name: 'tool call with an empty id',
    wire: () => [{ role: 'assistant', toolCalls: [{ id: '' }] }],
    shim: () => [{ role: 'assistant', content: null, tool_calls: [{ id: '', type: 'function', function: { name: 't', arguments: '{}' } }] }],
    index: 0,
    wirePath: 'toolCalls[0].id',
    shimPath: 'tool_calls[0].id',
  },
  {
    name: 'tool calls on a user message',
    wire: () => [{ role: 'user', toolCalls: [{ id: 'a' }] }],
    shim: () => [{ role: 'user', content: 'x', tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: '{}' } }] }],
    index: 0,
    wirePath: 'toolCalls',
    shimPath: 'tool_calls',
  },
  {
    name: 'tool_calls not an array',
    wire: () => [{ role: 'assistant', toolCalls: { id: 'a' } }],
    shim: () => [{ type: 'ai', content: '', tool_calls: { id: 'a' } }],
    index: 0,
    wirePath: 'toolCalls',
    shimPath: 'tool_calls',
  },
  {
    name: 'a cycle in tool-call args',
    shim: () => {
      const args = { path: 'a' }
      args.self = args
      return [new AIMessage({ content: '', tool_calls: [{ id: 'a', name: 'read', args }] })]
    },
    index: 0,
    shimPath: 'tool_calls[0].args',
    culprit: /tool_calls\[0\]\.args.*JSON/,
  },
  {
    name: 'a depth bomb in tool-call args (100,000 levels)',
    shim: () => [{ type: 'ai', content: '', tool_calls: [{ id: 'a', name: 'read', args: nested(100_000) }] }],
    index: 0,
    shimPath: 'tool_calls[0].args',
    culprit: /tool_calls\[0\]\.args.*JSON/,
  },
  {
    name: 'tool-call args that are a string',
    shim: () => [{ type: 'ai', content: '', tool_calls: [{ id: 'a', name: 'read', args: '{"path":"a"}' }] }],
    index: 0,
    shimPath: 'tool_calls[0].args',
  },
  {
    name: 'a cycle in another field of a tool call',
    shim: () => {
      const call = { id: 'a', name: 'read', args: {} }
      call.meta = call
      return [{ type: 'ai', content: '', tool_calls: [call] }]
    },
    index: 0,
    shimPath: 'tool_calls',
    culprit: /messages\[0\]\.tool_calls.*JSON/,
  },
  {
    name: 'a BigInt in another field of a tool call',
    shim: () => [{ type: 'ai', content: '', tool_calls: [{ id: 'a', name: 'read', args: {}, seq: 1n }] }],
    index: 0,
    shimPath: 'tool_calls',
    culprit: /messages\[0\]\.tool_calls.*BigInt/,
  },
  {
    name: 'a tool call whose toJSON throws',
    shim: () => [
      {
        type: 'ai',
        content: '',
        tool_calls: [
          {
            id: 'a',
            name: 'read',
            args: {},
            toJSON() {
              throw new Error('boom')
            },
          },
        ],
      },
    ],
    index: 0,
    shimPath: 'tool_calls',
    culprit: /messages\[0\]\.tool_calls.*boom/,
  },
  {
    name: 'OpenAI arguments that are not JSON',
    shim: () => [{ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 't', arguments: '{"path":' } }] }],
    index: 0,
    shimPath: 'tool_calls[0].function.arguments',
  },
  {
    name: 'a cycle in a non-text content block',
    shim: () => {
      const block = { type: 'json', json: {} }
      block.json.self = block
      return [{ role: 'user', content: [block] }]
    },
    index: 0,
    shimPath: 'content',
    culprit: /content.*JSON/,
  },
  { name: 'a lone surrogate in content', shim: () => [{ role: 'user', content: 'ok \udc00' }], index: 0, shimPath: 'content', culprit: /content.*surrogate/ },
  {
    name: 'a lone surrogate in a tool call id',
    shim: () => [new AIMessage({ content: '', tool_calls: [{ id: '\ud800', name: 't', args: {} }] })],
    index: 0,
    shimPath: 'tool_calls[0].id',
  },
  {
    name: 'name of the wrong type',
    wire: () => [{ role: 'user', content: 'x', name: 3 }],
    shim: () => [{ role: 'user', content: 'x', name: 3 }],
    index: 0,
    wirePath: 'name',
    shimPath: 'name',
  },
  { name: 'images not a number (wire)', wire: () => [{ role: 'user', images: 'many' }], index: 0, wirePath: 'images' },
]

describe('bad messages', () => {
  const native = new NativeContextEditor(TRIGGER_NOW)
  const shim = new ContextEditor(TRIGGER_NOW)
  const langchain = contextEditingMiddleware(TRIGGER_NOW)
  const xpert = new ContextEditingStrategy().createMiddleware(TRIGGER_NOW)

  for (const row of MESSAGE_CASES) {
    test(row.name, async () => {
      const culprit = (path) => row.culprit ?? new RegExp(row.index === undefined ? escape(path) : `messages\\[${row.index}\\]\\.${escape(path)}`)
      if (row.wire) {
        const expected = { code: 'INVALID_MESSAGE', culprit: culprit(row.wirePath), path: row.wirePath, messageIndex: row.index }
        throws(() => native.plan(row.wire()), expected, 'native plan')
        throws(() => native.countTokens(row.wire()), expected, 'native countTokens')
        await rejects(() => native.planAsync(row.wire()), expected, 'native planAsync')
      }
      if (row.shim) {
        const expected = { code: 'INVALID_MESSAGE', culprit: culprit(row.shimPath), path: row.shimPath, messageIndex: row.index }
        for (const [where, fn] of [
          ['shim edit', () => shim.edit(row.shim())],
          ['shim plan', () => shim.plan(row.shim())],
          ['shim countTokens', () => shim.countTokens(row.shim())],
        ]) {
          const err = throws(fn, expected, where)
          assert.ok(err instanceof ContextEditorError)
        }
        await rejects(() => shim.editAsync(row.shim()), expected, 'shim editAsync')
        if (Array.isArray(row.shim()) && row.shim().length > 0) {
          let called = false
          const handler = () => {
            called = true
          }
          await rejects(() => langchain.wrapModelCall({ messages: row.shim() }, handler), expected, 'langchain wrapModelCall')
          await rejects(() => xpert.wrapModelCall({ messages: row.shim() }, handler), expected, 'xpert wrapModelCall')
          assert.equal(called, false, 'the model is not called with a malformed history')
        }
      }
    })
  }
})

// ---------------------------------------------------------------------------------------------
// call context

const CONTEXT_CASES = [
  { name: 'maxInputTokens NaN', ctx: { maxInputTokens: NaN }, path: 'maxInputTokens', culprit: /maxInputTokens.*NaN/ },
  { name: 'maxInputTokens negative', ctx: { maxInputTokens: -1 }, path: 'maxInputTokens', culprit: /maxInputTokens.*-1/ },
  { name: 'maxInputTokens zero', ctx: { maxInputTokens: 0 }, path: 'maxInputTokens' },
  { name: 'maxInputTokens 1e300', ctx: { maxInputTokens: 1e300 }, path: 'maxInputTokens' },
  { name: 'maxInputTokens Infinity', ctx: { maxInputTokens: Infinity }, path: 'maxInputTokens' },
  { name: 'maxInputTokens fractional', ctx: { maxInputTokens: 1.5 }, path: 'maxInputTokens' },
  { name: 'maxInputTokens a string', ctx: { maxInputTokens: '1000' }, path: 'maxInputTokens' },
  { name: 'context a string', ctx: 'gpt-4o', path: 'context', culprit: /context/ },
  { name: 'model a number', ctx: { model: 5 }, path: 'model' },
  { name: 'systemPrompt a number', ctx: { systemPrompt: 5 }, path: 'systemPrompt' },
  { name: 'systemPrompt with a lone surrogate', ctx: { systemPrompt: 'be \ud800 brief' }, shimOnly: true, path: 'systemPrompt' },
  {
    name: 'a tool definition with a cycle',
    ctx: (() => {
      const t = { name: 'read' }
      t.self = t
      return { tools: [t] }
    })(),
    shimOnly: true,
    path: 'tools[0]',
  },
  { name: 'tools not an array', ctx: { tools: 'read' }, path: 'tools' },
  { name: 'a tool definition that is an object (wire wants JSON text)', ctx: { tools: [{ name: 'read' }] }, nativeOnly: true, path: 'tools[0]' },
]

describe('bad call contexts', () => {
  const native = new NativeContextEditor(TRIGGER_NOW)
  const shim = new ContextEditor(TRIGGER_NOW)
  for (const row of CONTEXT_CASES) {
    test(row.name, async () => {
      const expected = { code: 'INVALID_CONTEXT', culprit: row.culprit ?? new RegExp(`context\\.${escape(row.path)}`), path: row.path }
      if (!row.shimOnly) {
        throws(() => native.plan(wireHistory(), row.ctx), expected, 'native plan')
        throws(() => native.countTokens(wireHistory(), row.ctx), expected, 'native countTokens')
        await rejects(() => native.planAsync(wireHistory(), row.ctx), expected, 'native planAsync')
      }
      if (!row.nativeOnly) {
        throws(() => shim.edit(lcHistory(), row.ctx), expected, 'shim edit')
        await rejects(() => shim.editAsync(lcHistory(), row.ctx), expected, 'shim editAsync')
      }
    })
  }

  test('messageTokens that are not token counts name the message', () => {
    for (const bad of [NaN, -1, 1.5, 2 ** 40, '12']) {
      throws(
        () => shim.edit(lcHistory(), { messageTokens: [1, bad, 1] }),
        { code: 'INVALID_MESSAGE', culprit: /messages\[1\]\.tokens/, path: 'tokens', messageIndex: 1 },
        `messageTokens ${String(bad)}`,
      )
    }
  })
})
