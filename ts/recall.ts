// Recall: the `recall_tool_result` tool gives the model back a tool result that was cleared or
// truncated, by its `tool_call_id`. We can do this without any infrastructure because editing never
// mutates the agent's history: every original is still in the agent's state, and the tool reads it
// from there. Where the original is really gone (summarized away, or a host that drops history),
// an optional store that kept it answers; otherwise the tool says plainly that it is gone.
//
// The placeholder tells the model the id and the tool (`RECALL_PLACEHOLDER`, a `{tool_call_id}`
// slot the core fills per result and counts as written). A recalled result is a tool result like
// any other: counted, and cleared again when it grows old.
//
// No host library is imported here: ts/langchain/recall.ts and the Xpert strategy wrap it.

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import { ContextEditorError } from './errors.js'

/** The tool's name. */
export const RECALL_TOOL_NAME = 'recall_tool_result'

/** A placeholder that names the cleared call and the tool that returns it. */
export const RECALL_PLACEHOLDER = `[cleared; ${RECALL_TOOL_NAME}("{tool_call_id}") returns it]`

/** What the model reads about the tool. */
export const RECALL_TOOL_DESCRIPTION =
  'Returns the full original content of an earlier tool result that was cleared or shortened to save context, given its tool_call_id (the id shown in the placeholder).'

/** The tool's input, as JSON Schema. */
export const recallToolSchema = {
  type: 'object' as const,
  properties: {
    tool_call_id: { type: 'string' as const, description: 'The id of the tool call whose result to return.' },
  },
  required: ['tool_call_id'],
  additionalProperties: false,
}

/** A place that keeps tool results for hosts that drop history. */
export interface RecallStore {
  get(toolCallId: string): unknown | Promise<unknown>
  set(toolCallId: string, content: unknown): void | Promise<void>
}

/** A store in memory (one process; lost on restart). */
export class InMemoryRecallStore implements RecallStore {
  readonly #items = new Map<string, unknown>()
  get(toolCallId: string): unknown {
    return this.#items.get(toolCallId)
  }
  set(toolCallId: string, content: unknown): void {
    this.#items.set(toolCallId, content)
  }
}

/** A store in a folder: one JSON file per result, named by a hash of its id. */
export class FileRecallStore implements RecallStore {
  readonly #dir: string
  #made: Promise<unknown> | undefined
  constructor(dir: string) {
    if (typeof dir !== 'string' || dir === '') throw new TypeError('FileRecallStore: expected a folder path')
    this.#dir = dir
  }
  #file(toolCallId: string): string {
    return join(this.#dir, `${createHash('sha256').update(toolCallId).digest('hex').slice(0, 40)}.json`)
  }
  async get(toolCallId: string): Promise<unknown> {
    try {
      const saved = JSON.parse(await readFile(this.#file(toolCallId), 'utf8')) as { id?: unknown; content?: unknown }
      return saved.id === toolCallId ? saved.content : undefined
    } catch (e) {
      if ((e as NodeJS.ErrnoException)?.code === 'ENOENT') return undefined
      throw e
    }
  }
  async set(toolCallId: string, content: unknown): Promise<void> {
    this.#made ??= mkdir(this.#dir, { recursive: true })
    await this.#made
    const file = this.#file(toolCallId)
    // Written whole, then renamed: a reader never sees half a file.
    const part = `${file}.${process.pid}.${Date.now()}.part`
    await writeFile(part, JSON.stringify({ id: toolCallId, content }))
    await rename(part, file)
  }
}

/** The part of LangGraph's `BaseStore` the adapter uses. */
export interface LangGraphStoreLike {
  get(namespace: string[], key: string): Promise<{ value?: Record<string, unknown> } | null | undefined>
  put(namespace: string[], key: string, value: Record<string, unknown>): Promise<void>
}

/** A LangGraph `BaseStore` (`InMemoryStore`, `PostgresStore`, the agent's `store`) as a recall store. */
export function langGraphRecallStore(store: LangGraphStoreLike, namespace: string[] = ['context-editor', 'recall']): RecallStore {
  return {
    async get(toolCallId) {
      const item = await store.get(namespace, toolCallId)
      return item?.value?.content
    },
    async set(toolCallId, content) {
      await store.put(namespace, toolCallId, { content })
    },
  }
}

/** Whether `s` looks like a LangGraph `BaseStore` (has `get`, `put`, `search`, `batch`). */
export function isLangGraphStore(s: unknown): s is LangGraphStoreLike {
  if (s === null || typeof s !== 'object') return false
  const o = s as Record<string, unknown>
  return ['get', 'put', 'search', 'batch'].every((k) => typeof o[k] === 'function')
}

/** A recall store from what the caller passed: ours, or a LangGraph `BaseStore`. */
export function recallStoreOf(store: unknown): RecallStore | undefined {
  if (store === undefined || store === null) return undefined
  if (isLangGraphStore(store)) return langGraphRecallStore(store)
  const o = store as Partial<RecallStore>
  if (typeof o.get === 'function' && typeof o.set === 'function') return store as RecallStore
  throw new TypeError('recall store: expected { get(id), set(id, content) } or a LangGraph BaseStore')
}

function own(m: unknown, key: string): unknown {
  if (m === null || typeof m !== 'object') return undefined
  try {
    return (m as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

/** Whether `m` is a tool result (LangChain instance or dict, OpenAI chat message). */
function isToolResult(m: unknown): boolean {
  const getType = own(m, '_getType')
  if (typeof getType === 'function') {
    try {
      return getType.call(m) === 'tool'
    } catch {
      return false
    }
  }
  return own(m, 'type') === 'tool' || own(m, 'role') === 'tool'
}

/** Whether a state message is itself a placeholder (a host that edits its history in place). */
function isCleared(m: unknown): boolean {
  const ce = own(own(m, 'response_metadata'), 'context_editing')
  return own(ce, 'cleared') === true
}

/**
 * The tool results `m` holds, each with its original content: a LangChain or OpenAI tool message
 * (not one the host itself marked cleared), AI SDK `tool-result` parts (their output's value),
 * Anthropic `tool_result` blocks, Responses / OpenAI Agents SDK `function_call_output` /
 * `function_call_result` items (their `output`), and Mastra `tool-invocation` parts that ran
 * (their `result`).
 */
function resultsIn(m: unknown): Array<{ id: unknown; content: () => unknown }> {
  const out: Array<{ id: unknown; content: () => unknown }> = []
  if (isToolResult(m) && !isCleared(m)) out.push({ id: own(m, 'tool_call_id'), content: () => own(m, 'content') })
  const type = own(m, 'type')
  if (type === 'function_call_output' || type === 'function_call_result' || type === 'custom_tool_call_output') {
    // The Agents SDK writes a text output as `{ type: 'text', text }`: the original is the text.
    const output = (): unknown => {
      const o = own(m, 'output')
      return own(o, 'type') === 'text' && typeof own(o, 'text') === 'string' ? own(o, 'text') : o
    }
    out.push({ id: own(m, 'call_id') ?? own(m, 'callId'), content: output })
  }
  const content = own(m, 'content')
  // Mastra: `content: { format: 2, parts, toolInvocations? }` (the legacy list repeats the parts).
  const mastra = Array.isArray(content) ? undefined : (own(content, 'parts') ?? own(content, 'toolInvocations'))
  const parts = Array.isArray(content) ? content : Array.isArray(mastra) ? mastra : []
  for (const part of parts) {
    const kind = own(part, 'type')
    if (kind === 'tool-result') {
      const output = own(part, 'output')
      out.push({
        id: own(part, 'toolCallId'),
        content: () => (output !== null && typeof output === 'object' && 'value' in output ? own(output, 'value') : output),
      })
    } else if (kind === 'tool_result') out.push({ id: own(part, 'tool_use_id'), content: () => own(part, 'content') })
    else {
      const inv = kind === 'tool-invocation' ? own(part, 'toolInvocation') : own(part, 'toolCallId') !== undefined ? part : undefined
      if (own(inv, 'state') === 'result') out.push({ id: own(inv, 'toolCallId'), content: () => own(inv, 'result') })
    }
  }
  return out
}

/** The original content of the result of call `toolCallId` in `messages` (newest first), if it is there. */
export function originalIn(messages: unknown, toolCallId: string): { content: unknown } | undefined {
  if (!Array.isArray(messages)) return undefined
  for (let i = messages.length - 1; i >= 0; i--) {
    const found = resultsIn(messages[i]).find((r) => r.id === toolCallId)
    if (found) return { content: found.content() }
  }
  return undefined
}

/** The recall tool for any framework: its name, description and schema, and what it answers. */
export interface Recall {
  name: typeof RECALL_TOOL_NAME
  description: string
  /** The input, as JSON Schema (`{ tool_call_id }`). */
  inputSchema: typeof recallToolSchema
  /** The placeholder to give `clear_tool_uses` so the model knows the id and the tool. */
  placeholder: string
  /** Records the host's own (unedited) messages of the latest model call, and keeps them in the store. */
  remember(messages: readonly unknown[]): Promise<void>
  /** The tool's answer: from `messages` when given, else from what `remember` recorded, else the store. */
  answer(input: unknown, messages?: readonly unknown[]): Promise<unknown>
}

/**
 * The recall tool for frameworks without a ready-made one (AI SDK, OpenAI Agents, Mastra, your own
 * loop): call `remember(messages)` with the unedited messages before each model call (e.g. at the
 * start of AI SDK's `prepareStep`), and answer the tool with `answer(input)`.
 */
export function createRecall(options: { store?: RecallStore | LangGraphStoreLike | null } = {}): Recall {
  const store = recallStoreOf(options.store)
  const seen = new Set<string>()
  let latest: readonly unknown[] = []
  return {
    name: RECALL_TOOL_NAME,
    description: RECALL_TOOL_DESCRIPTION,
    inputSchema: recallToolSchema,
    placeholder: RECALL_PLACEHOLDER,
    async remember(messages) {
      latest = Array.isArray(messages) ? [...messages] : []
      if (store) await rememberToolResults(latest, store, seen)
    },
    answer: (input, messages) => recallToolResult(input, messages ?? latest, store),
  }
}

/** What the tool answers when the original is gone. */
export function goneText(toolCallId: string): string {
  return `The result of tool call "${toolCallId}" is gone: it was summarized away or removed from the conversation, and nothing kept it. Run the tool again if you need it.`
}

/**
 * The tool's answer: the original content of the result of `toolCallId`, from the agent's
 * untouched history, else from `store`, else the plain "gone" text.
 */
export async function recallToolResult(input: unknown, messages: unknown, store?: RecallStore): Promise<unknown> {
  const id = own(input, 'tool_call_id')
  if (typeof id !== 'string' || id === '') return `${RECALL_TOOL_NAME} needs a tool_call_id: the id of the tool call whose result to return.`
  const found = originalIn(messages, id)
  if (found) return found.content
  const kept = store ? await store.get(id) : undefined
  return kept === undefined ? goneText(id) : kept
}

/**
 * Keeps the originals of the tool results in `messages` in `store` (each id once per `seen`), so
 * they can be recalled after a host drops them (summarization, trimming).
 */
export async function rememberToolResults(messages: unknown, store: RecallStore, seen: Set<string>): Promise<void> {
  if (!Array.isArray(messages)) return
  for (const m of messages) {
    const ids = resultsIn(m)
      .map((r) => r.id)
      .filter((k): k is string => typeof k === 'string')
    for (const k of ids) {
      if (seen.has(k)) continue
      await store.set(k, originalIn([m], k)?.content)
      seen.add(k)
    }
  }
}

/**
 * An adapter's options without its `recall` (a `createRecall()` result, which the adapter calls
 * with each call's unedited messages); the rest are the editor's options, passed on as they were.
 */
export function splitRecall<O>(options: O): { recall: Recall | undefined; editing: O } {
  if (options === null || typeof options !== 'object' || !Object.hasOwn(options, 'recall')) return { recall: undefined, editing: options }
  const { recall, ...editing } = options as O & { recall?: unknown }
  if (recall !== undefined && recall !== null && typeof (recall as Partial<Recall>).remember !== 'function') {
    throw new ContextEditorError('INVALID_OPTIONS', 'recall: expected the result of createRecall() (with remember(messages) and answer(input))', {
      path: 'recall',
    })
  }
  return { recall: (recall ?? undefined) as Recall | undefined, editing: editing as O }
}
