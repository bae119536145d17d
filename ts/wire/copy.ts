// Copies of a message with some fields changed (what every plan operation makes).
//
// A changed message is a copy: the same prototype (class), every own field, and only the edited
// fields different. Fields are copied as data, by assignment only where no setter can run: an own
// `"__proto__"` key (e.g. from `JSON.parse`) is a field to copy, not the copy's prototype, and a
// setter of the class must not run. A field that conversion reads or that a copy must carry, when the original gets it
// from its prototype (a getter, say an OpenAI message class whose `role` reads a private field), is
// kept on the copy as its own field if the copy would not read the same. Nested objects that an edit
// changes (`response_metadata`, a tool call, a content block) are copied the same way.
//
// `seal` freezes every object an edit creates inside a copy (its `response_metadata`, the marker, new
// `content` or `tool_calls` arrays, blocks, calls and their `args`), when the editor shares them
// between calls (see `ApplyOptions.freeze`); the caller's objects inside them are never frozen (that
// would change them). The message object itself, a LangChain message's `lc_kwargs` and a stored
// message's `data` are never frozen: LangChain's constructors write into the object they are given
// (`new AIMessage(m)` sets `m.tool_calls`, `mapStoredMessagesToChatMessages` hands `data` to one)
// and LangGraph's messages reducer gives a message without an id one (`m.id = …`,
// `m.lc_kwargs.id = …`). So the editor keeps its copies as private templates and hands each caller
// a fresh shell of them (`handOut`): the message object (and its `lc_kwargs` or `data`) is the
// caller's own, what is inside is frozen and shared.

import { invalidMessage } from '../errors.js'
import { OBJECT_PROTOTYPE, describe, field, hasField, isObject, polluted, sameList, throws } from './fields.js'
import { MAX_ITEMS, STORED, checkLength, kindOf, type AnyMessage, type Parts } from './shapes.js'

export type Seal = <T>(o: T) => T
export const keepOpen: Seal = (o) => o
export const seal: Seal = (o) => Object.freeze(o)

interface ProtoInfo {
  /** Of each list of kept fields (see `KEPT`), those the chain provides (getters, methods, prototype fields). */
  inherited: Map<readonly string[], string[]>
}

const protoInfos = new WeakMap<object, ProtoInfo>()

/**
 * Fields a copy must read as the original does, wherever the original keeps them: what conversion
 * reads and what edits copy, by the kind of object copied. (Only these: a LangChain message's
 * derived getters, `text` or `contentBlocks`, cost a walk of its content and need no keeping.)
 */
export const KEPT = {
  message: [
    '_getType',
    'role',
    'type',
    'content',
    'tool_calls',
    'tool_call_id',
    'name',
    'id',
    'response_metadata',
    'additional_kwargs',
    'data',
    'reasoning_content',
    'lc_kwargs',
  ],
  metadata: ['context_editing', 'cleared', 'truncated', 'cleared_tool_inputs', 'strategy', 'reasoning_content', 'reasoning', 'tool_calls'],
  block: ['type', 'text', 'id', 'mime_type', 'input', 'cache_control'],
  call: ['id', 'name', 'args', 'function', 'type', 'arguments'],
} as const satisfies Record<string, readonly string[]>

type Kept = (typeof KEPT)[keyof typeof KEPT]

/** What copying an instance of `proto` must know about its chain, found once per prototype. */
function infoOf(proto: object): ProtoInfo {
  let info = protoInfos.get(proto)
  if (info === undefined) {
    info = { inherited: new Map() }
    protoInfos.set(proto, info)
  }
  return info
}

/** The fields of `kept` that instances of `proto` get from their prototype chain. */
function inheritedOf(proto: object, kept: Kept): string[] {
  // What Object.prototype holds beyond its standard members is no field of any class (see `field`).
  if (polluted) return kept.filter((key) => hasField(proto, key))
  // The last answer first: a history's copies are mostly of one class in a row.
  if (proto === last.proto && kept === last.kept) return last.list
  const info = infoOf(proto)
  let list = info.inherited.get(kept)
  if (list === undefined) {
    list = kept.filter((key) => key in proto)
    info.inherited.set(kept, list)
  }
  last = { proto, kept, list }
  return list
}

let last: { proto: object | null; kept: Kept | undefined; list: string[] } = { proto: null, kept: undefined, list: [] }

function define(o: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true })
}

/**
 * Sets a field on a copy we made, as data: by assignment where that cannot reach a setter (an own
 * field, or a plain or prototype-less object and a key other than `__proto__`, while nothing was
 * put on Object.prototype, where it could be a setter or read-only), defined otherwise.
 */
function setField(o: object, key: string, value: unknown): void {
  if (key !== '__proto__' && (Object.hasOwn(o, key) || (!polluted && isPlainProto(Object.getPrototypeOf(o))))) assign(o as AnyMessage, key, value)
  else define(o, key, value)
}

/**
 * `o[key] = value`, by a named store for the fields edits set on every copy: a store by a key that
 * varies meets every class of message and metadata at one site, where V8 gives up on caching it
 * (applying a plan cost 6–10 % more per cleared result so, docs/performance.md).
 */
function assign(o: AnyMessage, key: string, value: unknown): void {
  switch (key) {
    case 'content':
      o.content = value
      return
    case 'response_metadata':
      o.response_metadata = value
      return
    case 'lc_kwargs':
      o.lc_kwargs = value
      return
    case 'context_editing':
      o.context_editing = value
      return
    case 'artifact':
      o.artifact = value
      return
    case 'tool_calls':
      o.tool_calls = value
      return
    default:
      o[key] = value
  }
}

function isPlainProto(proto: unknown): boolean {
  return proto === Object.prototype || proto === null
}

/** `Object.prototype.propertyIsEnumerable.call(o, key)`: reads the same own descriptor (a Proxy's trap alike). */
function isEnumerable(o: object, key: PropertyKey): boolean {
  return Object.getOwnPropertyDescriptor(o, key)?.enumerable === true
}

/**
 * A shallow copy that keeps the prototype (class identity) and every own enumerable field, as data;
 * `kept` are the fields it must read as `src` does even when they come from the prototype.
 * `sealed`: the copy will be frozen (see `plainCopy`).
 */
export function copyOf<T extends object>(src: T, kept: Kept = KEPT.message, sealed = false): T {
  const proto = Object.getPrototypeOf(src)
  // Spreading defines each own enumerable field as data on a plain object (an own `__proto__`
  // stays a field; no setter of the class, nor of a polluted Object.prototype, runs); the copy then
  // takes `src`'s prototype. Faster than assigning onto `Object.create(proto)`, which must first
  // rule out the class's setters.
  if (proto === Object.prototype) return sealed ? plainCopy(src) : { ...src }
  const copy = { ...src }
  Object.setPrototypeOf(copy, proto)
  if (proto === null) return copy
  for (const key of inheritedOf(proto, kept)) if (!Object.hasOwn(src, key)) keepInherited(copy as AnyMessage, src as AnyMessage, key)
  return copy
}

/**
 * A copy of the plain object `src`, to be frozen: `Object.assign` onto `{}` where that defines the
 * same fields as spreading (no own `__proto__` key to become the prototype, no setter put on
 * Object.prototype). V8 freezes its result about 15x faster than a spread's (~80 ns against
 * ~1.3 µs for a 6-field `lc_kwargs`); a spread is cheaper when the copy stays open.
 */
function plainCopy<T extends object>(src: T): T {
  return polluted || Object.hasOwn(src, '__proto__') ? { ...src } : Object.assign({}, src)
}

/** Makes the copy read `key` as `src` does, as its own field if its prototype would answer otherwise. */
function keepInherited(copy: AnyMessage, src: AnyMessage, key: string): void {
  if (key === '_getType') {
    if (typeof src._getType !== 'function') return
    const type: unknown = src._getType()
    // A method, like the class's: not an enumerable field.
    if (!typeReadsSame(copy, type)) Object.defineProperty(copy, key, { value: () => type, writable: true, configurable: true })
    return
  }
  const value: unknown = src[key]
  if (!readsSame(copy, key, value)) define(copy, key, value)
}

/** Whether `copy[key]` reads `want` (a getter that throws reads nothing). */
function readsSame(copy: AnyMessage, key: string, want: unknown): boolean {
  try {
    return Object.is(copy[key], want)
  } catch {
    return false
  }
}

/** Whether `copy._getType()` gives `want`. */
function typeReadsSame(copy: AnyMessage, want: unknown): boolean {
  try {
    return Object.is(copy._getType(), want)
  } catch {
    return false
  }
}

/** A copy of `src` with `fields` set (as data). */
export function withFields<T extends object>(src: T, fields: Record<string, unknown>, kept: Kept = KEPT.message): T {
  const copy = copyOf(src, kept)
  for (const key of Object.keys(fields)) setField(copy, key, fields[key])
  return copy
}

/**
 * `close(withFields(src, fields, kept))`, the copy made so that freezing it is cheap when `close`
 * freezes (see `plainCopy`).
 */
export function closedWith<T extends object>(src: T, fields: Record<string, unknown>, kept: Kept, close: Seal): T {
  if (close === keepOpen) return withFields(src, fields, kept)
  const copy = copyOf(src, kept, true)
  for (const key of Object.keys(fields)) setField(copy, key, fields[key])
  return close(copy)
}

/**
 * Sets `fields` on a message copy; for LangChain instances also on (a copy of) `lc_kwargs`, which
 * serialization reads. `drop` fields become undefined (and leave `lc_kwargs`).
 */
function patch(copy: AnyMessage, fields: Record<string, unknown>, close: Seal, drop: readonly string[] = []): void {
  const lcKwargs = field(copy, 'lc_kwargs')
  // Frozen like the rest unless the message has no id: LangGraph's reducer writes the id it gives
  // such a message here too (each caller then gets its own, see `handOut`).
  const frozen = close !== keepOpen && field(copy, 'id') != null
  const kwargs = isObject(lcKwargs) && !Array.isArray(lcKwargs) ? copyOf(lcKwargs, KEPT.metadata, frozen) : undefined
  for (const key of Object.keys(fields)) {
    setField(copy, key, fields[key])
    if (kwargs) setField(kwargs, key, fields[key])
  }
  for (const key of drop) {
    if (hasField(copy, key)) setField(copy, key, undefined)
    if (kwargs) delete kwargs[key]
  }
  if (kwargs) setField(copy, 'lc_kwargs', frozen ? close(kwargs) : kwargs)
}

/**
 * The copy of message `m` (in the shape `p` says) with `fields` changed (`close` them). The copy
 * itself, its `lc_kwargs` and a stored message's `data` stay open (see `handOut`).
 */
export function changed(m: AnyMessage, p: Parts, fields: Record<string, unknown>, close: Seal, drop: readonly string[] = []): AnyMessage {
  if (p.shape === 'stored') {
    const data = withFields(p.fields, fields)
    for (const key of drop) delete data[key]
    return withFields(m, { data })
  }
  const copy = copyOf(m)
  patch(copy, fields, close, drop)
  return copy
}

/**
 * A fresh shell of `template`, a copy the editor keeps to hand out again (see the section's
 * comment): the message object, a LangChain message's `lc_kwargs` or a stored message's `data`
 * copied anew, everything inside shared (the edit froze what it created).
 */
export function handOut<T extends AnyMessage>(template: T): T {
  // The template was copied from the caller's message (`copyOf`): the fields it needs from its
  // class are its own already, so a shell is its own fields on the same prototype. Spreading
  // defines each own enumerable field (a `__proto__` key stays a field, no setter runs), then the
  // shell takes the template's prototype.
  const proto = Object.getPrototypeOf(template)
  const copy: T = { ...template }
  if (proto !== Object.prototype) Object.setPrototypeOf(copy, proto)
  return finished(copy, template)
}

/** A shell of `template` given its own copies of what it must not share (see `handOut`). */
function finished<T extends AnyMessage>(copy: T, template: T): T {
  if (ownGetType(template)) Object.defineProperty(copy, '_getType', Object.getOwnPropertyDescriptor(template, '_getType')!)
  const part = unshared(template)
  if (part === 'lc_kwargs') setField(copy, 'lc_kwargs', copyOf(field(template, 'lc_kwargs'), KEPT.metadata))
  else if (part === 'data') setField(copy, 'data', copyOf(field(template, 'data')))
  return copy
}

/** Whether `template` keeps `_getType` as its own method (see `keepInherited`), not an enumerable field. */
function ownGetType(template: AnyMessage): boolean {
  return Object.hasOwn(template, '_getType') && !isEnumerable(template, '_getType')
}

/**
 * The part of `template` each shell gets its own copy of: a LangChain message's `lc_kwargs` unless
 * frozen (a message with an id shares it, see `patch`), a stored message's `data`.
 */
function unshared(template: AnyMessage): 'lc_kwargs' | 'data' | undefined {
  const kwargs = field(template, 'lc_kwargs')
  if (isObject(kwargs) && !Array.isArray(kwargs)) return Object.isFrozen(kwargs) ? undefined : 'lc_kwargs'
  return kindOf(template) === STORED ? 'data' : undefined
}

/** How a template's shells are made from now on (see `shellMaker`): `false` where `handOut` spreads. */
export type ShellMaker = Maker | false

/**
 * How the shells of `template` can be made by a function built for its class and field list
 * (`makerOf`), 2.6-3x faster than `handOut`'s spread and prototype change (which moves each new
 * object to another hidden class), with what `finished` does decided once: `false` for a plain
 * object (a spread is as fast) or where no maker is safe, `undefined` while Object.prototype is
 * polluted. Finding it costs about one `handOut`: the editor asks once per template and keeps the
 * answer beside its kept output (ts/wire/apply.ts), as a template is handed out on every call.
 */
export function shellMaker(template: AnyMessage): ShellMaker | undefined {
  if (polluted) return undefined
  const proto = Object.getPrototypeOf(template)
  if (proto === Object.prototype || proto === null) return false
  const make = makerOf(template, proto)
  if (make === undefined) return false
  // The usual case (a LangChain message with an id) needs nothing of `finished`.
  const plain = !ownGetType(template) && unshared(template) === undefined
  return plain ? make : (t) => finished(make(t) as AnyMessage, t as AnyMessage)
}

/** `handOut(template)` by its `shellMaker` where it has one (and Object.prototype is still clean). */
export function handOutBy<T extends AnyMessage>(template: T, maker: ShellMaker | undefined): T {
  return maker && !polluted ? (maker(template) as T) : handOut(template)
}

type Maker = (template: object) => object

/** A field list of a prototype's templates and its maker (`undefined`: none is safe). */
interface Shape {
  keys: readonly string[]
  symbols: readonly symbol[]
  maker: Maker | undefined
}

/** Makers by prototype and field list, shared by the templates of a class. */
const shapesByProto = new WeakMap<object, Shape[]>()
/** At most this many field lists get a maker per prototype (each is compiled code). */
const MAX_SHAPES = 32
/** Templates with more own fields than this are spread. */
const MAX_MAKER_FIELDS = 64
/** Whether `new Function` works here (not under `--disallow-code-generation-from-strings` or a CSP). */
let canCompile: boolean | undefined

/**
 * A function that copies a template of `proto` with the same own enumerable fields as `template`
 * by assignment onto `new Shell()` (its prototype set from the start, named stores in a fixed
 * order): the same fields, in the same order, as data. `undefined` where assignment could do
 * something else (a field that is `__proto__`, or an accessor or read-only somewhere on the
 * prototype chain, where a setter would run or the store fail; shells are only made so while
 * nothing is put on Object.prototype, see `handOutBy`), for a template with many fields, or where
 * code cannot be compiled.
 */
function makerOf(template: object, proto: object): Maker | undefined {
  let keys: string[]
  let symbols: symbol[]
  try {
    // In the order a spread defines them: string keys (from V8's cache of the hidden class), then symbols.
    keys = Object.keys(template)
    symbols = Object.getOwnPropertySymbols(template)
    if (symbols.length > 0) symbols = symbols.filter((k) => isEnumerable(template, k))
  } catch {
    return undefined
  }
  if (keys.length + symbols.length > MAX_MAKER_FIELDS) return undefined
  let shapes = shapesByProto.get(proto)
  if (shapes === undefined) {
    shapes = []
    shapesByProto.set(proto, shapes)
  }
  for (const shape of shapes) if (sameList(shape.keys, keys) && sameList(shape.symbols, symbols)) return shape.maker
  if (shapes.length >= MAX_SHAPES) return undefined
  const all = [...keys, ...symbols]
  const maker = assignable(proto, all) ? compileMaker(proto, all) : undefined
  shapes.push({ keys, symbols, maker })
  return maker
}

/** Whether assigning each of `keys` onto an object of `proto` defines it as an own data field. */
function assignable(proto: object, keys: readonly PropertyKey[]): boolean {
  try {
    for (const key of keys) {
      if (key === '__proto__') return false
      for (let p: object | null = proto; p !== null && p !== OBJECT_PROTOTYPE; p = Object.getPrototypeOf(p)) {
        const d = Object.getOwnPropertyDescriptor(p, key)
        if (d !== undefined && (d.get !== undefined || d.set !== undefined || d.writable !== true)) return false
      }
    }
    return true
  } catch {
    return false
  }
}

function compileMaker(proto: object, keys: readonly PropertyKey[]): Maker | undefined {
  // oxlint-disable-next-line typescript/no-implied-eval -- a probe: whether code generation is allowed
  if (canCompile === undefined) canCompile = !throws(() => new Function('return 1')())
  if (!canCompile) return undefined
  function Shell(): void {}
  Shell.prototype = proto
  // String keys as JSON string literals (valid JS), symbols by position in `K`.
  const stores = keys.map((k, j) => {
    const at = typeof k === 'symbol' ? `K[${j}]` : JSON.stringify(k)
    return `s[${at}] = t[${at}];`
  })
  try {
    // Generated code, the one way to get named stores in a fixed order onto an object of a
    // class: its text holds nothing of the caller's but the keys, each a JSON string literal.
    // oxlint-disable-next-line typescript/no-implied-eval -- see above
    return new Function('Shell', 'K', `'use strict'; return function shell(t) { const s = new Shell(); ${stores.join(' ')} return s }`)(Shell, keys) as Maker
  } catch {
    return undefined
  }
}

/** `list`, checked again before an edit walks it (a getter may hand out another array than conversion saw). */
export function listOf(list: unknown, i: number, field: string): unknown[] {
  if (!Array.isArray(list)) throw invalidMessage(i, field, `expected an array, got ${describe(list)}`)
  checkLength(list, MAX_ITEMS, i, field, 'entries')
  return list
}

/** `list.map(f)` into a plain array (the caller's array class, through `map`'s species, is never called). */
export function mapList(list: readonly unknown[], f: (x: any, k: number) => unknown): unknown[] {
  const out = new Array<unknown>(list.length)
  for (let k = 0; k < list.length; k++) out[k] = f(list[k], k)
  return out
}

/** `list.filter(f)` into a plain array. */
export function filterList(list: readonly unknown[], f: (x: any, k: number) => boolean): unknown[] {
  const out: unknown[] = []
  for (let k = 0; k < list.length; k++) if (f(list[k], k)) out.push(list[k])
  return out
}
