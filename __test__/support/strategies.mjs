// Helpers shared by the strategies specs (strategies*.spec.mjs): a pipeline from a list of edits,
// message types and contents at a glance, data snapshots, and a subset check for reports.

import assert from 'node:assert/strict'

import { ContextEditor } from '../../dist/index.js'

export const pipeline = (...edits) => new ContextEditor({ edits })
export const types = (msgs) => msgs.map((m) => (typeof m._getType === 'function' ? m._getType() : (m.role ?? m.type)))
export const contents = (msgs) => msgs.map((m) => m.content)

/** `structuredClone` keeps data, not classes: enough to show the input's data did not change. */
export function snapshot(msgs) {
  return JSON.parse(JSON.stringify(msgs))
}

/** Checks that every key of `expected` has the same value in `actual` (arrays: same length, each element a subset). */
export function assertSubset(actual, expected, path = 'report') {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: expected an array`)
    assert.equal(actual.length, expected.length, `${path}.length`)
    expected.forEach((e, k) => assertSubset(actual[k], e, `${path}[${k}]`))
  } else if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${path}: expected an object`)
    for (const [k, v] of Object.entries(expected)) assertSubset(actual[k], v, `${path}.${k}`)
  } else {
    assert.equal(actual, expected, path)
  }
}
