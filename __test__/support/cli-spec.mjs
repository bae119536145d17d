// Helpers shared by the command-line specs cli.spec.mjs, cli-inspect.spec.mjs and cli-jsonl.spec.mjs:
// the command run as a user runs it (never a TTY, NO_COLOR/FORCE_COLOR unset), a temporary working
// folder per spec file (`useCliDir()` registers its hooks), and the input conversations.

import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages'

export const BIN = fileURLToPath(new URL('../../bin/context-editor.js', import.meta.url))
export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const ESC = '\x1b['
const execFileP = promisify(execFile)

/** Runs the command; resolves to { code, stdout, stderr }. Never a TTY; NO_COLOR/FORCE_COLOR unset. */
export async function cli(args, { input, env = {}, cwd } = {}) {
  const baseEnv = { ...process.env }
  delete baseEnv.NO_COLOR
  delete baseEnv.FORCE_COLOR
  const child = execFileP(process.execPath, [BIN, ...args], { cwd: cwd ?? dir, env: { ...baseEnv, ...env }, maxBuffer: 64 << 20 })
  if (input !== undefined) child.child.stdin.end(input)
  else child.child.stdin.end()
  try {
    const { stdout, stderr } = await child
    return { code: 0, stdout, stderr }
  } catch (e) {
    if (typeof e.code !== 'number') throw e
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

export let dir
export const file = (name, content) => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2))
  return path
}
export const read = (name) => readFileSync(join(dir, name), 'utf8')
export const big = (c, n = 2000) => c.repeat(n)

/** Makes the temporary folder before the file's tests and removes it after them; call it at the top level of a spec file. */
export function useCliDir() {
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'context-editor-cli-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))
}

/** An OpenAI chat-completions request with three large tool results. */
export function openaiRequest() {
  const call = (id, name, args) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } })
  return {
    model: 'gpt-4o',
    temperature: 0.2,
    tools: [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object' } } }],
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'fix it' },
      { role: 'assistant', content: null, tool_calls: [call('c1', 'read_file', { path: 'a.ts' })] },
      { role: 'tool', tool_call_id: 'c1', content: big('a') },
      { role: 'assistant', content: 'next', tool_calls: [call('c2', 'read_file', { path: 'b.ts' })] },
      { role: 'tool', tool_call_id: 'c2', content: big('b') },
      { role: 'assistant', content: null, tool_calls: [call('c3', 'grep', { q: 'x' })] },
      { role: 'tool', tool_call_id: 'c3', content: big('c') },
      { role: 'assistant', content: 'done' },
    ],
  }
}

/** An Anthropic Messages request: top-level system, thinking, tool_use / tool_result blocks. */
export function anthropicRequest() {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'You are a coding agent.', cache_control: { type: 'ephemeral' } }],
    tools: [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object' } }],
    messages: [
      { role: 'user', content: 'fix the bug' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should read a.ts', signature: 'sig1' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'tu_1', name: 'read_file', input: { path: 'a.ts' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: big('a') }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'tu_2', name: 'read_file', input: { path: 'b.ts' } },
          { type: 'tool_use', id: 'tu_3', name: 'grep', input: { q: 'x' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'tu_2', content: [{ type: 'text', text: big('b') }] },
          { type: 'tool_result', tool_use_id: 'tu_3', content: big('c', 100), is_error: true },
          { type: 'text', text: 'also check c.ts' },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_missing', content: 'orphan' }] },
      { role: 'assistant', content: 'Done.' },
    ],
  }
}

export function langchainMessages() {
  return [
    new SystemMessage('You are helpful.'),
    new HumanMessage('go'),
    new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'search', args: { q: 'a' } }] }),
    new ToolMessage({ content: big('a'), tool_call_id: 'c1', name: 'search', artifact: { raw: 1 } }),
    new AIMessage({ content: 'more', tool_calls: [{ id: 'c2', name: 'search', args: { q: 'b' } }] }),
    new ToolMessage({ content: big('b'), tool_call_id: 'c2', name: 'search' }),
    new AIMessage('done'),
  ]
}

export const TIGHT = ['--option', 'trigger.tokens=100', '--option', 'keep.messages=1']
