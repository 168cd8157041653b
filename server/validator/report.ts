// The validator's report and the guarantee check over it. The five rows are docs/measures.md's:
// duplicates, lost, abortedReads, stateMismatches, openTransactions. A row that cannot be computed
// exactly (the log no longer holds the records it needs) is null and says why in `unavailable`.

import type { Aggregate, Provenance } from '../../lib/records.ts'
import { isExactlyOnce, type ProcessingGuarantee } from '../../lib/streams-config.ts'

export const VALIDATION_ROWS = ['duplicates', 'lost', 'abortedReads', 'stateMismatches', 'openTransactions'] as const
export type ValidationRow = (typeof VALIDATION_ROWS)[number]

export interface PartitionCommit {
  partition: number
  /** The group's committed offset (next offset to read); null when the group committed none. */
  committedOffset: number | null
  logStartOffset: number
  highWatermark: number
}

export interface KeyCount {
  key: string
  count: number
}

export interface StateMismatchExample {
  key: string
  source: Provenance | null
  expected: Aggregate | null
  actual: Aggregate | null
  where: 'output' | 'changelog' | 'finalState'
}

export interface ValidationReport {
  groupId: string
  inputTopic: string
  outputTopic: string
  changelogTopic: string
  /** The dead-letter topic, when it exists. */
  dlqTopic: string | null

  /** Committed input records: below the committed offset, poison records included. */
  inputRecords: number
  /** Committed input records that cannot be processed: no key, or a value that does not parse. */
  poison: number
  /** Committed output records. */
  outputRecords: number
  /** Committed DLQ records. */
  dlqRecords: number
  /** Committed records whose value is not an output (or DLQ) value. */
  malformed: { output: number; changelog: number; dlq: number }

  duplicates: number | null
  /** Keys of the extra copies, with how many extra copies each, most first. */
  duplicateKeys: KeyCount[]
  lost: number | null
  abortedReads: number
  abortedReadsUncommitted: number
  /** Keys whose state differs from the replay, each counted once (state-drift.ts has the definition). */
  stateMismatches: number | null
  stateMismatchesBy: {
    /** Keys with a committed output whose aggregate differs from the recomputation right after its input record. */
    output: number
    /**
     * Keys whose latest committed changelog value differs from the final recomputation; null without a changelog topic.
     */
    changelog: number | null
    /** Keys of opts.finalState that differ from the final recomputation; null when not given. */
    finalState: number | null
  }
  /**
   * Input records whose update reached a key's state twice, as the outputs' running counts show them (state-drift.ts).
   */
  doubleAppliedUpdates: number | null
  openTransactions: number
  /** `<topic>-<partition>` of each partition whose last stable offset is below its high watermark, sorted. */
  openTransactionPartitions: string[]

  /**
   * Committed output records whose provenance names no committed input record (no such
   * record, a marker, an aborted or poison one).
   */
  orphanOutputs: number
  /**
   * Committed output records of input records at or past the committed offset (processed, offset not committed yet).
   */
  outputsBeyondCommitted: number
  committedOffsets: PartitionCommit[]
  unavailable: { row: ValidationRow; reason: string }[]
  notes: string[]
  examples: {
    duplicates: (Provenance & { key: string; copies: number })[]
    lost: Provenance[]
    stateMismatches: StateMismatchExample[]
  }
}

/**
 * The five correctness figures of docs/measures.md (and aborted records a read_uncommitted
 * reader would see), from a validator report.
 */
export function correctnessFigures(
  report: ValidationReport,
): Pick<
  ValidationReport,
  'duplicates' | 'lost' | 'abortedReads' | 'abortedReadsUncommitted' | 'stateMismatches' | 'openTransactions'
> {
  const { duplicates, lost, abortedReads, abortedReadsUncommitted, stateMismatches, openTransactions } = report
  return { duplicates, lost, abortedReads, abortedReadsUncommitted, stateMismatches, openTransactions }
}

export type Guarantee = 'exactly-once' | 'at-least-once' | 'at-most-once'

/** The --expect names, strongest first. */
export const EXPECTATIONS = ['exactly-once', 'at-least-once', 'at-most-once'] as const satisfies readonly Guarantee[]

/** The expectation a processing.guarantee promises. */
export function expectationOf(guarantee: Guarantee | ProcessingGuarantee): Guarantee {
  if (guarantee === 'exactly-once' || guarantee === 'at-least-once' || guarantee === 'at-most-once') return guarantee
  if (isExactlyOnce(guarantee)) return 'exactly-once'
  return guarantee === 'at_most_once' ? 'at-most-once' : 'at-least-once'
}

export interface Violation {
  row: ValidationRow
  /** null: the row could not be computed, so the guarantee cannot be shown to hold. */
  value: number | null
}

/** The rows each expectation requires to be 0. */
const REQUIRED_ROWS: Record<Guarantee, readonly ValidationRow[]> = {
  'exactly-once': VALIDATION_ROWS,
  'at-least-once': ['lost'],
  'at-most-once': ['duplicates'],
}

/**
 * The rows that break the guarantee: under exactly-once all five must be 0, under at-least-once
 * nothing may be lost (duplicates and state mismatches are expected after faults, and counted),
 * under at-most-once nothing may be written twice (lost records and state mismatches are expected
 * after faults, and counted; a lost ack retried with idempotence off does write twice, and fails it).
 */
export function violations(report: ValidationReport, guarantee: Guarantee | ProcessingGuarantee): Violation[] {
  return REQUIRED_ROWS[expectationOf(guarantee)]
    .map((row) => ({ row, value: report[row] }))
    .filter((v) => v.value !== 0)
}
