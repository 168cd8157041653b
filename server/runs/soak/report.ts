// What a soak reports: a correctness row per check, the rows a mode requires to be 0, and the
// result of a whole run (the shape of the runs in bench/results/soak-*.json).

import type { ProcessingGuarantee } from '../../../lib/streams-config.ts'
import type { LogCapabilities } from '../../log/capabilities.ts'
import type { ValidationReport } from '../../validator/report.ts'
import type { FaultKind } from './faults.ts'

export type SoakMode = 'exactly-once' | 'at-least-once'

export interface CorrectnessRow {
  atMs: number
  guarantee: ProcessingGuarantee
  inputRecords: number
  duplicates: number | null
  lost: number | null
  abortedReads: number
  stateMismatches: number | null
  openTransactions: number
}

export type FinalRow = CorrectnessRow & { outputRecords: number; abortedReadsUncommitted: number; poison: number }

export interface SoakResult {
  backend: LogCapabilities['backend']
  mode: SoakMode
  seed: number
  ratePerSec: number
  durationMs: number
  faults: Record<FaultKind, number> & { total: number }
  guaranteesVisited: ProcessingGuarantee[]
  commitIntervalsVisited: number[]
  periodicChecks: CorrectnessRow[]
  final: FinalRow
  passed: boolean
  violations: string[]
  /** What this backend cannot inject or does differently. */
  notes: string[]
}

export function correctnessRow(report: ValidationReport, atMs: number, guarantee: ProcessingGuarantee): CorrectnessRow {
  return {
    atMs: Math.round(atMs),
    guarantee,
    inputRecords: report.inputRecords,
    duplicates: report.duplicates,
    lost: report.lost,
    abortedReads: report.abortedReads,
    stateMismatches: report.stateMismatches,
    openTransactions: report.openTransactions,
  }
}

export function finalRow(report: ValidationReport, atMs: number, guarantee: ProcessingGuarantee): FinalRow {
  return {
    ...correctnessRow(report, atMs, guarantee),
    outputRecords: report.outputRecords,
    abortedReadsUncommitted: report.abortedReadsUncommitted,
    poison: report.poison,
  }
}

/** Whether a check is taken during the run or at its end (open transactions count at the end only). */
export type CheckPoint = 'periodic' | 'final'

/** The rows a mode requires to be 0; a null (unavailable) row counts as a violation. */
export function soakViolations(mode: SoakMode, r: CorrectnessRow, at: CheckPoint): string[] {
  const out: string[] = []
  const zero = (name: keyof CorrectnessRow) => {
    if (r[name] !== 0) out.push(`${name}=${r[name]}`)
  }
  zero('lost')
  if (mode === 'exactly-once') {
    zero('duplicates')
    zero('abortedReads')
    zero('stateMismatches')
    if (at === 'final') zero('openTransactions')
  }
  return out
}
