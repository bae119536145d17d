// The Xpert forms' JSON Schemas (`configSchema`, `summarizationConfigSchema`), built from the
// option declaration (ts/generated/options-schema.ts, written from crates/core/src/options/spec.rs)
// and the forms' texts (ts/options-i18n.ts). Nothing here names an option's type, bound or default.
//
// What the Xpert 3.7.x form renders decides the shape (see __test__/xpert-schema.spec.mjs): one
// widget per field, chosen by its `type`. So a field whose declaration is a union becomes the one
// widget the form can show, and the rest of the union stays a documented JSON-only extension:
// - a trigger (one condition or a list) is the condition object (`minProperties: 1`);
// - a measure (exactly one key: `keep`) is an object with `minProperties`/`maxProperties: 1`;
// - `boolean | X` (`clearToolInputs`, `stable`, `cacheBreakpoints`) is a switch.
// The form copies `default` into an empty field, so object fields, and fields inside them, carry
// none (the declared default is in the description).

import { OPTIONS_SCHEMA } from './generated/options-schema.js'
import type { JsonSchemaNode } from './generated/options.js'
import { CONTEXT_EDITING_TEXTS, SUMMARIZATION_TEXTS, type FieldText, type I18nText } from './options-i18n.js'

export type { I18nText }

/** One field of a form schema. */
export interface FormProperty {
  type: string
  title: I18nText
  description: I18nText
  default?: unknown
  enum?: readonly unknown[]
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  minLength?: number
  items?: Record<string, unknown>
  properties?: Record<string, FormProperty>
  additionalProperties?: boolean
  minProperties?: number
  maxProperties?: number
  'x-ui'?: Record<string, unknown>
}

/** A form's JSON Schema (the Xpert `configSchema`). */
export interface FormSchema {
  type: 'object'
  properties: Record<string, FormProperty>
  additionalProperties: false
  required: string[]
}

type Node = JsonSchemaNode & Record<string, any>

const defs = OPTIONS_SCHEMA.$defs as Record<string, Node>
const root = OPTIONS_SCHEMA.properties as Record<string, Node>

/** The declared value schema without its `null` (unset) alternative. */
function valueOf(p: Node): Node {
  const members = (p.anyOf as Node[] | undefined)?.filter((m) => m.type !== 'null')
  if (!members) return p
  return members.length === 1 ? valueOf(members[0]) : { anyOf: members }
}

const deref = (ref: string): Node => defs[ref.split('/').pop()!]

/** The form field for the declared property `p` at `path`; `texts` label it. */
function field(path: string, p: Node, texts: (path: string, doc: unknown) => FieldText, nested: boolean): FormProperty {
  const text = texts(path, p.description)
  const value = valueOf(p)
  const out: FormProperty = { type: '', title: text.title, description: text.description }
  const members = (value.anyOf as Node[] | undefined) ?? [value]
  const object = members.find((m) => m.$ref) as Node | undefined
  if (members.some((m) => m.type === 'boolean')) {
    out.type = 'boolean'
  } else if (object) {
    const def = deref(object.$ref)
    out.type = 'object'
    out.properties = {}
    for (const [key, sub] of Object.entries(def.properties as Record<string, Node>)) out.properties[key] = field(`${path}.${key}`, sub, texts, true)
    out.additionalProperties = false
    // A trigger condition needs one key; a measure exactly one.
    if (members.some((m) => m.type === 'array') || def['x-exactly-one']) out.minProperties = 1
    if (def['x-exactly-one']) out.maxProperties = 1
  } else if (value.enum) {
    out.type = 'string'
    out.enum = value.enum
  } else {
    out.type = value.type
    for (const k of ['exclusiveMinimum', 'minimum', 'maximum', 'minLength', 'items'] as const) if (k in value) (out as any)[k] = value[k]
  }
  if ('default' in p && !nested && out.type !== 'object') out.default = p.default
  if (text.ui) out['x-ui'] = text.ui
  return out
}

/** Form fields without an entry in ts/options-i18n.ts (a test lists them; see `untranslated`). */
const missing = new Set<string>()

/**
 * The texts of the field at `path`: from the tables in order, else the declaration's doc line in
 * every language (a key added to the declaration shows in the form at once; the test that every
 * field has its translations fails until they are added).
 */
function texts(...tables: Array<Record<string, FieldText>>): (path: string, doc: unknown) => FieldText {
  return (path, doc) => {
    for (const t of tables) if (Object.hasOwn(t, path)) return t[path]
    missing.add(path)
    const text = typeof doc === 'string' ? doc : path
    return { title: { en_US: path, zh_Hans: path }, description: { en_US: text, zh_Hans: text } }
  }
}

/** The form fields that have no texts in ts/options-i18n.ts (should be none). */
export function untranslated(): string[] {
  return [...missing]
}

function form(fields: Array<[string, Node]>, label: (path: string, doc: unknown) => FieldText): FormSchema {
  const properties: Record<string, FormProperty> = {}
  for (const [key, p] of fields) properties[key] = field(key, p, label, false)
  return { type: 'object', properties, additionalProperties: false, required: [] }
}

/** Declared keys of `props` a form offers: not deprecated aliases, not the editor's own (`format`), not the pipeline (`edits`). */
function offered(props: Record<string, Node>, skip: readonly string[] = []): Array<[string, Node]> {
  return Object.entries(props).filter(([k, p]) => !p.deprecated && p['x-scope'] !== 'shim' && !skip.includes(k))
}

/**
 * Counting methods the context-editing middlewares read themselves, beyond the editor's declared ones:
 * `"usage"` anchors the count to the provider's reported usage (ts/usage.ts), which only a middleware,
 * seeing the calls, can do; the editor rejects it (ts/options.ts `middlewareOnly`).
 */
export const MIDDLEWARE_COUNT_METHODS = ['usage'] as const

/** The context-editing middleware's form: the clearing keys, counting, the input limit. */
export const contextEditingForm: FormSchema = withMiddlewareCounting(form(offered(root, ['edits']), texts(CONTEXT_EDITING_TEXTS)))

function withMiddlewareCounting(schema: FormSchema): FormSchema {
  const method = schema.properties.tokenCountMethod
  method.enum = [...(method.enum ?? []), ...MIDDLEWARE_COUNT_METHODS]
  return schema
}

/**
 * The summarization middleware's form: the `summarize` edit's keys (but `model`, which the
 * middleware takes as a chat model or a name), counting, the input limit, overflow recovery, and its
 * own options.
 */
export const summarizationForm: FormSchema = form(
  [
    ...offered(defs.SummarizeEdit.properties as Record<string, Node>, ['type', 'model']),
    ['tokenCountMethod', root.tokenCountMethod],
    ['maxInputTokens', root.maxInputTokens],
    ['recovery', root.recovery],
    ...offered(defs.SummarizationMiddlewareOptions.properties as Record<string, Node>),
  ],
  texts(SUMMARIZATION_TEXTS, CONTEXT_EDITING_TEXTS),
)
