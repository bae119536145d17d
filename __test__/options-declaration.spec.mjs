// The options are declared once, in the core (crates/core/src/options/spec.rs); everything else is
// derived from that declaration. These tests fail when a key exists in one place and not another:
// the core's parser, the generated TypeScript types (ts/generated/options.ts), binding.d.cts /
// index.d.ts, the Xpert forms' JSON Schemas and their texts, and the option tables of the docs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { configSchema, summarizationConfigSchema, ContextEditingStrategy } from 'context-editor/xpert'
import { render, nativeSchema, TYPES_FILE, SCHEMA_FILE } from '../scripts/gen-options.mjs'
import { untranslated } from '../dist/options-form.js'
import { CONTEXT_EDITING_TEXTS, SUMMARIZATION_TEXTS } from '../dist/options-i18n.js'

const require = createRequire(import.meta.url)
const root = fileURLToPath(new URL('..', import.meta.url))
const read = (path) => readFileSync(`${root}${path}`, 'utf8')
const { NativeContextEditor, optionDefaults } = require('../binding.cjs')
const schema = nativeSchema()
const defs = schema.$defs
const keysOf = (def) => Object.keys(def.properties).filter((k) => k !== 'type')
const edits = Object.entries(defs).filter(([, d]) => d.properties.type?.const)

/** A value the declared schema `s` allows (the first alternative of a union). */
function sample(s) {
  if (s.$ref) {
    const def = defs[s.$ref.split('/').pop()]
    const [key] = Object.keys(def.properties)
    return { [key]: sample(def.properties[key]) }
  }
  if ('const' in s) return s.const
  if (s.enum) return s.enum[0]
  if (s.anyOf) return sample(s.anyOf.find((m) => m.type !== 'null'))
  if (s.type === 'integer') return s.minimum + 1
  if (s.type === 'number') return s.maximum ?? 1
  return { boolean: true, string: 'x', array: [] }[s.type]
}

test('the generated option types and schema are what the declaration gives (npm run gen:options)', async () => {
  const files = await render(schema)
  for (const path of [TYPES_FILE, SCHEMA_FILE]) assert.equal(read(path), files[path], `${path} is out of date: run npm run gen:options`)
})

test('binding.d.cts and index.d.ts declare the generated option types', () => {
  const types = read(TYPES_FILE)
  assert.ok(read('binding.d.cts').startsWith(types), 'binding.d.cts starts with ts/generated/options.ts (napi.dtsHeaderFile): run npm run build:native')
  assert.match(read('binding.d.cts'), /constructor\(options\?: EditorOptions \| null \| undefined\)/)
  // `context-editor/native` re-exports the option types from the binding (by name or all of them).
  const index = read('index.d.ts')
  assert.match(index, /from '\.\/binding\.cjs'/)
  for (const name of ['EditorOptions', 'ClearToolUsesOptions', 'TriggerCondition', 'KeepPolicy']) {
    assert.ok(/export \* from '\.\/binding\.cjs'/.test(index) || new RegExp(`\\b${name},`).test(index), `index.d.ts exports ${name}`)
  }
  // Every declared object is an interface (or a measure's union) with every declared key.
  for (const [name, def] of Object.entries(defs)) {
    const block = new RegExp(`export (?:interface ${name} \\{([^]*?)\\n\\}|type ${name} =([^]*?)\\n\\n)`).exec(types)
    assert.ok(block, `${name} is declared in ${TYPES_FILE}`)
    for (const key of Object.keys(def.properties)) assert.match(block[1] ?? block[2], new RegExp(`\\b${key}\\??:`), `${name}.${key}`)
  }
  for (const key of Object.keys(schema.properties)) assert.match(types, new RegExp(`\\n  ${key}\\??:`), `top-level ${key}`)
})

test('the core accepts every declared key where it is declared, and nothing else', () => {
  const accepts = (options) => {
    try {
      new NativeContextEditor(options)
      return true
    } catch (e) {
      // Another error (a tokenizer whose package is not installed) is about the value, not the key.
      return e.code !== 'INVALID_OPTIONS'
    }
  }
  let checked = 0
  for (const [key, p] of Object.entries(schema.properties)) {
    if (key === 'edits') continue
    assert.equal(accepts({ [key]: sample(p) }), p['x-scope'] === undefined, `top-level ${key}`)
    checked++
  }
  for (const [name, def] of edits) {
    const base = { type: def.properties.type.const }
    for (const key of def.required ?? []) if (key !== 'type') base[key] = sample(def.properties[key])
    for (const key of keysOf(def)) {
      assert.equal(accepts({ edits: [{ ...base, [key]: sample(def.properties[key]) }] }), true, `${name}.${key}`)
      checked++
    }
    assert.equal(accepts({ edits: [{ ...base, notDeclared: 1 }] }), false, `${name} rejects an undeclared key`)
  }
  for (const group of ['TriggerCondition', 'KeepPolicy', 'SummaryKeep']) {
    const holder =
      group === 'SummaryKeep' ? (v) => ({ edits: [{ type: 'summarize', keep: v }] }) : (v) => ({ [group === 'KeepPolicy' ? 'keep' : 'trigger']: v })
    for (const key of keysOf(defs[group])) assert.equal(accepts(holder({ [key]: sample(defs[group].properties[key]) })), true, `${group}.${key}`)
    assert.equal(accepts(holder({ notDeclared: 1 })), false, `${group} rejects an undeclared key`)
  }
  assert.ok(checked > 40, `${checked}`)
  assert.equal(accepts({ notDeclared: 1 }), false)
})

test('the declared defaults are the ones the binding reports', () => {
  const defaults = optionDefaults()
  for (const [name, def] of [['editor', { properties: schema.properties }], ...edits.map(([, d]) => [d.properties.type.const, d])]) {
    const declared = Object.fromEntries(
      Object.entries(def.properties)
        .filter(([, p]) => 'default' in p && p['x-scope'] !== 'middleware')
        .map(([k, p]) => [k, p.default]),
    )
    const own = name === 'editor' ? Object.fromEntries(Object.entries(declared).filter(([k]) => !(k in defaults.clear_tool_uses))) : declared
    assert.deepEqual(defaults[name], own, name)
  }
  assert.equal(defaults.clear_tool_uses.placeholder, '[cleared]')
})

test('the Xpert forms offer exactly the declared options, each with its texts', () => {
  const offered = (props, skip = []) => Object.keys(props).filter((k) => !props[k].deprecated && props[k]['x-scope'] !== 'shim' && !skip.includes(k))
  assert.deepEqual(Object.keys(configSchema.properties), offered(schema.properties, ['edits']))
  assert.deepEqual(Object.keys(summarizationConfigSchema.properties), [
    ...offered(defs.SummarizeEdit.properties, ['type', 'model']),
    'tokenCountMethod',
    'maxInputTokens',
    'recovery',
    ...offered(defs.SummarizationMiddlewareOptions.properties),
  ])
  // Object fields show every declared key of their object (the trigger conditions include `turns`).
  for (const [form, field, def] of [
    [configSchema, 'trigger', 'TriggerCondition'],
    [configSchema, 'keep', 'KeepPolicy'],
    [summarizationConfigSchema, 'trigger', 'TriggerCondition'],
    [summarizationConfigSchema, 'keep', 'SummaryKeep'],
  ]) {
    assert.deepEqual(Object.keys(form.properties[field].properties), keysOf(defs[def]), `${field} of the form`)
  }
  assert.ok('turns' in configSchema.properties.trigger.properties)
  // Every field has its own texts in ts/options-i18n.ts, and every text labels a field.
  assert.deepEqual(untranslated(), [])
  const fields = (props, at = '') => Object.entries(props).flatMap(([k, p]) => [at + k, ...(p.properties ? fields(p.properties, `${at}${k}.`) : [])])
  const ce = new Set(fields(configSchema.properties))
  const su = new Set(fields(summarizationConfigSchema.properties))
  for (const path of Object.keys(CONTEXT_EDITING_TEXTS)) assert.ok(ce.has(path) || su.has(path), `ts/options-i18n.ts labels ${path}, which no form has`)
  for (const path of Object.keys(SUMMARIZATION_TEXTS)) assert.ok(su.has(path), `ts/options-i18n.ts labels ${path}, which the summarization form does not have`)
  for (const form of [configSchema, summarizationConfigSchema]) {
    for (const p of Object.values(form.properties)) for (const lang of ['en_US', 'zh_Hans']) assert.ok(p.title[lang] && p.description[lang])
  }
  // `trigger: { turns }` is an option of the form the core accepts.
  new ContextEditingStrategy().createMiddleware({ trigger: { turns: 3 } })
})

test('the docs name every declared option: the README table and each edit in docs/edits.md', () => {
  const readme = read('README.md')
  const options = readme.indexOf('## Options')
  const table = readme.slice(options, readme.indexOf('\n## ', options + 1))
  const rows = table.split('\n').filter((l) => l.startsWith('| `'))
  const named = new Set(rows.flatMap((r) => [...r.split('|')[1].matchAll(/`(\w+)/g)].map((m) => m[1])))
  const topLevel = Object.keys(schema.properties).filter((k) => !schema.properties[k].deprecated && schema.properties[k]['x-scope'] === undefined)
  for (const key of topLevel) assert.ok(named.has(key), `README.md's options table names \`${key}\``)
  const declared = new Set([...Object.keys(schema.properties), ...Object.values(defs).flatMap((d) => Object.keys(d.properties))])
  const known = new Set([...declared, ...Object.keys(configSchema.properties), ...Object.keys(summarizationConfigSchema.properties)])
  for (const key of named) assert.ok(known.has(key), `README.md's options table names \`${key}\`, which is declared nowhere`)
  // docs/library.md's option reference names every top-level key the editor reads (deprecated ones too).
  const library = read('docs/library.md')
  const reference = library.slice(library.indexOf('## Options'), library.indexOf('\n## ', library.indexOf('## Options') + 1))
  for (const [key, p] of Object.entries(schema.properties)) {
    if (p['x-scope'] !== 'middleware') assert.match(reference, new RegExp(`^\\| [^|]*\`${key}\``, 'm'), `docs/library.md's options table names \`${key}\``)
  }
  const edits_md = read('docs/edits.md')
  // The rules shared by every edit (`trigger`) come before the first edit's section.
  const intro = edits_md.slice(0, edits_md.indexOf('\n## '))
  for (const [name, def] of edits) {
    const type = def.properties.type.const
    const start = edits_md.indexOf(`## \`${type}\``)
    assert.ok(start >= 0, `docs/edits.md has a section for ${type}`)
    const next = edits_md.indexOf('\n## ', start + 1)
    const section = intro + edits_md.slice(start, next < 0 ? undefined : next)
    for (const key of keysOf(def)) {
      if (def.properties[key].deprecated) continue
      assert.match(section, new RegExp(`\`${key}\\b`), `docs/edits.md, ${type}: \`${key}\` (${name})`)
    }
  }
})

test('a TypeScript consumer of the option types type-checks (trigger: { turns } included)', () => {
  const tsc = require.resolve('typescript/bin/tsc')
  const project = fileURLToPath(new URL('./fixtures/options-types/tsconfig.json', import.meta.url))
  try {
    const output = execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' })
    assert.equal(output.trim(), '')
  } catch (e) {
    assert.fail(`tsc reported errors:\n${e.stdout}${e.stderr}`)
  }
})
