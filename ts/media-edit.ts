// The `clear_media` edit of a pipeline (`edits: [{ type: 'clear_media', keep, trigger?, placeholder?,
// formula? }]`). The core checks its options like every edit's (declared in options/spec.rs); the
// editor applies it here, before planning, because it replaces content blocks the wire model does
// not carry (an image is one number there). It runs on the caller's own messages in every format
// (`clearMedia` in media.ts), so the blocks that replace images are written in that format; the
// other edits then plan on the result. Its trigger is checked with the editor's own count, on the
// messages as given.

import { clearMedia, type ClearMediaReport, type ImageTokenFormula } from './media.js'

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

/** What the trigger conditions read, computed only when asked. */
export interface MediaFacts {
  tokens: (messages: readonly unknown[]) => number
  maxInputTokens: number | undefined
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
    const done = clearMedia(out, { keep: edit.keep, placeholder: edit.placeholder, formula: edit.formula })
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
