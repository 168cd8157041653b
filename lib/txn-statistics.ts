// Statistics of ended transactions, by outcome: exact count, sum, min and max of each figure, and
// p50/p99 from a LogHistogram (within its stated relative error), in fixed memory whatever the
// number of transactions. The server keeps one for the lab's life and one for the current run;
// the same class folds the rows a filter selects. The view types are what the dashboard and
// GET /api/lab/transactions show. Pure and isomorphic.

import { LogHistogram, RELATIVE_ERROR } from './log-histogram.ts'

/**
 * How a transaction ended: committed, aborted by a fault, or aborted by the lab's own teardown (a reset: not a fault).
 */
export type TxnHistoryOutcome = 'committed' | 'aborted' | 'teardown'
export const TXN_HISTORY_OUTCOMES: readonly TxnHistoryOutcome[] = ['committed', 'aborted', 'teardown']

/** Why an aborted transaction ended (the transaction board's abort reasons). */
export const TXN_ABORT_CAUSES = ['crash', 'fenced', 'timeout', 'error', 'teardown'] as const
export type TxnAbortCause = (typeof TXN_ABORT_CAUSES)[number]

/** The figures of one ended transaction that statistics are kept of. */
export interface TxnFigures {
  outcome: TxnHistoryOutcome
  cause: TxnAbortCause | null
  /** Begin → end, ms. */
  durationMs: number
  /** Output + changelog records. */
  records: number
  /**
   * The EndTxn request's latency (the producer's commitTransaction/abortTransaction), ms; null when
   * no client ended it (a kill, a coordinator's abort).
   */
  endTxnMs: number | null
  /** sendOffsetsToTransaction's latency, ms; null when the transaction sent no offsets. */
  sendOffsetsMs: number | null
}

export interface FigureSummary {
  count: number
  sum: number
  min: number | null
  avg: number | null
  max: number | null
  /** By nearest rank (the ceil(q·n)-th smallest), from the sketch: within `relativeError` of it. */
  p50: number | null
  p99: number | null
}

export interface OutcomeStats {
  count: number
  durationMs: FigureSummary
  records: FigureSummary
  endTxnMs: FigureSummary
  sendOffsetsMs: FigureSummary
}

export interface TxnStatsView {
  /** Since when these statistics run (ms since the epoch). */
  sinceMs: number
  relativeError: number
  outcomes: Record<TxnHistoryOutcome, OutcomeStats>
  /** Aborts by cause (teardown aborts included under 'teardown'; they are not faults). */
  causes: Record<TxnAbortCause, number>
}

type FigureName = 'durationMs' | 'records' | 'endTxnMs' | 'sendOffsetsMs'
const FIGURES: readonly FigureName[] = ['durationMs', 'records', 'endTxnMs', 'sendOffsetsMs']

class FigureAccumulator {
  count = 0
  sum = 0
  min = Infinity
  max = -Infinity
  readonly sketch = new LogHistogram()

  add(x: number): void {
    this.count++
    this.sum += x
    if (x < this.min) this.min = x
    if (x > this.max) this.max = x
    this.sketch.add(x)
  }

  merge(o: FigureAccumulator): void {
    this.count += o.count
    this.sum += o.sum
    this.min = Math.min(this.min, o.min)
    this.max = Math.max(this.max, o.max)
    this.sketch.merge(o.sketch)
  }

  /** The last view, kept while nothing was added (a snapshot reads every accumulator 10 times a second). */
  private shown: FigureSummary | null = null

  view(): FigureSummary {
    if (this.shown !== null && this.shown.count === this.count) return this.shown
    if (this.count === 0) return { count: 0, sum: 0, min: null, avg: null, max: null, p50: null, p99: null }
    // The sketch's answer is clamped to the exact extremes (it can only get closer).
    const clamp = (v: number | null) => (v === null ? null : Math.min(this.max, Math.max(this.min, v)))
    this.shown = {
      count: this.count,
      sum: this.sum,
      min: this.min,
      avg: this.sum / this.count,
      max: this.max,
      p50: clamp(this.sketch.quantile(0.5)),
      p99: clamp(this.sketch.quantile(0.99)),
    }
    return this.shown
  }
}

type OutcomeAccumulator = { count: number } & Record<FigureName, FigureAccumulator>

function outcomeAccumulator(): OutcomeAccumulator {
  return {
    count: 0,
    durationMs: new FigureAccumulator(),
    records: new FigureAccumulator(),
    endTxnMs: new FigureAccumulator(),
    sendOffsetsMs: new FigureAccumulator(),
  }
}

export class TxnStatistics {
  private readonly outcomes: Record<TxnHistoryOutcome, OutcomeAccumulator> = {
    committed: outcomeAccumulator(),
    aborted: outcomeAccumulator(),
    teardown: outcomeAccumulator(),
  }
  private readonly causes: Record<TxnAbortCause, number> = { crash: 0, fenced: 0, timeout: 0, error: 0, teardown: 0 }

  constructor(readonly sinceMs: number) {}

  add(t: TxnFigures): void {
    const o = this.outcomes[t.outcome]
    o.count++
    o.durationMs.add(t.durationMs)
    o.records.add(t.records)
    if (t.endTxnMs !== null) o.endTxnMs.add(t.endTxnMs)
    if (t.sendOffsetsMs !== null) o.sendOffsetsMs.add(t.sendOffsetsMs)
    if (t.outcome !== 'committed') this.causes[t.cause ?? 'error']++
  }

  merge(other: TxnStatistics): void {
    for (const k of TXN_HISTORY_OUTCOMES) {
      this.outcomes[k].count += other.outcomes[k].count
      for (const f of FIGURES) this.outcomes[k][f].merge(other.outcomes[k][f])
    }
    for (const c of TXN_ABORT_CAUSES) this.causes[c] += other.causes[c]
  }

  count(outcome: TxnHistoryOutcome): number {
    return this.outcomes[outcome].count
  }

  view(): TxnStatsView {
    const outcome = (k: TxnHistoryOutcome): OutcomeStats => {
      const o = this.outcomes[k]
      return {
        count: o.count,
        durationMs: o.durationMs.view(),
        records: o.records.view(),
        endTxnMs: o.endTxnMs.view(),
        sendOffsetsMs: o.sendOffsetsMs.view(),
      }
    }
    return {
      sinceMs: this.sinceMs,
      relativeError: RELATIVE_ERROR,
      outcomes: { committed: outcome('committed'), aborted: outcome('aborted'), teardown: outcome('teardown') },
      causes: { ...this.causes },
    }
  }
}

/** One ended transaction, as GET /api/lab/transactions gives its rows (and the CSV its columns). */
export interface TxnRow {
  endMs: number
  beginMs: number
  durationMs: number
  outcome: TxnHistoryOutcome
  cause: TxnAbortCause | null
  transactionalId: string
  workerId: string | null
  producerId: number
  epoch: number
  /** The partitions it wrote, space-separated. */
  partitions: string
  outputRecords: number
  changelogRecords: number
  offsetsCommitted: number
  endTxnMs: number | null
  sendOffsetsMs: number | null
}

/**
 * What the rows cover: the last `rows` transactions (and older aborts), and how
 * many older ones only the statistics hold.
 */
export interface TxnHistoryWindow {
  rows: number
  rowCapacity: number
  abortRows: number
  abortRowCapacity: number
  /** The oldest row held ended then (null: none yet). */
  fromMs: number | null
  toMs: number | null
  olderThanRows: number
  bytesPerRow: number
  text: string
}

/**
 * GET /api/lab/transactions: the rows a filter selects (oldest first), their statistics
 * beside the life's and the run's, and the window.
 */
export interface TxnHistoryPage {
  window: TxnHistoryWindow
  statistics: { life: TxnStatsView; run: TxnStatsView; matched: TxnStatsView }
  matched: number
  rows: TxnRow[]
}

// The snapshot's and the transaction view's fields for the history, declared beside their types
// (merged into lab-protocol.ts's interfaces): statistics of every ended transaction, for the lab's
// life and the current run (whose counts are txnTotals'); a transaction's request latencies.
declare module './lab-protocol.ts' {
  interface LabSnapshot {
    txnStats?: { life: TxnStatsView; run: TxnStatsView }
  }
  interface TxnView {
    /** The producer's EndTxn latency (commitTransaction / abortTransaction), ms, when the worker ended it itself. */
    endTxnMs?: number
    /** sendOffsetsToTransaction's latency, ms, when the transaction sent offsets. */
    sendOffsetsMs?: number
  }
}
