// A produce call's records grouped by partition, as both log adapters send them: one batch per
// partition, in order of first appearance, each batch in the caller's order, with where each record
// sat in the call (its metadata goes back there). Built once per call with no string per record:
// a group's key is made once, when the group is.

import { type TopicPartition, tpKey } from './types.ts'

export interface PartitionGroup<R extends TopicPartition> {
  topic: string
  partition: number
  /** tpKey(topic, partition). */
  key: string
  records: R[]
  /** Where each record sits in the call's list. */
  indexes: number[]
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
        last = { topic: r.topic, partition: r.partition, key: tpKey(r.topic, r.partition), records: [], indexes: [] }
        partitions[r.partition] = last
        groups.push(last)
      }
    }
    last.records.push(r)
    last.indexes.push(i)
  }
  return groups
}

/** Each record's offset, in the call's order: its group's base offset plus its place in the group. */
export function offsetsOf<R extends TopicPartition>(groups: readonly PartitionGroup<R>[], baseOffsets: readonly number[], count: number): { topic: string; partition: number; offset: number }[] {
  const out = new Array<{ topic: string; partition: number; offset: number }>(count)
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g]!
    const base = baseOffsets[g]!
    for (let j = 0; j < group.indexes.length; j++) out[group.indexes[j]!] = { topic: group.topic, partition: group.partition, offset: base + j }
  }
  return out
}
