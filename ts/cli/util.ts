// Small helpers of the command: errors with exit codes, number formatting, input and output.

import { createReadStream, createWriteStream, promises as fs } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import type { Readable, Writable } from 'node:stream'

/** Exit codes of the command. */
export const EXIT_OK = 0
/** A runtime failure: an I/O error, a bug. */
export const EXIT_FAILURE = 1
/** Bad usage or invalid input: unknown command or flag, invalid JSON, options or messages. */
export const EXIT_USAGE = 2

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

/** Reads a whole input file, or stdin for `-`. A missing file is a usage error. */
export async function readInput(file: string): Promise<string> {
  if (file === '-') {
    const chunks: Buffer[] = []
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }
  try {
    return await fs.readFile(file, 'utf8')
  } catch (e) {
    throw ioError(e, file)
  }
}

/** Opens an input for streaming (stdin for `-`), after checking that it exists. */
export async function openInput(file: string): Promise<{ stream: Readable; size?: number }> {
  if (file === '-') return { stream: process.stdin }
  let size: number
  try {
    const st = await fs.stat(file)
    if (st.isDirectory()) throw new CliError(`${file}: is a directory (expected a file or -)`)
    size = st.size
  } catch (e) {
    throw ioError(e, file)
  }
  return { stream: createReadStream(file), size }
}

export function ioError(e: unknown, file: string): CliError {
  if (e instanceof CliError) return e
  const err = e as NodeJS.ErrnoException
  if (err?.code === 'ENOENT') return new CliError(`${file}: no such file`)
  if (err?.code === 'EISDIR') return new CliError(`${file}: is a directory (expected a file or -)`)
  if (err?.code === 'EACCES') return new CliError(`${file}: permission denied`, EXIT_FAILURE)
  return new CliError(`${file}: ${err?.message ?? String(e)}`, EXIT_FAILURE)
}

/** A failure to write the output is a runtime failure (exit 1). */
function outputError(e: unknown, file: string): CliError {
  const err = e as NodeJS.ErrnoException
  const reason = /^E[A-Z]+: ([^,]+)/.exec(String(err?.message))?.[1] ?? String(err?.message ?? e)
  return new CliError(`cannot write ${file}: ${reason}`, EXIT_FAILURE)
}

/**
 * An output sink: stdout, or a file written to a temporary sibling and renamed on `close`, so an
 * interrupted run never leaves a half-written file, and `-o` may name the input itself.
 */
export interface Output {
  stream: Writable
  close(): Promise<void>
  abort(): Promise<void>
}

export async function openOutput(file: string | undefined): Promise<Output> {
  if (file === undefined || file === '-') {
    return {
      stream: process.stdout,
      close: async () => {},
      abort: async () => {},
    }
  }
  const target = resolve(file)
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`)
  const stream = createWriteStream(tmp)
  await new Promise<void>((ok, fail) => {
    stream.once('open', () => ok())
    stream.once('error', (e) => fail(outputError(e, file)))
  })
  return {
    stream,
    async close() {
      await new Promise<void>((ok, fail) => {
        stream.once('error', (e) => fail(outputError(e, file)))
        stream.end(() => ok())
      })
      try {
        await fs.rename(tmp, target)
      } catch (e) {
        await fs.rm(tmp, { force: true })
        throw outputError(e, file)
      }
    },
    async abort() {
      stream.destroy()
      await fs.rm(tmp, { force: true })
    },
  }
}

/** Writes a chunk, waiting for `drain` when the stream's buffer is full. */
export async function writeChunk(stream: Writable, chunk: string): Promise<void> {
  if (!stream.write(chunk)) {
    await new Promise<void>((ok, fail) => {
      const onError = (e: Error) => {
        stream.off('drain', onDrain)
        fail(e)
      }
      const onDrain = () => {
        stream.off('error', onError)
        ok()
      }
      stream.once('drain', onDrain)
      stream.once('error', onError)
    })
  }
}
