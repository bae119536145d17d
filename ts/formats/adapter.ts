// What every framework adapter shares: options read as everywhere else (the LangChain middleware's
// JSON: `trigger`, `keep`, ..., `edits`, `tokenCountMethod`, `maxInputTokens`, `onReport`), one
// editor per adapter (its sessions serve every conversation it sees), and the report handed to
// `onReport` with the name of the framework hook that produced it.

import type { EditContext } from '../editor.js'
import { ContextEditor } from '../editor.js'
import { readMiddlewareOptions } from '../options.js'
import type { EditReport } from '../native.js'
import { ContextEditorError } from '../errors.js'
import { type ContextEditingMiddlewareConfig, MIDDLEWARE_NAME, resolveOptions } from '../schema.js'
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
  /**
   * Edits `messages` (in `format`) for one model call and reports; the input is never changed.
   * A function property, not a method: adapters take it out of the object (`const { edit } = ...`).
   */
  edit: <T>(
    messages: readonly T[],
    format: MessageFormat,
    context?: EditContext,
  ) => Promise<{ messages: T[]; report: EditReport; changed: boolean; raw: object }>
}

export function adapter(config: AdapterOptions | null | undefined, hook: string): Adapter {
  let resolved: ReturnType<typeof resolveOptions>
  try {
    resolved = resolveOptions(readMiddlewareOptions(config, hook) as ContextEditingMiddlewareConfig)
  } catch (e) {
    throw named(e, hook)
  }
  const { editor, onReport, maxInputTokens } = resolved
  return {
    editor,
    edit: async (messages, format, context = {}) => {
      const result = await editor.editAsync(messages as never[], { maxInputTokens, ...context, format })
      const out = result.messages as unknown as typeof messages
      const report = result.report
      if (onReport) (onReport as (r: AdapterReport) => void)(Object.assign(report, { hook }))
      const changed = out.length !== messages.length || out.some((m, i) => m !== messages[i])
      return { messages: out as never, report, changed, raw: result }
    },
  }
}

/** An options error named by the adapter the caller made, not by the LangChain middleware's name. */
function named(e: unknown, hook: string): unknown {
  const prefix = `${MIDDLEWARE_NAME}: `
  if (!(e instanceof ContextEditorError) || !e.message.startsWith(prefix)) return e
  return new ContextEditorError(e.code, `${hook}: ${e.message.slice(prefix.length)}`, { path: e.path, cause: e })
}
