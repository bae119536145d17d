// The middlewares' options, shared by the LangChain factories (`context-editor/langchain`) and the
// Xpert strategies (`context-editor/xpert`): their names, their types and the Xpert forms' schemas,
// all derived from the one declaration of the options (crates/core/src/options/spec.rs, generated
// into ts/generated/; the forms are built in ts/options-form.ts), and `resolveOptions` /
// `resolveSummarizationOptions`, which turn what a user configured into an editor: `null` means
// "unset" (the Xpert UI sends nulls), LangChain `ClearToolUsesEdit` instances become plain edits,
// and the core validates the rest, so a wrong value is reported with the path of the field.
// `__test__/xpert-schema.spec.mjs` feeds the same option sets to the form schema (through ajv) and
// to the core and checks that they accept and reject the same ones.
//
// This file imports no host library (no zod, no LangChain, no NestJS): the package entry loads it.

import { ContextEditor } from './editor.js'
import { ContextEditorError } from './errors.js'
import type { EditReport } from './native.js'
import type {
  ClearToolUsesOptions,
  EditorOptions,
  KeepPolicy,
  MiddlewareOptions,
  StableOptions,
  SummarizationMiddlewareOptions,
  SummarizeEdit,
  SummaryKeep,
  SummaryRetryAfter,
  TriggerCondition,
} from './generated/options.js'
import { OPTIONS_SCHEMA } from './generated/options-schema.js'
import { MAX_OPTIONS_LIST } from './limits.js'
import { contextEditingForm, summarizationForm, type FormSchema, type I18nText } from './options-form.js'
import { checkJsonValues as checkJson, describeValue as describe, isPlainObject, tooLongText, withoutNulls as dropNulls } from './options.js'

/** The name under which the middleware registers (LangChain `name`, Xpert strategy provider). */
export const MIDDLEWARE_NAME = 'ContextEditingMiddleware'

export type { I18nText, KeepPolicy, StableOptions, SummaryRetryAfter, TriggerCondition }

/** The encodings embedded for `tokenCountMethod: "model"`. */
export type Encoding = NonNullable<EditorOptions['encoding']>

/**
 * Options of the context-editing middleware: the same names and defaults as LangChain's
 * `ClearToolUsesEdit` / `contextEditingMiddleware`, flat (the Xpert plugin's shape), plus the
 * model's input limit. `null` = unset.
 */
export interface ContextEditingOptions extends Omit<EditorOptions, 'edits' | 'tokenCountMethod'>, MiddlewareOptions {
  /**
   * How tokens are counted: the editor's methods, or `"usage"` (middlewares only): the provider's
   * reported usage of the previous call as the anchor, `usageFallback` for the rest
   * (docs/token-counting.md). `null` = unset.
   */
  tokenCountMethod?: EditorOptions['tokenCountMethod'] | 'usage'
}

/** One `clear_tool_uses` edit as a plain object (the shape of LangChain's `ClearToolUsesEdit` config). */
export interface ClearToolUsesEditOptions extends Omit<ClearToolUsesOptions, 'excludeTools' | 'type'> {
  /** `clear_tool_uses`, the default here (the middlewares fill it in). */
  type?: 'clear_tool_uses'
  excludeTools?: string[] | Set<string> | null
}

/** What a LangChain `new ClearToolUsesEdit({...})` looks like (read, never called). */
export interface ClearToolUsesEditLike {
  trigger: unknown
  keep: unknown
  excludeTools: Set<string> | string[]
  placeholder: string
  clearToolInputs: boolean
  clearAtLeast?: number
  apply: (...args: any[]) => unknown
}

/**
 * The LangChain middleware's config: the flat options, or LangChain's own
 * `{ edits: [new ClearToolUsesEdit({...})], tokenCountMethod }` shape.
 */
export interface ContextEditingMiddlewareConfig extends ContextEditingOptions {
  /** A pipeline of clearing edits (LangChain `ClearToolUsesEdit` instances or plain objects), instead of the flat keys. */
  edits?: Array<ClearToolUsesEditLike | ClearToolUsesEditOptions> | null
  /** Called with the report of every model call (what was cleared, token counts, warnings). */
  onReport?: ((report: EditReport) => void) | null
}

/** The options' JSON Schema, with localized titles and descriptions (the Xpert `configSchema`). */
export const configSchema: FormSchema = contextEditingForm

/** The option names (the keys of `configSchema.properties`). */
export const OPTION_NAMES = Object.freeze(Object.keys(configSchema.properties)) as readonly (keyof ContextEditingOptions)[]

// ---------------------------------------------------------------------------------------------
// Resolving options

/** What a middleware needs: an editor and the per-call settings the editor does not hold. */
export interface ResolvedOptions {
  editor: ContextEditor
  maxInputTokens?: number
  /** A model name was configured (`model` or `encoding`): do not take it from the request. */
  fixedModel: boolean
  onReport?: (report: EditReport) => void
}

function invalid(path: string, what: string): ContextEditorError {
  return new ContextEditorError('INVALID_OPTIONS', `${MIDDLEWARE_NAME}: ${path}: ${what}`, { path })
}

/**
 * Drops `null` values (the UI's "unset"); an object left empty by that is unset too (see
 * options.ts).
 * @throws {ContextEditorError} `INVALID_OPTIONS` for options nested deeper than 64 levels (or cyclic), or a list too long.
 */
export function withoutNulls(v: unknown, path = '', depth = 0): unknown {
  return dropNulls(v, invalid, path, depth)
}

function checkJsonValues(v: unknown, path: string): void {
  checkJson(v, path, invalid)
}

function isClearToolUsesEdit(e: unknown): e is ClearToolUsesEditLike {
  if (e === null || typeof e !== 'object' || isPlainObject(e)) return false
  const x = e as Record<string, unknown>
  return typeof x.apply === 'function' && 'trigger' in x && 'keep' in x && 'placeholder' in x
}

/** A LangChain `ClearToolUsesEdit` (or a plain edit object) as a plain `clear_tool_uses` edit. */
function plainEdit(e: unknown, k: number): Record<string, unknown> {
  if (isClearToolUsesEdit(e)) {
    const out: Record<string, unknown> = {
      type: 'clear_tool_uses',
      trigger: e.trigger,
      keep: e.keep,
      excludeTools: [...(e.excludeTools ?? [])],
      placeholder: e.placeholder,
      clearToolInputs: e.clearToolInputs,
    }
    if (e.clearAtLeast !== undefined) out.clearAtLeast = e.clearAtLeast
    return JSON.parse(JSON.stringify(out))
  }
  if (isPlainObject(e) && typeof e.apply !== 'function') {
    const out: Record<string, unknown> = { ...e }
    if (out.excludeTools instanceof Set) out.excludeTools = [...out.excludeTools]
    if (out.type === undefined) out.type = 'clear_tool_uses'
    return out
  }
  if (e !== null && typeof e === 'object' && typeof (e as { apply?: unknown }).apply === 'function') {
    const name = isPlainObject(e) ? 'a custom ContextEdit' : ((e as object).constructor?.name ?? 'this edit')
    throw invalid(`edits[${k}]`, `${name} is not supported: only ClearToolUsesEdit (or a plain { trigger, keep, ... } object) can run in the core`)
  }
  throw invalid(`edits[${k}]`, `expected a ClearToolUsesEdit or an edit object, got ${describe(e)}`)
}

/**
 * Validates options and builds the editor. `null` anywhere means "unset". Throws a
 * `ContextEditorError` (`INVALID_OPTIONS`) whose message and `path` name the offending field.
 */
export function resolveOptions(input: ContextEditingMiddlewareConfig | null | undefined): ResolvedOptions {
  if (input === undefined || input === null) input = {}
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw invalid('options', `expected an object, got ${describe(input)}`)
  }
  const { onReport, maxInputTokens, edits, ...rest } = input as ContextEditingMiddlewareConfig & Record<string, unknown>
  if (onReport !== undefined && onReport !== null && typeof onReport !== 'function') {
    throw invalid('onReport', `expected a function, got ${describe(onReport)}`)
  }
  let max: number | undefined
  if (maxInputTokens !== undefined && maxInputTokens !== null) {
    if (typeof maxInputTokens !== 'number' || !Number.isSafeInteger(maxInputTokens) || maxInputTokens <= 0) {
      throw invalid('maxInputTokens', `expected a positive integer, got ${describe(maxInputTokens)}`)
    }
    max = maxInputTokens
  }
  const options = (withoutNulls(rest) ?? {}) as Record<string, unknown>
  if (edits !== undefined && edits !== null) {
    if (!Array.isArray(edits)) throw invalid('edits', `expected a list of edits, got ${describe(edits)}`)
    if (edits.length > MAX_OPTIONS_LIST) throw invalid('edits', tooLongText(edits.length))
    options.edits = Array.from(edits).map((e, k) => withoutNulls(plainEdit(e, k), `edits[${k}]`) ?? { type: 'clear_tool_uses' })
  }
  checkJsonValues(options, '')
  let editor: ContextEditor
  try {
    editor = new ContextEditor(options as EditorOptions)
  } catch (e) {
    if (e instanceof ContextEditorError && e.code !== 'INTERNAL') {
      throw new ContextEditorError(e.code, `${MIDDLEWARE_NAME}: ${e.message}`, { path: e.path, cause: e })
    }
    throw e
  }
  return {
    editor,
    maxInputTokens: max,
    fixedModel: options.model !== undefined || options.encoding !== undefined,
    onReport: onReport ?? undefined,
  }
}

// ---------------------------------------------------------------------------------------------
// Summarization (`SummarizationMiddleware`): LangChain's option names, plus ours.

/** The LangChain middleware's `name`: the same as LangChain's own, whose drop-in it is. */
export const SUMMARIZATION_MIDDLEWARE_NAME = 'SummarizationMiddleware'

/**
 * The Xpert strategy name of our summarization. Not `SummarizationMiddleware`: the host's built-in
 * plugin (`@xpert-ai/plugin-agent-middlewares`) owns that name with other options (`model`), the
 * provider discovered last wins a name, and uninstalling a plugin removes every name it registered.
 */
export const XPERT_SUMMARIZATION_STRATEGY = 'ContextEditorSummarizationMiddleware'

/** One condition of a summarization trigger (the same conditions as every trigger). */
export type SummarizationTrigger = TriggerCondition

/** What stays verbatim after a summary: exactly one key. */
export type SummarizationKeep = SummaryKeep

/**
 * Options of the summarization middleware, with LangChain's `summarizationMiddleware` names
 * (`trigger`, `keep`, `summaryPrompt`, `summaryPrefix`, `trimTokensToSummarize`) plus ours: the
 * `summarize` edit's keys (its `model` is the middleware's own option, a chat model or a name),
 * `tokenCountMethod`, the model's input limit and the middleware's own options. `null` = unset.
 */
export interface SummarizationOptions
  extends Omit<SummarizeEdit, 'type' | 'model'>, Pick<EditorOptions, 'tokenCountMethod'>, MiddlewareOptions, SummarizationMiddlewareOptions {}

const declaredRetryAfter = (
  OPTIONS_SCHEMA.$defs.SummarizationMiddlewareOptions as { properties: { retryAfter: { default: { calls: number; seconds: number } } } }
).properties.retryAfter.default

/** Default of `retryAfter` (declared with the option). */
export const DEFAULT_SUMMARY_RETRY_AFTER: { readonly calls: number; readonly seconds: number } = Object.freeze({ ...declaredRetryAfter })

/** The summarization options' JSON Schema, with localized titles and descriptions (Xpert `configSchema`). */
export const summarizationConfigSchema: FormSchema = summarizationForm

/** The summarization middleware's option names (the keys of `summarizationConfigSchema.properties`). */
const SUMMARIZATION_OPTION_NAMES = Object.keys(summarizationConfigSchema.properties)

/** The options that go into the `summarize` edit: its declared keys but `type` and `model`. */
const SUMMARIZE_KEYS = Object.keys((OPTIONS_SCHEMA.$defs.SummarizeEdit as { properties: object }).properties).filter((k) => k !== 'type' && k !== 'model')

/** What the summarization hooks need: an editor with one `summarize` edit and the per-call settings. */
export interface ResolvedSummarizationOptions {
  editor: ContextEditor
  maxInputTokens?: number
  maxTokens?: number
  /** When a failed summary is attempted again. */
  retryAfter: { calls: number; seconds: number }
}

/** `retryAfter`: an object of non-negative integers `calls` and `seconds` (each defaulted). */
function readRetryAfter(value: unknown, fail: (path: string, what: string) => ContextEditorError): { calls: number; seconds: number } {
  const out: { calls: number; seconds: number } = { ...DEFAULT_SUMMARY_RETRY_AFTER }
  if (value === undefined) return out
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('retryAfter', `expected { calls?, seconds? }, got ${describe(value)}`)
  for (const [key, v] of Object.entries(value)) {
    if (key !== 'calls' && key !== 'seconds') throw fail(`retryAfter.${key}`, 'unknown option (expected calls or seconds)')
    if (v === undefined || v === null) continue
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw fail(`retryAfter.${key}`, `expected a non-negative integer, got ${describe(v)}`)
    out[key] = v
  }
  return out
}

/**
 * Validates summarization options (`null` = unset) and builds the editor. LangChain's deprecated
 * `maxTokensBeforeSummary` / `messagesToKeep` are read as `trigger: { tokens }` / `keep: { messages }`.
 * @throws {ContextEditorError} `INVALID_OPTIONS` naming the offending field.
 */
export function resolveSummarizationOptions(input: Record<string, unknown> | null | undefined, known: readonly string[] = []): ResolvedSummarizationOptions {
  const fail = (path: string, what: string) => new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: ${path}: ${what}`, { path })
  if (input === undefined || input === null) input = {}
  if (typeof input !== 'object' || Array.isArray(input)) throw fail('options', `expected an object, got ${describe(input)}`)
  const flat = (dropNulls(input, fail) ?? {}) as Record<string, unknown>
  const { maxTokensBeforeSummary, messagesToKeep, ...rest } = flat
  if (maxTokensBeforeSummary !== undefined && rest.trigger === undefined) rest.trigger = { tokens: maxTokensBeforeSummary }
  if (messagesToKeep !== undefined && rest.keep === undefined) rest.keep = { messages: messagesToKeep }
  const allowed = new Set<string>([...SUMMARIZATION_OPTION_NAMES, ...known])
  for (const key of Object.keys(rest)) {
    if (!allowed.has(key)) throw fail(key, `unknown option (expected one of ${SUMMARIZATION_OPTION_NAMES.join(', ')})`)
  }
  let max: number | undefined
  if (rest.maxInputTokens !== undefined) {
    const m = rest.maxInputTokens
    if (typeof m !== 'number' || !Number.isSafeInteger(m) || m <= 0) throw fail('maxInputTokens', `expected a positive integer, got ${describe(m)}`)
    max = m
  }
  const edit: Record<string, unknown> = { type: 'summarize' }
  for (const key of SUMMARIZE_KEYS) if (rest[key] !== undefined) edit[key] = rest[key]
  const options: Record<string, unknown> = { edits: [edit] }
  if (rest.tokenCountMethod !== undefined) options.tokenCountMethod = rest.tokenCountMethod
  checkJson(options, '', fail)
  let editor: ContextEditor
  try {
    editor = new ContextEditor(options as EditorOptions)
  } catch (e) {
    if (e instanceof ContextEditorError && e.code !== 'INTERNAL') {
      // The edit is ours, not the user's: name the option, not `edits[0].option`.
      const path = e.path?.replace(/^edits\[0\]\.?/, '') || e.path
      const message = e.message.replace(/^edits\[0\]\.?/, '')
      throw new ContextEditorError(e.code, `${SUMMARIZATION_MIDDLEWARE_NAME}: ${message}`, { path, cause: e })
    }
    throw e
  }
  return {
    editor,
    maxInputTokens: max,
    maxTokens: typeof rest.maxTokens === 'number' ? rest.maxTokens : undefined,
    retryAfter: readRetryAfter(rest.retryAfter, fail),
  }
}
