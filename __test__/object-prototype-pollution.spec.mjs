// A key someone put on Object.prototype (`Object.prototype.role = 'tool'`, by a bug or an attack) is
// not a field of any message, block, call, context or option: every entry point decides as it would
// without it, whether the key is enumerable or not, and leaves Object.prototype as it found it.
import { test, describe, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ContextEditor, applyPlan } from '../dist/index.js'
import { NativeContextEditor, toWireMessages } from '../index.js'
import { contextEditingMiddleware } from '../dist/langchain/index.js'
import { ContextEditingStrategy } from '../dist/xpert/index.js'
import { PIPELINES, SHAPES, dump, richSpecs } from './support/edits.mjs'
import { ON_WASM } from './support/binding.mjs'

/** Keys the library reads somewhere, each with a value that would change a decision if it were read. */
const POLLUTION = {
  // messages
  role: 'tool',
  type: 'tool',
  data: { content: 'from the prototype' },
  content: 'x'.repeat(500),
  tool_calls: [{ id: 'ghost', name: 'ghost', args: {} }],
  tool_call_id: 'ghost',
  name: 'ghost-tool',
  id: 'ghost-id',
  _getType: () => 'tool',
  lc_kwargs: {},
  response_metadata: { context_editing: { cleared: true } },
  additional_kwargs: { reasoning_content: 'r'.repeat(500) },
  reasoning_content: 'r'.repeat(500),
  // below a message
  context_editing: { cleared: true },
  cleared: true,
  truncated: true,
  cleared_tool_inputs: ['c0', 'c1'],
  reasoning: 'r'.repeat(500),
  text: 't'.repeat(500),
  mime_type: 'image/png',
  cache_control: { type: 'ephemeral' },
  function: { name: 'ghost', arguments: '{"a":1}' },
  args: { ghost: 'g'.repeat(300) },
  toJSON: () => 'ghost',
  0: { role: 'user', content: 'ghost' },
  // the call context
  maxInputTokens: 10,
  systemPrompt: 's'.repeat(500),
  tools: ['{"name":"ghost"}'],
  systemPromptLength: 5000,
  toolLengths: [5000],
  anchorIndex: 2,
  anchorTokens: 99999,
  tokenCorrection: 3,
  model: 'gpt-3.5-turbo',
  messageTokens: [100000, 100000, 100000],
  summarize: () => 'ghost summary',
  // options
  edits: [{ type: 'last_n', n: 1 }],
  trigger: { tokens: 1 },
  keep: { messages: 0 },
  tokenCountMethod: 'model',
  placeholder: 'ghost',
  excludeTools: ['read'],
  clearToolInputs: true,
  cacheBreakpoints: true,
  onReport: () => {
    throw new Error('ghost onReport')
  },
  // plans and the wire form
  summary: { replaced: [1], insertAt: 1, summarized: [1], prompt: 'p', prefix: 'ghost', role: 'user', tokensReplaced: 1 },
  strategy: 'ghost',
  keepChars: 1,
  marker: 'ghost',
  callIndices: [0],
  toolCallIds: ['c0'],
  contentLength: 100000,
  toolCalls: [{ id: 'ghost', name: 'ghost', args: '{}' }],
  toolCallId: 'ghost',
  images: 100,
  thinking: 't'.repeat(500),
  thinkingLength: 100000,
  other: 'o'.repeat(500),
  otherLength: 100000,
  toolCallsLength: 100000,
  tokens: 100000,
  argsLength: 100000,
  cacheBreakpointsInUse: 4,
}

const STANDARD = Reflect.ownKeys(Object.prototype)

/** Asserts two JSON texts are equal, showing where they first differ. */
function sameText(got, want, what) {
  if (got === want) return
  let i = 0
  while (got[i] === want[i]) i++
  assert.fail(`${what}: differs at ${i}\n  got:  …${got.slice(Math.max(0, i - 120), i + 80)}\n  want: …${want.slice(Math.max(0, i - 120), i + 80)}`)
}

/** Runs `f` with `key` put on Object.prototype (enumerable or not), and always takes it off again. */
async function polluted(key, enumerable, f) {
  Object.defineProperty(Object.prototype, key, { value: POLLUTION[key], writable: true, configurable: true, enumerable })
  try {
    return await f()
  } finally {
    delete Object.prototype[key]
  }
}

after(() => assert.deepEqual(Reflect.ownKeys(Object.prototype), STANDARD))

const OPTIONS = {
  ...PIPELINES,
  'last n': { edits: [{ type: 'last_n', n: 3 }] },
  'model counts, summarize': { tokenCountMethod: 'model', edits: [{ type: 'summarize', trigger: { messages: 4 }, keep: { messages: 2 } }] },
}

/** What every ContextEditor entry point gives for `messages` (three equal histories, built beforehand). */
async function everything(options, histories) {
  const context = { summarize: () => 'the summary' }
  const editor = new ContextEditor(options)
  const edited = editor.edit(histories[0], context)
  const again = editor.edit(histories[0], context)
  const editedAsync = await editor.editAsync(histories[1], context)
  const plan = editor.plan(histories[2])
  const planAsync = await editor.planAsync(histories[2])
  return {
    edited: dump(edited.messages),
    report: edited.report,
    again: dump(again.messages),
    editedAsync: dump(editedAsync.messages),
    reportAsync: editedAsync.report,
    plan: { ops: plan.ops, report: plan.report, summary: plan.summary },
    planAsync: { ops: planAsync.ops, summary: planAsync.summary },
    applied: dump(applyPlan(histories[2], { ops: plan.ops })),
    count: editor.countTokens(histories[2]),
    countAsync: await editor.countTokensAsync(histories[2]),
    wire: toWireMessages(histories[2], { sendText: true }),
    lengths: toWireMessages(histories[2]),
  }
}

// On the WebAssembly build, two of the four shapes: every shape reaches the binding in the same wire
// form, and the shim's reading of each shape is checked on the native run.
const shapes = ON_WASM ? ['LangChain instance', 'OpenAI'].map((k) => [k, SHAPES[k]]) : Object.entries(SHAPES)

describe('ContextEditor, applyPlan and toWireMessages decide as without the key', () => {
  for (const [shape, build] of shapes) {
    for (const [name, options] of Object.entries(OPTIONS)) {
      test(`${shape}, ${name}`, async () => {
        const want = JSON.stringify(await everything(options, [build(richSpecs()), build(richSpecs()), build(richSpecs())]))
        for (const key of Object.keys(POLLUTION)) {
          for (const enumerable of [false, true]) {
            // The histories are built before the key is put there (LangChain's constructors would take it).
            const histories = [build(richSpecs()), build(richSpecs()), build(richSpecs())]
            const got = await polluted(key, enumerable, () => everything(options, histories))
            sameText(JSON.stringify(got), want, `Object.prototype.${key} (${enumerable ? '' : 'not '}enumerable)`)
          }
        }
      })
    }
  }
})

describe('the native binding reads what its arguments hold', () => {
  const wire = () => [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'go' },
    { role: 'assistant', toolCalls: [{ id: 'c0', name: 'read', args: '{"path":"a"}' }] },
    { role: 'tool', toolCallId: 'c0', content: 'x'.repeat(400) },
    { role: 'assistant', content: 'and b', toolCalls: [{ id: 'c1', name: 'read', args: '{"path":"b"}' }] },
    { role: 'tool', toolCallId: 'c1', content: 'y'.repeat(400), clearedToolInputs: ['c1'] },
    { role: 'user', content: 'thanks' },
  ]
  const options = () => ({ trigger: { tokens: 100 }, keep: { messages: 1 }, excludeTools: ['grep'] })
  // Inputs are made before the key is put there (JSON.stringify would call a `toJSON` put there).
  const inputs = () => ({ options: options(), wire: [wire(), wire(), wire(), wire()], json: JSON.stringify(wire()) })
  const calls = async ({ options, wire, json }) => {
    const native = new NativeContextEditor(options)
    return {
      plan: native.plan(wire[0], {}),
      count: native.countTokens(wire[1], { systemPrompt: 'sys' }),
      json: native.planJson(json, {}),
      session: reportText(native.planSession(1, 0, wire[2], { maxInputTokens: 100000 })),
      async: await native.planAsync(wire[3], {}),
    }
  }
  test('plan, countTokens, planJson, planSession, planAsync, and the options', async () => {
    const want = JSON.stringify(await calls(inputs()))
    for (const key of Object.keys(POLLUTION)) {
      for (const enumerable of [false, true]) {
        const given = inputs()
        const got = await polluted(key, enumerable, () => calls(given))
        sameText(JSON.stringify(got), want, `Object.prototype.${key} (${enumerable ? '' : 'not '}enumerable)`)
      }
    }
  })

  test('a hole in the messages stays a hole', async () => {
    const holey = wire()
    delete holey[3]
    POLLUTION[3] = { role: 'user', content: 'from the prototype' }
    await polluted(3, true, () => {
      assert.throws(
        () => new NativeContextEditor(options()).plan(holey, {}),
        (e) => e.code === 'INVALID_MESSAGE' && e.messageIndex === 3,
      )
    })
  })
})

describe('the native side asks the shim whether Object.prototype is polluted, and is not fooled', () => {
  // The package hands the binding its check (`prototypePolluted`, ts/wire/fields.ts) and the
  // binding trusts its "clean" instead of reading the prototype's keys again. Code that replaces
  // the built-ins such a check would call, to hide the key, changes nothing.
  const wire = () => [
    { role: 'user', content: 'go' },
    { role: 'assistant', toolCalls: [{ id: 'c0', name: 'read', args: '{"path":"a"}' }] },
    { role: 'tool', toolCallId: 'c0', content: 'x'.repeat(400) },
  ]
  const options = { trigger: { tokens: 100 }, keep: { messages: 0 } }
  const history = () => [
    { role: 'user', content: 'go' },
    ...wire()
      .slice(1)
      .map((m) => ({ ...m, tool_call_id: m.toolCallId })),
  ]
  // What the calls give, made into text once the built-ins are back (the test's own `dump` uses them).
  const calls = () => {
    const native = new NativeContextEditor(options)
    return {
      count: native.countTokens(wire(), {}),
      session: reportText(native.planSession(1, 0, wire(), {})),
      edited: new ContextEditor(options).edit(history()).messages,
    }
  }
  const text = (r) => JSON.stringify({ ...r, edited: dump(r.edited) })
  // What a check of the prototype's keys would call (the package calls neither anywhere else; a
  // liar for a method it also uses elsewhere, Set.prototype.has say, breaks more than the check).
  // On the WebAssembly build Node-API itself is JavaScript (emnapi) that calls
  // Object.getOwnPropertyNames: replacing it there changes every read, not only the check.
  const liars = {
    'Reflect.ownKeys': [Reflect, 'ownKeys', () => [...STANDARD]],
    ...(ON_WASM ? {} : { 'Object.getOwnPropertyNames': [Object, 'getOwnPropertyNames', () => STANDARD.filter((k) => typeof k === 'string')] }),
  }
  for (const key of ['tokenCorrection', 'anchorIndex', 'maxInputTokens', 'toolLengths']) {
    test(`Object.prototype.${key}, with the built-ins replaced to hide it`, async () => {
      const want = text(calls())
      const saved = Object.entries(liars).map(([, [holder, name]]) => [holder, name, holder[name]])
      const got = await polluted(key, true, () => {
        for (const [, [holder, name, liar]] of Object.entries(liars)) holder[name] = liar
        try {
          return calls()
        } finally {
          for (const [holder, name, original] of saved) holder[name] = original
        }
      })
      sameText(text(got), want, `Object.prototype.${key}`)
    })
  }

  test('a check that throws or answers no boolean is no answer: the binding reads the keys itself', () => {
    // The raw loader, without the package (which installs its own check first): a process each.
    const script = (check) => `
      const binding = require(${JSON.stringify(fileURLToPath(new URL('../binding.cjs', import.meta.url)))})
      ${check === undefined ? '' : `binding.__setPrototypeCheck(${check})`}
      const wire = [{ role: 'user', content: 'x'.repeat(400) }, { role: 'assistant', content: 'y'.repeat(400) }]
      const native = new binding.NativeContextEditor({ trigger: { tokens: 100 }, keep: { messages: 0 } })
      const clean = native.countTokens(wire, {}).total
      Object.prototype.tokenCorrection = 3
      Object.prototype.maxInputTokens = 10
      let got
      try {
        got = native.countTokens(wire, {}).total
      } finally {
        delete Object.prototype.tokenCorrection
        delete Object.prototype.maxInputTokens
      }
      console.log(JSON.stringify({ clean, got }))`
    const run = (check) =>
      JSON.parse(
        execFileSync(process.execPath, ['--no-warnings', '-e', script(check)], { encoding: 'utf8' })
          .trim()
          .split('\n')
          .pop(),
      )
    const cases = {
      'no check': undefined,
      'a check that throws': '() => { throw new Error("no") }',
      'a check that answers a string': '() => "clean"',
      'a check that answers 0': '() => 0',
    }
    for (const [name, check] of Object.entries(cases)) {
      const { clean, got } = run(check)
      assert.equal(got, clean, `${name}: the key on Object.prototype was read as the context's`)
    }
    // The control: a check that says "clean" is trusted, so the keys are read (and change the
    // count): why the package's check reads nothing the caller could replace.
    const trusted = run('() => false')
    assert.equal(trusted.got, trusted.clean * 3, 'a check answering false is what the binding goes by')
  })
})

describe('the middlewares decide as without the key', () => {
  const request = () => {
    const [system, ...messages] = SHAPES['LangChain instance'](richSpecs())
    return { messages, systemMessage: system, tools: [], model: { model: 'gpt-4o' } }
  }
  const sent = async (middleware, req) => {
    let got
    await middleware.wrapModelCall(req, async (r) => {
      got = r
      return 'done'
    })
    return dump({ messages: got.messages, system: got.systemMessage })
  }
  const config = { trigger: { tokens: 200 }, keep: { messages: 1 }, clearToolInputs: true }
  test('LangChain’s contextEditingMiddleware and the Xpert strategy, built and called under the key', async () => {
    const want = JSON.stringify(await sent(contextEditingMiddleware(config), request()))
    const wantXpert = JSON.stringify(await sent(new ContextEditingStrategy().createMiddleware(config), request()))
    for (const key of Object.keys(POLLUTION)) {
      for (const enumerable of [false, true]) {
        const what = `Object.prototype.${key} (${enumerable ? '' : 'not '}enumerable)`
        const [req, reqXpert] = [request(), request()]
        const [got, gotXpert] = await polluted(key, enumerable, async () => [
          await sent(contextEditingMiddleware(config), req),
          await sent(new ContextEditingStrategy().createMiddleware(config), reqXpert),
        ])
        sameText(JSON.stringify(got), want, what)
        sameText(JSON.stringify(gotXpert), wantXpert, what)
      }
    }
  })
})

describe('a summarizer’s answer is read as it is', () => {
  const history = () => [
    { role: 'user', content: 'a'.repeat(100) },
    { role: 'assistant', content: 'b'.repeat(100) },
    { role: 'user', content: 'c' },
    { role: 'assistant', content: 'd' },
    { role: 'user', content: 'e' },
  ]
  const options = { edits: [{ type: 'summarize', trigger: { messages: 3 }, keep: { messages: 1 } }] }
  // Answers a key on Object.prototype would change: no content (kept, warned), a text block without
  // text, a message that is not a Promise, a block without a type, a hole among the blocks.
  const ANSWERS = {
    content: () => ({}),
    text: () => ({ content: [{ type: 'text' }, { type: 'text', text: 'real' }] }),
    then: () => ({ content: 'real' }),
    type: () => ({ content: [{ text: 'real' }] }),
    0: () => ({ content: [, { type: 'text', text: 'real' }] }), // eslint-disable-line no-sparse-arrays
  }
  for (const [key, answer] of Object.entries(ANSWERS)) {
    test(`Object.prototype.${key}`, async () => {
      // A `then` on Object.prototype makes every object a thenable to `await` (a Promise resolved
      // with an answer, or with editAsync's result, calls it): only the synchronous edit is JavaScript's to keep.
      const run = (h) => {
        const sync = new ContextEditor(options).edit(h[0], { summarize: answer })
        if (key === 'then') return JSON.stringify([dump(sync.messages), sync.report.warnings])
        return both(h, sync)
      }
      const both = async (h, sync) => {
        const async = await new ContextEditor(options).editAsync(h[1], { summarize: async () => answer() })
        return JSON.stringify([dump(sync.messages), sync.report.warnings, dump(async.messages), async.report.warnings])
      }
      const want = await run([history(), history()])
      for (const enumerable of [false, true]) {
        const given = [history(), history()]
        const value = key === 'then' ? (resolve) => resolve('ghost') : key === 'type' ? 'thinking' : 'ghost'
        Object.defineProperty(Object.prototype, key, { value, writable: true, configurable: true, enumerable })
        let got
        try {
          // Nothing is awaited while `then` is there (the test runner's own promises would call it).
          got = key === 'then' ? run(given) : await run(given)
        } finally {
          delete Object.prototype[key]
        }
        got = await got
        sameText(got, want, `Object.prototype.${key} (${enumerable ? '' : 'not '}enumerable)`)
      }
    })
  }
})

/** A packed plan's report as JSON text: kept native (`report`) or made at once (`reportJson`, a small one). */
function reportText(packed) {
  return packed.report !== undefined ? packed.report.json() : packed.reportJson
}
