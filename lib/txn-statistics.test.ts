import { describe, expect, it } from 'vitest'
import { SeededRandom } from '../server/log/time.ts'
import { RELATIVE_ERROR } from './log-histogram.ts'
import { TXN_ABORT_CAUSES, TxnStatistics, type TxnFigures } from './txn-statistics.ts'

function randomTxns(seed: number, n: number): TxnFigures[] {
  const r = new SeededRandom(seed)
  return Array.from({ length: n }, () => {
    const outcome = r.pick(['committed', 'committed', 'committed', 'aborted', 'teardown'] as const)
    const cause =
      outcome === 'committed'
        ? null
        : outcome === 'teardown'
          ? 'teardown'
          : r.pick(['crash', 'fenced', 'timeout', 'error'] as const)
    return {
      outcome,
      cause,
      durationMs: Math.round(r.next() * r.next() * 5_000 * 1000) / 1000,
      records: r.int(0, 400),
      endTxnMs: r.next() < 0.2 ? null : 0.5 + r.next() * 40,
      sendOffsetsMs: r.next() < 0.1 ? null : r.next() * 10,
    }
  })
}

/** Brute force: every figure from the list itself. */
function bruteForce(
  txns: TxnFigures[],
  outcome: TxnFigures['outcome'],
  figure: 'durationMs' | 'records' | 'endTxnMs' | 'sendOffsetsMs',
) {
  const xs = txns
    .filter((t) => t.outcome === outcome)
    .map((t) => t[figure])
    .filter((v): v is number => v !== null)
  const sorted = [...xs].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!
  return {
    count: xs.length,
    sum: xs.reduce((a, b) => a + b, 0),
    min: Math.min(...xs),
    max: Math.max(...xs),
    p50: at(0.5),
    p99: at(0.99),
  }
}

describe('TxnStatistics', () => {
  for (const seed of [1, 2, 3, 42, 1234]) {
    it(`counts, sums, extremes are exact and p50/p99 within ${RELATIVE_ERROR * 100}% (seed ${seed})`, () => {
      const txns = randomTxns(seed, 3_000)
      const s = new TxnStatistics(0)
      for (const t of txns) s.add(t)
      const v = s.view()
      for (const outcome of ['committed', 'aborted', 'teardown'] as const) {
        expect(v.outcomes[outcome].count).toBe(txns.filter((t) => t.outcome === outcome).length)
        for (const figure of ['durationMs', 'records', 'endTxnMs', 'sendOffsetsMs'] as const) {
          const got = v.outcomes[outcome][figure]
          const want = bruteForce(txns, outcome, figure)
          expect(got.count).toBe(want.count)
          expect(got.sum).toBeCloseTo(want.sum, 6)
          expect(got.min).toBe(want.min)
          expect(got.max).toBe(want.max)
          expect(got.avg).toBeCloseTo(want.sum / want.count, 9)
          for (const q of ['p50', 'p99'] as const) {
            if (want[q] === 0) expect(got[q]).toBe(0)
            else expect(Math.abs(got[q]! - want[q]) / want[q]).toBeLessThanOrEqual(RELATIVE_ERROR * (1 + 1e-9))
          }
        }
      }
      for (const c of TXN_ABORT_CAUSES) expect(v.causes[c]).toBe(txns.filter((t) => t.cause === c).length)
    })
  }

  it('merges to the statistics of both halves together', () => {
    const txns = randomTxns(7, 1_000)
    const a = new TxnStatistics(0)
    const b = new TxnStatistics(0)
    const all = new TxnStatistics(0)
    txns.forEach((t, i) => {
      const half = i % 2 ? a : b
      half.add(t)
      all.add(t)
    })
    a.merge(b)
    // Sums added in another order differ in their last bits only.
    const rounded = (v: unknown) =>
      JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'number' ? Math.round(x * 1e6) / 1e6 : x)))
    expect(rounded(a.view())).toEqual(rounded(all.view()))
  })

  it('shows nothing, not zeros, for a figure never seen', () => {
    const v = new TxnStatistics(5).view()
    expect(v.sinceMs).toBe(5)
    expect(v.outcomes.aborted.durationMs).toEqual({
      count: 0,
      sum: 0,
      min: null,
      avg: null,
      max: null,
      p50: null,
      p99: null,
    })
  })
})
