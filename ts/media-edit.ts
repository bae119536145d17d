// The `clear_media` edit of a pipeline (`edits: [{ type: 'clear_media', keep, trigger?, placeholder?,
// formula? }]`). The core checks its options like every edit's (declared in options/spec.rs); the
// editor applies it here, before planning, because it replaces content blocks the wire model does
// not carry (an image is one number there). It runs on the caller's own messages in every format
// (`clearMedia` in media.ts), so the blocks that replace images are written in that format; the
// other edits then plan on the result. Its trigger is checked with the editor's own count, on the
// messages as given. Pinned messages (the `pin` rules, as the core applies them to the other
// edits) keep their media, which do not count toward `keep`.

import { clearMediaKept, type ClearMediaReport, type ImageTokenFormula, type MediaMemo } from './media.js'

/** One `clear_media` entry of `edits`, as the core accepted it. */
export interface MediaEdit {
  keep: { media: number } | { tokens: number }
  placeholder: string
  formula: ImageTokenFormula
  trigger?: Condition[]
}

interface Condition {
  tokens?: number
  messages?: number
  fraction?: number
  toolUses?: number
  turns?: number
}

const own = (o: unknown, k: string): unknown => (o !== null && typeof o === 'object' && Object.hasOwn(o, k) ? ((o as any)[k] ?? undefined) : undefined)

/** The `clear_media` entries of a (core-checked) options copy, with their declared defaults. */
export function mediaEdits(edits: ReadonlyArray<unknown>): MediaEdit[] {
  return edits
    .filter((e) => own(e, 'type') === 'clear_media')
    .map((e) => {
      const keep = own(e, 'keep')
      const tokens = own(keep, 'tokens')
      const media = own(keep, 'media')
      const trigger = own(e, 'trigger')
      return {
        keep: typeof tokens === 'number' ? { tokens } : { media: typeof media === 'number' ? media : 3 },
        placeholder: (own(e, 'placeholder') as string | undefined) ?? '[{kind} removed: {what}]',
        formula: (own(e, 'formula') as ImageTokenFormula | undefined) ?? 'openai',
        ...(trigger === undefined ? {} : { trigger: (Array.isArray(trigger) ? trigger : [trigger]) as Condition[] }),
      }
    })
}

/** What the trigger conditions read, computed only when asked, and the pin rules. */
export interface MediaFacts {
  tokens: (messages: readonly unknown[]) => number
  maxInputTokens: number | undefined
  /** The `pin` option, as the core accepted it. */
  pin?: unknown
  /** What the editor remembers of the messages' media (see `MediaMemo`). */
  memo?: MediaMemo
}

const roleOf = (m: any): unknown => m?.role ?? (typeof m?._getType === 'function' ? m._getType() : m?.type)
const pinnedIn = (holder: unknown): boolean => own(holder, 'pinned') === true

/** The names of the tools, by call id, of every call in `messages` (all four formats). */
function callNames(messages: readonly unknown[]): Map<string, string> {
  const names = new Map<string, string>()
  for (const m of messages as any[]) {
    for (const c of Array.isArray(m?.tool_calls) ? m.tool_calls : []) names.set(c?.id, c?.name ?? c?.function?.name)
    for (const b of Array.isArray(m?.content) ? m.content : []) {
      if (b?.type === 'tool_use') names.set(b.id, b.name)
      if (b?.type === 'tool-call') names.set(b.toolCallId, b.toolName)
    }
  }
  return names
}

/**
 * Indexes of the messages the pin rules name, whose media this edit leaves alone: the marker
 * (`pinned: true` in `additional_kwargs`, `response_metadata` or `metadata`), `pin.ids`, results
 * of `pin.tools`, and with `pin.currentRun` everything after the last user message.
 */
export function pinnedMessages(messages: readonly unknown[], pin: unknown): Set<number> {
  const out = new Set<number>()
  const ids = own(pin, 'ids')
  const tools = own(pin, 'tools')
  const toolSet = Array.isArray(tools) && tools.length > 0 ? new Set(tools) : undefined
  const names = toolSet ? callNames(messages) : undefined
  let lastHuman = -1
  messages.forEach((m: any, i) => {
    const role = roleOf(m)
    if ((role === 'user' || role === 'human') && !isToolResult(m)) lastHuman = i
    const md = own(m, 'response_metadata')
    if (pinnedIn(own(m, 'additional_kwargs')) || pinnedIn(md) || pinnedIn(own(md, 'context_editing')) || pinnedIn(own(m, 'metadata'))) out.add(i)
    if (Array.isArray(ids) && typeof own(m, 'id') === 'string' && ids.includes(own(m, 'id'))) out.add(i)
    if (toolSet && names) {
      const results: unknown[] = [own(m, 'tool_call_id')]
      for (const b of Array.isArray(m?.content) ? m.content : []) results.push(b?.tool_use_id, b?.type === 'tool-result' ? b.toolCallId : undefined)
      if (toolSet.has(own(m, 'name')) && role === 'tool') out.add(i)
      if (results.some((id) => typeof id === 'string' && toolSet.has(names.get(id)))) out.add(i)
    }
  })
  if (own(pin, 'currentRun') === true) for (let i = lastHuman + 1; i < messages.length; i++) out.add(i)
  return out
}

const isToolResult = (m: any): boolean => {
  const role = m?.role ?? (typeof m?._getType === 'function' ? m._getType() : m?.type)
  if (role === 'tool') return true
  return Array.isArray(m?.content) && m.content.some((b: any) => b?.type === 'tool_result' || b?.type === 'tool-result')
}
const toolUses = (messages: readonly unknown[]): number =>
  messages.reduce(
    (n: number, m: any) =>
      n +
      (Array.isArray(m?.content)
        ? m.content.filter((b: any) => b?.type === 'tool_result' || b?.type === 'tool-result').length || (isToolResult(m) ? 1 : 0)
        : isToolResult(m)
          ? 1
          : 0),
    0,
  )
const turns = (messages: readonly unknown[]): number =>
  messages.filter((m: any) => {
    const role = m?.role ?? (typeof m?._getType === 'function' ? m._getType() : m?.type)
    return (role === 'user' || role === 'human') && !isToolResult(m)
  }).length

/** Whether `trigger` holds (absent: always; a list is ORed, the keys of one condition ANDed). */
function fires(trigger: Condition[] | undefined, messages: readonly unknown[], facts: MediaFacts): boolean {
  if (trigger === undefined) return true
  let tokens: number | undefined
  const total = () => (tokens ??= facts.tokens(messages))
  return trigger.some((c) => {
    if (c.messages !== undefined && messages.length < c.messages) return false
    if (c.toolUses !== undefined && toolUses(messages) < c.toolUses) return false
    if (c.turns !== undefined && turns(messages) < c.turns) return false
    if (c.fraction !== undefined && (facts.maxInputTokens === undefined || total() < Math.floor(facts.maxInputTokens * c.fraction))) return false
    if (c.tokens !== undefined && total() < c.tokens) return false
    return true
  })
}

/**
 * Applies the `clear_media` edits in turn; returns the messages (the caller's array when nothing
 * changed) and the report of each edit that fired.
 */
export function applyMediaEdits<T>(
  messages: readonly T[],
  edits: readonly MediaEdit[],
  facts: MediaFacts,
): { messages: readonly T[]; reports: ClearMediaReport[]; fired: boolean[] } {
  let out = messages
  const reports: ClearMediaReport[] = []
  const fired: boolean[] = []
  for (const edit of edits) {
    fired.push(fires(edit.trigger, out, facts))
    if (!fired.at(-1)) continue
    const pinned = pinnedMessages(out, facts.pin)
    const done = clearMediaKept(out, { keep: edit.keep, placeholder: edit.placeholder, formula: edit.formula, skip: (i) => pinned.has(i) }, facts.memo)
    reports.push(done.report)
    if (done.report.cleared.length > 0) out = done.messages
  }
  return { messages: out, reports, fired }
}

/** `report` with each `clear_media` entry of `appliedEdits` marked `triggered` as it fired here. */
export function markFired<R extends { appliedEdits: Array<{ type: string; triggered: boolean }>; triggered: boolean }>(
  report: R,
  fired: readonly boolean[],
): R {
  let k = 0
  const appliedEdits = report.appliedEdits.map((e) => (e.type === 'clear_media' ? { ...e, triggered: fired[k++] ?? false } : e))
  return { ...report, appliedEdits, triggered: report.triggered || fired.some(Boolean) }
}
