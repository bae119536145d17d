// Where the command writes, and how it makes sure that what it wrote is all there.
//
// - stdout (no -o, `-o -`, `-o /dev/stdout`) and `/dev/fd/N`: written to the open descriptor.
// - A device, a FIFO or a socket (`-o /dev/null`, `-o /dev/tty`, a named pipe): opened and written
//   directly; there is nothing to replace.
// - A regular file, existing or not: written to a temporary sibling (a new name, created
//   exclusively, so concurrent runs never share one), every write checked, then fsync, rename over
//   the target, fsync of the directory. The target keeps its mode and owner; a symbolic link is
//   followed to its final target and stays a link. On any failure (ENOSPC, EFBIG, EIO, a signal) the
//   temporary file is deleted and the target is left as it was.

import { randomBytes } from 'node:crypto'
import { type Stats, constants, promises as fs, unlinkSync, write } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import { constants as osConstants } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, type FileId, fileOfDescriptor, printable, sourceName } from './util.js'

/** An output sink. `write` buffers; it returns a promise only when it had to flush. */
export interface Output {
  /** The name the user gave (for messages). */
  readonly name: string
  write(chunk: string): Promise<void> | undefined
  /** Flushes and publishes: once it resolves, the whole output is at its name. */
  close(): Promise<void>
  /** Drops what was written; the target is left as it was. Never throws. */
  abort(): Promise<void>
  /** The existing file this output replaces (device and inode), if any. */
  readonly replaces?: { dev: number; ino: number }
}

/** Bytes gathered before one write(2): large enough to be cheap, small enough to stream. */
const FLUSH_BYTES = 1 << 20

/** Opens the output of a command: stdout for `undefined` or `-`, else the file `file`. */
export async function openOutput(file: string | undefined): Promise<Output> {
  if (file === undefined || file === '-') return fdOutput(1, file ?? '<stdout>')
  const found = await resolveTarget(file)
  const name = printable(file)
  if (found.kind === 'fd') return fdOutput(found.fd, name)
  if (found.kind === 'special') return specialOutput(found.path, name)
  return replacingOutput(found.path, found.stat, name)
}

/**
 * The regular file that output `file` writes through a descriptor (stdout, `/dev/fd/N`), if any.
 * Written there, the output goes into that very file while it is being read when it is the input
 * (`edit x.jsonl --jsonl >> x.jsonl` read its own output for ever, filling the disk).
 */
export async function descriptorFile(file: string | undefined): Promise<FileId | undefined> {
  if (file === undefined || file === '-') return fileOfDescriptor(1)
  const found = await resolveTarget(file)
  return found.kind === 'fd' ? fileOfDescriptor(found.fd) : undefined
}

/**
 * Refuses an output that is the input itself reached through a descriptor (`> in.json`,
 * `>> in.jsonl`, `-o /dev/fd/3`): it is written in place while being read (a JSONL input read its
 * own output for ever), or was already emptied by the shell. `-o in.json` is the way to do it.
 */
export async function refuseOutputOntoInput(output: string | undefined, input: FileId | undefined, file: string, table = false): Promise<void> {
  if (input === undefined) return
  const out = await descriptorFile(output)
  if (out === undefined || out.dev !== input.dev || out.ino !== input.ino) return
  const name = printable(sourceName(file))
  const emptied = out.size === 0
  throw new CliError(
    `the output (${output === undefined ? 'stdout' : printable(output)}) is the input ${name} itself: writing to it while reading it would destroy it`,
    EXIT_USAGE,
    (table
      ? 'inspect writes a table, not the conversation: send it elsewhere'
      : `${file === '-' ? 'name the input file and use -o with the same name' : `use -o ${name}`} to replace the input safely`) +
      (emptied ? ` (${name} is empty now: a shell redirection \`>\` emptied it before the command started)` : ''),
  )
}

/** The file the input names (for `-`, the file stdin was redirected from), if it is a regular file. */
export async function inputFile(file: string): Promise<FileId | undefined> {
  if (file === '-') return fileOfDescriptor(0)
  try {
    const st = await fs.stat(file)
    return st.isFile() ? { dev: st.dev, ino: st.ino } : undefined
  } catch {
    return undefined // reading it reports what is wrong
  }
}

// ---------------------------------------------------------------------------------------------
// The target

type Target = { kind: 'fd'; fd: number } | { kind: 'special'; path: string } | { kind: 'file'; path: string; stat?: Stats }

/** `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`: the descriptor N of this process. */
function descriptorOf(path: string): number | undefined {
  if (path === '/dev/stdout') return 1
  if (path === '/dev/stderr') return 2
  const m = /^\/(?:dev\/fd|proc\/(?:self|thread-self|(\d+))\/fd)\/(\d+)$/.exec(path)
  if (!m || (m[1] !== undefined && Number(m[1]) !== process.pid)) return undefined
  return Number(m[2])
}

/**
 * Follows symbolic links (each one, so a link to a link works, and relative links resolve from
 * their own directory) to what `-o` really names.
 */
async function resolveTarget(file: string): Promise<Target> {
  if (file === '') throw new CliError('-o: the file name is empty', EXIT_USAGE)
  let path = resolve(file)
  // `x/` names a directory (as for the kernel): never the file `x`, new or not.
  let slash = file.endsWith('/')
  for (let hops = 0; hops <= 40; hops++) {
    const fd = descriptorOf(path)
    if (fd !== undefined) return { kind: 'fd', fd }
    let st: Stats
    try {
      st = await fs.lstat(path)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw outputError(e, file)
      if (slash) throw new CliError(`cannot write ${printable(file)}: no such directory (a name ending in / names a directory)`, EXIT_FAILURE)
      // A new file (or a dangling link's target): its directory must exist.
      return { kind: 'file', path: join(await realDir(path, file), basename(path)) }
    }
    if (st.isSymbolicLink()) {
      let link: string
      try {
        link = await fs.readlink(path)
      } catch (e) {
        throw outputError(e, file)
      }
      path = resolve(await realDir(path, file), link)
      slash = slash || link.endsWith('/')
      continue
    }
    if (st.isDirectory()) throw new CliError(`cannot write ${printable(file)}: is a directory`, EXIT_FAILURE)
    if (slash) throw notDirectory(file, path)
    if (!st.isFile()) return { kind: 'special', path }
    return { kind: 'file', path: join(await realDir(path, file), basename(path)), stat: st }
  }
  throw new CliError(`cannot write ${printable(file)}: too many levels of symbolic links`, EXIT_FAILURE)
}

function notDirectory(file: string, path: string): CliError {
  return new CliError(
    `cannot write ${printable(file)}: not a directory (a name ending in / names a directory; ${printable(path)} is a file) (ENOTDIR)`,
    EXIT_FAILURE,
  )
}

/** The physical directory of `path` (so `..` in a link means what the kernel means by it). */
async function realDir(path: string, file: string): Promise<string> {
  try {
    return await fs.realpath(dirname(path))
  } catch (e) {
    throw outputError(e, file)
  }
}

// ---------------------------------------------------------------------------------------------
// Errors

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EFBIG: 'file too large: a file size limit (ulimit -f) was reached',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  ENXIO: 'no reader or device (a socket or a FIFO nobody reads?)',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
}

/**
 * `cannot write FILE: <reason> (CODE)`, and what became of the target (`unchanged`: it existed and
 * was left alone; `absent`: it did not exist and was not created). A runtime failure (exit 1).
 */
export function outputError(e: unknown, name: string, target?: 'unchanged' | 'absent'): CliError {
  if (e instanceof CliError) return e
  const file = printable(name)
  const err = e as NodeJS.ErrnoException
  const code = typeof err?.code === 'string' ? err.code : undefined
  const reason =
    (code && Object.hasOwn(REASONS, code) ? REASONS[code] : undefined) ?? /^E[A-Z]+: ([^,]+)/.exec(String(err?.message))?.[1] ?? String(err?.message ?? e)
  const outcome = target === 'unchanged' ? `; ${file} is unchanged` : target === 'absent' ? `; ${file} was not created` : ''
  return new CliError(`cannot write ${file}: ${reason}${code ? ` (${code})` : ''}${outcome}`, EXIT_FAILURE)
}

/** The reader of stdout went away (`| head`): stop quietly, as `cat` does. */
class ReaderGone extends CliError {
  constructor() {
    super('', EXIT_OK)
  }
}

// ---------------------------------------------------------------------------------------------
// Buffered writing with every write checked

/**
 * Buffers chunks and hands them to `sink` in blocks of about FLUSH_BYTES, one block at a time and
 * in order (a flush waits for the one before it). After a failure every later write and flush
 * fails with the same error: nothing after a lost block may look written.
 */
function buffered(name: string, sink: (data: Buffer) => Promise<void>) {
  let parts: string[] = []
  let size = 0
  // Boxed so that an error thrown as `undefined` or `null` still counts as a failure.
  let failed: { error: unknown } | undefined
  let previous: Promise<void> = Promise.resolve()
  const flush = (): Promise<void> => {
    if (failed !== undefined) return Promise.reject(failed.error)
    const data = size === 0 ? undefined : Buffer.from(parts.length === 1 ? parts[0] : parts.join(''), 'utf8')
    parts = []
    size = 0
    previous = previous.then(async () => {
      if (failed !== undefined) throw failed.error
      if (data === undefined) return
      try {
        await sink(data)
      } catch (e) {
        failed = { error: e }
        throw e
      }
    })
    return previous
  }
  const write = (chunk: string): Promise<void> | undefined => {
    if (failed !== undefined) return Promise.reject(failed.error)
    parts.push(chunk)
    size += chunk.length
    return size >= FLUSH_BYTES ? flush() : undefined
  }
  return { name, write, flush }
}

/** Writes all of `data` at the handle's position: write(2) may write less than asked (EFBIG, signals). */
async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  for (let off = 0; off < data.length;) {
    const { bytesWritten } = await handle.write(data, off, data.length - off)
    if (bytesWritten <= 0) throw Object.assign(new Error('write returned 0 bytes'), { code: 'EIO' })
    off += bytesWritten
  }
}

// ---------------------------------------------------------------------------------------------
// A descriptor (stdout, /dev/fd/N)

function fdOutput(fd: number, name: string): Output {
  const sink = fd === 1 ? stdoutSink : (data: Buffer) => writeFd(fd, data)
  const b = buffered(name, async (data) => {
    try {
      await sink(data)
    } catch (e) {
      if ((e as NodeJS.ErrnoException)?.code === 'EPIPE') throw new ReaderGone()
      throw outputError(e, name)
    }
  })
  return { name, write: b.write, close: b.flush, abort: async () => {} }
}

/** process.stdout, waiting for each block's callback so that its error is this write's error. */
function stdoutSink(data: Buffer): Promise<void> {
  return new Promise((ok, fail) => {
    // The stream also emits the error; the bin's listener handles EPIPE, this one keeps any other
    // error from being thrown as uncaught.
    const onError = () => {}
    process.stdout.once('error', onError)
    process.stdout.write(data, (e) => {
      process.stdout.off('error', onError)
      if (e) fail(e)
      else ok()
    })
  })
}

async function writeFd(fd: number, data: Buffer): Promise<void> {
  for (let off = 0; off < data.length;) {
    const n = await new Promise<number>((ok, fail) => {
      write(fd, data, off, data.length - off, null, (e, written) => {
        if (e && e.code === 'EAGAIN')
          ok(0) // a non-blocking descriptor that is full: try again
        else if (e) fail(e)
        else ok(written)
      })
    })
    if (n === 0) await new Promise((ok) => setTimeout(ok, 5))
    off += n
  }
}

// ---------------------------------------------------------------------------------------------
// A device, a FIFO or a socket: written in place

async function specialOutput(path: string, name: string): Promise<Output> {
  let handle: FileHandle
  try {
    handle = await fs.open(path, constants.O_WRONLY | constants.O_TRUNC | constants.O_NOCTTY)
  } catch (e) {
    throw outputError(e, name)
  }
  const b = buffered(name, async (data) => {
    try {
      await writeAll(handle, data)
    } catch (e) {
      throw outputError(e, name)
    }
  })
  return {
    name,
    write: b.write,
    async close() {
      try {
        await b.flush()
      } finally {
        await handle.close().catch(() => {})
      }
    },
    async abort() {
      await handle.close().catch(() => {})
    },
  }
}

// ---------------------------------------------------------------------------------------------
// A regular file: temporary sibling, fsync, rename, fsync of the directory

/** Temporary files that exist right now; removed on every way out of the process. */
const temporaries = new Set<string>()
let cleanupInstalled = false

function removeTemporariesSync(): void {
  for (const path of temporaries) {
    try {
      unlinkSync(path)
    } catch {
      // already gone
    }
  }
  temporaries.clear()
}

/**
 * Signals whose default action ends the process, and that Node lets a program handle: SIGINT,
 * SIGTERM, SIGHUP, and the rarer ones a user or a supervisor still sends (SIGQUIT from Ctrl-\,
 * SIGXCPU from `ulimit -t`, SIGALRM, SIGUSR2, SIGVTALRM, SIGPWR). SIGPROF is left alone: Node's
 * CPU profiler runs on it. SIGKILL cannot be handled.
 */
const ENDING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGXCPU', 'SIGALRM', 'SIGUSR2', 'SIGVTALRM', 'SIGPWR'] as const

/**
 * Removes the temporary files on exit, and on each of ENDING_SIGNALS, then exits with the
 * conventional 128 + signal number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP): Node's
 * default on these signals is to die at once, leaving them behind.
 */
function installCleanup(): void {
  if (cleanupInstalled) return
  cleanupInstalled = true
  process.on('exit', removeTemporariesSync)
  for (const signal of ENDING_SIGNALS) {
    const number = (osConstants.signals as Record<string, number | undefined>)[signal]
    if (number === undefined) continue // not on this platform
    try {
      process.on(signal, () => {
        removeTemporariesSync()
        process.exit(128 + number)
      })
    } catch {
      // A signal this platform does not let a program handle: its default stays.
    }
  }
}

/** The longest file name (bytes) most file systems take (NAME_MAX). */
const NAME_MAX = 255

/**
 * `.name.<pid>.<random>.tmp`. A target whose name is near NAME_MAX still gets a temporary file: the
 * name is shortened (at a character boundary) to fit, so a valid target is never refused for it.
 */
export function temporaryName(base: string): string {
  const tail = `.${process.pid}.${randomBytes(6).toString('hex')}.tmp`
  let stem = base
  while (Buffer.byteLength(`.${stem}${tail}`) > NAME_MAX) stem = Array.from(stem).slice(0, -8).join('')
  return `.${stem}${tail}`
}

/** A temporary file next to `path` (see `temporaryName`), created exclusively with mode 0600. */
async function createTemporary(path: string, name: string, target: 'unchanged' | 'absent'): Promise<{ tmp: string; handle: FileHandle }> {
  installCleanup()
  for (let attempt = 0; ; attempt++) {
    const tmp = join(dirname(path), temporaryName(basename(path)))
    try {
      temporaries.add(tmp)
      const handle = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)
      return { tmp, handle }
    } catch (e) {
      temporaries.delete(tmp)
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 8) continue
      const err = outputError(e, name, target)
      if ((e as NodeJS.ErrnoException).code === 'EACCES' || (e as NodeJS.ErrnoException).code === 'EROFS') {
        throw new CliError(`${err.message} (the output is written to a temporary file in ${printable(dirname(path))} and renamed)`, EXIT_FAILURE)
      }
      throw err
    }
  }
}

/** The mode a new file gets: 0666 minus the umask. */
function newFileMode(): number {
  const mask = process.umask()
  return 0o666 & ~mask
}

async function replacingOutput(path: string, stat: Stats | undefined, name: string): Promise<Output> {
  if (stat) {
    // Renaming over a file needs only the directory's permission: without this check a read-only
    // file (0444, or another user's) was replaced where `> file` is refused.
    try {
      await fs.access(path, constants.W_OK)
    } catch (e) {
      throw outputError(e, name, 'unchanged')
    }
  }
  const { tmp, handle } = await createTemporary(path, name, stat ? 'unchanged' : 'absent')
  let open = true
  const discard = async () => {
    if (open) {
      open = false
      await handle.close().catch(() => {})
    }
    await fs.rm(tmp, { force: true }).catch(() => {})
    temporaries.delete(tmp)
  }
  const b = buffered(name, async (data) => {
    try {
      await writeAll(handle, data)
    } catch (e) {
      throw outputError(e, name, stat ? 'unchanged' : 'absent')
    }
  })
  return {
    name,
    replaces: stat ? { dev: stat.dev, ino: stat.ino } : undefined,
    write: b.write,
    async close() {
      try {
        await b.flush()
        try {
          await keepOwnerAndMode(handle, stat, name)
          await handle.sync()
          open = false
          await handle.close()
          await fs.rename(tmp, path)
        } catch (e) {
          throw outputError(e, name, stat ? 'unchanged' : 'absent')
        }
      } catch (e) {
        await discard()
        throw e
      }
      temporaries.delete(tmp)
      await syncDirectory(dirname(path))
      if (stat && stat.nlink > 1) {
        process.stderr.write(`context-editor: note: ${name} had ${stat.nlink} hard links; the other names keep the old content\n`)
      }
    },
    abort: discard,
  }
}

/** The replacement gets the target's owner and mode (a new file: 0666 minus the umask). */
async function keepOwnerAndMode(handle: FileHandle, stat: Stats | undefined, name: string): Promise<void> {
  if (stat === undefined) {
    await handle.chmod(newFileMode())
    return
  }
  if (typeof process.geteuid === 'function' && (stat.uid !== process.geteuid() || stat.gid !== process.getegid?.())) {
    // Only root may give a file away; anyone may keep their own group. Failing to is not fatal:
    // the file then belongs to whoever ran the command, as with any editor that saves by rename.
    const given = await handle.chown(stat.uid, stat.gid).then(
      () => true,
      () => false,
    )
    if (!given) {
      await handle.chown(-1, stat.gid).catch(() => {})
      process.stderr.write(`context-editor: note: ${name} belonged to user ${stat.uid}; only root can keep that, so the new file is yours (mode kept)\n`)
    }
  }
  // After chown, which clears the set-user-ID and set-group-ID bits.
  await handle.chmod(stat.mode & 0o7777)
}

/** Makes the rename durable. Some file systems cannot sync a directory; that is not an error. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined
  try {
    handle = await fs.open(dir, constants.O_RDONLY)
    await handle.sync()
  } catch {
    // EINVAL/EISDIR/EACCES on some file systems: the data itself was synced before the rename.
  } finally {
    await handle?.close().catch(() => {})
  }
}

/** Writes `text` to stdout and waits until it is written: a failure (ENOSPC on /dev/full) is an error. */
export async function printStdout(text: string): Promise<void> {
  const out = fdOutput(1, '<stdout>')
  await out.write(text)
  await out.close()
}

/**
 * Lets a write past a file size limit (`ulimit -f`) fail with EFBIG instead of killing the process:
 * the kernel sends SIGXFSZ, whose default action ends Node before the failure can be handled.
 */
export function ignoreFileSizeSignal(): void {
  if (osConstants.signals.SIGXFSZ !== undefined && process.listenerCount('SIGXFSZ') === 0) process.on('SIGXFSZ', () => {})
}
