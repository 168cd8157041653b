// Raw access for audits: every stored record with its batch's producer fields, control markers
// included, and each transactional record's outcome (the producer's next marker in the partition).

import { AssignerProtocol, type Admin } from 'kafkajs'
import { groupStateOf, type GroupDescription } from '../group-description.ts'
import type {
  LogInspector,
  OffsetToCommit,
  PartitionOffsets,
  ProducerToAbort,
  StoredRecordView,
  TopicPartition,
  TransactionsFilter,
  TransactionsRead,
  TxnOutcome,
} from '../types.ts'
import { mapErrors } from './kafka-errors.ts'
import { controlType, toStoredView } from './kafka-records.ts'
import type { RawFetchedRecord } from './kafka-client.ts'
import type { PartitionFetcher } from './partition-fetcher.ts'
import { partitionOffsets } from './kafka-reader.ts'
import type { KafkaTransactionAdmin } from './kip664/kafka-transaction-admin.ts'

export class KafkaLogInspector implements LogInspector {
  readonly sharedCluster = true
  constructor(
    private readonly admin: () => Promise<Admin>,
    private readonly fetcher: PartitionFetcher,
    /** KIP-664's requests (ListTransactions, DescribeTransactions, DescribeProducers, WriteTxnMarkers). */
    private readonly txnAdmin: () => KafkaTransactionAdmin,
  ) {}

  transactions(partitions: readonly TopicPartition[], filter?: TransactionsFilter): Promise<TransactionsRead> {
    return mapErrors('describe transactions', () => this.txnAdmin().transactions(partitions, filter))
  }

  abortTransaction(p: ProducerToAbort): Promise<void> {
    return mapErrors(`abort the transaction of producer ${p.producerId} on ${p.topic}-${p.partition}`, () =>
      this.txnAdmin().abortTransaction(p),
    )
  }

  async topics(): Promise<{ topic: string; partitions: number }[]> {
    const admin = await this.admin()
    return mapErrors('list topics', async () => {
      const names = await admin.listTopics()
      if (names.length === 0) return []
      const { topics } = await admin.fetchTopicMetadata({ topics: names })
      return topics
        .map((t) => ({ topic: t.name, partitions: t.partitions.length }))
        .sort((a, b) => a.topic.localeCompare(b.topic))
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
        ? control === 'COMMIT'
          ? 'committed'
          : 'aborted'
        : r.batchContext.inTransaction
          ? (outcome.get(r) ?? 'pending')
          : null
      return toStoredView(tp, r, txnOutcome)
    })
  }

  async committedOffsets(groupId: string): Promise<OffsetToCommit[]> {
    const admin = await this.admin()
    return mapErrors(`committed offsets of group ${groupId}`, async () => {
      const topics = await admin.fetchOffsets({ groupId })
      const out: OffsetToCommit[] = []
      for (const t of topics)
        for (const p of t.partitions)
          if (Number(p.offset) >= 0) out.push({ topic: t.topic, partition: p.partition, offset: Number(p.offset) })
      return out.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
    })
  }

  /**
   * DescribeGroups through kafkajs's admin. Its answer (every version of the classic protocol) has
   * no generation: generationId is null, and the lab takes it from the members' own
   * ConsumerGroupMetadata. Each member's assignment is decoded from the consumer protocol's bytes.
   */
  async describeGroup(groupId: string): Promise<GroupDescription> {
    const admin = await this.admin()
    return mapErrors(`describe group ${groupId}`, async () => {
      const g = (await admin.describeGroups([groupId])).groups[0]
      if (!g) return { groupId, state: 'Dead', generationId: null, protocolType: '', protocol: '', members: [] }
      const members = g.members.map((m) => {
        const decoded =
          m.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment) : null
        const assignment = Object.entries(decoded?.assignment ?? {}).flatMap(([topic, ps]) =>
          ps.map((partition) => ({ topic, partition })),
        )
        assignment.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
        return { memberId: m.memberId, clientId: m.clientId, host: m.clientHost.replace(/^\//, ''), assignment }
      })
      members.sort((a, b) => (a.memberId < b.memberId ? -1 : 1))
      return {
        groupId,
        state: groupStateOf(g.state),
        generationId: null,
        protocolType: g.protocolType,
        protocol: g.protocol,
        members,
      }
    })
  }
}
