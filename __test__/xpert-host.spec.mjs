// The Xpert plugin inside a real NestJS host wired like the Xpert server, with the real
// @xpert-ai/plugin-sdk 3.7.2, on @langchain/core 0.3.72 (what hosts pin, loaded as CommonJS like a
// host does) and on @langchain/core 1.x. The plugin is loaded by package name, as the host does:
// here through the package's self-reference; __test__/xpert-tarball.spec.mjs does it from `npm pack`.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readFileSync } from 'node:fs'
import * as Messages1 from '@langchain/core/messages'
import * as Tools1 from '@langchain/core/tools'
import { bootHost } from './fixtures/xpert-host/host.mjs'
import * as scenarios from './fixtures/xpert-host/scenarios.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

const cores = [
  {
    label: '@langchain/core 0.3.72 (CommonJS, as Xpert hosts pin it)',
    M: require('@langchain/core-03/messages'),
    tools: require('@langchain/core-03/tools'),
    version: require('@langchain/core-03/package.json').version,
  },
  { label: '@langchain/core 1.x', M: Messages1, tools: Tools1, version: require('@langchain/core/package.json').version },
]

describe('Xpert host (NestJS + @xpert-ai/plugin-sdk), plugin loaded by package name', () => {
  let host
  before(async () => {
    host = await bootHost([{ name: 'context-editor', dir: root }])
  })
  after(async () => {
    await host?.close()
  })

  test('the package entry is an XpertPlugin registered as a global module', () => {
    const [{ plugin, resolved }] = host.plugins
    assert.equal(resolved, join(root, 'dist', 'index.js'))
    assert.equal(plugin.meta.name, pkg.name)
    assert.equal(plugin.meta.version, pkg.version)
    assert.equal(plugin.meta.category, 'middleware')
    assert.equal(plugin.meta.icon.type, 'svg')
    assert.ok(plugin.meta.displayName && plugin.meta.description && plugin.meta.author)
    assert.ok(plugin.meta.keywords.includes('xpert'))
    assert.equal(typeof plugin.config.schema.parse, 'function', 'config.schema is a zod schema')
    assert.ok(host.logs.some((l) => l.msg.includes('ContextEditingMiddleware')))
  })

  test('hosts that require() ESM plugins get the same plugin (no top-level await anywhere)', () => {
    const mod = createRequire(join(root, 'noop.js'))('context-editor')
    assert.equal(mod.default ?? mod, host.plugins[0].plugin)
    for (const entry of ['context-editor/xpert', 'context-editor/langchain']) assert.ok(createRequire(join(root, 'noop.js'))(entry))
  })

  test('the registry resolves ContextEditingMiddleware to the plugin strategy with localized meta', () => {
    const strategy = host.registry.get('ContextEditingMiddleware')
    scenarios.hasLocalizedMeta(strategy)
    assert.ok(host.registry.list().includes(strategy))
  })

  for (const core of cores) {
    describe(core.label, () => {
      test(`runs on @langchain/core ${core.version}`, () => {
        assert.match(core.version, core.label.includes('0.3') ? /^0\.3\.72$/ : /^1\./)
      })
      test('the example JSON options clear old tool results for the model only', async () => {
        await scenarios.clearsWithExampleOptions({ strategy: host.registry.get('ContextEditingMiddleware'), ...core })
      })
      test('null from the UI means unset; below the trigger the request passes through', async () => {
        await scenarios.acceptsNullsFromTheUi({ strategy: host.registry.get('ContextEditingMiddleware'), ...core })
      })
      test('the system message and tools count, in approx, exact (offline) and estimate modes', async () => {
        await scenarios.countsSystemPromptAndModelMode({ strategy: host.registry.get('ContextEditingMiddleware'), ...core })
      })
    })
  }

  test('bad options fail in createMiddleware with a message naming the field', async () => {
    await scenarios.rejectsBadOptions({ strategy: host.registry.get('ContextEditingMiddleware') })
  })
})
