// One option schema: the JSON Schema the Xpert UI renders (`configSchema`), the option validation
// of the core (what `createMiddleware` and the LangChain factory run) and the documented defaults
// must not drift. The same option sets go to both validators; they must accept and reject the same
// ones. The JSON form has two documented extensions the UI schema leaves out (a list of trigger
// conditions, a list of tool names for clearToolInputs); they are listed explicitly below.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import Ajv from 'ajv'
import { configSchema, ContextEditingStrategy, OPTION_NAMES, withoutNulls } from 'context-editor/xpert'
import { ContextEditor } from 'context-editor'

const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true })
const validateUiSchema = ajv.compile(configSchema)
const strategy = new ContextEditingStrategy()

function acceptedByCore(options) {
  try {
    strategy.createMiddleware(options, {})
    return true
  } catch (e) {
    assert.equal(e.code, e.code === 'UNKNOWN_ENCODING' ? 'UNKNOWN_ENCODING' : 'INVALID_OPTIONS', `${JSON.stringify(options)}: ${e.message}`)
    return false
  }
}

const BIG = Number.MAX_SAFE_INTEGER + 1
const values = {
  trigger: [
    { tokens: 1 }, { tokens: 0 }, { tokens: -1 }, { tokens: 1.5 }, { tokens: '5' }, { messages: 1 }, { messages: 0 }, { messages: 2.5 },
    { messages: BIG }, { fraction: 0.5 }, { fraction: 0 }, { fraction: 1 }, { fraction: 1.01 }, { toolUses: 3 }, { toolUses: 0 },
    { toolUses: 1.5 }, {}, { foo: 1 }, { tokens: 5, messages: 3 }, { tokens: 5, fraction: 0.8, toolUses: 2 }, 'x', 5, true, [],
    { tokens: null, messages: 4 }, { tokens: null },
  ],
  keep: [
    { messages: 0 }, { messages: 3 }, { messages: -1 }, { messages: 1.5 }, { messages: BIG }, { tokens: 0 }, { tokens: 1.5 }, { tokens: -1 },
    { fraction: 0 }, { fraction: 1 }, { fraction: 1.5 }, {}, { messages: 1, tokens: 1 }, { bar: 1 }, 'x', [], 3, { messages: 2, tokens: null },
  ],
  excludeTools: [[], ['a'], ['a', 'b'], [1], 'a', {}, [null]],
  placeholder: ['', 'x', '[cleared]', 5, [], {}],
  clearToolInputs: [true, false, 'yes', 1, {}],
  clearAtLeast: [0, 10, -1, 1.5, '1', BIG],
  tokenCountMethod: ['approx', 'model', 'estimate', 'exact', 1, ''],
  maxInputTokens: [1, 128000, 0, -5, 1.5, '1', BIG],
  model: ['gpt-4o', 'deepseek-chat', '', 5],
  encoding: ['o200k_base', 'o200k_harmony', 'cl100k_base', 'p50k_base', 'p50k_edit', 'r50k_base', 'gpt2', 5],
  tokenCacheSize: [0, 10, -1, 1.5, 'big'],
  stable: [
    true, false, {}, { stepRatio: 3 }, { stepRatio: 0.5 }, { stepRatio: 0 }, { stepRatio: -1 }, { stepRatio: '3' },
    { stepTokens: 8000 }, { stepTokens: 1.5 }, { stepTokens: 0 }, { stepResults: 25 }, { stepResults: 0 }, { stepResults: BIG },
    { maxTokens: 90000 }, { maxTokens: 0 }, { maxTokens: BIG }, { stepRatio: 2, maxTokens: 90000 }, { stepTokens: 100, maxTokens: 900 },
    { stepRatio: 2, stepTokens: 100 }, { stepRatio: 2, stepResults: 5 }, { stepTokens: 1, stepResults: 1 },
    { stepRatio: null, stepTokens: 5 }, { steps: 2 }, 'yes', 1, [],
  ],
  cacheBreakpoints: [true, false, 'anthropic', 'openai', 1, {}, []],
}

test('the UI schema and the core accept and reject the same options', () => {
  assert.deepEqual(Object.keys(values).sort(), [...OPTION_NAMES].sort(), 'every option is covered')
  const cases = [
    {}, { foo: 1 }, { trigger: { tokens: 5000 }, keep: { messages: 2 }, excludeTools: ['search'], clearAtLeast: 100 },
    { trigger: { tokens: 90000 }, stable: true, cacheBreakpoints: true, tokenCountMethod: 'model' },
    { stable: { stepRatio: 2, maxTokens: 80000 }, cacheBreakpoints: 'anthropic' },
  ]
  for (const [key, list] of Object.entries(values)) for (const v of list) cases.push({ [key]: v })
  let accepted = 0
  let rejected = 0
  for (const options of cases) {
    const normalized = withoutNulls(options) ?? {}
    const ui = validateUiSchema(normalized)
    const core = acceptedByCore(options)
    assert.equal(ui, core, `${JSON.stringify(options)}: UI schema ${ui ? 'accepts' : 'rejects'} (${ajv.errorsText(validateUiSchema.errors)}), core ${core ? 'accepts' : 'rejects'}`)
    if (core) accepted++
    else rejected++
  }
  assert.ok(accepted > 30 && rejected > 50, `${accepted} accepted, ${rejected} rejected`)
})

test('documented JSON-only extensions: accepted by the core, left out of the UI schema', () => {
  for (const options of [{ trigger: [{ tokens: 5 }] }, { trigger: [{ messages: 2 }, { tokens: 5 }] }, { clearToolInputs: ['read_file'] }]) {
    assert.equal(validateUiSchema(options), false)
    assert.equal(acceptedByCore(options), true, JSON.stringify(options))
  }
  assert.match(configSchema.properties.trigger.description.en_US, /list/)
  assert.match(configSchema.properties.clearToolInputs.description.en_US, /list of tool names/)
})

test("the schema's defaults are the core's defaults", () => {
  const defaults = Object.fromEntries(Object.entries(configSchema.properties).filter(([, p]) => 'default' in p).map(([k, p]) => [k, p.default]))
  assert.deepEqual(defaults, {
    trigger: { tokens: 100000 }, keep: { messages: 3 }, excludeTools: [], placeholder: '[cleared]', clearToolInputs: false,
    clearAtLeast: 0, stable: false, cacheBreakpoints: false, tokenCountMethod: 'approx', tokenCacheSize: 200000,
  })
  // Same decisions with the defaults spelled out as with no options at all, below and above 100k tokens.
  for (const turns of [5, 30]) {
    const history = [{ role: 'user', content: 'go' }]
    for (let k = 0; k < turns; k++) {
      history.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'read', arguments: '{}' } }] })
      history.push({ role: 'tool', tool_call_id: `c${k}`, content: 'y'.repeat(16000) })
    }
    const implicit = new ContextEditor({}).plan(history)
    const explicit = new ContextEditor(defaults).plan(history)
    assert.deepEqual(explicit.ops, implicit.ops)
    assert.equal(implicit.report.triggered, turns === 30)
  }
})
