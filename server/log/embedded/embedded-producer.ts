// The embedded log's producer: idempotent (a producer id and per-partition sequences) and
// transactional (the client state machine of server/log/producer-state.ts over the transaction
// coordinator). Each request passes the process's gate and costs the latency model's time.

import { LogError } from '../errors.ts'
import { ProducerStateMachine, transactionalIdOf } from '../producer-state.ts'
import type {
  ConsumerGroupMetadata,
  ControlType,
  LogProducer,
  OffsetToCommit,
  ProduceRecord,
  ProducerIdentity,
  ProducerOptions,
  PartitionAck,
} from '../types.ts'
import { tpKey } from '../types.ts'
import { acksOf, groupByPartition, type PartitionGroup } from '../partition-groups.ts'
import type { ProduceBatch, ProduceRequest, ProduceResult } from './embedded-cluster.ts'
import type { EmbeddedConnection } from './embedded-connection.ts'
import { endTxnCostMs } from './latency-model.ts'
import { NO_PRODUCER_ID, NO_SEQUENCE } from './partition-log.ts'

/** How long a producer waits for a response it will never get before it retries (request.timeout.ms, shortened). */
const ACK_TIMEOUT_MS = 20

export class EmbeddedProducer implements LogProducer {
  private readonly machine: ProducerStateMachine
  private producerId = NO_PRODUCER_ID
  private epoch = 0
  private readonly sequences = new Map<string, number>()
  private readonly txnPartitions = new Set<string>()
  private readonly transactionalId: string | null
  private initialized = false

  constructor(
    private readonly conn: EmbeddedConnection,
    private readonly options: ProducerOptions,
  ) {
    this.transactionalId = transactionalIdOf(options)
    this.machine = new ProducerStateMachine(
      () => `${this.producerId} (${this.transactionalId ?? this.options.clientId})`,
    )
  }

  identity(): ProducerIdentity | null {
    return this.producerId === NO_PRODUCER_ID
      ? null
      : { transactionalId: this.transactionalId, producerId: this.producerId, epoch: this.epoch }
  }

  async initTransactions(): Promise<ProducerIdentity> {
    if (this.transactionalId === null)
      throw new LogError('INVALID_REQUEST', 'initTransactions needs a transactional.id')
    this.machine.require('initTransactions')
    const c = this.conn.cluster
    const tid = this.transactionalId
    const r = await this.conn.request(c.latency.requestMs, () =>
      c.initProducerId(tid, this.options.transactionTimeoutMs ?? 60_000),
    )
    this.producerId = r.producerId
    this.setEpoch(r.epoch)
    this.machine.transitionTo('READY')
    this.initialized = true
    return this.identity()!
  }

  private setEpoch(epoch: number): void {
    if (epoch !== this.epoch) this.sequences.clear()
    this.epoch = epoch
  }

  beginTransaction(): void {
    this.machine.require('beginTransaction')
    this.txnPartitions.clear()
    this.machine.transitionTo('TRANSACTING')
  }

  private async ensureIdempotentInit(): Promise<void> {
    if (this.initialized) return
    if (this.options.idempotent) {
      const c = this.conn.cluster
      const r = await this.conn.request(c.latency.requestMs, () => c.initProducerId(null, 0))
      this.producerId = r.producerId
      this.epoch = r.epoch
    }
    this.initialized = true
    this.machine.transitionTo('READY')
  }

  async send(records: ProduceRecord[]): Promise<PartitionAck[]> {
    if (records.length === 0) return []
    if (this.transactionalId === null) {
      this.machine.requireOpen()
      await this.ensureIdempotentInit()
      return this.produce(records)
    }
    this.machine.require('send')
    try {
      return await this.produce(records)
    } catch (e) {
      this.machine.fail('send', e)
    }
  }

  private async produce(records: ProduceRecord[]): Promise<PartitionAck[]> {
    const c = this.conn.cluster
    const groups = groupByPartition(records)
    if (this.transactionalId !== null) await this.addPartitionsToTxn(this.transactionalId, groups)
    const batches: ProduceBatch[] = []
    for (const g of groups) {
      let baseSequence = NO_SEQUENCE
      if (this.options.idempotent) {
        baseSequence = this.sequences.get(g.key) ?? 0
        this.sequences.set(g.key, baseSequence + g.records.length)
      }
      batches.push({ topic: g.topic, partition: g.partition, baseSequence, records: g.records })
    }
    const request = {
      producerId: this.options.idempotent ? this.producerId : NO_PRODUCER_ID,
      epoch: this.epoch,
      transactionalId: this.transactionalId,
      batches,
    }
    const results = await this.produceUntilAcked(request)
    if (c.latency.requestMs > 0) await this.conn.request(c.latency.requestMs, () => undefined)
    return acksOf(
      groups,
      results.map((r) => r.baseOffset),
    )
  }

  private async addPartitionsToTxn(tid: string, groups: readonly PartitionGroup<ProduceRecord>[]): Promise<void> {
    const added = groups
      .filter((g) => !this.txnPartitions.has(g.key))
      .map((g) => ({ topic: g.topic, partition: g.partition }))
    if (added.length === 0) return
    const c = this.conn.cluster
    await this.conn.request(c.latency.requestMs, () => c.addPartitionsToTxn(tid, this.producerId, this.epoch, added))
    for (const tp of added) this.txnPartitions.add(tpKey(tp.topic, tp.partition))
  }

  /** The ack can be lost after the broker appended: the producer times out and sends the same request again. */
  private async produceUntilAcked(request: ProduceRequest): Promise<ProduceResult[]> {
    const c = this.conn.cluster
    let results = await this.conn.request(0, () => c.produce(request))
    if (this.conn.faults.sendFailures.take())
      throw new LogError(
        'BROKER_NOT_AVAILABLE',
        `${this.options.clientId}: the connection was lost after the broker appended the batch (fault point)`,
      )
    while (this.conn.faults.ackDrops.take()) {
      this.conn.faults.notify({
        clientId: this.options.clientId,
        producerId: request.producerId,
        epoch: this.epoch,
        idempotent: this.options.idempotent,
        batches: request.batches.map((b, i) => ({
          topic: b.topic,
          partition: b.partition,
          baseSequence: b.baseSequence,
          baseOffset: results[i]!.baseOffset,
          count: b.records.length,
        })),
        atMs: c.time.now(),
      })
      await c.time.sleep(ACK_TIMEOUT_MS)
      results = await this.conn.request(0, () => c.produce(request))
    }
    return results
  }

  async sendOffsetsToTransaction(offsets: OffsetToCommit[], group: ConsumerGroupMetadata): Promise<void> {
    this.machine.require('sendOffsets')
    const c = this.conn.cluster
    const tid = this.transactionalId!
    try {
      await this.conn.request(c.latency.requestMs, () =>
        c.addOffsetsToTxn(tid, this.producerId, this.epoch, group.groupId),
      )
      const member = group.generationId >= 0 ? { memberId: group.memberId, generationId: group.generationId } : null
      await this.conn.request(c.latency.requestMs, () =>
        c.txnOffsetCommit(tid, this.producerId, this.epoch, group.groupId, offsets, member),
      )
    } catch (e) {
      this.machine.fail('sendOffsets', e)
    }
  }

  commitTransaction(): Promise<void> {
    return this.machine.endTransaction('COMMIT', () => this.endTxn('COMMIT'))
  }

  abortTransaction(): Promise<void> {
    return this.machine.endTransaction('ABORT', () => this.endTxn('ABORT'))
  }

  private async endTxn(result: ControlType): Promise<void> {
    const c = this.conn.cluster
    const tid = this.transactionalId!
    const markers = this.txnPartitions.size + 1
    const r = await this.conn.request(endTxnCostMs(c.latency, markers), () =>
      c.endTxn(tid, this.producerId, this.epoch, result),
    )
    this.setEpoch(r.epoch)
    this.txnPartitions.clear()
  }

  async close(): Promise<void> {
    this.machine.close()
  }
}
