// A partition's stored records in columns: one slot per stored offset in each column, so a
// stored record costs no object of its own (far less for the garbage collector to trace); reads
// build short-lived objects. Values are UTF-8 bytes in an arena. The numeric columns (where each
// value sits, its length, the timestamp, the batch) are chunks of typed arrays: the garbage
// collector never scans them, and appending to them costs a store, not an array push nor a copy.
// Slots are dense (slot = offset - first offset) until compaction leaves gaps; then each slot's
// offset is kept too.

import type { Headers } from '../types.ts'
import { ByteArena } from './byte-arena.ts'
import { Float64Slots, SlotArray } from './slot-array.ts'

/** A record as pushAll() takes it (a produce request's record). */
export interface ColumnRecord {
  key: string | null
  value: string | null
  headers?: Headers
  timestamp?: number
}

/** What a slot stores besides its key, value and headers: the batch it belongs to. */
export class RecordColumns<B> {
  private n = 0
  private keys = new SlotArray<string | null>()
  private arena = new ByteArena()
  /** Where each value starts in the arena, and its byte length (-1: null). */
  private valueAt = new Float64Slots()
  private valueLength = new Float64Slots()
  private timestamps = new Float64Slots()
  /** Each slot's batch, as an index into `batches` (a batch's slots are consecutive). */
  private batchIndex = new Float64Slots()
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

  push(
    offset: number,
    key: string | null,
    value: string | null,
    timestamp: number,
    batch: B,
    headers: Headers | undefined,
  ): void {
    if (this.n === 0 && this.offsetAt === null) this.firstOffset = offset
    const i = this.n
    this.keys.set(i, key)
    if (value === null) {
      this.valueAt.set(i, 0)
      this.valueLength.set(i, -1)
    } else {
      const at = this.arena.write(value)
      this.valueAt.set(i, at)
      this.valueLength.set(i, this.arena.end - at)
    }
    this.timestamps.set(i, timestamp)
    this.batchIndex.set(i, this.indexOfBatch(batch))
    if (headers !== undefined) this.headersAt.set(offset, headers)
    if (this.offsetAt !== null) this.offsetAt.push(offset)
    this.n = i + 1
  }

  /**
   * Pushes a batch's records at consecutive offsets from `baseOffset`. Their values are stored
   * back to back in one pass when they are all ASCII and none is null (what a batch nearly always
   * holds: each value's byte length is then its length); otherwise one by one, as push() does.
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
    const b = this.indexOfBatch(batch)
    const start = this.n
    for (let j = 0; j < count; j++) {
      const r = records[j]!
      const slot = start + j
      const length = values[j]!.length
      this.keys.set(slot, r.key)
      this.valueAt.set(slot, location)
      this.valueLength.set(slot, length)
      location += length
      this.timestamps.set(slot, r.timestamp ?? defaultTimestamp)
      this.batchIndex.set(slot, b)
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

  key(i: number): string | null {
    return this.keys.get(i)
  }
  value(i: number): string | null {
    const len = this.valueLength.get(i)
    return len < 0 ? null : this.arena.read(this.valueAt.get(i), len)
  }
  /**
   * The values of slots [from, to), as value(i) would give them one by one. Values are stored in
   * slot order, so when the first and the last lie in one arena chunk the range's bytes are one
   * span: it is decoded with one call, and each value is a substring of it when the span is ASCII
   * (its text then has exactly one code unit per byte). A decoding call costs more than the copy of
   * a short value (a 3-byte input value about 40 ns), and a fetch reads a range of slots.
   */
  values(from: number, to: number): (string | null)[] {
    const out = new Array<string | null>(Math.max(0, to - from))
    let first = from
    while (first < to && this.valueLength.get(first) < 0) first++
    let last = to - 1
    while (last > first && this.valueLength.get(last) < 0) last--
    const start = first < to ? this.valueAt.get(first) : 0
    const end = first < to ? this.valueAt.get(last) + this.valueLength.get(last) : 0
    const span = first < to ? this.arena.readSpan(start, end) : null
    for (let i = from; i < to; i++) {
      const len = this.valueLength.get(i)
      if (len < 0) out[i - from] = null
      else if (span !== null) {
        const at = this.valueAt.get(i) - start
        out[i - from] = span.substring(at, at + len)
      } else out[i - from] = this.arena.read(this.valueAt.get(i), len)
    }
    return out
  }
  timestamp(i: number): number {
    return this.timestamps.get(i)
  }
  batch(i: number): B {
    return this.batches[this.batchIndex.get(i)]!
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
    this.valueAt.dropFront(count, n)
    this.valueLength.dropFront(count, n)
    this.timestamps.dropFront(count, n)
    this.batchIndex.dropFront(count, n)
    this.n = n - count
    // Batches wholly before the first kept slot go; the kept slots' indexes move down.
    const firstBatch = this.n > 0 ? this.batchIndex.get(0) : this.batches.length
    if (firstBatch > 0) {
      this.batches.splice(0, firstBatch)
      for (let i = 0; i < this.n; i++) this.batchIndex.set(i, this.batchIndex.get(i) - firstBatch)
    }
    if (this.offsetAt !== null) this.offsetAt.splice(0, count)
    else this.firstOffset += count
    for (const o of this.headersAt.keys()) if (o < nextStart) this.headersAt.delete(o)
    for (let i = 0; i < this.n; i++) {
      if (this.valueLength.get(i) >= 0) {
        this.arena.releaseBefore(this.valueAt.get(i))
        break
      }
    }
  }

  /** Keeps only these slots (compaction), in order, with their offsets: the others leave gaps. */
  keepOnly(slots: readonly number[]): void {
    const arena = new ByteArena()
    const count = slots.length
    const next = {
      keys: new SlotArray<string | null>(),
      valueAt: new Float64Slots(),
      valueLength: new Float64Slots(),
      timestamps: new Float64Slots(),
      batchIndex: new Float64Slots(),
      batches: [] as B[],
      offsetAt: new Array<number>(count),
    }
    for (let j = 0; j < count; j++) {
      const i = slots[j]!
      next.keys.set(j, this.keys.get(i))
      const v = this.value(i)
      if (v === null) {
        next.valueAt.set(j, 0)
        next.valueLength.set(j, -1)
      } else {
        const at = arena.write(v)
        next.valueAt.set(j, at)
        next.valueLength.set(j, arena.end - at)
      }
      next.timestamps.set(j, this.timestamps.get(i))
      const b = this.batch(i)
      if (next.batches.length === 0 || next.batches[next.batches.length - 1] !== b) next.batches.push(b)
      next.batchIndex.set(j, next.batches.length - 1)
      next.offsetAt[j] = this.offsetOfSlot(i)
    }
    const kept = new Set(next.offsetAt)
    for (const o of this.headersAt.keys()) if (!kept.has(o)) this.headersAt.delete(o)
    this.arena = arena
    this.n = count
    this.keys = next.keys
    this.valueAt = next.valueAt
    this.valueLength = next.valueLength
    this.timestamps = next.timestamps
    this.batchIndex = next.batchIndex
    this.batches = next.batches
    this.offsetAt = next.offsetAt
  }
}
