// The partitions table's rows, declared once for the server and the browser: every partition of
// the lab's input, output and changelog topics (and of the internal topics that hold its group's
// offsets and its transactional ids, where the backend has them), read at one moment.

/** What a partition is to the lab. */
export type PartitionRole = 'input' | 'output' | 'changelog' | 'offsets' | 'transaction-state'

/** A producer holding a transaction open on a partition: its records after the LSO have no marker yet. */
export interface OpenTxnHolder {
  producerId: number
  epoch: number
  /** The lab's own producers are known by their transactional.id; another's is null. */
  transactionalId: string | null
  /** The first offset of its open transaction here (Kafka's CurrentTransactionStartOffset). */
  firstOffset: number
}

export interface PartitionRow {
  topic: string
  partition: number
  role: PartitionRole
  logStartOffset: number
  lastStableOffset: number
  highWatermark: number
  /**
   * Open transactions: one per producer whose transactional records in [LSO, HW) have no marker.
   * `atLeast`: the scan of [LSO, HW) stopped at its bound, or the transactions it saw ended while it
   * read, so only the LSO below the HW tells a transaction is open: the count is a lower bound.
   */
  open: { count: number; atLeast?: true; holders: OpenTxnHolder[] }
  /** Input partitions: the group's committed offset (null: none yet) and lag = high watermark − committed. */
  committed?: number | null
  lag?: number | null
}

/**
 * The table's total (docs/measures.md#open-transactions): open transactions, each counted once
 * however many partitions it holds open (a transaction writes the output, the changelog and the
 * group's offsets: three partitions, one transaction), and the partitions with an open transaction
 * (LSO below HW, what the correctness panel counts). A producer has at most one open transaction,
 * so transactions are told apart by producer id. `atLeast`: a partition's holders are not all
 * known (its scan stopped at its bound, or they ended while it read), so more may be open.
 */
export function openTransactionTotals(rows: readonly PartitionRow[]): {
  transactions: number
  partitions: number
  atLeast: boolean
} {
  const producers = new Set<number>()
  let partitions = 0
  let atLeast = false
  for (const r of rows) {
    if (r.open.count === 0) continue
    partitions++
    for (const h of r.open.holders) producers.add(h.producerId)
    if (r.open.atLeast || r.open.holders.length < r.open.count) atLeast = true
  }
  const transactions = partitions > 0 ? Math.max(1, producers.size) : 0
  return { transactions, partitions, atLeast }
}
