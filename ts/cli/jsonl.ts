// `edit --jsonl`: one conversation per line, streamed in and out.

import { ContextEditorError } from '../errors.js'
import { toConversation } from './formats.js'
import { type ExactNumbers, parseDocument } from './json.js'
import { type Line, MAX_STRING, readLines } from './lines.js'
import { type Output, openOutput, refuseOutputOntoInput } from './output.js'
import { writeJson } from './serialize.js'
import { type Edited, type Setup, editConversation } from './session.js'
import {
  CliError,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_PARTIAL,
  EXIT_USAGE,
  fmtDelta,
  fmtInt,
  ioError,
  openInput,
  printable,
  shown,
  sourceName,
  utf8Text,
} from './util.js'

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
  const run = new JsonlRun(source, size, report, options.keepGoing)
  let inPlaceRefused = false
  try {
    for await (const line of readingErrors(readLines(stream, options.maxLineBytes, !options.keepGoing), file)) {
      await editLine(line, run, out, setup, options.maxLineBytes)
    }
    // Replacing the input without its failed lines would lose them: report them all, change nothing.
    inPlaceRefused = run.failed > 0 && id !== undefined && out.replaces?.dev === id.dev && out.replaces?.ino === id.ino
    if (inPlaceRefused) await out.abort()
    else await out.close()
  } catch (e) {
    run.clearProgress()
    await out.abort()
    throw e
  }
  run.clearProgress()
  writeSummary(run, report, Number(process.hrtime.bigint() - started) / 1e9, options.keepGoing, inPlaceRefused)
  if (inPlaceRefused) {
    const failed = run.failed
    throw new CliError(
      `${fmtInt(failed)} line${failed === 1 ? '' : 's'} failed; ${out.name} is the input itself, so it was left unchanged rather than lose ${failed === 1 ? 'it' : 'them'}`,
      EXIT_USAGE,
      'write the output to another file (-o OTHER) to keep the good lines, or fix the lines listed',
    )
  }
  return run.failed ? EXIT_PARTIAL : EXIT_OK
}

/** One edited conversation's figures, as the run adds them up. */
type Figures = Pick<Edited['report'], 'triggered' | 'tokensBefore' | 'tokensAfter' | 'messagesBefore' | 'messagesAfter'>

/** The totals, the failures and the progress line (on a terminal) of one `--jsonl` run. */
class JsonlRun {
  conversations = 0
  triggered = 0
  tokensBefore = 0
  tokensAfter = 0
  messagesBefore = 0
  messagesAfter = 0
  /** Bytes read so far, for the progress bar. */
  bytes = 0
  failed = 0
  readonly failures: Failure[] = []
  private readonly progress: boolean
  private lastDraw = 0

  constructor(
    readonly source: string,
    private readonly size: number | undefined,
    private readonly report: 'text' | 'json' | 'none',
    private readonly keepGoing: boolean,
  ) {
    this.progress = process.stderr.isTTY === true && report !== 'none'
  }

  add(r: Figures): void {
    this.conversations++
    if (r.triggered) this.triggered++
    this.tokensBefore += r.tokensBefore
    this.tokensAfter += r.tokensAfter
    this.messagesBefore += r.messagesBefore
    this.messagesAfter += r.messagesAfter
  }

  /** Redraws the progress line, at most every 100 ms. */
  draw(): void {
    const now = Date.now()
    if (!this.progress || now - this.lastDraw < 100) return
    this.lastDraw = now
    const width = 30
    const frac = this.size ? Math.min(1, this.bytes / this.size) : undefined
    const bar = frac === undefined ? '' : `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ${Math.round(frac * 100)}% `
    process.stderr.write(`\r${bar}${fmtInt(this.conversations)} conversations, ${fmtInt(this.tokensBefore)} → ${fmtInt(this.tokensAfter)} tokens\x1b[K`)
  }

  clearProgress(): void {
    if (this.progress) process.stderr.write('\r\x1b[K')
  }

  /** A bad line: skipped and reported with --keep-going, else the end of the run. */
  bad(line: number, e: unknown): void {
    const err = lineError(e, this.source, line)
    if (!this.keepGoing) throw err
    this.failed++
    if (this.failures.length < LISTED_FAILURES) this.failures.push(failureOf(shown(err.message), `${this.source}:${line}`, line))
    if (this.report !== 'json') {
      this.clearProgress()
      process.stderr.write(`context-editor: ${shown(err.message)} (skipped)\n`)
    }
  }
}

/** Edits one line into `out` (a blank line stays blank), or hands its failure to `run.bad`. */
async function editLine(line: Line, run: JsonlRun, out: Output, setup: Setup, maxLineBytes: number): Promise<void> {
  run.bytes += line.bytes + 1
  if (line.tooLong) {
    const limit = maxLineBytes === MAX_STRING ? '--max-line-bytes, and the longest string Node.js holds' : '--max-line-bytes'
    const length = line.atLeast ? 'line' : `line of ${fmtInt(line.bytes)} bytes is`
    run.bad(line.no, new CliError(`${run.source}:${line.no}: ${length} longer than ${fmtInt(maxLineBytes)} bytes (${limit})`))
    return
  }
  if (line.notUtf8) {
    try {
      utf8Text(line.notUtf8, run.source, line.no - 1)
    } catch (e) {
      run.bad(line.no, e)
    }
    return
  }
  if (line.text.trim() === '') {
    await out.write('\n')
    return
  }
  let result: Edited
  let numbers: ExactNumbers | undefined
  try {
    const parsed = parseDocument(line.text, run.source, line.no - 1)
    numbers = parsed.numbers
    const conv = toConversation(parsed.value, setup.format, `${run.source}:${line.no}`, setup.placeholders)
    conv.numbers = numbers
    result = editConversation(conv, setup)
  } catch (e) {
    run.bad(line.no, e)
    return
  }
  run.add(result.report)
  await writeJson(out, result.output, undefined, numbers)
  run.draw()
}

/** The run's summary on stderr: one line of text, or a JSON object (`--report json`). */
function writeSummary(run: JsonlRun, report: 'text' | 'json' | 'none', seconds: number, keepGoing: boolean, inPlaceRefused: boolean): void {
  const { conversations, triggered, tokensBefore, tokensAfter, messagesBefore, messagesAfter, failed, failures } = run
  if (report === 'json') {
    const summary: Record<string, unknown> = {
      conversations,
      triggered,
      tokensBefore,
      tokensAfter,
      messagesBefore,
      messagesAfter,
      seconds: Number(seconds.toFixed(3)),
    }
    if (keepGoing) {
      summary.failed = failed
      summary.failures = failures
      if (failed > failures.length) summary.failuresNotListed = failed - failures.length
      summary.written = !inPlaceRefused
    }
    process.stderr.write(`${JSON.stringify(summary)}\n`)
  } else if (report === 'text') {
    process.stderr.write(
      `context-editor: ${fmtInt(conversations)} conversation${conversations === 1 ? '' : 's'} (${fmtInt(triggered)} triggered) · ` +
        `tokens ${fmtInt(tokensBefore)} → ${fmtInt(tokensAfter)} (${fmtDelta(tokensBefore, tokensAfter)}) · ` +
        `messages ${fmtInt(messagesBefore)} → ${fmtInt(messagesAfter)} · ${seconds.toFixed(2)} s` +
        (failed ? ` · ${fmtInt(failed)} line${failed === 1 ? '' : 's'} failed and skipped` : '') +
        '\n',
    )
  }
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
