// Lengths first (issue 19): in approx mode a pipeline with a `summarize` edit plans from the
// messages' lengths, the cheap wire, and only a plan that asks for a summary is made again with
// their text, which its prompt quotes (`ContextEditor`, ts/editor.ts). Here: the text wire of that
// second plan, whole or in paced pieces, and the switch the differential tests use to compare
// with the always-text path (`__alwaysSendText` in ts/internal.ts).

import type { WireMessage } from './native.js'
import { nextTurn, PIECE_CHARS } from './scheduler.js'
import { toWireRemembered, type WireOptions } from './wire.js'

let alwaysText = false

/**
 * Makes the editors constructed from now on plan summaries the way they did before lengths first
 * (every plan of a `summarize` pipeline crosses with text), or the normal way again (`false`).
 */
export function alwaysSendText(on: boolean): void {
  alwaysText = on
}

/** Whether editors made now send text whenever a summary may need it (see `alwaysSendText`). */
export function sendsTextAlways(): boolean {
  return alwaysText
}

/** `list` in wire form with `opts` (which send text), at once. */
export function textWire(list: readonly unknown[], opts: WireOptions): WireMessage[] {
  const wire = new Array<WireMessage>(list.length)
  for (let i = 0; i < list.length; i++) wire[i] = toWireRemembered(list[i], i, opts)[0]
  return wire
}

/**
 * `textWire` in pieces of about `PIECE_CHARS` characters with a turn of the event loop between
 * them, as a long history crosses asynchronously (scheduler.ts).
 */
export async function textWireInPieces(list: readonly unknown[], opts: WireOptions): Promise<WireMessage[]> {
  const wire = new Array<WireMessage>(list.length)
  let chars = 0
  for (let i = 0; i < list.length; i++) {
    chars += wireChars((wire[i] = toWireRemembered(list[i], i, opts)[0]))
    if (chars >= PIECE_CHARS && i + 1 < list.length) {
      chars = 0
      await nextTurn()
    }
  }
  return wire
}

/** The characters a wire message stands for (its texts, or their lengths when only those cross), plus 64. */
function wireChars(w: WireMessage): number {
  let chars = (w.content?.length ?? w.contentLength ?? 0) + (w.other?.length ?? w.otherLength ?? 0) + (w.thinking?.length ?? w.thinkingLength ?? 0) + 64
  if (w.toolCalls) for (const c of w.toolCalls) chars += c.args?.length ?? c.argsLength ?? 0
  return chars
}
