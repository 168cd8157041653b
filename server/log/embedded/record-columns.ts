// A partition's stored records in columns: one slot per stored offset in each array, so a
// stored record costs no object of its own (far less for the garbage collector to trace); reads
// build short-lived objects. Values are UTF-8 bytes in an arena. Slots are dense (slot = offset
// - first offset) until compaction leaves gaps; then each slot's offset is kept too.

import type { Headers } from '../types.ts'
import { ByteArena } from './byte-arena.ts'

/** What a slot stores besides its key, value and headers: the batch it belongs to. */
export class RecordColumns<B> {
  private keys: (string | null)[] = []
  private arena = new ByteArena()
  /** Where each value starts in the arena, and its byte length (-1: null). */
  private valueAt: number[] = []
  private valueLength: number[] = []
  private timestamps: number[] = []
  private batchOf: B[] = []
  private readonly headersAt = new Map<number, Headers>()
  /** The offset of each slot once compaction has left gaps; null while slots are dense. */
  private offsetAt: number[] | null = null
  /** The offset of slot 0 while slots are dense. */
  private firstOffset = 0

  get length(): number {
    return this.keys.length
  }

  get hasHeaders(): boolean {
    return this.headersAt.size > 0
  }

  push(offset: number, key: string | null, value: string | null, timestamp: number, batch: B, headers: Headers | undefined): void {
    if (this.keys.length === 0 && this.offsetAt === null) this.firstOffset = offset
    this.keys.push(key)
    this.pushValue(value)
    this.timestamps.push(timestamp)
    this.batchOf.push(batch)
    if (headers !== undefined) this.headersAt.set(offset, headers)
    if (this.offsetAt !== null) this.offsetAt.push(offset)
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

  key(i: number): string | null {
    return this.keys[i]!
  }
  value(i: number): string | null {
    const len = this.valueLength[i]!
    return len < 0 ? null : this.arena.read(this.valueAt[i]!, len)
  }
  timestamp(i: number): number {
    return this.timestamps[i]!
  }
  batch(i: number): B {
    return this.batchOf[i]!
  }
  headers(offset: number): Headers | undefined {
    return this.headersAt.get(offset)
  }

  offsetOfSlot(i: number): number {
    return this.offsetAt === null ? this.firstOffset + i : this.offsetAt[i]!
  }

  /** The first slot holding an offset at or after `offset`. */
  slotOf(offset: number): number {
    const n = this.keys.length
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
    this.keys.splice(0, count)
    this.valueAt.splice(0, count)
    this.valueLength.splice(0, count)
    this.timestamps.splice(0, count)
    this.batchOf.splice(0, count)
    if (this.offsetAt !== null) this.offsetAt.splice(0, count)
    else this.firstOffset += count
    for (const o of this.headersAt.keys()) if (o < nextStart) this.headersAt.delete(o)
    const firstValue = this.valueLength.findIndex((l) => l >= 0)
    if (firstValue >= 0) this.arena.releaseBefore(this.valueAt[firstValue]!)
  }

  /** Keeps only these slots (compaction), in order, with their offsets: the others leave gaps. */
  keepOnly(slots: readonly number[]): void {
    const arena = new ByteArena()
    const next = { keys: [] as (string | null)[], valueAt: [] as number[], valueLength: [] as number[], timestamps: [] as number[], batchOf: [] as B[], offsetAt: [] as number[] }
    for (const i of slots) {
      next.keys.push(this.keys[i]!)
      const v = this.value(i)
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
  }
}
