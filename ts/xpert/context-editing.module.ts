// The NestJS side of the Xpert plugin, built on demand. Decorators are applied programmatically,
// with the host's own copies of @nestjs/common and @xpert-ai/plugin-sdk (loaded through
// `createRequire`, i.e. their CommonJS entries, as the host loads them), so that importing this
// package never needs NestJS or the SDK: LangChain users do not have them.
//
// Equivalent to:
//   @Injectable() @AgentMiddlewareStrategy('ContextEditingMiddleware')
//   class ContextEditingMiddlewareStrategy extends ContextEditingStrategy {}
//   @Injectable() @AgentMiddlewareStrategy('ContextEditorSummarizationMiddleware')
//   class SummarizationMiddlewareStrategy extends SummarizationStrategy {}
//   @XpertServerPlugin({ providers: [ContextEditingMiddlewareStrategy, SummarizationMiddlewareStrategy] })
//   class ContextEditingPluginModule implements IOnPluginBootstrap, IOnPluginDestroy {}

import { createRequire } from 'node:module'
import { MIDDLEWARE_NAME, XPERT_SUMMARIZATION_STRATEGY } from '../schema.js'
import { ContextEditingStrategy } from './context-editing.middleware.js'
import { SummarizationStrategy } from './summarization.middleware.js'

/** A class (NestJS `Type`). */
export type Class<T = unknown> = new (...args: any[]) => T

/** The decorated classes. */
export interface ContextEditingNestClasses {
  /** `@Injectable() @AgentMiddlewareStrategy('ContextEditingMiddleware')` strategy. */
  strategy: Class<ContextEditingStrategy>
  /** `@Injectable() @AgentMiddlewareStrategy('ContextEditorSummarizationMiddleware')` strategy. */
  summarization: Class<SummarizationStrategy>
  /** `@XpertServerPlugin({ providers: [strategy] })` module. */
  module: Class<{ onPluginBootstrap(): void; onPluginDestroy(): void }>
}

let cached: ContextEditingNestClasses | undefined

function load(id: string, resolveFrom: string | URL): any {
  try {
    return createRequire(resolveFrom)(id)
  } catch (e) {
    const err = new Error(
      `context-editor: the Xpert plugin needs \`${id}\`, which the Xpert host provides; it could not be loaded (${(e as Error).message}). ` +
        'Outside Xpert, use `ContextEditor` or `context-editor/langchain` instead.',
    )
    ;(err as Error & { cause?: unknown }).cause = e
    throw err
  }
}

/**
 * The NestJS strategy and module classes, created once. `resolveFrom` (a file path or URL) is
 * where `@nestjs/common` and `@xpert-ai/plugin-sdk` are resolved from; by default, this package's
 * location, which finds the host's copies the way Node finds any dependency.
 */
export function contextEditingNestClasses(resolveFrom: string | URL = import.meta.url): ContextEditingNestClasses {
  if (cached) return cached
  const common = load('@nestjs/common', resolveFrom)
  const sdk = load('@xpert-ai/plugin-sdk', resolveFrom)

  class ContextEditingMiddlewareStrategy extends ContextEditingStrategy {}
  common.Injectable()(ContextEditingMiddlewareStrategy)
  sdk.AgentMiddlewareStrategy(MIDDLEWARE_NAME)(ContextEditingMiddlewareStrategy)

  class SummarizationMiddlewareStrategy extends SummarizationStrategy {}
  common.Injectable()(SummarizationMiddlewareStrategy)
  sdk.AgentMiddlewareStrategy(XPERT_SUMMARIZATION_STRATEGY)(SummarizationMiddlewareStrategy)

  const logger = new common.Logger('ContextEditingPlugin')
  class ContextEditingPluginModule {
    onPluginBootstrap(): void {
      logger.debug?.(`${MIDDLEWARE_NAME} and ${XPERT_SUMMARIZATION_STRATEGY} strategies ready`)
    }
    onPluginDestroy(): void {
      logger.debug?.(`${MIDDLEWARE_NAME} plugin stopped`)
    }
  }
  sdk.XpertServerPlugin({
    imports: [],
    providers: [ContextEditingMiddlewareStrategy, SummarizationMiddlewareStrategy],
    exports: [ContextEditingMiddlewareStrategy, SummarizationMiddlewareStrategy],
  })(ContextEditingPluginModule)

  cached = { strategy: ContextEditingMiddlewareStrategy, summarization: SummarizationMiddlewareStrategy, module: ContextEditingPluginModule }
  return cached
}

/** The `@XpertServerPlugin` module class (what `register()` mounts). */
export function contextEditingPluginModule(resolveFrom?: string | URL): ContextEditingNestClasses['module'] {
  return contextEditingNestClasses(resolveFrom).module
}
