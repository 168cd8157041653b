// Group-less reads of one partition (changelog restore, the validator, deep views): one Fetch
// per call through the low-level cluster, filtered by the isolation level.

import type { Admin } from 'kafkajs'
import type { IsolationLevel } from '../../../lib/streams-config.ts'
import type { ConsumedRecord, LogReader, PartitionOffsets, TopicPartition } from '../types.ts'
import { isLogError } from '../errors.ts'
import { mapErrors } from './kafka-errors.ts'
import { toConsumedRecord, visibleRecords } from './kafka-records.ts'
import type { PartitionFetch, PartitionFetcher } from './partition-fetcher.ts'

/**
 * Log start offset and high watermark from ListOffsets; the last stable offset
 * from an empty Fetch at the high watermark.
 */
export async function partitionOffsets(
  admin: Admin,
  fetcher: PartitionFetcher,
  tp: TopicPartition,
): Promise<PartitionOffsets> {
  const listed = await mapErrors(`offsets of ${tp.topic}-${tp.partition}`, () => admin.fetchTopicOffsets(tp.topic))
  const p = listed.find((o) => o.partition === tp.partition)
  if (!p) throw new Error(`topic ${tp.topic} has no partition ${tp.partition}`)
  const header = await fetcher.fetch(tp, Number(p.high), 'read_committed', 1)
  return header.offsets
}

export class KafkaLogReader implements LogReader {
  constructor(
    private readonly admin: () => Promise<Admin>,
    private readonly fetcher: PartitionFetcher,
  ) {}

  async offsets(tp: TopicPartition): Promise<PartitionOffsets> {
    return partitionOffsets(await this.admin(), this.fetcher, tp)
  }

  async read(
    tp: TopicPartition,
    from: number,
    maxRecords: number,
    isolation: IsolationLevel,
  ): Promise<{ records: ConsumedRecord[]; nextOffset: number }> {
    if (maxRecords <= 0) return { records: [], nextOffset: from }
    const fetched = await this.fetcher.fetch(tp, from, isolation)
    const visible = visibleRecords(fetched.records, isolation === 'read_committed' ? fetched.abortedTransactions : null)
    const taken = visible.slice(0, maxRecords)
    const records = taken.map((r) => toConsumedRecord(tp, r))
    let nextOffset: number
    if (taken.length < visible.length) nextOffset = records[records.length - 1]!.offset + 1
    else if (fetched.records.length > 0) nextOffset = Number(fetched.records[fetched.records.length - 1]!.offset) + 1
    else nextOffset = from
    return { records, nextOffset }
  }
}

/**
 * Whether [from, to) of the partition holds a record a consumer at this isolation level would be
 * given; a range retention already deleted holds none.
 */
export async function hasVisibleRecords(
  fetcher: PartitionFetcher,
  tp: TopicPartition,
  from: number,
  to: number,
  isolation: IsolationLevel,
): Promise<boolean> {
  let offset = from
  while (offset < to) {
    let fetched: PartitionFetch
    try {
      fetched = await fetcher.fetch(tp, offset, isolation)
    } catch (e) {
      if (isLogError(e, 'OFFSET_OUT_OF_RANGE')) return false
      throw e
    }
    if (fetched.records.length === 0) return false
    const visible = visibleRecords(fetched.records, isolation === 'read_committed' ? fetched.abortedTransactions : null)
    if (visible.some((r) => Number(r.offset) < to)) return true
    offset = Number(fetched.records[fetched.records.length - 1]!.offset) + 1
  }
  return false
}
