// The release as `npm publish` would publish it (scripts/pack-release.mjs), and installing it the
// way a host does. Needs the per-platform builds in npm/<platform>/ (`npm run build:platforms`).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Platform folders whose package has no binary yet. */
export function unbuiltPlatforms() {
  return readdirSync(join(root, 'npm')).filter((p) => !readdirSync(join(root, 'npm', p)).some((f) => f.endsWith('.node') || f.endsWith('.wasm')))
}

/**
 * Packs every package into a new folder, or the packages named in `only`; `publishDryRun` also runs
 * `npm publish --dry-run` for each.
 */
export function packRelease({ publishDryRun = false, only = null } = {}) {
  const missing = unbuiltPlatforms()
  if (missing.length) {
    throw new Error(`no build in npm/ for ${missing.join(', ')}: run \`bash scripts/install-platform-tools.sh && npm run build:platforms\` first`)
  }
  const out = realpathSync(mkdtempSync(join(tmpdir(), 'context-editor-tarballs-')))
  const args = [join(root, 'scripts', 'pack-release.mjs'), out, ...(publishDryRun ? ['--publish-dry-run'] : []), ...(only ? ['--only', only.join(',')] : [])]
  const result = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 << 20 }))
  return { out, ...result, byName: Object.fromEntries(result.packages.map((p) => [p.name, p])) }
}

/** This PATH without any folder holding a Rust toolchain (cargo, rustc), as on a host. */
export function pathWithoutRust() {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir && !existsSync(join(dir, 'cargo')) && !existsSync(join(dir, 'rustc')))
    .join(delimiter)
}

/**
 * `npm install`s tarballs into `prefix` as the Xpert server installs a plugin, with no Rust on PATH.
 * Offline unless `fetch` (the WebAssembly package has dependencies of its own, which a host gets
 * from the registry: npm's cache is tried first).
 */
export function hostInstall(prefix, tarballs, { extra = [], fetch = false } = {}) {
  const env = { ...process.env, PATH: pathWithoutRust() }
  const mode = fetch ? '--prefer-offline' : '--offline'
  execFileSync('npm', ['install', '--no-save', '--legacy-peer-deps', mode, '--no-audit', '--no-fund', ...extra, '--prefix', prefix, ...tarballs], {
    cwd: prefix,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return env
}
