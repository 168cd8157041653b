// One partition of the embedded log: append-only batches with producer id, epoch and base
// sequence; the idempotent producer's sequence checks; transaction markers; the last stable offset.

import { LogError } from '../errors.ts'
import type { ConsumedRecord, ControlType, Headers, PartitionOffsets, StoredRecordView, TxnOutcome } from '../types.ts'
import type { IsolationLevel } from '../../../lib/streams-config.ts'
import { NO_PRODUCER_ID, NO_SEQUENCE, ProducerStateTable } from './producer-state-table.ts'
import { RecordColumns } from './record-columns.ts'

export { NO_PRODUCER_ID, NO_SEQUENCE } from './producer-state-table.ts'

/** A batch's producer fields, as its produce request carries them. */
export interface BatchProducer {
  producerId: number
  producerEpoch: number
  baseSequence: number
  /** Written inside a transaction: it stays pending until its COMMIT or ABORT marker. */
  transactional: boolean
}

/** A batch from a plain (non-idempotent, non-transactional) producer. */
export const PLAIN_BATCH: Readonly<BatchProducer> = {
  producerId: NO_PRODUCER_ID,
  producerEpoch: 0,
  baseSequence: NO_SEQUENCE,
  transactional: false,
}

/** A batch as written by one produce request for one partition (or one control marker). */
export interface Batch {
  readonly producerId: number
  readonly producerEpoch: number
  readonly baseSequence: number
  readonly transactional: boolean
  readonly baseOffset: number
  readonly count: number
  readonly control: ControlType | null
  /** Stamped when the transaction's marker is written; null outside transactions. */
  outcome: TxnOutcome | null
}

/** A stored record with its batch, as entryAt() shows it. */
export interface Entry extends ConsumedRecord {
  readonly batch: Batch
}

export interface DataRecord {
  key: string | null
  value: string | null
  headers?: Headers
  timestamp?: number
}

interface OngoingTxn {
  producerId: number
  firstOffset: number
  batches: Batch[]
}

export interface AbortedTxn {
  producerId: number
  firstOffset: number
  lastOffset: number
}

export interface AppendResult {
  baseOffset: number
  /** True when the batch was a retry of one already appended: acknowledged, not appended again. */
  duplicate: boolean
}

export class PartitionLog {
  private readonly columns = new RecordColumns<Batch>()
  private startOffset = 0
  private endOffset = 0
  /** Slots right after the last compaction, to decide when the next one pays. */
  private compactedSlots = 0
  private readonly producers: ProducerStateTable
  private readonly ongoing = new Map<number, OngoingTxn>()
  /** The abort index: what a read_committed fetch must filter out. */
  readonly abortedTxns: AbortedTxn[] = []

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {
    this.producers = new ProducerStateTable(`${topic}-${partition}`)
  }

  get logStartOffset(): number {
    return this.startOffset
  }
  /** No replication here, so the high watermark is the log end offset. */
  get highWatermark(): number {
    return this.endOffset
  }
  /** Records (and markers) physically stored. */
  get storedRecords(): number {
    return this.columns.length
  }
  get lastStableOffset(): number {
    let lso = this.highWatermark
    for (const t of this.ongoing.values()) if (t.firstOffset < lso) lso = t.firstOffset
    return lso
  }
  offsets(): PartitionOffsets {
    return {
      logStartOffset: this.startOffset,
      lastStableOffset: this.lastStableOffset,
      highWatermark: this.highWatermark,
    }
  }
  hasOngoingTxn(producerId: number): boolean {
    return this.ongoing.has(producerId)
  }
  ongoingProducerIds(): number[] {
    return [...this.ongoing.keys()]
  }
  /** What the producer's open transaction holds on this partition: its records and their offsets, or null. */
  heldBy(producerId: number): { firstOffset: number; lastOffset: number; records: number } | null {
    const txn = this.ongoing.get(producerId)
    if (!txn || txn.batches.length === 0) return null
    const last = txn.batches[txn.batches.length - 1]!
    return {
      firstOffset: txn.firstOffset,
      lastOffset: last.baseOffset + last.count - 1,
      records: txn.batches.reduce((n, b) => n + b.count, 0),
    }
  }
  lastSequence(producerId: number): number | undefined {
    return this.producers.lastSequence(producerId)
  }
  /**
   * Every producer with state here, and the first offset of its open transaction
   * (-1: none), as DescribeProducers answers.
   */
  producerStates(): { producerId: number; epoch: number; lastSequence: number; currentTxnStartOffset: number }[] {
    return this.producers
      .entries()
      .map((p) => ({ ...p, currentTxnStartOffset: this.ongoing.get(p.producerId)?.firstOffset ?? -1 }))
  }

  /**
   * Appends one batch. With a producer id, the sequence rules of the idempotent producer apply:
   * an older epoch is fenced, a retried batch is acknowledged without being appended again,
   * a gap is an out-of-order-sequence error.
   */
  append(producer: Readonly<BatchProducer>, records: readonly DataRecord[], now: number): AppendResult {
    const { producerId, producerEpoch, baseSequence, transactional } = producer
    if (records.length === 0) throw new LogError('INVALID_REQUEST', 'empty batch')
    const retried = this.producers.check(producerId, producerEpoch, baseSequence, records.length)
    if (retried !== null) return { baseOffset: retried, duplicate: true }
    const baseOffset = this.highWatermark
    const batch: Batch = {
      producerId,
      producerEpoch,
      baseSequence,
      transactional,
      baseOffset,
      count: records.length,
      control: null,
      outcome: transactional ? 'pending' : null,
    }
    this.columns.pushAll(baseOffset, records, now, batch)
    this.endOffset = baseOffset + records.length
    this.producers.appended(producerId, producerEpoch, baseSequence, records.length, baseOffset)
    if (transactional) {
      let txn = this.ongoing.get(producerId)
      if (!txn) {
        txn = { producerId, firstOffset: baseOffset, batches: [] }
        this.ongoing.set(producerId, txn)
      }
      txn.batches.push(batch)
    }
    return { baseOffset, duplicate: false }
  }

  /**
   * Writes a COMMIT or ABORT control marker for the producer's transaction on this partition and
   * stamps the outcome on its batches. Written by the transaction coordinator only.
   */
  writeMarker(producerId: number, producerEpoch: number, type: ControlType, now: number): number {
    const offset = this.highWatermark
    const batch: Batch = {
      producerId,
      producerEpoch,
      baseSequence: NO_SEQUENCE,
      transactional: true,
      baseOffset: offset,
      count: 1,
      control: type,
      outcome: type === 'COMMIT' ? 'committed' : 'aborted',
    }
    this.columns.push(offset, null, null, now, batch, undefined)
    this.endOffset = offset + 1
    const txn = this.ongoing.get(producerId)
    if (txn) {
      for (const b of txn.batches) b.outcome = batch.outcome
      this.ongoing.delete(producerId)
      if (type === 'ABORT') this.abortedTxns.push({ producerId, firstOffset: txn.firstOffset, lastOffset: offset })
    }
    this.producers.markerWritten(producerId, producerEpoch)
    return offset
  }

  /**
   * A consumer's fetch. Control markers are never returned; read_committed stops at the LSO and skips aborted records.
   */
  read(from: number, maxRecords: number, isolation: IsolationLevel): { records: ConsumedRecord[]; nextOffset: number } {
    if (from < this.startOffset) {
      throw new LogError(
        'OFFSET_OUT_OF_RANGE',
        `offset ${from} is below the log start offset ${this.startOffset} of ${this.topic}-${this.partition}`,
      )
    }
    const end = isolation === 'read_committed' ? this.lastStableOffset : this.highWatermark
    const records: ConsumedRecord[] = []
    const cols = this.columns
    const n = cols.length
    const hasHeaders = cols.hasHeaders
    const first = cols.slotOf(from)
    // The values of the slots a fetch of maxRecords will most likely take, decoded together; any
    // further slot (past control markers or aborted records skipped) is decoded on its own.
    const decoded = Math.min(n, cols.slotOf(end), first + maxRecords)
    const values = cols.values(first, decoded)
    for (let i = first; i < n; i++) {
      const offset = cols.offsetOfSlot(i)
      if (offset >= end) break
      if (records.length >= maxRecords) {
        return { records, nextOffset: offset }
      }
      const b = cols.batch(i)
      if (b.control === null && !(isolation === 'read_committed' && b.outcome === 'aborted')) {
        records.push({
          topic: this.topic,
          partition: this.partition,
          offset,
          key: cols.key(i),
          value: i < decoded ? (values[i - first] ?? null) : cols.value(i),
          headers: hasHeaders ? cols.headers(offset) : undefined,
          timestamp: cols.timestamp(i),
        })
      }
    }
    // Every slot below `end` was examined; gaps left by compaction are skipped too.
    return { records, nextOffset: Math.max(from, end) }
  }

  readRaw(from: number, to: number, maxRecords: number): StoredRecordView[] {
    const out: StoredRecordView[] = []
    const end = Math.min(to, this.highWatermark)
    const cols = this.columns
    const first = cols.slotOf(Math.max(from, this.startOffset))
    const last = Math.min(cols.length, cols.slotOf(end), first + maxRecords)
    const values = cols.values(first, last)
    for (let i = first; i < last; i++) out.push(toView(this.entryAtSlot(i, values[i - first] ?? null)))
    return out
  }

  /** The stored entry at an offset (for tests and deep views). */
  entryAt(offset: number): Entry | undefined {
    const i = this.columns.slotOf(offset)
    if (i >= this.columns.length || this.columns.offsetOfSlot(i) !== offset) return undefined
    return this.entryAtSlot(i)
  }

  /** The entry at slot i; `value` when the caller decoded it already. */
  private entryAtSlot(i: number, value: string | null = this.columns.value(i)): Entry {
    const cols = this.columns
    const offset = cols.offsetOfSlot(i)
    return {
      topic: this.topic,
      partition: this.partition,
      offset,
      key: cols.key(i),
      value,
      headers: cols.headers(offset),
      timestamp: cols.timestamp(i),
      batch: cols.batch(i),
    }
  }

  /**
   * Retention by size or time: drops the oldest records, never at or past the last stable offset
   * and never past `keepFrom` (what a reader still needs). Returns how many were dropped.
   */
  applyRetention(
    policy: { maxRecords?: number; maxAgeMs?: number },
    now: number,
    keepFrom = Number.POSITIVE_INFINITY,
  ): number {
    const limit = Math.min(this.lastStableOffset, keepFrom)
    const cols = this.columns
    const n = cols.length
    let drop = 0
    if (policy.maxRecords !== undefined && n > policy.maxRecords) drop = n - policy.maxRecords
    if (policy.maxAgeMs !== undefined) while (drop < n && now - cols.timestamp(drop) > policy.maxAgeMs) drop++
    // Never at or past the limit.
    while (drop > 0 && cols.offsetOfSlot(drop - 1) >= limit) drop--
    if (drop <= 0) return 0
    const newStart = drop < n ? cols.offsetOfSlot(drop) : Math.min(limit, this.endOffset)
    this.startOffset = Math.max(this.startOffset, Math.min(newStart, limit))
    cols.dropFront(drop, this.startOffset)
    while (this.abortedTxns.length > 0 && this.abortedTxns[0]!.lastOffset < this.startOffset) this.abortedTxns.shift()
    return drop
  }

  /**
   * Compaction (cleanup.policy=compact): below the last stable offset, keeps only the latest
   * committed (or non-transactional) record of each key, and the control marker of each
   * transaction a kept record belongs to; aborted records and the other markers there are
   * dropped. Offsets do not change; they leave gaps. Returns the records removed.
   * Runs when the log has at least doubled since the last compaction.
   */
  maybeCompact(minSlots = 10_000): number {
    const cols = this.columns
    const n = cols.length
    if (n < minSlots || n < 2 * this.compactedSlots) return 0
    const lso = this.lastStableOffset
    const latest = new Map<string | null, number>()
    let cut = 0
    for (; cut < n; cut++) {
      if (cols.offsetOfSlot(cut) >= lso) break
      const b = cols.batch(cut)
      if (b.control === null && b.outcome !== 'aborted' && cols.key(cut) !== null) latest.set(cols.key(cut), cut)
    }
    // A control marker stays while any record of its transaction does, as Kafka's log cleaner keeps
    // it: without it, a reader could no longer tell which transaction a kept record belonged to.
    const keptData = new Set(latest.values())
    const keep: number[] = []
    const awaitingMarker = new Set<number>()
    for (let i = 0; i < cut; i++) {
      const b = cols.batch(i)
      if (keptData.has(i)) {
        keep.push(i)
        if (b.transactional) awaitingMarker.add(b.producerId)
      } else if (b.control !== null && awaitingMarker.has(b.producerId)) {
        keep.push(i)
        awaitingMarker.delete(b.producerId)
      }
    }
    for (let i = cut; i < n; i++) keep.push(i)
    const removed = n - keep.length
    if (removed === 0) {
      this.compactedSlots = n
      return 0
    }
    cols.keepOnly(keep)
    this.compactedSlots = cols.length
    return removed
  }
}

export function toView(e: Entry): StoredRecordView {
  const b = e.batch
  return {
    topic: e.topic,
    partition: e.partition,
    offset: e.offset,
    key: e.key,
    value: e.value,
    headers: e.headers,
    timestamp: e.timestamp,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    sequence: b.baseSequence === NO_SEQUENCE ? NO_SEQUENCE : b.baseSequence + (e.offset - b.baseOffset),
    transactional: b.transactional,
    control: b.control,
    txnOutcome: b.transactional ? b.outcome : null,
  }
}
