// What every short exactly-once soak must show, whatever the backend: at least the faults asked
// for, no violation, and 0 in every correctness row of the final check.

import { expect } from 'vitest'
import type { SoakResult } from '../report.ts'

export function expectCleanSoak(r: SoakResult, faults: number): void {
  expect(r.faults.total).toBeGreaterThanOrEqual(faults)
  expect(r.violations).toEqual([])
  expect({
    duplicates: r.final.duplicates,
    lost: r.final.lost,
    abortedReads: r.final.abortedReads,
    stateMismatches: r.final.stateMismatches,
    openTransactions: r.final.openTransactions,
  }).toEqual({
    duplicates: 0,
    lost: 0,
    abortedReads: 0,
    stateMismatches: 0,
    openTransactions: 0,
  })
  expect(r.final.inputRecords).toBeGreaterThan(0)
  expect(r.passed).toBe(true)
}
