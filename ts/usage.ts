// Counting anchored to what the provider reported (`tokenCountMethod: "usage"`), and the correction
// it teaches the other methods.
//
// A provider reports the input size of every call it answers. When the newest AI message of a
// request carries that usage, the request's size is: that call's reported input, plus that AI
// message's output, plus the counted size of everything after it. The reported input measured the
// request *as sent* then, after this middleware's edits; what those edits freed (counted) is added
// back, since the edits are planned again on the full history. The core takes the result as an
// anchor (`anchorIndex`, `anchorTokens`): totals are the anchor plus the counted size of what
// follows, and what edits free is counted as before.
//
// An anchor is used only when it is known to be fresh: the middleware saw the call that produced the
// AI message (a request of exactly the messages before it), and every one of those messages is the
// same object, unchanged since (the shim's fingerprints), with the same system prompt and tools.
// Otherwise (`stale`: something at or before the anchor changed; `unverified`: that call was not
// seen by this middleware; `truncated`: the report is under half of what was counted as sent, a
// prompt the server cut; `implausible`: more than `MAX_CORRECTION` times what was counted as sent,
// or an output no model writes, no size of this request) the fallback method counts and the report
// says why. The anchored AI message itself must be the call's answer as it came back: the same
// usage, and unchanged since (its fingerprint then), not an edited copy or another message.
//
// Usage is read from (first found; a report of no input tokens is none: no request has no input, and
// LangChain writes 0 when a provider left the count out, as Ollama does for a cached prompt):
// LangChain's `usage_metadata` (`input_tokens`, which includes
// `input_token_details.cache_read` / `cache_creation`; when the details exceed it, the provider left
// cached tokens out and they are added), `response_metadata.usage` in OpenAI's shape
// (`prompt_tokens`, `completion_tokens`) or Anthropic's (`input_tokens` + `cache_creation_input_tokens`
// + `cache_read_input_tokens`, `output_tokens`) or Bedrock Converse's (`inputTokens` +
// `cacheReadInputTokens` + `cacheWriteInputTokens`, `outputTokens`), `response_metadata.tokenUsage`
// (LangChain's older OpenAI field), a plain message's own `usage`, and raw answers kept beside a
// message: Gemini's `usageMetadata` (`promptTokenCount`, `candidatesTokenCount`) and Ollama's
// `prompt_eval_count` / `eval_count`.
//
// Reasoning tokens the provider reports inside the output (`output_token_details.reasoning`,
// `completion_tokens_details.reasoning_tokens`) are taken off the output when the message does not
// carry that reasoning (no thinking / reasoning blocks): it is not sent again. Anthropic's raw usage
// (input + cache creation + cache read), when beside a smaller `usage_metadata.input_tokens`, wins.
//
// The correction: true / counted of the anchored call's request (its reported input over the count
// the middleware made of what it sent). When it is off by more than `USAGE_CORRECTION_THRESHOLD`,
// later totals of the conversation are multiplied by it (any counting method), until a newer report
// says otherwise.

import { fingerprint, unchanged, field } from './wire.js'

/**
 * The largest correction (true / counted) a conversation is corrected by: the core's bound on
 * `tokenCorrection`. A report more than this many times what was counted as sent is no size of that
 * request (`implausible`); a recovery that learns a larger ratio corrects later calls by this much.
 */
export const MAX_CORRECTION = 100

/**
 * More output tokens than any model writes in one answer (the largest limits are 128k–200k): a
 * report beyond it is `implausible`, never an anchor.
 */
export const MAX_REPORTED_OUTPUT = 1_000_000

/** Relative disagreement between reported and counted size above which counts are corrected. */
export const USAGE_CORRECTION_THRESHOLD = 0.1

/**
 * A reported input under this share of what was counted as sent is no tokenizer difference but a
 * prompt the server cut (Ollama truncates silently past `num_ctx`; so do some proxies): it is
 * neither an anchor nor a correction, which would scale later counts down and let the cutting grow.
 */
export const TRUNCATION_RATIO = 0.5

/** Usage an AI message carries. */
export interface Usage {
  input: number
  output: number
  /** Where it was read: `usage_metadata`, `response_metadata.usage`, `response_metadata.tokenUsage`, `usage`, `usageMetadata`, `response_metadata.prompt_eval_count`. */
  source: string
}

/** What the report says about the anchor of a call. */
export interface AnchorReport {
  /**
   * `used`; `none` (no AI message with usage); `stale` (something at or before it changed since its
   * call); `unverified` (its call was not seen); `truncated` (the provider reported under
   * `TRUNCATION_RATIO` of what was counted as sent: it cut the prompt, as Ollama does past `num_ctx`);
   * `implausible` (more than `MAX_CORRECTION` times what was counted as sent, or more output than
   * `MAX_REPORTED_OUTPUT`).
   */
  status: 'used' | 'none' | 'stale' | 'unverified' | 'truncated' | 'implausible'
  /** The anchored AI message's index. */
  index?: number
  /** The reported input and output, and where they were read. */
  input?: number
  output?: number
  source?: string
  /** The anchor given to the counter: input + output + what that call's edits freed. */
  tokens?: number
  /** Why it is stale: the first index found changed (`-1`: the system prompt or tools). */
  changedAt?: number
}

function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined
}

function get(o: unknown, key: string): unknown {
  if (o === null || typeof o !== 'object') return undefined
  try {
    return field(o, key)
  } catch {
    return undefined
  }
}

/** A report of `input` and `output` tokens; none without both, or of no input (see above). */
function reported(input: number | undefined, output: number | undefined): Omit<Usage, 'source'> | undefined {
  return input === undefined || input === 0 || output === undefined ? undefined : { input, output }
}

/** `input` plus the cache reads and writes a provider lists beside it (`undefined` while `input` is). */
function withCached(input: number | undefined, u: unknown, read: string, write: string): number | undefined {
  return input === undefined ? undefined : input + (count(get(u, read)) ?? 0) + (count(get(u, write)) ?? 0)
}

/** LangChain `usage_metadata`: `input_tokens` includes the cache details unless they exceed it. */
function langchainUsage(u: unknown): Omit<Usage, 'source'> | undefined {
  const input = count(get(u, 'input_tokens'))
  const details = get(u, 'input_token_details')
  const cached = (count(get(details, 'cache_read')) ?? 0) + (count(get(details, 'cache_creation')) ?? 0)
  return reported(input !== undefined && cached > input ? input + cached : input, count(get(u, 'output_tokens')))
}

/**
 * OpenAI's `usage` (`prompt_tokens`), Anthropic's (`input_tokens` and the cache fields beside it) or
 * Bedrock Converse's (`inputTokens`, without the cache's reads and writes, which it lists beside).
 */
function providerUsage(u: unknown): Omit<Usage, 'source'> | undefined {
  const prompt = count(get(u, 'prompt_tokens'))
  if (prompt !== undefined) return reported(prompt, count(get(u, 'completion_tokens')))
  const input = count(get(u, 'input_tokens'))
  const output = count(get(u, 'output_tokens'))
  if (input !== undefined && output !== undefined) return reported(withCached(input, u, 'cache_read_input_tokens', 'cache_creation_input_tokens'), output)
  return reported(withCached(count(get(u, 'inputTokens')), u, 'cacheReadInputTokens', 'cacheWriteInputTokens'), count(get(u, 'outputTokens')))
}

/**
 * Where usage is read when neither LangChain's `usage_metadata` nor `response_metadata.usage` has
 * it, in order: LangChain's older OpenAI field, a plain message's own `usage`, and raw answers kept
 * beside a message by hosts and older integrations: Gemini's `usageMetadata` (`promptTokenCount`,
 * cached content included; `candidatesTokenCount`) and Ollama's counts (`prompt_eval_count` is left
 * out when the prompt was cached).
 */
const FALLBACKS: ReadonlyArray<readonly [string, (message: unknown, response: unknown) => Omit<Usage, 'source'> | undefined]> = [
  ['response_metadata.tokenUsage', (_, r) => reported(count(get(get(r, 'tokenUsage'), 'promptTokens')), count(get(get(r, 'tokenUsage'), 'completionTokens')))],
  ['usage', (m) => providerUsage(get(m, 'usage'))],
  [
    'usageMetadata',
    (m, r) => {
      const gemini = (u: unknown) => reported(count(get(u, 'promptTokenCount')), count(get(u, 'candidatesTokenCount')))
      return gemini(get(r, 'usageMetadata')) ?? gemini(get(m, 'usageMetadata'))
    },
  ],
  ['response_metadata.prompt_eval_count', (_, r) => reported(count(get(r, 'prompt_eval_count')), count(get(r, 'eval_count')))],
]

/** The usage an AI message carries, or `undefined`. Never throws. */
export function usageOf(message: unknown): Usage | undefined {
  const found = reportedUsage(message)
  if (found === undefined) return undefined
  // Reasoning the provider counted in the output but the message does not carry (OpenAI's
  // reasoning_tokens, Gemini's thoughts) is not sent again: the next request is that much smaller.
  const reasoning = reasoningOf(message)
  if (reasoning > 0 && reasoning <= found.output && !carriesReasoning(message)) found.output -= reasoning
  return found
}

function reportedUsage(message: unknown): Usage | undefined {
  const response = get(message, 'response_metadata')
  const raw = get(response, 'usage')
  const b = providerUsage(raw)
  // Anthropic's own usage beside LangChain's: its input + cache fields is the true input, also where
  // an older @langchain/anthropic left the cached tokens out of usage_metadata.input_tokens.
  const anthropic =
    b !== undefined && (count(get(raw, 'cache_read_input_tokens')) !== undefined || count(get(raw, 'cache_creation_input_tokens')) !== undefined)
  const a = langchainUsage(get(message, 'usage_metadata'))
  if (a && !(anthropic && b.input > a.input)) return { ...a, source: 'usage_metadata' }
  // A streamed answer's raw usage is its first event's (Anthropic's message_start: 1 output token);
  // LangChain's sum of the stream is the output.
  if (b) return { input: b.input, output: a?.output ?? b.output, source: 'response_metadata.usage' }
  for (const [source, read] of FALLBACKS) {
    const found = read(message, response)
    if (found) return { ...found, source }
  }
  return undefined
}

/** Reasoning tokens counted in the output: LangChain's detail, OpenAI's chat or Responses usage. */
function reasoningOf(message: unknown): number {
  const details = [
    get(get(get(message, 'usage_metadata'), 'output_token_details'), 'reasoning'),
    get(get(get(get(message, 'response_metadata'), 'usage'), 'completion_tokens_details'), 'reasoning_tokens'),
    get(get(get(get(message, 'response_metadata'), 'usage'), 'output_tokens_details'), 'reasoning_tokens'),
    get(get(get(message, 'usage'), 'completion_tokens_details'), 'reasoning_tokens'),
  ]
  for (const d of details) {
    const n = count(d)
    if (n !== undefined) return n
  }
  return 0
}

/** Whether the message itself holds its reasoning (thinking / reasoning blocks), sent again with it. */
function carriesReasoning(message: unknown): boolean {
  const content = get(message, 'content')
  if (Array.isArray(content)) {
    for (const block of content) {
      const type = get(block, 'type')
      if (type === 'thinking' || type === 'redacted_thinking' || type === 'reasoning') return true
    }
  }
  const kwargs = get(message, 'additional_kwargs')
  return get(kwargs, 'reasoning') !== undefined
}

/** Whether `m` is an AI / assistant message (LangChain instance or dict, stored, OpenAI). */
export function isAssistant(m: unknown): boolean {
  if (m === null || typeof m !== 'object') return false
  try {
    const getType = get(m, '_getType')
    if (typeof getType === 'function') {
      const t = getType.call(m)
      return t === 'ai' || t === 'AIMessageChunk'
    }
    const type = get(m, 'type')
    const role = get(m, 'role')
    if (type === 'ai' || role === 'assistant' || role === 'ai') return true
    // A stored message: { type: 'ai', data }
    return get(get(m, 'data'), 'type') === 'ai'
  } catch {
    return false
  }
}

/** One model call as the middleware made it. */
export interface CallRecord {
  /** The request's messages (before edits) and their fingerprints then. */
  refs: readonly unknown[]
  prints: ReadonlyArray<unknown[] | undefined>
  /** The system prompt and tools, as text. */
  fixed: string
  /** The sent request as counted, uncorrected; `undefined` when the call was anchored (not known). */
  countedSent?: number
  /** The sent request's size as the call's report gave it (anchored or corrected). */
  expected?: number
  /** What the call's edits freed, counted, uncorrected. */
  freed: number
  /** The usage of the answer the call returned, when it carried one, and its fingerprint then. */
  answer?: { input: number; output: number; print?: string | undefined }
}

const MAX_RECORDS = 4

/** The calls of one conversation the middleware remembers (the newest few). */
export class CallLog {
  readonly #records: CallRecord[] = []

  add(record: CallRecord): void {
    const same = this.#records.findIndex((r) => r.refs.length === record.refs.length)
    if (same >= 0) this.#records.splice(same, 1)
    this.#records.push(record)
    if (this.#records.length > MAX_RECORDS) this.#records.shift()
  }

  /**
   * A recovery sent a re-edited request instead of the one recorded for `refs` (the same messages):
   * the record takes that request's count and what it freed, so the answer's usage anchors right.
   */
  resent(refs: readonly unknown[], sent: Pick<CallRecord, 'countedSent' | 'expected' | 'freed'>): void {
    this.#update(refs, sent)
  }

  /** The answer of the call recorded for `refs` carried this usage. */
  answered(refs: readonly unknown[], answer: NonNullable<CallRecord['answer']>): void {
    this.#update(refs, { answer })
  }

  #update(refs: readonly unknown[], patch: Partial<CallRecord>): void {
    for (let k = this.#records.length - 1; k >= 0; k--) {
      const r = this.#records[k]!
      if (r.refs.length === refs.length && r.refs.every((m, i) => m === refs[i])) {
        this.#records[k] = { ...r, ...patch }
        return
      }
    }
  }

  /** The call whose request was `messages[0..index)`. */
  find(index: number): CallRecord | undefined {
    for (let k = this.#records.length - 1; k >= 0; k--) if (this.#records[k]!.refs.length === index) return this.#records[k]
    return undefined
  }
}

/** The fingerprints of `messages` (the shim's, as the editor's change check takes them). */
export function printsOf(messages: readonly unknown[]): Array<unknown[] | undefined> {
  return messages.map((m) => fingerprint(m))
}

/** The first index below `upTo` where `messages` differ from what `record` saw; -1 when none. */
function firstChange(messages: readonly unknown[], record: CallRecord, upTo: number): number {
  for (let i = 0; i < upTo; i++) {
    const m = messages[i]
    if (m !== record.refs[i] || !unchanged(m, record.prints[i])) return i
  }
  return -1
}

/**
 * What an AI message costs, as text: its content, tool calls and kwargs as JSON, compared by value
 * (an equal copy is the same answer; an edit in place, a shorter text or a removed call is not). Not
 * its `name` (createAgent names the answer after the call returns it) nor its `response_metadata`
 * (hosts add to it). `undefined` for a non-object or what JSON cannot hold.
 */
export function answerPrint(m: unknown): string | undefined {
  if (m === null || typeof m !== 'object') return undefined
  const data = get(m, 'data')
  const f = get(m, 'content') === undefined && data !== null && typeof data === 'object' ? data : m
  try {
    return JSON.stringify([get(f, 'content') ?? null, get(f, 'tool_calls') ?? null, get(f, 'additional_kwargs') ?? null])
  } catch {
    return undefined
  }
}

/** Whether `m` is the answer recorded: the same usage, and what it costs as it came back. */
function isAnswer(m: unknown, usage: Usage, answer: NonNullable<CallRecord['answer']>): boolean {
  if (answer.input !== usage.input || answer.output !== usage.output) return false
  return answer.print === undefined || answerPrint(m) === answer.print
}

/**
 * The anchor of a call: the newest AI message, its usage, and whether the call that produced it is
 * known and unchanged. `fixed` is the call's system prompt and tools as text.
 */
export function findAnchor(messages: readonly unknown[], log: CallLog, fixed: string): { report: AnchorReport; record?: CallRecord; usage?: Usage } {
  let index = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (isAssistant(messages[i])) {
      index = i
      break
    }
  }
  if (index < 0) return { report: { status: 'none' } }
  const usage = usageOf(messages[index])
  if (usage === undefined) return { report: { status: 'none', index } }
  const base: AnchorReport = { status: 'unverified', index, input: usage.input, output: usage.output, source: usage.source }
  const record = log.find(index)
  if (record === undefined) return { report: base, usage }
  if (record.fixed !== fixed) return { report: { ...base, status: 'stale', changedAt: -1 }, usage }
  // The AI message there must be that call's answer as it came back (its usage, its fields), not
  // another one put in its place (a subagent's answer, a summary made by another call) nor an edit of it.
  if (record.answer !== undefined && !isAnswer(messages[index], usage, record.answer)) return { report: { ...base, status: 'stale', changedAt: index }, usage }
  const changed = firstChange(messages, record, index)
  if (changed >= 0) return { report: { ...base, status: 'stale', changedAt: changed }, usage }
  const sent = record.countedSent ?? record.expected
  if (sent !== undefined && usage.input < TRUNCATION_RATIO * sent) return { report: { ...base, status: 'truncated' }, usage }
  if ((sent !== undefined && usage.input > MAX_CORRECTION * Math.max(1, sent)) || usage.output > MAX_REPORTED_OUTPUT)
    return { report: { ...base, status: 'implausible' }, usage }
  return { report: { ...base, status: 'used', tokens: usage.input + usage.output + record.freed }, record, usage }
}
