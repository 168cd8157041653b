// The one seam where transactions begin, commit and abort (like Kafka Streams' StreamsProducer).
// Under at_least_once it is a plain (optionally idempotent) producer; under exactly_once one per
// task with transactional.id = application.id + task id; under exactly_once_v2 one per worker.

import type { ConsumerGroupMetadata, LogConnection, LogProducer, OffsetToCommit, ProduceRecord } from '../log/types.ts'
import { ProcessKilledError } from '../log/errors.ts'
import type { Time } from '../log/time.ts'
import type { TelemetrySink } from './telemetry.ts'
import {
  StreamsError,
  TaskCorruptedError,
  TaskMigratedError,
  isMigrationError,
  isSendOutcomeUnknown,
} from './errors.ts'
import { isRetriable, KAFKA_CLIENT_DEADLINES_MS, retryRetriableUntilDeadline } from './retry-until-deadline.ts'

export interface StreamsProducerOptions {
  workerId: string
  clientId: string
  transactionalId: string | null
  idempotent: boolean
  transactionTimeoutMs: number
  changelogTopic: string
  /** The tasks whose records go through this producer (for TaskMigratedError). */
  taskIds: () => string[]
}

/** What the producer's transaction requests took (txn-send-offsets-time / txn-commit-time, txn-abort-time). */
type TxnLatency = { endTxnMs?: number; sendOffsetsMs?: number }

export class StreamsProducer {
  private producer: LogProducer
  private inTransaction = false
  private txnBeginMs = 0
  private localTxnId = 0
  private outputRecords = 0
  private changelogRecords = 0
  private readonly partitions = new Set<string>()

  constructor(
    private readonly conn: LogConnection,
    private readonly options: StreamsProducerOptions,
    private readonly time: Time,
    private readonly telemetry: TelemetrySink,
  ) {
    this.producer = this.createProducer()
  }

  get transactional(): boolean {
    return this.options.transactionalId !== null
  }
  get transactionInFlight(): boolean {
    return this.inTransaction
  }
  identity() {
    return this.producer.identity()
  }

  private createProducer(): LogProducer {
    return this.conn.producer({
      clientId: this.options.clientId,
      idempotent: this.options.idempotent,
      transactionalId: this.options.transactionalId ?? undefined,
      transactionTimeoutMs: this.options.transactionTimeoutMs,
    })
  }

  private migrated(e: unknown, what: string): never {
    if (e instanceof ProcessKilledError) throw e
    if (isMigrationError(e)) {
      throw new TaskMigratedError(
        this.options.taskIds(),
        `${what} failed for ${this.options.transactionalId ?? this.options.clientId}: ${(e as Error).message}`,
        { cause: e },
      )
    }
    // A send whose connection went (or timed out) after the client's own retries: the broker may or
    // may not hold the records. As Kafka Streams does with a send timeout, the task is corrupted:
    // its transaction is aborted (under exactly_once) and it is reprocessed from its committed
    // offsets and restored from its changelog, instead of the worker failing. So is any other
    // retriable failure of a send, and of a commit whose retries ran out (the coordinator away):
    // the commit's outcome is unknown, and the restore reads whichever it was.
    if ((what === 'send' || what === 'commitTransaction') && (isSendOutcomeUnknown(e) || isRetriable(e))) {
      throw new TaskCorruptedError(
        this.options.taskIds(),
        `${what} failed for ${this.options.transactionalId ?? this.options.clientId}: ${(e as Error).message}`,
        { cause: e },
      )
    }
    // initTransactions that ran out of retries while the coordinator was away: the caller may try again.
    if (what === 'initTransactions' && isRetriable(e)) throw e
    throw new StreamsError(
      `${what} failed for ${this.options.transactionalId ?? this.options.clientId}: ${(e as Error).message}`,
      { cause: e },
    )
  }

  /** Fences every older epoch of this transactional.id and aborts its open transaction. */
  async initTransaction(): Promise<void> {
    if (!this.transactional) return
    try {
      const id = await this.producer.initTransactions()
      this.telemetry.emit({
        type: 'producer-init',
        workerId: this.options.workerId,
        transactionalId: id.transactionalId,
        producerId: id.producerId,
        epoch: id.epoch,
        atMs: this.time.now(),
      })
    } catch (e) {
      this.migrated(e, 'initTransactions')
    }
  }

  maybeBeginTransaction(): void {
    if (!this.transactional || this.inTransaction) return
    this.producer.beginTransaction()
    this.inTransaction = true
    this.txnBeginMs = this.time.now()
    this.localTxnId += 1
    this.outputRecords = 0
    this.changelogRecords = 0
    this.partitions.clear()
    const id = this.producer.identity()!
    this.telemetry.emit({
      type: 'txn-begin',
      workerId: this.options.workerId,
      transactionalId: this.options.transactionalId!,
      producerId: id.producerId,
      epoch: id.epoch,
      localTxnId: this.localTxnId,
      atMs: this.txnBeginMs,
    })
  }

  /** Sends the records in one request and waits for the broker's ack. */
  async send(records: ProduceRecord[]): Promise<void> {
    if (records.length === 0) return
    this.maybeBeginTransaction()
    try {
      await this.producer.send(records)
    } catch (e) {
      this.migrated(e, 'send')
    }
    if (this.inTransaction) {
      // Records come grouped by topic and partition: name each partition once per run of records.
      let lastTopic = ''
      let lastPartition = -1
      for (let i = 0; i < records.length; i++) {
        const r = records[i]!
        if (r.partition !== lastPartition || r.topic !== lastTopic) {
          this.partitions.add(`${r.topic}-${r.partition}`)
          lastTopic = r.topic
          lastPartition = r.partition
        }
        if (r.topic === this.options.changelogTopic) this.changelogRecords++
        else this.outputRecords++
      }
    }
  }

  /** Offsets and the transaction's records become visible together, or not at all. */
  async commitTransaction(offsets: OffsetToCommit[], group: ConsumerGroupMetadata): Promise<void> {
    if (!this.transactional) throw new StreamsError('commitTransaction on a non-transactional producer')
    if (!this.inTransaction && offsets.length === 0) return
    this.maybeBeginTransaction()
    const id = this.producer.identity()!
    const latency: TxnLatency = {}
    try {
      if (offsets.length > 0) {
        const sentAt = this.time.now()
        await this.producer.sendOffsetsToTransaction(offsets, group)
        latency.sendOffsetsMs = this.time.now() - sentAt
      }
      const endAt = this.time.now()
      await this.producer.commitTransaction()
      latency.endTxnMs = this.time.now() - endAt
    } catch (e) {
      this.migrated(e, 'commitTransaction')
    }
    this.inTransaction = false
    this.emitEnd(id.producerId, id.epoch, 'committed', null, offsets.length, latency)
  }

  /** Aborts the open transaction if there is one. A fenced producer cannot abort: its coordinator already did. */
  async abortTransaction(reason: 'error' | 'fenced'): Promise<void> {
    if (!this.inTransaction) return
    const id = this.producer.identity()!
    this.inTransaction = false
    const endAt = this.time.now()
    const latency: TxnLatency = {}
    try {
      // A connection just lost (the send's) is re-established by the client's next request, a
      // coordinator away is found again: retried as Java's abortTransaction does, for max.block.ms.
      await retryRetriableUntilDeadline(
        this.time,
        { deadlineMs: KAFKA_CLIENT_DEADLINES_MS['max.block.ms'], initialBackoffMs: 200 },
        () => this.producer.abortTransaction(),
      )
      latency.endTxnMs = this.time.now() - endAt
    } catch (e) {
      if (e instanceof ProcessKilledError) throw e
      if (!isMigrationError(e)) throw e
      // Fenced: the new owner's InitProducerId (or the timeout) aborted it already (no EndTxn of ours completed).
    }
    this.emitEnd(id.producerId, id.epoch, 'aborted', reason, 0, latency)
  }

  private emitEnd(
    producerId: number,
    epoch: number,
    outcome: 'committed' | 'aborted',
    reason: 'error' | 'fenced' | null,
    offsets: number,
    latency: TxnLatency,
  ): void {
    this.telemetry.emit({
      type: 'txn-end',
      workerId: this.options.workerId,
      transactionalId: this.options.transactionalId!,
      producerId,
      epoch,
      localTxnId: this.localTxnId,
      outcome,
      reason,
      partitions: [...this.partitions],
      outputRecords: this.outputRecords,
      changelogRecords: this.changelogRecords,
      offsetsCommitted: offsets,
      beginMs: this.txnBeginMs,
      endMs: this.time.now(),
      ...latency,
    })
  }

  /** A fenced producer is unusable: replace it with a new one (which must initTransaction again). */
  async replace(): Promise<void> {
    this.inTransaction = false
    await this.producer.close().catch(() => {})
    this.producer = this.createProducer()
  }

  async close(): Promise<void> {
    await this.producer.close()
  }
}
