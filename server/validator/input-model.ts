// The committed input as the checks need it, in typed arrays indexed by offset: what each offset
// holds, its key id and the key's recomputed aggregate right after it. validateRun keeps a whole
// partition (InputPartitionModel); the incremental validator keeps only the offsets it has not
// decided yet (InputWindow). Both share the key table and the encodings here.

import type { PartitionOffsets } from '../log/types.ts'
import type { Aggregate } from '../../lib/records.ts'

// What an input offset holds.
/** A marker, an aborted or unfinished transactional record, or nothing. */
export const NOT_INPUT = 0
/** A committed record with a key and a value that parses. */
export const VALUE = 1
/** A committed record the engine cannot process (routed to the dead-letter topic, if any). */
export const POISON = 2
/** A data record at or past the committed offset (validateRun only). */
export const UNCOMMITTED = 3

/** The aggregate stored at index i of a column of four floats per record (count, sum, min, max). */
function aggregateAt(column: Float64Array, i: number): Aggregate {
  return { count: column[4 * i]!, sum: column[4 * i + 1]!, min: column[4 * i + 2]!, max: column[4 * i + 3]! }
}

function setAggregateAt(column: Float64Array, i: number, a: Aggregate): void {
  column.set([a.count, a.sum, a.min, a.max], 4 * i)
}

/** Key ids, and the input partition each key was first seen in (the recomputation assumes keys are partitioned). */
export class KeyTable {
  private readonly ids = new Map<string, number>()
  private readonly partitionOf: number[] = []
  /** Keys seen in more than one input partition. */
  readonly split = new Set<string>()

  intern(key: string, partition: number): number {
    let id = this.ids.get(key)
    if (id === undefined) {
      id = this.ids.size
      this.ids.set(key, id)
      this.partitionOf.push(partition)
    } else if (this.partitionOf[id] !== partition) {
      this.split.add(key)
    }
    return id
  }

  idOf(key: string): number | undefined {
    return this.ids.get(key)
  }

  get size(): number {
    return this.ids.size
  }
}

/** One whole input partition, for validateRun: typed arrays indexed by offset − logStartOffset. */
export class InputPartitionModel {
  readonly kind: Uint8Array
  readonly keyId: Int32Array
  /** count, sum, min, max of the key right after each committed input record. */
  private readonly expected: Float64Array
  readonly outputCopies: Uint32Array
  readonly dlqCopies: Uint32Array
  /** Offsets below this are committed input: the committed offset, clamped to the stored range. */
  readonly committedEnd: number

  constructor(
    readonly partition: number,
    readonly offsets: PartitionOffsets,
    readonly committedOffset: number | null,
  ) {
    const n = offsets.highWatermark - offsets.logStartOffset
    this.kind = new Uint8Array(n)
    this.keyId = new Int32Array(n)
    this.expected = new Float64Array(4 * n)
    this.outputCopies = new Uint32Array(n)
    this.dlqCopies = new Uint32Array(n)
    this.committedEnd = Math.min(Math.max(committedOffset ?? 0, offsets.logStartOffset), offsets.highWatermark)
  }

  /** The array index of an offset, or -1 when it is not stored here. */
  indexOf(offset: number): number {
    const i = offset - this.offsets.logStartOffset
    return Number.isInteger(i) && i >= 0 && i < this.kind.length ? i : -1
  }

  expectedAt(i: number): Aggregate {
    return aggregateAt(this.expected, i)
  }

  setExpected(i: number, a: Aggregate): void {
    setAggregateAt(this.expected, i, a)
  }
}

/** Undecided input records [base, base + length), in growable typed arrays, for the incremental validator. */
export class InputWindow {
  base = 0
  length = 0
  private head = 0
  private kind = new Uint8Array(1024)
  private keyId = new Int32Array(1024)
  private expected = new Float64Array(4 * 1024)

  reset(base: number): void {
    this.base = base
    this.length = 0
    this.head = 0
  }

  get end(): number {
    return this.base + this.length
  }

  private ensure(): void {
    const cap = this.kind.length
    if (this.head + this.length < cap) return
    if (this.head > 0 && this.length < cap / 2) {
      this.kind.copyWithin(0, this.head, this.head + this.length)
      this.keyId.copyWithin(0, this.head, this.head + this.length)
      this.expected.copyWithin(0, 4 * this.head, 4 * (this.head + this.length))
      this.head = 0
      return
    }
    const grow = <T extends Uint8Array | Int32Array | Float64Array>(a: T, n: number, per: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n * per)
      b.set(a.subarray(per * this.head, per * (this.head + this.length)))
      return b
    }
    const n = cap * 2
    this.kind = grow(this.kind, n, 1)
    this.keyId = grow(this.keyId, n, 1)
    this.expected = grow(this.expected, n, 4)
    this.head = 0
  }

  push(kind: number, keyId: number, agg: Aggregate | null): void {
    this.ensure()
    const i = this.head + this.length++
    this.kind[i] = kind
    this.keyId[i] = keyId
    if (agg) setAggregateAt(this.expected, i, agg)
  }

  /** Index for an offset inside the window, or -1. */
  indexOf(offset: number): number {
    const j = offset - this.base
    return j >= 0 && j < this.length ? this.head + j : -1
  }

  kindAt(i: number): number {
    return this.kind[i]!
  }

  keyIdAt(i: number): number {
    return this.keyId[i]!
  }

  expectedAt(i: number): Aggregate {
    return aggregateAt(this.expected, i)
  }

  shift(): void {
    this.head++
    this.length--
    this.base++
    if (this.length === 0) this.head = 0
  }
}
