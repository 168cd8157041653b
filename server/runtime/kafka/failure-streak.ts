// A loop that reads or writes the cluster every few milliseconds (a worker's command reader, its
// telemetry publisher) must not log each failed try while a broker is down, nor hammer it: a
// FailureStreak logs the first failure of a streak, backs the loop off (doubling up to a cap),
// and logs once when the loop works again, with how many tries failed in between. Streaks that
// come and go log at most one warning per condition per 10 s, with a count (counted-warnings.ts).

import { conditionOf, CountedWarnings, type Schedule, WARNING_WINDOW_MS } from '../../log/counted-warnings.ts'
import { logErrorCode } from '../../log/kafka/kafka-errors.ts'

export interface StreakLog {
  warn(obj: object, msg: string): void
  info(msg: string): void
}

export class FailureStreak {
  private failures = 0
  private readonly warnings: CountedWarnings

  constructor(
    /** What the loop does, for the log lines ("commands not read"). */
    private readonly what: string,
    private readonly log: StreakLog,
    /** The loop's pause when all is well; failures double it up to maxBackoffMs. */
    private readonly everyMs: number,
    private readonly maxBackoffMs = 2_000,
    schedule?: Schedule,
  ) {
    this.warnings = new CountedWarnings((line) => this.log.warn({}, line), WARNING_WINDOW_MS, schedule)
  }

  /** Records a failed try and returns how long the loop waits before the next one. */
  failed(e: unknown): number {
    if (this.failures === 0)
      this.warnings.warn(
        conditionOf(this.what, e, logErrorCode),
        `${this.what}: ${e instanceof Error ? e.message : String(e)} (retrying, backing off to ` +
          `${this.maxBackoffMs} ms)`,
      )
    this.failures++
    return this.pauseMs()
  }

  /** Records a try that worked and returns the loop's normal pause. */
  succeeded(): number {
    if (this.failures > 0)
      this.log.info(`${this.what}: working again after ${this.failures} failed tr${this.failures === 1 ? 'y' : 'ies'}`)
    this.failures = 0
    return this.everyMs
  }

  /** The wait after the current streak: everyMs while all is well. */
  pauseMs(): number {
    return this.failures === 0
      ? this.everyMs
      : Math.min(this.maxBackoffMs, this.everyMs * 2 ** Math.min(this.failures, 20))
  }
}
