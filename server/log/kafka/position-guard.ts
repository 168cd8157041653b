// The Kafka consumer's position guarantee, on top of kafkajs's fetch loop: per partition, the
// records poll() hands out start at the position and follow the log, never repeating an offset
// and never skipping a record visible at the consumer's isolation level.
//
// kafkajs does not keep that promise by itself. Seen against a real broker:
// - after a rebalance kafkajs restarts every partition from its committed offset, and a batch
//   fetched from there can arrive although the partition's position is past it;
// - a batch fetched before a seek can arrive after it (isStale() no longer says so once the seek
//   was taken), e.g. a zombie back from SIGSTOP delivers a fetch from its old position.
// Processed, the first are duplicates and the second skip records (lost under exactly_once,
// since their offsets are committed without their outputs).
//
// So each batch is admitted against the offset the partition's next fetch must start at (the
// seek, or the end of the last admitted batch, markers and aborted records included):
// - a batch fetched from there is taken whole (its gaps are markers and aborted records);
// - records below it are dropped (a stale or restarted fetch);
// - a batch fetched from further on is a gap: unless the skipped range holds nothing visible
//   (kafkajs moves past batches of markers or aborted records without handing them out, and
//   retention may have deleted the range), it is dropped and the partition is fetched again from
//   the first missing offset.

import type { ConsumedRecord, TopicPartition } from '../types.ts'
import { tpKey } from '../types.ts'

export interface FetchedBatch {
  /** The offset the fetch asked for. */
  fetchedOffset: number
  /** The offset after the last record the fetch returned, markers and aborted records included. */
  nextFetchOffset: number
  /** The records it hands out (markers and aborted records already filtered). */
  records: ConsumedRecord[]
}

export type Admission =
  | { kind: 'take'; records: ConsumedRecord[] }
  | { kind: 'refetch'; from: number }
  | { kind: 'drop' }

/** Whether [from, to) of the partition holds a record visible to this consumer. */
export type VisibleInRange = (tp: TopicPartition, from: number, to: number) => Promise<boolean>

export class PositionGuard {
  /**
   * Per partition, where the next fetched batch must start; absent: wherever kafkajs starts it (the committed offset).
   */
  private readonly nextFetch = new Map<string, number>()

  constructor(private readonly visibleIn: VisibleInRange) {}

  /** A seek, or a partition kept across a rebalance at its position: fetches must start here. */
  startAt(key: string, offset: number): void {
    this.nextFetch.set(key, offset)
  }

  /** Revoked or lost: the next owner's fetches start wherever the group says. */
  forget(key: string): void {
    this.nextFetch.delete(key)
  }

  expected(key: string): number | undefined {
    return this.nextFetch.get(key)
  }

  async admit(tp: TopicPartition, batch: FetchedBatch): Promise<Admission> {
    const key = tpKey(tp.topic, tp.partition)
    const expected = this.nextFetch.get(key)
    if (expected === undefined || batch.fetchedOffset === expected)
      return this.take(key, batch.records, batch.nextFetchOffset)
    if (batch.fetchedOffset < expected) {
      if (batch.nextFetchOffset <= expected) return { kind: 'refetch', from: expected }
      return this.take(
        key,
        batch.records.filter((r) => r.offset >= expected),
        batch.nextFetchOffset,
      )
    }
    const visible = await this.visibleIn(tp, expected, batch.fetchedOffset)
    // A seek or a rebalance while the range was read: this batch is not what the partition waits for.
    if (this.nextFetch.get(key) !== expected) return { kind: 'drop' }
    if (visible) return { kind: 'refetch', from: expected }
    return this.take(key, batch.records, batch.nextFetchOffset)
  }

  private take(key: string, records: ConsumedRecord[], nextFetchOffset: number): Admission {
    this.nextFetch.set(key, nextFetchOffset)
    return { kind: 'take', records }
  }
}
