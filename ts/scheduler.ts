// The asynchronous calls' scheduler, shared by every editor: how many calls are in flight, and the
// turns of the event loop their pieces of work wait for (one piece per turn, first come first
// served), so that long histories cross the boundary and are applied without holding the loop.
// The sizes of the pieces are here too: they are what the pacing is tuned by.

import { entry, field } from './wire/fields.js'

/** Text (UTF-16 code units, roughly) sent per piece when a long history goes over asynchronously. */
export const PIECE_CHARS = 64 * 1024
/**
 * Held messages checked per piece by an asynchronous call: a piece costs about 0.2 ms per 1,000
 * messages alone, and up to several times that among other calls (their histories compete for the
 * CPU cache), where pieces are kept short.
 */
export const CHECK_PIECE = 1000
export const CHECK_PIECE_ALONE = 5000
/**
 * `planAsync` plans a next call on the calling thread when no other asynchronous call is in
 * flight (`asyncCalls`), at most `INLINE_TAIL` messages are new and the history holds at most
 * `INLINE_HISTORY` (a session plan costs about 0.15 ms per 1,000 messages: at most ~3 ms on the
 * loop, less than the thread pool's round trip and the pieces); other work goes to the pool.
 */
export const INLINE_TAIL = 16
export const INLINE_HISTORY = 20000
/**
 * An asynchronous call on a history met for the first time plans on the calling thread when no
 * other asynchronous call is in flight and the history holds at most `INLINE_COLD_MESSAGES`
 * messages and `INLINE_COLD_CHARS` characters (`INLINE_COLD_TEXT` when the text crosses and is
 * counted: model mode), guessed by `shortHistory` without converting anything. Measured (docs/performance.md): a cold plan of 400 messages (0.8 MB)
 * costs about 1 ms in approx mode and 5 ms in model mode with an empty token cache; through the
 * thread pool the same call paid the pool's round trip and a turn of the event loop per piece,
 * 0.4–4 ms more at 200 messages, more than the block it avoids.
 */
export const INLINE_COLD_MESSAGES = 400
export const INLINE_COLD_CHARS = 1024 * 1024
export const INLINE_COLD_TEXT = 128 * 1024
/**
 * Whether `list` is short enough to plan on the event loop (see `INLINE_COLD_MESSAGES`): at most
 * `maxMessages` messages whose text adds up to at most `maxChars`. The text is guessed without
 * converting anything: each message's `content` (a string, or the `text` of its blocks; a stored
 * message's `data.content`), with other blocks and tool calls at a flat 256 characters each. A
 * message that cannot be read this way makes the history long: the paced path reports it.
 */
export function shortHistory(list: readonly unknown[], maxMessages: number, maxChars: number): boolean {
  if (list.length > maxMessages) return false
  let chars = 0
  try {
    for (let i = 0; i < list.length && chars <= maxChars; i++) chars += roughChars(list[i], maxChars - chars)
  } catch {
    return false
  }
  return chars <= maxChars
}

const FLAT_CHARS = 256

/**
 * The guess for one message (fields read as the rest of the shim reads them: see wire/fields.ts),
 * walked no further than `left` characters: a list of 2^32 - 1 blocks is not walked to its end.
 */
function roughChars(m: unknown, left: number): number {
  if (m === null || typeof m !== 'object') return FLAT_CHARS
  let content = field(m, 'content')
  const data = content === undefined ? field(m, 'data') : undefined
  if (data !== null && typeof data === 'object') content = field(data, 'content')
  let chars = FLAT_CHARS
  if (typeof content === 'string') chars += content.length
  else if (Array.isArray(content)) {
    if (content.length > left) return Infinity
    for (let k = 0; k < content.length && chars <= left; k++) {
      const b: unknown = entry(content, k)
      if (typeof b === 'string') chars += b.length
      else {
        const text: unknown = b !== null && typeof b === 'object' ? field(b, 'text') : undefined
        chars += typeof text === 'string' ? text.length : FLAT_CHARS
      }
    }
  }
  const calls = field(m, 'tool_calls')
  if (Array.isArray(calls)) chars += calls.length * FLAT_CHARS
  return chars
}

/** Messages a plan is applied to at once by `editAsync` before yielding. */
export const APPLY_PIECE = 500
/** Asynchronous calls in flight, across editors. */
let asyncCalls = 0

/** Asynchronous calls in flight now, across editors. */
export function concurrentCalls(): number {
  return asyncCalls
}

/** Runs `wait` (a wait for the caller's code) within an in-flight call, not counted in `asyncCalls`. */
export async function outsideInFlight<T>(wait: () => Promise<T>): Promise<T> {
  asyncCalls--
  try {
    return await wait()
  } finally {
    asyncCalls++
  }
}

/** Runs an asynchronous call, counted in `asyncCalls` while it is in flight. */
export async function inFlight<T>(call: () => Promise<T>): Promise<T> {
  asyncCalls++
  try {
    return await call()
  } finally {
    asyncCalls--
  }
}

/**
 * The asynchronous calls' pieces of work wait here for their turn: one piece per turn of the event
 * loop, across all calls and editors, first come first served. Resuming every waiting call from its
 * own `setImmediate` would run all their pieces back to back in one turn; here each release
 * schedules the next one, which Node runs in the next turn, after timers and I/O.
 */
const waiting: Array<() => void> = []
let releasing = false

export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve)
    if (!releasing) {
      releasing = true
      setImmediate(release)
    }
  })
}

function release(): void {
  const resolve = waiting.shift()
  if (waiting.length > 0) setImmediate(release)
  else releasing = false
  resolve?.()
}
