import { describe, expect, it } from 'vitest'
import { binomialHalfCdf, intervalsOverlap, median, medianInterval, preciseEnough } from './statistics.ts'

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

describe('the median and its 95% order-statistic interval', () => {
  it('binomial tail probabilities', () => {
    expect(binomialHalfCdf(6, 0)).toBeCloseTo(1 / 64, 12)
    expect(binomialHalfCdf(10, 1)).toBeCloseTo(11 / 1024, 12)
    expect(binomialHalfCdf(20, 5)).toBeCloseTo(21700 / 1048576, 12)
    expect(binomialHalfCdf(7, 7)).toBe(1)
    expect(binomialHalfCdf(7, -1)).toBe(0)
  })

  it('medians of odd and even samples', () => {
    expect(median([1, 2, 9])).toBe(2)
    expect(median([1, 2, 4, 9])).toBe(3)
  })

  it('the ranks of the standard tables, whatever the order of the samples', () => {
    // n = 6: [x(1), x(6)], coverage 1 − 2/64.
    const six = medianInterval([6, 1, 5, 2, 4, 3])
    expect(six).toEqual({ median: 3.5, low: 1, high: 6, coverage: 1 - 2 / 64, n: 6 })
    // n = 10: ranks 2 and 9, coverage 1 − 2·11/1024 ≈ 97.9%.
    const ten = medianInterval(range(10).map((x) => x * 10))
    expect([ten.low, ten.high, ten.median]).toEqual([20, 90, 55])
    expect(ten.coverage!).toBeCloseTo(1 - 22 / 1024, 12)
    // n = 20: ranks 6 and 15, coverage ≈ 95.9%.
    const twenty = medianInterval(range(20).reverse())
    expect([twenty.low, twenty.high]).toEqual([6, 15])
    expect(twenty.coverage!).toBeCloseTo(0.9586, 4)
    // A 99% interval is wider: n = 20 gives ranks 4 and 17.
    const wide = medianInterval(range(20), 0.99)
    expect([wide.low, wide.high]).toEqual([4, 17])
  })

  it('fewer than 6 samples: a median, no interval', () => {
    expect(medianInterval([3, 1, 2, 5, 4])).toEqual({ median: 3, low: null, high: null, coverage: null, n: 5 })
    expect(medianInterval([7])).toEqual({ median: 7, low: null, high: null, coverage: null, n: 1 })
  })

  it('precise enough within ±10% of the median; overlapping intervals leave the order unknown', () => {
    const tight = medianInterval([98, 99, 100, 100, 101, 102, 103, 100, 99, 101])
    const loose = medianInterval([60, 80, 100, 100, 120, 140, 90, 110, 100, 105])
    expect(preciseEnough(tight)).toBe(true)
    expect(preciseEnough(loose)).toBe(false)
    expect(preciseEnough(medianInterval([1, 2, 3]))).toBe(false)
    const higher = medianInterval([120, 121, 122, 123, 124, 125])
    expect(intervalsOverlap(tight, loose)).toBe(true)
    expect(intervalsOverlap(tight, higher)).toBe(false)
    expect(intervalsOverlap(tight, medianInterval([1, 2]))).toBeNull()
  })
})
