// JSON input with error positions: `file:line:column: invalid JSON: <reason>`.

import { CliError } from './util.js'

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
 * recursive-descent scanner; it only runs after `JSON.parse` has failed.
 */
export function errorOffset(s: string): number {
  let i = 0
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n' || s[i] === '\r')) i++
  }
  class Stop {
    constructor(readonly at: number) {}
  }
  const fail = (): never => {
    throw new Stop(i)
  }
  const literal = (word: string) => {
    for (let k = 0; k < word.length; k++, i++) if (s[i] !== word[k]) fail()
  }
  const string = () => {
    i++ // opening quote
    while (i < s.length) {
      const c = s.charCodeAt(i)
      if (c === 34) {
        i++
        return
      }
      if (c < 0x20) fail()
      if (c === 92) {
        i++
        const e = s[i]
        if (e === 'u') {
          for (let k = 0; k < 4; k++) {
            i++
            if (!/[0-9a-fA-F]/.test(s[i] ?? '')) fail()
          }
        } else if (!e || !'"\\/bfnrt'.includes(e)) fail()
      }
      i++
    }
    fail()
  }
  const number = () => {
    if (s[i] === '-') i++
    if (s[i] === '0') i++
    else if (/[1-9]/.test(s[i] ?? '')) while (/[0-9]/.test(s[i] ?? '')) i++
    else fail()
    if (s[i] === '.') {
      i++
      if (!/[0-9]/.test(s[i] ?? '')) fail()
      while (/[0-9]/.test(s[i] ?? '')) i++
    }
    if (s[i] === 'e' || s[i] === 'E') {
      i++
      if (s[i] === '+' || s[i] === '-') i++
      if (!/[0-9]/.test(s[i] ?? '')) fail()
      while (/[0-9]/.test(s[i] ?? '')) i++
    }
  }
  const value = (): void => {
    ws()
    const c = s[i]
    if (c === '{') {
      i++
      ws()
      if (s[i] === '}') {
        i++
        return
      }
      for (;;) {
        ws()
        if (s[i] !== '"') fail()
        string()
        ws()
        if (s[i] !== ':') fail()
        i++
        value()
        ws()
        if (s[i] === ',') {
          i++
          continue
        }
        if (s[i] === '}') {
          i++
          return
        }
        fail()
      }
    }
    if (c === '[') {
      i++
      ws()
      if (s[i] === ']') {
        i++
        return
      }
      for (;;) {
        value()
        ws()
        if (s[i] === ',') {
          i++
          continue
        }
        if (s[i] === ']') {
          i++
          return
        }
        fail()
      }
    }
    if (c === '"') return string()
    if (c === 't') return literal('true')
    if (c === 'f') return literal('false')
    if (c === 'n') return literal('null')
    return number()
  }
  try {
    value()
    ws()
    if (i < s.length) fail()
  } catch (e) {
    if (e instanceof Stop) return e.at
    return 0 // too deep for the scanner: report the start
  }
  return s.length
}
