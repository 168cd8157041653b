// A headless run's progress watchdog. A run whose group commits no input for a bounded time while
// input remains has stalled (members removed again and again, producers re-initialised without a
// transaction, workers that cannot start): it is stopped and says so, with what was seen since the
// last progress, instead of waiting for its deadline and reporting figures that say nothing.

import type { StreamsConfig } from '../../lib/streams-config.ts'
import type { LabEvent, LabRuntime } from '../runtime/lab-runtime.ts'

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
  /** Workers that failed (an error, not a kill), each counted once. */
  workerFailures: number
  /**
   * What the failed workers said, the latest last: at most WORKER_ERRORS_KEPT
   * distinct errors, each cut to 200 characters.
   */
  workerErrors: string[]
}

/** How many distinct worker errors a stall keeps. */
export const WORKER_ERRORS_KEPT = 5

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

/** The evidence being gathered, with the failed workers' ids (a worker counts once). */
interface Seen extends StallEvidence {
  failedWorkers: Set<string>
}

function noEvidence(): Seen {
  return {
    membersRemoved: 0,
    producerInits: 0,
    transactionsBegun: 0,
    transactionsEnded: 0,
    kills: 0,
    workerFailures: 0,
    workerErrors: [],
    failedWorkers: new Set(),
  }
}

function count(seen: Seen, e: LabEvent): void {
  if ('source' in e) return
  if (e.type === 'member-gone') seen.membersRemoved++
  else if (e.type === 'producer-init') seen.producerInits++
  else if (e.type === 'txn-begin') seen.transactionsBegun++
  else if (e.type === 'txn-end') seen.transactionsEnded++
  else if (e.type === 'worker-killed') seen.kills++
  else if (e.type === 'worker-failed') failed(seen, e.workerId, e.error)
  else if (e.type === 'worker-crashed') failed(seen, e.workerId, e.cause)
  // A worker process that exited on an error reports it in its last status (its engine may have said it first).
  else if (
    e.type === 'worker-status' &&
    e.status.error !== null &&
    (e.status.state === 'stopped' || e.status.state === 'failed' || e.status.state === 'crashed')
  )
    failed(seen, e.workerId, e.status.error)
}

/** A worker failed: counted once however many times it is said, its error kept. */
function failed(seen: Seen, workerId: string, error: string): void {
  seen.failedWorkers.add(workerId)
  seen.workerFailures = seen.failedWorkers.size
  keepError(seen.workerErrors, `${workerId}: ${error}`)
}

function evidence(s: Seen): StallEvidence {
  const { failedWorkers: _ids, ...rest } = s
  return { ...rest, workerErrors: [...s.workerErrors] }
}

/** Keeps the latest distinct errors (an error said again moves to the end). */
function keepError(errors: string[], error: string): void {
  const cut = error.slice(0, 200)
  const at = errors.indexOf(cut)
  if (at >= 0) errors.splice(at, 1)
  errors.push(cut)
  if (errors.length > WORKER_ERRORS_KEPT) errors.shift()
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
    return {
      noProgressMs,
      limitMs: this.limitMs,
      committed,
      inputEnd,
      seen: evidence(this.seen),
      reason: describe(noProgressMs, committed, inputEnd, this.seen),
    }
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
  const errors = s.workerErrors.length === 0 ? '' : `; the failed workers said: ${s.workerErrors.join(' | ')}`
  return (
    `no committed progress for ${Math.round(noProgressMs / 1000)} s with ${committed} of ${inputEnd} input ` +
    `records committed; meanwhile ${seen.join(', ')}${errors}`
  )
}
