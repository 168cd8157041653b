// Retriable means retried. An error the client marks retriable (a LogError's `retriable`: a
// coordinator not available or moved, a broker not available, not the leader, a request timed
// out, a lost connection; or a client error's own `retriable` flag) is tried again with a doubling
// backoff until the operation's own deadline, as Kafka's Java clients do inside their calls
// (default.api.timeout.ms for an offset commit, max.block.ms for a transactional request). Any
// other error, and a retriable one past the deadline, goes to the caller: only those can end a
// worker. The clock and the sleep are the injected Time, so tests run it on a virtual clock.

import { LogError } from '../log/errors.ts'
import type { Time } from '../log/time.ts'

/** Kafka's client defaults for how long a call may keep trying, by their Kafka names. */
export const KAFKA_CLIENT_DEADLINES_MS = {
  /** Consumer calls that block (commitSync, committed, position). */
  'default.api.timeout.ms': 60_000,
  /** Producer calls that block (initTransactions, sendOffsetsToTransaction, commit and abort). */
  'max.block.ms': 60_000,
  /** A record's send, retries included. */
  'delivery.timeout.ms': 120_000,
  /** Between two polls of a member before it is considered failed and leaves the group. */
  'max.poll.interval.ms': 300_000,
} as const

/** Whether the client marked this error retriable (a LogError's flag, else the error's own `retriable`). */
export function isRetriable(e: unknown): boolean {
  if (e instanceof LogError) return e.retriable
  return typeof e === 'object' && e !== null && (e as { retriable?: unknown }).retriable === true
}

export interface DeadlineRetry {
  /** How long the operation may keep trying, from its first try (one of KAFKA_CLIENT_DEADLINES_MS, usually). */
  deadlineMs: number
  /** The first wait after a retriable failure, doubling up to maxBackoffMs (default 50 ms and 1 s). */
  initialBackoffMs?: number
  maxBackoffMs?: number
  /** Checked after each failure: true ends the retries with that failure (a stop was asked for). */
  stopped?: () => boolean
  /** Told of each retriable failure that will be tried again, with the wait before the next try. */
  onRetry?: (e: unknown, attempt: number, waitMs: number) => void
}

/**
 * Runs `call`; after a retriable failure runs it again, waiting 50 ms, 100 ms, ... up to 1 s between tries, until
 * `deadlineMs` has passed or a stop is asked for, then throws that failure. Other failures are thrown at once.
 */
export async function retryRetriableUntilDeadline<T>(
  time: Pick<Time, 'now' | 'sleep'>,
  o: DeadlineRetry,
  call: () => Promise<T>,
): Promise<T> {
  const started = time.now()
  const maxBackoffMs = o.maxBackoffMs ?? 1_000
  let backoffMs = o.initialBackoffMs ?? 50
  for (let attempt = 1; ; attempt++) {
    try {
      return await call()
    } catch (e) {
      if (!isRetriable(e) || o.stopped?.()) throw e
      const left = started + o.deadlineMs - time.now()
      if (left <= 0) throw e
      const waitMs = Math.min(backoffMs, maxBackoffMs, left)
      o.onRetry?.(e, attempt, waitMs)
      await time.sleep(waitMs)
      backoffMs = Math.min(maxBackoffMs, backoffMs * 2)
    }
  }
}
