// The lab's timeline: the throughput and latency series, one point per sample: committed input and
// visible output per second. Its markers (kills, pauses, config changes, outages...) are a view of
// the lab's journal: a mark goes there.

import type { ChartPoint, MarkerKind } from '../../lib/lab-protocol.ts'
import type { Time } from '../log/time.ts'

const MAX_SERIES = 240
const SHOWN_SERIES = 120

export interface VisibleSample {
  records: number
  p50: number | null
  p99: number | null
  max: number | null
}

/** A worker stopped by an error, as the timeline calls it: the poison record's place when one stopped it. */
export function failureLabel(workerId: string, error: string): string {
  const poison = /input record at (\S+@\d+)/.exec(error)
  return poison ? `${workerId} stopped by poison ${poison[1]}` : `${workerId} stopped: ${error.slice(0, 80)}`
}

export class LabTimeline {
  private series: ChartPoint[] = []
  private lastSample = { t: 0, committed: 0 }

  /** @param marked where a mark goes (the journal). */
  constructor(
    private readonly time: Time,
    private readonly marked: (kind: MarkerKind, label: string, t: number) => void = () => {},
  ) {}

  mark(kind: MarkerKind, label: string, t = this.time.now()): void {
    this.marked(kind, label, t)
  }

  /** Forgets what was shown of a previous runtime. */
  clear(): void {
    this.series = []
  }

  /** Starts the series over for a new runtime (its committed total starts at 0). */
  restart(): void {
    this.lastSample = { t: this.time.now(), committed: 0 }
  }

  sample(committed: number, visible: VisibleSample): void {
    const now = this.time.now()
    const dt = (now - this.lastSample.t) / 1000
    this.series.push({
      t: now,
      processedPerSec: dt > 0 ? Math.max(0, Math.round((committed - this.lastSample.committed) / dt)) : 0,
      visibleOutputPerSec: dt > 0 ? Math.round(visible.records / dt) : 0,
      latencyP50Ms: visible.p50,
      latencyP99Ms: visible.p99,
      latencyMaxMs: visible.max,
    })
    this.lastSample = { t: now, committed }
    if (this.series.length > MAX_SERIES) this.series.shift()
  }

  shownSeries(): ChartPoint[] {
    return this.series.slice(-SHOWN_SERIES)
  }
}

/** Calls fn every everyMs until the timers stop; a failed round is skipped, the next one retries. */
export async function repeat(
  time: Time,
  timers: { readonly stop: boolean },
  everyMs: number,
  fn: () => unknown,
): Promise<void> {
  while (!timers.stop) {
    await time.sleep(everyMs)
    if (timers.stop) break
    try {
      await fn()
    } catch {
      // a failed sample, read or snapshot is skipped; the next round retries
    }
  }
}
