// The Transactions view's data, declared once for the server and the browser: each transactional
// id as its coordinator holds it (kafka-transactions.sh describe), each producer of the lab's
// input, output and changelog partitions as the partition's leader holds it (describe-producers),
// and every open transaction classified by find-hanging's rule.

import type { LabTopicRole } from './log-range.ts'

/** A transactional id at its coordinator. */
export interface CoordinatorRow {
  transactionalId: string
  producerId: number
  epoch: number
  /** Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort (PrepareEpochFence, Dead). */
  state: string
  /** transaction.timeout.ms */
  timeoutMs: number
  /** When its open transaction began; null: none open. */
  startTimeMs: number | null
  /**
   * The coordinator's last state change; null where the backend does not tell (Kafka's DescribeTransactions does not).
   */
  lastUpdateMs: number | null
  /** The partitions in its open transaction, as `topic-partition`. */
  partitions: string[]
  /**
   * Its last aborted transaction, as the lab recorded it (the coordinator moves on to the next transaction at once).
   */
  lastAbort: { cause: string | null; epoch: number; atMs: number } | null
}

export type OpenVerdict = 'ongoing' | 'overdue' | 'hanging'

/** A producer's state on one of the lab's partitions. */
export interface ProducerStateRow {
  topic: string
  partition: number
  role: LabTopicRole
  producerId: number
  epoch: number
  /** -1: no sequenced batch at this epoch yet. */
  lastSequence: number
  /** First offset of its open transaction here (Kafka's CurrentTransactionStartOffset); null: none open. */
  firstOffset: number | null
  /** The transactional id its coordinator knows it by; null: no coordinator knows this producer id. */
  transactionalId: string | null
  /** Open transactions only: find-hanging's verdict, and why. */
  verdict: OpenVerdict | null
  reason: string | null
}

export interface TransactionsViewData {
  /** When the coordinators and partitions were read. */
  readAtMs: number
  coordinators: CoordinatorRow[]
  /** Open transactions first, then the latest others, at most MAX_PRODUCER_ROWS. */
  producers: ProducerStateRow[]
  /** Producers with state on the partitions, shown or not. */
  producerCount: number
  hanging: number
  /** The last read failed (the rows are the read before it). */
  error?: string
  /** Why this backend cannot make a hanging transaction as a fault (null: it can). */
  injectUnavailable: string | null
}

/** Rows of producer state sent at most (open transactions always first). */
export const MAX_PRODUCER_ROWS = 60
/** Transactional ids sent at most (open ones first). */
export const MAX_COORDINATOR_ROWS = 60
