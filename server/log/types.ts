// The log seam: everything the engine, the validator and the lab need from a log.
// The embedded log (server/log/embedded) and Kafka through kafkajs (server/log/kafka) sit behind it.

import type { IsolationLevel } from '../../lib/streams-config.ts'
import type { LogCapabilities } from './capabilities.ts'
import type { GroupDescription } from './group-description.ts'

export interface TopicPartition {
  topic: string
  partition: number
}

export function tpKey(topic: string, partition: number): string {
  return `${topic}-${partition}`
}

export type Headers = Record<string, string>

export interface ProduceRecord {
  topic: string
  partition: number
  key: string | null
  value: string | null
  headers?: Headers
  timestamp?: number
}

/**
 * A produce call's acknowledgement for one partition, as a produce response carries it: the
 * call's records of that partition were appended at consecutive offsets from `baseOffset`, in the
 * call's order. One per partition, in order of first appearance in the call (not one object per
 * record: nothing on the engine's path reads a record's own offset, and at a million records a
 * second that object was a tenth of the producer's time).
 */
export interface PartitionAck {
  topic: string
  partition: number
  baseOffset: number
  records: number
}

/** What a consumer sees: data records only, never control markers. */
export interface ConsumedRecord {
  topic: string
  partition: number
  offset: number
  key: string | null
  value: string | null
  headers: Headers | undefined
  timestamp: number
}

export type ControlType = 'COMMIT' | 'ABORT'
export type TxnOutcome = 'committed' | 'aborted' | 'pending'

/** A record as stored, with its batch's producer fields: what a dump or a deep view shows. */
export interface StoredRecordView extends ConsumedRecord {
  producerId: number
  producerEpoch: number
  sequence: number
  transactional: boolean
  control: ControlType | null
  /** null for non-transactional records. */
  txnOutcome: TxnOutcome | null
}

export interface PartitionOffsets {
  logStartOffset: number
  lastStableOffset: number
  highWatermark: number
}

export interface ProducerIdentity {
  transactionalId: string | null
  producerId: number
  epoch: number
}

export interface ConsumerGroupMetadata {
  groupId: string
  memberId: string
  generationId: number
}

export interface OffsetToCommit {
  topic: string
  partition: number
  /** The next offset to read: last processed + 1. */
  offset: number
}

export interface ProducerOptions {
  clientId: string
  idempotent: boolean
  transactionalId?: string
  transactionTimeoutMs?: number
}

/** Only StreamsProducer in the engine calls the transactional half of this. */
export interface LogProducer {
  identity(): ProducerIdentity | null
  /** Fences every older epoch of this transactional.id and aborts its open transaction. */
  initTransactions(): Promise<ProducerIdentity>
  beginTransaction(): void
  /** Appends the records (one request); resolves when the broker acknowledged them. */
  send(records: ProduceRecord[]): Promise<PartitionAck[]>
  sendOffsetsToTransaction(offsets: OffsetToCommit[], group: ConsumerGroupMetadata): Promise<void>
  commitTransaction(): Promise<void>
  abortTransaction(): Promise<void>
  close(): Promise<void>
}

export interface RebalanceListener {
  /** Clean hand-off: commit, then the partitions are released to their next owner. */
  onPartitionsRevoked(partitions: TopicPartition[]): Promise<void>
  onPartitionsAssigned(partitions: TopicPartition[]): Promise<void>
  /** The member was dropped from the group (session expired): no commit is possible any more. */
  onPartitionsLost(partitions: TopicPartition[]): Promise<void>
}

export interface ConsumerOptions {
  groupId: string
  clientId: string
  isolationLevel: IsolationLevel
  sessionTimeoutMs: number
  heartbeatIntervalMs: number
}

/**
 * A consumer in a group. The position promise, kept by both backends (and checked by one contract,
 * server/log/consumer-contract.ts): per partition, poll() hands out records from the partition's
 * position on, in offset order, and skips none that the isolation level shows (only control
 * markers, aborted records under read_committed and compacted or deleted records leave gaps).
 * The position is the last seek, or the last record handed out + 1. Nothing fetched before a
 * seek or a rebalance is handed out after it, and a revoked or lost partition's position is
 * forgotten by the consumer itself: no caller filters or re-seeks.
 */
export interface LogConsumer {
  subscribe(topics: string[], listener: RebalanceListener): Promise<void>
  /** Heartbeats, runs rebalance callbacks, then fetches from the assigned partitions' positions. */
  poll(maxRecords: number): Promise<ConsumedRecord[]>
  /**
   * The partition's next record handed out is the first visible one at or after `offset`.
   * Records an earlier poll returned stay the caller's.
   */
  seek(tp: TopicPartition, offset: number): void
  position(tp: TopicPartition): number | undefined
  assignment(): TopicPartition[]
  /** Committed offsets, stable: waits while a transaction may still change them (requireStable). */
  committed(partitions: TopicPartition[]): Promise<Map<string, number | null>>
  /** Non-transactional offset commit, checked against the member's generation. */
  commitOffsets(offsets: OffsetToCommit[]): Promise<void>
  groupMetadata(): ConsumerGroupMetadata
  /** Makes the next poll heartbeat (and rejoin if this member was dropped) before anything else. */
  enforceRebalance?(): void
  /** Leaves the group (clean close). A killed worker never calls it. */
  close(): Promise<void>
}

/** Group-less reads: changelog restore, the validator, deep views. */
export interface LogReader {
  offsets(tp: TopicPartition): Promise<PartitionOffsets>
  /** Reads from `from`; read_committed stops at the last stable offset and skips aborted records. */
  read(
    tp: TopicPartition,
    from: number,
    maxRecords: number,
    isolation: IsolationLevel,
  ): Promise<{ records: ConsumedRecord[]; nextOffset: number }>
}

/** Raw access for audits: every stored record with its producer fields, control markers included. */
export interface LogInspector {
  /**
   * The cluster holds other applications too (a Kafka cluster; the embedded log is one lab's own).
   * Its internal topics (__consumer_offsets) are then shared, and another group's transaction
   * there says nothing about this run.
   */
  readonly sharedCluster?: boolean
  topics(): Promise<{ topic: string; partitions: number }[]>
  offsets(tp: TopicPartition): Promise<PartitionOffsets>
  /** Stored records in [from, to), markers included; bounded by maxRecords. */
  readRaw(tp: TopicPartition, from: number, to: number, maxRecords: number): Promise<StoredRecordView[]>
  committedOffsets(groupId: string): Promise<OffsetToCommit[]>
  /**
   * The transactions as the coordinators and the partitions' leaders hold them (KIP-664's
   * ListTransactions, DescribeTransactions and DescribeProducers; the embedded log's coordinator
   * and producer state): every transactional id the filter keeps, and every producer of the partitions.
   */
  transactions?(partitions: readonly TopicPartition[], filter?: TransactionsFilter): Promise<TransactionsRead>
  /**
   * Writes an ABORT marker for a producer's open transaction on one partition (WriteTxnMarkers): its
   * records become aborted, the LSO moves past them.
   */
  abortTransaction?(p: ProducerToAbort): Promise<void>
  /** The group as its coordinator holds it (DescribeGroups); absent where an inspector has no coordinator (a dump). */
  describeGroup?(groupId: string): Promise<GroupDescription>
}

/**
 * Which transactional ids a transactions read describes: those with the prefix and
 * those holding a producer of the partitions.
 */
export interface TransactionsFilter {
  transactionalIdPrefix?: string
}

/** A transactional id as its coordinator holds it (DescribeTransactions). */
export interface CoordinatorTransaction {
  transactionalId: string
  producerId: number
  epoch: number
  /** Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort (or PrepareEpochFence, Dead). */
  state: string
  timeoutMs: number
  /** When the open transaction began; -1 when none is open. */
  startTimeMs: number
  /**
   * The coordinator's last state change; null where the backend does not tell (Kafka's DescribeTransactions does not).
   */
  lastUpdateMs: number | null
  partitions: TopicPartition[]
}

/** A producer's state on one partition, as its leader holds it (DescribeProducers). */
export interface PartitionProducer {
  topic: string
  partition: number
  producerId: number
  epoch: number
  lastSequence: number
  /** -1 where the backend does not keep it. */
  lastTimestampMs: number
  coordinatorEpoch: number
  /** First offset of the producer's open transaction on this partition; -1: none open. */
  currentTxnStartOffset: number
}

export interface TransactionsRead {
  coordinators: CoordinatorTransaction[]
  producers: PartitionProducer[]
}

export type ProducerToAbort = Pick<
  PartitionProducer,
  'topic' | 'partition' | 'producerId' | 'epoch' | 'coordinatorEpoch'
>

export interface TopicSpec {
  topic: string
  partitions: number
  /** cleanup.policy=compact (changelogs). */
  compacted?: boolean
}

export interface LogAdmin {
  createTopics(topics: TopicSpec[]): Promise<void>
  deleteTopics(topics: string[]): Promise<void>
}

/** One process's connection to the log (a worker, the lab, the validator). */
export interface LogConnection {
  readonly backend: 'embedded' | 'kafka'
  /** What this backend can do; every refusal above the seam reads it. */
  readonly capabilities: LogCapabilities
  admin(): LogAdmin
  producer(options: ProducerOptions): LogProducer
  consumer(options: ConsumerOptions): LogConsumer
  reader(): LogReader
  inspector(): LogInspector
  /**
   * Fault injection: a transactional batch of a producer id no coordinator knows, written to one
   * partition: a hanging transaction (the LSO stays behind it until someone aborts it). Offered
   * where the capabilities list 'hanging-transaction'.
   */
  injectHangingTransaction?(tp: TopicPartition): Promise<{ producerId: number; epoch: number; firstOffset: number }>
  /** The cluster's brokers (a real cluster only; whether they may be killed: capability broker-faults). */
  brokers?(): import('./broker-control.ts').BrokerControl
}
