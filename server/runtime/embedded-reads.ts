// What the in-process runtime reads straight from its embedded cluster, synchronously.

import type { EmbeddedCluster } from '../log/embedded/embedded-cluster.ts'
import { tpKey, type TopicPartition } from '../log/types.ts'

function partitionsOf(topic: string, partitions: number): TopicPartition[] {
  return Array.from({ length: partitions }, (_, partition) => ({ topic, partition }))
}

export function highWatermarks(cluster: EmbeddedCluster, topic: string, partitions: number): number[] {
  return partitionsOf(topic, partitions).map((tp) => cluster.partitionLog(tp).highWatermark)
}

/** The group's committed offsets, per partition of the topic (null: none yet). */
export function groupOffsets(
  cluster: EmbeddedCluster,
  groupId: string,
  topic: string,
  partitions: number,
): (number | null)[] {
  const tps = partitionsOf(topic, partitions)
  const m = cluster.group(groupId).fetchCommitted(tps)
  return tps.map((tp) => m.get(tpKey(tp.topic, tp.partition)) ?? null)
}

/** Committed records of a topic (what a read_committed consumer of it sees). */
export function committedRecords(cluster: EmbeddedCluster, topic: string, partitions: number): number {
  return partitionsOf(topic, partitions).reduce(
    (n, tp) => n + cluster.partitionLog(tp).read(0, Number.MAX_SAFE_INTEGER, 'read_committed').records.length,
    0,
  )
}

/** The last sequence number each partition of these topics holds for a producer. */
export function lastSequences(
  cluster: EmbeddedCluster,
  topics: readonly string[],
  partitions: number,
  producerId: number,
): { partition: string; sequence: number }[] {
  const out: { partition: string; sequence: number }[] = []
  for (const topic of topics) {
    for (const tp of partitionsOf(topic, partitions)) {
      const seq = cluster.partitionLog(tp).lastSequence(producerId)
      if (seq !== undefined && seq >= 0) out.push({ partition: `${topic}-${tp.partition}`, sequence: seq })
    }
  }
  return out
}
