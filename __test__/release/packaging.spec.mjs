// What `npm publish` would publish: the main package and one package per platform, packed from the
// builds in npm/<platform>/ (scripts/pack-release.mjs, which prepares the release as the
// `prepublishOnly` script does). Needs the per-platform builds (`npm run build:platforms`).
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { packRelease, root } from '../support/release.mjs'

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const PLATFORMS = readdirSync(join(root, 'npm')).sort()
const pkgName = (platform) => `${pkg.name}-${platform}`

/** What each platform package must hold and where npm may install it. */
const EXPECTED = {
  'linux-x64-gnu': { binary: 'elf', machine: 'x86-64', os: 'linux', cpu: 'x64', libc: 'glibc' },
  'linux-arm64-gnu': { binary: 'elf', machine: 'aarch64', os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'linux-x64-musl': { binary: 'elf', machine: 'x86-64', os: 'linux', cpu: 'x64', libc: 'musl' },
  'linux-arm64-musl': { binary: 'elf', machine: 'aarch64', os: 'linux', cpu: 'arm64', libc: 'musl' },
  'darwin-x64': { binary: 'macho', machine: 'x86-64', os: 'darwin', cpu: 'x64' },
  'darwin-arm64': { binary: 'macho', machine: 'aarch64', os: 'darwin', cpu: 'arm64' },
  'win32-x64-gnu': { binary: 'pe', machine: 'x86-64', os: 'win32', cpu: 'x64' },
  'wasm32-wasi': { binary: 'wasm' },
}

/** Format and machine of a binary, read from its header. */
function binaryKind(buf) {
  if (buf.readUInt32BE(0) === 0x7f454c46) return { binary: 'elf', machine: { 0x3e: 'x86-64', 0xb7: 'aarch64' }[buf.readUInt16LE(18)] }
  if (buf.readUInt32LE(0) === 0xfeedfacf) return { binary: 'macho', machine: { 0x01000007: 'x86-64', 0x0100000c: 'aarch64' }[buf.readUInt32LE(4)] }
  if (buf.toString('latin1', 0, 2) === 'MZ') {
    const pe = buf.readUInt32LE(0x3c)
    return { binary: 'pe', machine: { 0x8664: 'x86-64', 0xaa64: 'aarch64' }[buf.readUInt16LE(pe + 4)] }
  }
  if (buf.readUInt32BE(0) === 0x0061736d) return { binary: 'wasm' }
  return { binary: 'unknown' }
}

let release
before(() => {
  release = packRelease({ publishDryRun: true })
})
after(() => {
  for (const dir of [release?.out, release?.stage]) if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('npm publish --dry-run', () => {
  test('succeeds for the main package; its prepublishOnly (napi prepublish) publishes every platform package, as a dry run', () => {
    const [main] = release.publish
    assert.equal(main.dir, release.stage)
    for (const p of PLATFORMS) assert.match(main.output, new RegExp(`^\\+ ${pkgName(p)}@${pkg.version}$`, 'm'), `${p} is published first`)
    assert.match(main.output, new RegExp(`^\\+ ${pkg.name}@${pkg.version}$`, 'm'))
  })

  test('succeeds for each platform package on its own', () => {
    const byDir = Object.fromEntries(release.publish.slice(1).map((p) => [p.dir, p.output]))
    for (const p of PLATFORMS) assert.match(byDir[join(release.stage, 'npm', p)], new RegExp(`^\\+ ${pkgName(p)}@${pkg.version}$`, 'm'))
  })
})

describe('the main package', () => {
  test('carries the license, readme, types, loader and dist/, and no sources, tests or binaries', () => {
    const files = release.byName[pkg.name].files
    for (const f of [
      'LICENSE',
      'README.md',
      'package.json',
      'binding.cjs',
      'binding.d.cts',
      'index.js',
      'index.d.ts',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/native.d.ts',
      'dist/xpert/index.d.ts',
      'dist/langchain/index.d.ts',
      'bin/context-editor.js',
    ]) {
      assert.ok(files.includes(f), `${f} is packed`)
    }
    const unwanted = files.filter(
      (f) =>
        /^(ts|src|crates|__test__|benchmark|fuzz|scripts|npm|target|examples|docs|artifacts)\//.test(f) ||
        /\.(rs|node|wasm|tgz)$/.test(f) ||
        /^Cargo\./.test(f),
    )
    assert.deepEqual(unwanted, [])
    assert.match(readFileSync(join(root, 'LICENSE'), 'utf8'), /^MIT License/)
  })

  test('depends optionally on exactly one package per platform, at its own version, and runs nothing on install', () => {
    const { manifest } = release.byName[pkg.name]
    assert.deepEqual(Object.keys(manifest.optionalDependencies).sort(), PLATFORMS.map(pkgName).sort())
    for (const version of Object.values(manifest.optionalDependencies)) assert.equal(version, pkg.version)
    assert.deepEqual(manifest.dependencies ?? {}, {}, 'host libraries are peers')
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(manifest.scripts?.[s], undefined)
  })

  test('has repository, homepage and bugs, so the README links work on the registry page', () => {
    const { manifest } = release.byName[pkg.name]
    assert.match(manifest.repository.url, /^git\+https:\/\/github\.com\/[^/]+\/[^/]+\.git$/)
    assert.equal(manifest.homepage, manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '#readme'))
    assert.equal(manifest.bugs.url, manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '/issues'))
  })
})

describe('the platform packages', () => {
  for (const p of PLATFORMS) {
    test(`${pkgName(p)} holds its own binary (right format and machine), its license and readme, and nothing else`, () => {
      const { files, manifest, dir } = release.byName[pkgName(p)]
      const binary = p === 'wasm32-wasi' ? `${pkg.name}.wasm32-wasi.wasm` : `${pkg.name}.${p}.node`
      const loaders =
        p === 'wasm32-wasi'
          ? [`${pkg.name}.wasi.cjs`, `${pkg.name}.wasi.d.cts`, `${pkg.name}.wasi-browser.js`, 'wasi-worker.mjs', 'wasi-worker-browser.mjs']
          : []
      assert.deepEqual(files, ['LICENSE', 'README.md', 'package.json', binary, ...loaders].sort())
      assert.equal(manifest.main, p === 'wasm32-wasi' ? `${pkg.name}.wasi.cjs` : binary)
      assert.equal(manifest.version, pkg.version)
      const { binary: kind, machine } = EXPECTED[p]
      assert.deepEqual(binaryKind(readFileSync(join(dir, binary))), machine ? { binary: kind, machine } : { binary: kind })
    })
  }

  test('the WebAssembly package pins its runtime to the versions this repository tests with', () => {
    const { manifest } = release.byName[pkgName('wasm32-wasi')]
    for (const dep of ['@napi-rs/wasm-runtime', '@emnapi/core', '@emnapi/runtime']) {
      assert.equal(manifest.dependencies[dep], pkg.devDependencies[dep], dep)
    }
  })

  test('npm installs each native package on its own platform only, and the WebAssembly one everywhere', () => {
    // npm's own platform check (npm-install-checks, as bundled with this npm).
    const npmRoot = join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm')
    const { checkPlatform } = createRequire(join(npmRoot, 'package.json'))('npm-install-checks')
    const hosts = [
      { os: 'linux', cpu: 'x64', libc: 'glibc' },
      { os: 'linux', cpu: 'x64', libc: 'musl' },
      { os: 'linux', cpu: 'arm64', libc: 'glibc' },
      { os: 'linux', cpu: 'arm64', libc: 'musl' },
      { os: 'darwin', cpu: 'x64' },
      { os: 'darwin', cpu: 'arm64' },
      { os: 'win32', cpu: 'x64' },
      { os: 'freebsd', cpu: 'x64' },
      { os: 'linux', cpu: 'riscv64', libc: 'glibc' },
    ]
    for (const host of hosts) {
      const installs = PLATFORMS.filter((p) => {
        try {
          checkPlatform(release.byName[pkgName(p)].manifest, false, host)
          return true
        } catch {
          return false
        }
      })
      const native = PLATFORMS.filter((p) => {
        const e = EXPECTED[p]
        return e.os === host.os && e.cpu === host.cpu && (e.libc === undefined || e.libc === host.libc)
      })
      assert.deepEqual(installs, [...native, 'wasm32-wasi'].sort(), JSON.stringify(host))
    }
  })

  test("the loader's list of native platforms is the list of packages", async () => {
    const { NATIVE_PLATFORMS } = await import(join(root, 'dist', 'native.js'))
    assert.deepEqual(
      [...NATIVE_PLATFORMS].sort(),
      PLATFORMS.filter((p) => p !== 'wasm32-wasi'),
    )
  })

  test('every platform package says where its sources are, as the main one does', () => {
    for (const p of PLATFORMS) {
      const { manifest } = release.byName[pkgName(p)]
      assert.deepEqual([manifest.repository, manifest.homepage, manifest.bugs, manifest.license], [pkg.repository, pkg.homepage, pkg.bugs, pkg.license], p)
    }
  })
})

// The committed platform folders are what `napi create-npm-dirs` makes for the configured targets.
test('npm/ has one folder per napi target', () => {
  const triples = {
    'x86_64-unknown-linux-gnu': 'linux-x64-gnu',
    'aarch64-unknown-linux-gnu': 'linux-arm64-gnu',
    'x86_64-unknown-linux-musl': 'linux-x64-musl',
    'aarch64-unknown-linux-musl': 'linux-arm64-musl',
    'x86_64-apple-darwin': 'darwin-x64',
    'aarch64-apple-darwin': 'darwin-arm64',
    'x86_64-pc-windows-gnu': 'win32-x64-gnu',
    'wasm32-wasip1-threads': 'wasm32-wasi',
  }
  assert.deepEqual(pkg.napi.targets.map((t) => triples[t]).sort(), PLATFORMS)
})
