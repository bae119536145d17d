// A count's per-message numbers cross the binding as one Float64Array that the shim makes a plain
// array (src/numbers.rs, `numberList` in ts/native.ts) once a list is long enough; shorter ones
// are made element by element. Either way the caller gets a plain array of the right numbers, in
// every path a count takes (whole, through an edit's session, held), sync and async.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ContextEditor } from '../dist/index.js'
import { NativeContextEditor } from '../index.js'
import { langchain } from './support/columnar-conversations.mjs'
import { Rng } from './support/prng.mjs'

/** Each message's count on its own (a list of one, made element by element). */
const alone = (opts, messages) => messages.map((m) => new ContextEditor(opts).countTokens([m]).messages[0])

const isPlainList = (list, n) =>
  Array.isArray(list) && Object.getPrototypeOf(list) === Array.prototype && list.length === n && list.every((x) => typeof x === 'number')

test('per-message counts are a plain array of each message’s count, at every length around where the list crosses whole', async () => {
  const r = new Rng(21)
  const history = langchain(r, 90)
  for (const opts of [{}, { tokenCountMethod: 'model', model: 'gpt-4o' }]) {
    const each = alone(opts, history)
    for (const n of [0, 1, 2, 30, 31, 32, 33, 64, 90]) {
      const list = history.slice(0, n)
      const editor = new ContextEditor(opts)
      for (const counted of [editor.countTokens(list), editor.countTokens(list), await editor.countTokensAsync(list), editor.countTokens(list)]) {
        assert.ok(isPlainList(counted.messages, n), `${n} messages: a plain array of numbers`)
        assert.deepEqual(counted.messages, each.slice(0, n), `${JSON.stringify(opts)}, ${n} messages`)
      }
      // Through an edit's session too.
      editor.edit(list)
      assert.deepEqual(editor.countTokens(list).messages, each.slice(0, n))
    }
  }
})

test('the binding alone gives the same plain arrays, and a result each time', () => {
  const native = new NativeContextEditor({})
  const messages = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: 'x'.repeat(i) }))
  const a = native.countTokens(messages)
  const b = native.countTokens(messages)
  assert.ok(isPlainList(a.messages, 200))
  assert.notEqual(a.messages, b.messages, 'a new array each time')
  a.messages[0] = -1
  assert.notEqual(b.messages[0], -1)
  assert.deepEqual(
    b.messages,
    messages.map((m) => native.countTokens([m]).messages[0]),
  )
})

test('in a worker thread, which loads the package in an environment of its own, counts are the same plain arrays', async () => {
  const { Worker } = await import('node:worker_threads')
  const messages = Array.from({ length: 120 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} `.repeat(i % 7) }))
  const here = new ContextEditor({}).countTokens(messages)
  const source = `
    const { parentPort, workerData } = require('node:worker_threads')
    import(workerData.entry).then(({ ContextEditor }) => {
      const editor = new ContextEditor({})
      const first = editor.countTokens(workerData.messages)
      const again = editor.countTokens(workerData.messages)
      parentPort.postMessage({ first, again, plain: Array.isArray(again.messages) && Object.getPrototypeOf(again.messages) === Array.prototype })
    })
  `
  const entry = new URL('../dist/index.js', import.meta.url).href
  const got = await new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { entry, messages } })
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  assert.ok(got.plain, 'a plain array in the worker')
  assert.deepEqual(got.first, here)
  assert.deepEqual(got.again, here)
})
