// The producer: idempotent (at_least_once) or transactional (exactly_once), on kafkajs.
//
// kafkajs fetches the transactional producer id, and so fences the previous owner of the
// transactional.id and aborts its open transaction, at the first `producer.transaction()` call,
// not at connect. initTransactions therefore opens a transaction and aborts it at once: nothing
// was added to it, so kafkajs sends no EndTxn, and the fence happens at init time as in Java.

import type { Producer, RecordMetadata as KafkajsRecordMetadata, Transaction } from 'kafkajs'
import { LogError, isLogError } from '../errors.ts'
import { ProducerStateMachine, transactionalIdOf, type TransactionalCall } from '../producer-state.ts'
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
import { createKafka, type KafkaClientConfig } from './kafka-client.ts'
import { toLogError } from './kafka-errors.ts'
import { toKafkajsMessage } from './kafka-records.ts'
import { byTopic, topicPartitionsOf } from './topic-partitions.ts'
import { acksOf } from '../partition-groups.ts'
import { sendPerPartition } from './partition-sends.ts'

// exactly_once_v2 fences a zombie's offsets by the group generation (KIP-447): TxnOffsetCommit v3.

/**
 * AddOffsetsToTxn inside kafkajs's sendOffsets is not retried on CONCURRENT_TRANSACTIONS, its
 * TxnOffsetCommit retries run out while a new broker is still loading the offsets topic, and the
 * first AddPartitionsToTxn after a commit is refused until the coordinator has written its markers:
 * retry retriable failures here, for up to this long.
 */
const TRANSACTIONAL_RETRY_DEADLINE_MS = 15_000
/**
 * The first backoff of a retried transactional request, doubling: the first AddPartitionsToTxn
 * after EndTxn is refused with CONCURRENT_TRANSACTIONS until the coordinator has written the
 * previous transaction's markers, a few milliseconds on a local broker.
 */
const RETRY_BACKOFF_MS = 2
/** How long initTransactions retries a retriable answer (CONCURRENT_TRANSACTIONS, a coordinator loading). */
const INIT_DEADLINE_MS = 30_000
const INIT_BACKOFF_MS = 10
const PRODUCE_RETRIES = 20

export class KafkaLogProducer implements LogProducer {
  private readonly machine: ProducerStateMachine
  private producer: Producer
  private connected: Promise<void> | null = null
  private txn: Promise<Transaction> | null = null
  private readonly transactionalId: string | null

  constructor(
    private readonly config: KafkaClientConfig,
    private readonly options: ProducerOptions,
  ) {
    this.transactionalId = transactionalIdOf(options)
    this.producer = this.createProducer()
    this.machine = new ProducerStateMachine(() => `${this.pid?.producerId ?? '?'} (${this.name()})`)
  }

  private createProducer(): Producer {
    const kafka = createKafka(this.config, this.options.clientId)
    return kafka.producer({
      idempotent: this.options.idempotent,
      transactionalId: this.transactionalId ?? undefined,
      transactionTimeout: this.options.transactionTimeoutMs,
      maxInFlightRequests: this.options.idempotent ? 1 : undefined,
      allowAutoTopicCreation: false,
      // Bounded, so that a broker that is gone fails the call instead of hanging it (kafkajs's
      // warning about limited idempotent retries is silenced in kafka-client.ts).
      retry: { initialRetryTime: 20, maxRetryTime: 1_000, retries: PRODUCE_RETRIES },
    })
  }

  /** The producer id and epoch of the client's last InitProducerId (the patch's identity()); null before any. */
  private get pid(): { producerId: number; epoch: number } | null {
    const id = this.producer.identity()
    return id && { producerId: Number(id.producerId), epoch: Number(id.producerEpoch) }
  }

  identity(): ProducerIdentity | null {
    const pid = this.pid
    return pid && { transactionalId: this.transactionalId, producerId: pid.producerId, epoch: pid.epoch }
  }

  private name(): string {
    return this.transactionalId ?? this.options.clientId
  }

  /** Maps a kafkajs failure and moves the state machine (a fenced producer stays unusable). */
  private fail(e: unknown, call: TransactionalCall, what: string = call): never {
    this.machine.fail(call, toLogError(e, `${what} (${this.name()})`))
  }

  private connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((e) => {
      this.connected = null
      throw e
    })
    return this.connected
  }

  async initTransactions(): Promise<ProducerIdentity> {
    if (this.transactionalId === null)
      throw new LogError('INVALID_REQUEST', 'initTransactions needs a transactional.id')
    this.machine.require('initTransactions')
    if (this.machine.state === 'READY') {
      // kafkajs initialises a producer id once per client: a second init needs a new client.
      await this.producer.disconnect().catch(() => {})
      this.producer = this.createProducer()
      this.connected = null
    }
    // InitProducerId answers CONCURRENT_TRANSACTIONS while the coordinator still completes the
    // previous owner's transaction (its abort markers): retriable, so retry it, on a fresh client.
    const deadline = Date.now() + INIT_DEADLINE_MS
    for (let attempt = 1; ; attempt++) {
      try {
        await this.connect()
        const txn = await this.producer.transaction()
        await txn.abort()
        break
      } catch (e) {
        const mapped = toLogError(e, `initTransactions (${this.name()})`)
        if (isLogError(mapped) && mapped.retriable && Date.now() < deadline) {
          await this.producer.disconnect().catch(() => {})
          this.producer = this.createProducer()
          this.connected = null
          await new Promise((r) => setTimeout(r, Math.min(500, INIT_BACKOFF_MS * 2 ** (attempt - 1))))
          continue
        }
        this.fail(e, 'initTransactions')
      }
    }
    this.machine.transitionTo('READY')
    const id = this.identity()
    if (!id)
      throw new LogError(
        'INVALID_TXN_STATE',
        `initTransactions for ${this.transactionalId}: the producer id was not reported (is KAFKAJS_LOG_LEVEL set?)`,
      )
    return id
  }

  beginTransaction(): void {
    this.machine.require('beginTransaction')
    const txn = this.producer.transaction()
    // A failure shows at the next call that awaits it.
    txn.catch(() => {})
    this.txn = txn
    this.machine.transitionTo('TRANSACTING')
  }

  async send(records: ProduceRecord[]): Promise<PartitionAck[]> {
    if (records.length === 0) return []
    if (this.transactionalId !== null) this.machine.require('send')
    else this.machine.requireOpen()
    let sent: Awaited<ReturnType<typeof sendPerPartition>>
    try {
      const txn = this.transactionalId !== null ? await this.txn! : null
      if (txn === null) await this.connect()
      // Every partition of this send joins the transaction in one AddPartitionsToTxn first: each
      // per-partition call below would otherwise send its own, one after the other.
      else await this.untilNotRetriable('send', () => txn.addPartitions(topicPartitionsOf(records)))
      // One call per partition (see partition-sends.ts: kafkajs re-sends a multi-broker call's
      // in-flight requests with new sequence numbers).
      sent = await sendPerPartition(records, async (p) => {
        const topicMessages = [{ topic: p.topic, messages: p.records.map(toKafkajsMessage) }]
        const result: KafkajsRecordMetadata[] = await (txn ?? this.producer).sendBatch({ topicMessages, acks: -1 })
        const mine = result.find((m) => m.topicName === p.topic && m.partition === p.partition)
        if (!mine) throw new LogError('INVALID_REQUEST', `no produce response for ${p.topic}-${p.partition}`)
        return Number(mine.baseOffset)
      })
    } catch (e) {
      this.fail(e, 'send')
    }
    // kafkajs writes one batch per partition: its records' offsets follow the base offset.
    return acksOf(sent.groups, sent.baseOffsets)
  }

  async sendOffsetsToTransaction(offsets: OffsetToCommit[], group: ConsumerGroupMetadata): Promise<void> {
    this.machine.require('sendOffsets')
    const topics = [...byTopic(offsets)].map(([topic, os]) => ({
      topic,
      partitions: os.map((o) => ({ partition: o.partition, offset: String(o.offset) })),
    }))
    try {
      await this.untilNotRetriable('sendOffsetsToTransaction', async () => {
        const txn = await this.txn!
        // The member whose offsets these are (exactly_once_v2: TxnOffsetCommit v3 fences a zombie by
        // its generation); none under exactly_once (generation -1: fenced by the task's own epoch).
        const consumerGroupMetadata =
          group.generationId < 0 ? undefined : { generationId: group.generationId, memberId: group.memberId }
        await txn.sendOffsets({ consumerGroupId: group.groupId, topics, consumerGroupMetadata })
      })
    } catch (e) {
      this.fail(e, 'sendOffsets', 'sendOffsetsToTransaction')
    }
  }

  /**
   * Runs a transactional request again while its answer is retriable (CONCURRENT_TRANSACTIONS while
   * the coordinator still writes the previous transaction's markers, a coordinator loading), with
   * a short doubling backoff, for up to TRANSACTIONAL_RETRY_DEADLINE_MS; then throws its last failure.
   */
  private async untilNotRetriable(what: string, request: () => Promise<unknown>): Promise<void> {
    const deadline = Date.now() + TRANSACTIONAL_RETRY_DEADLINE_MS
    for (let attempt = 1; ; attempt++) {
      try {
        await request()
        return
      } catch (e) {
        const mapped = toLogError(e, `${what} (${this.name()})`)
        if (!isLogError(mapped) || !mapped.retriable || Date.now() >= deadline) throw e
        await new Promise((r) => setTimeout(r, Math.min(200, RETRY_BACKOFF_MS * 2 ** (attempt - 1))))
      }
    }
  }

  commitTransaction(): Promise<void> {
    return this.machine.endTransaction(
      'COMMIT',
      () => this.endTxn('COMMIT'),
      (e) => toLogError(e, `commitTransaction (${this.name()})`),
    )
  }

  abortTransaction(): Promise<void> {
    return this.machine.endTransaction(
      'ABORT',
      () => this.endTxn('ABORT'),
      (e) => toLogError(e, `abortTransaction (${this.name()})`),
    )
  }

  private async endTxn(result: ControlType): Promise<void> {
    const txn = await this.txn!
    await (result === 'COMMIT' ? txn.commit() : txn.abort())
    this.txn = null
  }

  async close(): Promise<void> {
    if (this.machine.state === 'CLOSED') return
    this.machine.close()
    await this.producer.disconnect().catch(() => {})
  }
}
