// What every framework adapter shares: options read as everywhere else (the LangChain middleware's
// JSON: `trigger`, `keep`, ..., `edits`, `tokenCountMethod`, `maxInputTokens`, `onReport`), one
// editor per adapter (its sessions serve every conversation it sees), and the report handed to
// `onReport` with the name of the framework hook that produced it.

import type { EditContext } from '../editor.js'
import { ContextEditor } from '../editor.js'
import { readMiddlewareOptions } from '../options.js'
import type { EditReport } from '../native.js'
import { type ContextEditingMiddlewareConfig, resolveOptions } from '../schema.js'
import type { MessageFormat } from './types.js'

/** Options of every adapter: the JSON options of the library and the middlewares, plus `onReport`. */
export type AdapterOptions = ContextEditingMiddlewareConfig & {
  /** Called with each model call's report (`report.hook` names the adapter). */
  onReport?: (report: AdapterReport) => void
}

/** The editor's report, and which adapter made it. */
export type AdapterReport = EditReport & { hook: string }

export interface Adapter {
  editor: ContextEditor
  /** Edits `messages` (in `format`) for one model call and reports; the input is never changed. */
  edit<T>(messages: readonly T[], format: MessageFormat, context?: EditContext): Promise<{ messages: T[]; report: EditReport; changed: boolean; raw: object }>
}

export function adapter(config: AdapterOptions | null | undefined, hook: string): Adapter {
  const { editor, onReport, maxInputTokens } = resolveOptions(readMiddlewareOptions(config, hook) as ContextEditingMiddlewareConfig)
  return {
    editor,
    async edit(messages, format, context = {}) {
      const result = await editor.editAsync(messages as never[], { maxInputTokens, ...context, format })
      const out = result.messages as unknown as typeof messages
      const report = result.report
      if (onReport) (onReport as (r: AdapterReport) => void)(Object.assign(report, { hook }))
      const changed = out.length !== messages.length || out.some((m, i) => m !== messages[i])
      return { messages: out as never, report, changed, raw: result }
    },
  }
}
