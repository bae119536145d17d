// Our plugin beside the host's built-in plugins, in a real NestJS host with the real
// @xpert-ai/plugin-sdk registry (see shared/XPERT-HOST.md and fixtures/xpert-host/host.mjs).
//
// - The server always loads `@xpert-ai/plugin-agent-middlewares` first; it owns the strategy name
//   `SummarizationMiddleware` (options include `model`). Ours registers under its own name, so
//   existing built-in configurations keep running whichever plugin is discovered last, and
//   uninstalling ours leaves the built-in intact.
// - `ContextEditingMiddleware` is the one name we replace on purpose (a drop-in of the earlier
//   context-editing plugin, same options). With both installed the provider discovered last wins
//   the name, and uninstalling either removes the name (the registry keys strategies by name):
//   the README says so, and the last test shows it.
//
// The stand-ins are written into a temporary plugins folder as packages and loaded by name, as
// the host loads plugins.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bootHost } from './fixtures/xpert-host/host.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const OURS = { name: 'context-editor', dir: root }

/** A CommonJS plugin package registering one strategy `strategyName`, whose middleware says who made it. */
function standInSource(pluginName, strategyName, configSchema) {
  return `'use strict'
const common = require(${JSON.stringify(require.resolve('@nestjs/common'))})
const sdk = require(${JSON.stringify(require.resolve('@xpert-ai/plugin-sdk'))})
const options = ${JSON.stringify(Object.keys(configSchema.properties))}
class Strategy {
  constructor() {
    this.meta = { name: ${JSON.stringify(strategyName)}, label: { en_US: 'stand-in' }, icon: { type: 'svg', value: '<svg/>' }, configSchema: ${JSON.stringify(configSchema)} }
  }
  createMiddleware(config) {
    for (const k of Object.keys(config ?? {})) if (!options.includes(k)) throw new Error(k + ': unknown option')
    return { name: ${JSON.stringify(strategyName)}, madeBy: ${JSON.stringify(pluginName)}, config, beforeModel: async () => undefined }
  }
}
common.Injectable()(Strategy)
sdk.AgentMiddlewareStrategy(${JSON.stringify(strategyName)})(Strategy)
class PluginModule {}
sdk.XpertServerPlugin({ imports: [], providers: [Strategy], exports: [Strategy] })(PluginModule)
module.exports = {
  meta: { name: ${JSON.stringify(pluginName)}, version: '0.0.0-stand-in', category: 'middleware', icon: { type: 'svg', value: '<svg/>' }, displayName: 'stand-in', description: 'stand-in', keywords: [], author: 'tests' },
  register() { return { module: PluginModule, global: true } },
}
`
}

const BUILTIN = '@xpert-ai/plugin-agent-middlewares'
const OLD_CONTEXT_EDITING = '@xpert-ai/plugin-context-editing'
const builtinSummarizationSchema = {
  type: 'object',
  properties: {
    model: { type: 'object', 'x-ui': { component: 'ai-model-select' } },
    trigger: { type: 'object', properties: { fraction: { type: 'number' }, tokens: { type: 'number' }, messages: { type: 'number' } } },
    keep: { type: 'object', properties: { fraction: { type: 'number' }, tokens: { type: 'number' }, messages: { type: 'number' } } },
    summaryPrompt: { type: 'string' },
    summaryPrefix: { type: 'string' },
  },
}
const oldContextEditingSchema = {
  type: 'object',
  properties: {
    trigger: { type: 'object' },
    keep: { type: 'object' },
    excludeTools: { type: 'array' },
    placeholder: { type: 'string' },
    clearToolInputs: { type: 'boolean' },
  },
}
/** A configuration an operator saved for the built-in summarization node, `model` selected. */
const builtinConfig = { model: { copilotId: 'c1', modelProvider: 'deepseek', model: 'deepseek-chat' }, trigger: { tokens: 8000 }, keep: { messages: 6 } }

let pluginsDir
before(() => {
  pluginsDir = mkdtempSync(join(tmpdir(), 'ce-plugins-'))
  for (const [name, strategy, schema] of [
    [BUILTIN, 'SummarizationMiddleware', builtinSummarizationSchema],
    [OLD_CONTEXT_EDITING, 'ContextEditingMiddleware', oldContextEditingSchema],
  ]) {
    const dir = join(pluginsDir, 'node_modules', ...name.split('/'))
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '0.0.0-stand-in', main: 'index.cjs' }))
    writeFileSync(join(dir, 'index.cjs'), standInSource(name, strategy, schema))
  }
})
after(() => rmSync(pluginsDir, { recursive: true, force: true }))

const builtin = () => ({ name: BUILTIN, dir: pluginsDir })
const oldContextEditing = () => ({ name: OLD_CONTEXT_EDITING, dir: pluginsDir })

for (const order of ['built-in first (as the server loads it)', 'ours first']) {
  describe(`with the built-in summarization plugin, ${order}`, () => {
    let host
    before(async () => {
      host = await bootHost(order.startsWith('ours') ? [OURS, builtin()] : [builtin(), OURS])
    })
    after(async () => host?.close())

    test('both load; SummarizationMiddleware stays the built-in one and runs its saved configurations, model included', () => {
      const strategy = host.registry.get('SummarizationMiddleware')
      assert.ok(strategy.meta.configSchema.properties.model, 'the built-in schema, with its model field')
      const mw = strategy.createMiddleware(builtinConfig, {})
      assert.equal(mw.madeBy, BUILTIN)
      assert.deepEqual(mw.config, builtinConfig)
    })

    test('ours is reachable under its own name, beside ContextEditingMiddleware', () => {
      const ours = host.registry.get('ContextEditorSummarizationMiddleware')
      assert.equal(ours.meta.name, 'ContextEditorSummarizationMiddleware')
      assert.equal(ours.createMiddleware({ trigger: { tokens: 8000 } }, {}).name, 'ContextEditorSummarizationMiddleware')
      assert.equal(host.registry.get('ContextEditingMiddleware').meta.name, 'ContextEditingMiddleware')
      const names = host.registry.list().map((s) => s.meta.name)
      for (const n of ['SummarizationMiddleware', 'ContextEditorSummarizationMiddleware', 'ContextEditingMiddleware']) assert.ok(names.includes(n), n)
    })

    test('uninstalling ours leaves the built-in summarization intact and working', () => {
      host.uninstall('context-editor')
      assert.throws(() => host.registry.get('ContextEditorSummarizationMiddleware'), /No strategy found/)
      assert.throws(() => host.registry.get('ContextEditingMiddleware'), /No strategy found/)
      const mw = host.registry.get('SummarizationMiddleware').createMiddleware(builtinConfig, {})
      assert.equal(mw.madeBy, BUILTIN)
    })
  })
}

describe('uninstalling the built-in leaves ours intact', () => {
  test('ContextEditorSummarizationMiddleware and ContextEditingMiddleware still resolve', async () => {
    const host = await bootHost([builtin(), OURS])
    try {
      host.uninstall(BUILTIN)
      assert.throws(() => host.registry.get('SummarizationMiddleware'), /No strategy found/)
      assert.equal(host.registry.get('ContextEditorSummarizationMiddleware').createMiddleware({}, {}).name, 'ContextEditorSummarizationMiddleware')
      assert.equal(typeof host.registry.get('ContextEditingMiddleware').createMiddleware({}, {}).wrapModelCall, 'function')
    } finally {
      await host.close()
    }
  })
})

describe('ContextEditingMiddleware, which we replace on purpose, with the earlier context-editing plugin also installed', () => {
  for (const [label, plugins, winner] of [
    ['earlier plugin loaded first: ours, discovered last, serves the name', () => [oldContextEditing(), OURS], 'ours'],
    ['ours loaded first: the earlier plugin, discovered last, serves the name', () => [OURS, oldContextEditing()], OLD_CONTEXT_EDITING],
  ]) {
    test(label, async () => {
      const host = await bootHost(plugins())
      try {
        const mw = host.registry.get('ContextEditingMiddleware').createMiddleware({ trigger: { tokens: 1000 }, keep: { messages: 1 } }, {})
        assert.equal(mw.madeBy ?? 'ours', winner)
        // Uninstalling either plugin removes the name, for both: the registry keeps one strategy per name.
        host.uninstall(winner === 'ours' ? OLD_CONTEXT_EDITING : 'context-editor')
        assert.throws(() => host.registry.get('ContextEditingMiddleware'), /No strategy found/)
      } finally {
        await host.close()
      }
    })
  }
})
