// JSON input with error positions: `file:line:column: invalid JSON: <reason>`.
//
// `JSON.parse` alone changes what it reads without a word: of two equal keys it keeps the last
// (`{"messages":[…],"messages":[]}` lost a whole conversation), and numbers beyond a double are
// rounded (`12345678901234567890` → `12345678901234567000`), become `Infinity` (`1e400`, written
// back as `null`) or lose their sign (`-0`). After a successful parse, `audit` walks the text once
// (strings are skipped with `indexOf`, so the cost is in the structure, not the content): a
// duplicate key is an error naming it, and a number JSON cannot give back is written back byte for
// byte (`ExactNumbers`).

import { CliError, EXIT_FAILURE, printable } from './util.js'

/** 1-based line and column of a UTF-16 offset in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let start = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++
    start = i + 1
  }
  return { line, column: Math.min(offset, text.length) - start + 1 }
}

/**
 * Numbers of a document that `JSON.parse` would have changed, written back as they were read. In
 * the parsed value each stands as a stand-in number: a tiny negative double (`-5e-324`, `-1e-323`,
 * …, one per distinct text, none equal to a number of the document), so the editor still sees a
 * number where the input has one (a string there would pass checks a number fails: a numeric
 * tool-call id). `restore` replaces the stand-ins in JSON text written from the value (outside
 * strings), `text` gives the exact text of one.
 */
export interface ExactNumbers {
  restore(json: string): string
  text(n: number): string | undefined
}

/** Every stand-in prints as `-<digits>e-3<dd>`: JSON text without `e-3` has none. */
const STAND_IN_MARK = 'e-3'

function exactNumbers(raws: readonly string[], taken: ReadonlySet<number>): { numbers: ExactNumbers; standIn: Map<string, string> } {
  const standIn = new Map<string, string>() // raw text → stand-in text
  const rawOf = new Map<string, string>() // stand-in text → raw text
  let k = 0
  for (const raw of raws) {
    if (standIn.has(raw)) continue
    let v: number
    do v = -++k * Number.MIN_VALUE
    while (taken.has(v))
    standIn.set(raw, String(v))
    rawOf.set(String(v), raw)
  }
  return {
    standIn,
    numbers: {
      restore: (json) => (json.includes(STAND_IN_MARK) ? restoreNumbers(json, rawOf) : json),
      text: (n) => (n < 0 && n > -2.2250738585072014e-308 ? rawOf.get(String(n)) : undefined),
    },
  }
}

/** `json` with each number token that is a stand-in replaced by its raw text; strings are skipped. */
function restoreNumbers(json: string, rawOf: ReadonlyMap<string, string>): string {
  let out = ''
  let at = 0
  const n = json.length
  for (let i = 0; i < n;) {
    const c = json.charCodeAt(i)
    if (c === 34) {
      i = stringEnd(json, i) + 1
      continue
    }
    if (c === 45) {
      let j = i + 1
      while (j < n && isNumberChar(json.charCodeAt(j))) j++
      const raw = rawOf.get(json.slice(i, j))
      if (raw !== undefined) {
        out += json.slice(at, i) + raw
        at = j
      }
      i = j
      continue
    }
    i++
  }
  return at === 0 ? json : out + json.slice(at)
}

/** Offset of the quote closing the string that opens at `i` (one not escaped by a backslash). */
function stringEnd(s: string, i: number): number {
  let end = s.indexOf('"', i + 1)
  for (;;) {
    let b = end - 1
    while (s.charCodeAt(b) === 92) b--
    if ((end - 1 - b) % 2 === 0) return end
    end = s.indexOf('"', end + 1)
  }
}

const isNumberChar = (d: number) => (d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45

/** A parsed document, and the numbers it keeps as text (none for most documents). */
export interface Parsed {
  value: unknown
  numbers?: ExactNumbers
}

function where(source: string, body: string, offset: number, lineOffset: number): string {
  const { line, column } = lineColumn(body, offset)
  return `${source}:${line + lineOffset}:${column}`
}

/**
 * Parses JSON; on failure throws a usage error naming the line and column. `lineOffset` shifts the
 * line number (for a line of a JSONL file). A duplicate key is an error. With `exact`, numbers that
 * `JSON.parse` would change are kept as text (see `ExactNumbers`); without it (options) they are
 * parsed as usual, and the options' checks say what is wrong with them.
 */
export function parseDocument(text: string, source: string, lineOffset = 0, exact = true): Parsed {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch (e) {
    throw syntaxError(e, body, source, lineOffset)
  }
  const found = audit(body, exact)
  if (found.duplicate) {
    const d = found.duplicate
    throw new CliError(
      `${where(source, body, d.offset, lineOffset)}: invalid JSON: duplicate key ${JSON.stringify(d.key)}${d.path ? ` in ${d.path}` : ''} ` +
        '(only one value per key can be kept: remove or rename the other)',
    )
  }
  if (!found.lossy.length) return { value }
  const raws = found.lossy.map(([start, end]) => body.slice(start, end))
  const { numbers, standIn } = exactNumbers(raws, found.tiny)
  let marked = ''
  let at = 0
  found.lossy.forEach(([start, end], k) => {
    marked += body.slice(at, start) + standIn.get(raws[k])
    at = end
  })
  marked += body.slice(at)
  return { value: JSON.parse(marked), numbers }
}

/** `parseDocument(...).value`, for inputs whose numbers are plain numbers (options). */
export function parseJson(text: string, source: string, lineOffset = 0): unknown {
  return parseDocument(text, source, lineOffset, false).value
}

function syntaxError(e: unknown, body: string, source: string, lineOffset: number): CliError {
  if (!(e instanceof SyntaxError)) {
    // Not a syntax error (memory, say): still name the input, never a bare stack trace.
    return new CliError(`${source}${lineOffset ? `:${lineOffset + 1}` : ''}: cannot read the JSON: ${(e as Error)?.message ?? String(e)}`, EXIT_FAILURE)
  }
  if (body.trim() === '') {
    return new CliError(`${source}${lineOffset ? `:${lineOffset + 1}` : ''}: empty input (expected a JSON document)`)
  }
  const reason = String((e as Error).message)
    .replace(/ (in|after) JSON at position \d+.*$/s, '')
    .replace(/, (".*|\.\.\..*)is not valid JSON$/s, '')
  const at = /at position (\d+)/.exec(String((e as Error).message))
  const offset = at ? Number(at[1]) : errorOffset(body)
  let hint = ''
  if (body.charCodeAt(0) === 0 || body.charCodeAt(1) === 0) hint = ' (NUL bytes: is it UTF-16? convert it to UTF-8)'
  else if (/^unexpected non-whitespace character/i.test(reason) && /^[[{]/.test(body.slice(offset)) && body.lastIndexOf('\n', offset) !== -1) {
    // A second document on a later line: a JSONL file read as one document (never within a line).
    hint = ' (a second JSON document: one conversation per line is read by edit --jsonl)'
  }
  return new CliError(`${where(source, body, offset, lineOffset)}: invalid JSON: ${printable(reason.charAt(0).toLowerCase() + reason.slice(1))}${hint}`)
}

/** An open container of `audit`: an object's keys so far and its current key, or an array's index. */
type Open = { keys: string[] | Set<string>; key: string } | { index: number }

/** Keys compared in a list up to this many, then in a set (most objects have a handful). */
const SMALL_OBJECT = 16

/**
 * One pass over JSON text that `JSON.parse` accepted: the first duplicate key (its offset, key and
 * path), and the [start, end) offsets of the numbers `JSON.parse` cannot give back (when `exact`).
 */
export function audit(
  s: string,
  exact: boolean,
): { duplicate?: { offset: number; key: string; path: string }; lossy: Array<[number, number]>; tiny: Set<number> } {
  const lossy: Array<[number, number]> = []
  // Negative subnormal numbers of the document: no stand-in may equal one.
  const tiny = new Set<number>()
  const stack: Open[] = []
  let expectKey = false
  const n = s.length
  let i = 0
  while (i < n) {
    const c = s.charCodeAt(i)
    if (c === 34) {
      const end = stringEnd(s, i)
      if (expectKey) {
        expectKey = false
        const raw = s.slice(i + 1, end)
        const key: string = raw.includes('\\') ? JSON.parse(s.slice(i, end + 1)) : raw
        const top = stack[stack.length - 1] as { keys: string[] | Set<string>; key: string }
        if (Array.isArray(top.keys)) {
          if (top.keys.includes(key)) return { duplicate: { offset: i, key, path: pathOf(stack.slice(0, -1)) }, lossy, tiny }
          top.keys.push(key)
          if (top.keys.length > SMALL_OBJECT) top.keys = new Set(top.keys)
        } else {
          if (top.keys.has(key)) return { duplicate: { offset: i, key, path: pathOf(stack.slice(0, -1)) }, lossy, tiny }
          top.keys.add(key)
        }
        top.key = key
      }
      i = end + 1
      continue
    }
    if (c === 123) {
      stack.push({ keys: [], key: '' })
      expectKey = true
    } else if (c === 91) {
      stack.push({ index: 0 })
    } else if (c === 125 || c === 93) {
      stack.pop()
      expectKey = false
    } else if (c === 44) {
      const top = stack[stack.length - 1]
      if ('index' in top) top.index++
      else expectKey = true
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let j = i + 1
      while (j < n && isNumberChar(s.charCodeAt(j))) j++
      if (exact) {
        if (!isExact(s, i, j)) lossy.push([i, j])
        else if (c === 45) {
          // A negative number written with a fraction or an exponent may be subnormal.
          const text = s.slice(i, j)
          if (/[.eE]/.test(text)) {
            const v = Number(text)
            if (v > -2.2250738585072014e-308) tiny.add(v)
          }
        }
      }
      i = j
      continue
    }
    i++
  }
  return { lossy, tiny }
}

/** `messages[3].content` for the containers open around a key (the first 20 and last 10 levels). */
function pathOf(stack: readonly Open[]): string {
  if (stack.length > 30) return `${pathOf(stack.slice(0, 20))}…(${stack.length - 30} levels)…${pathOf(stack.slice(-10)).replace(/^(?=\w)/, '.')}`
  let path = ''
  for (const o of stack) {
    if ('index' in o) path += `[${o.index}]`
    else path += /^[A-Za-z_$][\w$]*$/.test(o.key) ? `${path ? '.' : ''}${o.key}` : `[${JSON.stringify(o.key)}]`
  }
  return printable(path)
}

/** Whether the number `s[start, end)` reads back as the same decimal value through a double. */
function isExact(s: string, start: number, end: number): boolean {
  const neg = s.charCodeAt(start) === 45
  // Integers of up to 15 digits are exact (but `-0` is not: it is written back as `0`).
  if (end - start - (neg ? 1 : 0) <= 15) {
    let digits = true
    for (let k = neg ? start + 1 : start; k < end; k++) {
      const d = s.charCodeAt(k)
      if (d < 48 || d > 57) {
        digits = false
        break
      }
    }
    if (digits) return !(neg && s.charCodeAt(start + 1) === 48)
  }
  const text = s.slice(start, end)
  const v = Number(text)
  if (!Number.isFinite(v) || Object.is(v, -0)) return false
  return decimal(text) === decimal(String(v))
}

/** A number's decimal value, normalised: significant digits and exponent (`1.50e2` → `15e3`… as `15 3`). */
function decimal(text: string): string {
  const m = /^-?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)
  if (!m) return text
  let digits = m[1] + (m[2] ?? '')
  let exp = Number(m[3] ?? 0) + m[1].length
  let lead = 0
  while (lead < digits.length && digits.charCodeAt(lead) === 48) lead++
  digits = digits.slice(lead)
  exp -= lead
  let last = digits.length
  while (last > 0 && digits.charCodeAt(last - 1) === 48) last--
  digits = digits.slice(0, last)
  return digits === '' ? '0' : `${digits} ${exp}`
}

/**
 * Offset of the first syntax error, for the messages of `JSON.parse` that name no position. A small
 * scanner with an explicit stack (a recursive one overflowed on `[` x 200,000 and reported 1:1); it
 * only runs after `JSON.parse` has failed.
 */
export function errorOffset(s: string): number {
  return Math.min(new SyntaxScanner(s).firstError(), s.length)
}

/** The scanner of `errorOffset`: each method reads one piece of JSON at `i` and says if it was valid. */
class SyntaxScanner {
  i = 0

  constructor(private readonly s: string) {}

  /** Offset of the first syntax error (of the end when there is none). */
  firstError(): number {
    const s = this.s
    // Open containers, innermost last: ']' for an array, '}' for an object.
    const open: string[] = []
    let expectValue = true
    for (;;) {
      this.ws()
      if (expectValue) {
        const next = this.value(open)
        if (next === undefined) return this.i
        expectValue = next
        continue
      }
      const close = open[open.length - 1]
      if (close === undefined) return this.i // trailing text (or none: no error found)
      if (s[this.i] === ',') {
        this.i++
        if (close === '}' && !this.key()) return this.i
        expectValue = true
        continue
      }
      if (s[this.i] !== close) return this.i
      this.i++
      open.pop()
    }
  }

  /**
   * A value: a scalar is read whole (then `false`: no value expected next); a container is opened,
   * with the key of an object's first member (then `true`, unless it is empty). `undefined` at an error.
   */
  private value(open: string[]): boolean | undefined {
    const c = this.s[this.i]
    if (c === '[' || c === '{') {
      const close = c === '[' ? ']' : '}'
      this.i++
      this.ws()
      if (this.s[this.i] === close) {
        this.i++
        return false
      }
      open.push(close)
      return close === '}' && !this.key() ? undefined : true
    }
    const ok =
      c === '"' ? this.string() : c === 't' ? this.literal('true') : c === 'f' ? this.literal('false') : c === 'n' ? this.literal('null') : this.number()
    return ok ? false : undefined
  }

  private ws(): void {
    const s = this.s
    while (this.i < s.length && (s[this.i] === ' ' || s[this.i] === '\t' || s[this.i] === '\n' || s[this.i] === '\r')) this.i++
  }

  private digits(): boolean {
    const from = this.i
    while (this.i < this.s.length && this.s.charCodeAt(this.i) >= 48 && this.s.charCodeAt(this.i) <= 57) this.i++
    return this.i > from
  }

  /** A string at `i` (the opening quote); false at the first invalid character. */
  private string(): boolean {
    const s = this.s
    this.i++
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i)
      if (c === 34) {
        this.i++
        return true
      }
      if (c < 0x20) return false
      if (c === 92) {
        this.i++
        const e = s[this.i]
        if (e === 'u') {
          for (let k = 0; k < 4; k++) {
            this.i++
            if (!/[0-9a-fA-F]/.test(s[this.i] ?? '')) return false
          }
        } else if (!e || !'"\\/bfnrt'.includes(e)) return false
      }
      this.i++
    }
    return false
  }

  private literal(word: string): boolean {
    for (let k = 0; k < word.length; k++, this.i++) if (this.s[this.i] !== word[k]) return false
    return true
  }

  private number(): boolean {
    const s = this.s
    if (s[this.i] === '-') this.i++
    if (s[this.i] === '0') this.i++
    else if (!this.digits()) return false
    if (s[this.i] === '.') {
      this.i++
      if (!this.digits()) return false
    }
    if (s[this.i] === 'e' || s[this.i] === 'E') {
      this.i++
      if (s[this.i] === '+' || s[this.i] === '-') this.i++
      if (!this.digits()) return false
    }
    return true
  }

  /** `"key":` of an object member. */
  private key(): boolean {
    this.ws()
    if (this.s[this.i] !== '"' || !this.string()) return false
    this.ws()
    if (this.s[this.i] !== ':') return false
    this.i++
    return true
  }
}
