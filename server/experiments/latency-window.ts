// End-to-end latency over a window, as a read_committed consumer of the output topic sees it:
// the instant a record becomes visible minus its input record's append time (which the output
// record carries as its timestamp). Unlike the dashboard's tracker it keeps every sample of the
// window, so a long window at a slow commit interval is not cut down to its first seconds.

import type { LogReader } from '../log/types.ts'
import { percentile } from '../lab/visibility-tracker.ts'

export class LatencyWindow {
  private readonly positions: number[]
  private samples: number[] = []

  constructor(
    private readonly reader: LogReader,
    private readonly topic: string,
    partitions: number,
  ) {
    this.positions = new Array(partitions).fill(0)
  }

  /** Reads everything newly visible; a record's visibility instant is known to within one call's spacing. */
  async poll(nowMs: number): Promise<void> {
    for (let p = 0; p < this.positions.length; p++) {
      const tp = { topic: this.topic, partition: p }
      for (;;) {
        const offsets = await this.reader.offsets(tp)
        if (this.positions[p]! < offsets.logStartOffset) this.positions[p] = offsets.logStartOffset
        if (this.positions[p]! >= offsets.lastStableOffset) break
        const r = await this.reader.read(tp, this.positions[p]!, 10_000, 'read_committed')
        for (const rec of r.records) this.samples.push(Math.max(0, nowMs - rec.timestamp))
        if (r.nextOffset <= this.positions[p]!) break
        this.positions[p] = r.nextOffset
      }
    }
  }

  /**
   * The same on a remote log (Kafka), whose every request takes a round trip: the partitions are
   * read at once, each with one read_committed fetch (the broker stops it at the last stable
   * offset), and a record is timed when the fetch that returned it was answered: it was visible
   * by then, and was not yet when the previous fetch of its partition was sent.
   */
  async pollRemote(now: () => number): Promise<void> {
    await Promise.all(
      this.positions.map(async (_, p) => {
        const tp = { topic: this.topic, partition: p }
        for (;;) {
          const r = await this.reader.read(tp, this.positions[p]!, 10_000, 'read_committed')
          const nowMs = now()
          for (const rec of r.records) this.samples.push(Math.max(0, nowMs - rec.timestamp))
          if (r.nextOffset <= this.positions[p]!) break
          this.positions[p] = r.nextOffset
          if (r.records.length === 0) break
        }
      }),
    )
  }

  /** The window since the last drain: how many records became visible, and their latency percentiles. */
  drain(): { records: number; p50: number | null; p99: number | null; max: number | null } {
    const s = this.samples.sort((a, b) => a - b)
    this.samples = []
    return {
      records: s.length,
      p50: percentile(s, 0.5),
      p99: percentile(s, 0.99),
      max: s.length ? s[s.length - 1]! : null,
    }
  }
}
