// The published artifact in a host: the tarballs `npm publish` would publish (the main package and
// the per-platform packages, scripts/pack-release.mjs), installed into a plugins folder the way the
// Xpert server does (`npm install --no-save --legacy-peer-deps --prefix
// <root>/plugins/global/<pkg> <pkg>`) with no Rust toolchain on PATH, and the host booted from
// there. The host root's node_modules (a link to this repository's, which holds the SDK, NestJS and
// @langchain/core as a host has them) is where the plugin finds its host libraries. Offline:
// nothing is fetched and nothing is compiled on install.
//
// Also: the same install where only the WebAssembly build fits (forced, and chosen by itself), and
// hosts on platforms with neither, where importing must not throw and the other plugins must stay.
//
// Needs the per-platform builds (`npm run build:platforms`).
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync, symlinkSync, readFileSync, existsSync, realpathSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as Messages1 from '@langchain/core/messages'
import * as Tools1 from '@langchain/core/tools'
import { bootHost } from '../fixtures/xpert-host/host.mjs'
import * as scenarios from '../fixtures/xpert-host/scenarios.mjs'
import { hostInstall, packRelease, pathWithoutRust, root } from '../support/release.mjs'

const require = createRequire(import.meta.url)
const fixtures = join(root, '__test__', 'fixtures')

let release, tmp
before(() => {
  // Only the packages these hosts install (packaging.spec.mjs packs and checks every one).
  release = packRelease({ only: ['context-editor', 'context-editor-linux-x64-gnu', 'context-editor-wasm32-wasi'] })
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'context-editor-host-')))
  symlinkSync(join(root, 'node_modules'), join(tmp, 'node_modules'), 'dir')
})
after(() => {
  for (const dir of [tmp, release?.out, release?.stage]) if (dir) rmSync(dir, { recursive: true, force: true })
})
const tarball = (name) => release.byName[name].tarball

describe('Xpert host on linux-x64-gnu, plugin installed from the release tarballs', () => {
  let pluginDir, installed, host
  before(async () => {
    pluginDir = join(tmp, 'plugins', 'global', 'context-editor')
    mkdirSync(pluginDir, { recursive: true })
    hostInstall(pluginDir, [tarball('context-editor'), tarball('context-editor-linux-x64-gnu')])
    installed = join(pluginDir, 'node_modules', 'context-editor')
    host = await bootHost([{ name: 'context-editor', dir: pluginDir }])
  })
  after(async () => {
    await host?.close()
  })

  test('the main tarball carries the loader and dist/; the addon comes in the platform package', () => {
    const files = release.byName['context-editor'].files
    for (const f of [
      'package.json',
      'binding.cjs',
      'binding.d.cts',
      'index.js',
      'index.d.ts',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/langchain/index.js',
      'dist/xpert/index.js',
    ]) {
      assert.ok(files.includes(f), `${f} is packed`)
    }
    assert.ok(!files.some((f) => f.endsWith('.rs') || f.endsWith('.node') || f.startsWith('target/') || f === 'Cargo.toml'), 'no Rust sources or binaries')
    assert.ok(release.byName['context-editor-linux-x64-gnu'].files.includes('context-editor.linux-x64-gnu.node'))
  })

  test('installing compiles nothing: no Rust on PATH, no install scripts, the addon comes from its package', () => {
    assert.throws(
      () => execFileSync('cargo', ['--version'], { env: { ...process.env, PATH: pathWithoutRust() }, stdio: 'ignore' }),
      'precondition: no cargo on the install PATH',
    )
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(manifest.scripts?.[s], undefined, `no ${s} script`)
    assert.ok(existsSync(join(pluginDir, 'node_modules', 'context-editor-linux-x64-gnu', 'context-editor.linux-x64-gnu.node')))
    assert.ok(!existsSync(join(installed, 'node_modules')), 'no dependencies were installed (host libraries are peers)')
  })

  test('the plugin runs the native addon of the platform package', async () => {
    const native = await import(join(installed, 'index.js'))
    assert.equal(native.__napiBindingTarget, 'native')
  })

  test('the host resolves the installed copy and registers its strategy', () => {
    const [{ plugin, resolved }] = host.plugins
    assert.equal(resolved, join(installed, 'dist', 'index.js'))
    assert.equal(plugin.meta.name, 'context-editor')
    const strategy = host.registry.get('ContextEditingMiddleware')
    assert.equal(require.resolve('@xpert-ai/plugin-sdk'), createRequire(resolved).resolve('@xpert-ai/plugin-sdk'), 'plugin and host share the SDK')
    scenarios.hasLocalizedMeta(strategy)
  })

  const cores = [
    { label: '@langchain/core 0.3.72', M: require('@langchain/core-03/messages'), tools: require('@langchain/core-03/tools') },
    { label: '@langchain/core 1.x', M: Messages1, tools: Tools1 },
  ]
  for (const core of cores) {
    test(`${core.label}: the example options clear old tool results; the caller's messages are untouched`, async () => {
      await scenarios.clearsWithExampleOptions({ strategy: host.registry.get('ContextEditingMiddleware'), ...core })
      await scenarios.acceptsNullsFromTheUi({ strategy: host.registry.get('ContextEditingMiddleware'), ...core })
    })
  }

  test('bad options fail with a message naming the field', async () => {
    await scenarios.rejectsBadOptions({ strategy: host.registry.get('ContextEditingMiddleware') })
  })

  test('a plain Node app without LangChain, NestJS, the SDK or zod can import the package entry', () => {
    const app = realpathSync(mkdtempSync(join(tmpdir(), 'context-editor-plain-')))
    try {
      hostInstall(app, [tarball('context-editor'), tarball('context-editor-linux-x64-gnu')])
      writeFileSync(
        join(app, 'app.mjs'),
        `
        import { createRequire } from 'node:module'
        import plugin, { ContextEditor } from 'context-editor'
        const out = {}
        for (const id of ['@nestjs/common', '@xpert-ai/plugin-sdk', 'zod', 'langchain', '@langchain/core/messages']) {
          try { createRequire(import.meta.url).resolve(id); out.hostLibrary = id } catch {}
        }
        const editor = new ContextEditor({ trigger: { messages: 2 }, keep: { messages: 0 } })
        const { messages } = editor.edit([
          { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'a', content: 'a long result' },
        ])
        out.cleared = messages[1].content
        out.name = plugin.meta.name
        out.schema = plugin.config.schema ?? null
        try { plugin.register({}) } catch (e) { out.register = e.message }
        try { await import('context-editor/langchain') } catch (e) { out.langchain = e.code }
        console.log(JSON.stringify(out))
        `,
      )
      const out = JSON.parse(execFileSync(process.execPath, ['app.mjs'], { cwd: app, encoding: 'utf8' }))
      assert.equal(out.hostLibrary, undefined, 'precondition: no host library is reachable from the app')
      assert.equal(out.cleared, '[cleared]')
      assert.equal(out.name, 'context-editor')
      assert.equal(out.schema, null)
      assert.match(out.register, /the Xpert plugin needs `@nestjs\/common`, which the Xpert host provides/)
      assert.equal(out.langchain, 'ERR_MODULE_NOT_FOUND', 'context-editor/langchain needs langchain, as documented')
    } finally {
      rmSync(app, { recursive: true, force: true })
    }
  })
})

describe('host where only the WebAssembly build fits (main and wasm32-wasi packages, no native package)', () => {
  let dir, env
  const history = [
    { role: 'user', content: 'Find the latest release notes.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'search', arguments: '{"q":"release notes"}' } }] },
    { role: 'tool', tool_call_id: 'a', content: 'Release 2.0: faster token counting, exact o200k_base counts, and a WebAssembly build.' },
    { role: 'user', content: 'Summarize them.' },
  ]
  // Edits and counts exactly (o200k_base, embedded tokenizer data: no network), and reports which
  // binding ran.
  const appSource = `
    import { ContextEditor } from 'context-editor'
    import { __napiBindingTarget } from 'context-editor/native'
    const history = ${JSON.stringify(history)}
    const editor = new ContextEditor({ trigger: { messages: 3 }, keep: { messages: 0 }, tokenCountMethod: 'model', model: 'gpt-4o' })
    const { messages, report } = editor.edit(history)
    console.log(JSON.stringify({ target: __napiBindingTarget, cleared: messages[2].content, tokensBefore: report.tokensBefore, tokensAfter: report.tokensAfter }))
  `
  before(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'context-editor-wasi-')))
    // As on a platform no native package fits (`--omit=optional` leaves them out here).
    env = hostInstall(dir, [tarball('context-editor'), tarball('context-editor-wasm32-wasi')], { extra: ['--omit=optional'], fetch: true })
    writeFileSync(join(dir, 'app.mjs'), appSource)
  })
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })
  const runApp = (extraEnv) =>
    JSON.parse(execFileSync(process.execPath, ['--no-warnings', 'app.mjs'], { cwd: dir, env: { ...env, ...extraEnv }, encoding: 'utf8' }))
  const nativeResult = () => {
    const { ContextEditor } = require(join(root, 'dist', 'index.js'))
    const editor = new ContextEditor({ trigger: { messages: 3 }, keep: { messages: 0 }, tokenCountMethod: 'model', model: 'gpt-4o' })
    const { messages, report } = editor.edit(history)
    return { target: 'native', cleared: messages[2].content, tokensBefore: report.tokensBefore, tokensAfter: report.tokensAfter }
  }

  test('only the WebAssembly package was installed beside the main one', () => {
    assert.ok(existsSync(join(dir, 'node_modules', 'context-editor-wasm32-wasi', 'context-editor.wasm32-wasi.wasm')))
    assert.ok(!existsSync(join(dir, 'node_modules', 'context-editor-linux-x64-gnu')))
  })

  test('with no native package, the WebAssembly build is used by itself and edits and counts as the native one does', () => {
    const wasi = runApp({})
    assert.equal(wasi.target, 'wasm32-wasi')
    assert.deepEqual({ ...wasi, target: 'native' }, nativeResult())
    assert.equal(wasi.cleared, '[cleared]')
  })

  test('forced (NAPI_RS_FORCE_WASI=error), it loads and edits the same way', () => {
    const wasi = runApp({ NAPI_RS_FORCE_WASI: 'error' })
    assert.equal(wasi.target, 'wasm32-wasi')
    assert.deepEqual({ ...wasi, target: 'native' }, nativeResult())
  })
})

describe('hosts on platforms with neither a native binary nor the WebAssembly build', () => {
  let oursDir
  before(() => {
    oursDir = join(tmp, 'plugins', 'unsupported', 'context-editor')
    mkdirSync(oursDir, { recursive: true })
    hostInstall(oursDir, [tarball('context-editor')])
  })
  const boot = (platform) => {
    const pluginsRoot = mkdtempSync(join(tmp, 'plugins-'))
    const out = execFileSync(
      process.execPath,
      ['--require', join(fixtures, 'platform-override.cjs'), join(fixtures, 'xpert-host', 'other-plugins.mjs'), pluginsRoot, oursDir],
      { env: { ...process.env, PATH: pathWithoutRust(), CONTEXT_EDITOR_TEST_PLATFORM: platform }, encoding: 'utf8' },
    )
    return JSON.parse(out)
  }
  const cases = [
    { platform: 'linux-arm64-musl', install: /`context-editor-linux-arm64-musl@0\.1\.0`/ },
    { platform: 'darwin-arm64', install: /`context-editor-darwin-arm64@0\.1\.0`/ },
    { platform: 'win32-x64', install: /`context-editor-win32-x64-gnu@0\.1\.0`/ },
    {
      platform: 'freebsd-x64',
      install: /No native package is published for freebsd-x64: install the WebAssembly build, `npm install context-editor-wasm32-wasi@0\.1\.0`/,
    },
  ]
  for (const { platform, install } of cases) {
    test(`${platform}: the plugin loads with the plugins around it; using it throws NATIVE_BINDING_MISSING naming what to install`, () => {
      const out = boot(platform)
      assert.equal(out.platform, platform.split('-').slice(0, 2).join('-'), 'precondition: the platform is simulated')
      assert.deepEqual(out.loaded, ['other-plugin-before', 'context-editor', 'other-plugin-after'])
      assert.deepEqual(out.others, ['other-plugin-before', 'other-plugin-after'], 'the other plugins work')
      assert.deepEqual(out.oursRegistered, ['ContextEditingMiddleware', 'ContextEditorSummarizationMiddleware'])
      for (const use of [out.createMiddleware, out.editor]) {
        assert.equal(use.name, 'ContextEditorError')
        assert.equal(use.code, 'NATIVE_BINDING_MISSING')
        assert.ok(use.message.includes(`on ${platform} (Node ${process.version})`), use.message)
        assert.match(use.message, install)
        assert.equal(use.hasCause, true, "the loader's errors are the cause")
      }
    })
  }
})
