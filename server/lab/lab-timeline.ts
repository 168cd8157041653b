// The lab's timeline: the throughput and latency series, one point per sample: committed input and
// visible output per second. Its markers (kills, pauses, config changes, outages...) are a view of
// the lab's journal: a mark goes there. The processed rate of a point is taken from the commits
// the workers report, over whole commit intervals (lib/processed-rate.ts, docs/measures.md#throughput):
// the offsets move in steps, one per commit, and a rate over the samples would read 0 or twice the
// input rate depending on how many steps a stretch of time happened to hold.

import type { ChartPoint, MarkerKind } from '../../lib/lab-protocol.ts'
import { type CommitStep, committedRate, processedWindowMs } from '../../lib/processed-rate.ts'
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
  private lastSample = { t: 0 }
  /** Each input partition's steps of its committed offset: where it stood at the restart, then its commits. */
  private commits = new Map<number, CommitStep[]>()
  private startedAt = 0

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

  /** Starts the series over for a new runtime: its committed offsets start where `committed` says (none: 0). */
  restart(committed: readonly (number | null)[] = []): void {
    const now = this.time.now()
    this.lastSample = { t: now }
    this.startedAt = now
    this.commits = new Map(committed.map((offset, p) => [p, [{ t: now, offset: offset ?? 0 }]]))
  }

  /** A commit of input offsets the workers reported (the offsets-committed event), at `atMs`. */
  committed(offsets: readonly { partition: number; offset: number }[], atMs: number): void {
    const t = Math.min(atMs, this.time.now())
    for (const o of offsets) {
      let steps = this.commits.get(o.partition)
      if (!steps) {
        steps = [{ t: this.startedAt, offset: 0 }]
        this.commits.set(o.partition, steps)
      }
      // Reports of one partition from two workers (a handover) may arrive out of order.
      let i = steps.length
      while (i > 0 && steps[i - 1]!.t > t) i--
      steps.splice(i, 0, { t, offset: o.offset })
    }
  }

  /** A point: the processed rate over whole commit intervals (see the header), visible output since the last point. */
  sample(visible: VisibleSample, commitIntervalMs: number): void {
    const now = this.time.now()
    const dt = (now - this.lastSample.t) / 1000
    const windowMs = processedWindowMs(commitIntervalMs)
    this.forgetBefore(now - 2 * windowMs)
    this.series.push({
      t: now,
      processedPerSec: committedRate(this.commits.values(), now, windowMs),
      visibleOutputPerSec: dt > 0 ? Math.round(visible.records / dt) : 0,
      latencyP50Ms: visible.p50,
      latencyP99Ms: visible.p99,
      latencyMaxMs: visible.max,
    })
    this.lastSample = { t: now }
    if (this.series.length > MAX_SERIES) this.series.shift()
  }

  /** Drops the steps no rate needs: each partition keeps its last step at or before `t` and those after. */
  private forgetBefore(t: number): void {
    for (const steps of this.commits.values()) {
      let drop = 0
      while (drop + 1 < steps.length && steps[drop + 1]!.t <= t) drop++
      if (drop > 0) steps.splice(0, drop)
    }
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
