// One process's connection to a Kafka cluster through kafkajs: the log seam's LogConnection.
// Each producer and consumer gets its own kafkajs client (as kafkajs does anyway); the admin,
// reader and inspector share one admin client and one group-less fetcher.

import type { Admin } from 'kafkajs'
import type { ConsumerOptions, LogAdmin, LogConnection, LogConsumer, LogInspector, LogProducer, LogReader, ProducerOptions, TopicPartition } from '../types.ts'
import { createKafka, type KafkaClientConfig } from './kafka-client.ts'
import { KafkaLogAdmin } from './kafka-admin.ts'
import { KafkaLogConsumer, type KafkaConsumerTuning } from './kafka-consumer.ts'
import { KafkaLogInspector } from './kafka-inspector.ts'
import { KafkaLogProducer } from './kafka-producer.ts'
import { hasVisibleRecords, KafkaLogReader } from './kafka-reader.ts'
import { PartitionFetcher } from './partition-fetcher.ts'
import { KAFKA_CAPABILITIES } from './capabilities.ts'

export type { KafkaClientConfig } from './kafka-client.ts'

export class KafkaConnection implements LogConnection {
  readonly backend = 'kafka' as const
  readonly capabilities = KAFKA_CAPABILITIES
  private readonly sharedAdmin: Admin
  private adminConnected: Promise<void> | null = null
  private readonly fetcher: PartitionFetcher
  private readonly clients = new Set<{ close(): Promise<void> }>()

  constructor(
    readonly config: KafkaClientConfig,
    private readonly consumerTuning: KafkaConsumerTuning = {},
  ) {
    if (!Array.isArray(config.brokers) || config.brokers.length === 0) throw new Error('KafkaConnection needs at least one broker (host:port)')
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
    const visibleIn = (tp: TopicPartition, from: number, to: number) => hasVisibleRecords(this.fetcher, tp, from, to, options.isolationLevel)
    const c = new KafkaLogConsumer(this.config, options, visibleIn, this.consumerTuning)
    this.clients.add(c)
    return c
  }

  reader(): LogReader {
    return new KafkaLogReader(this.admin$, this.fetcher)
  }

  inspector(): LogInspector {
    return new KafkaLogInspector(this.admin$, this.fetcher)
  }

  /** Closes every client this connection made, then the shared admin and fetcher. */
  async close(): Promise<void> {
    await Promise.all([...this.clients].map((c) => c.close().catch(() => {})))
    this.clients.clear()
    await this.fetcher.close()
    if (this.adminConnected) await this.sharedAdmin.disconnect().catch(() => {})
    this.adminConnected = null
  }
}
