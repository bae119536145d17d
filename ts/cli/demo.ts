// `context-editor demo`: inspect and edit the bundled coding-agent session twice, with the default
// options and with a trimming pipeline.

import { promises as fs } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { toConversation } from './formats.js'
import type { Style } from './inspect.js'
import { parseJson } from './json.js'
import { loadOptions, makeEditor, placeholdersOf } from './options.js'
import { inspectLines } from './main.js'
import type { Setup } from './session.js'
import { openOutput, printStdout } from './output.js'
import { EXIT_OK, fmtBytes, printable } from './util.js'

const TRANSCRIPT = new URL('../../data/demo-transcript.json', import.meta.url)
const PIPELINE = new URL('../../data/demo-pipeline.json', import.meta.url)

async function setupFor(config: string | undefined): Promise<Setup> {
  const options = await loadOptions(config)
  return { options, editor: makeEditor(options, config ?? 'defaults'), format: 'auto', placeholders: placeholdersOf(options) }
}

export async function runDemo(style: Style, output: string | undefined): Promise<number> {
  const transcriptPath = fileURLToPath(TRANSCRIPT)
  const pipelinePath = fileURLToPath(PIPELINE)
  const text = await fs.readFile(transcriptPath, 'utf8')
  const doc = parseJson(text, 'data/demo-transcript.json')
  const bold = (s: string) => (style.color ? `\x1b[1m${s}\x1b[0m` : s)
  const out: string[] = []

  const defaults = await setupFor(undefined)
  const conv = toConversation(doc, 'auto', 'data/demo-transcript.json', defaults.placeholders)
  out.push(
    bold('context-editor demo'),
    `A coding agent fixing a flaky rate limiter: ${conv.count} messages, ${fmtBytes(Buffer.byteLength(text))} of JSON, ` +
      `${conv.units.filter((m) => m.role === 'tool').length} tool results (data/demo-transcript.json, an OpenAI chat-completions request).`,
    '',
    bold('1. Default options: clear_tool_uses, trigger at 100,000 tokens, keep the last 3 tool results'),
    `   $ context-editor inspect data/demo-transcript.json --top 8`,
    '',
  )
  const first = inspectLines(conv, defaults, style, 8, 'data/demo-transcript.json')
  out.push(...first.lines, '')

  const pipeline = await setupFor(pipelinePath)
  const conv2 = toConversation(doc, 'auto', 'data/demo-transcript.json', pipeline.placeholders)
  out.push(
    bold('2. A trimming pipeline (data/demo-pipeline.json): truncate, then clear in two steps'),
    '   edit 1: cut every tool result to its first 6,000 characters (todo_write excepted)',
    '   edit 2: at 25% of the window, keep the last 6 results, never clear todo_write, also clear write_file inputs',
    '   edit 3: if still at 16,000 tokens or more, keep only the newest results that fit in 6,000 tokens',
    `   $ context-editor edit data/demo-transcript.json --config data/demo-pipeline.json -o trimmed.json`,
    '',
  )
  const second = inspectLines(conv2, pipeline, style, 0, 'data/demo-transcript.json')
  // The table of every message is long; the demo shows the map and the report of the pipeline.
  const mapStart = second.lines.findIndex((l) => l.includes('context map'))
  out.push(...second.lines.slice(mapStart), '')
  const written = `${JSON.stringify(second.output, null, 2)}\n`
  out.push(
    `edit writes the same request back (model, tools, tool_choice kept): ${fmtBytes(Buffer.byteLength(text))} → ${fmtBytes(Buffer.byteLength(written))}` +
      (output !== undefined ? `, written to ${printable(output)}` : ''),
    '',
    'Try it on your own transcript (JSON array, {messages}, LangChain StoredMessage[], OpenAI or Anthropic request):',
    '  context-editor inspect session.json',
    '  context-editor edit session.json --option keep.messages=5 -o trimmed.json',
    `  context-editor edit sessions.jsonl --jsonl --config options.json -o compacted.jsonl`,
  )
  // Opened before anything is shown: a bad -o (even an empty one) fails the demo, never skipped.
  const o = output === undefined ? undefined : await openOutput(output)
  await printStdout(`${out.join('\n')}\n`)
  if (o) {
    try {
      await o.write(written)
      await o.close()
    } catch (e) {
      await o.abort()
      throw e
    }
  }
  return EXIT_OK
}
