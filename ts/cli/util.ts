// Small helpers of the command: errors with exit codes, number formatting, input and output.

import { constants } from 'node:buffer'
import { createReadStream, promises as fs } from 'node:fs'
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

function tooLarge(file: string, bytes: number): CliError {
  return new CliError(
    `${sourceName(file)}: ${fmtBytes(bytes)} is more than one JSON document can be here (${fmtBytes(MAX_STRING)}, the longest string Node.js holds)`,
    EXIT_USAGE,
    'for a dataset, put one conversation per line and use --jsonl',
  )
}

/**
 * Reads a whole input file, or stdin for `-`. A missing file is a usage error; so is an input
 * larger than the longest string (checked before reading, so it fails at once and cleanly).
 */
export async function readInput(file: string): Promise<string> {
  if (file === '-') {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of process.stdin) {
      size += (chunk as Buffer).length
      if (size > MAX_STRING) throw tooLarge(file, size)
      chunks.push(chunk as Buffer)
    }
    return Buffer.concat(chunks, size).toString('utf8')
  }
  let handle: FileHandle | undefined
  try {
    handle = await fs.open(file, 'r')
    const st = await handle.stat()
    if (st.isDirectory()) throw new CliError(`${file}: is a directory (expected a file or -)`)
    if (st.isFile() && st.size > MAX_STRING) throw tooLarge(file, st.size)
    const data = await handle.readFile()
    if (data.length > MAX_STRING) throw tooLarge(file, data.length)
    return data.toString('utf8')
  } catch (e) {
    throw ioError(e, file)
  } finally {
    await handle?.close().catch(() => {})
  }
}

/** Opens an input for streaming (stdin for `-`), after checking that it exists. */
export async function openInput(file: string): Promise<{ stream: Readable; size?: number; id?: { dev: number; ino: number } }> {
  if (file === '-') return { stream: process.stdin }
  let st
  try {
    st = await fs.stat(file)
    if (st.isDirectory()) throw new CliError(`${file}: is a directory (expected a file or -)`)
  } catch (e) {
    throw ioError(e, file)
  }
  // Large reads: a dataset is read once, front to back.
  return { stream: createReadStream(file, { highWaterMark: 1 << 20 }), size: st.size, id: { dev: st.dev, ino: st.ino } }
}

export function ioError(e: unknown, file: string): CliError {
  if (e instanceof CliError) return e
  const err = e as NodeJS.ErrnoException
  if (err?.code === 'ENOENT') return new CliError(`${file}: no such file`)
  if (err?.code === 'EISDIR') return new CliError(`${file}: is a directory (expected a file or -)`)
  if (err?.code === 'EACCES') return new CliError(`${file}: permission denied`, EXIT_FAILURE)
  return new CliError(`${file}: ${err?.message ?? String(e)}`, EXIT_FAILURE)
}
