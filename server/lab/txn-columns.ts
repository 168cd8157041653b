// Ended transactions as columns in typed arrays, a ring of fixed capacity: a row costs
// BYTES_PER_ROW bytes whatever the lab does, allocated once, and no object per transaction stays
// on the heap. Strings (transactional.id, worker, partition list) are interned into a bounded
// table and rows hold their index. The newest row overwrites the oldest once the ring is full.

import type { TxnFigures, TxnRow } from '../../lib/txn-statistics.ts'
import type { TxnHistoryFilter } from './transaction-history.ts'
import { TXN_ABORT_CAUSES, TXN_HISTORY_OUTCOMES } from '../../lib/txn-statistics.ts'

export type { TxnRow }

/**
 * Float64 ×3 (begin, end, producer id), Int32 ×4 (epoch, output, changelog, offsets), Float32 ×2
 * (latencies), Uint32 ×3 (strings), Uint8 ×2 (outcome, cause).
 */
export const BYTES_PER_ROW = 3 * 8 + 4 * 4 + 2 * 4 + 3 * 4 + 2

const NO_CAUSE = 255

export class TxnColumns {
  private readonly beginMs: Float64Array
  private readonly endMs: Float64Array
  private readonly producerId: Float64Array
  private readonly epoch: Int32Array
  private readonly output: Int32Array
  private readonly changelog: Int32Array
  private readonly offsets: Int32Array
  private readonly endTxn: Float32Array
  private readonly sendOffsets: Float32Array
  private readonly txnId: Uint32Array
  private readonly worker: Uint32Array
  private readonly parts: Uint32Array
  private readonly outcome: Uint8Array
  private readonly cause: Uint8Array
  /** Rows written so far; the ring holds the last min(written, capacity). */
  private written = 0

  constructor(
    readonly capacity: number,
    private readonly strings: StringTable,
  ) {
    this.beginMs = new Float64Array(capacity)
    this.endMs = new Float64Array(capacity)
    this.producerId = new Float64Array(capacity)
    this.epoch = new Int32Array(capacity)
    this.output = new Int32Array(capacity)
    this.changelog = new Int32Array(capacity)
    this.offsets = new Int32Array(capacity)
    this.endTxn = new Float32Array(capacity)
    this.sendOffsets = new Float32Array(capacity)
    this.txnId = new Uint32Array(capacity)
    this.worker = new Uint32Array(capacity)
    this.parts = new Uint32Array(capacity)
    this.outcome = new Uint8Array(capacity)
    this.cause = new Uint8Array(capacity)
  }

  get size(): number {
    return Math.min(this.written, this.capacity)
  }

  /** Bytes held by the columns (fixed at construction). */
  get bytes(): number {
    return this.capacity * BYTES_PER_ROW
  }

  /** The row that the next push overwrites, or null while the ring is not full. */
  oldest(): TxnRow | null {
    return this.written === 0 ? null : this.row(0)
  }

  push(r: TxnRow): void {
    const i = this.written % this.capacity
    this.written++
    this.beginMs[i] = r.beginMs
    this.endMs[i] = r.endMs
    this.producerId[i] = r.producerId
    this.epoch[i] = r.epoch
    this.output[i] = r.outputRecords
    this.changelog[i] = r.changelogRecords
    this.offsets[i] = r.offsetsCommitted
    this.endTxn[i] = r.endTxnMs ?? NaN
    this.sendOffsets[i] = r.sendOffsetsMs ?? NaN
    this.txnId[i] = this.strings.intern(r.transactionalId)
    this.worker[i] = r.workerId === null ? 0 : this.strings.intern(r.workerId)
    this.parts[i] = this.strings.intern(r.partitions)
    this.outcome[i] = TXN_HISTORY_OUTCOMES.indexOf(r.outcome)
    this.cause[i] = r.cause === null ? NO_CAUSE : TXN_ABORT_CAUSES.indexOf(r.cause)
  }

  private slot(k: number): number {
    return this.written <= this.capacity ? k : (this.written + k) % this.capacity
  }

  /** When the k-th row ended. */
  endAt(k: number): number {
    return this.endMs[this.slot(k)]!
  }

  /**
   * Whether the k-th row passes a filter, read from the columns (no row object);
   * `idMatches` tests an interned transactional.id.
   */
  passes(k: number, f: TxnHistoryFilter, idMatches: (index: number) => boolean): boolean {
    const i = this.slot(k)
    const end = this.endMs[i]!
    if (f.outcomes !== null && !f.outcomes.includes(TXN_HISTORY_OUTCOMES[this.outcome[i]!]!)) return false
    if (f.sinceMs !== null && end < f.sinceMs) return false
    if (f.untilMs !== null && end > f.untilMs) return false
    if (f.minDurationMs !== null && end - this.beginMs[i]! < f.minDurationMs) return false
    return f.transactionalId === null || idMatches(this.txnId[i]!)
  }

  /** The k-th row's figures for statistics, written into `out` (no allocation). */
  figuresInto(k: number, out: TxnFigures): TxnFigures {
    const i = this.slot(k)
    const c = this.cause[i]!
    out.outcome = TXN_HISTORY_OUTCOMES[this.outcome[i]!]!
    out.cause = c === NO_CAUSE ? null : TXN_ABORT_CAUSES[c]!
    out.durationMs = this.endMs[i]! - this.beginMs[i]!
    out.records = this.output[i]! + this.changelog[i]!
    out.endTxnMs = Number.isNaN(this.endTxn[i]!) ? null : this.endTxn[i]!
    out.sendOffsetsMs = Number.isNaN(this.sendOffsets[i]!) ? null : this.sendOffsets[i]!
    return out
  }

  /** The k-th row held, oldest first (0 ≤ k < size). */
  row(k: number): TxnRow {
    const i = this.slot(k)
    const c = this.cause[i]!
    const endTxn = this.endTxn[i]!
    const sendOffsets = this.sendOffsets[i]!
    return {
      endMs: this.endMs[i]!,
      beginMs: this.beginMs[i]!,
      durationMs: this.endMs[i]! - this.beginMs[i]!,
      outcome: TXN_HISTORY_OUTCOMES[this.outcome[i]!]!,
      cause: c === NO_CAUSE ? null : TXN_ABORT_CAUSES[c]!,
      transactionalId: this.strings.at(this.txnId[i]!),
      workerId: this.worker[i] === 0 ? null : this.strings.at(this.worker[i]!),
      producerId: this.producerId[i]!,
      epoch: this.epoch[i]!,
      partitions: this.strings.at(this.parts[i]!),
      outputRecords: this.output[i]!,
      changelogRecords: this.changelog[i]!,
      offsetsCommitted: this.offsets[i]!,
      endTxnMs: Number.isNaN(endTxn) ? null : endTxn,
      sendOffsetsMs: Number.isNaN(sendOffsets) ? null : sendOffsets,
    }
  }

  /** Re-points every row's strings through `remap` (old index → new index). */
  remapStrings(remap: (index: number) => number): void {
    for (let i = 0; i < this.size; i++) {
      this.txnId[i] = remap(this.txnId[i]!)
      this.worker[i] = this.worker[i] === 0 ? 0 : remap(this.worker[i]!)
      this.parts[i] = remap(this.parts[i]!)
    }
  }
}

/**
 * Interned strings, index 0 reserved for "none". Bounded: once it holds `max` strings the owner
 * compacts it to the strings its rows still use (StringTable.compact).
 */
export class StringTable {
  private readonly index = new Map<string, number>()
  private readonly list: string[] = ['']

  constructor(private readonly max = 4_096) {}

  get size(): number {
    return this.list.length - 1
  }

  get full(): boolean {
    return this.list.length > this.max
  }

  intern(s: string): number {
    const known = this.index.get(s)
    if (known !== undefined) return known
    this.list.push(s)
    this.index.set(s, this.list.length - 1)
    return this.list.length - 1
  }

  at(i: number): string {
    return this.list[i] ?? ''
  }

  /** Keeps only the strings `rings` still use, renumbering their rows. */
  static compact(table: StringTable, rings: readonly TxnColumns[]): void {
    const kept = new StringTable(table.max)
    const remap = new Map<number, number>()
    const to = (old: number) => {
      let n = remap.get(old)
      if (n === undefined) {
        n = kept.intern(table.at(old))
        remap.set(old, n)
      }
      return n
    }
    for (const r of rings) r.remapStrings(to)
    table.index.clear()
    table.list.length = 1
    for (let i = 1; i <= kept.size; i++) table.intern(kept.at(i))
  }
}
