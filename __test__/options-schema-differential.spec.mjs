// Differential test of the options' JSON Schema (the binding's `optionsSchema()`, written from the
// core's declaration) against the core's parser: option sets generated from the schema itself,
// valid and mutated (a value past a bound, of another type, an undeclared key, two measures), must
// be accepted by both or rejected by both. A key declared but not parsed, parsed but not declared,
// or a bound that differs between the two fails here with the option set that shows it.
//
// The schema cannot say a few rules of the parser that join several keys; option sets that break
// one of them are left out (each rule is tested where it is implemented):
// - at most one step rule in `stable` (`stepRatio`, `stepTokens`, `stepResults`);
// - `summarize` only as the last edit;
// - `prefer` also as a list of rule names (`["superseded"]`), which the schema does not declare;
// - LangChain's deprecated `triggerTokens` / `keepMessages` are not read when `trigger` / `keep` is set;
// - `prefer.superseded.writers` / `readers` entries must be non-empty (a tool name or
//   `tool:arg.path`): the declaration says a list of strings (to declare: a list of non-empty names).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import Ajv2020 from 'ajv/dist/2020.js'
import { Rng } from './support/prng.mjs'

const require = createRequire(import.meta.url)
const { NativeContextEditor, optionsSchema } = require('../binding.cjs')
const schema = optionsSchema()
const defs = schema.$defs
const validate = new Ajv2020({ strict: false, allErrors: false }).compile(schema)
const BIG = Number.MAX_SAFE_INTEGER + 1

function coreAccepts(options) {
  try {
    new NativeContextEditor(options)
    return true
  } catch (e) {
    if (e.code === 'INVALID_OPTIONS' || e.code === 'UNKNOWN_ENCODING') return false
    throw e
  }
}

const refOf = (s) => defs[s.$ref.split('/').pop()]

/** A value for the schema `s`: usually valid, sometimes just outside it (`wrong`: how often). */
function gen(rng, s, depth, wrong) {
  if (s.$ref) return genObject(rng, refOf(s), depth, wrong)
  if (s.anyOf) {
    const members = s.anyOf.filter((m) => m.type !== 'null')
    if (rng.chance(0.05)) return null
    return gen(rng, rng.pick(members), depth, wrong)
  }
  const bad = rng.chance(wrong)
  if ('const' in s) return bad ? 'not-declared' : s.const
  if (s.enum) return bad ? rng.pick(['not-declared', 5]) : rng.pick(s.enum)
  switch (s.type) {
    case 'boolean':
      return bad ? 'true' : rng.chance(0.5)
    case 'string':
      return bad ? 5 : rng.pick(s.minLength ? ['x'] : ['', 'x'])
    case 'integer': {
      const min = s.minimum
      return bad ? rng.pick([min - 1, min + 0.5, BIG, '3', -1]) : rng.pick([min, min + 1, min + 17])
    }
    case 'number': {
      const min = s.exclusiveMinimum ?? s.minimum
      if (bad) return rng.pick(['1', -1, ...(s.exclusiveMinimum !== undefined ? [min] : [min - 0.5]), ...(s.maximum !== undefined ? [s.maximum + 0.5] : [])])
      return s.maximum !== undefined ? rng.pick([s.maximum, (s.maximum + (s.exclusiveMinimum ?? s.minimum)) / 2]) : rng.pick([min + 0.5, min + 1000])
    }
    case 'array': {
      if (bad) return rng.pick(['a', {}])
      const n = rng.int(0, depth > 2 ? 1 : 3)
      return Array.from({ length: n }, () => gen(rng, s.items, depth + 1, wrong))
    }
    default:
      throw new Error(`no generator for ${JSON.stringify(s)}`)
  }
}

function genObject(rng, def, depth, wrong) {
  if (rng.chance(wrong / 2)) return rng.pick([[], 'x', 3])
  const keys = Object.keys(def.properties).filter((k) => def.properties[k]['x-scope'] === undefined && k !== 'tokenizer')
  const required = new Set(def.required ?? [])
  const out = {}
  const chosen = def['x-exactly-one'] ? [rng.pick(keys)] : keys.filter((k) => required.has(k) || rng.chance(0.4))
  if (def['x-exactly-one'] && rng.chance(wrong)) chosen.push(rng.pick(keys))
  for (const k of chosen) out[k] = k === 'type' ? def.properties.type.const : gen(rng, def.properties[k], depth + 1, wrong)
  if (rng.chance(wrong / 2)) out.notDeclared = 1
  return out
}

/** Breaks a rule the schema cannot say (see the header). */
function outsideTheSchema(options) {
  const clearing = [options, ...(Array.isArray(options.edits) ? options.edits : [])].filter((e) => e && typeof e === 'object')
  for (const e of clearing) {
    const stable = e.stable
    if (stable && typeof stable === 'object' && !Array.isArray(stable)) {
      if (['stepRatio', 'stepTokens', 'stepResults'].filter((k) => stable[k] !== undefined && stable[k] !== null).length > 1) return true
    }
    if (Array.isArray(e.prefer)) return true
    const superseded = e.prefer?.superseded
    for (const list of [superseded?.writers, superseded?.readers]) if (Array.isArray(list) && list.includes('')) return true
    const set = (k) => e[k] !== undefined && e[k] !== null
    if ((set('triggerTokens') && set('trigger')) || (set('keepMessages') && set('keep'))) return true
  }
  if (Array.isArray(options.edits)) {
    const k = options.edits.findIndex((e) => e && e.type === 'summarize')
    if (k >= 0 && k !== options.edits.length - 1) return true
  }
  return false
}

function genOptions(rng, wrong) {
  if (rng.chance(0.5)) {
    const top = { properties: Object.fromEntries(Object.entries(schema.properties).filter(([k]) => k !== 'edits')) }
    return genObject(rng, top, 0, wrong)
  }
  const editRefs = schema.properties.edits.anyOf[0].items.anyOf
  const edits = Array.from({ length: rng.int(1, 3) }, () => genObject(rng, refOf(rng.pick(editRefs)), 1, wrong))
  // Mostly where the parser allows it: one `summarize`, last.
  if (rng.chance(0.9)) {
    const summarize = edits.filter((e) => e?.type === 'summarize')
    edits.splice(0, edits.length, ...edits.filter((e) => e?.type !== 'summarize'), ...summarize.slice(0, 1))
  }
  const options = { edits }
  if (rng.chance(0.3)) options.tokenCountMethod = gen(rng, schema.properties.tokenCountMethod, 1, wrong)
  return options
}

test('the options JSON Schema and the core accept and reject the same option sets', () => {
  let accepted = 0
  let rejected = 0
  let skipped = 0
  for (let seed = 1; seed <= 1500; seed++) {
    const rng = new Rng(seed)
    const options = genOptions(rng, seed % 3 === 0 ? 0 : 0.08)
    if (outsideTheSchema(options)) {
      skipped++
      continue
    }
    const bySchema = validate(options)
    const byCore = coreAccepts(options)
    assert.equal(
      bySchema,
      byCore,
      `seed ${seed}: ${JSON.stringify(options)}: schema ${bySchema ? 'accepts' : `rejects (${JSON.stringify(validate.errors?.[0])})`}, core ${byCore ? 'accepts' : 'rejects'}`,
    )
    if (byCore) accepted++
    else rejected++
  }
  assert.ok(accepted > 300 && rejected > 300 && skipped < 450, `${accepted} accepted, ${rejected} rejected, ${skipped} left out`)
})
