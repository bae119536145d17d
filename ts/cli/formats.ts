// Conversation formats the command reads and writes. Each input is turned into messages the
// editor accepts (`units`) plus a `rebuild` that writes the edited units back in the input's own
// format, keeping every other field of the request untouched.
//
// - langchain: a JSON array (or `{messages: [...]}`) of LangChain dicts (`{type: 'ai', ...}`),
//   `StoredMessage`s (`{type, data}`) or serialized messages (`{lc: 1, type: 'constructor', ...}`).
// - openai: a chat-completions request (`{model, messages, tools, ...}`) or a bare messages array.
// - anthropic: a Messages request: `system` at the top level, content blocks `tool_use`,
//   `tool_result` (inside user messages: each becomes a tool message), `thinking`.

import type { EditContext } from '../editor.js'
import { ContextEditorError } from '../errors.js'
import type { EditPlan } from '../native.js'
import { type AnyMessage, applyPlan } from '../wire.js'
import type { ExactNumbers } from './json.js'
import { CliError } from './util.js'

export type Format = 'langchain' | 'openai' | 'anthropic'
export const FORMATS: readonly Format[] = ['langchain', 'openai', 'anthropic']

export interface Conversation {
  format: Format
  /** Messages handed to the editor (LangChain dicts for Anthropic input). */
  units: AnyMessage[]
  /** For each unit, the index of the input message it comes from. */
  origin: number[]
  /** Number of messages in the input. */
  count: number
  /** System prompt, tools and model found in the request. */
  context: EditContext
  /** The input document in its own format, rebuilt from the edited units (`undefined` = removed). */
  rebuild(after: ReadonlyArray<AnyMessage | undefined>): unknown
  /** Rewrites an error naming a unit so that it names the input message. */
  remapError(e: unknown): unknown
  /** The input's numbers kept exactly (set by the reader of the document), for errors that quote one. */
  numbers?: ExactNumbers
}

/**
 * The edited units aligned with the input units: `undefined` where a unit was removed.
 *
 * `applyPlan` returns the kept messages in order, so which input each output stands for follows
 * from the plan: the messages a `remove` operation names are gone, except those a summary would
 * have replaced, which are kept when no summary is written (the command line writes none). Getting
 * this wrong shifts every later message by one or more places, so the count is checked.
 */
export function alignEdits(units: readonly AnyMessage[], plan: Pick<EditPlan, 'ops' | 'summary'>): (AnyMessage | undefined)[] {
  const edited = applyPlan(units, plan)
  const kept = new Set(plan.summary?.replaced ?? [])
  const removed = new Set<number>()
  for (const op of plan.ops) if (op.type === 'remove' && !kept.has(op.index)) removed.add(op.index)
  if (units.length - removed.size !== edited.length) {
    throw new ContextEditorError(
      'INTERNAL',
      `internal error: ${edited.length} edited messages for ${units.length} - ${removed.size} removed; nothing was written (please report this with the input)`,
    )
  }
  const out: (AnyMessage | undefined)[] = []
  let k = 0
  for (let i = 0; i < units.length; i++) out.push(removed.has(i) ? undefined : edited[k++])
  return out
}

const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v)

const LC_CLASSES: Record<string, string> = {
  HumanMessage: 'human',
  HumanMessageChunk: 'human',
  AIMessage: 'ai',
  AIMessageChunk: 'ai',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
  ChatMessage: 'generic',
}

const ANTHROPIC_BLOCKS = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking'])

function messagesOf(doc: unknown, source: string): { messages: unknown[]; wrapper?: Record<string, any> } {
  if (Array.isArray(doc)) return { messages: doc }
  if (isObject(doc) && Array.isArray(doc.messages)) return { messages: doc.messages, wrapper: doc }
  if (isObject(doc) && 'messages' in doc) {
    throw new CliError(`${source}: \`messages\` must be an array`)
  }
  throw new CliError(`${source}: expected a JSON array of messages or an object with a \`messages\` array`)
}

/** Guesses the format of a document. */
export function detectFormat(doc: unknown, source: string): Format {
  const { messages, wrapper } = messagesOf(doc, source)
  let roles = 0
  let types = 0
  for (const m of messages) {
    if (!isObject(m)) continue
    if (typeof m.type === 'string') types++
    else if (typeof m.role === 'string') {
      roles++
      if (Array.isArray(m.content) && m.content.some((b: any) => isObject(b) && ANTHROPIC_BLOCKS.has(b.type))) {
        return 'anthropic'
      }
    }
  }
  if (wrapper && wrapper.system !== undefined && types === 0) return 'anthropic'
  if (types > roles) return 'langchain'
  return 'openai'
}

/** Reads a parsed document as a conversation in `format` (`auto` detects it). */
export function toConversation(doc: unknown, format: Format | 'auto', source: string, placeholders: ReadonlySet<string>): Conversation {
  const f = format === 'auto' ? detectFormat(doc, source) : format
  if (f === 'anthropic') return fromAnthropic(doc, source, placeholders)
  if (f === 'openai') return fromOpenAI(doc, source)
  return fromLangChain(doc, source)
}

function identityOrigin(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i)
}

function requestContext(wrapper: Record<string, any> | undefined): EditContext {
  const ctx: EditContext = {}
  if (!wrapper) return ctx
  const tools = [...(Array.isArray(wrapper.tools) ? wrapper.tools : []), ...(Array.isArray(wrapper.functions) ? wrapper.functions : [])]
  if (tools.length) ctx.tools = tools
  if (typeof wrapper.model === 'string') ctx.model = wrapper.model
  return ctx
}

function fromOpenAI(doc: unknown, source: string): Conversation {
  const { messages, wrapper } = messagesOf(doc, source)
  messages.forEach((m, i) => {
    if (!isObject(m) || typeof m.role !== 'string') {
      throw new CliError(`${source}: messages[${i}]: expected an OpenAI chat message with a \`role\` (try --format)`)
    }
  })
  const units = messages as AnyMessage[]
  return {
    format: 'openai',
    units,
    origin: identityOrigin(units.length),
    count: units.length,
    context: requestContext(wrapper),
    rebuild(after) {
      const out = after.filter((m): m is AnyMessage => m !== undefined)
      return wrapper ? { ...wrapper, messages: out } : out
    },
    remapError: (e) => e,
  }
}

function fromLangChain(doc: unknown, source: string): Conversation {
  const { messages, wrapper } = messagesOf(doc, source)
  const serialized: boolean[] = []
  const units = messages.map((m, i): AnyMessage => {
    if (!isObject(m)) throw new CliError(`${source}: messages[${i}]: expected a message object`)
    if (m.lc === 1 && m.type === 'constructor' && Array.isArray(m.id) && isObject(m.kwargs)) {
      const cls = String(m.id[m.id.length - 1])
      // An own key only: `toString` or `__proto__` as a class name found Object's members.
      const type = Object.hasOwn(LC_CLASSES, cls) ? LC_CLASSES[cls] : undefined
      if (!type)
        throw new CliError(`${source}: messages[${i}].id: unsupported LangChain class ${JSON.stringify(cls)} (expected ${Object.keys(LC_CLASSES).join(', ')})`)
      serialized[i] = true
      return { ...m.kwargs, type: type === 'generic' ? (m.kwargs.role ?? 'generic') : type }
    }
    if (typeof m.type !== 'string') {
      throw new CliError(`${source}: messages[${i}]: expected a LangChain message with a \`type\` (try --format)`)
    }
    return m
  })
  return {
    format: 'langchain',
    units,
    origin: identityOrigin(units.length),
    count: units.length,
    context: requestContext(wrapper),
    rebuild(after) {
      const out: unknown[] = []
      after.forEach((m, i) => {
        if (m === undefined) return
        if (!serialized[i] || m === units[i]) {
          out.push(serialized[i] ? messages[i] : m)
          return
        }
        // Rest and spread define own properties, so a `"__proto__"` key stays data.
        const { type: _type, ...kwargs } = m
        out.push({ ...(messages[i] as object), kwargs })
      })
      return wrapper ? { ...wrapper, messages: out } : out
    },
    remapError: (e) => e,
  }
}

/** Text of an Anthropic `system` field (a string or text blocks). */
function anthropicSystem(system: unknown): string | undefined {
  if (typeof system === 'string') return system
  if (Array.isArray(system)) {
    return system.map((b: any) => (typeof b === 'string' ? b : isObject(b) && typeof b.text === 'string' ? b.text : '')).join('\n')
  }
  return undefined
}

interface AnthropicUnitSource {
  message: number
  /** Indices of the content blocks this unit stands for (`undefined` = the whole message). */
  blocks?: number[]
}

/**
 * Input message `m` rebuilt from its units `first..end` (edited: `after`), or `undefined` when every
 * one of them was removed. Unchanged, it is `m` itself; otherwise a copy with new `content`.
 */
function anthropicMessage(
  m: Record<string, any>,
  units: readonly AnyMessage[],
  from: readonly AnthropicUnitSource[],
  after: ReadonlyArray<AnyMessage | undefined>,
  first: number,
  end: number,
): Record<string, any> | undefined {
  let changed = false
  let kept = 0
  for (let k = first; k < end; k++) {
    if (after[k] !== units[k]) changed = true
    if (after[k] !== undefined) kept++
  }
  if (!changed) return m
  // Every part removed (a string-content message too): the message goes, never `content: []`.
  if (kept === 0) return undefined
  if (from[first].blocks === undefined) {
    // A whole message: string content stays a string unless the edit made it blocks.
    return { ...m, content: after[first]!.content }
  }
  const blocks: unknown[] = []
  for (let k = first; k < end; k++) {
    const edited = after[k]
    if (edited === undefined) continue
    const f = from[k]
    if (units[k].type === 'tool') {
      const block = m.content[f.blocks![0]]
      blocks.push(edited === units[k] ? block : { ...block, content: edited.content })
    } else if (edited === units[k]) {
      for (const b of f.blocks!) blocks.push(m.content[b])
    } else {
      // A run of text/image blocks the edit changed (a cache breakpoint on its last block).
      const content = edited.content
      if (Array.isArray(content)) for (const b of content) blocks.push(b)
      else blocks.push({ type: 'text', text: String(content) })
    }
  }
  return { ...m, content: blocks }
}

function fromAnthropic(doc: unknown, source: string, placeholders: ReadonlySet<string>): Conversation {
  const { messages, wrapper } = messagesOf(doc, source)
  const { units, from } = anthropicUnits(messages, source, placeholders)
  const context = requestContext(wrapper)
  const system = anthropicSystem(wrapper?.system)
  if (system !== undefined) context.systemPrompt = system
  return {
    format: 'anthropic',
    units,
    origin: from.map((f) => f.message),
    count: messages.length,
    context,
    rebuild(after) {
      const out: unknown[] = []
      let u = 0
      messages.forEach((raw, i) => {
        const m = raw as Record<string, any>
        const first = u
        while (u < units.length && from[u].message === i) u++
        const message = anthropicMessage(m, units, from, after, first, u)
        if (message !== undefined) out.push(message)
      })
      return wrapper ? { ...wrapper, messages: out } : out
    },
    remapError: (e) => anthropicError(e, units, from),
  }
}

/**
 * The editor's units of Anthropic messages: an assistant message is one `ai` unit (its `tool_use`
 * blocks its tool calls); a user message is one `human` unit, or, with block content, a `tool` unit
 * per `tool_result` block and a `human` unit per run of other blocks. `from[u]` says where unit `u`
 * came from.
 */
function anthropicUnits(messages: unknown[], source: string, placeholders: ReadonlySet<string>): { units: AnyMessage[]; from: AnthropicUnitSource[] } {
  const units: AnyMessage[] = []
  const from: AnthropicUnitSource[] = []
  const toolNames = new Map<string, string>()
  messages.forEach((raw, i) => {
    if (!isObject(raw)) throw new CliError(`${source}: messages[${i}]: expected a message object`)
    const m = raw
    if (m.role !== 'user' && m.role !== 'assistant') {
      throw new CliError(
        `${source}: messages[${i}].role: expected \`user\` or \`assistant\` in the Anthropic Messages format, got ${JSON.stringify(m.role)}` +
          (m.role === 'system' ? ' (put the system prompt in the top-level `system` field)' : ''),
      )
    }
    if (m.role === 'assistant') {
      units.push(anthropicAssistant(m, toolNames))
      from.push({ message: i })
    } else if (!Array.isArray(m.content)) {
      units.push({ type: 'human', content: m.content ?? '' })
      from.push({ message: i })
    } else {
      anthropicUserBlocks(m.content, i, units, from, toolNames, placeholders)
    }
  })
  return { units, from }
}

/** An assistant message's unit; its `tool_use` blocks become tool calls, their names remembered. */
function anthropicAssistant(m: Record<string, any>, toolNames: Map<string, string>): AnyMessage {
  const unit: AnyMessage = { type: 'ai', content: m.content ?? '' }
  if (Array.isArray(m.content)) {
    const calls = m.content
      .filter((b: any) => isObject(b) && b.type === 'tool_use')
      .map((b: any) => {
        if (typeof b.id === 'string' && typeof b.name === 'string') toolNames.set(b.id, b.name)
        return { id: b.id, name: b.name, args: b.input ?? {}, type: 'tool_call' }
      })
    if (calls.length) unit.tool_calls = calls
  }
  return unit
}

/** The units of message `i`, a user message with block content (see `anthropicUnits`). */
function anthropicUserBlocks(
  content: unknown[],
  i: number,
  units: AnyMessage[],
  from: AnthropicUnitSource[],
  toolNames: ReadonlyMap<string, string>,
  placeholders: ReadonlySet<string>,
): void {
  let text: number[] | undefined
  content.forEach((b: any, k: number) => {
    if (isObject(b) && b.type === 'tool_result') {
      text = undefined
      const unit: AnyMessage = { type: 'tool', tool_call_id: b.tool_use_id, content: b.content ?? '' }
      const name = toolNames.get(b.tool_use_id)
      if (name !== undefined) unit.name = name
      if (typeof b.content === 'string' && placeholders.has(b.content)) {
        unit.response_metadata = { context_editing: { cleared: true, strategy: 'clear_tool_uses' } }
      }
      units.push(unit)
      from.push({ message: i, blocks: [k] })
      return
    }
    if (!text) {
      text = []
      units.push({ type: 'human', content: [] })
      from.push({ message: i, blocks: text })
    }
    text.push(k)
    units[units.length - 1].content.push(b)
  })
  if (content.length === 0) {
    units.push({ type: 'human', content: [] })
    from.push({ message: i, blocks: [] })
  }
}

/** An editor error about unit `u`, renamed to the Anthropic message (and block) it came from. */
function anthropicError(e: unknown, units: AnyMessage[], from: AnthropicUnitSource[]): unknown {
  if (!(e instanceof ContextEditorError) || e.messageIndex === undefined) return e
  const unit = e.messageIndex
  const f = from[unit]
  if (!f) return e
  let message: string
  if (f.blocks === undefined) message = e.message.replace(/^messages\[\d+\]/, `messages[${f.message}]`)
  else if (units[unit].type === 'tool') {
    // A tool_result block: the tool message's fields are the block's.
    message = e.message.replace(/^messages\[\d+\]/, `messages[${f.message}].content[${f.blocks[0] ?? 0}]`)
  } else {
    // A run of user blocks: its content[k] is the message's content[blocks[k]].
    message = e.message
      .replace(/^messages\[\d+\]\.content\[(\d+)\]/, (_, k) => `messages[${f.message}].content[${f.blocks![Number(k)] ?? k}]`)
      .replace(/^messages\[\d+\]/, `messages[${f.message}]`)
  }
  return new ContextEditorError(e.code, message, { messageIndex: f.message, path: e.path, cause: e })
}
