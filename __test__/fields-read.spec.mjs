// `field` (ts/wire/fields.ts) reads the fields a conversion reads by name, one case each, for speed:
// each case must read its own key, and every key (listed or not) must read exactly as `o[key]` does
// (own field, the class's field or getter, a Proxy's trap), nothing from a polluted Object.prototype.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { field, notePollution } from '../dist/wire/fields.js'

const source = readFileSync(new URL('../dist/wire/fields.js', import.meta.url), 'utf8')
const CASES = [...source.matchAll(/case '([^']+)':/g)].map((m) => m[1])

test('every key read by name reads its own field, and any key reads as o[key] does', () => {
  assert.ok(CASES.length > 20 && CASES.includes('content') && CASES.includes('tool_calls'), `cases found: ${CASES.join(', ')}`)
  notePollution()
  const keys = [...CASES, 'other', 'toJSON', 'then', '0', 'constructor']
  class Base {
    get role() {
      return 'from a getter'
    }
  }
  Base.prototype.name = 'from the class'
  for (const key of keys) {
    const own = Object.defineProperty(new Base(), key, { value: { key }, enumerable: true, configurable: true, writable: true })
    assert.equal(field(own, key), own[key], `own ${key}`)
    assert.deepEqual(field(own, key), { key }, `own ${key}`)
    const inherited = new Base()
    assert.equal(field(inherited, key), inherited[key], `inherited ${key}`)
    const reads = []
    const proxy = new Proxy({}, { get: (_, k) => (reads.push(k), `trap ${String(k)}`) })
    assert.equal(field(proxy, key), `trap ${key}`, `proxy ${key}`)
    assert.deepEqual(reads, [key], `the proxy saw one read of ${key}`)
  }
})

test('with Object.prototype polluted, no key reads what was put there', () => {
  for (const key of CASES) Object.prototype[key] = 'polluted'
  try {
    notePollution()
    for (const key of CASES) {
      assert.equal(field({}, key), undefined, key)
      assert.equal(field({ [key]: 1 }, key), 1, key)
    }
  } finally {
    for (const key of CASES) delete Object.prototype[key]
    notePollution()
  }
})
