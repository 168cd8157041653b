// Retrying a broker that answers "not now": a partition without a leader, a coordinator still
// loading, a lost connection (a retriable LogError). Kafka Streams retries task initialisation
// within task.timeout.ms instead of failing the stream thread; right after a broker restart the
// changelog's offsets answer NOT_LEADER for a few seconds, and failing the worker on it cost a
// process restart.

import { LogError } from '../log/errors.ts'
import type { Time } from '../log/time.ts'

/** How long task creation retries before the worker fails (well inside max.poll.interval.ms). */
export const TASK_CREATION_RETRY_MS = 120_000

/** Runs `call` again after a retriable LogError, backing off from 50 ms to 1 s, until `boundMs` has passed or `stop()` holds. */
export async function retryingNotNow<T>(time: Time, boundMs: number, stop: () => boolean, call: () => Promise<T>): Promise<T> {
  const started = time.now()
  for (let backoffMs = 50; ; backoffMs = Math.min(1_000, backoffMs * 2)) {
    try {
      return await call()
    } catch (e) {
      if (!(e instanceof LogError) || !e.retriable || stop() || time.now() - started >= boundMs) throw e
      await time.sleep(backoffMs)
    }
  }
}
