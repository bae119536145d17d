// The public API, written down: what each entry of package.json `exports` offers, at run time and
// in its types. A name added to or removed from an entry fails here until this list is updated
// (and the change is in CHANGELOG.md). Also: a type name means one type on every entry that
// exports it, and no test hook is reachable from an entry, in values or types.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const OPTION_TYPES = [
  'ClearThinkingEdit',
  'ClearToolUsesOptions',
  'EditorOptions',
  'KeepPolicy',
  'LastNEdit',
  'StripAndTruncateEdit',
  'StripToolCallsEdit',
  'SummarizeEdit',
  'TriggerCondition',
  'TrimTurnsEdit',
  'TruncateToolResultsEdit',
]
const PLAN_AND_REPORT_TYPES = [
  'AppliedEdit',
  'ClearedInput',
  'ClearedResult',
  'EditPlan',
  'EditReport',
  'EditWarning',
  'PlanOp',
  'RemovedOrphan',
  'SummaryRequest',
  'TokenCountResult',
]

/** Per entry: the values (run time and types) and the type-only names. */
const ENTRIES = {
  'context-editor': {
    values: [
      'ContextEditor',
      'ContextEditorError',
      'FileRecallStore',
      'InMemoryRecallStore',
      'RECALL_PLACEHOLDER',
      'RECALL_TOOL_NAME',
      'applyPlan',
      'clearMedia',
      'createRecall',
      'default',
      'imageTokens',
    ],
    types: [
      ...OPTION_TYPES,
      ...PLAN_AND_REPORT_TYPES,
      'AnyMessage',
      'ApplicablePlan',
      'ClearMediaOptions',
      'ClearMediaReport',
      'ImageTokenFormula',
      'Recall',
      'RecallStore',
      'ContextEditorErrorCode',
      'EditContext',
      'EditResult',
      'MessageFormat',
      'MessageShape',
      'SummaryAnswer',
    ],
  },
  'context-editor/langchain': {
    values: [
      'FileRecallStore',
      'InMemoryRecallStore',
      'MIDDLEWARE_NAME',
      'RECALL_MIDDLEWARE_NAME',
      'RECALL_PLACEHOLDER',
      'RECALL_TOOL_NAME',
      'SUMMARIZATION_MIDDLEWARE_NAME',
      'configSchema',
      'contextEditingMiddleware',
      'langGraphRecallStore',
      'recallMiddleware',
      'recallToolSchema',
      'summarizationConfigSchema',
      'summarizationMiddleware',
    ],
    types: [
      'ClearToolUsesEditLike',
      'ClearToolUsesEditOptions',
      'ContextEditingMiddlewareConfig',
      'ContextEditingOptions',
      'EditReport',
      'Encoding',
      'KeepPolicy',
      'RecallMiddlewareConfig',
      'RecallStore',
      'SummarizationKeep',
      'SummarizationMiddlewareConfig',
      'SummarizationOptions',
      'SummarizationTrigger',
      'TriggerCondition',
    ],
  },
  'context-editor/xpert': {
    values: [
      'ContextEditingStrategy',
      'MIDDLEWARE_NAME',
      'REMOVE_ALL_MESSAGES',
      'SUMMARIZATION_ICON',
      'SUMMARIZATION_MIDDLEWARE_NAME',
      'SummarizationStrategy',
      'XPERT_SUMMARIZATION_STRATEGY',
      'configSchema',
      'contextEditingMiddlewareObject',
      'contextEditingNestClasses',
      'contextEditingPluginModule',
      'createSummarizationHooks',
      'createWrapModelCall',
      'default',
      'plugin',
      'strategyMeta',
      'summarizationConfigSchema',
      'summarizationStrategyMeta',
    ],
    types: [
      'ContextEditingMiddlewareObject',
      'ContextEditingNestClasses',
      'ContextEditingOptions',
      'ContextEditingPluginMeta',
      'ContextEditingStrategyMeta',
      'ContextEditingXpertPlugin',
      'I18nText',
      'KeepPolicy',
      'ModelRequestLike',
      'PluginContextLike',
      'SummarizationHookConfig',
      'SummarizationHooks',
      'SummarizationHost',
      'SummarizationKeep',
      'SummarizationMiddlewareObject',
      'SummarizationOptions',
      'SummarizationStrategyMeta',
      'SummarizationTrigger',
      'TriggerCondition',
      'WrapModelCall',
    ],
  },
  'context-editor/ai': {
    values: ['contextEditingMiddleware', 'contextEditingPrepareStep'],
    types: ['AdapterOptions', 'AdapterReport'],
  },
  'context-editor/openai-agents': {
    values: ['contextEditingInputFilter', 'contextEditingSession'],
    types: ['AdapterOptions', 'AdapterReport', 'SummarizingSessionOptions'],
  },
  'context-editor/mastra': {
    values: ['ContextEditingProcessor', 'contextEditingProcessor'],
    types: ['AdapterOptions', 'AdapterReport'],
  },
  'context-editor/langgraph': {
    values: ['contextEditingPreModelHook'],
    types: ['AdapterOptions', 'AdapterReport', 'PreModelHookOptions'],
  },
  'context-editor/native': {
    values: ['HeldContext', 'NativeContextEditor', 'PackedOpKind', 'PackedReport', '__napiBindingTarget', 'toWireContext', 'toWireMessages'],
    types: [
      ...OPTION_TYPES,
      ...PLAN_AND_REPORT_TYPES,
      'AnyMessage',
      'EditOptions',
      'MessageShape',
      'MiddlewareOptions',
      'PackedPlan',
      'StableOptions',
      'SummaryKeep',
      'ThinkingKeep',
      'WireContext',
      'WireMessage',
      'WireOptions',
      'WireToolCall',
    ],
  },
}

const sorted = (list) => [...new Set(list)].sort()
const here = fileURLToPath(new URL('.', import.meta.url))

/**
 * A program over a probe file in __test__/ (resolved as a user's file: `context-editor` is this
 * package, through its `exports`), with `source` as the probe's text.
 */
function program(source) {
  const probe = `${here}public-api-probe.ts`
  const options = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  }
  const host = ts.createCompilerHost(options)
  const { getSourceFile, fileExists, readFile } = host
  host.getSourceFile = (name, version, ...rest) =>
    name === probe ? ts.createSourceFile(name, source, version) : getSourceFile.call(host, name, version, ...rest)
  host.fileExists = (name) => name === probe || fileExists.call(host, name)
  host.readFile = (name) => (name === probe ? source : readFile.call(host, name))
  return { program: ts.createProgram([probe], options, host), probe }
}

/** Each entry's exported names, split into values and type-only names, as TypeScript sees them. */
function typedExports() {
  const entries = Object.keys(ENTRIES)
  const { program: p, probe } = program(entries.map((e, k) => `import * as e${k} from '${e}'\nexport { e${k} }`).join('\n'))
  const checker = p.getTypeChecker()
  const out = {}
  for (const statement of p.getSourceFile(probe).statements) {
    if (!ts.isImportDeclaration(statement)) continue
    const entry = statement.moduleSpecifier.text
    const module = checker.getSymbolAtLocation(statement.moduleSpecifier)
    assert.ok(module, `${entry}: its types do not resolve`)
    const values = []
    const types = []
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
      ;(target.flags & ts.SymbolFlags.Value ? values : types).push(symbol.name)
    }
    out[entry] = { values: sorted(values), types: sorted(types) }
  }
  return out
}

test('every entry of package.json `exports` is listed here', async () => {
  const { default: pkg } = await import('../package.json', { with: { type: 'json' } })
  const entries = Object.keys(pkg.exports)
    .filter((e) => e !== './package.json')
    .map((e) => (e === '.' ? 'context-editor' : `context-editor/${e.slice(2)}`))
  assert.deepEqual(sorted(entries), sorted(Object.keys(ENTRIES)))
})

test('each entry exports exactly the listed names at run time', async () => {
  for (const [entry, { values }] of Object.entries(ENTRIES)) {
    const module = await import(entry)
    assert.deepEqual(sorted(Object.keys(module)), sorted(values), `${entry}: run-time exports`)
  }
})

test('each entry declares exactly the listed values and types', () => {
  const got = typedExports()
  for (const [entry, { values, types }] of Object.entries(ENTRIES)) {
    assert.deepEqual(got[entry].values, sorted(values), `${entry}: declared values`)
    assert.deepEqual(got[entry].types, sorted(types), `${entry}: declared types`)
  }
})

/** Test hooks are named `__…` (src/hooks.rs, ts/internal.ts); `__napiBindingTarget` is the one documented `__` name. */
const isHook = (name) => name.startsWith('__') && name !== '__napiBindingTarget'

test('no test hook is reachable from an entry, and internal modules are not entries', async () => {
  for (const entry of Object.keys(ENTRIES)) {
    const module = await import(entry)
    assert.deepEqual(Object.keys(module).filter(isHook), [], `${entry}: run-time exports`)
  }
  for (const [entry, { values, types }] of Object.entries(typedExports())) {
    assert.deepEqual([...values, ...types].filter(isHook), [], `${entry}: declared names`)
  }
  const internal = await import('../dist/internal.js')
  for (const hook of ['__panicForTests', '__referenceCountTokens']) assert.equal(typeof internal[hook], 'function', `${hook} is reachable for the tests`)
  for (const path of ['context-editor/dist/internal.js', 'context-editor/dist/native.js', 'context-editor/binding.cjs']) {
    await assert.rejects(import(path), (e) => e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED', path)
  }
})

test('a type name means the same type on every entry that exports it', () => {
  const byName = new Map()
  for (const [entry, { types }] of Object.entries(ENTRIES)) {
    for (const name of types) byName.set(name, [...(byName.get(name) ?? []), entry])
  }
  const shared = [...byName].filter(([, entries]) => entries.length > 1)
  assert.ok(
    shared.some(([name]) => name === 'KeepPolicy'),
    'KeepPolicy is on several entries',
  )
  const lines = ['type Same<X, Y> = [X] extends [Y] ? ([Y] extends [X] ? true : false) : false']
  shared.forEach(([name, entries], k) => {
    entries.forEach((entry, j) => lines.push(`import type { ${name} as T${k}_${j} } from '${entry}'`))
    for (let j = 1; j < entries.length; j++)
      lines.push(`export const same${k}_${j}: Same<T${k}_0, T${k}_${j}> = true // ${name}: ${entries[0]} vs ${entries[j]}`)
  })
  const { program: p, probe } = program(lines.join('\n'))
  const errors = ts.getPreEmitDiagnostics(p, p.getSourceFile(probe)).map((d) => {
    const line = d.file ? lines[d.file.getLineAndCharacterOfPosition(d.start).line] : ''
    return `${ts.flattenDiagnosticMessageText(d.messageText, '\n')} (${line.split('// ')[1] ?? line})`
  })
  assert.deepEqual(errors, [])
})

test('NativeContextEditor and ContextEditor name sync and async methods alike', async () => {
  const { ContextEditor } = await import('context-editor')
  const { NativeContextEditor } = await import('context-editor/native')
  const methods = (cls) =>
    Object.getOwnPropertyNames(cls.prototype).filter(
      (m) => m !== 'constructor' && typeof Object.getOwnPropertyDescriptor(cls.prototype, m).value === 'function',
    )
  const shim = methods(ContextEditor)
  const native = methods(NativeContextEditor)
  for (const m of ['plan', 'planAsync', 'countTokens', 'countTokensAsync']) {
    assert.ok(shim.includes(m) && native.includes(m), `both have ${m}`)
  }
  // Every asynchronous method is named `…Async` and has a synchronous twin of the plain name.
  const editor = new NativeContextEditor({})
  for (const m of native) {
    if (m.endsWith('Async')) assert.ok(native.includes(m.slice(0, -'Async'.length)), `${m} has a synchronous twin`)
  }
  assert.ok(editor.planAsync([]) instanceof Promise)
  assert.ok(!(editor.plan([]) instanceof Promise))
})
