// The conversations an editor's native side holds (sessions): a call that continues one sends
// and counts only its new messages. A conversation is found by its first message object; its
// messages are checked unchanged (by identity and fingerprint) up to where it grew; a long tail
// crosses in pieces off the event loop (scheduler.ts). The previous edit's output is kept on the
// conversation so the next edit copies the unchanged prefix instead of rebuilding it.

import { fromNative } from './errors.js'
import {
  HeldContext,
  type EditContext as WireContext,
  type EditPlan,
  type NativeContextEditor,
  type PackedPlan,
  type PlanOp,
  type TokenCountResult,
  type WireMessage,
} from './native.js'
import { sameWireContext, wireSnapshot } from './call-context.js'
import type { EditResult, Finished } from './edit-result.js'
import { CHECK_PIECE, CHECK_PIECE_ALONE, concurrentCalls, INLINE_HISTORY, INLINE_TAIL, nextTurn, PIECE_CHARS } from './scheduler.js'
import {
  appendSession,
  columnsCarry,
  countHeld,
  countHeldAsync,
  countSession,
  jsonText,
  messageError,
  planSession,
  planSessionAsync,
  type Tail,
  toColumns,
  toWireRemembered,
  unchanged,
  type ApplyOptions,
  type WireOptions,
} from './wire.js'
import { samePrefix, unpack, type StringTable } from './wire/packed.js'
import type { ShellMaker } from './wire/copy.js'

/** What the sessions need of their editor. */
export interface SessionHost {
  readonly native: NativeContextEditor
  /** Whether messages cross as objects with their text (else as columns of lengths). */
  readonly sendText: boolean
  /** How messages are converted (no per-message counts: a call with its own counts has no session). */
  wireOptions(): WireOptions
  /** Plans the messages whole, off the event loop (a session lost while a call was in flight). */
  planWholeAsync(messages: readonly unknown[], ctx: WireContext): Promise<Planned>
}

/** The conversations of one editor. */
export class Sessions {
  readonly #host: SessionHost
  /** Conversations the native editor holds, by first message (see `pick`). */
  #conversations = new WeakMap<object, Conversation[]>()
  /** Conversations with a call in flight (`clear` marks them stale). */
  readonly #busy = new Set<Conversation>()
  /** Drops the native session of a conversation whose first message was garbage-collected. */
  readonly #collected = new FinalizationRegistry<number>((id) => this.#host.native.dropSession(id))
  #nextSession = 1
  /** First messages of histories counted before (see `#heldFor`). */
  #countedHeads = new WeakSet<object>()

  constructor(host: SessionHost) {
    this.#host = host
  }

  /** Forgets every conversation; calls in flight finish on theirs, which is dropped then. */
  clear(): void {
    this.#conversations = new WeakMap()
    this.#countedHeads = new WeakSet()
    for (const conv of this.#busy) conv.stale = true
  }

  /**
   * Drops the conversations `list` is (from their first message): returns how many. A call in
   * flight keeps its session until it finishes.
   */
  forget(list: readonly unknown[]): number {
    let dropped = 0
    const head = list[0]
    const convs = head !== null && typeof head === 'object' ? this.#conversations.get(head) : undefined
    for (const conv of convs?.slice() ?? []) {
      const j = Math.min(list.length, conv.refs.length) - 1
      if (j < 0 || list[j] !== conv.refs[j]) continue
      dropped++
      if (conv.busy) conv.stale = true
      else this.#forget(conv.list, conv)
    }
    return dropped
  }

  /**
   * The conversation `messages` continues, with `reuse` = how many of its first messages may be
   * the very objects of that conversation's previous call (checked with `#unchangedUpTo`): the
   * native editor holds those converted and counted, so only the rest crosses the boundary.
   * `undefined` when sessions do not apply.
   */
  pick(messages: readonly unknown[], messageTokens: unknown): Pick | undefined {
    if (messages.length === 0 || messageTokens) return undefined
    const head = messages[0]
    if (head === null || typeof head !== 'object') return undefined
    const list = this.#listOf(head)
    // The usual case: the history grew by a turn, so the previous call's last message is still in
    // place. A conversation planned before goes first: one only counted (`count`) may hold the
    // same history in another form (a `clear_media` pipeline counts the messages it was given and
    // plans the ones it made).
    const idle = list.filter((c) => !c.busy && continues(messages, c))
    // (By `find`: an index read of an empty list would reach a key put on Object.prototype.)
    const conv = idle.find((c) => !c.counted) ?? idle.find((c) => c.counted)
    if (conv !== undefined) {
      conv.used = ++useClock
      return { conv, reuse: Math.min(messages.length, conv.refs.length) }
    }
    // Otherwise a new session: another thread sharing the first message object, or a history the
    // host rewrote (it is sent whole once, then grows again).
    return { conv: this.#fresh(list, head), reuse: 0 }
  }

  /** The conversations whose first message is `head` (a new list if none). */
  #listOf(head: object): Conversation[] {
    let list = this.#conversations.get(head)
    if (list === undefined) {
      list = []
      this.#conversations.set(head, list)
    }
    return list
  }

  /** A new conversation on `list` (the oldest idle one there forgotten when it is full). */
  #fresh(list: Conversation[], head: object): Conversation {
    if (list.length >= MAX_CONVERSATIONS_PER_HEAD) {
      const oldest = list.reduce<Conversation | undefined>((a, c) => (c.busy || (a !== undefined && a.used <= c.used) ? a : c), undefined)
      if (oldest !== undefined) this.#forget(list, oldest)
    }
    const fresh: Conversation = {
      id: this.#nextSession++ >>> 0,
      refs: [],
      prints: [],
      busy: false,
      stale: false,
      counted: false,
      used: ++useClock,
      list,
      held: undefined,
    }
    list.push(fresh)
    // Nothing else drops a finished conversation: when its first message is collected, so is its session.
    this.#collected.register(head, fresh.id, fresh)
    return fresh
  }

  #forget(list: Conversation[], conv: Conversation): void {
    const k = list.indexOf(conv)
    if (k >= 0) list.splice(k, 1)
    this.#collected.unregister(conv)
    this.#host.native.dropSession(conv.id)
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
    const { refs, prints } = conv
    let i = from
    try {
      while (i < to && messages[i] === refs[i] && unchanged(messages[i], prints[i])) i++
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
  #piece(messages: readonly unknown[], from: number, to: number, prints: Array<unknown[] | undefined>, maxChars = Infinity): [Tail, number] {
    const opts = this.#host.wireOptions()
    // Lengths only (approx): columns (ts/wire/columns.ts), unless a message cannot cross so.
    const columns = columnsCarry(this.#host.sendText) ? toColumns(messages, from, to, opts, prints, maxChars) : undefined
    if (columns !== undefined) return columns
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
    // Lengths only, as JSON (a message columns cannot carry, or columns switched off): one string
    // beats reading every field through napi. With text (model, estimate, summaries), napi's
    // string copies beat escaping megabytes of JSON.
    return [this.#host.sendText ? out : jsonText(out)!, i]
  }

  #tail(messages: readonly unknown[], from: number, to: number, prints: Array<unknown[] | undefined>): Tail {
    return this.#piece(messages, from, to, prints)[0]
  }

  #remember(conv: Conversation, messages: readonly unknown[], reuse: number, prints: Array<unknown[] | undefined>): void {
    // `messages` is this call's own copy of the caller's array (see `messageList`), never changed.
    conv.refs = messages as unknown[]
    // The fingerprints of a history that only grew (the usual next call) are appended in place: a
    // call still applying its plan reads only entries below its own length, which stay as they
    // were. Otherwise a new array (`__test__/sessions-history-changes.spec.mjs`).
    const next = reuse === conv.prints.length ? conv.prints : conv.prints.slice(0, reuse)
    for (let k = 0; k < prints.length; k++) next.push(prints[k])
    conv.prints = next
  }

  /**
   * The context to send for a call on `conv`: the one held for its previous call while `wire`
   * reads the same (an agent sends the same prompt and tools on every call), else `wire` held
   * anew. The binding then reads no field of it (see `HeldContext`, src/input/context.rs).
   */
  #context(conv: Conversation, wire: WireContext): WireContext | HeldContext {
    if (HeldContext === undefined) return wire
    const held = conv.held
    if (held !== undefined && sameWireContext(held.wire, wire)) return held.native
    const native = new HeldContext(wire)
    conv.held = { wire: wireSnapshot(wire), native }
    return native
  }

  /**
   * `countTokens` of `messages` through a session, or `undefined` when none applies (caller
   * counts, an empty history, a binding without sessions): count the whole history then.
   * - A history an edit holds (its output kept for the next edit), grown or not: its messages are
   *   checked unchanged, only the rest crosses and is measured, and the conversation is left as
   *   the edit left it (the next edit continues from there and reuses that edit's output). A
   *   history shorter than the one held, or rewritten, is counted whole.
   * - With `hold` (the editor's `countTokens`), any other history whose first message was
   *   counted before is counted through a conversation that then holds it: one it continues
   *   (counted before, or planned without an output kept), else a new one. A host that counts a
   *   growing history every turn sends only what is new each time from its second count on, and
   *   its next edit continues from the count.
   */
  count(messages: readonly unknown[], wire: WireContext, messageTokens: unknown, hold: boolean): TokenCountResult | undefined {
    const head = headOf(messages, messageTokens)
    if (head === undefined) return undefined
    return this.#countFrom(messages, wire, head, this.#editedFor(messages, head), hold)
  }

  /** `count` once `edited` (`#editedFor`) is known. */
  #countFrom(messages: readonly unknown[], wire: WireContext, head: object, edited: Conversation | undefined, hold: boolean): TokenCountResult | undefined {
    if (edited !== undefined) {
      const counted = this.#countEdited(messages, wire, edited)
      if (counted !== undefined || !hold) return counted
    }
    const found = hold ? this.#heldFor(messages, head) : undefined
    return found === undefined ? undefined : this.#countHere(messages, wire, found)
  }

  /**
   * A held count of `messages` through `found`, on this thread. A miss (the session evicted, or
   * cut back to a message it must measure again without the text for it) counts from nothing.
   */
  #countHere(messages: readonly unknown[], wire: WireContext, { conv, reuse }: Pick): TokenCountResult | undefined {
    try {
      const { from, tail, prints, ctx } = this.#heldTail(messages, wire, conv, reuse)
      const counted = countHeld(this.#host.native, conv.id, from, tail, ctx)
      if (counted === null && from > 0) return this.#countHere(messages, wire, { conv, reuse: 0 })
      return this.#counted(conv, messages, from, prints, counted)
    } catch (e) {
      this.#forget(conv.list, conv)
      throw fromNative(e)
    }
  }

  /**
   * `count` (with `hold`) off the event loop where it would be long: a conversation that holds
   * all but a few of `messages` is counted here (less than the thread pool's round trip), any
   * other on the pool (the messages still cross on this thread, as `countTokensAsync` always
   * sent them).
   */
  async countAsync(messages: readonly unknown[], wire: WireContext, messageTokens: unknown): Promise<TokenCountResult | undefined> {
    const head = headOf(messages, messageTokens)
    if (head === undefined) return undefined
    const n = messages.length
    const edited = this.#editedFor(messages, head)
    if (edited !== undefined) return this.#countFrom(messages, wire, head, edited, true)
    const found = this.#heldFor(messages, head)
    if (found === undefined) return undefined
    if (found.reuse > 0 && n - found.reuse <= INLINE_TAIL && n <= INLINE_HISTORY) return this.#countHere(messages, wire, found)
    const { conv, reuse } = found
    this.#inFlight(conv, true)
    try {
      const { from, tail, prints, ctx } = this.#heldTail(messages, wire, conv, reuse)
      const counted = await countHeldAsync(this.#host.native, conv.id, from, tail, ctx)
      if (counted === null && from > 0) return this.#countHere(messages, wire, { conv, reuse: 0 })
      return this.#counted(conv, messages, from, prints, counted)
    } catch (e) {
      this.#forget(conv.list, conv)
      throw fromNative(e)
    } finally {
      this.#inFlight(conv, false)
    }
  }

  /**
   * What a held count of `messages` on `conv` sends: its messages from `from` (the end of the run
   * of the first `reuse` that are still the conversation's own, unchanged), their fingerprints,
   * and the context.
   */
  #heldTail(
    messages: readonly unknown[],
    wire: WireContext,
    conv: Conversation,
    reuse: number,
  ): { from: number; tail: Tail; prints: Array<unknown[] | undefined>; ctx: WireContext | HeldContext } {
    const from = reuse > 0 ? this.#unchangedUpTo(messages, conv, 0, reuse) : 0
    const prints: Array<unknown[] | undefined> = []
    const tail = this.#tail(messages, from, messages.length, prints)
    return { from, tail, prints, ctx: this.#context(conv, wire) }
  }

  /** An idle conversation an edit holds (its output kept) that `messages` has whole (grown or the same). */
  #editedFor(messages: readonly unknown[], head: object): Conversation | undefined {
    return this.#conversations.get(head)?.find((c) => !c.busy && c.output !== undefined && c.refs.length <= messages.length && continues(messages, c))
  }

  /**
   * The conversation a held count of `messages` goes through: an idle one without an edit's
   * output that the history continues, else a new one; `undefined` (count the history whole) for
   * a binding without held counts, or a first message never counted before.
   */
  #heldFor(messages: readonly unknown[], head: object): Pick | undefined {
    if (typeof this.#host.native.countHeld !== 'function') return undefined
    const list = this.#conversations.get(head)
    const conv = list?.find((c) => !c.busy && c.output === undefined && continues(messages, c))
    if (conv !== undefined) {
      conv.used = ++useClock
      return { conv, reuse: Math.min(messages.length, conv.refs.length) }
    }
    // A history whose first message was never counted is counted whole, holding nothing: a host
    // that counts each request it parses (new objects every time) would otherwise fill the
    // sessions with histories never seen again, and push out those its agents continue.
    if (!this.#countedHeads.has(head)) {
      this.#countedHeads.add(head)
      return undefined
    }
    return { conv: this.#fresh(list ?? this.#listOf(head), head), reuse: 0 }
  }

  /** `count` through an edit's conversation `conv`, which it leaves as it was. */
  #countEdited(messages: readonly unknown[], wire: WireContext, conv: Conversation): TokenCountResult | undefined {
    const reuse = conv.refs.length
    if (this.#unchangedUpTo(messages, conv, 0, reuse) < reuse) return undefined
    const tail = this.#tail(messages, reuse, messages.length, [])
    const held = conv.held !== undefined && sameWireContext(conv.held.wire, wire) ? conv.held.native : wire
    try {
      return countSession(this.#host.native, conv.id, reuse, tail, held) ?? undefined
    } catch (e) {
      throw fromNative(e)
    }
  }

  /** Records a held count on its conversation (it now holds `messages`); `undefined` on a miss. */
  #counted(
    conv: Conversation,
    messages: readonly unknown[],
    reuse: number,
    prints: Array<unknown[] | undefined>,
    counted: TokenCountResult | null,
  ): TokenCountResult | undefined {
    // A count from nothing never misses (src/editor.rs, `countHeld`); should one, the history is
    // counted whole and the conversation starts again next time.
    if (counted === null) {
      this.#forget(conv.list, conv)
      return undefined
    }
    this.#remember(conv, messages, reuse, prints)
    conv.counted = true
    return counted
  }

  /** Plans through the conversation's native session; on a miss, sends everything once. */
  planSync(messages: readonly unknown[], wire: WireContext, pick: Pick, checked = false): Planned {
    const { conv } = pick
    let reuse = checked ? pick.reuse : this.#unchangedUpTo(messages, conv, 0, pick.reuse)
    try {
      const ctx = this.#context(conv, wire)
      let prints: Array<unknown[] | undefined> = []
      let packed = planSession(this.#host.native, conv.id, reuse, this.#tail(messages, reuse, messages.length, prints), ctx)
      if (packed === null) {
        reuse = 0
        prints = []
        packed = planSession(this.#host.native, conv.id, 0, this.#tail(messages, 0, messages.length, prints), ctx)
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
    conv.counted = false
    const { plan, strings, opsFrom } = unpack(packed)
    return {
      plan,
      unchangedBelow: reuse,
      session: { conv, previous, refs: conv.refs, prints: conv.prints, words: packed.ops, strings, opsFrom },
    }
  }

  /**
   * `planSync` off the event loop: checking a long held history, sending a long tail and
   * counting it go in pieces, yielding in between; the counting and planning run on the pool.
   * Short next calls run on this thread (cheaper than the pool's round trip).
   */
  async planAsync(messages: readonly unknown[], wire: WireContext, pick: Pick): Promise<Planned> {
    const { conv } = pick
    const n = messages.length
    this.#inFlight(conv, true)
    try {
      const ctx = this.#context(conv, wire)
      // Alone, the first piece runs at once; among others, in its turn.
      if (concurrentCalls() > 1) await nextTurn()
      let reuse = 0
      while (reuse < pick.reuse) {
        const stop = Math.min(pick.reuse, reuse + (concurrentCalls() > 1 ? CHECK_PIECE : CHECK_PIECE_ALONE))
        reuse = this.#unchangedUpTo(messages, conv, reuse, stop)
        if (reuse < stop) break
        if (reuse < pick.reuse) await nextTurn()
      }
      // Alone: concurrent calls inline would run back to back in one turn of the event loop.
      if (reuse > 0 && n - reuse <= INLINE_TAIL && n <= INLINE_HISTORY && concurrentCalls() === 1) {
        return this.planSync(messages, wire, { conv, reuse }, true)
      }
      let prints: Array<unknown[] | undefined> = []
      let sent = reuse
      for (;;) {
        const [piece, end] = this.#piece(messages, sent, n, prints, PIECE_CHARS)
        if (end === n) {
          let packed = await planSessionAsync(this.#host.native, conv.id, sent, piece, ctx)
          if (packed === null) {
            reuse = 0
            prints = []
            packed = await planSessionAsync(this.#host.native, conv.id, 0, this.#tail(messages, 0, n, prints), ctx)
          }
          // Plans that come back together are unpacked in turns too.
          await nextTurn()
          return this.#planned(conv, messages, reuse, prints, packed!)
        }
        if (!appendSession(this.#host.native, conv.id, sent, piece)) {
          // Evicted, or `clearCache()` ran, meanwhile. Starting over could be undone again by the
          // next eviction or clear, and again (a livelock): finish on this call's own messages,
          // without the session, and start a new one next time.
          conv.stale = true
          return await this.#host.planWholeAsync(messages, wire)
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
}

/** A conversation the native editor holds as session `id`. */
export interface Conversation {
  id: number
  /** The messages of its previous call, and their fingerprints then. */
  refs: unknown[]
  prints: Array<unknown[] | undefined>
  /** A call on it is in flight (async): others must not use it meanwhile. */
  busy: boolean
  /** Forgotten (`clearCache`, `forget`) or its session lost while a call was in flight: dropped when it ends. */
  stale: boolean
  /** Its last call was a count that moved it on (`Sessions.count` with `hold`), not a plan. */
  counted: boolean
  /** The output of an `edit` of it, and that call's plan (see `reusedPrefix`). */
  output?: Output
  used: number
  /** The list holding it (per first message). */
  list: Conversation[]
  /** The context of its latest call, as sent and as held natively (see `#context`). */
  held: { wire: WireContext; native: HeldContext } | undefined
}

export interface Pick {
  conv: Conversation
  /** Leading messages the session already holds. */
  reuse: number
}

export interface Planned {
  plan: EditPlan
  /** Messages below this index are unchanged since the previous call of the same conversation. */
  unchangedBelow: number
  /** For a plan made through a session: the packed plan, and the conversation's calls it follows. */
  session?: SessionPlan
}

export interface SessionPlan {
  conv: Conversation
  /** `conv.refs` of the previous call (what `unchangedBelow` was checked against) and of this one. */
  previous: unknown[]
  refs: unknown[]
  /** The fingerprints of `refs`, as this call found them. */
  prints: ReadonlyArray<unknown[] | undefined>
  words: Uint32Array
  strings: StringTable
  opsFrom: (first: number) => PlanOp[]
}

/** An edit's output, kept to be reused by the conversation's next edit. */
interface Output {
  /** `conv.refs` of the call it came from. */
  refs: unknown[]
  words: Uint32Array
  strings: StringTable
  /** The output as the editor keeps it: templates of the copies (see `Applied`), and where they are. */
  kept: unknown[]
  made: number[]
  makers: Array<ShellMaker | undefined>
}

/**
 * Whether `messages` continues `conv`'s history (grown, the same, or cut back): the message at
 * the end of what both hold is the very object it held there.
 */
function continues(messages: readonly unknown[], conv: Conversation): boolean {
  const j = Math.min(messages.length, conv.refs.length) - 1
  return j >= 0 && messages[j] === conv.refs[j]
}

/** The first message of `messages`, when sessions apply to them (no caller counts, an object first). */
function headOf(messages: readonly unknown[], messageTokens: unknown): object | undefined {
  if (messages.length === 0 || messageTokens) return undefined
  const head = messages[0]
  return head !== null && typeof head === 'object' ? head : undefined
}

/** Conversations kept per first message (threads that share one system-message object). */
const MAX_CONVERSATIONS_PER_HEAD = 8
let useClock = 0

/**
 * How much of the previous edit's output this edit can take as it is. The messages below
 * `unchangedBelow` are the previous call's own objects, unchanged; up to the first message where
 * the two plans' operations differ, the output is the same too (cleared copies included), so it
 * is copied instead of rebuilt. Only when that output came from the very call this one's
 * messages were checked against.
 */
export function reusedPrefix(session: SessionPlan, unchangedBelow: number): ApplyOptions['prefix'] {
  const last = session.conv.output
  if (last === undefined || last.refs !== session.previous || unchangedBelow === 0) return undefined
  const { upTo, ops, removed } = samePrefix(session.words, last.words, unchangedBelow, session.strings.sharedWith(last.strings))
  return upTo > 0 ? { kept: last.kept, made: last.made, makers: last.makers, length: upTo - removed, upTo, rest: session.opsFrom(ops) } : undefined
}

/**
 * Keeps an edit's output on its conversation, for the next edit (see `reusedPrefix`): the kept
 * templates, never the shells the caller got (which are the caller's to change).
 */
export function keepOutput<T>(planned: Planned, { result, applied }: Finished<T>): EditResult<T> {
  const session = planned.session
  if (session !== undefined) {
    session.conv.output = planned.plan.summary
      ? undefined
      : { refs: session.refs, words: session.words, strings: session.strings, kept: applied.kept, made: applied.made, makers: applied.makers }
  }
  return result
}
