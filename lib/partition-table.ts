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
