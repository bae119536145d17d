// A small seeded PRNG for reproducible generated tests (no Math.random anywhere in the specs).
// mulberry32: 32-bit state, good enough statistical quality for test-case generation.

/** A seeded random source. Every method is deterministic given the seed. */
export class Rng {
  #state

  /** @param {number} seed any 32-bit integer */
  constructor(seed) {
    this.#state = seed >>> 0
  }

  /** A float in [0, 1). */
  next() {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0
    let t = this.#state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [lo, hi] (inclusive). */
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }

  /** true with probability p. */
  chance(p) {
    return this.next() < p
  }

  /** One element of a non-empty array. */
  pick(items) {
    return items[Math.floor(this.next() * items.length)]
  }

  /** A random subset of `items` (each kept with probability p), in order. */
  subset(items, p = 0.5) {
    return items.filter(() => this.chance(p))
  }

  /** A copy of `items` in random order (Fisher–Yates). */
  shuffle(items) {
    const out = [...items]
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1))
      ;[out[i], out[j]] = [out[j], out[i]]
    }
    return out
  }
}
