// What a read_committed consumer of the output topic sees: the visible output rate, and the
// end-to-end latency of each record (visible now, minus its input record's append time, which
// the output record carries as its timestamp, as Kafka Streams propagates it).

import type { ConsumedRecord, LogReader } from '../log/types.ts'

const MAX_SAMPLES = 20_000
/**
 * Records read per poll at most: a burst (a long transaction committing) is read
 * over a few polls, between the engine's work.
 */
export const MAX_PER_POLL = 20_000

export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[i]!
}

export class VisibilityTracker {
  readonly positions: number[]
  total = 0

  constructor(
    private readonly reader: LogReader,
    private readonly topic: string,
    partitions: number,
    private readonly observe?: (r: ConsumedRecord) => void,
    /**
     * probe-offsets: ask for the partition's offsets before reading (the embedded log answers at
     * once). fetch-only for a remote cluster: a read_committed fetch stops at the last stable
     * offset by itself, and an offsets request per partition per poll would double the requests.
     */
    private readonly reads: 'probe-offsets' | 'fetch-only' = 'probe-offsets',
  ) {
    this.positions = new Array(partitions).fill(0)
  }

  private latencies: number[] = []
  private firstPartition = 0
  private records = 0

  /**
   * Reads everything newly visible. Called often (every few tens of ms): a record's visibility
   * instant is known to within one polling interval.
   */
  async poll(nowMs: number): Promise<void> {
    const latencies = this.latencies
    let budget = MAX_PER_POLL
    const n = this.positions.length
    for (let i = 0; i < n && budget > 0; i++) {
      const p = (this.firstPartition + i) % n
      const tp = { topic: this.topic, partition: p }
      for (;;) {
        if (this.reads === 'probe-offsets') {
          const offsets = await this.reader.offsets(tp)
          if (this.positions[p]! < offsets.logStartOffset) this.positions[p] = offsets.logStartOffset
          if (this.positions[p]! >= offsets.lastStableOffset) break
        }
        const r = await this.reader.read(tp, this.positions[p]!, Math.min(10_000, budget), 'read_committed')
        budget -= r.records.length
        for (const rec of r.records) {
          this.observe?.(rec)
          this.records++
          this.total++
          if (latencies.length < MAX_SAMPLES) latencies.push(Math.max(0, nowMs - rec.timestamp))
        }
        if (r.nextOffset <= this.positions[p]!) break
        this.positions[p] = r.nextOffset
        // Out of budget: the next poll starts on the partition after this one, so no busy partition
        // keeps the others waiting.
        if (budget <= 0) {
          this.firstPartition = (p + 1) % n
          break
        }
      }
    }
  }

  /** The window since the last drain: records made visible and their end-to-end latency. */
  drain(): { records: number; p50: number | null; p99: number | null; max: number | null } {
    const latencies = this.latencies.sort((a, b) => a - b)
    const records = this.records
    this.latencies = []
    this.records = 0
    return {
      records,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies.length ? latencies[latencies.length - 1]! : null,
    }
  }
}
