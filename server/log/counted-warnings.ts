// One warning per condition, with a count. A loop that reads or writes the cluster every few
// milliseconds must not write a line per try while a broker is down (a run printed "telemetry not
// read: BROKER_NOT_AVAILABLE" 248 times). The first occurrence of a condition is written at once;
// the next ones within the window (10 s) are counted, and at the window's end the count is written
// in one line, with the latest message, and a new window begins: a condition writes at most one
// line per window, and no count is lost (flush() writes what a closing loop has counted).

import { LogError } from './errors.ts'

/** Writes one line: the message, with how many times the condition occurred since its last line. */
export type WarningWriter = (line: string, c: { condition: string; count: number }) => void

/** Runs `run` after `ms` and returns how to cancel it (default: an unref'd setTimeout). */
export type Schedule = (ms: number, run: () => void) => () => void

const realSchedule: Schedule = (ms, run) => {
  const t = setTimeout(run, ms)
  t.unref?.()
  return () => clearTimeout(t)
}

export const WARNING_WINDOW_MS = 10_000

interface Window {
  count: number
  last: string
  cancel: () => void
}

export class CountedWarnings {
  private readonly open = new Map<string, Window>()

  constructor(
    private readonly write: WarningWriter,
    private readonly windowMs = WARNING_WINDOW_MS,
    private readonly schedule: Schedule = realSchedule,
  ) {}

  /** One occurrence of `condition`: written now if it is the first of a window, else counted. */
  warn(condition: string, message: string): void {
    const w = this.open.get(condition)
    if (w) {
      w.count++
      w.last = message
      return
    }
    this.write(message, { condition, count: 1 })
    this.begin(condition)
  }

  /** Writes every count not yet written and forgets the windows. */
  flush(): void {
    for (const [condition, w] of [...this.open]) {
      w.cancel()
      this.open.delete(condition)
      if (w.count > 0) this.write(this.summary(w), { condition, count: w.count })
    }
  }

  private begin(condition: string): void {
    const w: Window = { count: 0, last: '', cancel: () => {} }
    this.open.set(condition, w)
    w.cancel = this.schedule(this.windowMs, () => this.end(condition, w))
  }

  private end(condition: string, w: Window): void {
    if (this.open.get(condition) !== w) return
    this.open.delete(condition)
    if (w.count === 0) return
    this.write(this.summary(w), { condition, count: w.count })
    // Still occurring: the next window counts on.
    this.begin(condition)
  }

  private summary(w: Window): string {
    const times = `${w.count} more time${w.count === 1 ? '' : 's'}`
    return `${w.last} (${times} in the last ${Math.round(this.windowMs / 1000)} s)`
  }
}

/**
 * The condition an error is an occurrence of: what failed and the error's code (a LogError's, else what `codeOf`
 * names it, such as a client error's LogError code) or name, not its message, which names brokers and offsets that
 * change from one try to the next.
 */
export function conditionOf(what: string, e: unknown, codeOf?: (e: unknown) => string | null): string {
  if (e instanceof LogError) return `${what}: ${e.code}`
  const code = codeOf?.(e) ?? null
  if (code !== null) return `${what}: ${code}`
  if (e instanceof Error) return `${what}: ${e.name}`
  return `${what}: ${String(e).slice(0, 60)}`
}

/** `what: message` for an error. */
export function warningOf(what: string, e: unknown): string {
  return `${what}: ${e instanceof Error ? e.message : String(e)}`
}
