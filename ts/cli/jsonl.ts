// `edit --jsonl`: one conversation per line, streamed in and out.

import { ContextEditorError } from '../errors.js'
import { toConversation } from './formats.js'
import { type ExactNumbers, parseDocument } from './json.js'
import { MAX_STRING, readLines } from './lines.js'
import { openOutput, refuseOutputOntoInput } from './output.js'
import { writeJson } from './serialize.js'
import { type Setup, editConversation } from './session.js'
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, fmtDelta, fmtInt, ioError, openInput, printable, shown, sourceName, utf8Text } from './util.js'

export interface JsonlOptions {
  /** Report a bad line and go on with the next instead of stopping (exit EXIT_PARTIAL). */
  keepGoing: boolean
  /** Longest line accepted, in bytes (at most MAX_STRING). */
  maxLineBytes: number
}

/** Failures listed in the `--report json` summary; beyond this they are only counted. */
const LISTED_FAILURES = 10_000

/** A line that could not be edited: where (the column of a JSON syntax error) and why. */
interface Failure {
  line: number
  column?: number
  reason: string
}

/** `file:12:34: reason` → `{ line: 12, column: 34, reason }`. */
function failureOf(message: string, where: string, line: number): Failure {
  const rest = message.startsWith(where) ? message.slice(where.length) : `: ${message}`
  const m = /^:(\d+): ([^]*)$/.exec(rest)
  if (m) return { line, column: Number(m[1]), reason: m[2] }
  return { line, reason: rest.replace(/^: /, '') }
}

/** Streams `file` line by line through the editor; returns the exit code. */
export async function runJsonl(
  file: string,
  output: string | undefined,
  setup: Setup,
  report: 'text' | 'json' | 'none',
  options: JsonlOptions = { keepGoing: false, maxLineBytes: MAX_STRING },
): Promise<number> {
  const source = printable(sourceName(file))
  const { stream, size, id } = await openInput(file)
  try {
    await refuseOutputOntoInput(output, id, file)
  } catch (e) {
    stream.destroy()
    throw e
  }
  const out = await openOutput(output)
  const started = process.hrtime.bigint()
  const progress = process.stderr.isTTY === true && report !== 'none'
  let conversations = 0
  let triggered = 0
  let tokensBefore = 0
  let tokensAfter = 0
  let messagesBefore = 0
  let messagesAfter = 0
  let bytes = 0
  let lastDraw = 0
  let failed = 0
  let inPlaceRefused = false
  const failures: Failure[] = []
  const draw = (final = false) => {
    const now = Date.now()
    if (!progress || (!final && now - lastDraw < 100)) return
    lastDraw = now
    const width = 30
    const frac = size ? Math.min(1, bytes / size) : undefined
    const bar = frac === undefined ? '' : `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ${Math.round(frac * 100)}% `
    process.stderr.write(`\r${bar}${fmtInt(conversations)} conversations, ${fmtInt(tokensBefore)} → ${fmtInt(tokensAfter)} tokens\x1b[K`)
  }
  /** A bad line: skipped and reported with --keep-going, else the end of the run. */
  const bad = (line: number, e: unknown) => {
    const err = lineError(e, source, line)
    if (!options.keepGoing) throw err
    failed++
    if (failures.length < LISTED_FAILURES) failures.push(failureOf(shown(err.message), `${source}:${line}`, line))
    if (report !== 'json') {
      if (progress) process.stderr.write('\r\x1b[K')
      process.stderr.write(`context-editor: ${shown(err.message)} (skipped)\n`)
    }
  }
  try {
    for await (const line of readingErrors(readLines(stream, options.maxLineBytes, !options.keepGoing), file)) {
      bytes += line.bytes + 1
      if (line.tooLong) {
        const limit = options.maxLineBytes === MAX_STRING ? '--max-line-bytes, and the longest string Node.js holds' : '--max-line-bytes'
        const length = line.atLeast ? 'line' : `line of ${fmtInt(line.bytes)} bytes is`
        bad(line.no, new CliError(`${source}:${line.no}: ${length} longer than ${fmtInt(options.maxLineBytes)} bytes (${limit})`))
        continue
      }
      if (line.notUtf8) {
        try {
          utf8Text(line.notUtf8, source, line.no - 1)
        } catch (e) {
          bad(line.no, e)
        }
        continue
      }
      if (line.text.trim() === '') {
        await out.write('\n')
        continue
      }
      let result
      let numbers: ExactNumbers | undefined
      try {
        const parsed = parseDocument(line.text, source, line.no - 1)
        numbers = parsed.numbers
        const conv = toConversation(parsed.value, setup.format, `${source}:${line.no}`, setup.placeholders)
        conv.numbers = numbers
        result = editConversation(conv, setup)
      } catch (e) {
        bad(line.no, e)
        continue
      }
      const r = result.report
      conversations++
      if (r.triggered) triggered++
      tokensBefore += r.tokensBefore
      tokensAfter += r.tokensAfter
      messagesBefore += r.messagesBefore
      messagesAfter += r.messagesAfter
      await writeJson(out, result.output, undefined, numbers)
      draw()
    }
    // Replacing the input without its failed lines would lose them: report them all, change nothing.
    inPlaceRefused = failed > 0 && id !== undefined && out.replaces?.dev === id.dev && out.replaces?.ino === id.ino
    if (inPlaceRefused) await out.abort()
    else await out.close()
  } catch (e) {
    if (progress) process.stderr.write('\r\x1b[K')
    await out.abort()
    throw e
  }
  if (progress) process.stderr.write('\r\x1b[K')
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const summary: Record<string, unknown> = {
    conversations,
    triggered,
    tokensBefore,
    tokensAfter,
    messagesBefore,
    messagesAfter,
    seconds: Number(seconds.toFixed(3)),
  }
  if (options.keepGoing) {
    summary.failed = failed
    summary.failures = failures
    if (failed > failures.length) summary.failuresNotListed = failed - failures.length
    summary.written = !inPlaceRefused
  }
  if (report === 'json') process.stderr.write(`${JSON.stringify(summary)}\n`)
  else if (report === 'text') {
    process.stderr.write(
      `context-editor: ${fmtInt(conversations)} conversation${conversations === 1 ? '' : 's'} (${fmtInt(triggered)} triggered) · ` +
        `tokens ${fmtInt(tokensBefore)} → ${fmtInt(tokensAfter)} (${fmtDelta(tokensBefore, tokensAfter)}) · ` +
        `messages ${fmtInt(messagesBefore)} → ${fmtInt(messagesAfter)} · ${seconds.toFixed(2)} s` +
        (failed ? ` · ${fmtInt(failed)} line${failed === 1 ? '' : 's'} failed and skipped` : '') +
        '\n',
    )
  }
  if (inPlaceRefused) {
    throw new CliError(
      `${fmtInt(failed)} line${failed === 1 ? '' : 's'} failed; ${out.name} is the input itself, so it was left unchanged rather than lose ${failed === 1 ? 'it' : 'them'}`,
      EXIT_USAGE,
      'write the output to another file (-o OTHER) to keep the good lines, or fix the lines listed',
    )
  }
  return failed ? EXIT_PARTIAL : EXIT_OK
}

/** The error of one line, named `file:line: …`: invalid input exits 2, anything else 1. */
function lineError(e: unknown, source: string, line: number): CliError {
  const where = `${source}:${line}`
  if (e instanceof CliError) {
    // Errors of the line's JSON and format already name it (`file:line:column`, `file:line: …`).
    return e.message.startsWith(`${where}:`) ? e : new CliError(`${where}: ${e.message}`, e.exitCode, e.hint)
  }
  if (e instanceof ContextEditorError && e.code !== 'INTERNAL') return new CliError(`${where}: ${e.message}`, EXIT_USAGE)
  const message = (e as Error)?.message ?? String(e)
  return new CliError(`${where}: ${e instanceof ContextEditorError ? message : `internal error: ${message}`}`, EXIT_FAILURE)
}

/** The lines, with a failure to read the input (EIO, a directory) reported as the input's. */
async function* readingErrors<T>(lines: AsyncGenerator<T>, file: string): AsyncGenerator<T> {
  for (;;) {
    let next: IteratorResult<T>
    try {
      next = await lines.next()
    } catch (e) {
      throw ioError(e, file)
    }
    if (next.done) return
    yield next.value
  }
}
