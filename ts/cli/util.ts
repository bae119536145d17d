// Small helpers of the command: errors with exit codes, number formatting, input and output.

import { constants, isUtf8 } from 'node:buffer'
import { createReadStream, fstatSync, promises as fs } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import type { Readable } from 'node:stream'

/** Exit codes of the command. */
export const EXIT_OK = 0
/** A runtime failure: an I/O error, a bug. */
export const EXIT_FAILURE = 1
/** Bad usage or invalid input: unknown command or flag, invalid JSON, options or messages. */
export const EXIT_USAGE = 2
/** `--jsonl --keep-going`: some lines failed and were skipped; every other line was written. */
export const EXIT_PARTIAL = 3

/** An error the command reports as one line on stderr, exiting with `exitCode`. */
export class CliError extends Error {
  override name = 'CliError'
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USAGE,
    readonly hint?: string,
  ) {
    super(message)
  }
}

/** `12,345` */
export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

/** `12.3%` (one decimal below 10%, none above). */
export function fmtPct(part: number, whole: number): string {
  if (!whole) return '-'
  const p = (100 * part) / whole
  return p < 10 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`
}

/** `−63%` change from `before` to `after`. */
export function fmtDelta(before: number, after: number): string {
  if (!before) return '±0%'
  const d = Math.round((100 * (after - before)) / before)
  return d === 0 ? '±0%' : d < 0 ? `−${-d}%` : `+${d}%`
}

/** `412 KB` */
export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`
  return `${(n / 1024 / 1024).toFixed(1)} MB`
}

/** Display name of an input (`-` is stdin). */
export function sourceName(file: string): string {
  return file === '-' ? '<stdin>' : file
}

/** The longest string V8 can hold: a whole-document input must fit in one. */
const MAX_STRING = constants.MAX_STRING_LENGTH

function tooLarge(file: string, bytes: number, atLeast = false): CliError {
  return new CliError(
    `${printable(sourceName(file))}: ${atLeast ? `more than ${fmtBytes(bytes)}, which` : fmtBytes(bytes)} is more than one JSON document can be here (${fmtBytes(MAX_STRING)}, the longest string Node.js holds)`,
    EXIT_USAGE,
    'for a dataset, put one conversation per line and use --jsonl',
  )
}

/**
 * Text as it is shown on a terminal: control characters (ESC, CR, newlines, C1), the Unicode line
 * separators and the bidirectional overrides are escaped. Error messages and tables quote input
 * (file names, tool names, ids): raw, an escape sequence in a tool name could rewrite the screen,
 * and a newline in a file name would split the one-line error.
 */
export function printable(s: string): string {
  // oxlint-disable-next-line no-control-regex -- control characters are what this replaces
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => {
    if (c === '\n') return '\\n'
    if (c === '\r') return '\\r'
    if (c === '\t') return '\\t'
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
}

/** Characters of the longest error line: the input may be quoted in it (a 100 KB role name). */
const LONGEST_MESSAGE = 1000

/**
 * `printable(s)`, shortened in the middle to LONGEST_MESSAGE characters: the start names the file
 * and the place, the end says what is wrong, the middle is the quoted input.
 */
export function shown(s: string): string {
  const p = printable(s)
  if (p.length <= LONGEST_MESSAGE) return p
  const head = p.slice(0, 600)
  const tail = p.slice(p.length - 300)
  return `${head}…(${fmtInt(p.length - head.length - tail.length)} characters)…${tail}`
}

/** Offset of the first byte of `buf` that does not belong to well-formed UTF-8, or -1. */
export function invalidUtf8At(buf: Uint8Array): number {
  const n = buf.length
  for (let i = 0; i < n;) {
    const b = buf[i]
    if (b < 0x80) {
      i++
      continue
    }
    const len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0
    if (len === 0 || i + len > n) return i
    for (let k = 1; k < len; k++) if ((buf[i + k] & 0xc0) !== 0x80) return i
    if (len === 3) {
      const cp = ((b & 0x0f) << 12) | ((buf[i + 1] & 0x3f) << 6) | (buf[i + 2] & 0x3f)
      // Overlong, or a UTF-16 surrogate (CESU-8): not UTF-8.
      if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) return i
    } else if (len === 4) {
      const cp = ((b & 0x07) << 18) | ((buf[i + 1] & 0x3f) << 12) | ((buf[i + 2] & 0x3f) << 6) | (buf[i + 3] & 0x3f)
      if (cp < 0x10000 || cp > 0x10ffff) return i
    }
    i += len
  }
  return -1
}

/**
 * The text of `buf`, which must be UTF-8: decoding anything else would replace bytes by U+FFFD and
 * write the changed text back without a word. `source` names it; `lineOffset` shifts line numbers
 * (a JSONL line). A UTF-8 byte order mark is allowed (and dropped by the JSON parser).
 */
export function utf8Text(buf: Buffer, source: string, lineOffset = 0): string {
  if (isUtf8(buf)) return buf.toString('utf8')
  const at = Math.max(0, invalidUtf8At(buf))
  let line = 1
  let start = 0
  for (let nl = buf.indexOf(10); nl !== -1 && nl < at; nl = buf.indexOf(10, nl + 1)) {
    line++
    start = nl + 1
  }
  if (start === 0 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start = 3
  const column = buf.toString('utf8', start, at).length + 1
  const utf16 = (buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff)
  return fail(
    `${source}:${line + lineOffset}:${column}: not UTF-8 text (byte 0x${buf[at].toString(16).toUpperCase().padStart(2, '0')})` +
      (utf16 ? ': it starts with a UTF-16 byte order mark; convert it to UTF-8 (e.g. iconv -f UTF-16 -t UTF-8)' : ': the input must be UTF-8'),
  )
}

function fail(message: string): never {
  throw new CliError(message)
}

/** Bytes of a read (not a regular file: stdin, a FIFO, a device): it may never end, so it is bounded. */
const READ_CHUNK = 1 << 20

/** Reads a stream-like input to its end, failing as soon as it is longer than the longest string. */
async function readBounded(file: string, read: (buf: Buffer) => Promise<number>): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  // One buffer for the reads, each copied out at its own size: a FIFO fed a line at a time returns
  // a few bytes per read, and keeping a slice of a fresh 1 MB buffer for each held 1 MB per line.
  const buf = Buffer.allocUnsafe(READ_CHUNK)
  for (;;) {
    const n = await read(buf)
    if (n === 0) break
    size += n
    if (size > MAX_STRING) throw tooLarge(file, MAX_STRING, true)
    chunks.push(Buffer.from(buf.subarray(0, n)))
  }
  return Buffer.concat(chunks, size)
}

/**
 * Reads a whole input file, or stdin for `-`, as UTF-8 text. A missing file is a usage error; so is
 * an input larger than the longest string (a regular file is checked before it is read; stdin, a
 * FIFO or a device such as /dev/zero as soon as it has sent that much).
 */
export async function readInput(file: string): Promise<string> {
  const source = printable(sourceName(file))
  if (file === '-') {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of process.stdin) {
      size += (chunk as Buffer).length
      if (size > MAX_STRING) throw tooLarge(file, MAX_STRING, true)
      chunks.push(chunk as Buffer)
    }
    return utf8Text(Buffer.concat(chunks, size), source)
  }
  let handle: FileHandle | undefined
  let data: Buffer
  try {
    handle = await fs.open(file, 'r')
    const st = await handle.stat()
    if (st.isDirectory()) throw new CliError(`${source}: is a directory (expected a file or -)`)
    if (st.isFile()) {
      if (st.size > MAX_STRING) throw tooLarge(file, st.size)
      data = await handle.readFile()
      if (data.length > MAX_STRING) throw tooLarge(file, data.length)
    } else {
      const h = handle
      data = await readBounded(file, async (buf) => (await h.read(buf, 0, buf.length, null)).bytesRead)
    }
  } catch (e) {
    throw ioError(e, file)
  } finally {
    await handle?.close().catch(() => {})
  }
  return utf8Text(data, source)
}

/** What identifies a file: its device and inode. */
export interface FileId {
  dev: number
  ino: number
  /** Its size when it was looked at. */
  size?: number
}

/** The regular file open as descriptor `fd` (stdin redirected from a file), if it is one. */
export function fileOfDescriptor(fd: number): FileId | undefined {
  try {
    const st = fstatSync(fd)
    return st.isFile() ? { dev: st.dev, ino: st.ino, size: st.size } : undefined
  } catch {
    return undefined
  }
}

/** Opens an input for streaming (stdin for `-`), after checking that it exists. */
export async function openInput(file: string): Promise<{ stream: Readable; size?: number; id?: FileId }> {
  if (file === '-') return { stream: process.stdin, id: fileOfDescriptor(0) }
  let st
  try {
    st = await fs.stat(file)
    if (st.isDirectory()) throw new CliError(`${printable(file)}: is a directory (expected a file or -)`)
  } catch (e) {
    throw ioError(e, file)
  }
  // Large reads: a dataset is read once, front to back.
  return { stream: createReadStream(file, { highWaterMark: 1 << 20 }), size: st.size, id: { dev: st.dev, ino: st.ino } }
}

const READ_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'too many levels of symbolic links',
  ENOTDIR: 'a part of the path is not a directory',
  ENAMETOOLONG: 'file name too long',
  EIO: 'input/output error',
  ENXIO: 'no such device or address',
}

/** A failure to read input `file`, named: a missing file or a directory is a usage error, the rest exit 1. */
export function ioError(e: unknown, file: string): CliError {
  if (e instanceof CliError) return e
  const err = e as NodeJS.ErrnoException
  const name = printable(sourceName(file))
  if (err?.code === 'ENOENT') return new CliError(`${name}: no such file`)
  if (err?.code === 'EISDIR') return new CliError(`${name}: is a directory (expected a file or -)`)
  if (err?.code === 'ENOTDIR') return new CliError(`${name}: no such file (a part of the path is not a directory)`)
  const reason = (typeof err?.code === 'string' && Object.hasOwn(READ_REASONS, err.code) && READ_REASONS[err.code]) || String(err?.message ?? e)
  return new CliError(`${name}: cannot read: ${printable(reason)}${typeof err?.code === 'string' ? ` (${err.code})` : ''}`, EXIT_FAILURE)
}
