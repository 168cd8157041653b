// A guard around the Kafka consumer a worker process uses: poll() returns records from the
// position on, as a Java consumer's poll does, and nothing else.
//
// Seen against a real broker: after a rebalance kafkajs restarts every partition from its
// committed offset, and a batch fetched from there can reach poll() although the partition's
// position is past it (a kept partition), or before the engine has sought a new partition to its
// committed offset. Processed again, such records are duplicates in the output, even under
// exactly_once, since the same transaction commits them again. So:
// - a record below the partition's position (the last seek, or the last record returned + 1) is
//   dropped;
// - a record of a partition that has not been sought since it was assigned is dropped too: the
//   engine seeks every partition it takes (createTask), and that seek refetches from there.

import type { ConsumedRecord, ConsumerGroupMetadata, LogConnection, LogConsumer, OffsetToCommit, RebalanceListener, TopicPartition } from '../../log/types.ts'
import { tpKey } from '../../log/types.ts'

export class PositionGuardedConsumer implements LogConsumer {
  private readonly next = new Map<string, number>()
  /** Records dropped because they were below the position or not yet sought. */
  dropped = 0
  readonly enforceRebalance?: () => void

  constructor(private readonly inner: LogConsumer) {
    if (inner.enforceRebalance) this.enforceRebalance = () => inner.enforceRebalance!()
  }

  private forget(tps: TopicPartition[]): void {
    for (const tp of tps) this.next.delete(tpKey(tp.topic, tp.partition))
  }

  subscribe(topics: string[], listener: RebalanceListener): Promise<void> {
    return this.inner.subscribe(topics, {
      onPartitionsAssigned: (tps) => {
        this.forget(tps)
        return listener.onPartitionsAssigned(tps)
      },
      onPartitionsRevoked: async (tps) => {
        await listener.onPartitionsRevoked(tps)
        this.forget(tps)
      },
      onPartitionsLost: async (tps) => {
        await listener.onPartitionsLost(tps)
        this.forget(tps)
      },
    })
  }

  async poll(maxRecords: number): Promise<ConsumedRecord[]> {
    const records = await this.inner.poll(maxRecords)
    const out: ConsumedRecord[] = []
    for (const r of records) {
      const key = tpKey(r.topic, r.partition)
      const n = this.next.get(key)
      if (n === undefined || r.offset < n) {
        this.dropped++
        continue
      }
      this.next.set(key, r.offset + 1)
      out.push(r)
    }
    return out
  }

  seek(tp: TopicPartition, offset: number): void {
    this.next.set(tpKey(tp.topic, tp.partition), offset)
    this.inner.seek(tp, offset)
  }

  position(tp: TopicPartition): number | undefined {
    return this.next.get(tpKey(tp.topic, tp.partition)) ?? this.inner.position(tp)
  }
  assignment(): TopicPartition[] {
    return this.inner.assignment()
  }
  committed(partitions: TopicPartition[]): Promise<Map<string, number | null>> {
    return this.inner.committed(partitions)
  }
  commitOffsets(offsets: OffsetToCommit[]): Promise<void> {
    return this.inner.commitOffsets(offsets)
  }
  groupMetadata(): ConsumerGroupMetadata {
    return this.inner.groupMetadata()
  }
  close(): Promise<void> {
    return this.inner.close()
  }
}

/** The same connection, with every consumer it makes guarded. */
export function withPositionGuard(conn: LogConnection): LogConnection {
  return {
    backend: conn.backend,
    admin: () => conn.admin(),
    producer: (o) => conn.producer(o),
    consumer: (o) => new PositionGuardedConsumer(conn.consumer(o)),
    reader: () => conn.reader(),
    inspector: () => conn.inspector(),
  }
}
