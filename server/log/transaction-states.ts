// The transaction coordinator's states, as Kafka names them, and which of them hold a transaction
// open (its partitions listed, its start time meaningful). Kafka's DescribeTransactions keeps the
// start time of a transaction after it completed; the log's port says -1 for "none open".

/** States in which the coordinator holds a transaction open. */
export const OPEN_TRANSACTION_STATES: ReadonlySet<string> = new Set([
  'Ongoing',
  'PrepareCommit',
  'PrepareAbort',
  'PrepareEpochFence',
])

export function isTransactionOpen(state: string): boolean {
  return OPEN_TRANSACTION_STATES.has(state)
}

/** The start time the port reports: the coordinator's when a transaction is open, -1 otherwise. */
export function openSinceMs(state: string, startTimeMs: number): number {
  return isTransactionOpen(state) && startTimeMs >= 0 ? startTimeMs : -1
}
