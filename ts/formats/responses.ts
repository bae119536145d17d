// OpenAI Responses API input items. The system prompt is the request's `instructions`.
//
// An assistant turn is spread over several items: `reasoning`, an assistant `message`, then its
// `function_call` / `custom_tool_call` items (and built-in tool calls such as `web_search_call`).
// Such a run is one segment and one AI unit: reasoning items are its thinking blocks (the items
// themselves, so `clear_thinking` drops them), the message's `output_text` its text, the calls its
// `tool_calls` (arguments parsed from JSON), other items opaque blocks counted by their JSON. A
// new run starts at a reasoning item or an assistant message that follows a call or a message.
// `function_call_output` / `custom_tool_call_output` are tool units; user, system and developer
// messages human and system units (`input_text` is text, `input_image` an image).
//
// Encoding keeps every item the edit left alone as the same object; a cleared output is the item
// with `output` replaced, a cleared call's input is `arguments: "{}"` (`input: ""` for a custom
// call), a removed call or reasoning item is left out.

import { type AnyMessage, field } from '../wire.js'
import { ContextEditorError } from '../errors.js'
import { invalid } from './errors.js'
import { argsCleared, clearedMarker, isObject, onlyBreakpoint, type Segment, type UnitSource, unmarked, isPlaceholder } from './types.js'

const CALLS = new Set(['function_call', 'custom_tool_call'])
// `function_call_result` (with `callId`) is the OpenAI Agents SDK's spelling of the same items.
const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output', 'function_call_result'])
/** Item types of the Responses API (detection). */
export const RESPONSES_ITEMS = new Set([
  'message',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'reasoning',
  'item_reference',
  'web_search_call',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'image_generation_call',
  'code_interpreter_call',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'mcp_call',
  'compaction',
  'function_call_result',
  'hosted_tool_call',
  'computer_call_result',
])
/** Content block types of Responses messages (detection). */
export const RESPONSES_BLOCKS = new Set(['input_text', 'output_text', 'input_image', 'input_file', 'input_audio', 'refusal'])

/** A call's id: `call_id` (Responses API) or `callId` (OpenAI Agents SDK items). */
const callIdOf = (m: Record<string, any>): unknown => (field(m, 'call_id') !== undefined ? field(m, 'call_id') : field(m, 'callId'))
const callIdKey = (m: Record<string, any>): string => (field(m, 'call_id') === undefined && field(m, 'callId') !== undefined ? 'callId' : 'call_id')

type Kind = 'reasoning' | 'assistant' | 'call' | 'opaque' | 'output' | 'user' | 'system'

function kindOf(m: Record<string, any>): Kind {
  // Own and class fields only: a key put on Object.prototype is none of the item's.
  const type = field(m, 'type')
  if (type === 'reasoning') return 'reasoning'
  if (CALLS.has(type)) return 'call'
  if (OUTPUTS.has(type)) return 'output'
  const role = field(m, 'role')
  if (type === 'message' || (type === undefined && typeof role === 'string')) {
    if (role === 'assistant') return 'assistant'
    return role === 'system' || role === 'developer' ? 'system' : 'user'
  }
  return 'opaque'
}

const IN_TURN = new Set<Kind>(['reasoning', 'assistant', 'call', 'opaque'])

/** Whether an item of kind `next` continues an assistant run holding `kinds`. */
function continues(kinds: ReadonlySet<Kind>, next: Kind): boolean {
  if (!IN_TURN.has(next)) return false
  if (next === 'reasoning' || next === 'assistant') return !kinds.has('call') && !kinds.has('assistant')
  return true
}

/** Whether item `next` would join the assistant run `seg` (a kept segment must not, see `FormatCodec`). */
export function responsesJoins(seg: Segment, next: unknown): boolean {
  if (!isObject(next) || seg.units.length !== 1 || seg.units[0].type !== 'ai') return false
  return continues(new Set(seg.members.map((m) => kindOf(m as Record<string, any>))), kindOf(next))
}

/** Text blocks the editor reads for Responses content (`input_text` / `output_text`), with a way back. */
function contentOf(content: unknown, derived: Map<object, object>): unknown {
  if (!Array.isArray(content)) return content ?? ''
  return content.map((b) => {
    if (isObject(b) && (b.type === 'input_text' || b.type === 'output_text') && typeof b.text === 'string') {
      const t = { type: 'text', text: b.text }
      derived.set(t, b)
      return t
    }
    return b
  })
}

/** Edited content back in Responses blocks (a tool output). */
function contentBack(content: unknown, derived: Map<object, object>): unknown {
  if (!Array.isArray(content)) return content
  return content.map((b) => {
    const original = isObject(b) ? derived.get(b) : undefined
    if (original !== undefined) return original
    if (isObject(b) && b.type === 'text') return { type: 'input_text', text: b.text }
    return b
  })
}

/** An output as content: a string or blocks; the Agents SDK's `{ type: 'text', text }` is its text. */
function outputOf(output: unknown): unknown {
  return isObject(output) && output.type === 'text' && typeof output.text === 'string' ? output.text : output
}

/** The edited content in the shape of the original output (a text object stays one). */
function outputBack(original: unknown, content: unknown): unknown {
  return isObject(original) && original.type === 'text' && typeof content === 'string' ? { ...original, text: content } : content
}

/** Decodes the segment starting at `list[i]`. */
export function responsesSegment(list: readonly unknown[], i: number, placeholders: ReadonlySet<string>): Segment {
  const m = list[i] as Record<string, any>
  const kind = kindOf(m)
  check(m, i, kind)
  if (!IN_TURN.has(kind)) return single(m, i, kind, placeholders)
  const members: Record<string, any>[] = [m]
  const kinds = new Set<Kind>([kind])
  for (let j = i + 1; j < list.length; j++) {
    const next = list[j]
    let k: Kind
    try {
      if (!isObject(next)) break
      k = kindOf(next)
      if (!continues(kinds, k)) break
      check(next, j, k)
    } catch (e) {
      // An item that cannot be read ends the turn: it is decoded (and named) on its own.
      if (e instanceof ContextEditorError) throw e
      break
    }
    members.push(next)
    kinds.add(k)
  }
  return turn(members)
}

function check(m: Record<string, any>, i: number, kind: Kind): void {
  if (kind === 'call') {
    const id = callIdOf(m)
    if (typeof id !== 'string' || id === '') throw invalid(i, callIdKey(m), `a \`${m.type}\` item needs a non-empty string \`call_id\``)
    if (typeof m.name !== 'string') throw invalid(i, 'name', `a \`${m.type}\` item needs a string \`name\``)
    if (m.type === 'function_call' && typeof m.arguments !== 'string') throw invalid(i, 'arguments', 'expected a JSON string')
    if (m.type === 'function_call') {
      try {
        JSON.parse(m.arguments)
      } catch {
        throw invalid(i, 'arguments', 'not valid JSON')
      }
    }
  }
  if (kind === 'output' && (typeof callIdOf(m) !== 'string' || callIdOf(m) === '')) {
    throw invalid(i, callIdKey(m), `a \`${m.type}\` item needs a non-empty string \`call_id\``)
  }
  if (kind === 'user' && m.role !== 'user') {
    // A chat `tool` message (or any other role) read as Responses would be user text: say so instead.
    const hint = m.role === 'tool' ? ' (a tool result is a `function_call_output` item in the Responses format)' : ''
    throw invalid(i, 'role', `expected "user", "assistant", "system" or "developer" in the Responses format, got ${JSON.stringify(m.role)}${hint}`)
  }
  if ((kind === 'user' || kind === 'system' || kind === 'assistant') && typeof m.content !== 'string' && !Array.isArray(m.content)) {
    throw invalid(i, 'content', 'expected a string or an array of content blocks')
  }
}

function single(m: Record<string, any>, _i: number, kind: Kind, placeholders: ReadonlySet<string>): Segment {
  const derived = new Map<object, object>()
  let unit: AnyMessage
  if (kind === 'output') {
    unit = { type: 'tool', tool_call_id: callIdOf(m), content: contentOf(outputOf(m.output), derived) }
    if (isPlaceholder(placeholders, unit.content, unit.tool_call_id)) unit.response_metadata = clearedMarker()
  } else {
    unit = { type: kind === 'system' ? 'system' : 'human', content: contentOf(m.content, derived) }
  }
  return {
    members: [m],
    prints: [],
    units: [unit],
    from: [{ message: 0 }],
    encode([e]) {
      if (e === undefined) return []
      // Responses has no cache breakpoints: a mark alone leaves the item as it is.
      if (kind !== 'output' || e.content === unit.content || onlyBreakpoint(unit.content, e.content)) return [m]
      return [{ ...m, output: outputBack(m.output, contentBack(unmarked(e.content), derived)) }]
    },
  }
}

function turn(members: Record<string, any>[]): Segment {
  const content: unknown[] = []
  const calls: AnyMessage[] = []
  const callOf = new Map<Record<string, any>, AnyMessage>()
  for (const item of members) {
    const kind = kindOf(item)
    if (kind === 'call') {
      const args = item.type === 'function_call' ? JSON.parse(item.arguments) : { input: item.input ?? '' }
      const call = { id: callIdOf(item), name: item.name, args: isObject(args) ? args : { input: args }, type: 'tool_call' }
      calls.push(call)
      callOf.set(item, call)
    } else if (kind === 'assistant') {
      const text = contentOf(item.content, new Map())
      if (typeof text === 'string') content.push({ type: 'text', text })
      else content.push(...(text as unknown[]))
    } else {
      content.push(...countedAs(item))
    }
  }
  const unit: AnyMessage = { type: 'ai', content }
  if (calls.length) unit.tool_calls = calls
  const from: UnitSource[] = [{ message: 0 }]
  return {
    members,
    prints: [],
    units: [unit],
    from,
    encode([e]) {
      if (e === undefined) return []
      const kept = new Set(Array.isArray(e.content) ? e.content : [])
      const keptIds = new Set<unknown>()
      for (const b of kept) if (isObject(b) && b.type === 'reasoning' && b.id !== undefined) keptIds.add(b.id)
      const edited = new Map<unknown, AnyMessage>()
      for (const c of Array.isArray(e.tool_calls) ? e.tool_calls : []) edited.set(c.id, c)
      const out: Record<string, any>[] = []
      let dropped = false
      for (const item of members) {
        const kind = kindOf(item)
        if (kind === 'reasoning') {
          if (kept.has(item) || (item.id !== undefined && keptIds.has(item.id))) out.push(item)
          else dropped = true
        } else if (kind === 'call') {
          const after = edited.get(callIdOf(item))
          if (after === undefined) continue
          if (!argsCleared(callOf.get(item), after)) out.push(item)
          else out.push(item.type === 'function_call' ? { ...item, arguments: '{}' } : { ...item, input: '' })
        } else {
          out.push(item)
        }
      }
      return paired(out, dropped)
    },
  }
}

/**
 * A turn's kept items as the Responses API takes them. A reasoning item needs the item it produced
 * after it ("reasoning was provided without its required following item"): reasoning left with
 * nothing after it goes too. An item the API made along with reasoning (its `id`, `fc_…` / `msg_…`,
 * names that reasoning) is refused without it ("provided without its required 'reasoning' item"):
 * when the turn's reasoning was removed, its other items go without their `id` (an item without an
 * id is read as given), every other field kept.
 */
function paired(out: Record<string, any>[], dropped: boolean): unknown[] {
  let end = out.length
  while (end > 0 && kindOf(out[end - 1]) === 'reasoning') end--
  const items = end === out.length ? out : out.slice(0, end)
  if (!dropped && end === out.length) return items
  const reasoned = items.some((item) => kindOf(item) === 'reasoning')
  if (reasoned) return items
  return items.map((item) => {
    if (field(item, 'id') === undefined) return item
    const { id: _id, ...rest } = item
    return rest
  })
}

/**
 * What the editor counts for an item of a turn: the item itself (reasoning is found by identity when
 * encoding, other items are written back as they are, so this is for counting only), but an image
 * it holds (a computer-use screenshot, a generated image) as an image block, counted by its size
 * like any other image rather than by the length of its base64.
 */
function countedAs(item: Record<string, any>): unknown[] {
  const type = field(item, 'type')
  if (type === 'computer_call_output' && isObject(item.output) && item.output.type === 'computer_screenshot') {
    const { image_url: url, ...shot } = item.output
    if (typeof url !== 'string') return [item]
    return [
      { ...item, output: shot },
      { type: 'input_image', image_url: url, detail: item.output.detail },
    ]
  }
  if (type === 'image_generation_call' && typeof item.result === 'string' && item.result.length > 0) {
    const { result, ...rest } = item
    return [rest, { type: 'image', data: result }]
  }
  return [item]
}

/** A summary message as a Responses item. */
export function responsesSummary(role: 'user' | 'assistant', text: string): unknown {
  return { type: 'message', role, content: text }
}
