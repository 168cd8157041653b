// Retrying a broker that answers "not now": a partition without a leader, a coordinator still
// loading, a lost connection (a retriable LogError). Kafka Streams retries task initialisation
// within task.timeout.ms instead of failing the stream thread; right after a broker restart the
// changelog's offsets answer NOT_LEADER for a few seconds, and failing the worker on it cost a
// process restart.

import type { Time } from '../log/time.ts'
import { isRetriable, retryRetriableUntilDeadline } from './retry-until-deadline.ts'

/** How long task creation retries before the worker fails (well inside max.poll.interval.ms). */
export const TASK_CREATION_RETRY_MS = 120_000

export interface NotNowRetry<T> {
  /** How long it retries before the error is thrown. */
  boundMs: number
  /** A stop was asked for (SIGTERM, new settings): retrying ends with `whenStopped()`, not the error. */
  stopped: () => boolean
  whenStopped: () => T
}

/**
 * Runs `call` again after a retriable failure, backing off from 50 ms to 1 s, until `boundMs` has passed
 * (retry-until-deadline.ts); a stop asked for while it retries ends it with `whenStopped()`.
 */
export async function retryingNotNow<T>(time: Time, o: NotNowRetry<T>, call: () => Promise<T>): Promise<T> {
  try {
    return await retryRetriableUntilDeadline(time, { deadlineMs: o.boundMs, stopped: o.stopped }, call)
  } catch (e) {
    // A worker told to stop while its broker answers "not now" stops cleanly: it did not fail.
    if (isRetriable(e) && o.stopped()) return o.whenStopped()
    throw e
  }
}
