// What both validators count while they read the logs (validateRun over a finished run,
// IncrementalValidator over a live one), and the one place that turns those counts into a
// ValidationReport: the rows, the unavailable ones nulled with their reasons, the examples.

import type { Aggregate } from '../../lib/records.ts'
import type { AbortedReadCounts } from './read-committed.ts'
import type { KeyCount, PartitionCommit, StateMismatchExample, ValidationReport, ValidationRow } from './report.ts'
import { StateDrift } from './state-drift.ts'

/** Examples kept per kind (duplicates, lost, state mismatches). */
export const MAX_EXAMPLES = 10

/** The rows an output record the validator can no longer match makes uncomputable. */
export const OUTPUT_ROWS = ['duplicates', 'lost', 'stateMismatches'] as const

/** The aggregate part of an output or changelog value. */
export function toAggregate(v: Aggregate): Aggregate {
  return { count: v.count, sum: v.sum, min: v.min, max: v.max }
}

/** Counters named as the report names them. */
export interface Tally {
  inputRecords: number
  poison: number
  outputRecords: number
  dlqRecords: number
  malformed: { output: number; changelog: number; dlq: number }
  duplicates: number
  /** Extra copies per key. */
  readonly duplicateKeys: Map<string, number>
  lost: number
  orphanOutputs: number
  /** Keys whose outputs differ from the recomputation, and the double-applied updates they show (state-drift.ts). */
  readonly drift: StateDrift
}

export function newTally(): Tally {
  return {
    inputRecords: 0,
    poison: 0,
    outputRecords: 0,
    dlqRecords: 0,
    malformed: { output: 0, changelog: 0, dlq: 0 },
    duplicates: 0,
    duplicateKeys: new Map(),
    lost: 0,
    orphanOutputs: 0,
    drift: new StateDrift(),
  }
}

/** Counts one extra copy of a key's output; false when the key is new and `maxKeys` are kept already. */
export function countDuplicate(tally: Tally, key: string, maxKeys = Number.POSITIVE_INFINITY): boolean {
  tally.duplicates++
  const keys = tally.duplicateKeys
  if (!keys.has(key) && keys.size >= maxKeys) return false
  keys.set(key, (keys.get(key) ?? 0) + 1)
  return true
}

function countsByKey(counts: ReadonlyMap<string, number>): KeyCount[] {
  return [...counts]
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1))
}

/** Rows that cannot be computed exactly, each with the first reason found. */
export class UnavailableRows {
  private readonly reasons = new Map<ValidationRow, string>()

  mark(rows: readonly ValidationRow[], reason: string): void {
    for (const row of rows) if (!this.reasons.has(row)) this.reasons.set(row, reason)
  }

  list(): ValidationReport['unavailable'] {
    return [...this.reasons].map(([row, reason]) => ({ row, reason }))
  }
}

/** The note on keys met in more than one input partition; `order` says in which order they were applied. */
export function splitKeysNote(split: ReadonlySet<string>, order: string): string | null {
  if (split.size === 0) return null
  const keys = [...split].sort()
  return (
    `${keys.length} key(s) occur in more than one input partition (${keys.slice(0, MAX_EXAMPLES).join(', ')}): ` +
    `the recomputation applies them ${order}, which may differ from the engine's`
  )
}

/**
 * A final comparison (latest changelog values, or the caller's final state) against the recomputed
 * aggregates: adds an example per differing key while fewer than MAX_EXAMPLES are kept in all, and
 * returns how many keys differ.
 */
export function finalMismatches(
  keys: readonly string[],
  expected: ReadonlyMap<string, Aggregate>,
  actualOf: (key: string) => Aggregate | undefined,
  where: 'changelog' | 'finalState',
  examples: StateMismatchExample[],
  keysOut: Set<string>,
): number {
  for (const key of keys) keysOut.add(key)
  for (const key of keys) {
    if (examples.length >= MAX_EXAMPLES) break
    examples.push({ key, source: null, expected: expected.get(key) ?? null, actual: actualOf(key) ?? null, where })
  }
  return keys.length
}

/** Everything a validation knows at its end besides its tally. */
export interface ValidationEnd {
  dlqTopic: string | null
  abortedReads: AbortedReadCounts
  /** Orphans only the end can tell (outputs still waiting for an input record that never came). */
  pendingOrphans: number
  outputsBeyondCommitted: number
  changelogMismatches: number | null
  finalStateMismatches: number | null
  /** The keys the changelog and final-state comparisons found differing (a key counts once with its outputs'). */
  finalMismatchKeys: Set<string>
  openTransactionPartitions: string[]
  committedOffsets: PartitionCommit[]
  notes: string[]
  examples: ValidationReport['examples']
}

export interface ReportTopics {
  groupId: string
  inputTopic: string
  outputTopic: string
  changelogTopic: string
}

/** The report: the tally's rows, the mismatches summed, and the unavailable rows nulled with their reasons. */
export function assembleReport(
  topics: ReportTopics,
  tally: Tally,
  end: ValidationEnd,
  unavailable: UnavailableRows,
): ValidationReport {
  const by = {
    output: tally.drift.mismatchedKeys,
    changelog: end.changelogMismatches,
    finalState: end.finalStateMismatches,
  }
  const report: ValidationReport = {
    groupId: topics.groupId,
    inputTopic: topics.inputTopic,
    outputTopic: topics.outputTopic,
    changelogTopic: topics.changelogTopic,
    dlqTopic: end.dlqTopic,
    inputRecords: tally.inputRecords,
    poison: tally.poison,
    outputRecords: tally.outputRecords,
    dlqRecords: tally.dlqRecords,
    malformed: { ...tally.malformed },
    duplicates: tally.duplicates,
    duplicateKeys: countsByKey(tally.duplicateKeys),
    lost: tally.lost,
    abortedReads: end.abortedReads.abortedReads,
    abortedReadsUncommitted: end.abortedReads.abortedReadsUncommitted,
    stateMismatches: tally.drift.mismatchesWith(end.finalMismatchKeys),
    stateMismatchesBy: by,
    doubleAppliedUpdates: tally.drift.doubleApplied,
    openTransactions: end.openTransactionPartitions.length,
    openTransactionPartitions: end.openTransactionPartitions,
    orphanOutputs: tally.orphanOutputs + end.pendingOrphans,
    outputsBeyondCommitted: end.outputsBeyondCommitted,
    committedOffsets: end.committedOffsets,
    unavailable: unavailable.list(),
    notes: end.notes,
    examples: end.examples,
  }
  for (const { row } of report.unavailable) {
    if (row === 'duplicates' || row === 'lost' || row === 'stateMismatches') report[row] = null
    if (row === 'stateMismatches') report.doubleAppliedUpdates = null
  }
  return report
}
