// JSON input with error positions: `file:line:column: invalid JSON: <reason>`.

import { CliError, EXIT_FAILURE } from './util.js'

/** 1-based line and column of a UTF-16 offset in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let start = 0
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      start = i + 1
    }
  }
  return { line, column: Math.min(offset, text.length) - start + 1 }
}

/**
 * Parses JSON; on failure throws a usage error naming the line and column. `lineOffset` shifts the
 * line number (for a line of a JSONL file).
 */
export function parseJson(text: string, source: string, lineOffset = 0): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  try {
    return JSON.parse(body)
  } catch (e) {
    if (!(e instanceof SyntaxError)) {
      // Not a syntax error (memory, say): still name the input, never a bare stack trace.
      throw new CliError(`${source}${lineOffset ? `:${lineOffset + 1}` : ''}: cannot read the JSON: ${(e as Error)?.message ?? String(e)}`, EXIT_FAILURE)
    }
    const reason = String((e as Error).message)
      .replace(/ in JSON at position \d+.*$/, '')
      .replace(/, (".*|\.\.\..*)is not valid JSON$/s, '')
    const at = /at position (\d+)/.exec(String((e as Error).message))
    const offset = at ? Number(at[1]) : errorOffset(body)
    const { line, column } = lineColumn(body, offset)
    throw new CliError(`${source}:${line + lineOffset}:${column}: invalid JSON: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`)
  }
}

/**
 * Offset of the first syntax error, for the messages of `JSON.parse` that name no position. A small
 * scanner with an explicit stack (a recursive one overflowed on `[` x 200,000 and reported 1:1); it
 * only runs after `JSON.parse` has failed.
 */
export function errorOffset(s: string): number {
  let i = 0
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++
  }
  const digits = () => {
    const from = i
    while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) i++
    return i > from
  }
  /** Scans a string at `i` (the opening quote); false at the first invalid character. */
  const string = (): boolean => {
    i++
    while (i < s.length) {
      const c = s.charCodeAt(i)
      if (c === 34) {
        i++
        return true
      }
      if (c < 0x20) return false
      if (c === 92) {
        i++
        const e = s[i]
        if (e === 'u') {
          for (let k = 0; k < 4; k++) {
            i++
            if (!/[0-9a-fA-F]/.test(s[i] ?? '')) return false
          }
        } else if (!e || !'"\\/bfnrt'.includes(e)) return false
      }
      i++
    }
    return false
  }
  const literal = (word: string): boolean => {
    for (let k = 0; k < word.length; k++, i++) if (s[i] !== word[k]) return false
    return true
  }
  const number = (): boolean => {
    if (s[i] === '-') i++
    if (s[i] === '0') i++
    else if (!digits()) return false
    if (s[i] === '.') {
      i++
      if (!digits()) return false
    }
    if (s[i] === 'e' || s[i] === 'E') {
      i++
      if (s[i] === '+' || s[i] === '-') i++
      if (!digits()) return false
    }
    return true
  }
  /** `"key":` of an object member. */
  const key = (): boolean => {
    ws()
    if (s[i] !== '"' || !string()) return false
    ws()
    if (s[i] !== ':') return false
    i++
    return true
  }
  // Open containers, innermost last: ']' for an array, '}' for an object.
  const open: string[] = []
  let expectValue = true
  for (;;) {
    ws()
    if (expectValue) {
      const c = s[i]
      if (c === '[' || c === '{') {
        const close = c === '[' ? ']' : '}'
        i++
        ws()
        if (s[i] === close) {
          i++
          expectValue = false
          continue
        }
        open.push(close)
        if (close === '}' && !key()) return Math.min(i, s.length)
        continue
      }
      const ok = c === '"' ? string() : c === 't' ? literal('true') : c === 'f' ? literal('false') : c === 'n' ? literal('null') : number()
      if (!ok) return Math.min(i, s.length)
      expectValue = false
      continue
    }
    const close = open[open.length - 1]
    if (close === undefined) return Math.min(i, s.length) // trailing text (or none: no error found)
    if (s[i] === ',') {
      i++
      if (close === '}' && !key()) return Math.min(i, s.length)
      expectValue = true
      continue
    }
    if (s[i] !== close) return Math.min(i, s.length)
    i++
    open.pop()
  }
}
