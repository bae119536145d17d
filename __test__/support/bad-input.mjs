// Helpers shared by the bad-input specs (bad-input*.spec.mjs): assertions that an error has the
// expected code, names its culprit and carries its path / message index; depth bombs and cycles;
// and a valid conversation in the wire and LangChain forms.

import assert from 'node:assert/strict'

import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'

export function escape(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Asserts the error's code, that its message names the culprit, and its path / index. */
export function check(err, { code, culprit, path, messageIndex }, where) {
  assert.ok(err, `${where}: expected an error`)
  assert.equal(err.code, code, `${where}: code (message: ${err.message})`)
  assert.match(err.message, culprit, `${where}: the message names the culprit`)
  if (path instanceof RegExp) assert.match(String(err.path), path, `${where}: path`)
  else if (path !== undefined) assert.equal(err.path, path, `${where}: path`)
  if (messageIndex !== undefined) assert.equal(err.messageIndex, messageIndex, `${where}: messageIndex`)
}

export function throws(fn, expected, where) {
  let err
  try {
    fn()
  } catch (e) {
    err = e
  }
  check(err, expected, where)
  return err
}

export async function rejects(fn, expected, where) {
  let err
  try {
    await fn()
  } catch (e) {
    err = e
  }
  check(err, expected, where)
  return err
}

/** A depth bomb: `levels` nested objects (or arrays). */
export function nested(levels, array = false) {
  let v = array ? [] : {}
  for (let i = 0; i < levels; i++) v = array ? [v] : { a: v }
  return v
}

export function cyclic() {
  const o = { trigger: { tokens: 5 } }
  o.trigger.self = o
  return o
}

export const TRIGGER_NOW = { trigger: { tokens: 1 }, keep: { messages: 0 } }

/** A valid conversation in each form, for context rows. */
export const wireHistory = () => [
  { role: 'user', content: 'hi' },
  { role: 'assistant', toolCalls: [{ id: 'a', name: 'read', args: '{}' }] },
  { role: 'tool', toolCallId: 'a', name: 'read', content: 'result' },
]
export const lcHistory = () => [
  new HumanMessage('hi'),
  new AIMessage({ content: '', tool_calls: [{ id: 'a', name: 'read', args: {} }] }),
  new ToolMessage({ content: 'result', tool_call_id: 'a', name: 'read' }),
]
