import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BUCKETS, LogHistogram, MAX_VALUE, MIN_VALUE, RELATIVE_ERROR } from './log-histogram.ts'

/** The order statistic the sketch answers for, by nearest rank: the ceil(q·n)-th smallest (brute force). */
function exactQuantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!
}

const value = fc.oneof(
  fc.constant(0),
  fc.double({ min: MIN_VALUE, max: MAX_VALUE, noNaN: true }),
  fc.integer({ min: 1, max: 10_000 }),
)

describe('LogHistogram', () => {
  it('answers every quantile within its relative error of the exact order statistic', () => {
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 400 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, q) => {
          const h = new LogHistogram()
          for (const v of values) h.add(v)
          const exact = exactQuantile(values, q)
          const got = h.quantile(q)!
          if (exact === 0) return got === 0
          return Math.abs(got - exact) <= RELATIVE_ERROR * exact * (1 + 1e-9)
        },
      ),
      { seed: 17, numRuns: 500 },
    )
  })

  it('merged sketches answer as one sketch of all the values', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 200 }), fc.array(value, { maxLength: 200 }), (a, b) => {
        const x = new LogHistogram()
        const y = new LogHistogram()
        const all = new LogHistogram()
        for (const v of a) {
          x.add(v)
          all.add(v)
        }
        for (const v of b) {
          y.add(v)
          all.add(v)
        }
        x.merge(y)
        return x.count === all.count && [0, 0.5, 0.9, 0.99, 1].every((q) => x.quantile(q) === all.quantile(q))
      }),
      { seed: 18, numRuns: 200 },
    )
  })

  it('holds a fixed number of buckets, whatever it is fed', () => {
    expect(BUCKETS).toBeLessThan(1_300)
    expect(LogHistogram.BYTES).toBe(BUCKETS * 4)
    const h = new LogHistogram()
    expect(h.quantile(0.5)).toBeNull()
    for (let i = 0; i < 100_000; i++) h.add((i % 997) + 0.5)
    expect(h.count).toBe(100_000)
  })

  it('reads p99 of two values as the larger, p50 as the smaller (nearest rank)', () => {
    const h = new LogHistogram()
    h.add(36)
    h.add(50)
    expect(Math.abs(h.quantile(0.99)! - 50) / 50).toBeLessThanOrEqual(RELATIVE_ERROR)
    expect(Math.abs(h.quantile(0.5)! - 36) / 36).toBeLessThanOrEqual(RELATIVE_ERROR)
  })

  it('ignores values that are not finite or below 0', () => {
    const h = new LogHistogram()
    for (const v of [NaN, -1, Infinity]) h.add(v)
    expect(h.count).toBe(0)
  })
})
