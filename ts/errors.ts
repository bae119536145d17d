/**
 * Errors thrown by context-editor. Every error has a stable `code`:
 *
 * - `INVALID_OPTIONS`: an option is unknown, of the wrong type or out of range (`path` names it).
 * - `INVALID_MESSAGE`: a message is malformed (`messageIndex` and `path` name it).
 * - `INVALID_CONTEXT`: the per-call context is malformed.
 * - `UNKNOWN_ENCODING`: an `encoding` that no embedded tokenizer matches.
 * - `INTERNAL`: a bug in context-editor (a caught Rust panic); please report it.
 */
export type ContextEditorErrorCode =
  | 'INVALID_OPTIONS'
  | 'INVALID_MESSAGE'
  | 'INVALID_CONTEXT'
  | 'UNKNOWN_ENCODING'
  | 'INTERNAL'

export class ContextEditorError extends Error {
  override name = 'ContextEditorError'
  readonly code: ContextEditorErrorCode
  /** Index of the offending message, for `INVALID_MESSAGE`. */
  readonly messageIndex?: number
  /** Option path or message field, e.g. `keep`, `trigger[1].fraction`, `toolCalls[0].args`. */
  readonly path?: string

  constructor(
    code: ContextEditorErrorCode,
    message: string,
    extra: { messageIndex?: number; path?: string; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause })
    this.code = code
    if (extra.messageIndex !== undefined) this.messageIndex = extra.messageIndex
    if (extra.path !== undefined) this.path = extra.path
  }
}

const CODES = new Set<string>(['INVALID_OPTIONS', 'INVALID_MESSAGE', 'INVALID_CONTEXT', 'UNKNOWN_ENCODING', 'INTERNAL'])

/** Rethrows a native error as a `ContextEditorError`, keeping its code, index and path. */
export function fromNative(err: unknown): ContextEditorError {
  if (err instanceof ContextEditorError) return err
  const e = err as { code?: unknown; message?: unknown; messageIndex?: unknown; path?: unknown }
  const code = typeof e?.code === 'string' && CODES.has(e.code) ? (e.code as ContextEditorErrorCode) : 'INTERNAL'
  const message = typeof e?.message === 'string' ? e.message : String(err)
  return new ContextEditorError(code, message, {
    messageIndex: typeof e?.messageIndex === 'number' ? e.messageIndex : undefined,
    path: typeof e?.path === 'string' ? e.path : undefined,
    cause: err,
  })
}

/** A malformed message at `index`, field `field`. */
export function invalidMessage(index: number, field: string, what: string): ContextEditorError {
  return new ContextEditorError('INVALID_MESSAGE', `messages[${index}].${field}: ${what}`, { messageIndex: index, path: field })
}
