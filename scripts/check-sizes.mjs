// `npm run lint` step: keeps files and functions short enough to read (issue 15).
//
// - No hand-written source file over 600 lines: the TS shim, the binding, the core and its tests,
//   the fuzz targets, the CLI tools, the JS specs and their support, the scripts and benchmarks.
//   Generated files (the napi-rs loaders, the WebAssembly glue, ts/generated/) are not checked.
// - No TypeScript function over 80 lines of code in `ts/` (blank and comment-only lines not
//   counted, as clippy's `too_many_lines` counts them; a function's nested closures count towards
//   it). Rust functions are clippy's job: `too-many-lines-threshold = 80` with pedantic lints on, and
//   each `#[allow(clippy::too_many_lines)]` carries its reason beside it.
//
// Exceptions live in scripts/size-allowlist.txt, one a line, each with its reason:
//   <path>: <reason>                 a file allowed over 600 lines
//   <path> <function>: <reason>      a function allowed over 80 lines (names as this script prints them)
// An entry that no longer exceeds its limit is an error too, so the list only shrinks.
//
// Usage: node scripts/check-sizes.mjs [--list] [--root DIR]   (--list prints every file and function
// over half its limit, largest first, and exits 0; --root checks another git work tree).
import { readFileSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const MAX_FILE_LINES = 600
const MAX_FUNCTION_LINES = 80
const rootFlag = process.argv.indexOf('--root')
const root = rootFlag > 0 ? process.argv[rootFlag + 1] : join(dirname(fileURLToPath(import.meta.url)), '..')
const ALLOWLIST = 'scripts/size-allowlist.txt'

/** Tracked and untracked (not ignored) files under the checked folders; deleted ones skipped. */
function sourceFiles() {
  const patterns = ['ts', 'src', 'crates', 'fuzz/src', 'fuzz/fuzz_targets', 'tools', '__test__', 'scripts', 'benchmark', 'bin', 'examples', 'data']
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...patterns], { cwd: root, encoding: 'utf8' })
  const files = [...new Set(out.split('\n').filter(Boolean))]
  const generated = (f) => f.endsWith('.d.ts') || f.endsWith('.d.cts') || f.startsWith('ts/generated/')
  return files.filter((f) => /\.(rs|ts|mts|cts|js|mjs|cjs)$/.test(f) && !generated(f) && read(f) !== undefined)
}

function read(file) {
  try {
    return readFileSync(join(root, file), 'utf8')
  } catch {
    return undefined // listed by git but deleted in the working tree
  }
}

function lineCount(text) {
  if (text.length === 0) return 0
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
}

/** Marks the 0-based lines of `source` that hold code (any token; comments and JSDoc are trivia). */
function codeLines(source) {
  const lines = new Uint8Array(source.getLineStarts().length)
  const visit = (node) => {
    if (ts.isJSDoc(node) || node.kind === ts.SyntaxKind.EndOfFileToken) return
    const children = node.getChildren(source)
    if (children.length > 0) return children.forEach(visit)
    // A leaf: a token, an identifier or a literal (a template or string may span lines).
    const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
    const last = source.getLineAndCharacterOfPosition(Math.max(node.getStart(source), node.end - 1)).line
    for (let l = first; l <= last; l++) lines[l] = 1
  }
  visit(source)
  return lines
}

/** A readable name for a function node: `Class.method`, `name`, `outer.(callback)`. */
function functionName(node) {
  const own = (n) => {
    if (n.name && ts.isIdentifier(n.name)) return n.name.text
    if (n.name && (ts.isStringLiteral(n.name) || ts.isPrivateIdentifier(n.name))) return n.name.text
    if (ts.isConstructorDeclaration(n)) return 'constructor'
    const p = n.parent
    if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text
    if (p && ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) return p.name.text
    if (p && ts.isPropertyDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text
    return '(callback)'
  }
  const parts = [own(node)]
  for (let p = node.parent; p; p = p.parent) {
    if (ts.isClassLike(p)) parts.unshift(p.name?.text ?? '(class)')
    else if (ts.isFunctionLike(p) && !ts.isFunctionTypeNode(p) && p.body) parts.unshift(own(p))
  }
  return parts.join('.')
}

/** Functions of a TS/JS file with more than `limit` code lines, as { name, line, lines }. */
function longFunctions(file, text, limit) {
  const kind = file.endsWith('.ts') || file.endsWith('.mts') || file.endsWith('.cts') ? ts.ScriptKind.TS : ts.ScriptKind.JS
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind)
  const code = codeLines(source)
  const found = []
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const last = source.getLineAndCharacterOfPosition(node.end).line
      let lines = 0
      for (let l = first; l <= last; l++) lines += code[l]
      if (lines > limit) found.push({ name: functionName(node), line: first + 1, lines })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

function readAllowlist() {
  const entries = new Map()
  const problems = []
  const text = read(ALLOWLIST) ?? ''
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim()
    if (!line || line.startsWith('#')) return
    const colon = line.indexOf(': ')
    const key = colon < 0 ? line : line.slice(0, colon).trim().replace(/\s+/, ' ')
    const reason = colon < 0 ? '' : line.slice(colon + 2).trim()
    if (!reason) problems.push(`${ALLOWLIST}:${i + 1}: entry without a reason (write "<path>[ <function>]: <reason>")`)
    entries.set(key, { line: i + 1, used: false })
  })
  return { entries, problems }
}

const list = process.argv.includes('--list')
const { entries, problems } = readAllowlist()
const report = []
for (const file of sourceFiles()) {
  const text = read(file)
  const lines = lineCount(text)
  if (list && lines > MAX_FILE_LINES / 2) report.push([lines, `${file} (${lines} lines)`])
  if (lines > MAX_FILE_LINES) {
    const entry = entries.get(file)
    if (entry) entry.used = true
    else problems.push(`${file}: ${lines} lines, over ${MAX_FILE_LINES}: split it along its seams, or add "${file}: <reason>" to ${ALLOWLIST}`)
  }
  if (!file.startsWith('ts/') || !/\.(ts|mts|cts)$/.test(file)) continue
  for (const f of longFunctions(file, text, list ? MAX_FUNCTION_LINES / 2 : MAX_FUNCTION_LINES)) {
    if (list) report.push([f.lines, `${file}:${f.line} ${f.name} (${f.lines} code lines)`])
    if (f.lines <= MAX_FUNCTION_LINES) continue
    const key = `${file} ${f.name}`
    const entry = entries.get(key)
    if (entry) entry.used = true
    else
      problems.push(
        `${file}:${f.line}: function ${f.name} has ${f.lines} code lines, over ${MAX_FUNCTION_LINES}: break it into named steps, or add "${key}: <reason>" to ${ALLOWLIST}`,
      )
  }
}
for (const [key, entry] of entries) {
  if (!entry.used) problems.push(`${ALLOWLIST}:${entry.line}: "${key}" is within its limit now (or gone): remove the entry`)
}
if (list) {
  for (const [, line] of report.sort((a, b) => b[0] - a[0])) console.log(line)
  process.exit(0)
}
if (problems.length) {
  for (const p of problems) console.error(p)
  process.exit(1)
}
