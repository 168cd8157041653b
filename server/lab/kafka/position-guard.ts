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
//   engine seeks every partition it takes (createTask), and that seek refetches from there;
// - with `contiguous` (input topics whose offsets have no gaps: eoscope's input is written by a
//   non-transactional producer, so no markers and no aborted records), a record past the
//   position is a batch fetched from an older position that a seek did not catch (seen after a
//   zombie's SIGCONT: processed, it skips records, and their offsets are committed without their
//   outputs). It is dropped and the partition is sought back to the position.

import type { ConsumedRecord, ConsumerGroupMetadata, LogConnection, LogConsumer, OffsetToCommit, RebalanceListener, TopicPartition } from '../../log/types.ts'
import { tpKey } from '../../log/types.ts'
import { isMigrationError, TaskMigratedError } from '../../engine/errors.ts'

export class PositionGuardedConsumer implements LogConsumer {
  private readonly next = new Map<string, number>()
  /** Records dropped because they were below the position or not yet sought. */
  dropped = 0
  readonly enforceRebalance?: () => void

  /** Records dropped because they were past the position (contiguous input only). */
  gaps = 0

  constructor(
    private readonly inner: LogConsumer,
    private readonly contiguous = false,
  ) {
    if (inner.enforceRebalance) this.enforceRebalance = () => inner.enforceRebalance!()
  }

  /** The engine closed the partition's task: records of it are dropped until the next task's seek. */
  forgetPartition(partition: number): void {
    for (const [key] of this.next) if (key.endsWith(`-${partition}`) && Number(key.slice(key.lastIndexOf('-') + 1)) === partition) this.next.delete(key)
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
    const reseek = new Map<string, TopicPartition>()
    for (const r of records) {
      const key = tpKey(r.topic, r.partition)
      const n = this.next.get(key)
      if (n === undefined || r.offset < n) {
        this.dropped++
        continue
      }
      if (this.contiguous && (r.offset > n || reseek.has(key))) {
        this.gaps++
        reseek.set(key, { topic: r.topic, partition: r.partition })
        continue
      }
      this.next.set(key, r.offset + 1)
      out.push(r)
    }
    for (const [key, tp] of reseek) {
      try {
        this.inner.seek(tp, this.next.get(key)!)
      } catch {
        // No longer assigned: the next rebalance step forgets it.
      }
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
  /**
   * A commit refused for the member's generation (the group rebalanced under it) is a migration,
   * as Kafka Streams turns CommitFailedException into TaskMigratedException: the engine closes
   * the tasks dirty and rejoins, instead of failing the worker.
   */
  async commitOffsets(offsets: OffsetToCommit[]): Promise<void> {
    try {
      await this.inner.commitOffsets(offsets)
    } catch (e) {
      if (isMigrationError(e)) throw new TaskMigratedError(offsets.map((o) => `0_${o.partition}`), `offset commit refused: ${(e as Error).message}`, { cause: e })
      throw e
    }
  }
  groupMetadata(): ConsumerGroupMetadata {
    return this.inner.groupMetadata()
  }
  close(): Promise<void> {
    return this.inner.close()
  }
}

/**
 * The same connection, with every consumer it makes guarded. forgetPartition must be called when
 * the engine closes a task (its task-closed event): a task closed dirty (migrated) keeps its
 * partition assigned, and records polled before its successor's seek come from the old position.
 */
export class PositionGuardedConnection implements LogConnection {
  readonly backend
  readonly capabilities
  private readonly consumers: PositionGuardedConsumer[] = []

  constructor(
    private readonly conn: LogConnection,
    private readonly contiguous = false,
  ) {
    this.backend = conn.backend
    this.capabilities = conn.capabilities
  }
  admin() {
    return this.conn.admin()
  }
  producer(o: Parameters<LogConnection['producer']>[0]) {
    return this.conn.producer(o)
  }
  consumer(o: Parameters<LogConnection['consumer']>[0]) {
    const c = new PositionGuardedConsumer(this.conn.consumer(o), this.contiguous)
    this.consumers.push(c)
    return c
  }
  reader() {
    return this.conn.reader()
  }
  inspector() {
    return this.conn.inspector()
  }
  forgetPartition(partition: number): void {
    for (const c of this.consumers) c.forgetPartition(partition)
  }
  get dropped(): number {
    return this.consumers.reduce((n, c) => n + c.dropped + c.gaps, 0)
  }
}
