// The picture of a context window: a per-message table and a context map (one line of blocks
// proportional to tokens), before and after the edits.

import type { EditReport } from '../native.js'
import type { AnyMessage } from '../wire.js'
import type { Conversation } from './formats.js'
import { fmtDelta, fmtInt, fmtPct, printable } from './util.js'

export type Category = 'system' | 'user' | 'ai' | 'call' | 'result' | 'cleared' | 'thinking'

export interface Segment {
  cat: Category
  tokens: number
}

const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object' && !Array.isArray(v)

const ROLES: Record<string, string> = {
  human: 'user',
  user: 'user',
  ai: 'assistant',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
  tool: 'tool',
}

/** Role, tool names and how a message's tokens split into categories. */
export interface UnitView {
  role: string
  tools: string[]
  cleared: boolean
  /** Weights (characters) per category; the message's tokens are split in these proportions. */
  weights: Partial<Record<Category, number>>
}

function jsonLength(v: unknown): number {
  try {
    return JSON.stringify(v)?.length ?? 0
  } catch {
    return 0
  }
}

/** Looks at one editor message (LangChain dict, stored message or OpenAI message). */
export function viewOf(m: AnyMessage, placeholders: ReadonlySet<string>, callNames: Map<string, string>): UnitView {
  const fields: Record<string, any> = isObject(m.data) && typeof m.type === 'string' ? m.data : m
  const given = String(m.type ?? m.role)
  const role = Object.hasOwn(ROLES, given) ? ROLES[given] : given
  const textCat: Category = role === 'system' ? 'system' : role === 'user' ? 'user' : role === 'assistant' ? 'ai' : 'result'
  const weights: Partial<Record<Category, number>> = {}
  const add = (c: Category, n: number) => {
    if (n > 0) weights[c] = (weights[c] ?? 0) + n
  }
  const calls: any[] = Array.isArray(fields.tool_calls) ? fields.tool_calls : []
  const tools: string[] = []
  for (const c of calls) {
    const name = c?.function?.name ?? c?.name
    if (typeof name === 'string') {
      tools.push(name)
      if (typeof c.id === 'string') callNames.set(c.id, name)
    }
  }
  if (calls.length) add('call', jsonLength(calls))
  const content = fields.content
  if (typeof content === 'string') add(textCat, content.length)
  else if (Array.isArray(content)) {
    for (const b of content) {
      if (typeof b === 'string') add(textCat, b.length)
      else if (isObject(b) && b.type === 'text' && typeof b.text === 'string') add(textCat, b.text.length)
      else if (isObject(b) && (b.type === 'thinking' || b.type === 'redacted_thinking')) add('thinking', jsonLength(b))
      else if (isObject(b) && b.type === 'tool_use')
        continue // counted with the tool calls
      else add(textCat, jsonLength(b))
    }
  }
  let cleared = false
  if (role === 'tool') {
    cleared = fields.response_metadata?.context_editing?.cleared === true || (typeof content === 'string' && placeholders.has(content))
    const name = typeof fields.name === 'string' ? fields.name : callNames.get(fields.tool_call_id)
    if (name) tools.push(name)
    if (cleared) {
      weights.cleared = (weights.cleared ?? 0) + (weights.result ?? 0)
      delete weights.result
    }
  }
  if (Object.keys(weights).length === 0) weights[textCat] = 1
  return { role, tools, cleared, weights }
}

/** Splits `tokens` over the categories of `view`, largest remainder first, in a fixed order. */
export function segmentsOf(view: UnitView, tokens: number): Segment[] {
  const order: Category[] = ['thinking', 'system', 'user', 'ai', 'call', 'result', 'cleared']
  const cats = order.filter((c) => (view.weights[c] ?? 0) > 0)
  const total = cats.reduce((s, c) => s + (view.weights[c] ?? 0), 0)
  let left = tokens
  return cats.map((c, k) => {
    const t = k === cats.length - 1 ? left : Math.round((tokens * (view.weights[c] ?? 0)) / total)
    left -= t
    return { cat: c, tokens: t }
  })
}

/** One row of the table: an input message. */
export interface Row {
  index: number
  role: string
  tools: string[]
  before: number
  after: number
  status: string[]
}

export interface Picture {
  rows: Row[]
  before: Segment[]
  after: Segment[]
  totalBefore: number
  totalAfter: number
}

/**
 * Builds the table rows and map segments. `tokensBefore`/`tokensAfter` are the per-unit counts of
 * the editor (`after` aligned with the input units, `undefined` where removed).
 */
export function picture(
  conv: Conversation,
  after: ReadonlyArray<AnyMessage | undefined>,
  counts: { fixedBefore: number; before: number[]; fixedAfter: number; after: (number | undefined)[] },
  report: EditReport,
  placeholders: ReadonlySet<string>,
): Picture {
  const rows: Row[] = []
  const segBefore: Segment[] = []
  const segAfter: Segment[] = []
  if (counts.fixedBefore) segBefore.push({ cat: 'system', tokens: counts.fixedBefore })
  if (counts.fixedAfter) segAfter.push({ cat: 'system', tokens: counts.fixedAfter })
  const namesBefore = new Map<string, string>()
  const namesAfter = new Map<string, string>()
  const inputsCleared = new Set(report.clearedToolInputs.map((c) => c.index))
  const orphans = new Set(report.removedOrphans.map((o) => o.index))
  for (let u = 0; u < conv.units.length; u++) {
    const i = conv.origin[u]
    let row = rows[rows.length - 1]
    if (!row || row.index !== i) {
      row = { index: i, role: '', tools: [], before: 0, after: 0, status: [] }
      rows.push(row)
    }
    const vb = viewOf(conv.units[u], placeholders, namesBefore)
    const tb = counts.before[u] ?? 0
    segBefore.push(...segmentsOf(vb, tb))
    row.before += tb
    const roleName = conv.format === 'anthropic' && vb.role === 'tool' ? 'tool_result' : vb.role
    if (!row.role) row.role = roleName
    else if (!row.role.split('+').includes(roleName)) row.role += `+${roleName}`
    for (const t of vb.tools) if (!row.tools.includes(t)) row.tools.push(t)
    const edited = after[u]
    if (edited === undefined) {
      row.status.push(orphans.has(u) ? 'removed (orphan)' : 'removed')
      continue
    }
    const va = viewOf(edited, placeholders, namesAfter)
    const ta = counts.after[u] ?? 0
    segAfter.push(...segmentsOf(va, ta))
    row.after += ta
    if (va.cleared && !vb.cleared) row.status.push('cleared')
    else if (vb.cleared) row.status.push('was cleared')
    if (inputsCleared.has(u)) row.status.push('inputs cleared')
  }
  const sum = (s: Segment[]) => s.reduce((a, b) => a + b.tokens, 0)
  return { rows, before: segBefore, after: segAfter, totalBefore: sum(segBefore), totalAfter: sum(segAfter) }
}

// ---------------------------------------------------------------------------------------------
// Rendering

const COLORS: Record<Category | 'free' | 'mark', string> = {
  system: '35',
  user: '32',
  ai: '34',
  call: '36',
  result: '33',
  cleared: '90',
  thinking: '95',
  free: '2',
  mark: '1;31',
}
const PLAIN: Record<Category | 'free', string> = {
  system: 'S',
  user: 'U',
  ai: 'A',
  call: 'C',
  result: 'R',
  cleared: 'x',
  thinking: 'K',
  free: '.',
}
const LABELS: Record<Category, string> = {
  system: 'system',
  user: 'user',
  ai: 'AI text',
  call: 'tool call',
  result: 'tool result',
  cleared: 'cleared',
  thinking: 'thinking',
}

export interface Style {
  color: boolean
  width: number
}

const paint = (style: Style, code: string, s: string) => (style.color ? `\x1b[${code}m${s}\x1b[0m` : s)
const bold = (style: Style, s: string) => paint(style, '1', s)
const dim = (style: Style, s: string) => paint(style, '2', s)

/** The categories covering most of each cell of a map `width` cells wide for `scale` tokens. */
export function mapCells(segments: readonly Segment[], scale: number, width: number): (Category | 'free')[] {
  const size = scale / width
  const cells: Array<Map<Category, number>> = Array.from({ length: width }, () => new Map())
  let pos = 0
  for (const s of segments) {
    let a = pos
    const b = pos + s.tokens
    pos = b
    let c = Math.floor(a / size)
    while (a < b && c < width) {
      const end = Math.min(b, (c + 1) * size)
      if (end > a) {
        const cell = cells[c]
        cell.set(s.cat, (cell.get(s.cat) ?? 0) + (end - a))
        a = end
      }
      c++
    }
  }
  return cells.map((cell) => {
    let best: Category | 'free' = 'free'
    let bestN = 0
    let filled = 0
    for (const [cat, n] of cell) {
      filled += n
      if (n > bestN) {
        best = cat
        bestN = n
      }
    }
    return filled >= size / 2 ? best : 'free'
  })
}

function mapLine(style: Style, segments: readonly Segment[], scale: number): string {
  const cells = mapCells(segments, scale, style.width)
  if (!style.color) return cells.map((c) => PLAIN[c]).join('')
  let out = ''
  let run = ''
  let runCat: Category | 'free' | undefined
  const flush = () => {
    if (run && runCat) out += `\x1b[${COLORS[runCat]}m${run}\x1b[0m`
    run = ''
  }
  for (const c of cells) {
    if (c !== runCat) {
      flush()
      runCat = c
    }
    run += c === 'free' ? '·' : '█'
  }
  flush()
  return out
}

export interface MapInput {
  before: readonly Segment[]
  after: readonly Segment[]
  totalBefore: number
  totalAfter: number
  triggers: readonly number[]
  maxInputTokens?: number
}

/** The context map: a `before` and an `after` line with the trigger and the budget marked below. */
export function renderMap(style: Style, m: MapInput): string[] {
  const scale = Math.max(m.maxInputTokens ?? 0, m.totalBefore, ...m.triggers, 1)
  const window = m.maxInputTokens
  const share = (t: number) => (window ? `  ${fmtPct(t, window).padStart(4)} of budget` : '')
  const num = (t: number) => fmtInt(t).padStart(Math.max(fmtInt(m.totalBefore).length, fmtInt(m.totalAfter).length))
  const lines: string[] = []
  lines.push(`${bold(style, 'context map')}  ${dim(style, `(1 cell ≈ ${fmtInt(scale / style.width)} tokens)`)}`)
  lines.push(`  before ${mapLine(style, m.before, scale)} ${num(m.totalBefore)} tokens${share(m.totalBefore)}`)
  lines.push(`  after  ${mapLine(style, m.after, scale)} ${num(m.totalAfter)} tokens${share(m.totalAfter)}  ${fmtDelta(m.totalBefore, m.totalAfter)}`)
  const marks = Array.from({ length: style.width }, () => ' ')
  const col = (t: number) => Math.min(style.width - 1, Math.floor((t / scale) * style.width))
  for (const t of m.triggers) marks[col(t)] = 'T'
  if (window) marks[col(window)] = marks[col(window)] === 'T' ? '*' : 'B'
  const markLine = marks
    .join('')
    .replace(/[TB*]/g, (c) => paint(style, COLORS.mark, style.color ? (c === '*' ? '▲' : c) : c))
    .trimEnd()
  if (markLine) lines.push(`         ${markLine}`)
  const legendMarks: string[] = []
  if (m.triggers.length) legendMarks.push(`T trigger ${m.triggers.map(fmtInt).join(', ')}`)
  if (window) legendMarks.push(`B budget (max input tokens) ${fmtInt(window)}`)
  if (marks.includes('*')) legendMarks.push('* both')
  if (legendMarks.length) lines.push(`         ${legendMarks.join(' · ')}`)
  const used = new Set([...m.before, ...m.after].filter((s) => s.tokens > 0).map((s) => s.cat))
  const legend = (Object.keys(LABELS) as Category[])
    .filter((c) => used.has(c))
    .map((c) => (style.color ? `${paint(style, COLORS[c], '█')} ${LABELS[c]}` : `${PLAIN[c]} ${LABELS[c]}`))
  legend.push(style.color ? `${dim(style, '·')} free` : '. free')
  lines.push(`         ${legend.join('  ')}`)
  return lines
}

/** The per-message table; `top` > 0 shows only the largest rows. */
export function renderTable(style: Style, rows: readonly Row[], window: number | undefined, top = 0): string[] {
  let shown = rows
  if (top > 0 && rows.length > top) {
    const keep = new Set(
      [...rows]
        .sort((a, b) => b.before - a.before || a.index - b.index)
        .slice(0, top)
        .map((r) => r.index),
    )
    shown = rows.filter((r) => keep.has(r.index))
  }
  const total = rows.reduce((s, r) => s + r.before, 0)
  const whole = window ?? total
  const head = ['#', 'role', 'tool', 'tokens', window ? 'budget' : 'share', 'after', 'edit']
  // Roles and tool names come from the input: escaped, they cannot move the cursor or recolour.
  const body = shown.map((r) => [
    String(r.index),
    printable(r.role),
    printable(r.tools.join(',')),
    fmtInt(r.before),
    fmtPct(r.before, whole),
    r.status.some((s) => s.startsWith('removed')) ? '-' : fmtInt(r.after),
    r.status.join(', '),
  ])
  const right = [true, false, false, true, true, true, false]
  // A loop, not Math.max(...column): spreading one argument per message overflows the stack.
  const widths = head.map((h, c) => body.reduce((w, row) => Math.max(w, row[c].length), h.length))
  widths[2] = Math.min(widths[2], 24)
  const fmt = (row: string[]) =>
    row
      .map((cell, c) => {
        const v = cell.length > widths[c] ? `${cell.slice(0, widths[c] - 1)}…` : cell
        return right[c] ? v.padStart(widths[c]) : v.padEnd(widths[c])
      })
      .join('  ')
      .trimEnd()
  const lines = [`  ${bold(style, fmt(head))}`]
  for (const row of body) {
    const line = `  ${fmt(row)}`
    lines.push(row[6].includes('cleared') || row[6].includes('removed') ? paint(style, COLORS.cleared, line) : line)
  }
  if (shown.length < rows.length) {
    lines.push(dim(style, `  … ${rows.length - shown.length} smaller messages not shown (the ${shown.length} largest are; --top 0 shows all)`))
  }
  return lines
}

/** The edit report in a few lines. */
export function renderReport(report: EditReport, style: Style = { color: false, width: 0 }): string[] {
  const lines: string[] = []
  const freed = report.cleared.reduce((s, c) => s + c.tokensFreed, 0)
  const method =
    report.tokenCountMethod === 'model'
      ? `exact, ${report.encoding ?? 'model'}`
      : report.tokenCountMethod === 'estimate'
        ? `estimate, ${report.encoding ?? 'o200k_base'}`
        : 'approx'
  lines.push(
    `tokens ${fmtInt(report.tokensBefore)} → ${fmtInt(report.tokensAfter)} (${fmtDelta(report.tokensBefore, report.tokensAfter)}, ${method})` +
      ` · messages ${fmtInt(report.messagesBefore)} → ${fmtInt(report.messagesAfter)}` +
      (report.maxInputTokens ? ` · budget ${fmtInt(report.maxInputTokens)}` : ''),
  )
  const what = [
    report.triggered ? bold(style, 'triggered') : 'not triggered',
    `cleared ${report.cleared.length} tool result${report.cleared.length === 1 ? '' : 's'} (${fmtInt(freed)} tokens)`,
  ]
  if (report.clearedToolInputs.length) {
    const n = report.clearedToolInputs.length
    what.push(`cleared the inputs of ${n} tool call${n === 1 ? '' : 's'}`)
  }
  what.push(`removed ${report.removedOrphans.length} orphaned tool result${report.removedOrphans.length === 1 ? '' : 's'}`)
  lines.push(what.join(' · '))
  const skipped = report.warnings.some((w) => w.code === 'summary_skipped')
  if (report.appliedEdits.length > 1) {
    report.appliedEdits.forEach((e, k) => {
      const did: string[] = []
      if (e.clearedToolUses || e.type === 'clear_tool_uses') did.push(`cleared ${e.clearedToolUses} tool uses`)
      if (e.truncatedToolResults) did.push(`truncated ${e.truncatedToolResults} tool results`)
      if (e.clearedThinkingTurns) did.push(`cleared thinking of ${e.clearedThinkingTurns} turns`)
      if (e.removedToolCalls) did.push(`removed ${e.removedToolCalls} tool calls`)
      if (e.removedMessages && e.type === 'summarize' && skipped) did.push(`would replace ${e.removedMessages} messages (kept: no summary written)`)
      else if (e.removedMessages) did.push(`removed ${e.removedMessages} messages`)
      lines.push(
        `  edit ${k + 1} ${e.type}: ${e.triggered ? 'triggered' : 'not triggered'}` +
          (did.length ? `, ${did.join(', ')}` : '') +
          (e.clearedInputTokens && !(e.type === 'summarize' && skipped) ? `, freed ${fmtInt(e.clearedInputTokens)} tokens` : ''),
      )
    })
  }
  if (report.stillTriggered) lines.push(paint(style, '33', 'still over the trigger after editing: summarize or trim further'))
  if (report.overMaxInputTokens) lines.push(paint(style, '31', 'over the model budget (max input tokens) after editing'))
  const seen = new Set<string>()
  for (const w of report.warnings) {
    if (w.code === 'still_over_trigger' || w.code === 'over_max_input_tokens') continue
    const key = `${w.code}:${w.message}`
    if (seen.has(key)) continue
    seen.add(key)
    lines.push(`warning ${printable(w.code)}: ${printable(w.message)}`)
  }
  return lines
}
