// The lines of a JSONL input, read as bytes so that a line's length is checked before it becomes a
// string: `readline` builds each line as one string, and a line longer than the longest string V8
// can hold threw an uncaught RangeError from inside the stream.

import { constants, isUtf8 } from 'node:buffer'
import type { Readable } from 'node:stream'

/** The longest string V8 can hold (UTF-16 code units); a line of this many bytes always fits. */
export const MAX_STRING = constants.MAX_STRING_LENGTH

/**
 * One line: its text; or its bytes when they are not UTF-8 (`notUtf8`, to report where); or how long
 * it was when it is longer than the limit (its bytes are dropped; `atLeast`: the reading stopped
 * there, so the line is at least that long).
 */
export type Line =
  | { no: number; bytes: number; text: string; tooLong?: undefined; notUtf8?: undefined }
  | { no: number; bytes: number; text?: undefined; tooLong?: undefined; notUtf8: Buffer }
  | { no: number; bytes: number; text?: undefined; tooLong: true; atLeast: boolean; notUtf8?: undefined }

/**
 * The lines of `input` (split at `\n`; a `\r` before it is dropped), 1-based. A line longer than
 * `maxBytes` is yielded as `tooLong` without being held in memory: at its end, or with `stopAtTooLong`
 * as soon as it passes the limit, and the reading stops (an endless line, `/dev/zero`, would
 * otherwise be read for ever).
 */
export async function* readLines(input: Readable, maxBytes: number, stopAtTooLong = false): AsyncGenerator<Line> {
  let parts: Buffer[] = []
  let held = 0
  let bytes = 0
  let tooLong = false
  let no = 0
  const finish = (atLeast = false): Line => {
    no++
    const line: Line = tooLong ? { no, bytes, tooLong: true, atLeast } : decode(no, bytes, parts, held)
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
        if (tooLong && stopAtTooLong) {
          yield finish(true)
          return
        }
        break
      }
      take(buf.subarray(start, nl))
      yield finish()
      start = nl + 1
    }
  }
  if (bytes > 0 || tooLong) yield finish()
}

function decode(no: number, bytes: number, parts: Buffer[], held: number): Line {
  const whole = parts.length === 1 ? parts[0] : Buffer.concat(parts, held)
  const buf = whole.length > 0 && whole[whole.length - 1] === 13 ? whole.subarray(0, whole.length - 1) : whole
  // Decoding bytes that are not UTF-8 would replace them by U+FFFD and write the line back changed.
  if (!isUtf8(buf)) return { no, bytes, notUtf8: buf }
  return { no, bytes, text: buf.toString('utf8') }
}
