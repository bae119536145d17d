// The `XpertPlugin` the package entry exports by default (`PLUGINS=context-editor`). Loading it
// needs no host library: the NestJS module is built in `register()`, and `config.schema` (zod)
// is created on first access with the host's zod.

import { createRequire } from 'node:module'
import { ICON } from './icon.js'
import { contextEditingPluginModule, type ContextEditingNestClasses } from './context-editing.module.js'

const require = createRequire(import.meta.url)
const pkg = require('../../package.json') as { name: string; version: string; keywords?: string[]; author?: unknown; homepage?: string }

/** `PluginMeta` of @metad/contracts, structurally. */
export interface ContextEditingPluginMeta {
  name: string
  version: string
  category: 'middleware'
  icon: { type: 'svg'; value: string }
  displayName: string
  description: string
  keywords: string[]
  author: string
  homepage?: string
}

/** What the host passes to `register` (`PluginContext` of @xpert-ai/plugin-sdk), structurally. */
export interface PluginContextLike {
  logger?: { log?(msg: string, meta?: unknown): void; debug?(msg: string, meta?: unknown): void }
  config?: object
}

/** `XpertPlugin` of @xpert-ai/plugin-sdk, structurally (no SDK types needed to import this package). */
export interface ContextEditingXpertPlugin {
  meta: ContextEditingPluginMeta
  /** `schema`: a zod `z.object({})` made with the host's zod on first access (no plugin-level settings). */
  config: { readonly schema: any; defaults: Record<string, never> }
  register(ctx?: PluginContextLike): { module: ContextEditingNestClasses['module']; global: true }
}

function authorOf(author: unknown): string {
  if (typeof author === 'string' && author) return author
  if (author && typeof author === 'object' && typeof (author as { name?: unknown }).name === 'string') {
    return (author as { name: string }).name
  }
  return 'context-editor contributors'
}

let zodSchema: unknown

/** The Xpert plugin: registers the `ContextEditingMiddleware` and `ContextEditorSummarizationMiddleware` agent-middleware strategies. */
export const plugin: ContextEditingXpertPlugin = {
  meta: {
    name: pkg.name,
    version: pkg.version,
    category: 'middleware',
    icon: { type: 'svg', value: ICON },
    displayName: 'Context Editing',
    description:
      'Keeps agent conversations inside the context window: clears old tool results sent to the model once a token, message, fraction or tool-use trigger is reached (LangChain ClearToolUsesEdit semantics, exact offline token counts, a Rust core).',
    keywords: pkg.keywords ?? ['context-editing', 'middleware'],
    author: authorOf(pkg.author),
    ...(pkg.homepage ? { homepage: pkg.homepage } : {}),
  },
  config: {
    /** The plugin has no plugin-level settings (options are per middleware node): `z.object({})`. */
    get schema(): any {
      if (zodSchema === undefined) {
        try {
          zodSchema = require('zod').z.object({})
        } catch {
          zodSchema = null
        }
      }
      return zodSchema ?? undefined
    },
    defaults: {},
  },
  register(ctx) {
    const module = contextEditingPluginModule()
    ctx?.logger?.log?.(`register ${pkg.name}@${pkg.version}: ContextEditingMiddleware, ContextEditorSummarizationMiddleware`)
    return { module, global: true }
  },
}
