// The lines of a JSONL input, read as bytes so that a line's length is checked before it becomes a
// string: `readline` builds each line as one string, and a line longer than the longest string V8
// can hold threw an uncaught RangeError from inside the stream.

import { constants } from 'node:buffer'
import type { Readable } from 'node:stream'

/** The longest string V8 can hold (UTF-16 code units); a line of this many bytes always fits. */
export const MAX_STRING = constants.MAX_STRING_LENGTH

/** One line: its text, or how long it was when it is longer than the limit (its bytes are dropped). */
export type Line = { no: number; bytes: number; text: string; tooLong?: undefined } | { no: number; bytes: number; text?: undefined; tooLong: true }

/**
 * The lines of `input` (split at `\n`; a `\r` before it is dropped), 1-based. A line longer than
 * `maxBytes` is yielded as `tooLong` without being held in memory.
 */
export async function* readLines(input: Readable, maxBytes: number): AsyncGenerator<Line> {
  let parts: Buffer[] = []
  let held = 0
  let bytes = 0
  let tooLong = false
  let no = 0
  const finish = (): Line => {
    no++
    const line: Line = tooLong ? { no, bytes, tooLong: true } : { no, bytes, text: decode(parts, held) }
    parts = []
    held = 0
    bytes = 0
    tooLong = false
    return line
  }
  const take = (piece: Buffer) => {
    bytes += piece.length
    if (tooLong) return
    if (bytes > maxBytes) {
      tooLong = true
      parts = []
      held = 0
      return
    }
    if (piece.length) {
      parts.push(piece)
      held += piece.length
    }
  }
  for await (const chunk of input) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
    let start = 0
    for (;;) {
      const nl = buf.indexOf(10, start)
      if (nl === -1) {
        take(buf.subarray(start))
        break
      }
      take(buf.subarray(start, nl))
      yield finish()
      start = nl + 1
    }
  }
  if (bytes > 0 || tooLong) yield finish()
}

function decode(parts: Buffer[], held: number): string {
  const buf = parts.length === 1 ? parts[0] : Buffer.concat(parts, held)
  const end = buf.length > 0 && buf[buf.length - 1] === 13 ? buf.length - 1 : buf.length
  return buf.toString('utf8', 0, end)
}
