// A produce call's records grouped by partition, as both log adapters send them: one batch per
// partition, in order of first appearance, each batch in the caller's order, with where each record
// sat in the call (its metadata goes back there). Built once per call with no key per record: a
// string key is made only when the partition changes from one record to the next.

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
  const byKey = new Map<string, PartitionGroup<R>>()
  let last: PartitionGroup<R> | undefined
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!
    if (!last || r.partition !== last.partition || r.topic !== last.topic) {
      const key = tpKey(r.topic, r.partition)
      last = byKey.get(key)
      if (!last) {
        last = { topic: r.topic, partition: r.partition, key, records: [], indexes: [] }
        byKey.set(key, last)
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
