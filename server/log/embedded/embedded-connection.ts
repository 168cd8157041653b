// Clients of the embedded log, bound to one process: producer (idempotent, transactional),
// consumer in a group, reader, inspector and admin. Each request passes the process's gate and
// costs the latency model's time.

import { LogError } from '../errors.ts'
import type { GroupDescription } from '../group-description.ts'
import type {
  ConsumerOptions,
  LogAdmin,
  LogConnection,
  LogConsumer,
  LogInspector,
  LogProducer,
  LogReader,
  OffsetToCommit,
  PartitionOffsets,
  ProducerOptions,
  ProducerToAbort,
  StoredRecordView,
  TopicPartition,
  TopicSpec,
  TransactionsFilter,
  TransactionsRead,
} from '../types.ts'
import type { IsolationLevel } from '../../../lib/streams-config.ts'
import type { EmbeddedCluster } from './embedded-cluster.ts'
import type { ProcessHandle } from './process-handle.ts'
import { EMBEDDED_CAPABILITIES } from './capabilities.ts'
import type { ClientFaults } from './client-faults.ts'
import { EmbeddedConsumer } from './embedded-consumer.ts'
import { EmbeddedProducer } from './embedded-producer.ts'
import { abortEmbeddedTransaction, readEmbeddedTransactions, writeHangingTransaction } from './embedded-transactions.ts'

export { ClientFaults, type AckDropped } from './client-faults.ts'

export class EmbeddedConnection implements LogConnection {
  readonly backend = 'embedded' as const
  readonly capabilities = EMBEDDED_CAPABILITIES
  constructor(
    readonly cluster: EmbeddedCluster,
    readonly process: ProcessHandle,
    readonly faults: ClientFaults,
  ) {}

  /** One request: gate, apply at the broker, wait out the round trip, gate again (a lost response). */
  async request<T>(costMs: number, apply: () => T): Promise<T> {
    await this.process.gate()
    const result = apply()
    if (costMs > 0) await this.cluster.time.sleep(costMs)
    await this.process.gate()
    return result
  }

  admin(): LogAdmin {
    return new EmbeddedAdmin(this)
  }
  producer(options: ProducerOptions): LogProducer {
    return new EmbeddedProducer(this, options)
  }
  consumer(options: ConsumerOptions): LogConsumer {
    return new EmbeddedConsumer(this, options)
  }
  reader(): LogReader {
    return new EmbeddedReader(this)
  }
  inspector(): LogInspector {
    return new EmbeddedInspector(this.cluster)
  }
  async injectHangingTransaction(
    tp: TopicPartition,
  ): Promise<{ producerId: number; epoch: number; firstOffset: number }> {
    return writeHangingTransaction(this.cluster, tp)
  }
}

class EmbeddedAdmin implements LogAdmin {
  constructor(private readonly conn: EmbeddedConnection) {}
  async createTopics(topics: TopicSpec[]): Promise<void> {
    await this.conn.request(this.conn.cluster.latency.requestMs, () => {
      for (const t of topics) {
        if (this.conn.cluster.hasTopic(t.topic)) {
          if (this.conn.cluster.partitionCount(t.topic) !== t.partitions) {
            throw new LogError(
              'TOPIC_ALREADY_EXISTS',
              `topic ${t.topic} exists with ${this.conn.cluster.partitionCount(t.topic)} partitions, not ` +
                `${t.partitions}`,
            )
          }
          continue
        }
        this.conn.cluster.createTopic(t)
      }
    })
  }
  async deleteTopics(topics: string[]): Promise<void> {
    await this.conn.request(this.conn.cluster.latency.requestMs, () => {
      for (const t of topics) this.conn.cluster.deleteTopic(t)
    })
  }
}

// ---- reader and inspector -------------------------------------------------------------------

class EmbeddedReader implements LogReader {
  constructor(private readonly conn: EmbeddedConnection) {}
  async offsets(tp: TopicPartition): Promise<PartitionOffsets> {
    const c = this.conn.cluster
    return this.conn.request(c.latency.requestMs, () => {
      if (this.conn.faults.offsetReadFailures.take())
        throw new LogError(
          'BROKER_NOT_AVAILABLE',
          `offsets of ${tp.topic}-${tp.partition}: this server is not the leader for that topic-partition ` +
            `(fault point)`,
        )
      c.txnCoordinator.expireTimedOut()
      return c.partitionLog(tp).offsets()
    })
  }
  async read(tp: TopicPartition, from: number, maxRecords: number, isolation: IsolationLevel) {
    const c = this.conn.cluster
    return this.conn.request(c.latency.requestMs, () => c.fetch(tp, from, maxRecords, isolation))
  }
}

class EmbeddedInspector implements LogInspector {
  constructor(private readonly cluster: EmbeddedCluster) {}
  async topics() {
    return this.cluster.topicSpecs().map((s) => ({ topic: s.topic, partitions: s.partitions }))
  }
  async offsets(tp: TopicPartition): Promise<PartitionOffsets> {
    return this.cluster.partitionLog(tp).offsets()
  }
  async readRaw(tp: TopicPartition, from: number, to: number, maxRecords: number): Promise<StoredRecordView[]> {
    return this.cluster.partitionLog(tp).readRaw(from, to, maxRecords)
  }
  async committedOffsets(groupId: string): Promise<OffsetToCommit[]> {
    return this.cluster.group(groupId).allCommitted()
  }
  async transactions(partitions: readonly TopicPartition[], filter?: TransactionsFilter): Promise<TransactionsRead> {
    return readEmbeddedTransactions(this.cluster, partitions, filter)
  }
  async abortTransaction(p: ProducerToAbort): Promise<void> {
    abortEmbeddedTransaction(this.cluster, p)
  }
  async describeGroup(groupId: string): Promise<GroupDescription> {
    // Kafka's coordinator answers Dead, with no member, for a group it does not know.
    if (!this.cluster.groupIds().includes(groupId))
      return { groupId, state: 'Dead', generationId: null, protocolType: '', protocol: '', members: [] }
    return this.cluster.group(groupId).describe()
  }
}
