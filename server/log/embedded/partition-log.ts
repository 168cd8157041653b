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
  private arena = new ByteArena()
  private valueAt: number[] = []
  private valueLength: number[] = []
  private timestamps: number[] = []
  private batchOf: Batch[] = []
  private readonly headersAt = new Map<number, Headers>()
  /** The offset of each slot once compaction has left gaps; null while slots are dense (slot = offset - start). */
  private offsetAt: number[] | null = null
  private startOffset = 0
  private endOffset = 0
  /** Slots right after the last compaction, to decide when the next one pays. */
  private compactedSlots = 0
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
    return this.endOffset
  }
  /** Records (and markers) physically stored. */
  get storedRecords(): number {
    return this.keys.length
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
      if (this.offsetAt !== null) this.offsetAt.push(baseOffset + i)
    }
    this.endOffset = baseOffset + records.length
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
    if (this.offsetAt !== null) this.offsetAt.push(offset)
    this.endOffset = offset + 1
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

  /** The first slot holding an offset at or after `offset`. */
  private slotOf(offset: number): number {
    const n = this.keys.length
    if (this.offsetAt === null) return Math.max(0, Math.min(n, offset - this.startOffset))
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.offsetAt[mid]! < offset) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  private offsetOfSlot(i: number): number {
    return this.offsetAt === null ? this.startOffset + i : this.offsetAt[i]!
  }

  /** A consumer's fetch. Control markers are never returned; read_committed stops at the LSO and skips aborted records. */
  read(from: number, maxRecords: number, isolation: IsolationLevel): { records: ConsumedRecord[]; nextOffset: number } {
    if (from < this.startOffset) {
      throw new LogError('OFFSET_OUT_OF_RANGE', `offset ${from} is below the log start offset ${this.startOffset} of ${this.topic}-${this.partition}`)
    }
    const end = isolation === 'read_committed' ? this.lastStableOffset : this.highWatermark
    const records: ConsumedRecord[] = []
    const n = this.keys.length
    const hasHeaders = this.headersAt.size > 0
    let i = this.slotOf(from)
    for (; i < n; i++) {
      const offset = this.offsetOfSlot(i)
      if (offset >= end) break
      if (records.length >= maxRecords) {
        return { records, nextOffset: offset }
      }
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
    }
    // Every slot below `end` was examined; gaps left by compaction are skipped too.
    return { records, nextOffset: Math.max(from, end) }
  }

  readRaw(from: number, to: number, maxRecords: number): StoredRecordView[] {
    const out: StoredRecordView[] = []
    const end = Math.min(to, this.highWatermark)
    for (let i = this.slotOf(Math.max(from, this.startOffset)); i < this.keys.length && out.length < maxRecords; i++) {
      const offset = this.offsetOfSlot(i)
      if (offset >= end) break
      out.push(toView(this.entryAtSlot(i)))
    }
    return out
  }

  /** The stored entry at an offset (for tests and deep views). */
  entryAt(offset: number): Entry | undefined {
    const i = this.slotOf(offset)
    if (i >= this.keys.length || this.offsetOfSlot(i) !== offset) return undefined
    return this.entryAtSlot(i)
  }

  private entryAtSlot(i: number): Entry {
    const offset = this.offsetOfSlot(i)
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
    const n = this.keys.length
    let drop = 0
    if (policy.maxRecords !== undefined && n > policy.maxRecords) drop = n - policy.maxRecords
    if (policy.maxAgeMs !== undefined) while (drop < n && now - this.timestamps[drop]! > policy.maxAgeMs) drop++
    // Never at or past the limit.
    while (drop > 0 && this.offsetOfSlot(drop - 1) >= limit) drop--
    if (drop <= 0) return 0
    const newStart = drop < n ? this.offsetOfSlot(drop) : Math.min(limit, this.endOffset)
    this.dropSlots(drop)
    this.startOffset = Math.max(this.startOffset, Math.min(newStart, limit))
    for (const o of this.headersAt.keys()) if (o < this.startOffset) this.headersAt.delete(o)
    while (this.abortedTxns.length > 0 && this.abortedTxns[0]!.lastOffset < this.startOffset) this.abortedTxns.shift()
    return drop
  }

  private dropSlots(drop: number): void {
    this.keys.splice(0, drop)
    this.valueAt.splice(0, drop)
    this.valueLength.splice(0, drop)
    this.timestamps.splice(0, drop)
    this.batchOf.splice(0, drop)
    this.offsetAt?.splice(0, drop)
    const firstValue = this.valueLength.findIndex((l) => l >= 0)
    if (firstValue >= 0) this.arena.releaseBefore(this.valueAt[firstValue]!)
  }

  /**
   * Compaction (cleanup.policy=compact): below the last stable offset, keeps only the latest
   * committed (or non-transactional) record of each key, and the control marker of each
   * transaction a kept record belongs to; aborted records and the other markers there are
   * dropped. Offsets do not change; they leave gaps. Returns the records removed.
   * Runs when the log has at least doubled since the last compaction.
   */
  maybeCompact(minSlots = 10_000): number {
    const n = this.keys.length
    if (n < minSlots || n < 2 * this.compactedSlots) return 0
    const lso = this.lastStableOffset
    const latest = new Map<string | null, number>()
    let cut = 0
    for (; cut < n; cut++) {
      if (this.offsetOfSlot(cut) >= lso) break
      const b = this.batchOf[cut]!
      if (b.control === null && b.outcome !== 'aborted' && this.keys[cut] !== null) latest.set(this.keys[cut]!, cut)
    }
    // A control marker stays while any record of its transaction does, as Kafka's log cleaner keeps
    // it: without it, a reader could no longer tell which transaction a kept record belonged to.
    const keptData = new Set(latest.values())
    const keep: number[] = []
    const awaitingMarker = new Set<number>()
    for (let i = 0; i < cut; i++) {
      const b = this.batchOf[i]!
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
    const arena = new ByteArena()
    const next = { keys: [] as (string | null)[], valueAt: [] as number[], valueLength: [] as number[], timestamps: [] as number[], batchOf: [] as Batch[], offsetAt: [] as number[] }
    for (const i of keep) {
      next.keys.push(this.keys[i]!)
      const v = this.valueOf(i)
      if (v === null) {
        next.valueAt.push(0)
        next.valueLength.push(-1)
      } else {
        const at = arena.write(v)
        next.valueAt.push(at)
        next.valueLength.push(arena.end - at)
      }
      next.timestamps.push(this.timestamps[i]!)
      next.batchOf.push(this.batchOf[i]!)
      next.offsetAt.push(this.offsetOfSlot(i))
    }
    const kept = new Set(next.offsetAt)
    for (const o of this.headersAt.keys()) if (!kept.has(o)) this.headersAt.delete(o)
    this.arena = arena
    this.keys = next.keys
    this.valueAt = next.valueAt
    this.valueLength = next.valueLength
    this.timestamps = next.timestamps
    this.batchOf = next.batchOf
    this.offsetAt = next.offsetAt
    this.compactedSlots = this.keys.length
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
