// Step 1's batch: a poll's records handed to the tasks that own their partitions, each task's in
// offset order from its position (the consumer's promise). A poll returns each partition's
// records together, so a run of one partition is taken whole rather than record by record.

import { forEachPartitionRun } from '../log/partition-groups.ts'
import type { ConsumedRecord } from '../log/types.ts'

/** The records of each task in the batch. */
export type Batch<T> = Map<T, ConsumedRecord[]>

/**
 * `taskOf` gives the running task that may take a partition's records now, or null (not ours any more:
 * its next owner reads it from the committed offset).
 */
export function batchOfPoll<T>(records: readonly ConsumedRecord[], taskOf: (partition: number) => T | null): Batch<T> {
  const batch: Batch<T> = new Map()
  forEachPartitionRun(records, (from, to) => {
    const task = taskOf(records[from]!.partition)
    if (task === null) return
    const list = batch.get(task)
    if (!list) batch.set(task, records.slice(from, to))
    else for (let i = from; i < to; i++) list.push(records[i]!)
  })
  return batch
}
