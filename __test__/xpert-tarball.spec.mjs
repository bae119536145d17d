// The published artifact in a host: `npm pack`, then install the tarball into a plugins folder the
// way the Xpert server does (`npm install --no-save --legacy-peer-deps --prefix
// <root>/plugins/global/<pkg> <pkg>`), and boot the host from there. The host root's node_modules
// (a link to this repository's, which holds the SDK, NestJS and @langchain/core as a host has them)
// is where the plugin finds its host libraries. Offline: the tarball has no dependencies to fetch,
// and nothing is compiled on install.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { mkdtempSync, rmSync, symlinkSync, readFileSync, existsSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as Messages1 from '@langchain/core/messages'
import * as Tools1 from '@langchain/core/tools'
import { bootHost } from './fixtures/xpert-host/host.mjs'
import * as scenarios from './fixtures/xpert-host/scenarios.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

describe('Xpert host, plugin installed from the npm pack tarball', () => {
  let tmp, packed, pluginDir, installed, host
  before(async () => {
    tmp = realpathSync(mkdtempSync(join(tmpdir(), 'context-editor-host-')))
    symlinkSync(join(root, 'node_modules'), join(tmp, 'node_modules'), 'dir')
    ;[packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', tmp], root))
    pluginDir = join(tmp, 'plugins', 'global', 'context-editor')
    npm(['install', '--no-save', '--legacy-peer-deps', '--offline', '--no-audit', '--no-fund', '--prefix', pluginDir, join(tmp, packed.filename)], tmp)
    installed = join(pluginDir, 'node_modules', 'context-editor')
    host = await bootHost([{ name: 'context-editor', dir: pluginDir }])
  })
  after(async () => {
    await host?.close()
    if (tmp) rmSync(tmp, { recursive: true, force: true })
  })

  test('the tarball carries the compiled addon, the loader and dist/, and no Rust sources', () => {
    const files = packed.files.map((f) => f.path)
    for (const f of ['package.json', 'index.js', 'index.d.ts', 'context-editor.linux-x64-gnu.node', 'dist/index.js', 'dist/index.d.ts', 'dist/langchain/index.js', 'dist/xpert/index.js']) {
      assert.ok(files.includes(f), `${f} is packed`)
    }
    assert.ok(!files.some((f) => f.endsWith('.rs') || f.startsWith('target/') || f === 'Cargo.toml'), 'no Rust sources')
  })

  test('installing compiles nothing: no install scripts, the addon comes from the tarball', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'))
    for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(manifest.scripts?.[s], undefined, `no ${s} script`)
    assert.ok(existsSync(join(installed, 'context-editor.linux-x64-gnu.node')))
    assert.ok(!existsSync(join(installed, 'node_modules')), 'no dependencies were installed (host libraries are peers)')
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
      npm(['install', '--no-save', '--offline', '--no-audit', '--no-fund', '--prefix', app, join(tmp, packed.filename)], app)
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
