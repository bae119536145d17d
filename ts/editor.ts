import { ContextEditorError, fromNative } from './errors.js'
import { NativeContextEditor } from './native.js'
import { SUMMARY_EMPTY, SUMMARY_PATH, summaryTextOf } from './summary.js'
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
  applyPlan,
  applyPlanInPieces,
  type ApplyOptions,
  type ClearedMemo,
  countCacheBreakpoints,
  systemPromptText,
  toWireMessages,
  toWireRemembered,
  unchanged,
  type WireCache,
  type WireOptions,
} from './wire.js'
import type { PackedPlan, PlanOp, WireMessage } from './native.js'

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
   * text (empty, blank, `null`, only reasoning), they are kept and the report warns `summary_empty`.
   * @throws {ContextEditorError} `INVALID_SUMMARY` (path `summary`) for an answer that cannot be a
   * summary, `SUMMARY_FAILED` (with `cause`) when it throws or rejects.
   */
  summarize?: ((request: SummaryRequest) => SummaryAnswer | Promise<SummaryAnswer>) | null
}

/** What a summarizer may return: the text, or a model's response / message, or content blocks. */
export type SummaryAnswer = string | { content?: unknown } | ReadonlyArray<unknown> | null | undefined

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
  /** Conversations the native editor holds, by first message (see `#conversation`). */
  readonly #conversations = new WeakMap<object, Conversation[]>()
  #nextSession = 1
  /** Cleared copies made by earlier calls (an agent's history is cleared again on every call). */
  readonly #cleared: ClearedMemo = new WeakMap()

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

  #wireOptions(messageTokens?: EditContext['messageTokens']): WireOptions {
    return {
      sendText: this.#sendText,
      sendToolText: this.#sendToolText,
      placeholders: this.#placeholders,
      cache: this.#wireCache,
      messageTokens: messageTokens ?? undefined,
    }
  }

  #context(messages: unknown, context: EditContext | null | undefined): WireContext {
    const ctx = toWireContext(context)
    if (this.#breakpoints) ctx.cacheBreakpointsInUse = countCacheBreakpoints(messages, context?.systemPrompt, context?.tools)
    return ctx
  }

  #wire(messages: unknown, context: EditContext | null | undefined): [WireMessage[], WireContext] {
    const wire = toWireMessages(messages, this.#wireOptions(context?.messageTokens))
    return [wire, this.#context(messages, context)]
  }

  /**
   * The conversation `messages` continues, with `reuse` = how many of its first messages may be
   * the very objects of that conversation's previous call (check them with `#unchangedUpTo`): the
   * native editor holds those converted and counted, so only the rest crosses the boundary.
   * `undefined` when sessions do not apply.
   */
  #conversation(messages: readonly unknown[], context: EditContext | null | undefined): Pick | undefined {
    if (!Array.isArray(messages) || messages.length === 0 || context?.messageTokens) return undefined
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
    const fresh: Conversation = { id: this.#nextSession++ >>> 0, refs: [], prints: [], busy: false, used: ++useClock, list }
    list.push(fresh)
    return { conv: fresh, reuse: 0 }
  }

  #forget(list: Conversation[], conv: Conversation): void {
    const k = list.indexOf(conv)
    if (k >= 0) list.splice(k, 1)
    this.#native.dropSession(conv.id)
  }

  /** The end of the run of `messages[from..to)` that are the conversation's own, unchanged. */
  #unchangedUpTo(messages: readonly unknown[], conv: Conversation, from: number, to: number): number {
    let i = from
    while (i < to && messages[i] === conv.refs[i] && unchanged(messages[i], conv.prints[i])) i++
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
    return [this.#sendText ? out : JSON.stringify(out), i]
  }

  #tail(messages: readonly unknown[], from: number, to: number, prints: Array<unknown[] | undefined>): string | WireMessage[] {
    return this.#piece(messages, from, to, prints)[0]
  }

  #remember(conv: Conversation, messages: readonly unknown[], reuse: number, prints: Array<unknown[] | undefined>): void {
    conv.refs = messages.slice()
    conv.prints.length = reuse
    for (const p of prints) conv.prints.push(p)
  }

  /** Plans through the conversation's native session; on a miss, sends everything once. */
  #planSession(messages: readonly unknown[], ctx: WireContext, pick: Pick, checked = false): Planned {
    const { conv } = pick
    let reuse = checked ? pick.reuse : this.#unchangedUpTo(messages, conv, 0, pick.reuse)
    try {
      let prints: Array<unknown[] | undefined> = []
      let packed = this.#native.planSessionSync(conv.id, reuse, this.#tail(messages, reuse, messages.length, prints), ctx)
      if (packed === null) {
        reuse = 0
        prints = []
        packed = this.#native.planSessionSync(conv.id, 0, this.#tail(messages, 0, messages.length, prints), ctx)
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
    return { plan, unchangedBelow: reuse, session: { conv, previous, refs: conv.refs, words: packed.ops, strings, opsFrom } }
  }

  /**
   * `#planSession` off the event loop: checking a long held history, sending a long tail and
   * counting it go in pieces, yielding in between; the counting and planning run on the pool.
   * Short next calls run on this thread (cheaper than the pool's round trip).
   */
  async #planSessionAsync(messages: readonly unknown[], ctx: WireContext, pick: Pick): Promise<Planned> {
    const { conv } = pick
    const n = messages.length
    conv.busy = true
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
          let packed = await this.#native.planSession(conv.id, sent, piece, ctx)
          if (packed === null) {
            reuse = 0
            prints = []
            packed = await this.#native.planSession(conv.id, 0, this.#tail(messages, 0, n, prints), ctx)
          }
          // Plans that come back together are unpacked in turns too.
          await nextTurn()
          return this.#planned(conv, messages, reuse, prints, packed!)
        }
        if (this.#native.appendSessionSync(conv.id, sent, piece)) {
          sent = end
        } else {
          // Evicted meanwhile: start over from the first message (appending at 0 always succeeds).
          reuse = 0
          sent = 0
          prints = []
        }
        await nextTurn()
      }
    } catch (e) {
      this.#forget(conv.list, conv)
      throw fromNative(e)
    } finally {
      conv.busy = false
    }
  }

  #planSync(messages: readonly AnyMessage[], context: EditContext | null | undefined): Planned {
    const ctx = this.#context(messages, context)
    const pick = this.#conversation(messages, context)
    if (pick !== undefined) return this.#planSession(messages, ctx, pick)
    const wire = toWireMessages(messages, this.#wireOptions(context?.messageTokens))
    try {
      if (!this.#sendText) return { plan: JSON.parse(this.#native.planJsonSync(JSON.stringify(wire), ctx)) as EditPlan, unchangedBelow: 0 }
      return { plan: this.#native.planSync(wire, ctx), unchangedBelow: 0 }
    } catch (e) {
      throw fromNative(e)
    }
  }

  async #planAsync(messages: readonly AnyMessage[], context: EditContext | null | undefined): Promise<Planned> {
    const ctx = this.#context(messages, context)
    const pick = this.#conversation(messages, context)
    if (pick !== undefined) return this.#planSessionAsync(messages, ctx, pick)
    const wire = toWireMessages(messages, this.#wireOptions(context?.messageTokens))
    try {
      if (!this.#sendText) return { plan: JSON.parse(await this.#native.planJson(JSON.stringify(wire), ctx)) as EditPlan, unchangedBelow: 0 }
      return { plan: await this.#native.plan(wire, ctx), unchangedBelow: 0 }
    } catch (e) {
      throw fromNative(e)
    }
  }

  /**
   * Plans the edits: index-based operations on `messages` plus the report. Use it to apply edits
   * to your own objects; `edit` does that for you.
   *
   * The editor remembers the conversations it has seen (at most 64, least recently used first,
   * 256 MB of text in all): when `messages` continues one (the same message objects, unchanged,
   * plus new ones, as an agent's successive model calls send), only the new messages are
   * converted and counted. Message objects are treated as values: a field replaced on a message
   * is noticed; an in-place edit deep inside a tool call's `args` object is not (call
   * `clearCache()` after such an edit).
   * @throws {ContextEditorError} `INVALID_MESSAGE` naming the message index and field.
   */
  plan(messages: readonly AnyMessage[], context?: EditContext | null): EditPlan {
    return this.#planSync(messages, context).plan
  }

  /**
   * `plan` with the counting and planning on the libuv thread pool; a long history crosses to
   * the native side in pieces, yielding to the event loop in between.
   */
  async planAsync(messages: readonly AnyMessage[], context?: EditContext | null): Promise<EditPlan> {
    return (await inFlight(() => this.#planAsync(messages, context))).plan
  }

  /**
   * Edits `messages`: returns a new array in which orphaned tool results are gone and old tool
   * results are cleared when the trigger holds. The input is never mutated.
   * @throws {ContextEditorError} `INVALID_MESSAGE` naming the message index and field.
   */
  edit<T extends AnyMessage>(messages: readonly T[], context?: EditContext | null): EditResult<T> {
    const planned = this.#planSync(messages, context)
    const { plan } = planned
    if (!plan.summary || !context?.summarize) {
      return keepOutput(planned, finish(this, messages, plan, context, undefined, this.#applyOptions(planned)))
    }
    // The callback runs before the plan is applied: apply it to the messages and context that
    // were planned, whatever the callback does to the caller's array or context (as `editAsync`).
    const snapshot = Array.prototype.slice.call(messages) as T[]
    const recount = recountContext(context)
    const summary = checkSummary(askSummary(context, plan.summary))
    return keepOutput(planned, finish(this, snapshot, plan, recount, summary, this.#applyOptions(planned)))
  }

  #applyOptions({ plan, unchangedBelow, session }: Planned): ApplyOptions {
    const prefix = session !== undefined && !plan.summary ? reusedPrefix(session, unchangedBelow) : undefined
    return { memo: this.#cleared, memoBelow: unchangedBelow, prefix }
  }

  /**
   * `edit` with the counting and planning on the libuv thread pool; `context.summarize` may be
   * async. A long history crosses the boundary and is applied in pieces, yielding to the event
   * loop in between (the array is snapshotted first, so later changes to it do not matter).
   */
  async editAsync<T extends AnyMessage>(messages: readonly T[], context?: EditContext | null): Promise<EditResult<T>> {
    return inFlight(() => this.#editAsync(messages, context))
  }

  async #editAsync<T extends AnyMessage>(messages: readonly T[], context: EditContext | null | undefined): Promise<EditResult<T>> {
    const snapshot = Array.isArray(messages) ? messages.slice() : messages
    const planned = await this.#planAsync(snapshot, context)
    const { plan } = planned
    let summary: string | undefined
    let recount = context
    if (plan.summary && context?.summarize) {
      recount = recountContext(context)
      summary = checkSummary(await askSummaryAsync(context, plan.summary))
    }
    const options = this.#applyOptions(planned)
    if (snapshot.length - (options.prefix?.upTo ?? 0) <= APPLY_PIECE || plan.summary) {
      return keepOutput(planned, finish(this, snapshot, plan, recount, summary, options))
    }
    return keepOutput(planned, result(await applyPlanInPieces(snapshot, plan, options, APPLY_PIECE, nextTurn), plan))
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

/** A conversation the native editor holds as session `id`. */
interface Conversation {
  id: number
  /** The messages of its previous call, and their fingerprints then. */
  refs: unknown[]
  prints: Array<unknown[] | undefined>
  /** A call on it is in flight (async): others must not use it meanwhile. */
  busy: boolean
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
  words: Uint32Array
  strings: string[]
  opsFrom: (first: number) => PlanOp[]
}

/** An edit's output, kept (as a copy) to be reused by the conversation's next edit. */
interface Output {
  /** `conv.refs` of the call it came from. */
  refs: unknown[]
  words: Uint32Array
  strings: string[]
  messages: unknown[]
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

const PACKED_KINDS = ['remove', 'clear_tool_result', 'remove_thinking', 'cache_breakpoint'] as const

/**
 * The plan from its packed form (see `PackedPlan`). The report, the bulk of the text when many
 * results are cleared, is parsed when first read.
 */
function unpack(packed: PackedPlan): { plan: EditPlan; strings: string[]; opsFrom: (first: number) => PlanOp[] } {
  const extra = JSON.parse(packed.extra) as { strings: string[]; ops: PlanOp[]; summary?: EditPlan['summary'] }
  const words = packed.ops
  /** The operations from the `first`-th on, as objects (an edit that reuses its previous output needs only the last few). */
  const opsFrom = (first: number): PlanOp[] => {
    const ops = new Array<PlanOp>(Math.max(0, (words.length >>> 2) - first))
    for (let k = 0, w = first * 4; w < words.length; k++, w += 4) {
      const kind = words[w]
      const index = words[w + 1]
      if (kind === 1) {
        ops[k] = { type: 'clear_tool_result', index, placeholder: extra.strings[words[w + 2]], strategy: extra.strings[words[w + 3]] }
      } else if (kind === 9) {
        ops[k] = extra.ops[words[w + 2]]
      } else {
        ops[k] = { type: PACKED_KINDS[kind], index }
      }
    }
    return ops
  }
  const plan = {} as EditPlan
  let ops: PlanOp[] | undefined
  Object.defineProperty(plan, 'ops', {
    enumerable: true,
    configurable: true,
    get(): PlanOp[] {
      ops ??= opsFrom(0)
      return ops
    },
    set(value: PlanOp[]) {
      ops = value
    },
  })
  if (extra.summary) plan.summary = extra.summary
  const handle = packed.report
  let report: EditReport | undefined
  Object.defineProperty(plan, 'report', {
    enumerable: true,
    configurable: true,
    get(): EditReport {
      report ??= JSON.parse(handle.json()) as EditReport
      return report
    },
    set(value: EditReport) {
      report = value
    },
  })
  return { plan, strings: extra.strings, opsFrom }
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
  const before = last.words
  let upTo = unchangedBelow
  let w = 0
  for (; w < words.length && w < before.length; w += 4) {
    const index = words[w + 1]
    if (index >= upTo) break
    // Kind 9 refers to operations kept apart (compared only by position): not reused.
    if (words[w] === 9 || words[w] !== before[w] || index !== before[w + 1] || words[w + 2] !== before[w + 2] || words[w + 3] !== before[w + 3]) break
  }
  if (w < words.length) upTo = Math.min(upTo, words[w + 1])
  if (w < before.length) upTo = Math.min(upTo, before[w + 1])
  let removed = 0
  let v = 0
  for (; v < w && words[v + 1] < upTo; v += 4) if (words[v] === 0) removed++
  return upTo > 0 ? { messages: last.messages, length: upTo - removed, upTo, rest: session.opsFrom(v >>> 2) } : undefined
}

/** Keeps a copy of an edit's output on its conversation, for the next edit (see `reusedPrefix`). */
function keepOutput<T>(planned: Planned, res: EditResult<T>): EditResult<T> {
  const session = planned.session
  if (session !== undefined) {
    session.conv.output = planned.plan.summary
      ? undefined
      : { refs: session.refs, words: session.words, strings: session.strings, messages: res.messages.slice() }
  }
  return res
}

/**
 * Calls `context.summarize` (as a method of `context`) with its own deep copy of the request: the
 * plan keeps the original, so whatever the callback does to its copy changes nothing that is
 * applied (and a callback that sorts or annotates it for its own use does not fail). Its throw is
 * the summarizer's error.
 */
function askSummary(context: EditContext, request: SummaryRequest): unknown {
  const summarize = context.summarize
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
async function askSummaryAsync(context: EditContext, request: SummaryRequest): Promise<unknown> {
  const written = askSummary(context, request)
  try {
    return await written
  } catch (e) {
    throw summaryFailed(e)
  }
}

function summaryFailed(e: unknown): ContextEditorError {
  const what = e instanceof Error ? e.message : String(e)
  return new ContextEditorError('SUMMARY_FAILED', `summary: context.summarize threw: ${what}`, { path: SUMMARY_PATH, cause: e })
}

/**
 * The summary text of what the summarizer returned; `''` = no text (a failed summary, reported by
 * `finish`). A Promise here comes from the synchronous `edit`: its rejection is not left unhandled.
 * @throws {ContextEditorError} `INVALID_SUMMARY` (path `summary`), see `summaryTextOf`.
 */
function checkSummary(written: unknown): string {
  if (written instanceof Promise) written.catch(() => {})
  return summaryTextOf(written)
}

/** The context fields a recount reads, copied before the summarizer runs (it may change them). */
function recountContext(context: EditContext): EditContext {
  const wire = toWireContext(context)
  const counts = context.messageTokens
  return {
    systemPrompt: wire.systemPrompt,
    tools: wire.tools,
    model: wire.model,
    maxInputTokens: wire.maxInputTokens,
    messageTokens: Array.isArray(counts) ? counts.slice() : undefined,
  }
}

/**
 * The context for counting `out`: per-message counts (`messageTokens`) are given by input index,
 * so each output message takes the count of the input message it is; new messages (the summary,
 * cleared copies) are counted by the editor's method.
 */
function contextFor(context: EditContext | null | undefined, messages: readonly unknown[], out: readonly unknown[]): EditContext | null | undefined {
  const counts = context?.messageTokens
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

function finish<T extends AnyMessage>(
  editor: ContextEditor,
  messages: readonly T[],
  plan: EditPlan,
  context: EditContext | null | undefined,
  summary: string | undefined,
  apply: ApplyOptions,
): EditResult<T> {
  // `''`: the summarizer answered with no text. An empty summary must never replace history.
  const written = summary === '' ? undefined : summary
  const out = applyPlan(messages, plan, { ...apply, summary: written })
  if (plan.summary) {
    const report = plan.report
    if (written === undefined) {
      report.warnings.push(
        summary === undefined
          ? {
              code: 'summary_skipped',
              message: 'a `summarize` edit fired but no `context.summarize` was given; the messages it would replace were kept',
            }
          : {
              code: SUMMARY_EMPTY,
              message: 'the summarizer returned no text (empty, blank, or only reasoning); the messages it would replace were kept',
            },
      )
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
    const max = report.maxInputTokens
    report.overMaxInputTokens = max !== undefined && max !== null && report.tokensAfter > max
    report.warnings = report.warnings.filter((w) => w.code !== 'over_max_input_tokens')
    if (report.overMaxInputTokens) {
      report.warnings.push({ code: 'over_max_input_tokens', message: `${report.tokensAfter} tokens exceed the model's input limit of ${max}` })
    }
  }
  return result(out, plan)
}

/** The result of an edit; its report is read from the plan (and parsed) only when used. */
function result<T>(messages: T[], plan: EditPlan): EditResult<T> {
  return {
    messages,
    get report(): EditReport {
      return plan.report
    },
    set report(value: EditReport) {
      plan.report = value
    },
  }
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
