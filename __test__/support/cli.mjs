// A sandbox for CLI specs: a temporary working folder made before the file's tests and removed
// after them, the command run there (`cli(args, stdin)` → `{ code, stdout, stderr }`, never
// throwing on a non-zero exit), and `put(name, text)` to write an input into it.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

export const BIN = fileURLToPath(new URL('../../bin/context-editor.js', import.meta.url))
const execFileP = promisify(execFile)

/** Registers the folder's `before`/`after` hooks; call it at the top level of a spec file. */
export function cliSandbox(prefix, { maxBuffer = 64 << 20 } = {}) {
  const box = { dir: '' }
  before(() => {
    box.dir = mkdtempSync(join(tmpdir(), `context-editor-${prefix}-`))
  })
  after(() => rmSync(box.dir, { recursive: true, force: true }))
  box.cli = async (args, input) => {
    const child = execFileP(process.execPath, [BIN, ...args], { cwd: box.dir, maxBuffer })
    child.child.stdin.end(input ?? '')
    try {
      const { stdout, stderr } = await child
      return { code: 0, stdout, stderr }
    } catch (e) {
      if (typeof e.code !== 'number') throw e
      return { code: e.code, stdout: e.stdout, stderr: e.stderr }
    }
  }
  box.put = (name, text) => {
    const path = join(box.dir, name)
    writeFileSync(path, text)
    return path
  }
  return box
}
