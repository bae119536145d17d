// The floors under the cold rows of benchmark/cold.mjs (issue #19): in the same run, what the least
// possible implementation of each guarantee costs, set against the peer of the row. A target below a
// floor cannot be met by any boundary design, only by giving up the guarantee the floor measures.
//
// - LangChain's own count (`countTokensApproximately`, what its `summarizationMiddleware` runs in
//   `beforeModel` when it does not summarize) against the least an exact copy of it must do: every
//   content's length, and the JSON length of every tool call's `args` (the length of
//   `JSON.stringify(tool_calls)` is not known without them; keys, ids and names are cheap), worked
//   out as `ContextEditor` does (ts/wire/json-length.ts `jsonLength`, without writing the text;
//   stringified where that answers -1). JSON text needs no lone-surrogate check: it escapes them.
// - The same plus the lone-surrogate check on each of those strings, as `ContextEditor` makes it
//   (ts/wire/shapes.ts `isWellFormed`: V8's for short strings; a long one is searched for its first
//   code unit past U+00FF, which costs nothing on a one-byte string, and checked natively from
//   there): what our `INVALID_MESSAGE` for a lone UTF-16 surrogate costs.
// - The JS single pass of the cold-edit rows next to both.
//
// Each floor is a loop over the caller's messages with nothing else in it: no format detection, no
// other field read, no memo, no native call, no copies.

import { jsonLength } from '../dist/wire/json-length.js'
import { isWellFormed } from '../dist/wire/shapes.js'
import { jsClearToolUses } from './js-reference.mjs'

const OPTIONS = { trigger: { tokens: 100000 }, keep: { messages: 3 } }

/** The JSON length of a call's `args`: measured where they are plain data, else stringified. */
function argsJsonLength(args) {
  const n = jsonLength(args)
  return n >= 0 ? n : (JSON.stringify(args) ?? '').length
}

/** Every content length and the JSON length of every call's `args`: the least a LangChain-exact approx count reads. */
export function countFloor(messages) {
  let n = 0
  for (const m of messages) {
    const c = m.content
    if (typeof c === 'string') n += c.length
    else if (Array.isArray(c)) for (const b of c) n += typeof b === 'string' ? b.length : typeof b?.text === 'string' ? b.text.length : 0
    const calls = m.tool_calls
    if (calls?.length) for (const k of calls) n += argsJsonLength(k.args)
  }
  return n
}

/** `countFloor` with each string checked for a lone surrogate, with the check `ContextEditor` makes on every string it reads. */
export function checkedFloor(messages) {
  let n = 0
  let bad = 0
  for (const m of messages) {
    const c = m.content
    if (typeof c === 'string') {
      n += c.length
      if (!isWellFormed(c)) bad++
    } else if (Array.isArray(c)) {
      for (const b of c) {
        const s = typeof b === 'string' ? b : b?.text
        if (typeof s !== 'string') continue
        n += s.length
        if (!isWellFormed(s)) bad++
      }
    }
    const calls = m.tool_calls
    if (calls?.length) for (const k of calls) n += argsJsonLength(k.args)
  }
  return n + bad
}

/**
 * The floors' table for one conversation, timed as benchmark/cold.mjs times its rows (`time(f)`: CPU
 * time, median of runs), returned as table rows.
 * @param {(f: () => unknown) => Promise<number>} time
 */
export async function floorRows(messages, label, time, countApprox, ms) {
  const lc = await time(() => countApprox(messages))
  const floor = await time(() => countFloor(messages))
  const checked = await time(() => checkedFloor(messages))
  const pass = await time(() => jsClearToolUses(messages, OPTIONS))
  const x = (a, b) => `${(a / b).toFixed(2)}×`
  return [`| ${label} | ${ms(lc)} | ${ms(floor)} (${x(floor, lc)}) | ${ms(checked)} (${x(checked, lc)}) | ${ms(pass)} | ${x(checked, pass)} |`]
}
