import { ContextEditorError, fromNative } from './errors.js'
import { NativeContextEditor } from './native.js'
import type {
  EditContext as WireContext,
  EditorOptions,
  EditPlan,
  EditReport,
  SummaryRequest,
  TokenCountResult,
} from './native.js'
import { type AnyMessage, applyPlan, countCacheBreakpoints, systemPromptText, toWireMessages, type WireCache } from './wire.js'

/** What the model sees besides the messages, and what the editor should know about the model. */
export interface EditContext {
  /**
   * The model's input limit in tokens, for `fraction` options. When absent, the limit of a known
   * OpenAI model name is used; otherwise fraction triggers do not fire and the report says so.
   */
  maxInputTokens?: number | null
  /** The system prompt sent beside the messages (a string or a system message); its tokens count. */
  systemPrompt?: string | AnyMessage | null
  /** Tool definitions sent with the request (JSON-serializable objects or JSON strings); their tokens count. */
  tools?: ReadonlyArray<unknown> | null
  /** Model name for this call: picks the encoding in model mode and a known input limit. */
  model?: string | null
  /** Token counts from your own counter, per message index (like LangChain's `tokenCounter`). */
  messageTokens?: ReadonlyArray<number | null | undefined> | null
  /**
   * Writes the summary when a `summarize` edit fires: called with the planned request (its `prompt`
   * is ready to send to a model), returns the summary text. `edit` needs a synchronous function;
   * `editAsync` also accepts one returning a Promise. Without it, the messages are kept and the
   * report warns `summary_skipped`.
   */
  summarize?: ((request: SummaryRequest) => string | Promise<string>) | null
}

/** The result of `edit`: a new array (unchanged messages are the same objects) and the report. */
export interface EditResult<T> {
  messages: T[]
  report: EditReport
}

/**
 * Keeps an agent's conversation inside its context window: clears old tool results exactly like
 * LangChain's `ClearToolUsesEdit` / the Xpert `ContextEditingMiddleware`, in one linear pass, with
 * exact offline token counts in `"model"` mode.
 *
 * Accepts LangChain messages (instances from @langchain/core 0.3 or 1.x, dicts, `StoredMessage`
 * dumps) and OpenAI chat-completions messages; the output keeps each message's shape and class.
 * Never mutates its input.
 *
 * @example
 * ```ts
 * import { ContextEditor } from 'context-editor'
 * const editor = new ContextEditor({ trigger: { tokens: 100000 }, keep: { messages: 3 } })
 * const { messages, report } = editor.edit(history, { maxInputTokens: 128000, systemPrompt })
 * if (report.stillTriggered) console.warn('still over budget: summarize')
 * ```
 * @throws {ContextEditorError} `INVALID_OPTIONS` / `UNKNOWN_ENCODING` for bad options.
 */
export class ContextEditor {
  readonly options: Readonly<EditorOptions>
  readonly #native: NativeContextEditor
  readonly #sendText: boolean
  readonly #sendToolText: boolean
  readonly #placeholders: ReadonlySet<string>
  /** Conversions of messages seen before: an agent sends the same objects on every model call. */
  readonly #wireCache: WireCache = new WeakMap()
  readonly #breakpoints: boolean

  constructor(options: EditorOptions | null = {}) {
    try {
      this.#native = new NativeContextEditor(options ?? {})
    } catch (e) {
      throw fromNative(e)
    }
    this.options = Object.freeze({ ...(options ?? {}) })
    const edits: ReadonlyArray<{ type?: string; placeholder?: string | null }> =
      (options?.edits as ReadonlyArray<{ type?: string; placeholder?: string | null }> | null | undefined) ?? [
        { type: 'clear_tool_uses', ...(options ?? {}) },
      ]
    // Model and estimate modes count the text itself, and a summary prompt quotes it; approx mode
    // only needs lengths (truncation needs the text of tool results, to cut between characters).
    this.#sendText =
      options?.tokenCountMethod === 'model' ||
      options?.tokenCountMethod === 'estimate' ||
      edits.some((e) => e.type === 'summarize')
    this.#sendToolText = edits.some((e) => e.type === 'truncate_tool_results')
    const placeholders = new Set<string>()
    for (const e of edits) if ((e.type ?? 'clear_tool_uses') === 'clear_tool_uses') placeholders.add(e.placeholder ?? '[cleared]')
    this.#placeholders = placeholders
    this.#breakpoints = edits.some(
      (e) => (e.type ?? 'clear_tool_uses') === 'clear_tool_uses' && Boolean((e as { cacheBreakpoints?: unknown }).cacheBreakpoints),
    )
  }

  #wire(messages: unknown, context: EditContext | null | undefined): [ReturnType<typeof toWireMessages>, WireContext] {
    const wire = toWireMessages(messages, {
      sendText: this.#sendText,
      sendToolText: this.#sendToolText,
      placeholders: this.#placeholders,
      cache: this.#wireCache,
      messageTokens: context?.messageTokens ?? undefined,
    })
    const ctx = toWireContext(context)
    if (this.#breakpoints) ctx.cacheBreakpointsInUse = countCacheBreakpoints(messages, context?.systemPrompt, context?.tools)
    return [wire, ctx]
  }

  /**
   * Plans the edits: index-based operations on `messages` plus the report. Use it to apply edits
   * to your own objects; `edit` does that for you.
   * @throws {ContextEditorError} `INVALID_MESSAGE` naming the message index and field.
   */
  plan(messages: readonly AnyMessage[], context?: EditContext | null): EditPlan {
    const [wire, ctx] = this.#wire(messages, context)
    try {
      // Lengths only (approx): one JSON string each way beats reading every field through napi.
      // With text (model, estimate, summaries), napi's string copies beat escaping 4 MB of JSON.
      if (!this.#sendText) return JSON.parse(this.#native.planJsonSync(JSON.stringify(wire), ctx)) as EditPlan
      return this.#native.planSync(wire, ctx)
    } catch (e) {
      throw fromNative(e)
    }
  }

  /** `plan` with the counting and planning on the libuv thread pool. */
  async planAsync(messages: readonly AnyMessage[], context?: EditContext | null): Promise<EditPlan> {
    const [wire, ctx] = this.#wire(messages, context)
    try {
      if (!this.#sendText) return JSON.parse(await this.#native.planJson(JSON.stringify(wire), ctx)) as EditPlan
      return await this.#native.plan(wire, ctx)
    } catch (e) {
      throw fromNative(e)
    }
  }

  /**
   * Edits `messages`: returns a new array in which orphaned tool results are gone and old tool
   * results are cleared when the trigger holds. The input is never mutated.
   * @throws {ContextEditorError} `INVALID_MESSAGE` naming the message index and field.
   */
  edit<T extends AnyMessage>(messages: readonly T[], context?: EditContext | null): EditResult<T> {
    const plan = this.plan(messages, context)
    let summary: string | undefined
    if (plan.summary && context?.summarize) {
      const written = context.summarize(plan.summary)
      if (typeof (written as Promise<string>)?.then === 'function') {
        throw new ContextEditorError('INVALID_CONTEXT', 'context.summarize: returned a Promise (use `editAsync` for an asynchronous summarizer)', {
          path: 'summarize',
        })
      }
      summary = checkSummary(written)
    }
    return finish(this, messages, plan, context, summary)
  }

  /** `edit` with the counting and planning on the libuv thread pool; `context.summarize` may be async. */
  async editAsync<T extends AnyMessage>(messages: readonly T[], context?: EditContext | null): Promise<EditResult<T>> {
    const plan = await this.planAsync(messages, context)
    const summary = plan.summary && context?.summarize ? checkSummary(await context.summarize(plan.summary)) : undefined
    return finish(this, messages, plan, context, summary)
  }

  /** Counts the tokens of a request (messages + system prompt + tools) with the editor's method. */
  countTokens(messages: readonly AnyMessage[], context?: EditContext | null): TokenCountResult {
    const [wire, ctx] = this.#wire(messages, context)
    try {
      return this.#native.countTokensSync(wire, ctx)
    } catch (e) {
      throw fromNative(e)
    }
  }

  /** `countTokens` on the libuv thread pool. */
  async countTokensAsync(messages: readonly AnyMessage[], context?: EditContext | null): Promise<TokenCountResult> {
    const [wire, ctx] = this.#wire(messages, context)
    try {
      return await this.#native.countTokens(wire, ctx)
    } catch (e) {
      throw fromNative(e)
    }
  }

  /** Entries in the token cache (model mode caches the counts of long strings). */
  get cacheSize(): number {
    return this.#native.cacheSize
  }

  /** Empties the token cache. */
  clearCache(): void {
    this.#native.clearCache()
  }
}

function checkSummary(written: unknown): string {
  if (typeof written !== 'string') {
    throw new ContextEditorError('INVALID_CONTEXT', `context.summarize: expected a string summary, got ${typeof written}`, {
      path: 'summarize',
    })
  }
  return written
}

function finish<T extends AnyMessage>(
  editor: ContextEditor,
  messages: readonly T[],
  plan: EditPlan,
  context: EditContext | null | undefined,
  summary: string | undefined,
): EditResult<T> {
  const report = plan.report
  const out = applyPlan(messages, plan, { summary })
  if (plan.summary) {
    if (summary === undefined) {
      report.warnings.push({
        code: 'summary_skipped',
        message: 'a `summarize` edit fired but no `context.summarize` was given; the messages it would replace were kept',
      })
    }
    // The plan could not know the summary: recount what is actually returned (once per summary).
    report.tokensAfter = editor.countTokens(out, context).total
    report.messagesAfter = out.length
  }
  return { messages: out, report }
}

function contextError(field: string, what: string): ContextEditorError {
  return new ContextEditorError('INVALID_CONTEXT', `context.${field}: ${what}`, { path: field })
}

/** Converts the public call context to wire form, validating it. */
export function toWireContext(context: EditContext | null | undefined): WireContext {
  if (context === undefined || context === null) return {}
  if (typeof context !== 'object') {
    throw new ContextEditorError('INVALID_CONTEXT', `context: expected an object, got ${typeof context}`, { path: 'context' })
  }
  const out: WireContext = {}
  const max = context.maxInputTokens
  if (max !== undefined && max !== null) {
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max <= 0) {
      throw contextError('maxInputTokens', `expected a positive integer, got ${String(max)}`)
    }
    out.maxInputTokens = max
  }
  if (context.systemPrompt !== undefined && context.systemPrompt !== null) {
    const text = systemPromptText(context.systemPrompt)
    if (text === undefined) throw contextError('systemPrompt', 'expected a string or a system message')
    if (!text.isWellFormed()) throw contextError('systemPrompt', 'contains a lone UTF-16 surrogate (not valid Unicode)')
    out.systemPrompt = text
  }
  if (context.tools !== undefined && context.tools !== null) {
    if (!Array.isArray(context.tools)) throw contextError('tools', 'expected an array of tool definitions')
    out.tools = context.tools.map((t, k) => {
      if (typeof t === 'string') return t
      let s: string | undefined
      try {
        s = JSON.stringify(t)
      } catch (e) {
        throw contextError(`tools[${k}]`, `not JSON-serializable (${(e as Error).message})`)
      }
      if (s === undefined) throw contextError(`tools[${k}]`, 'not JSON-serializable')
      return s
    })
  }
  if (context.model !== undefined && context.model !== null) {
    if (typeof context.model !== 'string') throw contextError('model', `expected a string, got ${typeof context.model}`)
    out.model = context.model
  }
  return out
}
