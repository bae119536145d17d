#!/usr/bin/env node
// Packs what `npm publish` would publish: the main package and one package per platform (npm/*,
// filled by scripts/build-platforms.sh), as tarballs in the folder given (default: artifacts/).
//
// The release is prepared in a copy of the package, as `npm publish` prepares it: `napi prepublish`
// (the `prepublishOnly` script) adds the `optionalDependencies` on the platform packages to
// package.json. They are not in the committed package.json because the platform packages of an
// unreleased version exist nowhere yet, and `npm ci` refuses a package.json whose dependencies
// the lockfile cannot hold. With `--publish-dry-run`, also runs `npm publish --dry-run` in the copy
// (the main package, whose prepublishOnly dry-runs every platform package) and in each platform
// folder, and fails if any fails.
//
// Prints JSON: { stage, packages: [{ name, dir, tarball, files, manifest }], publish? }.
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const dryRunPublish = args.includes('--publish-dry-run')
const out = resolve(args.find((a) => !a.startsWith('--')) ?? join(root, 'artifacts'))
mkdirSync(out, { recursive: true })

const run = (cmd, argv, cwd, env = process.env) =>
  execFileSync(cmd, argv, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 })

// A copy of what the main package publishes (its `files`), its manifest and the platform folders.
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const stage = realpathSync(mkdtempSync(join(tmpdir(), 'context-editor-release-')))
for (const entry of ['package.json', ...pkg.files, 'npm']) {
  cpSync(join(root, entry), join(stage, entry), { recursive: true })
}
// prepublishOnly runs the repository's napi CLI; nothing from node_modules is packed (`files`).
symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'), 'dir')

// Same command as prepublishOnly, without publishing the platform packages (packed below).
run(join(root, 'node_modules', '.bin', 'napi'), ['prepublish', '-t', 'npm', '--no-gh-release', '--skip-optional-publish'], stage)

const pack = (dir) => {
  const [info] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', out], dir))
  return {
    name: info.name,
    dir,
    tarball: join(out, info.filename),
    files: info.files.map((f) => f.path).sort(),
    manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')),
  }
}
const platformDirs = readdirSync(join(stage, 'npm')).map((d) => join(stage, 'npm', d))
const result = { stage, packages: [pack(stage), ...platformDirs.map(pack)] }

if (dryRunPublish) {
  // No credentials are needed or used: a dry run stops before the upload.
  result.publish = [stage, ...platformDirs].map((dir) => ({ dir, output: run('npm', ['publish', '--dry-run'], dir) }))
}
console.log(JSON.stringify(result, null, 2))
