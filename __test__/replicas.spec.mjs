// Replicas share nothing: a thread whose calls land on different editors (or different processes,
// as behind a load balancer) gets exactly the requests one editor serving every call would send.
// Every edit, stable (cache-aware) mode included, is a function of the history; the sessions an
// editor keeps only make next calls cheaper.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ContextEditor } from '../dist/index.js'
import { Rng } from './support/prng.mjs'
import { buildMessages, conversationSpecs, editOptions } from './support/conversations.mjs'
import { approxTokens } from './support/util.mjs'

const SELF = fileURLToPath(import.meta.url)

/** A seed's agent: its history, options and the message counts of its successive model calls. */
export function agent(seed) {
  const rng = new Rng(seed)
  const history = buildMessages(conversationSpecs(rng, { maxTurns: 16 }))
  const { options, maxInputTokens } = editOptions(rng, approxTokens(history), history.length)
  if (seed % 2 === 0) options.stable = true // cache-aware mode: steps chosen from the history alone
  if (seed % 3 === 0) options.tokenCountMethod = 'model'
  const ends = []
  for (let end = 1; end <= history.length; end += 1 + (seed % 3)) ends.push(end)
  return { history, options, maxInputTokens, ends }
}

/** The request a model receives: every output message's type and content fields, and the report. */
export function request({ messages, report }) {
  return JSON.stringify({
    messages: messages.map((m) => [m._getType(), m.content, m.tool_calls ?? null, m.tool_call_id ?? null]),
    report,
  })
}

function alone(seed) {
  const { history, options, maxInputTokens, ends } = agent(seed)
  const editor = new ContextEditor(options)
  return ends.map((end) => request(editor.edit(history.slice(0, end), { maxInputTokens })))
}

const suite = process.env.REPLICA_CHILD ? () => {} : test

suite('calls alternating between two editors give the requests one editor gives', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const { history, options, maxInputTokens, ends } = agent(seed)
    const replicas = [new ContextEditor(options), new ContextEditor(options)]
    const want = alone(seed)
    for (const [k, end] of ends.entries()) {
      // Uneven routing: two calls in a row on one replica, then a switch, like a real balancer.
      const replica = replicas[Math.floor(k / 2) % 2]
      const got = request(replica.edit(history.slice(0, end), { maxInputTokens }))
      assert.equal(got, want[k], `seed ${seed}, call ${k} (${end} messages)`)
    }
  }
})

suite('calls split between two processes give the requests one process gives', () => {
  const seeds = [2, 3, 6, 7, 12]
  // The child serves the odd calls of each seed; this process serves the even ones.
  const child = spawnSync(process.execPath, [SELF], {
    env: { ...process.env, REPLICA_CHILD: JSON.stringify(seeds) },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  })
  assert.equal(child.status, 0, child.stderr)
  const served = JSON.parse(child.stdout)
  for (const seed of seeds) {
    const { history, options, maxInputTokens, ends } = agent(seed)
    const editor = new ContextEditor(options)
    const want = alone(seed)
    for (const [k, end] of ends.entries()) {
      const got = k % 2 === 1 ? served[seed][k] : request(editor.edit(history.slice(0, end), { maxInputTokens }))
      assert.equal(got, want[k], `seed ${seed}, call ${k}`)
    }
  }
})

if (process.env.REPLICA_CHILD) {
  const out = {}
  for (const seed of JSON.parse(process.env.REPLICA_CHILD)) {
    const { history, options, maxInputTokens, ends } = agent(seed)
    const editor = new ContextEditor(options)
    out[seed] = ends.map((end, k) => (k % 2 === 1 ? request(editor.edit(history.slice(0, end), { maxInputTokens })) : null))
  }
  process.stdout.write(JSON.stringify(out))
}
