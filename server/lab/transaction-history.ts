// Every ended transaction of the lab's life, within a fixed memory budget: statistics over all of
// them (exact count, sum, min, max by outcome and abort cause; p50/p99 within 1% from a log-bucket
// sketch) for the lab's life and for the current run, and detailed rows for filtering and export,
// the last ROWS of them (plus the last ABORT_ROWS aborts older than those: aborts are what a reader
// looks for). Fed from the TransactionBoard's sink beside the journal, so its counts are the
// journal's: a teardown's abort is its own outcome, never a fault, and an empty transaction a
// teardown ended never reached the broker and is not one.
//
// Memory, fixed at construction: rows are columns in typed arrays (txn-columns.ts, BYTES_PER_ROW =
// 62 bytes a row), 65,536 + 8,192 rows = 4.57 MB; interned strings at most 4,096; statistics 2 sets
// × 3 outcomes × 4 figures × a 5 KB sketch = 122 KB. Measured (node 20, heap used plus array
// buffers after gc): 4.57 MB once constructed, 4.69 MB after 300,000 transactions, and no more
// after. At the default lab's 59 transactions/s the rows cover the last 18 minutes.

import type { TxnView } from '../../lib/lab-protocol.ts'
import {
  TxnStatistics,
  type TxnFigures,
  type TxnHistoryOutcome,
  type TxnHistoryPage,
  type TxnHistoryWindow,
  type TxnStatsView,
} from '../../lib/txn-statistics.ts'
import type { Time } from '../log/time.ts'
import { BYTES_PER_ROW, StringTable, TxnColumns, type TxnRow } from './txn-columns.ts'

export const HISTORY_ROWS = 65_536
export const HISTORY_ABORT_ROWS = 8_192

export interface TxnHistoryFilter {
  outcomes: readonly TxnHistoryOutcome[] | null
  /** Rows whose transactional.id contains this. */
  transactionalId: string | null
  /** Ended at or after (ms since the epoch). */
  sinceMs: number | null
  /** Ended at or before. */
  untilMs: number | null
  minDurationMs: number | null
  /** The newest this many matching rows (all by default). */
  limit: number | null
}

export const NO_FILTER: TxnHistoryFilter = {
  outcomes: null,
  transactionalId: null,
  sinceMs: null,
  untilMs: null,
  minDurationMs: null,
  limit: null,
}

export type { TxnHistoryPage, TxnHistoryWindow }

export class TransactionHistory {
  private readonly strings = new StringTable()
  private readonly rows: TxnColumns
  private readonly aborts: TxnColumns
  private readonly life: TxnStatistics
  private run: TxnStatistics
  private ended = 0

  constructor(
    private readonly time: Time,
    capacity = { rows: HISTORY_ROWS, abortRows: HISTORY_ABORT_ROWS },
  ) {
    this.rows = new TxnColumns(capacity.rows, this.strings)
    this.aborts = new TxnColumns(capacity.abortRows, this.strings)
    this.life = new TxnStatistics(time.now())
    this.run = new TxnStatistics(time.now())
  }

  /** A new runtime: the run's statistics start over (the lab's life and the rows go on). */
  beginRun(): void {
    this.run = new TxnStatistics(this.time.now())
  }

  /** A transaction the board saw end (the journal's rule: an empty one a teardown ended is none). */
  onEnded(t: TxnView, workerId: string | undefined): void {
    if (t.outcome === 'open' || t.endMs === null) return
    if (
      t.abortReason === 'teardown' &&
      t.partitions.length === 0 &&
      t.outputRecords + t.changelogRecords + t.offsetsCommitted === 0
    )
      return
    const outcome: TxnHistoryOutcome =
      t.outcome === 'committed' ? 'committed' : t.abortReason === 'teardown' ? 'teardown' : 'aborted'
    const row: TxnRow = {
      endMs: t.endMs,
      beginMs: t.beginMs,
      durationMs: Math.max(0, t.endMs - t.beginMs),
      outcome,
      cause: t.outcome === 'aborted' ? (t.abortReason ?? 'error') : null,
      transactionalId: t.transactionalId,
      workerId: workerId ?? null,
      producerId: t.producerId,
      epoch: t.epoch,
      partitions: t.partitions.join(' '),
      outputRecords: t.outputRecords,
      changelogRecords: t.changelogRecords,
      offsetsCommitted: t.offsetsCommitted,
      endTxnMs: t.endTxnMs ?? null,
      sendOffsetsMs: t.sendOffsetsMs ?? null,
    }
    const figures = { ...row, records: row.outputRecords + row.changelogRecords }
    this.life.add(figures)
    this.run.add(figures)
    this.ended++
    // An abort about to leave the main ring moves to the aborts' ring.
    if (this.rows.size === this.rows.capacity) {
      const leaving = this.rows.oldest()!
      if (leaving.outcome === 'aborted') this.aborts.push(leaving)
    }
    if (this.strings.full) StringTable.compact(this.strings, [this.rows, this.aborts])
    this.rows.push(row)
  }

  /** The statistics the dashboard shows: the lab's life and the current run. */
  statistics(): { life: TxnStatsView; run: TxnStatsView } {
    return { life: this.life.view(), run: this.run.view() }
  }

  /**
   * Rows held, oldest first, as (ring, index): the older aborts (those that left the main ring), then the main ring.
   */
  private *held(): Generator<[TxnColumns, number]> {
    const first = this.rows.size > 0 ? this.rows.endAt(0) : Infinity
    for (let k = 0; k < this.aborts.size; k++) if (this.aborts.endAt(k) <= first) yield [this.aborts, k]
    for (let k = 0; k < this.rows.size; k++) yield [this.rows, k]
  }

  window(): TxnHistoryWindow {
    const fromMs = this.aborts.size > 0 ? this.aborts.endAt(0) : this.rows.size > 0 ? this.rows.endAt(0) : null
    const toMs = this.rows.size > 0 ? this.rows.endAt(this.rows.size - 1) : null
    const older = this.ended - this.rows.size - this.aborts.size
    const olderAborts = this.aborts.size > 0 ? ` and ${this.aborts.size.toLocaleString('en')} older aborts` : ''
    const text =
      fromMs === null
        ? 'no transaction has ended yet'
        : `rows: the last ${this.rows.size.toLocaleString('en')} transactions${olderAborts}, ` +
          `ended ${new Date(fromMs).toISOString()} to ${new Date(toMs ?? fromMs).toISOString()}` +
          (older > 0
            ? `; ${older.toLocaleString('en')} older transactions are in the statistics only`
            : '; every transaction of the lab is here')
    return {
      rows: this.rows.size,
      rowCapacity: this.rows.capacity,
      abortRows: this.aborts.size,
      abortRowCapacity: this.aborts.capacity,
      fromMs,
      toMs,
      olderThanRows: Math.max(0, older),
      bytesPerRow: BYTES_PER_ROW,
      text,
    }
  }

  /**
   * The rows a filter selects (oldest first, the newest `limit`), their statistics, and the window. Filtered
   * on the columns; only the rows returned become objects.
   */
  query(f: TxnHistoryFilter): TxnHistoryPage {
    const matched = new TxnStatistics(f.sinceMs ?? this.life.sinceMs)
    const idCache = new Map<number, boolean>()
    const idMatches = (index: number) => {
      let ok = idCache.get(index)
      if (ok === undefined) {
        ok = this.strings.at(index).includes(f.transactionalId ?? '')
        idCache.set(index, ok)
      }
      return ok
    }
    const figures: TxnFigures = {
      outcome: 'committed',
      cause: null,
      durationMs: 0,
      records: 0,
      endTxnMs: null,
      sendOffsetsMs: null,
    }
    const picked: [TxnColumns, number][] = []
    let n = 0
    for (const [ring, k] of this.held()) {
      if (!ring.passes(k, f, idMatches)) continue
      n++
      matched.add(ring.figuresInto(k, figures))
      picked.push([ring, k])
      if (f.limit !== null && picked.length >= 2 * f.limit + 1024) picked.splice(0, picked.length - f.limit)
    }
    const rows = (f.limit !== null && picked.length > f.limit ? picked.slice(picked.length - f.limit) : picked).map(
      ([ring, k]) => ring.row(k),
    )
    return { window: this.window(), statistics: { ...this.statistics(), matched: matched.view() }, matched: n, rows }
  }

  /** Bytes the rows hold (fixed at construction). */
  get bytes(): number {
    return this.rows.bytes + this.aborts.bytes
  }
}

export function matches(r: TxnRow, f: TxnHistoryFilter): boolean {
  if (f.outcomes !== null && !f.outcomes.includes(r.outcome)) return false
  if (f.transactionalId !== null && !r.transactionalId.includes(f.transactionalId)) return false
  if (f.sinceMs !== null && r.endMs < f.sinceMs) return false
  if (f.untilMs !== null && r.endMs > f.untilMs) return false
  if (f.minDurationMs !== null && r.durationMs < f.minDurationMs) return false
  return true
}
