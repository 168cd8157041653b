// The embedded broker: topics of partitions, the transaction coordinator, group coordinators and
// the internal offsets log, in-process. Requests here are synchronous; the clients add the
// latency model's time around them.

import { LogError } from '../errors.ts'
import type { ConsumedRecord, ControlType, OffsetToCommit, TopicPartition, TopicSpec } from '../types.ts'
import type { Time } from '../time.ts'
import type { IsolationLevel } from '../../../lib/streams-config.ts'
import { type DataRecord, NO_PRODUCER_ID, NO_SEQUENCE, PartitionLog } from './partition-log.ts'
import { TransactionCoordinator, type TxnEnded } from './transaction-coordinator.ts'
import { GroupCoordinator, type GroupEvent } from './group-coordinator.ts'
import { LATENCY_OFF, type LatencyModel } from './latency-model.ts'

export const OFFSETS_TOPIC = '__consumer_offsets'

export interface ProduceBatch {
  topic: string
  partition: number
  baseSequence: number
  records: readonly DataRecord[]
}

export interface ProduceRequest {
  producerId: number
  epoch: number
  transactionalId: string | null
  batches: readonly ProduceBatch[]
}

export interface ProduceResult {
  topic: string
  partition: number
  baseOffset: number
  duplicate: boolean
}

export type BrokerEvent =
  | ({ type: 'txn-ended' } & TxnEnded)
  | ({ type: 'group' } & { groupId: string; event: GroupEvent })
  | {
      type: 'retry-deduplicated'
      producerId: number
      epoch: number
      topic: string
      partition: number
      baseSequence: number
      count: number
      baseOffset: number
      atMs: number
    }

export interface RetentionPolicy {
  maxRecords?: number
  maxAgeMs?: number
}

export class EmbeddedCluster {
  private readonly topics = new Map<string, { spec: TopicSpec; partitions: PartitionLog[] }>()
  readonly txnCoordinator: TransactionCoordinator
  private readonly groups = new Map<string, GroupCoordinator>()
  private readonly listeners: ((e: BrokerEvent) => void)[] = []
  latency: LatencyModel

  constructor(
    readonly time: Time,
    options: { latency?: LatencyModel } = {},
  ) {
    this.latency = options.latency ?? LATENCY_OFF
    this.createTopic({ topic: OFFSETS_TOPIC, partitions: 1, compacted: true })
    this.txnCoordinator = new TransactionCoordinator(
      {
        writeMarker: (tp, pid, epoch, type) => {
          const log = this.partitionLog(tp)
          const held = log.heldBy(pid)
          log.writeMarker(pid, epoch, type, this.time.now())
          return held && { topic: tp.topic, partition: tp.partition, ...held }
        },
        completeGroupTxn: (groupId, pid, type) => this.group(groupId).completeTxn(pid, type),
      },
      () => this.time.now(),
    )
    this.txnCoordinator.onTxnEnded((e) => this.emit({ type: 'txn-ended', ...e }))
  }

  onEvent(listener: (e: BrokerEvent) => void): () => void {
    this.listeners.push(listener)
    return () => {
      const i = this.listeners.indexOf(listener)
      if (i >= 0) this.listeners.splice(i, 1)
    }
  }
  private emit(e: BrokerEvent): void {
    for (const l of this.listeners) l(e)
  }

  // ---- topics -------------------------------------------------------------------------------

  createTopic(spec: TopicSpec): void {
    if (this.topics.has(spec.topic)) throw new LogError('TOPIC_ALREADY_EXISTS', `topic ${spec.topic} already exists`)
    if (!Number.isInteger(spec.partitions) || spec.partitions < 1 || spec.partitions > 1000) {
      throw new LogError('INVALID_REQUEST', `topic ${spec.topic}: partitions must be an integer in [1, 1000]`)
    }
    const partitions = Array.from({ length: spec.partitions }, (_, p) => new PartitionLog(spec.topic, p))
    this.topics.set(spec.topic, { spec, partitions })
  }
  deleteTopic(topic: string): void {
    this.topics.delete(topic)
  }
  hasTopic(topic: string): boolean {
    return this.topics.has(topic)
  }
  topicSpecs(): TopicSpec[] {
    return [...this.topics.values()].map((t) => t.spec)
  }
  partitionCount(topic: string): number {
    const t = this.topics.get(topic)
    if (!t) throw new LogError('UNKNOWN_TOPIC_OR_PARTITION', `unknown topic ${topic}`)
    return t.partitions.length
  }
  partitionLog(tp: TopicPartition): PartitionLog {
    const p = this.topics.get(tp.topic)?.partitions[tp.partition]
    if (!p) throw new LogError('UNKNOWN_TOPIC_OR_PARTITION', `unknown partition ${tp.topic}-${tp.partition}`)
    return p
  }

  // ---- produce and fetch --------------------------------------------------------------------

  /** Produce: each partition's batch is checked and appended on its own, as on a broker. */
  produce(req: ProduceRequest): ProduceResult[] {
    const now = this.time.now()
    if (req.transactionalId !== null) this.txnCoordinator.expireTimedOut()
    const results: ProduceResult[] = []
    for (const b of req.batches) {
      const log = this.partitionLog(b)
      if (
        req.transactionalId !== null &&
        !this.txnCoordinator.isPartitionInTxn(req.transactionalId, req.producerId, req.epoch, b)
      ) {
        throw new LogError(
          'INVALID_TXN_STATE',
          `${b.topic}-${b.partition} was not added to the transaction of ${req.transactionalId}`,
        )
      }
      const r = log.append(
        {
          producerId: req.producerId,
          producerEpoch: req.epoch,
          baseSequence: b.baseSequence,
          transactional: req.transactionalId !== null,
        },
        b.records,
        now,
      )
      if (r.duplicate) {
        this.emit({
          type: 'retry-deduplicated',
          producerId: req.producerId,
          epoch: req.epoch,
          topic: b.topic,
          partition: b.partition,
          baseSequence: b.baseSequence,
          count: b.records.length,
          baseOffset: r.baseOffset,
          atMs: now,
        })
      }
      results.push({ topic: b.topic, partition: b.partition, baseOffset: r.baseOffset, duplicate: r.duplicate })
    }
    return results
  }

  fetch(
    tp: TopicPartition,
    from: number,
    maxRecords: number,
    isolation: IsolationLevel,
  ): { records: ConsumedRecord[]; nextOffset: number } {
    return this.partitionLog(tp).read(from, maxRecords, isolation)
  }

  // ---- transactions -------------------------------------------------------------------------

  initProducerId(transactionalId: string | null, transactionTimeoutMs: number): { producerId: number; epoch: number } {
    if (transactionalId === null) return { producerId: this.txnCoordinator.allocateProducerId(), epoch: 0 }
    return this.txnCoordinator.initProducerId(transactionalId, transactionTimeoutMs)
  }

  addPartitionsToTxn(
    transactionalId: string,
    producerId: number,
    epoch: number,
    partitions: readonly TopicPartition[],
  ): void {
    for (const tp of partitions) this.partitionLog(tp)
    this.txnCoordinator.addPartitions(transactionalId, producerId, epoch, partitions)
  }

  addOffsetsToTxn(transactionalId: string, producerId: number, epoch: number, groupId: string): void {
    this.txnCoordinator.addOffsets(transactionalId, producerId, epoch, groupId, { topic: OFFSETS_TOPIC, partition: 0 })
  }

  txnOffsetCommit(
    transactionalId: string,
    producerId: number,
    epoch: number,
    groupId: string,
    offsets: readonly OffsetToCommit[],
    member: { memberId: string; generationId: number } | null,
  ): void {
    if (!this.txnCoordinator.isGroupInTxn(transactionalId, producerId, epoch, groupId)) {
      throw new LogError(
        'INVALID_TXN_STATE',
        `group ${groupId} was not added to the transaction of ${transactionalId} (AddOffsetsToTxn first)`,
      )
    }
    this.group(groupId).txnOffsetCommit(producerId, epoch, offsets, member)
  }

  /** Ends the transaction; returns the new epoch and how many markers were written. */
  endTxn(
    transactionalId: string,
    producerId: number,
    epoch: number,
    result: ControlType,
  ): { epoch: number; markers: number } {
    const meta = this.txnCoordinator.metadata(transactionalId)
    const markers = meta?.state === 'Ongoing' ? meta.partitions.size : 0
    const r = this.txnCoordinator.endTxn(transactionalId, producerId, epoch, result)
    return { epoch: r.epoch, markers }
  }

  // ---- groups -------------------------------------------------------------------------------

  group(groupId: string): GroupCoordinator {
    let g = this.groups.get(groupId)
    if (!g) {
      g = new GroupCoordinator(
        groupId,
        {
          appendOffsets: (gid, offsets, txn) => {
            const records = offsets.map((o) => ({ key: `${gid}:${o.topic}:${o.partition}`, value: String(o.offset) }))
            this.partitionLog({ topic: OFFSETS_TOPIC, partition: 0 }).append(
              {
                producerId: txn?.producerId ?? NO_PRODUCER_ID,
                producerEpoch: txn?.epoch ?? 0,
                baseSequence: NO_SEQUENCE,
                transactional: txn !== null,
              },
              records,
              this.time.now(),
            )
          },
          offsetsPartition: () => ({ topic: OFFSETS_TOPIC, partition: 0 }),
        },
        () => this.time.now(),
        (fromMs) => this.time.frozenSince?.(fromMs) ?? 0,
      )
      g.onEvent((event) => this.emit({ type: 'group', groupId, event }))
      this.groups.set(groupId, g)
    }
    return g
  }

  groupIds(): string[] {
    return [...this.groups.keys()]
  }

  /** The broker's periodic work: session expiry and transaction timeouts. */
  tick(): void {
    this.txnCoordinator.expireTimedOut()
    for (const g of this.groups.values()) g.expireMembers()
  }

  /**
   * Retention, as a broker's log cleaner applies it: compacted topics (changelogs, the offsets
   * topic) keep the latest record per key; the others drop their oldest records by size or age,
   * never past what `keepFrom` says a reader still needs. Returns records removed.
   */
  applyRetention(policy: RetentionPolicy, keepFrom?: (tp: TopicPartition) => number): number {
    let removed = 0
    const now = this.time.now()
    for (const { spec, partitions } of this.topics.values()) {
      for (const p of partitions) {
        if (spec.compacted) removed += p.maybeCompact()
        else removed += p.applyRetention(policy, now, keepFrom?.(p) ?? Number.POSITIVE_INFINITY)
      }
    }
    return removed
  }
}
