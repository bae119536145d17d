// The back-off of a failing summarizer (the summarization middlewares' `retryAfter`): after a
// failed summary the summarizer is left alone until `calls` model calls with a summary due have
// gone by, or `seconds` have passed since the failure, whichever comes first; a success ends it.
// Without it, a summarizer that is down was asked on every model call (28 failed requests in a
// 32-turn run), each one a wasted call and a delay.

/** Where a failing summarizer's back-off stands (see `retryAfter`). */
export interface SummaryBackoff {
  /** Failed summaries in a row. */
  failures: number
  /** Model calls since the last failure on which a summary was due and the summarizer was not asked. */
  skippedCalls: number
  /** Model calls still to go by before it is asked again (0 = it will be asked). */
  retryInCalls: number
  /** When it is asked again at the latest (ISO 8601). */
  retryAt: string
}

/** The back-off state of one middleware. */
export class Backoff {
  readonly #calls: number
  readonly #seconds: number
  #failures = 0
  #skipped = 0
  #since = 0

  constructor(retryAfter: { calls: number; seconds: number }) {
    this.#calls = retryAfter.calls
    this.#seconds = retryAfter.seconds
  }

  /** Whether the summarizer is to be left alone on this call (the call counts as skipped). */
  skip(): boolean {
    if (this.#failures === 0) return false
    if (this.#skipped >= this.#calls || Date.now() - this.#since >= this.#seconds * 1000) return false
    this.#skipped++
    return true
  }

  /** Records how the summarizer's answer went. */
  answered(ok: boolean): void {
    if (ok) {
      this.#failures = 0
      return
    }
    this.#failures++
    this.#skipped = 0
    this.#since = Date.now()
  }

  /** The state for the report; `null` while nothing failed since the last success. */
  state(): SummaryBackoff | null {
    if (this.#failures === 0) return null
    return {
      failures: this.#failures,
      skippedCalls: this.#skipped,
      retryInCalls: Math.max(0, this.#calls - this.#skipped),
      retryAt: new Date(this.#since + this.#seconds * 1000).toISOString(),
    }
  }
}
