// One partition of the embedded log: append-only batches with producer id, epoch and base
// sequence; the idempotent producer's sequence checks; transaction markers; the last stable offset.

import { LogError } from '../errors.ts'
import type { ConsumedRecord, ControlType, Headers, PartitionOffsets, StoredRecordView, TxnOutcome } from '../types.ts'
import type { IsolationLevel } from '../../../lib/streams-config.ts'
import { ByteArena } from './byte-arena.ts'

export const NO_PRODUCER_ID = -1
export const NO_SEQUENCE = -1

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

/** Kafka keeps the metadata of the last 5 batches per producer to recognise retried ones. */
const RETAINED_BATCHES_PER_PRODUCER = 5

interface ProducerEntry {
  epoch: number
  lastSequence: number
  recent: { baseSequence: number; count: number; baseOffset: number }[]
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
  // Columnar storage: one slot per offset in each array, so a stored record costs no object of
  // its own (far less for the garbage collector to trace); reads build short-lived objects.
  private keys: (string | null)[] = []
  /** Values as UTF-8 bytes in an arena: a location and a byte length per offset (length -1: null). */
  private readonly arena = new ByteArena()
  private valueAt: number[] = []
  private valueLength: number[] = []
  private timestamps: number[] = []
  private batchOf: Batch[] = []
  private readonly headersAt = new Map<number, Headers>()
  private startOffset = 0
  private readonly producers = new Map<number, ProducerEntry>()
  private readonly ongoing = new Map<number, OngoingTxn>()
  /** The abort index: what a read_committed fetch must filter out. */
  readonly abortedTxns: AbortedTxn[] = []

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  get logStartOffset(): number {
    return this.startOffset
  }
  /** No replication here, so the high watermark is the log end offset. */
  get highWatermark(): number {
    return this.startOffset + this.keys.length
  }
  get lastStableOffset(): number {
    let lso = this.highWatermark
    for (const t of this.ongoing.values()) if (t.firstOffset < lso) lso = t.firstOffset
    return lso
  }
  offsets(): PartitionOffsets {
    return { logStartOffset: this.startOffset, lastStableOffset: this.lastStableOffset, highWatermark: this.highWatermark }
  }
  hasOngoingTxn(producerId: number): boolean {
    return this.ongoing.has(producerId)
  }
  ongoingProducerIds(): number[] {
    return [...this.ongoing.keys()]
  }
  lastSequence(producerId: number): number | undefined {
    return this.producers.get(producerId)?.lastSequence
  }

  /**
   * Appends one batch. With a producer id, the sequence rules of the idempotent producer apply:
   * an older epoch is fenced, a retried batch is acknowledged without being appended again,
   * a gap is an out-of-order-sequence error.
   */
  append(producerId: number, producerEpoch: number, baseSequence: number, transactional: boolean, records: readonly DataRecord[], now: number): AppendResult {
    if (records.length === 0) throw new LogError('INVALID_REQUEST', 'empty batch')
    let producer: ProducerEntry | undefined
    if (producerId !== NO_PRODUCER_ID) producer = this.producers.get(producerId)
    if (producer && producerEpoch < producer.epoch) {
      throw new LogError('PRODUCER_FENCED', `producer ${producerId} epoch ${producerEpoch} is older than ${producer.epoch} on ${this.topic}-${this.partition}`)
    }
    // Sequence checks apply to idempotent producers; coordinator writes (transactional offset commits) carry no sequence.
    if (producerId !== NO_PRODUCER_ID && baseSequence !== NO_SEQUENCE) {
      if (producer) {
        if (producerEpoch < producer.epoch) {
          throw new LogError('PRODUCER_FENCED', `producer ${producerId} epoch ${producerEpoch} is older than ${producer.epoch} on ${this.topic}-${this.partition}`)
        }
        if (producerEpoch === producer.epoch) {
          const retried = producer.recent.find((b) => b.baseSequence === baseSequence && b.count === records.length)
          if (retried) return { baseOffset: retried.baseOffset, duplicate: true }
          if (baseSequence !== producer.lastSequence + 1) {
            throw new LogError('OUT_OF_ORDER_SEQUENCE_NUMBER', `expected sequence ${producer.lastSequence + 1} from producer ${producerId}, got ${baseSequence}`)
          }
        } else if (baseSequence !== 0) {
          throw new LogError('OUT_OF_ORDER_SEQUENCE_NUMBER', `a new epoch must start at sequence 0, got ${baseSequence}`)
        }
      } else if (baseSequence !== 0) {
        throw new LogError('OUT_OF_ORDER_SEQUENCE_NUMBER', `producer ${producerId} is unknown here; its first sequence must be 0, got ${baseSequence}`)
      }
    }
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
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!
      this.keys.push(r.key)
      this.pushValue(r.value)
      this.timestamps.push(r.timestamp ?? now)
      this.batchOf.push(batch)
      if (r.headers !== undefined) this.headersAt.set(baseOffset + i, r.headers)
    }
    if (producerId !== NO_PRODUCER_ID) {
      if (!producer || producer.epoch !== producerEpoch) {
        producer = { epoch: producerEpoch, lastSequence: -1, recent: [] }
        this.producers.set(producerId, producer)
      }
    }
    if (producer && baseSequence !== NO_SEQUENCE) {
      producer.lastSequence = baseSequence + records.length - 1
      producer.recent.push({ baseSequence, count: records.length, baseOffset })
      if (producer.recent.length > RETAINED_BATCHES_PER_PRODUCER) producer.recent.shift()
    }
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
    this.keys.push(null)
    this.pushValue(null)
    this.timestamps.push(now)
    this.batchOf.push(batch)
    const txn = this.ongoing.get(producerId)
    if (txn) {
      for (const b of txn.batches) b.outcome = batch.outcome
      this.ongoing.delete(producerId)
      if (type === 'ABORT') this.abortedTxns.push({ producerId, firstOffset: txn.firstOffset, lastOffset: offset })
    }
    // A marker carries the coordinator's epoch; data from older epochs is fenced from now on.
    const producer = this.producers.get(producerId)
    if (!producer || producer.epoch < producerEpoch) {
      this.producers.set(producerId, { epoch: producerEpoch, lastSequence: -1, recent: [] })
    }
    return offset
  }

  private pushValue(value: string | null): void {
    if (value === null) {
      this.valueAt.push(0)
      this.valueLength.push(-1)
      return
    }
    const at = this.arena.write(value)
    this.valueAt.push(at)
    this.valueLength.push(this.arena.end - at)
  }

  private valueOf(i: number): string | null {
    const len = this.valueLength[i]!
    return len < 0 ? null : this.arena.read(this.valueAt[i]!, len)
  }

  private indexOf(offset: number): number {
    return offset - this.startOffset
  }

  /** A consumer's fetch. Control markers are never returned; read_committed stops at the LSO and skips aborted records. */
  read(from: number, maxRecords: number, isolation: IsolationLevel): { records: ConsumedRecord[]; nextOffset: number } {
    if (from < this.startOffset) {
      throw new LogError('OFFSET_OUT_OF_RANGE', `offset ${from} is below the log start offset ${this.startOffset} of ${this.topic}-${this.partition}`)
    }
    const end = isolation === 'read_committed' ? this.lastStableOffset : this.highWatermark
    const records: ConsumedRecord[] = []
    let offset = from
    let i = this.indexOf(from)
    const last = this.indexOf(end)
    const hasHeaders = this.headersAt.size > 0
    while (i < last && records.length < maxRecords) {
      const b = this.batchOf[i]!
      if (b.control === null && !(isolation === 'read_committed' && b.outcome === 'aborted')) {
        records.push({
          topic: this.topic,
          partition: this.partition,
          offset,
          key: this.keys[i]!,
          value: this.valueOf(i),
          headers: hasHeaders ? this.headersAt.get(offset) : undefined,
          timestamp: this.timestamps[i]!,
        })
      }
      i++
      offset++
    }
    return { records, nextOffset: offset }
  }

  readRaw(from: number, to: number, maxRecords: number): StoredRecordView[] {
    const out: StoredRecordView[] = []
    const start = Math.max(from, this.startOffset)
    const end = Math.min(to, this.highWatermark)
    for (let o = start; o < end && out.length < maxRecords; o++) out.push(toView(this.entryAt(o)!))
    return out
  }

  /** The stored entry at an offset (for tests and deep views). */
  entryAt(offset: number): Entry | undefined {
    const i = this.indexOf(offset)
    if (i < 0 || i >= this.keys.length) return undefined
    return {
      topic: this.topic,
      partition: this.partition,
      offset,
      key: this.keys[i]!,
      value: this.valueOf(i),
      headers: this.headersAt.get(offset),
      timestamp: this.timestamps[i]!,
      batch: this.batchOf[i]!,
    }
  }

  /**
   * Retention by size or time: drops the oldest records, never at or past the last stable offset
   * and never past `keepFrom` (what a reader still needs). Returns how many were dropped.
   */
  applyRetention(policy: { maxRecords?: number; maxAgeMs?: number }, now: number, keepFrom = Number.POSITIVE_INFINITY): number {
    const limit = Math.min(this.lastStableOffset, keepFrom)
    let newStart = this.startOffset
    if (policy.maxRecords !== undefined && this.keys.length > policy.maxRecords) {
      newStart = Math.max(newStart, this.highWatermark - policy.maxRecords)
    }
    if (policy.maxAgeMs !== undefined) {
      while (newStart < limit && now - this.timestamps[this.indexOf(newStart)]! > policy.maxAgeMs) newStart++
    }
    newStart = Math.min(newStart, limit)
    const dropped = newStart - this.startOffset
    if (dropped <= 0) return 0
    this.keys.splice(0, dropped)
    this.valueAt.splice(0, dropped)
    this.valueLength.splice(0, dropped)
    if (this.valueAt.length > 0) this.arena.releaseBefore(this.valueAt[0]!)
    this.timestamps.splice(0, dropped)
    this.batchOf.splice(0, dropped)
    for (const o of this.headersAt.keys()) if (o < newStart) this.headersAt.delete(o)
    this.startOffset = newStart
    while (this.abortedTxns.length > 0 && this.abortedTxns[0]!.lastOffset < newStart) this.abortedTxns.shift()
    return dropped
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
