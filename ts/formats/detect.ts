// Which format a conversation is in, told from its messages' own fields.
//
// Every message is tested against each format; a format fits the conversation when it fits every
// message. LangChain messages and OpenAI chat messages go to the editor as they are (the native
// path): whenever every message fits one of those two, it is used, so what the editor read before
// keeps its meaning (a plain `{ role: 'user', content: 'hi' }` is the same message in all five).
// Otherwise exactly one of Anthropic, Responses and AI SDK must fit: a message that fits no format
// left is an error naming its index and, for each format, the field that ruled it out. The
// OpenAI test is lenient (unknown block types pass, as the editor counts them by their JSON); it
// rules out only what belongs to another format.

import { ContextEditorError } from '../errors.js'
import { field } from '../wire.js'
import { AISDK_PARTS } from './aisdk.js'
import { RESPONSES_BLOCKS, RESPONSES_ITEMS } from './responses.js'
import { type ForeignFormat, isObject, type MessageFormat } from './types.js'

const LANGCHAIN_TYPES = new Set(['human', 'ai', 'system', 'tool', 'generic', 'developer', 'function', 'remove', 'chat', 'user', 'assistant'])
const OPENAI_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function'])
const ANTHROPIC_BLOCKS = new Set([
  'text',
  'image',
  'document',
  'search_result',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
])
/**
 * Block types whose meaning the native path does not know: another format's tool calls and results
 * (Anthropic, AI SDK) and Responses' text and media blocks. Reasoning, images and documents of other
 * formats are read by the native path as they are meant, so they do not rule OpenAI chat out.
 */
const NOT_OPENAI = new Set([
  'tool_use',
  'tool_result',
  'tool-call',
  'tool-result',
  'tool-approval-request',
  'tool-approval-response',
  'input_text',
  'output_text',
  'input_image',
  'input_file',
])

export const FORMAT_NAMES: Record<MessageFormat, string> = {
  langchain: 'LangChain',
  openai: 'OpenAI chat',
  anthropic: 'Anthropic',
  responses: 'OpenAI Responses',
  aisdk: 'AI SDK',
  mastra: 'Mastra',
}
const FOREIGN: readonly ForeignFormat[] = ['anthropic', 'responses', 'aisdk', 'mastra']

type Test = (m: Record<string, any>) => string | undefined

const blocksOf = (m: Record<string, any>): unknown[] => (Array.isArray(m.content) ? m.content : [])

/** The first block whose type `bad` rejects, as a reason. */
function badBlock(m: Record<string, any>, bad: (type: unknown, b: Record<string, any>) => boolean): string | undefined {
  const blocks = blocksOf(m)
  for (let k = 0; k < blocks.length; k++) {
    const b = blocks[k]
    if (typeof b === 'string') continue
    if (!isObject(b)) return `content[${k}] is no block`
    if (bad(b.type, b)) return `content[${k}].type ${JSON.stringify(b.type)}`
  }
  return undefined
}

const roleOnly = (m: Record<string, any>): string | undefined => (typeof m.role === 'string' ? undefined : 'no `role`')

const TESTS: Record<MessageFormat, Test> = {
  langchain(m) {
    if (typeof m._getType === 'function' || isObject(m.lc_kwargs)) return undefined
    if (m.lc === 1 && m.type === 'constructor') return undefined
    return typeof m.type === 'string' && LANGCHAIN_TYPES.has(m.type) ? undefined : m.type === undefined ? 'no `type`' : `type ${JSON.stringify(m.type)}`
  },
  openai(m) {
    if (m.type !== undefined) return `has \`type\` ${JSON.stringify(m.type)}`
    if (!OPENAI_ROLES.has(m.role)) return m.role === undefined ? 'no `role`' : `role ${JSON.stringify(m.role)}`
    if (m.role === 'tool' && m.tool_call_id === undefined) return 'role "tool" without `tool_call_id`'
    if (m.content !== undefined && m.content !== null && typeof m.content !== 'string' && !Array.isArray(m.content))
      return 'content is neither a string nor a list'
    // An AI SDK file part's `data` may be bytes, which the native path would count as JSON; its
    // image part's `image` (base64, bytes or URL) is no field the native path sizes images by.
    return badBlock(m, (t, b) => NOT_OPENAI.has(t as string) || (t === 'file' && b.mediaType !== undefined) || (t === 'image' && b.image !== undefined))
  },
  anthropic(m) {
    if (m.type !== undefined) return `has \`type\` ${JSON.stringify(m.type)}`
    if (m.role !== 'user' && m.role !== 'assistant') return m.role === undefined ? 'no `role`' : `role ${JSON.stringify(m.role)}`
    if (m.providerOptions !== undefined || m.tool_calls !== undefined) return m.tool_calls !== undefined ? 'has `tool_calls`' : 'has `providerOptions`'
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return 'content is neither a string nor blocks'
    return badBlock(
      m,
      (t, b) =>
        !ANTHROPIC_BLOCKS.has(t as string) ||
        ((t === 'image' || t === 'document') && !isObject(b.source)) ||
        (t === 'tool_use' && m.role !== 'assistant') ||
        (t === 'tool_result' && m.role !== 'user'),
    )
  },
  responses(m) {
    if (m.type !== undefined) return RESPONSES_ITEMS.has(m.type) ? undefined : `type ${JSON.stringify(m.type)}`
    const r = roleOnly(m)
    if (r) return r
    if (!['user', 'assistant', 'system', 'developer'].includes(m.role)) return `role ${JSON.stringify(m.role)}`
    if (m.tool_calls !== undefined) return 'has `tool_calls`'
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return 'content is neither a string nor a list'
    return badBlock(m, (t) => !RESPONSES_BLOCKS.has(t as string))
  },
  mastra(m) {
    if (!isObject(m.content) || !Array.isArray(m.content.parts)) return 'content is no `{ format: 2, parts }` object'
    return ['user', 'assistant', 'system'].includes(m.role) ? undefined : `role ${JSON.stringify(m.role)}`
  },
  aisdk(m) {
    if (m.type !== undefined) return `has \`type\` ${JSON.stringify(m.type)}`
    if (m.tool_calls !== undefined || m.tool_call_id !== undefined) return m.tool_calls !== undefined ? 'has `tool_calls`' : 'has `tool_call_id`'
    if (m.role === 'system') return typeof m.content === 'string' ? undefined : 'a system message whose content is no string'
    const parts = AISDK_PARTS[m.role as string]
    if (m.role === undefined || !Object.hasOwn(AISDK_PARTS, m.role)) return m.role === undefined ? 'no `role`' : `role ${JSON.stringify(m.role)}`
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return 'content is neither a string nor a list of parts'
    if (m.role === 'tool' && !Array.isArray(m.content)) return 'a tool message whose content is no list of parts'
    return badBlock(m, (t, b) => !parts.has(t as string) || (t === 'image' && b.image === undefined) || (t === 'file' && b.data === undefined))
  },
}

/**
 * The fields of `m` the tests read, as the message and its class hold them (a key put on
 * Object.prototype is none of the message's, see `field` in wire.ts).
 */
const FIELDS = ['type', 'role', 'content', 'tool_calls', 'tool_call_id', 'providerOptions', 'lc', 'lc_kwargs', '_getType'] as const

function view(m: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = {}
  for (const k of FIELDS) out[k] = field(m, k)
  return out
}

/** Why `m` is not in `format` (`undefined`: it may be). */
export function ruledOut(m: unknown, format: MessageFormat): string | undefined {
  if (!isObject(m)) return 'not an object'
  // A LangChain message instance (the common case, every message of an agent): one field read
  // instead of the view's nine (the test would say the same).
  if (format === 'langchain' && typeof field(m, '_getType') === 'function') return undefined
  return TESTS[format](view(m))
}

/**
 * `ruledOut` for message `i`. A message that cannot be read (a getter or Proxy trap that throws)
 * rules nothing out: the format is told from the others, and reading it again names the field.
 */
function ruledOutAt(messages: readonly unknown[], i: number, format: MessageFormat): string | undefined {
  try {
    return ruledOut(messages[i], format)
  } catch {
    return undefined
  }
}

/**
 * The format of `messages`: `'native'` when the editor reads them as they are (LangChain or
 * OpenAI chat), else the one foreign format they all fit. `from` skips messages already known to
 * fit `known` (an agent's history grows: only the new messages are tested).
 * @throws {ContextEditorError} `INVALID_MESSAGE` naming the first message no format fits (after
 * the earlier ones ruled some out), with each format's reason.
 */
export function detectFormat(messages: readonly unknown[], from = 0, known?: ForeignFormat | 'native'): ForeignFormat | 'native' {
  return detect(messages, from, known)
}

function detect(messages: readonly unknown[], from: number, known: ForeignFormat | 'native' | undefined): ForeignFormat | 'native' {
  if (known === 'native' || known === undefined) {
    let i = from
    while (i < messages.length && (ruledOutAt(messages, i, 'langchain') === undefined || ruledOutAt(messages, i, 'openai') === undefined)) i++
    if (i === messages.length) return 'native'
    if (known === 'native' && from > 0) return detect(messages, 0, undefined)
  }
  const left = new Map<ForeignFormat, string | undefined>(FOREIGN.map((f) => [f, undefined]))
  if (known !== undefined && known !== 'native') for (const f of FOREIGN) if (f !== known) left.set(f, "not the conversation's format")
  // Whether some message is in a foreign format (and in no native one) by itself: then a
  // conversation no format fits is a foreign one gone wrong, named here; otherwise the editor reads
  // it as native and names what is wrong with it in its own words.
  let foreign = known !== undefined && known !== 'native'
  for (let i = known !== undefined && known !== 'native' ? from : 0; i < messages.length; i++) {
    let fits = 0
    for (const f of FOREIGN) {
      if (left.get(f) !== undefined) {
        if (!foreign && ruledOutAt(messages, i, f) === undefined && !fitsNative(messages, i) && !aiWithToolUse(messages, i)) foreign = true
        continue
      }
      const why = ruledOutAt(messages, i, f)
      if (why === undefined) {
        fits++
        if (!foreign && !fitsNative(messages, i)) foreign = true
      } else left.set(f, `messages[${i}] ${why}`)
    }
    if (fits === 0) {
      if (!foreign) return 'native'
      throw noFormat(i, messages[i], left)
    }
  }
  const fit = FOREIGN.filter((f) => left.get(f) === undefined)
  if (fit.length > 1) {
    throw new ContextEditorError(
      'INVALID_MESSAGE',
      `messages: fit both the ${fit.map((f) => FORMAT_NAMES[f]).join(' and the ')} formats; pass \`format\` to say which`,
      { path: 'messages' },
    )
  }
  return fit[0]
}

/**
 * LangChain keeps Anthropic's `tool_use` blocks in an AI message's content (ChatAnthropic's answers,
 * and an edit's output once their calls were stripped), so such a message does not by itself make a
 * conversation a foreign one that some earlier message already ruled out: the native path reads it.
 */
function aiWithToolUse(messages: readonly unknown[], i: number): boolean {
  try {
    const m = messages[i]
    if (!isObject(m)) return false
    const v = view(m)
    if (v.role !== 'assistant' || !Array.isArray(v.content)) return false
    return TESTS.openai({ ...v, content: v.content.filter((b: unknown) => !(isObject(b) && b.type === 'tool_use')) }) === undefined
  } catch {
    return false
  }
}

function fitsNative(messages: readonly unknown[], i: number): boolean {
  return ruledOutAt(messages, i, 'langchain') === undefined || ruledOutAt(messages, i, 'openai') === undefined
}

function noFormat(i: number, m: unknown, left: ReadonlyMap<ForeignFormat, string | undefined>): ContextEditorError {
  const reasons = [
    `LangChain: ${ruledOut(m, 'langchain')}`,
    `OpenAI chat: ${ruledOut(m, 'openai')}`,
    ...FOREIGN.map((f) => `${FORMAT_NAMES[f]}: ${left.get(f)}`),
  ]
  return new ContextEditorError('INVALID_MESSAGE', `messages[${i}]: fits no message format (${reasons.join('; ')}); pass \`format\` to say which`, {
    messageIndex: i,
  })
}
