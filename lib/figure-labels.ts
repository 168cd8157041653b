// The words and unit of each figure a scenario's evidence quotes. Scenarios name their figures in
// the code's words (server/lab/scenarios/*: `duplicatesInReplayWindow`, `exactly_once.abortedRecords`,
// `100.throughputPerSec`); a reader gets these. Definitions: docs/measures.md.

export interface FigureLabel {
  /** What the figure counts, in a reader's words. */
  label: string
  /** Its unit after the number ('' for a count whose label says what is counted). */
  unit: string
}

const LABELS: Record<string, FigureLabel> = {
  duplicates: { label: 'duplicates', unit: 'records' },
  duplicatesInReplayWindow: { label: 'duplicates in the replay window', unit: 'records' },
  duplicatesWithoutIdempotence: { label: 'duplicates with enable.idempotence off', unit: 'records' },
  duplicatesWithIdempotence: { label: 'duplicates with enable.idempotence on', unit: 'records' },
  deduplicatedRetries: { label: 'retries the broker dropped by sequence number', unit: 'batches' },
  stateMismatches: { label: 'state mismatches', unit: 'keys' },
  doubleAppliedUpdates: { label: 'double-applied updates', unit: 'updates' },
  redone: { label: 'input records redone', unit: 'records' },
  abortedTransactions: { label: 'aborted transactions', unit: 'transactions' },
  abortedRecords: { label: 'records aborted', unit: 'records' },
  committedRecords: { label: 'records committed', unit: 'records' },
  throughputPerSec: { label: 'processed throughput', unit: 'records/s' },
  recoveryMs: { label: 'recovery time', unit: 'ms' },
  catchUpMs: { label: 'catch-up', unit: 'ms' },
  stalledMs: { label: 'read_committed stalled for', unit: 'ms' },
  transactionOpenMs: { label: 'transaction open for', unit: 'ms' },
  transactionTimeoutMs: { label: 'transaction.timeout.ms', unit: 'ms' },
  partition: { label: 'output partition', unit: '' },
  committed: { label: 'records read_committed delivered', unit: 'records' },
  uncommitted: { label: 'records read_uncommitted delivered', unit: 'records' },
  abortedSeenCommitted: { label: 'aborted records read_committed delivered', unit: 'records' },
  abortedSeenUncommitted: { label: 'aborted records read_uncommitted delivered', unit: 'records' },
}

/** camelCase as words: a name no table knows is still read as words, never as an identifier. */
function words(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()
}

/**
 * A figure's label and unit. A prefix before the last dot says what the figure was measured under:
 * a guarantee (`exactly_once.abortedRecords`) or a commit interval in ms (`100.throughputPerSec`).
 */
export function figureLabel(name: string): FigureLabel {
  const dot = name.lastIndexOf('.')
  const base = dot < 0 ? name : name.slice(dot + 1)
  const under = dot < 0 ? null : name.slice(0, dot)
  const known = LABELS[base] ?? { label: words(base), unit: '' }
  if (under === null) return known
  const context = /^\d+$/.test(under) ? `at commit.interval.ms ${Number(under).toLocaleString('en-US')}` : under
  return { label: `${known.label}, ${context}`, unit: known.unit }
}
