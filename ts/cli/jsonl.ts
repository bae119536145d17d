// `edit --jsonl`: one conversation per line, streamed in and out.

import { createInterface } from 'node:readline'
import { ContextEditorError } from '../errors.js'
import { toConversation } from './formats.js'
import { parseJson } from './json.js'
import { type Setup, editConversation } from './session.js'
import { CliError, EXIT_OK, fmtDelta, fmtInt, openInput, openOutput, sourceName, writeChunk } from './util.js'

/** Streams `file` line by line through the editor; returns the exit code. */
export async function runJsonl(file: string, output: string | undefined, setup: Setup, report: 'text' | 'json' | 'none'): Promise<number> {
  const source = sourceName(file)
  const { stream, size } = await openInput(file)
  const out = await openOutput(output)
  const started = process.hrtime.bigint()
  const progress = process.stderr.isTTY === true && report !== 'none'
  let lineNo = 0
  let conversations = 0
  let triggered = 0
  let tokensBefore = 0
  let tokensAfter = 0
  let messagesBefore = 0
  let messagesAfter = 0
  let bytes = 0
  let lastDraw = 0
  const draw = (final = false) => {
    const now = Date.now()
    if (!progress || (!final && now - lastDraw < 100)) return
    lastDraw = now
    const width = 30
    const frac = size ? Math.min(1, bytes / size) : undefined
    const bar = frac === undefined ? '' : `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ${Math.round(frac * 100)}% `
    process.stderr.write(`\r${bar}${fmtInt(conversations)} conversations, ${fmtInt(tokensBefore)} → ${fmtInt(tokensAfter)} tokens\x1b[K`)
  }
  try {
    const lines = createInterface({ input: stream, crlfDelay: Infinity })
    for await (const line of lines) {
      lineNo++
      bytes += Buffer.byteLength(line) + 1
      if (line.trim() === '') {
        await writeChunk(out.stream, '\n')
        continue
      }
      const doc = parseJson(line, source, lineNo - 1)
      let result
      let conv
      try {
        conv = toConversation(doc, setup.format, `${source}:${lineNo}`, setup.placeholders)
        result = editConversation(conv, setup)
      } catch (e) {
        if (e instanceof ContextEditorError && e.code !== 'INTERNAL') throw new CliError(`${source}:${lineNo}: ${e.message}`)
        throw e
      }
      const r = result.report
      conversations++
      if (r.triggered) triggered++
      tokensBefore += r.tokensBefore
      tokensAfter += r.tokensAfter
      messagesBefore += r.messagesBefore
      messagesAfter += r.messagesAfter
      await writeChunk(out.stream, `${JSON.stringify(result.output)}\n`)
      draw()
    }
    await out.close()
  } catch (e) {
    if (progress) process.stderr.write('\r\x1b[K')
    await out.abort()
    throw e
  }
  if (progress) process.stderr.write('\r\x1b[K')
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const summary = { conversations, triggered, tokensBefore, tokensAfter, messagesBefore, messagesAfter, seconds: Number(seconds.toFixed(3)) }
  if (report === 'json') process.stderr.write(`${JSON.stringify(summary)}\n`)
  else if (report === 'text') {
    process.stderr.write(
      `context-editor: ${fmtInt(conversations)} conversations (${fmtInt(triggered)} triggered) · ` +
        `tokens ${fmtInt(tokensBefore)} → ${fmtInt(tokensAfter)} (${fmtDelta(tokensBefore, tokensAfter)}) · ` +
        `messages ${fmtInt(messagesBefore)} → ${fmtInt(messagesAfter)} · ${seconds.toFixed(2)} s\n`,
    )
  }
  return EXIT_OK
}
