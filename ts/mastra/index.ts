/**
 * `context-editor/mastra`: context editing for Mastra agents, as an input processor.
 *
 * ```ts
 * import { Agent } from '@mastra/core/agent'
 * import { ContextEditingProcessor } from 'context-editor/mastra'
 *
 * const agent = new Agent({
 *   name: 'reader', instructions, model, tools,
 *   inputProcessors: [new ContextEditingProcessor({ trigger: { tokens: 100000 }, keep: { messages: 3 } })],
 * })
 * ```
 *
 * Mastra runs input processors on the messages of each `generate()` / `stream()` call (the thread's
 * remembered messages and the new input) before its step loop starts; the processor returns them
 * edited (Mastra's own `MastraMessageV2` shape: cleared results are their `tool-invocation` with
 * `result` replaced). What the processor returns is what that call's model sees; memory keeps what
 * it stored. With `recall` (from `createRecall()`), the processor remembers the unedited messages,
 * so the `recall_tool_result` tool (`recall.answer`) returns a cleared result's exact original.
 * No import of `@mastra/core` is made.
 */
import { type AdapterOptions, adapter } from '../formats/adapter.js'
import { type Recall, splitRecall } from '../recall.js'

export type { AdapterOptions, AdapterReport } from '../formats/adapter.js'

/** A Mastra input processor (`inputProcessors: [...]` on an `Agent`). */
export class ContextEditingProcessor {
  readonly name = 'context-editor'
  readonly #edit: ReturnType<typeof adapter>['edit']
  readonly #recall: Recall | undefined

  constructor(options: AdapterOptions & { recall?: Recall } = {}) {
    const { recall, editing } = splitRecall(options)
    this.#recall = recall
    this.#edit = adapter(editing, 'mastra.processInput').edit
  }

  async processInput({ messages }: { messages: unknown[] }): Promise<any[]> {
    if (!Array.isArray(messages) || messages.length === 0) return messages
    // Mastra's own messages, unedited: where the recall tool finds a cleared result's original.
    if (this.#recall !== undefined) await this.#recall.remember(messages)
    const { messages: edited, changed } = await this.#edit(messages, 'mastra')
    return changed ? (edited as any[]) : messages
  }
}

/** `new ContextEditingProcessor(options)`. */
export function contextEditingProcessor(options: AdapterOptions & { recall?: Recall } = {}): ContextEditingProcessor {
  return new ContextEditingProcessor(options)
}
