// Raw access for audits: every stored record with its batch's producer fields, control markers
// included, and each transactional record's outcome (the producer's next marker in the partition).

import type { Admin } from 'kafkajs'
import type { LogInspector, OffsetToCommit, PartitionOffsets, StoredRecordView, TopicPartition, TxnOutcome } from '../types.ts'
import { mapErrors } from './kafka-errors.ts'
import { controlType, toStoredView } from './kafka-records.ts'
import type { RawFetchedRecord } from './kafka-client.ts'
import type { PartitionFetcher } from './partition-fetcher.ts'
import { partitionOffsets } from './kafka-reader.ts'

export class KafkaLogInspector implements LogInspector {
  readonly sharedCluster = true
  constructor(
    private readonly admin: () => Promise<Admin>,
    private readonly fetcher: PartitionFetcher,
  ) {}

  async topics(): Promise<{ topic: string; partitions: number }[]> {
    const admin = await this.admin()
    return mapErrors('list topics', async () => {
      const names = await admin.listTopics()
      if (names.length === 0) return []
      const { topics } = await admin.fetchTopicMetadata({ topics: names })
      return topics.map((t) => ({ topic: t.name, partitions: t.partitions.length })).sort((a, b) => a.topic.localeCompare(b.topic))
    })
  }

  async offsets(tp: TopicPartition): Promise<PartitionOffsets> {
    return partitionOffsets(await this.admin(), this.fetcher, tp)
  }

  /**
   * Stored records in [from, to). A transactional record's outcome is decided by its producer's
   * next control marker in the partition, so the scan goes on past `to` (up to the high
   * watermark) until every producer seen has one; a producer with none is still `pending`.
   */
  async readRaw(tp: TopicPartition, from: number, to: number, maxRecords: number): Promise<StoredRecordView[]> {
    const offsets = await this.offsets(tp)
    let position = Math.max(from, offsets.logStartOffset)
    const end = Math.min(to, offsets.highWatermark)
    const wanted: RawFetchedRecord[] = []
    // Producer id -> offsets of its transactional records still waiting for a marker.
    const open = new Map<string, RawFetchedRecord[]>()
    const outcome = new Map<RawFetchedRecord, TxnOutcome>()
    const settle = (r: RawFetchedRecord) => {
      const type = controlType(r)
      const waiting = open.get(r.batchContext.producerId)
      if (type === null || !waiting) return
      for (const w of waiting) outcome.set(w, type === 'COMMIT' ? 'committed' : 'aborted')
      open.delete(r.batchContext.producerId)
    }
    const needMore = () => position < end && wanted.length < maxRecords
    while (position < offsets.highWatermark && (needMore() || open.size > 0)) {
      const fetched = await this.fetcher.fetch(tp, position, 'read_uncommitted')
      if (fetched.records.length === 0) break
      for (const r of fetched.records) {
        const offset = Number(r.offset)
        if (offset < end && wanted.length < maxRecords) {
          wanted.push(r)
          if (r.batchContext.inTransaction && !r.isControlRecord) {
            const list = open.get(r.batchContext.producerId) ?? []
            list.push(r)
            open.set(r.batchContext.producerId, list)
          }
        }
        settle(r)
      }
      position = Number(fetched.records[fetched.records.length - 1]!.offset) + 1
    }
    return wanted.map((r) => {
      const control = controlType(r)
      const txnOutcome: TxnOutcome | null = control
        ? control === 'COMMIT' ? 'committed' : 'aborted'
        : r.batchContext.inTransaction ? (outcome.get(r) ?? 'pending') : null
      return toStoredView(tp, r, txnOutcome)
    })
  }

  async committedOffsets(groupId: string): Promise<OffsetToCommit[]> {
    const admin = await this.admin()
    return mapErrors(`committed offsets of group ${groupId}`, async () => {
      const topics = await admin.fetchOffsets({ groupId })
      const out: OffsetToCommit[] = []
      for (const t of topics) for (const p of t.partitions) if (Number(p.offset) >= 0) out.push({ topic: t.topic, partition: p.partition, offset: Number(p.offset) })
      return out.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
    })
  }
}
