// Options are data: no option makes the editor read files, open sockets or run code. Hostile
// placeholders, tool names, models and encodings-as-model are inserted or compared verbatim, and
// the Rust sources of the core and the binding use no file, network or process API.

import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, test } from 'node:test'

import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'

import { ContextEditor } from 'context-editor'
import { contextEditingMiddleware } from 'context-editor/langchain'

const require = createRequire(import.meta.url)

// ---------------------------------------------------------------------------------------------
// options are data

describe('options are data: no file, socket or code execution', () => {
  const HOSTILE = [
    '${process.exit(1)}',
    '{{constructor.constructor("process.exit(1)")()}}',
    '`${require("child_process").execSync("touch /tmp/pwned")}`',
    '__proto__',
    'constructor',
    '/etc/passwd',
    'file:///etc/passwd',
    '../../../../../../etc/shadow',
    'http://127.0.0.1:9/',
    '\\\\server\\share',
    '%s%s%s%n',
    '\u0000\u202e',
  ]

  test('hostile placeholders, tool names, models and encodings-as-model are inserted or compared verbatim', async () => {
    const fs = require('node:fs')
    const net = require('node:net')
    const cp = require('node:child_process')
    const calls = []
    const spies = [
      [fs, ['openSync', 'readFileSync', 'open', 'readFile', 'createReadStream', 'writeFileSync', 'existsSync', 'statSync']],
      [fs.promises, ['open', 'readFile', 'writeFile']],
      [net, ['connect', 'createConnection']],
      [net.Socket.prototype, ['connect']],
      [cp, ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']],
    ]
    const saved = []
    for (const [obj, names] of spies) {
      for (const name of names) {
        const original = obj[name]
        saved.push([obj, name, original])
        obj[name] = function (...args) {
          calls.push(`${name}(${String(args[0]).slice(0, 60)})`)
          return original.apply(this, args)
        }
      }
    }
    const realEval = globalThis.eval
    globalThis.eval = (s) => {
      calls.push(`eval(${String(s).slice(0, 60)})`)
      return realEval(s)
    }
    try {
      for (const hostile of HOSTILE) {
        const history = [
          new HumanMessage(hostile),
          new AIMessage({ content: hostile, tool_calls: [{ id: hostile, name: hostile, args: { q: hostile } }] }),
          new ToolMessage({ content: 'result '.repeat(20), tool_call_id: hostile, name: hostile }),
          new AIMessage({ content: '', tool_calls: [{ id: 'b', name: 'other', args: {} }] }),
          new ToolMessage({ content: 'kept', tool_call_id: 'b', name: 'other' }),
        ]
        for (const tokenCountMethod of ['approx', 'model', 'estimate']) {
          const editor = new ContextEditor({
            trigger: { tokens: 1 },
            keep: { messages: 1 },
            placeholder: hostile,
            excludeTools: [hostile === 'other' ? 'x' : `${hostile}!`],
            clearToolInputs: [hostile],
            tokenCountMethod,
            model: hostile,
          })
          const { messages, report } = await editor.editAsync(history, {
            systemPrompt: hostile,
            model: hostile,
            tools: [{ name: hostile, description: hostile }],
          })
          assert.equal(messages[2].content, hostile, 'the placeholder is inserted verbatim')
          assert.deepEqual(messages[1].tool_calls[0].args, {}, 'inputs of the named tool are cleared')
          assert.equal(report.cleared[0].toolName, hostile)
          const mw = contextEditingMiddleware({ trigger: { tokens: 1 }, keep: { messages: 1 }, placeholder: hostile, tokenCountMethod })
          const seen = await mw.wrapModelCall({ messages: history, systemPrompt: hostile }, (req) => req.messages)
          assert.equal(seen[2].content, hostile)
        }
      }
    } finally {
      for (const [obj, name, original] of saved) obj[name] = original
      globalThis.eval = realEval
    }
    assert.deepEqual(calls, [], 'no file, socket, process or eval call')
    assert.equal({}.polluted, undefined)
  })

  test('the Rust sources of the core and the binding use no file, network or process API', () => {
    const root = new URL('..', import.meta.url)
    // Every Rust file, modules in subdirectories included.
    const rust = (dir) =>
      readdirSync(new URL(dir, root), { recursive: true })
        .filter((f) => String(f).endsWith('.rs'))
        .map((f) => new URL(`${dir}${f}`, root))
    const files = [...rust('crates/core/src/'), ...rust('src/')]
    assert.ok(files.length > 10)
    const forbidden = /\bstd::(fs|net|process|env)\b|\bFile::(open|create)\b|\bCommand::new\b|\bTcpStream\b|\bUdpSocket\b|\binclude_str!\(\s*concat!\(\s*env!/
    for (const f of files) {
      const text = readFileSync(f, 'utf8')
      assert.doesNotMatch(text, forbidden, `${f.pathname} uses an I/O API`)
    }
  })
})
