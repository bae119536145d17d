// Caller messages and wire form, both ways. This module is the only place that knows the message
// shapes (LangChain instances from @langchain/core 0.3.x or 1.x, LangChain dicts, `StoredMessage`
// dumps, OpenAI chat-completions messages): it converts them to wire form for the binding, and
// applies a plan back onto *new* message objects. It never mutates the caller's arrays or messages
// and never uses `instanceof` (a plugin and its host may hold different copies of @langchain/core).
//
// The parts, each depending only on those above it:
// - wire/fields.ts: reads of the caller's objects that Object.prototype pollution cannot reach,
//   and error-message descriptions of values;
// - wire/shapes.ts: which shape (and role) a message is in, its content's text and limits;
// - wire/fingerprint.ts: has a message seen before changed? (the memo of conversions rests on it);
// - wire/locate.ts: which field of a message threw while it was read;
// - wire/convert.ts: one message to wire form (`toWire`, through `readWire`);
// - wire/memo.ts: the memo of conversions and fingerprints, whole conversations (`toWireMessages`);
// - wire/columns.ts: lengths-only conversations as columns (`toColumns`), the approx-mode wire;
// - wire/copy.ts: copies of a message with some fields changed, never running the caller's code;
// - wire/edits.ts, wire/breakpoints.ts: what each plan operation does to a message;
// - wire/check-plan.ts: a hand-made plan read and checked against the messages (`applyPlan`);
// - wire/apply.ts: a plan applied to a conversation, at once or in pieces;
// - wire/packed.ts: a session call's packed plan (`PackedPlan`) back into a plan.

export { type AnyMessage, type MessageShape, MAX_ITEMS, MAX_MESSAGES, textOf } from './wire/shapes.js'
export { field, hasField, isList, isPolluted, jsonText, notePollution, own, sameList } from './wire/fields.js'
export { fingerprint, unchanged } from './wire/fingerprint.js'
export { messageError } from './wire/locate.js'
export { messageList, systemPromptText, toWire, type WireCache, type WireOptions } from './wire/convert.js'
export { forgetMessage, toWireMessages, toWireRemembered } from './wire/memo.js'
export {
  appendSession,
  columnarWire,
  columnsCarry,
  countHeld,
  countHeldAsync,
  countSession,
  planSession,
  planSessionAsync,
  primedAtLoad,
  setColumnarWire,
  setTextColumns,
  type Tail,
  toColumns,
} from './wire/columns.js'
export { countCacheBreakpoints } from './wire/breakpoints.js'
export type { ApplicablePlan } from './wire/check-plan.js'
export { applyEdits, applyEditsInPieces, applyPlan, listCopy, type Applied, type ApplyOptions, type ClearedMemo } from './wire/apply.js'
