// A poll that hands a task input below its position: records the task has already processed.
// The consumer promises never to (kafka-consumer.ts keeps positions across rebalances and admits
// every fetched batch through its PositionGuard), and this is where the engine checks it, as a
// StreamTask's input must advance: processed again, such records would be written twice, with the
// state applied twice. The worker treats the task as corrupted instead: its transaction is
// aborted, it restarts from the committed offset and the changelog, and the journal says what the
// consumer handed it.

import type { ConsumedRecord } from '../log/types.ts'
import { TaskCorruptedError } from './errors.ts'

/** One task's records below its position: offsets [from, to] handed to a task whose next offset was `position`. */
export interface Redelivery {
  taskId: string
  position: number
  from: number
  to: number
  records: number
}

/** What a poll's batch holds below each task's position (each task's records are in offset order). */
export function redeliveries<T extends { id: string; consumedOffset: number }>(
  batch: ReadonlyMap<T, readonly ConsumedRecord[]>,
): Redelivery[] {
  const out: Redelivery[] = []
  for (const [task, recs] of batch) {
    const below = recs.filter((r) => r.offset < task.consumedOffset)
    if (below.length > 0)
      out.push({
        taskId: task.id,
        position: task.consumedOffset,
        from: below[0]!.offset,
        to: below.at(-1)!.offset,
        records: below.length,
      })
  }
  return out
}

export function describeRedeliveries(rs: readonly Redelivery[]): string {
  const each = rs.map(
    (r) =>
      `${r.taskId} at offset ${r.position} was handed ${r.records} record${r.records === 1 ? '' : 's'} at ` +
      `${r.from}..${r.to}`,
  )
  return (
    `the consumer handed input the task had already processed (${each.join('; ')}): restored from the committed ` +
    `offset instead of processing it twice`
  )
}

/** The batch as it is, or TaskCorruptedError naming every task it hands input below its position. */
export function refuseRedeliveries<
  T extends { id: string; consumedOffset: number },
  B extends ReadonlyMap<T, readonly ConsumedRecord[]>,
>(batch: B): B {
  const behind = redeliveries(batch)
  if (behind.length > 0)
    throw new TaskCorruptedError(
      behind.map((r) => r.taskId),
      describeRedeliveries(behind),
    )
  return batch
}
