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

export function groupByPartition<R extends TopicPartition>(records: readonly R[]): PartitionGroup<R>[] {
  const groups: PartitionGroup<R>[] = []
  // By topic, then by partition number: a task's sends alternate topics record by record (output,
  // changelog, output, ...), so the partition changes at every record and no string is built for it.
  const byTopic = new Map<string, (PartitionGroup<R> | undefined)[]>()
  let last: PartitionGroup<R> | undefined
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!
    if (!last || r.partition !== last.partition || r.topic !== last.topic) {
      let partitions = byTopic.get(r.topic)
      if (!partitions) byTopic.set(r.topic, (partitions = []))
      last = partitions[r.partition]
      if (!last) {
        last = { topic: r.topic, partition: r.partition, key: tpKey(r.topic, r.partition), records: [] }
        partitions[r.partition] = last
        groups.push(last)
      }
    }
    last.records.push(r)
  }
  return groups
}

/** The call's acknowledgement: each group's partition with the base offset it was appended at. */
export function acksOf<R extends TopicPartition>(groups: readonly PartitionGroup<R>[], baseOffsets: readonly number[]): PartitionAck[] {
  return groups.map((g, i) => ({ topic: g.topic, partition: g.partition, baseOffset: baseOffsets[i]!, records: g.records.length }))
}
