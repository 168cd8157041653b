// What each isolation level delivers, recomputed from the raw records of one partition, and an
// audit of it that follows transactions through their control markers only.
//
// The fetch is simulated as the log serves it: a read_committed consumer stops at the last stable
// offset and skips records flagged aborted. The audit does not trust those flags. It assigns every
// transactional record to its producer's open transaction on the partition, which that producer's
// next COMMIT or ABORT marker closes (how Kafka builds its abort index), and counts the delivered
// records whose transaction the markers say was aborted. A correct log shows 0; a log that forgets
// to flag aborted batches, or reports a last stable offset past an aborted transaction, does not.

import type { ControlType, PartitionOffsets, StoredRecordView } from '../log/types.ts'

type RecordFlags = Pick<StoredRecordView, 'control' | 'txnOutcome'>

/** Committed (docs/measures.md): a data record written outside any transaction, or whose transaction committed. */
export function isCommittedRecord(r: RecordFlags): boolean {
  return r.control === null && (r.txnOutcome === null || r.txnOutcome === 'committed')
}

/** Whether a read_committed fetch returns this record: below the LSO, not a marker, not flagged aborted. */
export function isDeliveredReadCommitted(r: RecordFlags & { offset: number }, lastStableOffset: number): boolean {
  return r.offset < lastStableOffset && r.control === null && r.txnOutcome !== 'aborted'
}

/** Whether a read_uncommitted fetch returns this record: below the high watermark, not a marker. */
export function isDeliveredReadUncommitted(r: RecordFlags & { offset: number }, highWatermark: number): boolean {
  return r.offset < highWatermark && r.control === null
}

/** The records a read_committed consumer receives from these raw records (pure). */
export function readCommitted<R extends RecordFlags & { offset: number }>(
  records: readonly R[],
  lastStableOffset: number,
): R[] {
  return records.filter((r) => isDeliveredReadCommitted(r, lastStableOffset))
}

/** The records a read_uncommitted consumer receives from these raw records (pure). */
export function readUncommitted<R extends RecordFlags & { offset: number }>(
  records: readonly R[],
  highWatermark: number,
): R[] {
  return records.filter((r) => isDeliveredReadUncommitted(r, highWatermark))
}

export interface AbortedReadCounts {
  /** Records of aborted transactions a read_committed consumer receives: must be 0. */
  abortedReads: number
  /** Records of aborted transactions a read_uncommitted consumer receives: the contrast figure. */
  abortedReadsUncommitted: number
}

type AuditedRecord = Pick<StoredRecordView, 'offset' | 'producerId' | 'transactional' | 'control' | 'txnOutcome'>

interface OpenTxn {
  deliveredReadCommitted: number
  deliveredReadUncommitted: number
}

/**
 * Streaming audit of one partition: feed every raw record in offset order, markers included.
 * Memory is one small entry per producer with an open transaction, so it pages over any log.
 */
export class AbortedReadAudit {
  private readonly open = new Map<number, OpenTxn>()
  private readonly counts: AbortedReadCounts = { abortedReads: 0, abortedReadsUncommitted: 0 }
  private lastOffset = -1

  constructor(private readonly offsets: Pick<PartitionOffsets, 'lastStableOffset' | 'highWatermark'>) {}

  add(r: AuditedRecord): void {
    if (r.offset <= this.lastOffset)
      throw new Error(`records must come in offset order: ${r.offset} after ${this.lastOffset}`)
    this.lastOffset = r.offset
    if (r.control !== null) {
      this.closeTxn(r.producerId, r.control)
      return
    }
    if (!r.transactional) return
    let txn = this.open.get(r.producerId)
    if (!txn) {
      txn = { deliveredReadCommitted: 0, deliveredReadUncommitted: 0 }
      this.open.set(r.producerId, txn)
    }
    if (isDeliveredReadCommitted(r, this.offsets.lastStableOffset)) txn.deliveredReadCommitted++
    if (isDeliveredReadUncommitted(r, this.offsets.highWatermark)) txn.deliveredReadUncommitted++
  }

  private closeTxn(producerId: number, marker: ControlType): void {
    const txn = this.open.get(producerId)
    this.open.delete(producerId)
    if (!txn || marker !== 'ABORT') return
    this.counts.abortedReads += txn.deliveredReadCommitted
    this.counts.abortedReadsUncommitted += txn.deliveredReadUncommitted
  }

  /** The counts so far. Transactions still open are not aborted (yet) and count nowhere. */
  result(): AbortedReadCounts {
    return { ...this.counts }
  }
}

/** The audit over a whole partition's raw records (pure). */
export function auditAbortedReads(
  records: readonly AuditedRecord[],
  offsets: Pick<PartitionOffsets, 'lastStableOffset' | 'highWatermark'>,
): AbortedReadCounts {
  const audit = new AbortedReadAudit(offsets)
  for (const r of records) audit.add(r)
  return audit.result()
}

/** The counts of several audits (one per partition) added up. */
export function sumAbortedReads(audits: Iterable<AbortedReadAudit>): AbortedReadCounts {
  const sum: AbortedReadCounts = { abortedReads: 0, abortedReadsUncommitted: 0 }
  for (const audit of audits) {
    const c = audit.result()
    sum.abortedReads += c.abortedReads
    sum.abortedReadsUncommitted += c.abortedReadsUncommitted
  }
  return sum
}
