// One produce call per partition. kafkajs 2.2.4 sends a call's partitions to their leaders in one
// request per broker and, when any of those requests fails, retries the whole call: a request to
// another broker that is still in flight (say, waiting for acks=all while the dead broker is still
// in the ISR) is not known to have succeeded, so it is sent again, after it completes, with the
// sequence numbers its first send already advanced: the broker takes it as new records, and both
// copies commit in the same transaction. Seen on a three-broker cluster when a leader was SIGKILLed:
// 286 output records written twice by one producer in one epoch, sequences 728 and 1014, the same
// timestamps. A call that holds one partition has one request: a failed request rolls its
// sequence back and is retried alone, with the same sequence, which the partition's leader
// (old or new) deduplicates.

import { groupByPartition, type PartitionGroup } from '../partition-groups.ts'
import type { ProduceRecord } from '../types.ts'

/** One partition's records, in the caller's order. */
export type PartitionSend = PartitionGroup<ProduceRecord>

/**
 * Sends each partition's records with its own call, all at once, and waits for every call before
 * it answers: a failure is thrown only once no call of this send is still in flight (the caller
 * aborts the transaction next). Resolves to the groups and each one's base offset, in the same order.
 */
export async function sendPerPartition(
  records: readonly ProduceRecord[],
  sendOne: (p: PartitionSend) => Promise<number>,
): Promise<{ groups: PartitionSend[]; baseOffsets: number[] }> {
  const groups = groupByPartition(records)
  const settled = await Promise.allSettled(groups.map((g) => sendOne(g)))
  const baseOffsets: number[] = new Array(groups.length)
  for (let i = 0; i < groups.length; i++) {
    const s = settled[i]!
    if (s.status === 'rejected') throw s.reason
    baseOffsets[i] = s.value
  }
  return { groups, baseOffsets }
}
