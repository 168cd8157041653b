// The kafkajs client settings a connection passes through (brokers, TLS, SASL), and one kafkajs
// client per producer, consumer, admin or fetcher, whose warnings and errors reach the console at
// the configured level, counted per condition. The protocol facts kafkajs kept out of its API (a
// producer's id and epoch, a join's generation) come from the patch's API (kafkajs-patches.ts).

import { type Broker, Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs'
import type { ConnectionOptions } from 'node:tls'
import { requireKafkajsPatched } from './kafkajs-patches.ts'
import { CountedWarnings } from '../counted-warnings.ts'

/** What a deployment sets: the kafkajs client config subset eoscope passes through unchanged. */
export interface KafkaClientConfig {
  brokers: string[]
  clientId: string
  ssl?: ConnectionOptions | boolean
  sasl?: SASLOptions
  connectionTimeout?: number
  requestTimeout?: number
  /** kafkajs messages at or above this level go to the console; default ERROR. */
  logLevel?: logLevel
}

/** kafkajs warnings that eoscope's settings trigger on purpose. */
const SILENCED = ['Limiting retries for the idempotent producer', 'KafkaJS v2.0.0 switched default partitioner']
/**
 * kafkajs logs every error response at ERROR in its Connection namespace, retried or not; the
 * caller gets the final error as a LogError, so these stay off the console.
 */
const QUIET_NAMESPACES = new Set(['Connection'])

const LEVEL_LABEL: Record<number, string> = {
  [logLevel.ERROR]: 'ERROR',
  [logLevel.WARN]: 'WARN',
  [logLevel.INFO]: 'INFO',
  [logLevel.DEBUG]: 'DEBUG',
}

/**
 * kafkajs logs each retry of a request ("Failed to send messages", "Crash: ...", "Restarting the
 * consumer") while a broker is down: one line per message per 10 s with a count, for the whole
 * process. A message's numbers (broker ids, ports, retry counts) do not make it another condition.
 */
const consoleLines = new CountedWarnings((line) => console.error(line))

/** The condition a kafkajs log line is an occurrence of: its level, namespace and message without its numbers. */
export function kafkajsCondition(level: number, namespace: string, message: string): string {
  return `${level} ${namespace} ${message.replace(/\d+/g, '#')}`
}

function detailsOf(extra: object): string {
  try {
    return JSON.stringify(extra)
  } catch {
    return ''
  }
}

/** Retries for back-to-back transactions: kafkajs's 300 ms initial retry time is far too slow. */
export const CLIENT_RETRY = { initialRetryTime: 20, maxRetryTime: 1_000, retries: 10 }

export function createKafka(config: KafkaClientConfig, clientId: string): Kafka {
  requireKafkajsPatched()
  const consoleLevel = config.logLevel ?? logLevel.ERROR
  const kafkaConfig: KafkaConfig = {
    brokers: config.brokers,
    clientId,
    ssl: config.ssl,
    sasl: config.sasl,
    connectionTimeout: config.connectionTimeout ?? 3_000,
    requestTimeout: config.requestTimeout ?? 30_000,
    retry: CLIENT_RETRY,
    logLevel: consoleLevel,
    logCreator: () => (entry) => {
      const quiet = QUIET_NAMESPACES.has(entry.namespace) || SILENCED.some((s) => entry.log.message.startsWith(s))
      if (entry.level <= consoleLevel && entry.level !== logLevel.NOTHING && !quiet) {
        const { message, ...extra } = entry.log
        delete (extra as Record<string, unknown>).timestamp
        delete (extra as Record<string, unknown>).logger
        delete (extra as Record<string, unknown>).stack
        const details = Object.keys(extra).length > 0 ? ` ${detailsOf(extra)}` : ''
        consoleLines.warn(
          kafkajsCondition(entry.level, entry.namespace, message),
          `[kafkajs ${LEVEL_LABEL[entry.level] ?? entry.level}] ${entry.namespace} ${clientId}: ${message}${details}`,
        )
      }
    },
  }
  return new Kafka(kafkaConfig)
}

/**
 * The low-level cluster of a kafkajs client (metadata, leaders, brokers' raw requests), from the
 * patch's public createCluster. eoscope uses it for group-less fetches (kafkajs has no public API
 * that reads a partition without joining a consumer group) and requests kafkajs does not know.
 */
export interface KafkajsCluster {
  connect(): Promise<void>
  disconnect(): Promise<void>
  addTargetTopic(topic: string): Promise<void>
  refreshMetadata(): Promise<void>
  getNodeIds(): number[]
  findTopicPartitionMetadata(topic: string): unknown[]
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>
  findBroker(args: { nodeId: string | number }): Promise<KafkajsBroker>
  /** The group's (or, coordinatorType 1, the transactional id's) coordinator, connected. */
  findGroupCoordinator(args: { groupId: string; coordinatorType?: number }): Promise<KafkajsBroker>
}

/** A broker of the cluster: kafkajs's own, its fetch typed as eoscope reads it. */
export interface KafkajsBroker extends Omit<Broker, 'fetch'> {
  fetch(args: {
    replicaId?: number
    isolationLevel: number
    maxWaitTime: number
    minBytes: number
    maxBytes: number
    topics: { topic: string; partitions: { partition: number; fetchOffset: string; maxBytes: number }[] }[]
  }): Promise<{ responses: { topicName: string; partitions: RawFetchPartition[] }[] }>
}

export interface RawFetchPartition {
  partition: number
  errorCode: number
  highWatermark: string
  lastStableOffset: string
  lastStartOffset: string
  abortedTransactions: { producerId: string; firstOffset: string }[]
  messages: RawFetchedRecord[]
}

export interface RawFetchedRecord {
  offset: string
  timestamp: string
  key: Buffer | null
  value: Buffer | null
  headers: Record<string, Buffer | Buffer[] | undefined>
  isControlRecord: boolean
  batchContext: {
    firstOffset: string
    producerId: string
    producerEpoch: number
    firstSequence: number
    inTransaction: boolean
    isControlBatch: boolean
  }
}

export function createCluster(kafka: Kafka): KafkajsCluster {
  return kafka.createCluster({ metadataMaxAge: 60_000, allowAutoTopicCreation: false })
}
