// A partition's stored records in columns: one slot per stored offset in each column, so a
// stored record costs no object of its own (far less for the garbage collector to trace); reads
// build short-lived objects. Values are UTF-8 bytes in an arena. The numeric columns (where each
// value sits, its length, the timestamp, the batch) are typed arrays grown by doubling: the
// garbage collector never scans them, and appending to them costs a store, not an array push.
// Slots are dense (slot = offset - first offset) until compaction leaves gaps; then each slot's
// offset is kept too.

import type { Headers } from '../types.ts'
import { ByteArena } from './byte-arena.ts'
import { SlotArray } from './slot-array.ts'

/** A record as pushAll() takes it (a produce request's record). */
export interface ColumnRecord {
  key: string | null
  value: string | null
  headers?: Headers
  timestamp?: number
}

const FIRST_CAPACITY = 64

/** What a slot stores besides its key, value and headers: the batch it belongs to. */
export class RecordColumns<B> {
  private n = 0
  private capacity = FIRST_CAPACITY
  private keys = new SlotArray<string | null>()
  private arena = new ByteArena()
  /** Where each value starts in the arena, and its byte length (-1: null). */
  private valueAt = new Float64Array(FIRST_CAPACITY)
  private valueLength = new Int32Array(FIRST_CAPACITY)
  private timestamps = new Float64Array(FIRST_CAPACITY)
  /** Each slot's batch, as an index into `batches` (a batch's slots are consecutive). */
  private batchIndex = new Int32Array(FIRST_CAPACITY)
  private batches: B[] = []
  private readonly headersAt = new Map<number, Headers>()
  /** The offset of each slot once compaction has left gaps; null while slots are dense. */
  private offsetAt: number[] | null = null
  /** The offset of slot 0 while slots are dense. */
  private firstOffset = 0

  get length(): number {
    return this.n
  }

  get hasHeaders(): boolean {
    return this.headersAt.size > 0
  }

  push(offset: number, key: string | null, value: string | null, timestamp: number, batch: B, headers: Headers | undefined): void {
    if (this.n === 0 && this.offsetAt === null) this.firstOffset = offset
    this.reserve(1)
    const i = this.n
    this.keys.set(i, key)
    if (value === null) {
      this.valueAt[i] = 0
      this.valueLength[i] = -1
    } else {
      const at = this.arena.write(value)
      this.valueAt[i] = at
      this.valueLength[i] = this.arena.end - at
    }
    this.timestamps[i] = timestamp
    this.batchIndex[i] = this.indexOfBatch(batch)
    if (headers !== undefined) this.headersAt.set(offset, headers)
    if (this.offsetAt !== null) this.offsetAt.push(offset)
    this.n = i + 1
  }

  /**
   * Pushes a batch's records at consecutive offsets from `baseOffset`. Their values are encoded
   * with one call when they are all ASCII and none is null (what a batch nearly always holds);
   * otherwise one by one, as push() does.
   */
  pushAll(baseOffset: number, records: readonly ColumnRecord[], defaultTimestamp: number, batch: B): void {
    const count = records.length
    const values = new Array<string>(count)
    let location = -1
    let i = 0
    for (; i < count; i++) {
      const v = records[i]!.value
      if (v === null) break
      values[i] = v
    }
    if (i === count) location = this.arena.writeAscii(values)
    if (location < 0) {
      for (let j = 0; j < count; j++) {
        const r = records[j]!
        this.push(baseOffset + j, r.key, r.value, r.timestamp ?? defaultTimestamp, batch, r.headers)
      }
      return
    }
    if (this.n === 0 && this.offsetAt === null) this.firstOffset = baseOffset
    this.reserve(count)
    const b = this.indexOfBatch(batch)
    const start = this.n
    for (let j = 0; j < count; j++) {
      const r = records[j]!
      const slot = start + j
      const length = values[j]!.length
      this.keys.set(slot, r.key)
      this.valueAt[slot] = location
      this.valueLength[slot] = length
      location += length
      this.timestamps[slot] = r.timestamp ?? defaultTimestamp
      this.batchIndex[slot] = b
      if (r.headers !== undefined) this.headersAt.set(baseOffset + j, r.headers)
      if (this.offsetAt !== null) this.offsetAt.push(baseOffset + j)
    }
    this.n = start + count
  }

  /** The batch's index in `batches`: the last one, or a new one appended. */
  private indexOfBatch(batch: B): number {
    const last = this.batches.length - 1
    if (last >= 0 && this.batches[last] === batch) return last
    this.batches.push(batch)
    return last + 1
  }

  /** Room for `more` slots in the typed columns, doubling them when full. */
  private reserve(more: number): void {
    const need = this.n + more
    if (need <= this.capacity) return
    let capacity = this.capacity * 2
    while (capacity < need) capacity *= 2
    this.valueAt = grown(this.valueAt, new Float64Array(capacity), this.n)
    this.valueLength = grown(this.valueLength, new Int32Array(capacity), this.n)
    this.timestamps = grown(this.timestamps, new Float64Array(capacity), this.n)
    this.batchIndex = grown(this.batchIndex, new Int32Array(capacity), this.n)
    this.capacity = capacity
  }

  key(i: number): string | null {
    return this.keys.get(i)
  }
  value(i: number): string | null {
    const len = this.valueLength[i]!
    return len < 0 ? null : this.arena.read(this.valueAt[i]!, len)
  }
  timestamp(i: number): number {
    return this.timestamps[i]!
  }
  batch(i: number): B {
    return this.batches[this.batchIndex[i]!]!
  }
  headers(offset: number): Headers | undefined {
    return this.headersAt.get(offset)
  }

  offsetOfSlot(i: number): number {
    return this.offsetAt === null ? this.firstOffset + i : this.offsetAt[i]!
  }

  /** The first slot holding an offset at or after `offset`. */
  slotOf(offset: number): number {
    const n = this.n
    if (this.offsetAt === null) return Math.max(0, Math.min(n, offset - this.firstOffset))
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.offsetAt[mid]! < offset) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Drops the first `count` slots (retention); `nextStart` is the log start offset after them. */
  dropFront(count: number, nextStart: number): void {
    const n = this.n
    this.keys.dropFront(count, n)
    this.valueAt.copyWithin(0, count, n)
    this.valueLength.copyWithin(0, count, n)
    this.timestamps.copyWithin(0, count, n)
    this.batchIndex.copyWithin(0, count, n)
    this.n = n - count
    // Batches wholly before the first kept slot go; the kept slots' indexes move down.
    const firstBatch = this.n > 0 ? this.batchIndex[0]! : this.batches.length
    if (firstBatch > 0) {
      this.batches.splice(0, firstBatch)
      for (let i = 0; i < this.n; i++) this.batchIndex[i] = this.batchIndex[i]! - firstBatch
    }
    if (this.offsetAt !== null) this.offsetAt.splice(0, count)
    else this.firstOffset += count
    for (const o of this.headersAt.keys()) if (o < nextStart) this.headersAt.delete(o)
    for (let i = 0; i < this.n; i++) {
      if (this.valueLength[i]! >= 0) {
        this.arena.releaseBefore(this.valueAt[i]!)
        break
      }
    }
  }

  /** Keeps only these slots (compaction), in order, with their offsets: the others leave gaps. */
  keepOnly(slots: readonly number[]): void {
    const arena = new ByteArena()
    const count = slots.length
    const capacity = Math.max(FIRST_CAPACITY, count)
    const next = {
      keys: new SlotArray<string | null>(),
      valueAt: new Float64Array(capacity),
      valueLength: new Int32Array(capacity),
      timestamps: new Float64Array(capacity),
      batchIndex: new Int32Array(capacity),
      batches: [] as B[],
      offsetAt: new Array<number>(count),
    }
    for (let j = 0; j < count; j++) {
      const i = slots[j]!
      next.keys.set(j, this.keys.get(i))
      const v = this.value(i)
      if (v === null) {
        next.valueAt[j] = 0
        next.valueLength[j] = -1
      } else {
        const at = arena.write(v)
        next.valueAt[j] = at
        next.valueLength[j] = arena.end - at
      }
      next.timestamps[j] = this.timestamps[i]!
      const b = this.batch(i)
      if (next.batches.length === 0 || next.batches[next.batches.length - 1] !== b) next.batches.push(b)
      next.batchIndex[j] = next.batches.length - 1
      next.offsetAt[j] = this.offsetOfSlot(i)
    }
    const kept = new Set(next.offsetAt)
    for (const o of this.headersAt.keys()) if (!kept.has(o)) this.headersAt.delete(o)
    this.arena = arena
    this.n = count
    this.capacity = capacity
    this.keys = next.keys
    this.valueAt = next.valueAt
    this.valueLength = next.valueLength
    this.timestamps = next.timestamps
    this.batchIndex = next.batchIndex
    this.batches = next.batches
    this.offsetAt = next.offsetAt
  }
}

/** `to` holding the first `n` elements of `from`. */
function grown<T extends Float64Array | Int32Array>(from: T, to: T, n: number): T {
  to.set(from.subarray(0, n))
  return to
}
