// Editor options from `--config file.json` and `--option key=value` (dotted keys, JSON values).

import { ContextEditor } from '../editor.js'
import { ContextEditorError } from '../errors.js'
import type { EditorOptions } from '../native.js'
import { declaredDefaults } from '../options.js'
import type { OptionDefaults } from '../generated/options.js'
import { parseJson } from './json.js'
import { CliError, printable, readInput, sourceName } from './util.js'

const FORBIDDEN = new Set(['__proto__', 'prototype', 'constructor'])

/**
 * A value of `--option`: JSON when it parses (`5`, `true`, `["a"]`, `{"tokens":1}`), else the raw
 * string. JSON with a duplicate key is an error (one of the two values would be dropped unseen).
 */
export function parseOptionValue(raw: string, key = ''): unknown {
  try {
    JSON.parse(raw)
  } catch {
    return raw
  }
  return parseJson(raw, `--option ${key}`)
}

/**
 * Sets `target[a][b][0]…` for the dotted key `a.b.0`; numeric segments index arrays. An index may
 * replace an element or append one, never leave a gap: `excludeTools.4294967294=x` made an array of
 * 4,294,967,295 holes that the editor then walked for minutes and gigabytes.
 */
export function setDotted(target: Record<string, any>, key: string, value: unknown): void {
  const parts = key.split('.')
  if (parts.some((p) => p === '' || FORBIDDEN.has(p))) throw new CliError(`--option ${key}: invalid key`)
  let node: any = target
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]
    const path = parts.slice(0, k + 1).join('.')
    if (Array.isArray(node)) checkIndex(node, p, key, parts.slice(0, k).join('.'))
    if (k === parts.length - 1) {
      defineData(node, p, value)
      return
    }
    const nextIsIndex = /^\d+$/.test(parts[k + 1])
    const child = Object.hasOwn(node, p) ? node[p] : undefined
    if (child === undefined || child === null || typeof child !== 'object') defineData(node, p, nextIsIndex ? [] : {})
    else if (nextIsIndex && !Array.isArray(child)) throw new CliError(`--option ${key}: ${path} is an object, not a list (no index ${parts[k + 1]})`)
    node = node[p]
  }
}

/** A segment addressing list `list` (named `name`) must be an index from 0 to its length. */
function checkIndex(list: unknown[], segment: string, key: string, name: string): void {
  if (!/^(0|[1-9]\d*)$/.test(segment)) {
    throw new CliError(`--option ${key}: ${name} is a list: expected an index from 0 to ${list.length}, got \`${segment}\``)
  }
  const index = Number(segment)
  if (index > list.length) {
    throw new CliError(
      `--option ${key}: index ${segment} is past the end of ${name} (${list.length} element${list.length === 1 ? '' : 's'}): ` +
        `set ${name}.${list.length} to append, or give the whole list (--option ${name}='[...]')`,
    )
  }
}

/** Sets an own data property (a plain assignment to `__proto__` would set the prototype). */
function defineData(node: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true })
}

/** Reads `--config` (if any) and applies each `--option` on top. */
export async function loadOptions(config: string | undefined, pairs: readonly string[] = []): Promise<EditorOptions> {
  let options: Record<string, any> = {}
  if (config !== undefined) {
    const name = printable(sourceName(config))
    const doc = parseJson(await readInput(config), name)
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
      throw new CliError(`${name}: expected a JSON object of editor options`)
    }
    options = doc as Record<string, any>
  }
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new CliError(`--option ${pair}: expected key=value (e.g. --option keep.messages=5)`)
    const key = pair.slice(0, eq).trim()
    setDotted(options, key, parseOptionValue(pair.slice(eq + 1), key))
  }
  return options as EditorOptions
}

/** Builds the editor; invalid options are a usage error naming the option path and what is allowed. */
export function makeEditor(options: EditorOptions, where: string): ContextEditor {
  try {
    return new ContextEditor(options)
  } catch (e) {
    if (e instanceof ContextEditorError && (e.code === 'INVALID_OPTIONS' || e.code === 'UNKNOWN_ENCODING' || e.code === 'TOKENIZER_UNAVAILABLE')) {
      throw new CliError(`invalid options (${where}): ${e.message}`)
    }
    throw e
  }
}

/** The placeholders of the clearing edits (an OpenAI/Anthropic tool result equal to one is already cleared). */
export function placeholdersOf(options: EditorOptions): Set<string> {
  const edits = (options.edits ?? [options]) as ReadonlyArray<{ type?: string; placeholder?: string | null }>
  const placeholder = declaredDefaults().clear_tool_uses.placeholder as string
  return new Set(edits.filter((e) => (e.type ?? 'clear_tool_uses') === 'clear_tool_uses').map((e) => e.placeholder ?? placeholder))
}

/** Token thresholds of the triggers, for marking them on the context map. */
export function triggerThresholds(options: EditorOptions, maxInputTokens: number | undefined): number[] {
  const out = new Set<number>()
  const edits = (options.edits ?? [options]) as ReadonlyArray<{ type?: string; trigger?: unknown }>
  for (const e of edits) {
    // The declared default trigger of the edit (only clear_tool_uses has one; the others apply
    // always, and summarize's depends on the input limit).
    const type = (e.type ?? 'clear_tool_uses') as keyof OptionDefaults
    const declared = (declaredDefaults()[type] as { trigger?: unknown } | undefined)?.trigger
    const trigger = e.trigger === undefined || e.trigger === null ? declared : e.trigger
    const list = Array.isArray(trigger) ? trigger : trigger ? [trigger] : []
    for (const c of list as Array<Record<string, unknown>>) {
      if (typeof c.tokens === 'number') out.add(c.tokens)
      if (typeof c.fraction === 'number' && maxInputTokens) out.add(Math.floor(maxInputTokens * c.fraction))
    }
  }
  return [...out].sort((a, b) => a - b)
}
