// Object.prototype pollution
//
// A field a message lacks is read through its prototype chain, which ends at Object.prototype: a
// key someone put there (`Object.prototype.role = 'tool'`, by a bug or an attack) would become a
// field of every message, block and call that lacks one. Reads of the caller's objects go through
// `field` (and `hasField`, `entry`), which take what the object holds and what its class gives
// it, never what Object.prototype holds beyond its standard members. Unpolluted (the case that
// matters for speed), they are plain reads: whether Object.prototype is polluted is checked once
// per call (`notePollution`).

export const OBJECT_PROTOTYPE = Object.prototype
/** The members every Object.prototype has; any other key on it is pollution. */
const STANDARD_MEMBERS: readonly PropertyKey[] = Object.freeze([
  'constructor',
  '__defineGetter__',
  '__defineSetter__',
  'hasOwnProperty',
  '__lookupGetter__',
  '__lookupSetter__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toString',
  'valueOf',
  '__proto__',
  'toLocaleString',
])
/** Taken when this module loads: code that replaces `Reflect.ownKeys` later changes nothing here. */
const ownKeys = Reflect.ownKeys
export let polluted = false

/**
 * Whether Object.prototype holds an own key, string or symbol, beyond its standard members. Reads
 * nothing the caller could replace after this module loaded (no method of a Set or an array): the
 * native side trusts its `false` (`__setPrototypeCheck`, src/input/polluted.rs) instead of reading
 * the keys again through Node-API.
 */
export function prototypePolluted(): boolean {
  const keys = ownKeys(OBJECT_PROTOTYPE)
  if (keys.length !== STANDARD_MEMBERS.length) return true
  for (let k = 0; k < keys.length; k++) {
    let standard = false
    for (let j = 0; j < STANDARD_MEMBERS.length && !standard; j++) standard = keys[k] === STANDARD_MEMBERS[j]
    if (!standard) return true
  }
  return false
}

/**
 * Checks Object.prototype for keys beyond its standard members (see above). Every entry point
 * calls it before it reads the caller's objects.
 */
export function notePollution(): boolean {
  polluted = prototypePolluted()
  return polluted
}

/** Whether Object.prototype held keys beyond its standard members at the last check. */
export function isPolluted(): boolean {
  return polluted
}

/** Whether reading `key` on `o` would find it on Object.prototype, not on `o` or its class. */
function fromObjectPrototype(o: object, key: PropertyKey): boolean {
  if (Object.hasOwn(o, key)) return false
  for (let p = Object.getPrototypeOf(o); p !== null; p = Object.getPrototypeOf(p)) {
    if (p === OBJECT_PROTOTYPE) return true
    if (Object.hasOwn(p, key)) return false
  }
  return false
}

/**
 * `o[key]` as the object and its class hold it (see above). The fields a conversion reads are read
 * by name, one case each: `o[key]` here would be one load site for every field of every object
 * (megamorphic, a lookup in V8's stub cache per read: 4-6 % of a cold call), where a named read
 * keeps its own cache of the few classes that reach it, and a call with a constant key, inlined,
 * keeps only its case (cold call 3-9 % less CPU at 200 and 2,000 messages). Any other key reads the
 * same way, through the default case.
 */
export function field(o: any, key: string): any {
  if (polluted && fromObjectPrototype(o, key)) return undefined
  switch (key) {
    case 'type':
      return o.type
    case 'content':
      return o.content
    case 'id':
      return o.id
    case 'data':
      return o.data
    case 'tool_calls':
      return o.tool_calls
    case 'additional_kwargs':
      return o.additional_kwargs
    case 'text':
      return o.text
    case 'role':
      return o.role
    case 'name':
      return o.name
    case 'function':
      return o.function
    case 'pinned':
      return o.pinned
    case 'lc_kwargs':
      return o.lc_kwargs
    case 'input':
      return o.input
    case 'args':
      return o.args
    case '_getType':
      return o._getType
    case 'tool_call_id':
      return o.tool_call_id
    case 'response_metadata':
      return o.response_metadata
    case 'reasoning_content':
      return o.reasoning_content
    case 'metadata':
      return o.metadata
    case 'mime_type':
      return o.mime_type
    case 'arguments':
      return o.arguments
    case 'context_editing':
      return o.context_editing
    case 'cleared':
      return o.cleared
    case 'truncated':
      return o.truncated
    case 'cleared_tool_inputs':
      return o.cleared_tool_inputs
    case 'image_url':
      return o.image_url
    case 'source':
      return o.source
    case 'url':
      return o.url
    case 'detail':
      return o.detail
    case 'cache_control':
      return o.cache_control
    default:
      return o[key]
  }
}

/** `key in o`, as the object and its class hold it. */
export function hasField(o: object, key: string): boolean {
  return key in o && !(polluted && fromObjectPrototype(o, key))
}

/** `list[k]`: a hole is empty, whatever a prototype holds at that index. */
export function entry(list: readonly unknown[], k: number): any {
  return polluted && !Object.hasOwn(list, k) ? undefined : list[k]
}

/** A field of an object of our own (a plan, a report, parsed JSON): its own, never an inherited one. */
export function own(o: any, key: string): any {
  return Object.hasOwn(o, key) ? o[key] : undefined
}

export function describe(v: unknown): string {
  if (v === null) return 'null'
  if (isList(v)) return 'an array'
  switch (typeof v) {
    case 'object':
      return 'an object'
    case 'string':
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof v} ${String(v).slice(0, 40)}`
    case 'symbol':
      return `symbol ${v.toString().slice(0, 40)}`
    case 'function':
      return 'a function'
    default:
      return typeof v
  }
}

/** `Array.isArray(v)` for an error message: a revoked Proxy (where it throws) is no list. */
export function isList(v: unknown): boolean {
  try {
    return Array.isArray(v)
  } catch {
    return false
  }
}

/** Whether two lists hold the same entries (by `===`) in the same order. */
export function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false
  return true
}

/** A caller's value in an error message: a string as it is, anything else described (never converted, which could throw). */
export function show(v: unknown): string {
  return typeof v === 'string' ? v : describe(v)
}

const ARRAY_PROTOTYPE = Array.prototype

/**
 * `JSON.stringify(v)`, except that a `toJSON` someone put on Object.prototype or Array.prototype is
 * not called (see `field`): the text of the caller's own data (and of ours, such as a list of wire
 * messages) stays what it is.
 */
export function jsonText(v: unknown): string | undefined {
  return (polluted && Object.hasOwn(OBJECT_PROTOTYPE, 'toJSON')) || Object.hasOwn(ARRAY_PROTOTYPE, 'toJSON') ? jsonOf(v, '', []) : JSON.stringify(v)
}

/** `o.toJSON` as the object and its class hold it: not one found on Object.prototype or Array.prototype. */
function toJsonOf(o: object): unknown {
  if (Array.isArray(o) && !Object.hasOwn(o, 'toJSON')) {
    for (let p = Object.getPrototypeOf(o); p !== null && p !== OBJECT_PROTOTYPE; p = Object.getPrototypeOf(p)) {
      if (Object.hasOwn(p, 'toJSON')) return p === ARRAY_PROTOTYPE ? undefined : p.toJSON
    }
  }
  return field(o, 'toJSON')
}

/** `JSON.stringify`'s serialization of `value` (found under `key`), with `toJSON` read through `field`. */
function jsonOf(value: unknown, key: string, stack: object[]): string | undefined {
  if (value !== null && typeof value === 'object') {
    const toJSON = toJsonOf(value)
    if (typeof toJSON === 'function') value = toJSON.call(value, key)
  }
  if (value instanceof Number) value = Number(value)
  else if (value instanceof String) value = String(value)
  else if (value instanceof Boolean) value = value.valueOf()
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null'
    case 'boolean':
      return value ? 'true' : 'false'
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt')
    case 'object':
      break
    default:
      return undefined
  }
  if (value === null) return 'null'
  const o = value as Record<string, any>
  if (stack.includes(o)) throw new TypeError('Converting circular structure to JSON')
  stack.push(o)
  let text: string
  if (Array.isArray(o)) {
    const parts: string[] = []
    for (let k = 0; k < o.length; k++) parts.push(jsonOf(o[k], String(k), stack) ?? 'null')
    text = `[${parts.join(',')}]`
  } else {
    const parts: string[] = []
    for (const k of Object.keys(o)) {
      const s = jsonOf(o[k], k, stack)
      if (s !== undefined) parts.push(`${JSON.stringify(k)}:${s}`)
    }
    text = `{${parts.join(',')}}`
  }
  stack.pop()
  return text
}

/** Whether calling `f` throws. */
export function throws(f: () => unknown): boolean {
  try {
    f()
    return false
  } catch {
    return true
  }
}
export const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === 'object'
