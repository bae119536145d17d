// The one description of the middleware's options, shared by the LangChain factory
// (`context-editor/langchain`) and the Xpert strategy (`context-editor/xpert`).
//
// - `configSchema` is the JSON Schema the Xpert UI renders (localized titles and descriptions for
//   every option). It is written once, here; the TypeScript types below are tied to it at compile
//   time (`satisfies`), and `__test__/xpert-schema.spec.mjs` feeds the same option sets to this
//   schema (through ajv) and to the core's native validator and checks that they accept and reject
//   the same ones.
// - `resolveOptions` turns user options into an editor: `null` means "unset" (the Xpert UI sends
//   nulls), LangChain `ClearToolUsesEdit` instances become plain edits, and the core validates the
//   rest, so a wrong value is reported with the path of the field.
//
// This file imports no host library (no zod, no LangChain, no NestJS): the package entry loads it.

import { ContextEditor } from './editor.js'
import { ContextEditorError } from './errors.js'
import type { EditorOptions, EditReport } from './native.js'
import { MAX_OPTIONS_DEPTH, MAX_OPTIONS_LIST } from './limits.js'

/** The name under which the middleware registers (LangChain `name`, Xpert strategy provider). */
export const MIDDLEWARE_NAME = 'ContextEditingMiddleware'

/** A text in the languages the Xpert UI shows. */
export interface I18nText {
  en_US: string
  zh_Hans: string
}

/** One condition of a trigger; every key set must hold (AND). A list of conditions is ORed. */
export interface TriggerCondition {
  /** Fire when the request (messages + system prompt + tool schemas) has at least this many tokens. */
  tokens?: number | null
  /** Fire when there are at least this many messages. */
  messages?: number | null
  /** Fire at `floor(maxInputTokens * fraction)` tokens (0 < fraction <= 1). */
  fraction?: number | null
  /** Fire when there are at least this many tool results (Anthropic's `tool_uses`). */
  toolUses?: number | null
}

/** Step rule of stable clearing: at most one of `stepRatio`, `stepTokens`, `stepResults`. */
export interface StableOptions {
  /** Step when the tokens a step frees are at least this many times the cached tokens it rewrites (default 3). */
  stepRatio?: number | null
  /** Step when the uncleared tool results outside the kept window exceed this many tokens. */
  stepTokens?: number | null
  /** Clear a multiple of this many tool results (LangChain's count rounded down). */
  stepResults?: number | null
  /** Hard ceiling of the request in tokens (default: the lowest `tokens` trigger, capped by the input limit). */
  maxTokens?: number | null
}

/** How many of the newest tool results stay intact: exactly one key. */
export type KeepPolicy =
  | { messages: number; tokens?: never; fraction?: never }
  | { tokens: number; messages?: never; fraction?: never }
  | { fraction: number; messages?: never; tokens?: never }

/** The encodings embedded for `tokenCountMethod: "model"`. */
export type Encoding = 'o200k_base' | 'o200k_harmony' | 'cl100k_base' | 'p50k_base' | 'p50k_edit' | 'r50k_base'

/**
 * Options of the context-editing middleware: the same names and defaults as LangChain's
 * `ClearToolUsesEdit` / `contextEditingMiddleware`, flat (the Xpert plugin's shape). `null` = unset.
 */
export interface ContextEditingOptions {
  /**
   * When to clear: one condition or a list of conditions (any one fires).
   * @default { tokens: 100000 }
   */
  trigger?: TriggerCondition | TriggerCondition[] | null
  /**
   * How many of the newest tool results to keep intact.
   * @default { messages: 3 }
   */
  keep?: KeepPolicy | null
  /**
   * Tool names whose results are never cleared.
   * @default []
   */
  excludeTools?: string[] | null
  /**
   * Text that replaces a cleared tool result.
   * @default "[cleared]"
   */
  placeholder?: string | null
  /**
   * Also replace the arguments of cleared calls with `{}`: `true` for every tool, or a list of tool names.
   * @default false
   */
  clearToolInputs?: boolean | string[] | null
  /**
   * Keep clearing (newest kept results first) until at least this many tokens are freed.
   * @default 0
   */
  clearAtLeast?: number | null
  /**
   * Cache-aware clearing: the cleared boundary moves only in steps, as a function of the history
   * alone, so consecutive calls send identical prefixes until the next step; the ceiling
   * (`maxTokens`, default the `tokens` trigger capped by the model's input limit) forces an early step.
   * `true` = `{ stepRatio: 3 }`: step when the tokens a step frees are at least 3× the tokens of the
   * previous request it rewrites. See README, *Cache-aware editing*.
   * @default false
   */
  stable?: boolean | StableOptions | null
  /**
   * Mark the end of the request and the cleared boundaries with Anthropic `cache_control`
   * (`{ type: 'ephemeral' }`), at most 4 breakpoints counting those already set; OpenAI-shaped
   * messages are left alone. `"anthropic"` = `true`.
   * @default false
   */
  cacheBreakpoints?: boolean | 'anthropic' | null
  /**
   * `"approx"`: LangChain's `ceil(chars / 4)`; `"model"`: exact tiktoken counts, offline;
   * `"estimate"`: a fast script-aware estimate of the exact count (no tokenizer tables).
   * @default "approx"
   */
  tokenCountMethod?: 'approx' | 'model' | 'estimate' | null
  /**
   * The model's input limit in tokens, for `fraction` options. When unset, the model's
   * `profile.maxInputTokens` is used, then the limit of a known OpenAI model name.
   */
  maxInputTokens?: number | null
  /** Model name for model-mode counting and known input limits (default: the request's model name). */
  model?: string | null
  /**
   * Encoding for model mode; wins over `model`.
   * @default "o200k_base"
   */
  encoding?: Encoding | null
  /**
   * Bound of the token cache in entries (model mode); 0 disables it.
   * @default 200000
   */
  tokenCacheSize?: number | null
}

/** One `clear_tool_uses` edit as a plain object (the shape of LangChain's `ClearToolUsesEdit` config). */
export interface ClearToolUsesEditOptions {
  type?: 'clear_tool_uses'
  trigger?: TriggerCondition | TriggerCondition[] | null
  keep?: KeepPolicy | null
  excludeTools?: string[] | Set<string> | null
  placeholder?: string | null
  clearToolInputs?: boolean | string[] | null
  clearAtLeast?: number | null
  stable?: boolean | StableOptions | null
  cacheBreakpoints?: boolean | 'anthropic' | null
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

// ---------------------------------------------------------------------------------------------
// The JSON Schema (Xpert `configSchema`)

/** The largest integer the core accepts (`Number.MAX_SAFE_INTEGER`). */
const MAX_INT = Number.MAX_SAFE_INTEGER

interface JsonSchemaProperty {
  type?: string
  title: I18nText
  description: I18nText
  default?: unknown
  enum?: readonly unknown[]
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  anyOf?: readonly Record<string, unknown>[]
  items?: Record<string, unknown>
  properties?: Record<string, JsonSchemaProperty>
  additionalProperties?: boolean
  minProperties?: number
  maxProperties?: number
  'x-ui'?: Record<string, unknown>
}

function text(en_US: string, zh_Hans: string): I18nText {
  return { en_US, zh_Hans }
}

const triggerProperties = {
  tokens: {
    type: 'number',
    exclusiveMinimum: 0,
    title: text('Tokens', 'Token 数'),
    description: text(
      'Fire when the request (messages, system prompt and tool schemas) has at least this many tokens.',
      '当请求（消息、系统提示词和工具定义）的 token 数达到该值时触发。',
    ),
  },
  messages: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_INT,
    title: text('Messages', '消息数'),
    description: text('Fire when the conversation has at least this many messages.', '当对话消息条数达到该值时触发。'),
  },
  fraction: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: 1,
    title: text('Fraction of the input limit', '占输入上限的比例'),
    description: text(
      "Fire at this share (0–1] of the model's input limit. Needs the limit: from the model profile, a known OpenAI model name, or the maxInputTokens option.",
      '当 token 数达到模型输入上限的该比例（0–1]时触发。需要已知上限：来自模型配置、已知的 OpenAI 模型名或 maxInputTokens 选项。',
    ),
  },
  toolUses: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_INT,
    title: text('Tool results', '工具结果数'),
    description: text('Fire when there are at least this many tool results.', '当工具结果条数达到该值时触发。'),
  },
} satisfies Record<keyof TriggerCondition, JsonSchemaProperty>

const keepProperties = {
  messages: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_INT,
    title: text('Tool results', '工具结果数'),
    description: text('Keep the newest N tool results.', '保留最近的 N 条工具结果。'),
  },
  tokens: {
    type: 'number',
    minimum: 0,
    title: text('Tokens', 'Token 数'),
    description: text(
      'Keep the newest tool results whose own token counts add up to at most this.',
      '保留最近的若干条工具结果，其自身 token 数之和不超过该值。',
    ),
  },
  fraction: {
    type: 'number',
    minimum: 0,
    maximum: 1,
    title: text('Fraction of the input limit', '占输入上限的比例'),
    description: text(
      "Keep tool results worth this share [0–1] of the model's input limit (3 results when the limit is unknown).",
      '保留占模型输入上限该比例 [0–1] 的工具结果（上限未知时保留 3 条）。',
    ),
  },
} satisfies Record<'messages' | 'tokens' | 'fraction', JsonSchemaProperty>

const properties = {
  trigger: {
    type: 'object',
    title: text('Trigger', '触发条件'),
    description: text(
      'When to start clearing old tool results. Every key set must hold; in JSON you may also give a list of such objects (any one fires). Default: { "tokens": 100000 }.',
      '何时开始清理旧的工具结果。所设置的条件需同时满足；在 JSON 中也可以给出多个这样的对象组成的列表（任一满足即触发）。默认：{ "tokens": 100000 }。',
    ),
    properties: triggerProperties,
    additionalProperties: false,
    minProperties: 1,
  },
  keep: {
    type: 'object',
    title: text('Keep', '保留'),
    description: text(
      'How many of the newest tool results stay intact: exactly one of messages, tokens or fraction. Default: { "messages": 3 }.',
      '保留多少条最近的工具结果不被清理：messages、tokens、fraction 三者选其一。默认：{ "messages": 3 }。',
    ),
    properties: keepProperties,
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
  },
  excludeTools: {
    type: 'array',
    items: { type: 'string' },
    title: text('Excluded tools', '排除的工具'),
    description: text('Names of tools whose results are never cleared.', '这些工具的结果永不清理。'),
    default: [],
    'x-ui': { component: 'tags', span: 2 },
  },
  placeholder: {
    type: 'string',
    title: text('Placeholder', '占位文本'),
    description: text('Text that replaces a cleared tool result.', '替换被清理工具结果的文本。'),
    default: '[cleared]',
  },
  clearToolInputs: {
    type: 'boolean',
    title: text('Clear tool inputs', '清理工具输入'),
    description: text(
      'Also replace the arguments of cleared tool calls with {}. In JSON you may give a list of tool names instead of true.',
      '同时将被清理调用的参数替换为 {}。在 JSON 中也可以用工具名列表代替 true。',
    ),
    default: false,
    'x-ui': { component: 'switch' },
  },
  clearAtLeast: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_INT,
    title: text('Clear at least (tokens)', '至少清理（token）'),
    description: text(
      'When clearing, free at least this many tokens, clearing kept results newest-first if needed (0 = off).',
      '触发清理时至少释放该数量的 token，必要时从最新的保留结果开始继续清理（0 表示关闭）。',
    ),
    default: 0,
  },
  stable: {
    title: text('Stable clearing (prompt cache)', '稳定清理（提示词缓存）'),
    description: text(
      'Cache-aware clearing: the cleared boundary moves only in steps, so consecutive model calls send identical prefixes and the provider\'s prompt cache keeps hitting. true = { "stepRatio": 3 }: step when a step frees at least 3× the tokens it takes out of the cache. In JSON you may give a step rule instead of true: { "stepRatio": R }, { "stepTokens": N } (step when the uncleared results outside the kept window exceed N tokens), { "stepResults": N } (clear a multiple of N results); "maxTokens" is the hard ceiling (default: the tokens trigger, capped by the model\'s input limit). Stateless: replicas agree.',
      '缓存友好的清理：被清理的边界只按步移动，连续的模型调用发送相同的前缀，服务商的提示词缓存得以持续命中。true = { "stepRatio": 3 }：当一步释放的 token 至少为其移出缓存的 token 的 3 倍时才移动。在 JSON 中也可以用步进规则代替 true：{ "stepRatio": R }、{ "stepTokens": N }（保留窗口之外未清理的结果超过 N 个 token 时移动）、{ "stepResults": N }（清理 N 条结果的整数倍）；"maxTokens" 为硬上限（默认：tokens 触发值，且不超过模型输入上限）。无状态：多个副本结果一致。',
    ),
    // A switch in the form (a field without `type` renders as a text input there); the step-rule
    // objects (`{ stepRatio }`, `{ stepTokens }`, ...) are a documented JSON-only extension.
    type: 'boolean',
    default: false,
    'x-ui': { component: 'switch' },
  },
  cacheBreakpoints: {
    title: text('Cache breakpoints (Anthropic)', '缓存断点（Anthropic）'),
    description: text(
      'Mark the end of the request and the cleared boundaries with Anthropic cache_control, at most 4 breakpoints counting those already set. OpenAI-shaped messages are left alone (OpenAI caches prefixes automatically). "anthropic" is the same as true.',
      '用 Anthropic 的 cache_control 标记请求末尾和被清理的边界，连同已有的断点最多 4 个。OpenAI 格式的消息不做改动（OpenAI 自动缓存前缀）。"anthropic" 等同于 true。',
    ),
    // A switch in the form; `"anthropic"` (the same as true) is accepted in JSON.
    type: 'boolean',
    default: false,
    'x-ui': { component: 'switch' },
  },
  tokenCountMethod: {
    type: 'string',
    enum: ['approx', 'model', 'estimate'],
    title: text('Token counting', 'Token 计数方式'),
    description: text(
      '"approx": LangChain\'s estimate (characters / 4). "model": exact tiktoken counts, computed offline. "estimate": a fast script-aware estimate of the exact count (close for Chinese and code, where characters / 4 is far off).',
      '"approx"：LangChain 的估算（字符数 / 4）。"model"：离线计算的精确 tiktoken 计数。"estimate"：按文字类型快速估算精确计数（对中文和代码比 字符数 / 4 准确得多）。',
    ),
    default: 'approx',
    'x-ui': {
      component: 'select',
      enumLabels: { approx: 'Approximate (chars / 4)', model: 'Exact (tiktoken)', estimate: 'Estimate (script-aware)' },
    },
  },
  maxInputTokens: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_INT,
    title: text('Max input tokens', '最大输入 token 数'),
    description: text(
      "The model's input limit, for fraction options. When empty, the model's profile or a known OpenAI model name is used.",
      '模型的输入上限，用于比例（fraction）选项。留空时使用模型配置或已知的 OpenAI 模型名。',
    ),
  },
  model: {
    type: 'string',
    title: text('Model name', '模型名称'),
    description: text(
      "Model name for exact counting and known input limits. When empty, the request's model name is used.",
      '用于精确计数和已知输入上限的模型名。留空时使用请求中的模型名。',
    ),
  },
  encoding: {
    type: 'string',
    enum: ['o200k_base', 'o200k_harmony', 'cl100k_base', 'p50k_base', 'p50k_edit', 'r50k_base'],
    title: text('Encoding', '编码'),
    description: text(
      'Tokenizer for exact counting; wins over the model name. Default: o200k_base.',
      '精确计数所用的分词器，优先于模型名。默认：o200k_base。',
    ),
    'x-ui': { component: 'select' },
  },
  tokenCacheSize: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_INT,
    title: text('Token cache size', 'Token 缓存大小'),
    description: text(
      'How many token counts of long texts to cache between calls (exact counting); 0 disables the cache.',
      '在多次调用间缓存的长文本 token 计数条数（精确计数）；0 表示不缓存。',
    ),
    default: 200000,
  },
} satisfies Record<keyof ContextEditingOptions, JsonSchemaProperty>

/** The options' JSON Schema, with localized titles and descriptions (the Xpert `configSchema`). */
export const configSchema = {
  type: 'object' as const,
  properties,
  additionalProperties: false,
  required: [] as string[],
}

/** The option names (the keys of `configSchema.properties`). */
export const OPTION_NAMES = Object.freeze(Object.keys(properties)) as readonly (keyof ContextEditingOptions)[]

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

function describe(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return 'an object'
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)
  return `${typeof v} ${String(v)}`
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

function checkListLength(v: readonly unknown[], path: string): void {
  if (v.length > MAX_OPTIONS_LIST) {
    throw invalid(path || 'options', `expected a list of at most ${MAX_OPTIONS_LIST.toLocaleString('en-US')} entries, got ${v.length.toLocaleString('en-US')}`)
  }
}

/**
 * Drops `null` values (the UI's "unset"); an object left empty by that is unset too. This is the
 * only place where `null` is interpreted. Keys are copied as own data properties, so a
 * `"__proto__"` key (e.g. from `JSON.parse`) stays an option key, rejected as unknown, and never
 * becomes the copy's prototype.
 * @throws {ContextEditorError} `INVALID_OPTIONS` for options nested deeper than 64 levels (or cyclic).
 */
export function withoutNulls(v: unknown, path = '', depth = 0): unknown {
  if (depth > MAX_OPTIONS_DEPTH) throw invalid(path || 'options', `nested more than ${MAX_OPTIONS_DEPTH} levels deep (a cycle?)`)
  if (Array.isArray(v)) {
    checkListLength(v, path)
    // A plain loop, not `map`: holes of a sparse list become `undefined` and are rejected by the
    // core with their index, instead of staying holes.
    const out: unknown[] = []
    for (let i = 0; i < v.length; i++) out.push(withoutNulls(v[i], `${path}[${i}]`, depth + 1))
    return out
  }
  if (!isPlainObject(v)) return v
  const out: Record<string, unknown> = {}
  let hadNull = false
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined) {
      hadNull = true
      continue
    }
    const y = withoutNulls(x, path ? `${path}.${k}` : k, depth + 1)
    if (y !== undefined) Object.defineProperty(out, k, { value: y, enumerable: true, writable: true, configurable: true })
  }
  return hadNull && Object.keys(out).length === 0 ? undefined : out
}

/** Rejects what JSON cannot carry (NaN, ±Infinity, functions, ...) with its path, before the core sees it. */
function checkJsonValues(v: unknown, path: string): void {
  if (typeof v === 'number' && !Number.isFinite(v)) throw invalid(path, `expected a finite number, got ${String(v)}`)
  if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') {
    throw invalid(path, `expected a JSON value, got a ${typeof v}`)
  }
  if (Array.isArray(v)) {
    checkListLength(v, path)
    for (let i = 0; i < v.length; i++) checkJsonValues(v[i], `${path}[${i}]`)
  }
  else if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) checkJsonValues(x, path ? `${path}.${k}` : k)
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
    throw invalid(
      `edits[${k}]`,
      `${name} is not supported: only ClearToolUsesEdit (or a plain { trigger, keep, ... } object) can run in the core`,
    )
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
    checkListLength(edits, 'edits')
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

/** One condition of a summarization trigger; every key set must hold (AND). A list is ORed. */
export interface SummarizationTrigger {
  /** Fire when the conversation has at least this many tokens. */
  tokens?: number | null
  /** Fire when there are at least this many messages. */
  messages?: number | null
  /** Fire at `floor(maxInputTokens * fraction)` tokens (0 < fraction <= 1). */
  fraction?: number | null
  /** Fire when there are at least this many turns (CE Node's `context_limit: N` = `turns: N + 1`). */
  turns?: number | null
  /** Fire when there are at least this many tool results. */
  toolUses?: number | null
}

/** What stays verbatim after a summary: exactly one key. */
export type SummarizationKeep =
  | { messages: number }
  | { tokens: number }
  | { fraction: number }
  | { turns: number }

/**
 * Options of the summarization middleware, with LangChain's `summarizationMiddleware` names
 * (`trigger`, `keep`, `summaryPrompt`, `summaryPrefix`, `trimTokensToSummarize`) plus ours.
 * `null` = unset (the Xpert UI sends nulls).
 */
export interface SummarizationOptions {
  /**
   * When to summarize: one condition or a list of conditions (any one fires).
   * @default DeepAgents: `{ fraction: 0.85 }` when the model's input limit is known, else `{ tokens: 170000 }`
   */
  trigger?: SummarizationTrigger | SummarizationTrigger[] | null
  /**
   * What stays verbatim: exactly one of `messages`, `tokens`, `fraction`, `turns`.
   * @default DeepAgents: `{ fraction: 0.1 }` when the model's input limit is known, else `{ messages: 6 }`
   */
  keep?: SummarizationKeep | null
  /**
   * The prompt sent to the summarizing model; `{messages}` is replaced by the conversation.
   * @default LangChain's `DEFAULT_SUMMARY_PROMPT`
   */
  summaryPrompt?: string | null
  /**
   * Text before the summary in the summary message.
   * @default "Here is a summary of the conversation to date:"
   */
  summaryPrefix?: string | null
  /**
   * Token bound of what is sent to the summarizer (the newest messages are kept); 0 = no bound.
   * @default 4000
   */
  trimTokensToSummarize?: number | null
  /** Tool results sent to the summarizer are cut to this many characters (CE Node `tool_trim_limit`). */
  toolTrimLimit?: number | null
  /**
   * Role of the summary message: `"user"` (LangChain: a HumanMessage with
   * `additional_kwargs.lc_source = "summarization"`) or `"assistant"` (CE Node).
   * @default "user"
   */
  summaryRole?: 'user' | 'assistant' | null
  /**
   * Output bound for the summarizing model: set on a copy of the model (and of its delegates, as
   * ChatOpenAI's) as `maxTokens`, or `maxOutputTokens` for Google's; a model with neither is used as it is.
   */
  maxTokens?: number | null
  /**
   * `"approx"`: LangChain's `ceil(chars / 4)`; `"model"`: exact tiktoken counts, offline;
   * `"estimate"`: a fast script-aware estimate of the exact count.
   * @default "approx"
   */
  tokenCountMethod?: 'approx' | 'model' | 'estimate' | null
  /**
   * The model's input limit in tokens, for `fraction` options and the DeepAgents defaults. When
   * unset, the summarizing model's `profile.maxInputTokens` is used.
   */
  maxInputTokens?: number | null
  /**
   * Back-off of a failing summarizer: after a failed summary (the model threw, or answered with no
   * usable text) it is asked again only once `calls` model calls have gone by, or `seconds` have
   * passed, whichever comes first; the history goes through unsummarized meanwhile.
   * `{ calls: 0 }` asks again on the next call.
   * @default { calls: 5, seconds: 300 }
   */
  retryAfter?: SummaryRetryAfter | null
}

/** When a failed summary is attempted again (see `SummarizationOptions.retryAfter`). */
export interface SummaryRetryAfter {
  /** Model calls to go by before the summarizer is asked again. @default 5 */
  calls?: number | null
  /** Seconds after the failure before it is asked again. @default 300 */
  seconds?: number | null
}

/** Default of `retryAfter`. */
export const DEFAULT_SUMMARY_RETRY_AFTER = { calls: 5, seconds: 300 } as const

const summarizationTriggerProperties = {
  tokens: triggerProperties.tokens,
  messages: triggerProperties.messages,
  fraction: triggerProperties.fraction,
  toolUses: triggerProperties.toolUses,
  turns: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_INT,
    title: text('Turns', '轮数'),
    description: text(
      'Fire when the conversation has at least this many turns (a turn = a user message and what follows it).',
      '当对话轮数达到该值时触发（一轮 = 一条用户消息及其后的消息）。',
    ),
  },
} satisfies Record<keyof SummarizationTrigger, JsonSchemaProperty>

const summarizationKeepProperties = {
  messages: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_INT,
    title: text('Messages', '消息数'),
    description: text('Keep the newest N messages verbatim.', '原样保留最近的 N 条消息。'),
  },
  tokens: {
    type: 'number',
    minimum: 0,
    title: text('Tokens', 'Token 数'),
    description: text('Keep the newest messages that fit in this many tokens.', '原样保留 token 总数不超过该值的最近消息。'),
  },
  fraction: {
    type: 'number',
    minimum: 0,
    maximum: 1,
    title: text('Fraction of the input limit', '占输入上限的比例'),
    description: text(
      "Keep the newest messages that fit in this share [0–1] of the model's input limit.",
      '原样保留 token 总数不超过模型输入上限该比例 [0–1] 的最近消息。',
    ),
  },
  turns: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_INT,
    title: text('Turns', '轮数'),
    description: text('Keep the last N turns verbatim (CE Node keep_last_n_turns).', '原样保留最近的 N 轮对话。'),
  },
} satisfies Record<'messages' | 'tokens' | 'fraction' | 'turns', JsonSchemaProperty>

const summarizationProperties = {
  trigger: {
    type: 'object',
    title: text('Trigger', '触发条件'),
    description: text(
      'When to summarize. Every key set must hold; in JSON you may also give a list of such objects (any one fires). Default (DeepAgents): { "fraction": 0.85 } when the input limit is known, else { "tokens": 170000 }.',
      '何时进行摘要。所设置的条件需同时满足；在 JSON 中也可以给出多个这样的对象组成的列表（任一满足即触发）。默认（DeepAgents）：已知输入上限时为 { "fraction": 0.85 }，否则为 { "tokens": 170000 }。',
    ),
    properties: summarizationTriggerProperties,
    additionalProperties: false,
    minProperties: 1,
  },
  keep: {
    type: 'object',
    title: text('Keep', '保留'),
    description: text(
      'What stays verbatim after the summary: exactly one of messages, tokens, fraction or turns. Default (DeepAgents): { "fraction": 0.1 } when the input limit is known, else { "messages": 6 }.',
      '摘要后原样保留的内容：messages、tokens、fraction、turns 四者选其一。默认（DeepAgents）：已知输入上限时为 { "fraction": 0.1 }，否则为 { "messages": 6 }。',
    ),
    properties: summarizationKeepProperties,
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
  },
  summaryPrompt: {
    type: 'string',
    title: text('Summary prompt', '摘要提示词'),
    description: text(
      "The prompt sent to the model; {messages} is replaced by the conversation to summarize. Default: LangChain's prompt.",
      '发送给模型的提示词；其中的 {messages} 会被替换为待摘要的对话。默认：LangChain 的提示词。',
    ),
    'x-ui': { component: 'textarea', span: 2 },
  },
  summaryPrefix: {
    type: 'string',
    title: text('Summary prefix', '摘要前缀'),
    description: text('Text placed before the summary in the summary message.', '摘要消息中位于摘要之前的文本。'),
    default: 'Here is a summary of the conversation to date:',
  },
  trimTokensToSummarize: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_INT,
    title: text('Tokens sent to the summarizer', '发送给摘要模型的 token 数'),
    description: text(
      'At most this many tokens of the newest messages to summarize are sent to the model (0 = no bound).',
      '最多将待摘要消息中最新的这么多 token 发送给模型（0 表示不限）。',
    ),
    default: 4000,
  },
  toolTrimLimit: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_INT,
    title: text('Tool result limit (characters)', '工具结果上限（字符）'),
    description: text(
      'Tool results sent to the summarizer are cut to this many characters.',
      '发送给摘要模型的工具结果被截断为该字符数。',
    ),
  },
  summaryRole: {
    type: 'string',
    enum: ['user', 'assistant'],
    title: text('Summary role', '摘要消息角色'),
    description: text(
      '"user": a human message marked lc_source = summarization (LangChain). "assistant": an assistant message (CE Node).',
      '"user"：标记 lc_source = summarization 的用户消息（LangChain）。"assistant"：助手消息（CE Node）。',
    ),
    default: 'user',
    'x-ui': { component: 'select' },
  },
  maxTokens: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_INT,
    title: text('Summary max tokens', '摘要最大 token 数'),
    description: text('Output bound for the summarizing model.', '摘要模型的输出上限。'),
  },
  tokenCountMethod: properties.tokenCountMethod,
  maxInputTokens: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_INT,
    title: text('Max input tokens', '最大输入 token 数'),
    description: text(
      "The model's input limit, for fraction options and the DeepAgents defaults. When empty, the model's profile is used.",
      '模型的输入上限，用于比例（fraction）选项和 DeepAgents 默认值。留空时使用模型配置。',
    ),
  },
  retryAfter: {
    type: 'object',
    title: text('Retry a failed summary after', '摘要失败后重试间隔'),
    description: text(
      'After a failed summary, the summarizer is asked again only after this many model calls or seconds, whichever comes first (default 5 calls, 300 s).',
      '摘要失败后，仅在经过这么多次模型调用或这么多秒后（以先到者为准）才再次请求摘要（默认 5 次、300 秒）。',
    ),
    properties: {
      calls: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_INT,
        title: text('Model calls', '模型调用次数'),
        description: text('Model calls to go by before asking again (0 = the next call). Default 5.', '再次请求前需经过的模型调用次数（0 表示下一次调用）。默认 5。'),
      },
      seconds: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_INT,
        title: text('Seconds', '秒数'),
        description: text('Seconds after the failure before asking again. Default 300.', '失败后再次请求前需等待的秒数。默认 300。'),
      },
    },
    additionalProperties: false,
  },
} satisfies Record<keyof SummarizationOptions, JsonSchemaProperty>

/** The summarization options' JSON Schema, with localized titles and descriptions (Xpert `configSchema`). */
export const summarizationConfigSchema = {
  type: 'object' as const,
  properties: summarizationProperties,
  additionalProperties: false,
  required: [] as string[],
}

/** What the summarization hooks need: an editor with one `summarize` edit and the per-call settings. */
export interface ResolvedSummarizationOptions {
  editor: ContextEditor
  maxInputTokens?: number
  maxTokens?: number
  /** When a failed summary is attempted again. */
  retryAfter: { calls: number; seconds: number }
}

const SUMMARIZE_KEYS = ['trigger', 'keep', 'summaryPrompt', 'summaryPrefix', 'trimTokensToSummarize', 'toolTrimLimit', 'summaryRole', 'maxTokens'] as const

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
  const fail = (path: string, what: string) =>
    new ContextEditorError('INVALID_OPTIONS', `${SUMMARIZATION_MIDDLEWARE_NAME}: ${path}: ${what}`, { path })
  if (input === undefined || input === null) input = {}
  if (typeof input !== 'object' || Array.isArray(input)) throw fail('options', `expected an object, got ${describe(input)}`)
  const flat = (withoutNulls(input) ?? {}) as Record<string, unknown>
  const { maxTokensBeforeSummary, messagesToKeep, ...rest } = flat
  if (maxTokensBeforeSummary !== undefined && rest.trigger === undefined) rest.trigger = { tokens: maxTokensBeforeSummary }
  if (messagesToKeep !== undefined && rest.keep === undefined) rest.keep = { messages: messagesToKeep }
  const allowed = new Set<string>([...Object.keys(summarizationProperties), ...known])
  for (const key of Object.keys(rest)) {
    if (!allowed.has(key)) throw fail(key, `unknown option (expected one of ${Object.keys(summarizationProperties).join(', ')})`)
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
  checkJsonValues(options, '')
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
  return { editor, maxInputTokens: max, maxTokens: typeof rest.maxTokens === 'number' ? rest.maxTokens : undefined, retryAfter: readRetryAfter(rest.retryAfter, fail) }
}
