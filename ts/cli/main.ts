// `context-editor`: run context edits on your own transcripts, see the context window, and a demo.

import { readFileSync } from 'node:fs'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ContextEditorError } from '../errors.js'
import type { EditReport } from '../native.js'
import type { AnyMessage } from '../wire.js'
import { type Conversation, FORMATS, type Format, toConversation } from './formats.js'
import { HELP } from './help.js'
import { type Style, picture, renderMap, renderReport, renderTable } from './inspect.js'
import { type ExactNumbers, parseDocument } from './json.js'
import { runJsonl } from './jsonl.js'
import { MAX_STRING } from './lines.js'
import { loadOptions, makeEditor, placeholdersOf, triggerThresholds } from './options.js'
import { ignoreFileSizeSignal, inputFile, openOutput, printStdout, refuseOutputOntoInput } from './output.js'
import { writeJson } from './serialize.js'
import { type Setup, contextOf, editConversation, indentOf } from './session.js'
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, fmtInt, printable, readInput, shown, sourceName } from './util.js'

export { EXIT_FAILURE, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE }

const COMMON = {
  config: { type: 'string' },
  option: { type: 'string', multiple: true },
  format: { type: 'string', default: 'auto' },
  'max-input-tokens': { type: 'string' },
  model: { type: 'string' },
  color: { type: 'string', default: 'auto' },
  width: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options']

const COMMANDS = {
  edit: {
    ...COMMON,
    output: { type: 'string', short: 'o' },
    jsonl: { type: 'boolean' },
    'keep-going': { type: 'boolean' },
    'max-line-bytes': { type: 'string' },
    report: { type: 'string', default: 'text' },
  },
  inspect: {
    ...COMMON,
    top: { type: 'string' },
    report: { type: 'string', default: 'text' },
  },
  demo: {
    color: { type: 'string', default: 'auto' },
    width: { type: 'string' },
    output: { type: 'string', short: 'o' },
    help: { type: 'boolean', short: 'h' },
  },
} as const satisfies Record<string, ParseArgsConfig['options']>

type Command = keyof typeof COMMANDS
type Values = Record<string, string | boolean | string[] | undefined>

function version(): string {
  try {
    return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version
  } catch {
    return 'unknown'
  }
}

/** Runs the command line `argv` (without `node` and the script); resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  ignoreFileSizeSignal()
  try {
    return await run(argv)
  } catch (e) {
    return fail(e)
  }
}

function fail(e: unknown): number {
  if (e instanceof CliError) {
    // An empty message: nothing to say (stdout's reader went away, as with `| head`).
    if (e.message) process.stderr.write(`context-editor: ${shown(e.message)}\n${e.hint ? `${shown(e.hint)}\n` : ''}`)
    return e.exitCode
  }
  if (e instanceof ContextEditorError && e.code !== 'INTERNAL') {
    process.stderr.write(`context-editor: ${shown(e.message)}\n`)
    return EXIT_USAGE
  }
  const err = e as Error
  process.stderr.write(`context-editor: ${shown(String(err?.message ?? e))}\n`)
  if (process.env.CONTEXT_EDITOR_DEBUG && err?.stack) process.stderr.write(`${err.stack}\n`)
  return EXIT_FAILURE
}

async function run(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv
  if (first === undefined || first === '--help' || first === '-h') {
    await printStdout(HELP.main)
    return first === undefined ? EXIT_USAGE : EXIT_OK
  }
  if (first === '--version' || first === '-v') {
    await printStdout(`${version()}\n`)
    return EXIT_OK
  }
  if (first === 'help') {
    const topic = rest[0] ?? 'main'
    // Own keys only: `help toString` or `help __proto__` is an unknown command, not Object's.
    if (!Object.hasOwn(HELP, topic)) throw new CliError(`unknown command \`${topic}\``, EXIT_USAGE, 'commands: edit, inspect, demo (see context-editor --help)')
    await printStdout(HELP[topic as keyof typeof HELP])
    return EXIT_OK
  }
  if (!Object.hasOwn(COMMANDS, first)) {
    throw new CliError(
      first.startsWith('-') ? `unknown option \`${first}\` before the command` : `unknown command \`${first}\``,
      EXIT_USAGE,
      'commands: edit, inspect, demo (see context-editor --help)',
    )
  }
  const command = first as Command
  const { values, positionals } = parseCommandArgs(command, rest)
  if (values.help) {
    await printStdout(HELP[command])
    return EXIT_OK
  }
  if (command === 'demo') {
    if (positionals.length) throw new CliError(`demo takes no file (got ${positionals[0]})`, EXIT_USAGE, 'see context-editor demo --help')
    const { runDemo } = await import('./demo.js')
    return runDemo(styleOf(values), values.output as string | undefined)
  }
  const file = theInputFile(command, positionals, values)
  const maxLineBytes = intFlag(values, 'max-line-bytes', 1, MAX_STRING) ?? MAX_STRING
  const setup = await setupOf(values)
  if (command === 'edit') {
    const output = values.output as string | undefined
    if (values.jsonl) return runJsonl(file, output, setup, reportModeOf(values), { keepGoing: values['keep-going'] === true, maxLineBytes })
    return runEdit(file, output, setup, reportModeOf(values))
  }
  return runInspect(file, setup, styleOf(values), intFlag(values, 'top', 0) ?? 0, reportModeOf(values))
}

/** The command's flags and positionals; parseArgs' own errors become usage errors with a hint. */
function parseCommandArgs(command: Command, rest: string[]): { values: Values; positionals: string[] } {
  try {
    const parsed = parseArgs({ args: [...rest], options: COMMANDS[command] as ParseArgsConfig['options'], allowPositionals: true, strict: true, tokens: true })
    refuseRepeated(parsed.tokens, COMMANDS[command] as ParseArgsConfig['options'] & object, command)
    return { values: parsed.values as Values, positionals: parsed.positionals }
  } catch (e) {
    if (e instanceof CliError) throw e
    // parseArgs explains over several lines: the first is the error, the rest a hint.
    const [first, ...more] = String((e as Error).message)
      .replace(/\. To specify a positional argument.*$/s, '')
      .replace(/'(-[^']*)'/g, '`$1`')
      .split('\n')
    const hint = [...more, `see context-editor ${command} --help`].join(' ')
    throw new CliError(first.charAt(0).toLowerCase() + first.slice(1), EXIT_USAGE, hint)
  }
}

/** The one input file of `edit` / `inspect`, checked with the flags that depend on it. */
function theInputFile(command: Command, positionals: string[], values: Values): string {
  if (positionals.length !== 1) {
    throw new CliError(
      positionals.length ? `expected one input file, got ${positionals.length}` : 'missing input file (use - for stdin)',
      EXIT_USAGE,
      `usage: context-editor ${command} <file|-> [options]  (see context-editor ${command} --help)`,
    )
  }
  const file = positionals[0]
  if (file === '') throw new CliError('the input file name is empty (use - for stdin)', EXIT_USAGE)
  if (values.config === '') throw new CliError('--config: the file name is empty', EXIT_USAGE)
  if (isStdin(file) && typeof values.config === 'string' && isStdin(values.config)) {
    throw new CliError(
      `stdin can be read once: it cannot be both the input (${file}) and --config ${values.config}`,
      EXIT_USAGE,
      'put the options in a file, or use --option',
    )
  }
  if (!values.jsonl) {
    for (const flag of ['keep-going', 'max-line-bytes']) {
      if (values[flag] !== undefined) throw new CliError(`--${flag} applies to --jsonl only`, EXIT_USAGE, 'see context-editor edit --help')
    }
  }
  return file
}

/**
 * A flag that takes a value, given twice (`-o a.json -o b.json`), is an error: keeping the last
 * silently wrote somewhere the user did not mean. `--option` is the repeatable one; a repeated
 * boolean flag means the same thing twice and is accepted.
 */
function refuseRepeated(
  tokens: ReadonlyArray<{ kind: string; name?: string; rawName?: string; value?: string }> | undefined,
  options: NonNullable<ParseArgsConfig['options']>,
  command: string,
): void {
  const seen = new Map<string, string>()
  for (const t of tokens ?? []) {
    if (t.kind !== 'option' || t.name === undefined || !Object.hasOwn(options, t.name)) continue
    const spec = options[t.name]
    if (spec.type !== 'string' || spec.multiple) continue
    const given = `${t.rawName ?? `--${t.name}`} ${JSON.stringify(t.value ?? '')}`
    const before = seen.get(t.name)
    if (before !== undefined) {
      throw new CliError(`--${t.name} given twice (${before}, then ${given})`, EXIT_USAGE, `give it once; see context-editor ${command} --help`)
    }
    seen.set(t.name, given)
  }
}

/** `-` and the names of descriptor 0: a pipe behind them can be read only once. */
function isStdin(name: string): boolean {
  return name === '-' || name === '/dev/stdin' || name === '/dev/fd/0' || name === '/proc/self/fd/0'
}

/** An integer flag in `min..max` (a bound keeps an absurd value from allocating or looping for ever). */
function intFlag(values: Values, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = values[name]
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (typeof raw !== 'string' || !/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${fmtInt(max).replace(/,/g, '')}`
    throw new CliError(`--${name}: expected an integer ${range}, got ${JSON.stringify(raw)}`)
  }
  return n
}

async function setupOf(values: Values): Promise<Setup> {
  const format = values.format as string
  if (format !== 'auto' && !FORMATS.includes(format as Format)) {
    throw new CliError(`--format: expected auto, ${FORMATS.join(', ')}; got ${JSON.stringify(format)}`)
  }
  const config = values.config as string | undefined
  const pairs = (values.option as string[] | undefined) ?? []
  const options = await loadOptions(config, pairs)
  const configName = config === undefined ? undefined : sourceName(config)
  const where = configName ? (pairs.length ? `${configName} + --option` : configName) : pairs.length ? '--option' : 'defaults'
  const editor = makeEditor(options, where)
  return {
    options,
    editor,
    format: format as Format | 'auto',
    placeholders: placeholdersOf(options),
    maxInputTokens: intFlag(values, 'max-input-tokens', 1),
    model: values.model as string | undefined,
  }
}

type ReportMode = 'text' | 'json' | 'none'

function reportModeOf(values: Values): ReportMode {
  const r = values.report as string
  if (r !== 'text' && r !== 'json' && r !== 'none') throw new CliError(`--report: expected text, json or none; got ${JSON.stringify(r)}`)
  return r
}

/** Cells of the widest context map (`--width`): one line of a very wide terminal. */
const MAX_WIDTH = 10_000

/** Colours only on a terminal, and never with `NO_COLOR`; `--color always|never` overrides. */
export function styleOf(values: Values): Style {
  const mode = values.color as string
  if (mode !== 'auto' && mode !== 'always' && mode !== 'never') {
    throw new CliError(`--color: expected auto, always or never; got ${JSON.stringify(mode)}`)
  }
  const noColor = process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== ''
  const forced = process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0'
  const color = mode === 'always' || (mode === 'auto' && !noColor && (forced || process.stdout.isTTY === true))
  const columns = process.stdout.isTTY ? process.stdout.columns || 80 : 80
  const width = intFlag(values, 'width', 10, MAX_WIDTH) ?? Math.max(20, Math.min(72, columns - 40))
  return { color, width }
}

async function load(file: string, setup: Setup): Promise<{ text: string; conv: Conversation; numbers?: ExactNumbers }> {
  const text = await readInput(file)
  const source = printable(sourceName(file))
  const { value, numbers } = parseDocument(text, source)
  const conv = toConversation(value, setup.format, source, setup.placeholders)
  conv.numbers = numbers
  return { text, conv, numbers }
}

function withSource(e: unknown, source: string): unknown {
  if (e instanceof ContextEditorError && e.code !== 'INTERNAL') {
    return new CliError(`${source}: ${e.message}`, EXIT_USAGE)
  }
  return e
}

async function runEdit(file: string, output: string | undefined, setup: Setup, report: ReportMode): Promise<number> {
  await refuseOutputOntoInput(output, await inputFile(file), file)
  const { text, conv, numbers } = await load(file, setup)
  const source = printable(sourceName(file))
  let result
  try {
    result = editConversation(conv, setup)
  } catch (e) {
    throw withSource(e, source)
  }
  const out = await openOutput(output)
  try {
    await writeJson(out, result.output, indentOf(text), numbers)
    await out.close()
  } catch (e) {
    await out.abort()
    throw e
  }
  if (report === 'json') process.stderr.write(`${JSON.stringify({ format: conv.format, ...result.report })}\n`)
  else if (report === 'text') {
    const head = `context-editor: ${source} (${conv.format}, ${fmtInt(conv.count)} message${conv.count === 1 ? '' : 's'})${output ? ` → ${printable(output)}` : ''}`
    process.stderr.write(`${[head, ...renderReport(result.report).map((l) => `  ${l}`)].join('\n')}\n`)
  }
  return EXIT_OK
}

/** Table + map + report of one conversation, as lines. */
export function inspectLines(
  conv: Conversation,
  setup: Setup,
  style: Style,
  top: number,
  title: string,
): { lines: string[]; report: EditReport; output: unknown } {
  const ctx = contextOf(conv, setup)
  const { plan, after, output, report } = editConversation(conv, setup)
  const countBefore = setup.editor.countTokens(conv.units, ctx)
  const survivors = after.filter((m): m is AnyMessage => m !== undefined)
  const countAfter = setup.editor.countTokens(survivors, ctx)
  const afterCounts: (number | undefined)[] = []
  let k = 0
  for (const m of after) afterCounts.push(m === undefined ? undefined : countAfter.messages[k++])
  const pic = picture(
    conv,
    after,
    { fixedBefore: countBefore.fixed, before: countBefore.messages, fixedAfter: countAfter.fixed, after: afterCounts },
    plan.report,
    setup.placeholders,
  )
  const window = plan.report.maxInputTokens ?? undefined
  const facts = [
    title,
    conv.format,
    `${fmtInt(conv.count)} message${conv.count === 1 ? '' : 's'}`,
    ctx.model ? `model ${printable(ctx.model)}` : undefined,
    ctx.tools?.length ? `${ctx.tools.length} tool definition${ctx.tools.length === 1 ? '' : 's'}` : undefined,
    ctx.systemPrompt ? 'system prompt' : undefined,
  ].filter(Boolean)
  // Concatenated, not pushed with spread arguments: the table has a row per message, and spreading
  // 200,000 rows into one call overflows the stack.
  const lines = [
    facts.join(' · '),
    '',
    ...renderTable(style, pic.rows, window, top),
    '',
    ...renderMap(style, {
      before: pic.before,
      after: pic.after,
      totalBefore: countBefore.total,
      totalAfter: countAfter.total,
      triggers: triggerThresholds(setup.options, window),
      maxInputTokens: window,
    }),
    '',
    ...renderReport(report, style),
  ]
  return { lines, report, output }
}

async function runInspect(file: string, setup: Setup, style: Style, top: number, report: ReportMode): Promise<number> {
  // `inspect x.json >> x.json` appended a table to the conversation, which then was not JSON.
  await refuseOutputOntoInput(undefined, await inputFile(file), file, true)
  const { conv } = await load(file, setup)
  const source = printable(sourceName(file))
  let res
  try {
    res = inspectLines(conv, setup, style, top, source)
  } catch (e) {
    throw withSource(e, source)
  }
  await printStdout(`${res.lines.join('\n')}\n`)
  if (report === 'json') process.stderr.write(`${JSON.stringify({ format: conv.format, ...res.report })}\n`)
  return EXIT_OK
}
