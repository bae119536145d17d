// What a summarizer returned, read the same way by `edit` / `editAsync` (`context.summarize`) and
// by the summarization middlewares (the model's response). A summary is data that replaces part
// of the history, so whatever cannot be one must never reach the output: no text at all is a
// failed summary (the history is kept and the report warns), and a value that is not a summary
// is the summarizer's error, never blamed on the caller's messages.

import { ContextEditorError, errorText } from './errors.js'
// Reads of the answer take what it and its class hold, never a key put on Object.prototype.
import { field, hasField } from './wire/fields.js'
import { isWellFormed } from './wire/shapes.js'

/** The `path` that names the summary in errors and warnings. */
export const SUMMARY_PATH = 'summary'

/** Warning code: the summarizer answered with no text (empty, blank, null, reasoning only). */
export const SUMMARY_EMPTY = 'summary_empty'

/** Warning code: the summarizer's answer cannot be a summary (wrong type, lone surrogate, …). */
export const SUMMARY_INVALID = 'summary_invalid'

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}

/** A value as shown in an error: primitives as they are (strings quoted), others by kind (no getter runs). */
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40))
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === undefined) return String(value)
  return describe(value)
}

function invalid(what: string, cause?: unknown): ContextEditorError {
  return new ContextEditorError('INVALID_SUMMARY', `summary: ${what}`, { path: SUMMARY_PATH, cause })
}

/** A string, or a `String` object (some SDKs box their text): its text; else `undefined`. */
function stringOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  return value instanceof String ? value.valueOf() : undefined
}

/**
 * Text of one content block: a string, or a text block (`{ type: 'text', text }`, also without a
 * `type`, as some providers send it). Thinking, reasoning, image and tool blocks are not a summary.
 */
function blockText(block: unknown): string {
  const plain = stringOf(block)
  if (plain !== undefined) return plain
  if (block === null || typeof block !== 'object') return ''
  const type = field(block, 'type')
  return type === undefined || type === 'text' ? (stringOf(field(block, 'text')) ?? '') : ''
}

/** More content blocks than any answer has: refused before walking (a sparse array could claim 2^32). */
const MAX_BLOCKS = 100_000

function contentText(content: unknown): string {
  if (content === undefined || content === null) return ''
  const plain = stringOf(content)
  if (plain !== undefined) return plain
  if (Array.isArray(content)) {
    const n = content.length
    if (n > MAX_BLOCKS) throw invalid(`${n} content blocks (at most ${MAX_BLOCKS})`)
    let text = ''
    for (let i = 0; i < n; i++) text += blockText(Object.hasOwn(content, i) ? content[i] : undefined)
    return text
  }
  throw invalid(`expected message content (a string or content blocks), got ${describe(content)}`)
}

/** The text of an answer, untrimmed (see `summaryTextOf`); its reads may throw. */
function answerText(value: unknown): string {
  if (value === undefined || value === null || typeof value === 'string') return contentText(value)
  if (typeof value !== 'object') throw invalid(`expected a string, a message or content blocks, got ${describe(value)}`)
  if (value instanceof String || Array.isArray(value)) return contentText(value)
  if (typeof field(value, 'then') === 'function') {
    throw invalid('got a Promise (the synchronous `edit` needs the text; use `editAsync` for an asynchronous summarizer)')
  }
  if (!hasField(value, 'content')) throw invalid('expected a string, a message with `content`, or content blocks, got an object without `content`')
  return contentText(field(value, 'content'))
}

/**
 * The summary text in what a summarizer returned, trimmed: a string, a chat model's response or
 * any message (its `content`), or content blocks (their text blocks). `''` when there is no text:
 * empty, blank, `null` / `undefined`, or only thinking / reasoning blocks — a failed summary.
 * @throws {ContextEditorError} `INVALID_SUMMARY` (path `summary`) for anything else (a number, a
 * Promise, an object without `content`), for text with a lone UTF-16 surrogate, or when reading
 * the content throws (`cause`).
 */
export function summaryTextOf(value: unknown): string {
  let text: string
  try {
    text = answerText(value)
  } catch (e) {
    // Every read of the answer is guarded: a getter or Proxy trap that throws (a revoked Proxy,
    // an array whose `length` or entries throw) is still the summarizer's error, never the caller's.
    throw e instanceof ContextEditorError ? e : invalid(`reading it threw: ${errorText(e)}`, e)
  }
  text = text.trim()
  if (!isWellFormed(text)) throw invalid('contains a lone UTF-16 surrogate (not valid Unicode)')
  return text
}

/**
 * Checks a plan's summary request against the messages it is applied to (`applyPlan`): a plan made
 * for other messages, or changed by hand, must not drop the replaced messages without writing the
 * summary where they were. The planner's own requests always pass.
 * @throws {ContextEditorError} `INVALID_SUMMARY` naming the field (`plan.summary.insertAt`, …).
 */
export function checkSummaryRequest(request: unknown, length: number): void {
  try {
    checkRequest(request, length)
  } catch (e) {
    if (e instanceof ContextEditorError) throw e
    // A hand-made plan whose getter or Proxy trap throws.
    throw new ContextEditorError('INVALID_SUMMARY', `plan.summary: could not be read (${errorText(e)})`, { path: 'plan.summary', cause: e })
  }
}

function checkRequest(request: unknown, length: number): void {
  const fail = (field: string, what: string) => new ContextEditorError('INVALID_SUMMARY', `plan.summary.${field}: ${what}`, { path: `plan.summary.${field}` })
  if (request === null || typeof request !== 'object') throw fail('replaced', `expected a summary request (an object), got ${describe(request)}`)
  const { replaced, insertAt, prefix, role } = request as Record<string, unknown>
  if (!Array.isArray(replaced) || replaced.length === 0 || replaced.length > length) {
    const got = Array.isArray(replaced) ? `${replaced.length}` : describe(replaced)
    throw fail('replaced', `expected the indexes of the replaced messages (1 to ${length} of them), got ${got}`)
  }
  let previous = -1
  for (let k = 0; k < replaced.length; k++) {
    const i: unknown = replaced[k]
    if (typeof i !== 'number' || !Number.isSafeInteger(i) || i <= previous || i >= length) {
      throw fail(`replaced[${k}]`, `expected increasing message indexes below ${length} (a plan for other messages?), got ${shown(i)}`)
    }
    previous = i
  }
  if (insertAt !== replaced[0]) throw fail('insertAt', `expected ${replaced[0]}, where the first replaced message is, got ${shown(insertAt)}`)
  if (typeof prefix !== 'string') throw fail('prefix', `expected a string, got ${describe(prefix)}`)
  if (role !== 'user' && role !== 'assistant') throw fail('role', `expected "user" or "assistant", got ${shown(role)}`)
}
