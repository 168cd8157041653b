// One process's connection to a Kafka cluster through kafkajs: the log seam's LogConnection.
// Each producer and consumer gets its own kafkajs client (as kafkajs does anyway); the admin,
// reader and inspector share one admin client and one group-less fetcher.

import type { Admin } from 'kafkajs'
import type { LogCapabilities } from '../capabilities.ts'
import type {
  ConsumerOptions,
  LogAdmin,
  LogConnection,
  LogConsumer,
  LogInspector,
  LogProducer,
  LogReader,
  ProducerOptions,
  TopicPartition,
} from '../types.ts'
import { createKafka, type KafkaClientConfig } from './kafka-client.ts'
import { KafkaLogAdmin } from './kafka-admin.ts'
import { KafkaLogConsumer, type KafkaConsumerTuning } from './kafka-consumer.ts'
import { KafkaLogInspector } from './kafka-inspector.ts'
import { KafkaLogProducer } from './kafka-producer.ts'
import { hasVisibleRecords, KafkaLogReader } from './kafka-reader.ts'
import { PartitionFetcher } from './partition-fetcher.ts'
import { type AckRoute, kafkaCapabilities } from './capabilities.ts'
import { KafkaTransactionAdmin } from './kip664/kafka-transaction-admin.ts'
import type { BrokerControl } from '../broker-control.ts'
import { KafkaBrokerControl } from './brokers/kafka-broker-control.ts'
import { LocalBrokers } from './brokers/local-brokers.ts'

export type { KafkaClientConfig } from './kafka-client.ts'

export class KafkaConnection implements LogConnection {
  readonly backend = 'kafka' as const
  readonly capabilities: LogCapabilities
  private readonly sharedAdmin: Admin
  private adminConnected: Promise<void> | null = null
  private readonly fetcher: PartitionFetcher
  private readonly clients = new Set<{ close(): Promise<void> }>()
  private txnAdmin: KafkaTransactionAdmin | null = null

  constructor(
    readonly config: KafkaClientConfig,
    private readonly consumerTuning: KafkaConsumerTuning = {},
    /** How this connection's worker processes reach the cluster (the ack-drop proxy offers drop-acks). */
    ackRoute: AckRoute = 'direct',
    /** scripts/kafka-cluster.sh's directory of the brokers eoscope may kill and restart, or null. */
    private readonly localBrokersDir: string | null = null,
  ) {
    this.capabilities = kafkaCapabilities(ackRoute, config, localBrokersDir)
    if (!Array.isArray(config.brokers) || config.brokers.length === 0)
      throw new Error('KafkaConnection needs at least one broker (host:port)')
    const kafka = createKafka(config, `${config.clientId}-admin`)
    this.sharedAdmin = kafka.admin()
    this.fetcher = new PartitionFetcher(createKafka(config, `${config.clientId}-reader`))
  }

  private readonly admin$ = async (): Promise<Admin> => {
    this.adminConnected ??= this.sharedAdmin.connect().catch((e) => {
      this.adminConnected = null
      throw e
    })
    await this.adminConnected
    return this.sharedAdmin
  }

  admin(): LogAdmin {
    return new KafkaLogAdmin(this.admin$)
  }

  producer(options: ProducerOptions): LogProducer {
    const p = new KafkaLogProducer(this.config, options)
    this.clients.add(p)
    return p
  }

  consumer(options: ConsumerOptions): LogConsumer {
    const visibleIn = (tp: TopicPartition, from: number, to: number) =>
      hasVisibleRecords(this.fetcher, tp, from, to, options.isolationLevel)
    const c = new KafkaLogConsumer(this.config, options, visibleIn, this.consumerTuning)
    this.clients.add(c)
    return c
  }

  reader(): LogReader {
    return new KafkaLogReader(this.admin$, this.fetcher)
  }

  inspector(): LogInspector {
    return new KafkaLogInspector(
      this.admin$,
      this.fetcher,
      () => (this.txnAdmin ??= new KafkaTransactionAdmin(this.config)),
    )
  }

  private brokerControl: KafkaBrokerControl | null = null

  /** The cluster's brokers: who leads and coordinates what for the lab; Kill and Restart of local ones. */
  brokers(): BrokerControl {
    this.brokerControl ??= new KafkaBrokerControl(
      this.config,
      this.localBrokersDir === null ? null : new LocalBrokers(this.localBrokersDir),
    )
    return this.brokerControl
  }

  /** Closes every client this connection made, then the shared admin and fetcher. */
  async close(): Promise<void> {
    await this.brokerControl?.close()
    await Promise.all([...this.clients].map((c) => c.close().catch(() => {})))
    this.clients.clear()
    await this.fetcher.close()
    await this.txnAdmin?.close()
    this.txnAdmin = null
    if (this.adminConnected) await this.sharedAdmin.disconnect().catch(() => {})
    this.adminConnected = null
  }
}
