// A short chaos soak on the embedded log (the full one: npm run soak -- --backend embedded).
import { describe, expect, it } from 'vitest'
import { SystemTime } from '../log/time.ts'
import { runSoak } from './soak.ts'

describe('the embedded chaos soak, short', () => {
  it('exactly-once: 30 faults of every kind, 0 in every correctness row', { timeout: 90_000 }, async () => {
    const r = await runSoak(new SystemTime(), { mode: 'exactly-once', faults: 30, seed: 11, ratePerSec: 1_000, validateEveryMs: 4_000 })
    expect(r.faults.total).toBeGreaterThanOrEqual(30)
    expect(r.faults.kill + r.faults.killAtStep).toBeGreaterThan(0)
    expect(r.violations).toEqual([])
    expect({ duplicates: r.final.duplicates, lost: r.final.lost, abortedReads: r.final.abortedReads, stateMismatches: r.final.stateMismatches, openTransactions: r.final.openTransactions }).toEqual({
      duplicates: 0,
      lost: 0,
      abortedReads: 0,
      stateMismatches: 0,
      openTransactions: 0,
    })
    expect(r.final.inputRecords).toBeGreaterThan(0)
    expect(r.passed).toBe(true)
  })
})
