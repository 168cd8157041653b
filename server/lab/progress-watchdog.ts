// A headless run's progress watchdog. A run whose group commits no input for a bounded time while
// input remains has stalled (members removed again and again, producers re-initialised without a
// transaction, workers that cannot start): it is stopped and says so, with what was seen since the
// last progress, instead of waiting for its deadline and reporting figures that say nothing.

import type { StreamsConfig } from '../../lib/streams-config.ts'
import type { LabEvent, LabRuntime } from './lab-runtime.ts'

/** What the runtime reported between the last committed progress and the stall. */
export interface StallEvidence {
  /** Group members removed (session expired or left) — the worker's own kills included. */
  membersRemoved: number
  /** Producers initialised (initTransactions, or a fresh idempotent producer). */
  producerInits: number
  /** Transactions begun, and ended (committed or aborted) as the workers reported them. */
  transactionsBegun: number
  transactionsEnded: number
  kills: number
  workerFailures: number
}

export interface Stall {
  /** How long no input offset commit of the group advanced. */
  noProgressMs: number
  /** The bound that was exceeded. */
  limitMs: number
  /** Input records committed by the group, and produced, when the run stopped. */
  committed: number
  inputEnd: number
  seen: StallEvidence
  /** One sentence: what was seen. */
  reason: string
}

/**
 * How long a run may go without committed progress while input remains: max(60 s, 12 ×
 * session.timeout.ms). A kill's worst case without progress is its detection (session.timeout.ms),
 * a rebalance that waits for slow members (the rebalance timeout, 3 × session.timeout.ms) and the
 * new owner's fencing and restore; the bound allows that twice over, for a kill during a recovery.
 */
export function stallLimitMs(config: Pick<StreamsConfig, 'session.timeout.ms'>): number {
  return Math.max(60_000, 12 * config['session.timeout.ms'])
}

function noEvidence(): StallEvidence {
  return { membersRemoved: 0, producerInits: 0, transactionsBegun: 0, transactionsEnded: 0, kills: 0, workerFailures: 0 }
}

function count(seen: StallEvidence, e: LabEvent): void {
  if ('source' in e) return
  if (e.type === 'member-gone') seen.membersRemoved++
  else if (e.type === 'producer-init') seen.producerInits++
  else if (e.type === 'txn-begin') seen.transactionsBegun++
  else if (e.type === 'txn-end') seen.transactionsEnded++
  else if (e.type === 'worker-killed') seen.kills++
  else if (e.type === 'worker-failed') seen.workerFailures++
}

export class ProgressWatchdog {
  private lastCommitted: number
  private lastProgressMs: number
  private seen = noEvidence()
  private readonly unsubscribe: () => void

  constructor(
    private readonly lab: LabRuntime,
    readonly limitMs: number,
  ) {
    this.lastCommitted = lab.committedTotal()
    this.lastProgressMs = lab.time.now()
    this.unsubscribe = lab.onEvent((e) => count(this.seen, e))
  }

  /** A stall once no committed progress was made for limitMs while input remains; else null. */
  check(): Stall | null {
    const now = this.lab.time.now()
    const committed = this.lab.committedTotal()
    const inputEnd = this.lab.inputEndOffsets().reduce((a, b) => a + b, 0)
    // Progress, or nothing to make progress on (all input committed, more to come at its rate).
    if (committed > this.lastCommitted || committed >= inputEnd) {
      this.lastCommitted = committed
      this.lastProgressMs = now
      this.seen = noEvidence()
      return null
    }
    const noProgressMs = now - this.lastProgressMs
    if (noProgressMs < this.limitMs) return null
    return { noProgressMs, limitMs: this.limitMs, committed, inputEnd, seen: { ...this.seen }, reason: describe(noProgressMs, committed, inputEnd, this.seen) }
  }

  close(): void {
    this.unsubscribe()
  }
}

function describe(noProgressMs: number, committed: number, inputEnd: number, s: StallEvidence): string {
  const seen = [
    `${s.membersRemoved} members removed from the group`,
    `${s.producerInits} producers (re-)initialised`,
    `${s.transactionsBegun} transactions begun, ${s.transactionsEnded} ended`,
    `${s.kills} workers killed`,
    `${s.workerFailures} workers failed`,
  ]
  return `no committed progress for ${Math.round(noProgressMs / 1000)} s with ${committed} of ${inputEnd} input records committed; meanwhile ${seen.join(', ')}`
}
