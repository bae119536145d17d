// The codec layer's shared vocabulary.
//
// A conversation in a provider's own format (Anthropic Messages, OpenAI Responses items, AI SDK
// `ModelMessage`s) is decoded into *segments*: a run of the caller's messages (one message, or for
// Responses an assistant turn spread over several items) and the chat-shape messages (*units*,
// LangChain dicts) that stand for it. The editor runs on the units; each segment then encodes the
// edited units back into its own format. A segment's units are made once per message object and
// kept (see `FormatCodec`), so an agent's successive calls hand the editor the very same units and
// its sessions work as they do for LangChain messages.

import type { AnyMessage } from '../wire.js'

/** The message formats the library reads. `langchain` and `openai` (chat completions) are native. */
export type MessageFormat = 'langchain' | 'openai' | 'anthropic' | 'responses' | 'aisdk' | 'mastra'
export const MESSAGE_FORMATS: readonly MessageFormat[] = ['langchain', 'openai', 'anthropic', 'responses', 'aisdk', 'mastra']
/** The formats decoded by the codec layer (the others go to the editor as they are). */
export type ForeignFormat = 'anthropic' | 'responses' | 'aisdk' | 'mastra'

/** Where a unit comes from, relative to its segment. */
export interface UnitSource {
  /** Offset of the caller's message in the segment. */
  message: number
  /** The content block / part it stands for (a tool result inside a user or tool message). */
  part?: number
}

/**
 * A run of the caller's messages and the units standing for them. Position-independent: kept
 * between calls and reused wherever the same messages appear.
 */
export interface Segment {
  /** The caller's messages, as they were read. */
  members: readonly unknown[]
  /** What each member's decoding read (see `printOf`): a change makes a new segment. */
  prints: ReadonlyArray<readonly unknown[]>
  units: AnyMessage[]
  from: UnitSource[]
  /**
   * The members rebuilt from the edited units (`undefined` = removed), when at least one differs
   * from its unit: unchanged members are returned as they are, changed ones are new objects
   * keeping every field the edit did not touch.
   */
  encode(edited: ReadonlyArray<AnyMessage | undefined>): unknown[]
}

/** The context a whole request brings: system prompt (`system`, `instructions`), tools and model. */
export interface RequestParts {
  /** The system prompt's text, or a system message holding its blocks when they carry cache breakpoints. */
  systemPrompt?: string | { role: 'system'; content: unknown[] }
  tools?: unknown[]
  model?: string
}

export const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * Whether `s` is one of the placeholders as the core writes them for the result of call `id`, by
 * length first: a Set lookup would hash every result's whole text, anew for each fresh copy a
 * framework hands over. A placeholder that names its call (`{tool_call_id}`, e.g. the recall
 * tool's) matches with this result's id in every slot, as the core fills them: not with any text
 * there (a placeholder of only the slot would match every result), and with two slots too.
 */
export function isPlaceholder(placeholders: ReadonlySet<string>, s: unknown, id: string): boolean {
  if (typeof s !== 'string') return false
  for (const p of placeholders) {
    if (p.length === s.length && p === s) return true
    if (!p.includes('{tool_call_id}')) continue
    const parts: string[] = p.split('{tool_call_id}')
    if (s.length === p.length + (parts.length - 1) * (id.length - 14) && parts.join(id) === s) return true
  }
  return false
}

/** The LangChain marker of a result cleared earlier (its placeholder is all that is left of it). */
export function clearedMarker(): Record<string, any> {
  return { context_editing: { cleared: true, strategy: 'clear_tool_uses' } }
}

/** What a decoding read of `m`: its listed fields, and each entry of its content list. */
export function printOf(m: Record<string, any>, fields: readonly string[], list?: unknown): unknown[] {
  const out: unknown[] = fields.map((f) => m[f])
  if (Array.isArray(list)) {
    out.push(list.length)
    for (const b of list) out.push(b)
  }
  return out
}

/** Text of a system prompt given as a string or as text blocks/parts. */
export function systemText(system: unknown): string | undefined {
  if (typeof system === 'string') return system
  if (Array.isArray(system)) {
    return system.map((b: any) => (typeof b === 'string' ? b : isObject(b) && typeof b.text === 'string' ? b.text : '')).join('\n')
  }
  return undefined
}

/** Tool call `args` the editor accepts (an object) from a format's arguments (any JSON value). */
export function argsObject(input: unknown): Record<string, any> {
  return isObject(input) ? input : input === undefined ? {} : { input }
}

/**
 * Whether `after` is `before` with only a cache breakpoint added (`cacheBreakpoints`): a string
 * became one text block marked with `cache_control`, or the last block got one.
 */
export function onlyBreakpoint(before: unknown, after: unknown): boolean {
  if (!Array.isArray(after) || after.length === 0) return false
  const last = after[after.length - 1]
  if (!isObject(last) || last.cache_control === undefined) return false
  if (typeof before === 'string') return after.length === 1 && last.type === 'text' && last.text === before
  if (!Array.isArray(before) || before.length !== after.length) return false
  for (let k = 0; k < after.length - 1; k++) if (after[k] !== before[k]) return false
  const was = before[before.length - 1]
  if (!isObject(was)) return false
  const { cache_control: _mark, ...rest } = last
  const keys = Object.keys(rest)
  return keys.length === Object.keys(was).length && keys.every((k) => Object.is(rest[k], was[k]))
}

/**
 * `content` without the cache breakpoint the edit put on its last block (a marked lone text block is
 * its text again), for formats that say it elsewhere or not at all.
 */
export function unmarked(content: unknown): unknown {
  if (!Array.isArray(content) || content.length === 0) return content
  const last = content[content.length - 1]
  if (!isObject(last) || last.cache_control === undefined) return content
  const { cache_control: _mark, ...rest } = last
  if (content.length === 1 && rest.type === 'text' && typeof rest.text === 'string' && Object.keys(rest).length === 2) return rest.text
  return [...content.slice(0, -1), rest]
}

/** Whether any block of `content` carries a cache breakpoint. */
export function hasBreakpoint(content: unknown): boolean {
  return Array.isArray(content) && content.some((b) => isObject(b) && b.cache_control !== undefined)
}

/** Whether a call's arguments were cleared by the edit (`clear_tool_inputs`). */
export function argsCleared(before: AnyMessage | undefined, after: AnyMessage | undefined): boolean {
  return before !== undefined && after !== undefined && before !== after && isObject(after.args) && Object.keys(after.args).length === 0
}
