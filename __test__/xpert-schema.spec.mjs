// One option schema: the JSON Schema the Xpert UI renders (`configSchema`), the option validation
// of the core (what `createMiddleware` and the LangChain factory run) and the documented defaults
// must not drift. The same option sets go to both validators; they must accept and reject the same
// ones. The JSON form has documented extensions the UI schema leaves out (a list of trigger
// conditions, a list of tool names for clearToolInputs, a step-rule object for `stable`,
// `"anthropic"` for cacheBreakpoints): the form renders one widget per field from its `type`, so
// those stay JSON-only; they are listed explicitly below.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import Ajv from 'ajv'
import { configSchema, ContextEditingStrategy } from 'context-editor/xpert'
// Internal helpers of the option schema (not part of the package's entries).
import { OPTION_NAMES, withoutNulls } from '../dist/schema.js'
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
    { tokens: 1 },
    { tokens: 0 },
    { tokens: -1 },
    { tokens: 1.5 },
    { tokens: '5' },
    { messages: 1 },
    { messages: 0 },
    { messages: 2.5 },
    { messages: BIG },
    { fraction: 0.5 },
    { fraction: 0 },
    { fraction: 1 },
    { fraction: 1.01 },
    { toolUses: 3 },
    { toolUses: 0 },
    { toolUses: 1.5 },
    {},
    { foo: 1 },
    { tokens: 5, messages: 3 },
    { tokens: 5, fraction: 0.8, toolUses: 2 },
    'x',
    5,
    true,
    [],
    { tokens: null, messages: 4 },
    { tokens: null },
  ],
  keep: [
    { messages: 0 },
    { messages: 3 },
    { messages: -1 },
    { messages: 1.5 },
    { messages: BIG },
    { tokens: 0 },
    { tokens: 1.5 },
    { tokens: -1 },
    { fraction: 0 },
    { fraction: 1 },
    { fraction: 1.5 },
    {},
    { messages: 1, tokens: 1 },
    { bar: 1 },
    'x',
    [],
    3,
    { messages: 2, tokens: null },
  ],
  excludeTools: [[], ['a'], ['a', 'b'], [1], 'a', {}, [null]],
  placeholder: ['', 'x', '[cleared]', 5, [], {}],
  clearToolInputs: [true, false, 'yes', 1, {}],
  clearAtLeast: [0, 10, -1, 1.5, '1', BIG],
  tokenCountMethod: ['approx', 'model', 'estimate', 'usage', 'exact', 1, ''],
  maxInputTokens: [1, 128000, 0, -5, 1.5, '1', BIG],
  model: ['gpt-4o', 'deepseek-chat', '', 5],
  encoding: ['o200k_base', 'o200k_harmony', 'cl100k_base', 'p50k_base', 'p50k_edit', 'r50k_base', 'gpt2', 5],
  tokenizer: ['qwen3', '', 5, []],
  tokenCacheSize: [0, 10, -1, 1.5, 'big'],
  stable: [
    true,
    false,
    {},
    { stepRatio: 3 },
    { stepRatio: 0.5 },
    { stepRatio: 0 },
    { stepRatio: -1 },
    { stepRatio: '3' },
    { stepTokens: 8000 },
    { stepTokens: 1.5 },
    { stepTokens: 0 },
    { stepResults: 25 },
    { stepResults: 0 },
    { stepResults: BIG },
    { maxTokens: 90000 },
    { maxTokens: 0 },
    { maxTokens: BIG },
    { stepRatio: 2, maxTokens: 90000 },
    { stepTokens: 100, maxTokens: 900 },
    { stepRatio: 2, stepTokens: 100 },
    { stepRatio: 2, stepResults: 5 },
    { stepTokens: 1, stepResults: 1 },
    { stepRatio: null, stepTokens: 5 },
    { steps: 2 },
    'yes',
    1,
    [],
  ],
  cacheBreakpoints: [true, false, 'anthropic', 'openai', 1, {}, []],
  pin: [{}, { tools: ['a'] }, { currentRun: true }, 'x'],
  recovery: [true, false, {}, { target: 0.5 }, { enabled: false }, 'yes', 1, []],
  usageFallback: ['approx', 'model', 'estimate', 'usage', 'exact', 5],
  prefer: [
    {},
    { duplicate: true },
    { duplicate: false },
    { superseded: true },
    { superseded: false, duplicate: true },
    { superseded: { writers: ['fs_put:target.file'], readers: ['fs_read'] } },
    { superseded: {} },
    { duplicate: 1 },
    { stale: true },
    { superseded: 'yes' },
    'duplicate',
    5,
  ],
}

/** The JSON-only extensions of `stable` and `cacheBreakpoints` (checked in the next test). */
function jsonOnly(key, v) {
  return (
    (key === 'stable' && v !== null && typeof v === 'object' && !Array.isArray(v)) ||
    (key === 'cacheBreakpoints' && v === 'anthropic') ||
    (key === 'trigger' && Array.isArray(v)) || // a list of trigger conditions (`[]`: never fires)
    (key === 'recovery' && v !== null && typeof v === 'object' && !Array.isArray(v)) || // { enabled, target }
    (key === 'prefer' && v !== null && typeof v === 'object' && typeof v.superseded === 'object') // writers/readers lists
  )
}

test('the UI schema and the core accept and reject the same options', () => {
  assert.deepEqual(Object.keys(values).sort(), [...OPTION_NAMES].sort(), 'every option is covered')
  const cases = [
    {},
    { foo: 1 },
    { trigger: { tokens: 5000 }, keep: { messages: 2 }, excludeTools: ['search'], clearAtLeast: 100 },
    { trigger: { tokens: 90000 }, stable: true, cacheBreakpoints: true, tokenCountMethod: 'model' },
  ]
  for (const [key, list] of Object.entries(values)) for (const v of list) if (!jsonOnly(key, v)) cases.push({ [key]: v })
  let accepted = 0
  let rejected = 0
  for (const options of cases) {
    const normalized = withoutNulls(options) ?? {}
    const ui = validateUiSchema(normalized)
    const core = acceptedByCore(options)
    assert.equal(
      ui,
      core,
      `${JSON.stringify(options)}: UI schema ${ui ? 'accepts' : 'rejects'} (${ajv.errorsText(validateUiSchema.errors)}), core ${core ? 'accepts' : 'rejects'}`,
    )
    if (core) accepted++
    else rejected++
  }
  assert.ok(accepted > 30 && rejected > 50, `${accepted} accepted, ${rejected} rejected`)
})

test('documented JSON-only extensions: accepted by the core, left out of the UI schema', () => {
  for (const options of [
    { trigger: [{ tokens: 5 }] },
    { trigger: [{ messages: 2 }, { tokens: 5 }] },
    { clearToolInputs: ['read_file'] },
    { stable: { stepRatio: 2, maxTokens: 80000 } },
    { stable: { stepTokens: 8000 } },
    { stable: {} },
    { cacheBreakpoints: 'anthropic' },
    { trigger: [] },
    { prefer: ['superseded', 'duplicate'] },
    { prefer: { superseded: { writers: ['fs_put:target.file'] } } },
    { recovery: { target: 0.7 } },
    { recovery: {} },
  ]) {
    assert.equal(validateUiSchema(options), false)
    assert.equal(acceptedByCore(options), true, JSON.stringify(options))
  }
  assert.match(configSchema.properties.trigger.description.en_US, /list/)
  assert.match(configSchema.properties.clearToolInputs.description.en_US, /list of tool names/)
  assert.match(configSchema.properties.stable.description.en_US, /In JSON you may give a step rule/)
  assert.match(configSchema.properties.cacheBreakpoints.description.en_US, /"anthropic" is the same as true/)
  for (const bad of [{ stable: { stepRatio: 0 } }, { stable: { steps: 2 } }, { cacheBreakpoints: 'openai' }]) {
    assert.equal(acceptedByCore(bad), false, JSON.stringify(bad))
  }
})

test("the schema's defaults are the core's defaults", () => {
  const defaults = Object.fromEntries(
    Object.entries(configSchema.properties)
      .filter(([, p]) => 'default' in p)
      .map(([k, p]) => [k, p.default]),
  )
  // trigger and keep carry no `default`: the form copies a default into the empty field, and a
  // pre-filled `{ messages: 3 }` plus the user's `tokens` would be two keep rules. Their defaults are
  // in the descriptions, and the core applies them.
  assert.match(configSchema.properties.trigger.description.en_US, /Default: \{ "tokens": 100000 \}/)
  assert.match(configSchema.properties.keep.description.en_US, /Default: \{ "messages": 3 \}/)
  defaults.trigger = { tokens: 100000 }
  defaults.keep = { messages: 3 }
  assert.deepEqual(defaults, {
    trigger: { tokens: 100000 },
    keep: { messages: 3 },
    excludeTools: [],
    placeholder: '[cleared]',
    clearToolInputs: false,
    clearAtLeast: 0,
    stable: false,
    cacheBreakpoints: false,
    tokenCountMethod: 'approx',
    tokenCacheSize: 200000,
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

// What the Xpert 3.7.x form can render (apps/cloud json-schema-property): one widget chosen by
// the field's `type` (string, number, integer, boolean as a switch, array, object with
// properties). A field without `type`, or with a list of types or a union, becomes a text input
// that can only produce strings (then `"true"` is rejected). The form copies `default` into an
// empty field, so an object field, or a field inside one, must not carry a default that combines
// with what the user types into an invalid or different rule.
const RENDERABLE = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object'])
function formProblems(props, at = '') {
  const problems = []
  for (const [k, p] of Object.entries(props)) {
    const path = `${at}${k}`
    if (typeof p.type !== 'string' || !RENDERABLE.has(p.type)) problems.push(`${path}: type ${JSON.stringify(p.type)} is not one the form renders`)
    for (const union of ['anyOf', 'oneOf', 'allOf']) if (p[union]) problems.push(`${path}: ${union} renders as a text input`)
    if (p.type === 'object' && 'default' in p) problems.push(`${path}: an object default is pre-filled and combines with the user's keys`)
    if (at && 'default' in p) problems.push(`${path}: a default inside an object field is pre-filled beside the user's keys`)
    if (p.type === 'array' && typeof p.items?.type !== 'string') problems.push(`${path}: array items need a type`)
    if (p.properties) problems.push(...formProblems(p.properties, `${path}.`))
  }
  return problems
}

test('every field of both Xpert configSchemas renders as a typed widget, with nothing pre-filled that the validator rejects', async () => {
  const { summarizationConfigSchema } = await import('context-editor/xpert')
  for (const schema of [configSchema, summarizationConfigSchema]) assert.deepEqual(formProblems(schema.properties), [])
  assert.equal(configSchema.properties.stable.type, 'boolean')
  assert.equal(configSchema.properties.cacheBreakpoints.type, 'boolean')
  // The switches produce booleans; both are accepted as they are.
  for (const v of [true, false]) assert.equal(acceptedByCore({ stable: v, cacheBreakpoints: v }), true)
  // Filling every empty field with its schema default, as the form does, gives valid options, and
  // so does each key a user may set in trigger/keep on top of what the form filled.
  for (const schema of [configSchema, summarizationConfigSchema]) {
    const filled = Object.fromEntries(
      Object.entries(schema.properties)
        .filter(([, p]) => 'default' in p)
        .map(([k, p]) => [k, p.default]),
    )
    assert.equal(ajv.validate(schema, filled), true, ajv.errorsText())
    for (const field of ['trigger', 'keep']) {
      for (const key of Object.keys(schema.properties[field].properties)) {
        const sample = { ...filled, [field]: { [key]: key === 'fraction' ? 0.5 : 10 } }
        assert.equal(ajv.validate(schema, sample), true, `${JSON.stringify(sample)}: ${ajv.errorsText()}`)
      }
    }
  }
})

test('unknown options on the Xpert path list the form’s option names, not the library’s', () => {
  for (const options of [{ foo: 1 }, { edits: [] }, { onReport: 'x' }]) {
    const key = Object.keys(options)[0]
    assert.throws(
      () => strategy.createMiddleware(options, {}),
      (e) => {
        assert.equal(e.code, 'INVALID_OPTIONS')
        assert.equal(e.path, key)
        const listed = /expected one of (.*)\)$/.exec(e.message)?.[1].split(', ')
        assert.deepEqual(listed, [...OPTION_NAMES], e.message)
        return true
      },
    )
  }
  // LangChain's deprecated aliases stay accepted from old configurations.
  assert.equal(acceptedByCore({ triggerTokens: 5000, keepMessages: 2 }), true)
})

test('a huge or sparse option list is rejected at once with its path, on the Xpert and LangChain paths', async () => {
  const { contextEditingMiddleware } = await import('context-editor/langchain')
  const sparse = []
  sparse.length = 2 ** 32 - 1
  const long = new Array(100_001).fill('t')
  for (const [label, options, path] of [
    ['sparse excludeTools', { excludeTools: sparse }, 'excludeTools'],
    ['long excludeTools', { excludeTools: long }, 'excludeTools'],
    ['sparse trigger list', { trigger: sparse }, 'trigger'],
  ]) {
    for (const build of [(o) => strategy.createMiddleware(o, {}), (o) => contextEditingMiddleware(o)]) {
      assert.throws(
        () => build(options),
        (e) => e.code === 'INVALID_OPTIONS' && e.path === path && /at most 100,000 entries/.test(e.message),
        label,
      )
    }
  }
  const holey = ['a', , 'c'] // eslint-disable-line no-sparse-arrays
  assert.throws(
    () => strategy.createMiddleware({ excludeTools: holey }, {}),
    (e) => e.code === 'INVALID_OPTIONS' && e.path === 'excludeTools[1]',
    'a hole is named by its index',
  )
})
