// Where a scenario's claims lie in its last lab: runs of aborted records (a transaction's records
// up to its ABORT marker), records written twice, replay windows. Read from the log itself, so a
// link names offsets that exist and hold what the claim is about.

import type { EvidenceLink } from '../../../lib/lab-protocol.ts'
import type { LabRuntime } from '../../runtime/lab-runtime.ts'
import type { Provenance } from './scenario.ts'

/** A stretch of one partition: [from, to). */
export interface OffsetRun {
  partition: number
  from: number
  to: number
  /** Data records in it (markers not counted). */
  records: number
}

/**
 * Runs of aborted data records per partition of a topic: each from its first aborted record to the
 * marker that follows (ABORT markers included, so the link shows the abort too), cut at the first
 * committed or still open record.
 */
export async function abortedRuns(
  rt: LabRuntime,
  topic: string,
  partitions: readonly number[] = allPartitions(rt),
): Promise<OffsetRun[]> {
  const inspector = rt.connection.inspector()
  const runs: OffsetRun[] = []
  for (const partition of partitions) {
    const tp = { topic, partition }
    const { logStartOffset, highWatermark } = await inspector.offsets(tp)
    let run: OffsetRun | null = null
    for (const r of await inspector.readRaw(tp, logStartOffset, highWatermark, Number.MAX_SAFE_INTEGER)) {
      const aborted = r.control === null && r.txnOutcome === 'aborted'
      if (aborted) {
        run ??= { partition, from: r.offset, to: r.offset + 1, records: 0 }
        run.records++
        run.to = r.offset + 1
      } else if (run !== null && r.control !== null) {
        run.to = r.offset + 1
      } else if (run !== null) {
        runs.push(run)
        run = null
      }
    }
    if (run !== null) runs.push(run)
  }
  return runs
}

function allPartitions(rt: LabRuntime): number[] {
  return Array.from({ length: rt.partitions }, (_, p) => p)
}

/** The output stretches that hold every copy of records written more than once, one per output partition. */
export function duplicateRuns(dups: readonly Provenance[]): OffsetRun[] {
  return spans(dups.flatMap((d) => d.outputs))
}

/**
 * The stretch of offsets the points cover, one per partition (from the lowest to past the highest, with their count).
 */
export function spans(points: readonly { partition: number; offset: number }[]): OffsetRun[] {
  const byPartition = new Map<number, OffsetRun>()
  for (const o of points) {
    const run = byPartition.get(o.partition)
    if (!run) byPartition.set(o.partition, { partition: o.partition, from: o.offset, to: o.offset + 1, records: 1 })
    else {
      run.from = Math.min(run.from, o.offset)
      run.to = Math.max(run.to, o.offset + 1)
      run.records++
    }
  }
  return [...byPartition.values()].sort((a, b) => a.partition - b.partition)
}

/** A link over a run. */
export function linkOf(
  label: string,
  topic: EvidenceLink['topic'],
  run: { partition: number; from: number; to: number },
  atMs: number,
): EvidenceLink {
  return { label, topic, partition: run.partition, fromOffset: run.from, toOffset: run.to, atMs }
}

/** The largest runs first, at most `n` of them. */
export function largest<T extends OffsetRun>(runs: readonly T[], n: number): T[] {
  return [...runs].sort((a, b) => b.records - a.records || a.partition - b.partition).slice(0, n)
}
