#!/usr/bin/env node
// Packs what `npm publish` would publish: the main package and one package per platform (npm/*,
// filled by scripts/build-platforms.sh), as tarballs in the folder given (default: artifacts/).
//
// The release is prepared in a copy of the package, as `npm publish` prepares it: `napi prepublish`
// (the `prepublishOnly` script) adds the `optionalDependencies` on the platform packages to
// package.json. They are not in the committed package.json because the platform packages of an
// unreleased version exist nowhere yet, and `npm ci` refuses a package.json whose dependencies
// the lockfile cannot hold. With `--publish-dry-run`, also runs `npm publish --dry-run` in the copy
// (the main package, whose prepublishOnly dry-runs every platform package) and on each platform
// package's tarball (as a release job publishes what it packed; npm does not pack it again), and
// fails if any fails. With `--only NAME,NAME`, packs only the packages of those names (the
// release is still prepared whole); not with `--publish-dry-run`.
//
// Prints JSON: { stage, packages: [{ name, dir, tarball, files, manifest }], publish? }.
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const dryRunPublish = args.includes('--publish-dry-run')
const onlyAt = args.indexOf('--only')
const only = onlyAt < 0 ? null : new Set((args[onlyAt + 1] ?? '').split(',').filter(Boolean))
if (only && (!only.size || dryRunPublish)) {
  console.error('pack-release: --only takes a comma-separated list of package names, and not with --publish-dry-run')
  process.exit(2)
}
const [outArg] = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--only')
const out = resolve(outArg ?? join(root, 'artifacts'))
mkdirSync(out, { recursive: true })

/** Runs `cmd`: resolves to its output, or rejects with its exit status and what it printed. */
const run = (cmd, argv, cwd) =>
  new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    const out = []
    const err = []
    child.stdout.on('data', (b) => out.push(b))
    child.stderr.on('data', (b) => err.push(b))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8')
      if (code === 0) resolvePromise(stdout)
      else reject(new Error(`${cmd} ${argv.join(' ')} in ${cwd} failed (${signal ?? `exit ${code}`}):\n${Buffer.concat(err).toString('utf8')}${stdout}`))
    })
  })

/**
 * `work(item)` for each item, as many at once as there are cores (packing is compressing: one core
 * each), the results in the items' order.
 */
async function onCores(items, work) {
  const results = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const k = next++
      results[k] = await work(items[k])
    }
  }
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), items.length) }, worker))
  return results
}

// A copy of what the main package publishes (its `files`), its manifest and the platform folders.
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const stage = realpathSync(mkdtempSync(join(tmpdir(), 'context-editor-release-')))
for (const entry of ['package.json', ...pkg.files, 'npm']) {
  cpSync(join(root, entry), join(stage, entry), { recursive: true })
}
// prepublishOnly runs the repository's napi CLI; nothing from node_modules is packed (`files`).
symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'), 'dir')

const platformDirs = readdirSync(join(stage, 'npm')).map((d) => join(stage, 'npm', d))
const packages = [stage, ...platformDirs].map((dir) => ({ dir, name: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name }))
const unknown = only ? [...only].filter((name) => !packages.some((p) => p.name === name)) : []
if (unknown.length) {
  console.error(`pack-release: no package named ${unknown.join(', ')}`)
  process.exit(2)
}

// Same command as prepublishOnly, without publishing the platform packages (packed below).
await run(join(root, 'node_modules', '.bin', 'napi'), ['prepublish', '-t', 'npm', '--no-gh-release', '--skip-optional-publish'], stage)

const pack = async (dir) => {
  const [info] = JSON.parse(await run('npm', ['pack', '--json', '--pack-destination', out], dir))
  return {
    name: info.name,
    dir,
    tarball: join(out, info.filename),
    files: info.files.map((f) => f.path).sort(),
    manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')),
  }
}
const wanted = packages.filter((p) => !only || only.has(p.name)).map((p) => p.dir)
const result = { stage, packages: await onCores(wanted, pack) }

if (dryRunPublish) {
  // No credentials are needed or used: a dry run stops before the upload. The main package is
  // published from its folder, so its prepublishOnly runs (most of the time: napi dry-runs every
  // platform package in turn); each platform package from its tarball, meanwhile.
  const [main, ...platforms] = result.packages
  const [mainOutput, platformOutputs] = await Promise.all([
    run('npm', ['publish', '--dry-run'], main.dir),
    onCores(platforms, ({ dir, tarball }) => run('npm', ['publish', '--dry-run', tarball], dir)),
  ])
  result.publish = [{ dir: main.dir, output: mainOutput }, ...platforms.map(({ dir }, k) => ({ dir, output: platformOutputs[k] }))]
}
console.log(JSON.stringify(result, null, 2))
