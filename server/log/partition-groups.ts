// A produce call's records grouped by partition, as both log adapters send them: one batch per
// partition, in order of first appearance, each batch in the caller's order. Built once per call
// with no string per record: a group's key is made once, when the group is.

import { type PartitionAck, type TopicPartition, tpKey } from './types.ts'

export interface PartitionGroup<R extends TopicPartition> {
  topic: string
  partition: number
  /** tpKey(topic, partition). */
  key: string
  records: R[]
}

/** Calls onRun(from, to) for each run of consecutive records of one topic-partition, in order. */
export function forEachPartitionRun(
  records: readonly TopicPartition[],
  onRun: (from: number, to: number) => void,
): void {
  for (let from = 0; from < records.length; ) {
    const r = records[from]!
    let to = from + 1
    while (to < records.length && records[to]!.partition === r.partition && records[to]!.topic === r.topic) to++
    onRun(from, to)
    from = to
  }
}

export function groupByPartition<R extends TopicPartition>(records: readonly R[]): PartitionGroup<R>[] {
  const groups: PartitionGroup<R>[] = []
  // By topic, then by partition number, so that no string is built per record. Records come in runs
  // of one partition (a task's output records, then its changelog records): a run that opens its
  // group is taken whole; a later run of the same group is appended record by record.
  const byTopic = new Map<string, (PartitionGroup<R> | undefined)[]>()
  forEachPartitionRun(records, (from, to) => {
    const r = records[from]!
    let partitions = byTopic.get(r.topic)
    if (!partitions) {
      partitions = []
      byTopic.set(r.topic, partitions)
    }
    const group = partitions[r.partition]
    if (!group) {
      const opened = {
        topic: r.topic,
        partition: r.partition,
        key: tpKey(r.topic, r.partition),
        records: records.slice(from, to),
      }
      partitions[r.partition] = opened
      groups.push(opened)
    } else for (let i = from; i < to; i++) group.records.push(records[i]!)
  })
  return groups
}

/** The call's acknowledgement: each group's partition with the base offset it was appended at. */
export function acksOf<R extends TopicPartition>(
  groups: readonly PartitionGroup<R>[],
  baseOffsets: readonly number[],
): PartitionAck[] {
  return groups.map((g, i) => ({
    topic: g.topic,
    partition: g.partition,
    baseOffset: baseOffsets[i]!,
    records: g.records.length,
  }))
}
