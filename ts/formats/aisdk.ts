// Vercel AI SDK `ModelMessage` (v5 and later; v4's `args` / `result` are read too).
//
// system → a system unit; user → a human unit (text parts are text, image parts and image files
// are images, other files are counted by their metadata and string data); assistant → an AI unit
// whose content is its non-call parts (`reasoning` parts are thinking, so `clear_thinking` drops
// them) and whose `tool_calls` are its `tool-call` parts; a tool message → one tool unit per
// `tool-result` part (its `output` read as text: `text`/`error-text` values as they are, `json`
// values as JSON, `content` parts as blocks). Every part keeps its `providerOptions`: encoding
// keeps untouched parts as the same objects and rebuilds only what the edit changed: a cleared
// result is its part with `output: { type: 'text', value: placeholder }`, a cleared call's input
// is `{}`, a removed call or reasoning part is left out, a message whose parts all go is removed.

import { type AnyMessage, field } from '../wire.js'
import { invalid } from './errors.js'
import {
  argsCleared,
  argsObject,
  clearedMarker,
  hasBreakpoint,
  isObject,
  onlyBreakpoint,
  type Segment,
  type UnitSource,
  unmarked,
  isPlaceholder,
} from './types.js'

/**
 * `o` with Anthropic's cache breakpoint in its `providerOptions` (how the AI SDK says `cache_control`):
 * the editor's `cacheBreakpoints` mark, in this format's words.
 */
function withCacheControl(o: Record<string, any>): Record<string, any> {
  const options = isObject(o.providerOptions) ? o.providerOptions : {}
  const anthropic = isObject(options.anthropic) ? options.anthropic : {}
  return { ...o, providerOptions: { ...options, anthropic: { ...anthropic, cacheControl: { type: 'ephemeral' } } } }
}

/** Whether `o` (a message or part) carries Anthropic's cache breakpoint in its `providerOptions`. */
function marked(o: unknown): boolean {
  if (!isObject(o) || !isObject(o.providerOptions)) return false
  const anthropic = o.providerOptions.anthropic
  return isObject(anthropic) && (anthropic.cacheControl != null || anthropic.cache_control != null)
}

/**
 * `unit` marked as holding a breakpoint when `has`: the editor counts the breakpoints a request
 * already uses (Anthropic allows 4) from `cache_control`, which the AI SDK says in `providerOptions`.
 */
function noteBreakpoint(unit: AnyMessage, has: boolean): AnyMessage {
  if (has) unit.cache_control = { type: 'ephemeral' }
  return unit
}

const anyMarked = (m: Record<string, any>): boolean => marked(m) || (Array.isArray(m.content) && m.content.some(marked))

/** Part types of AI SDK messages, per role (detection). */
export const AISDK_PARTS: Record<string, ReadonlySet<string>> = {
  user: new Set(['text', 'image', 'file']),
  assistant: new Set(['text', 'file', 'reasoning', 'redacted-reasoning', 'tool-call', 'tool-result', 'tool-approval-request']),
  tool: new Set(['tool-result', 'tool-approval-response']),
}

/**
 * The block the editor counts for an image or file part: an image is an `image` block whose `data`
 * (base64, also from bytes) or `url` the counter reads the size from, as it does for the other
 * formats' images; a file is its metadata and its data as text.
 */
export function mediaBlock(p: Record<string, any>): unknown {
  const mime = p.mediaType ?? p.mimeType
  const mimeType = typeof mime === 'string' ? mime : undefined
  if (p.type === 'image') {
    const image = p.image
    if (image instanceof URL) return { type: 'image', url: image.href, mime_type: mimeType }
    if (typeof image === 'string')
      return /^(https?:|data:)/.test(image) ? { type: 'image', url: image, mime_type: mimeType } : { type: 'image', data: image, mime_type: mimeType }
    const bytes = bytesOf(image)
    return bytes === undefined ? { type: 'image', mime_type: mimeType } : { type: 'image', data: head(bytes), mime_type: mimeType }
  }
  const data = p.data
  const shown = typeof data === 'string' ? data : data instanceof URL ? data.href : `[${(data as { byteLength?: number })?.byteLength ?? 0} bytes]`
  if (mimeType?.startsWith('image/')) {
    if (typeof data === 'string' && data.startsWith('data:')) return { type: 'image', url: data, mime_type: mimeType }
    const bytes = bytesOf(data)
    if (bytes !== undefined) return { type: 'file', mime_type: mimeType, filename: p.filename, data: head(bytes) }
  }
  return { type: 'file', mime_type: mimeType, filename: p.filename, data: shown }
}

/** The start of an image's bytes in base64: all the counter reads its size from (see `imageSize`). */
const head = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 65_536)).toString('base64')

/** The bytes of an image given as a Uint8Array, Buffer or ArrayBuffer. */
function bytesOf(v: unknown): Uint8Array | undefined {
  if (v instanceof Uint8Array) return v
  if (v instanceof ArrayBuffer) return new Uint8Array(v)
  return undefined
}

function partsOf(content: unknown): unknown {
  if (!Array.isArray(content)) return content ?? ''
  return content.map((p) => (isObject(p) && (p.type === 'image' || p.type === 'file') ? mediaBlock(p) : p))
}

/** A tool result's output as the content of a tool message. */
function outputText(p: Record<string, any>, derived?: Map<unknown, unknown>): unknown {
  const output = field(p, 'output')
  const out = output !== undefined ? output : { type: 'json', value: field(p, 'result') }
  if (!isObject(out)) return typeof out === 'string' ? out : JSON.stringify(out ?? null)
  if (out.type === 'text' || out.type === 'error-text') return String(out.value ?? '')
  if (out.type === 'content' && Array.isArray(out.value)) {
    return out.value.map((b: any) => {
      const block = mediaOfOutput(b)
      if (block !== b) derived?.set(block, b)
      return block
    })
  }
  if (out.type === 'execution-denied') return String(out.reason ?? '')
  return JSON.stringify(out.value ?? null)
}

/** The block the editor counts for an entry of a `content` tool output (v5 `media`, v6 `image-data` / `file-data` / `image-url`). */
function mediaOfOutput(b: unknown): unknown {
  if (!isObject(b)) return b
  if (b.type === 'media' || b.type === 'image-data' || b.type === 'file-data') {
    return mediaBlock({ type: 'file', data: b.data, mediaType: b.mediaType ?? (b.type === 'image-data' ? 'image/*' : undefined), filename: b.filename })
  }
  if (b.type === 'image-url') return { type: 'image', url: b.url }
  return b
}

/** Decodes message `m` (at index `i`, for errors). */
export function aisdkSegment(m: Record<string, any>, i: number, placeholders: ReadonlySet<string>): Segment {
  const role = m.role
  if (role === 'tool') return tool(m, i, placeholders)
  if (role !== 'system' && role !== 'user' && role !== 'assistant') {
    throw invalid(i, 'role', `expected "system", "user", "assistant" or "tool" in the AI SDK format, got ${JSON.stringify(role)}`)
  }
  if (typeof m.content !== 'string' && !Array.isArray(m.content)) throw invalid(i, 'content', 'expected a string or an array of parts')
  checkParts(m.content, i, role)
  if (role !== 'assistant') {
    const unit = { type: role === 'system' ? 'system' : 'human', content: partsOf(m.content) }
    return whole(m, noteBreakpoint(unit, anyMarked(m)))
  }
  const content: unknown[] = []
  const calls: AnyMessage[] = []
  const callOf = new Map<object, AnyMessage>()
  if (typeof m.content === 'string') return whole(m, noteBreakpoint({ type: 'ai', content: m.content }, marked(m)))
  m.content.forEach((p: unknown, k: number) => {
    // A call the provider ran (`providerExecuted`) has its result in this message: opaque content.
    if (isObject(p) && p.type === 'tool-call' && p.providerExecuted !== true) {
      if (typeof p.toolCallId !== 'string' || p.toolCallId === '')
        throw invalid(i, `content[${k}].toolCallId`, 'a `tool-call` part needs a non-empty string `toolCallId`')
      if (typeof p.toolName !== 'string') throw invalid(i, `content[${k}].toolName`, 'a `tool-call` part needs a string `toolName`')
      const input = field(p, 'input')
      const call = { id: p.toolCallId, name: p.toolName, args: argsObject(input !== undefined ? input : field(p, 'args')), type: 'tool_call' }
      calls.push(call)
      callOf.set(p, call)
      return
    }
    content.push(isObject(p) && p.type === 'file' ? mediaBlock(p) : p)
  })
  const unit: AnyMessage = noteBreakpoint({ type: 'ai', content }, anyMarked(m))
  if (calls.length) unit.tool_calls = calls
  return {
    members: [m],
    prints: [],
    units: [unit],
    from: [{ message: 0 }],
    encode([e]) {
      if (e === undefined) return []
      const kept = new Set(Array.isArray(e.content) ? e.content : [])
      const edited = new Map<unknown, AnyMessage>()
      for (const c of Array.isArray(e.tool_calls) ? e.tool_calls : []) edited.set(c.id, c)
      const parts: unknown[] = []
      let dropped = false
      // By set, not a scan of the calls per approval: a message can hold many of both.
      const callIds = new Set(calls.map((c) => c.id))
      const removedCall = (id: unknown): boolean => callIds.has(id) && !edited.has(id)
      for (const p of m.content as unknown[]) {
        if (isObject(p) && p.type === 'tool-call' && p.providerExecuted !== true) {
          const after = edited.get(p.toolCallId)
          if (after === undefined) continue
          if (!argsCleared(callOf.get(p), after)) parts.push(p)
          else parts.push(field(p, 'input') !== undefined || field(p, 'args') === undefined ? { ...p, input: {} } : { ...p, args: {} })
        } else if (isObject(p) && (p.type === 'reasoning' || p.type === 'redacted-reasoning')) {
          if (kept.has(p)) parts.push(p)
          else dropped = true
        } else if (isObject(p) && p.type === 'tool-approval-request' && removedCall(p.toolCallId)) {
          // The approval asked for a call the edit removed: it goes with it.
          continue
        } else {
          parts.push(p)
        }
      }
      // Nothing left (its reasoning cleared, say): no message, as providers refuse an empty one.
      if (parts.length === 0) return []
      const rebuilt = { ...m, content: dropped ? withoutItemIds(parts) : parts }
      return [hasBreakpoint(e.content) && !hasBreakpoint(unit.content) ? withCacheControl(rebuilt) : rebuilt]
    },
  }
}

/** Tool blocks of other formats: in an AI SDK message they would be content, their pairs never seen. */
const FOREIGN_TOOL_PARTS = new Set(['tool_use', 'tool_result', 'function_call', 'function_call_output'])

/**
 * Refuses parts whose calls and results the AI SDK reading would miss: another format's tool blocks
 * (`format: 'aisdk'` given for Anthropic messages, say), and calls or results outside the roles
 * that hold them.
 */
function checkParts(content: unknown, i: number, role: string): void {
  if (!Array.isArray(content)) return
  content.forEach((p: unknown, k: number) => {
    const type = isObject(p) ? p.type : undefined
    if (typeof type !== 'string') return
    if (FOREIGN_TOOL_PARTS.has(type)) {
      throw invalid(i, `content[${k}].type`, `${JSON.stringify(type)} is no AI SDK part (a call is a \`tool-call\` part, a result a \`tool-result\` part)`)
    }
    if (role !== 'assistant' && (type === 'tool-call' || type === 'tool-result')) {
      throw invalid(i, `content[${k}].type`, `a \`${type}\` part belongs in ${type === 'tool-call' ? 'an assistant' : 'a tool'} message, not a ${role} message`)
    }
  })
}

/**
 * `parts` of a message whose reasoning the edit removed, as the OpenAI Responses API takes them:
 * an item id (`providerOptions.openai.itemId`, any provider's key) names an item the API made along
 * with that reasoning, and is refused without it ("provided without its required 'reasoning'
 * item"), so the parts go without their ids (the provider then sends them as given). Unchanged
 * when some reasoning is left.
 */
function withoutItemIds(parts: unknown[]): unknown[] {
  if (parts.some((p) => isObject(p) && (p.type === 'reasoning' || p.type === 'redacted-reasoning'))) return parts
  return parts.map((p) => {
    if (!isObject(p) || !isObject(p.providerOptions)) return p
    const options = p.providerOptions
    const keys = Object.keys(options).filter((k) => isObject(options[k]) && options[k].itemId !== undefined)
    if (keys.length === 0) return p
    const next: Record<string, unknown> = { ...options }
    for (const k of keys) {
      const { itemId: _id, ...rest } = options[k]
      if (Object.keys(rest).length === 0) delete next[k]
      else next[k] = rest
    }
    if (Object.keys(next).length > 0) return { ...p, providerOptions: next }
    const { providerOptions: _o, ...bare } = p
    return bare
  })
}

/** A message that is one unit the edit can only remove, or mark with a cache breakpoint. */
function whole(m: Record<string, any>, unit: AnyMessage): Segment {
  return {
    members: [m],
    prints: [],
    units: [unit],
    from: [{ message: 0 }],
    encode: ([e]) => (e === undefined ? [] : [onlyBreakpoint(unit.content, e.content) ? withCacheControl(m) : m]),
  }
}

function tool(m: Record<string, any>, i: number, placeholders: ReadonlySet<string>): Segment {
  if (!Array.isArray(m.content)) throw invalid(i, 'content', 'a tool message holds an array of `tool-result` parts')
  const units: AnyMessage[] = []
  const from: UnitSource[] = []
  const parts: number[] = []
  /** The blocks standing for media entries of outputs, and those entries (written back as they were). */
  const derived = new Map<unknown, unknown>()
  m.content.forEach((p: unknown, k: number) => {
    if (!isObject(p) || p.type !== 'tool-result') return
    if (typeof p.toolCallId !== 'string' || p.toolCallId === '')
      throw invalid(i, `content[${k}].toolCallId`, 'a `tool-result` part needs a non-empty string `toolCallId`')
    const content = outputText(p, derived)
    // A breakpoint on the message is counted once, on its first result.
    const unit: AnyMessage = noteBreakpoint({ type: 'tool', tool_call_id: p.toolCallId, content }, marked(p) || (units.length === 0 && marked(m)))
    if (isPlaceholder(placeholders, content, p.toolCallId)) unit.response_metadata = clearedMarker()
    units.push(unit)
    from.push({ message: 0, part: k })
    parts.push(k)
  })
  return {
    members: [m],
    prints: [],
    units,
    from,
    encode(edited) {
      const out: unknown[] = []
      let u = 0
      ;(m.content as unknown[]).forEach((p, k) => {
        if (parts[u] !== k) {
          out.push(p)
          return
        }
        const e = edited[u]
        const unit = units[u++]
        if (e === undefined) return
        if (e === unit) out.push(p)
        else if (onlyBreakpoint(unit.content, e.content)) out.push(withCacheControl(p as Record<string, any>))
        else {
          const rebuilt = withOutput(p as Record<string, any>, unmarked(e.content), derived) as Record<string, any>
          out.push(hasBreakpoint(e.content) ? withCacheControl(rebuilt) : rebuilt)
        }
      })
      return out.some((p) => isObject(p) && p.type === 'tool-result') ? [{ ...m, content: out }] : []
    },
  }
}

/** Result part `p` holding `content` instead of its output. */
function withOutput(p: Record<string, any>, content: unknown, derived: ReadonlyMap<unknown, unknown>): unknown {
  if (field(p, 'output') === undefined && field(p, 'result') !== undefined) return { ...p, result: content }
  if (typeof content === 'string') return { ...p, output: { type: 'text', value: content } }
  const value = (Array.isArray(content) ? content : []).map((b: any) =>
    derived.has(b) ? derived.get(b) : isObject(b) && b.type === 'text' ? { type: 'text', text: b.text } : b,
  )
  return { ...p, output: { type: 'content', value } }
}

/** A summary message in the AI SDK's shape. */
export function aisdkSummary(role: 'user' | 'assistant', text: string): unknown {
  return { role, content: text }
}
