// What `kafka-transactions.sh` shows and does, from eoscope's Kafka adapter: the coordinators'
// transactions (ListTransactions on every broker, DescribeTransactions at each id's coordinator),
// the producers of each partition with their open transaction's first offset (DescribeProducers
// at the leader), and the abort of a hanging transaction (WriteTxnMarkers ABORT at the leader).

import type { Kafka } from 'kafkajs'
import { createCluster, type KafkaClientConfig, type KafkajsCluster, createKafka } from '../kafka-client.ts'
import { sender } from '../raw-protocol.ts'
import type { CoordinatorTransaction, TopicPartition, TransactionsFilter, TransactionsRead } from '../../types.ts'
import { openSinceMs } from '../../transaction-states.ts'
import {
  type ActiveProducer,
  describeProducers,
  describeTransactions,
  listTransactions,
  type TransactionDescription,
  type TransactionListing,
  writeAbortMarker,
} from './kip664-requests.ts'

export type { ActiveProducer, TransactionDescription, TransactionListing } from './kip664-requests.ts'

/** FindCoordinator's key type for a transactional id. */
const TRANSACTION_COORDINATOR = 1

function byTopic(partitions: readonly TopicPartition[]): Map<string, number[]> {
  const out = new Map<string, number[]>()
  for (const tp of partitions) out.set(tp.topic, [...(out.get(tp.topic) ?? []), tp.partition])
  return out
}

export class KafkaTransactionAdmin {
  private readonly kafka: Kafka
  private cluster: KafkajsCluster | null = null

  constructor(config: KafkaClientConfig) {
    this.kafka = createKafka(config, `${config.clientId}-transactions`)
  }

  private async connected(): Promise<KafkajsCluster> {
    this.cluster ??= createCluster(this.kafka)
    const c = this.cluster
    await c.connect()
    return c
  }

  /** Every transactional id some coordinator holds, with its producer id and state. */
  async listTransactions(): Promise<TransactionListing[]> {
    const c = await this.connected()
    await c.refreshMetadata()
    const ids = c.getNodeIds()
    const pages = await Promise.all(
      ids.map(async (nodeId) => (await sender(await c.findBroker({ nodeId }))(listTransactions())).transactions),
    )
    return pages.flat()
  }

  /** The coordinator's view of each id: state, timeout, start, producer id and epoch, partitions. */
  async describeTransactions(transactionalIds: readonly string[]): Promise<TransactionDescription[]> {
    const c = await this.connected()
    const out: TransactionDescription[] = []
    for (const id of transactionalIds) {
      const coordinator = await c.findGroupCoordinator({ groupId: id, coordinatorType: TRANSACTION_COORDINATOR })
      out.push(...(await sender(coordinator)(describeTransactions([id]))))
    }
    return out
  }

  /** How many partitions each topic has (0: no such topic). */
  async partitionCounts(topics: readonly string[]): Promise<Map<string, number>> {
    const c = await this.connected()
    const out = new Map<string, number>()
    for (const topic of topics) {
      await c.addTargetTopic(topic).catch(() => {})
      const meta = c.findTopicPartitionMetadata(topic)
      out.set(topic, Array.isArray(meta) ? meta.length : 0)
    }
    return out
  }

  /** The producers each partition's leader holds state for (open transaction or not). */
  async describeProducers(partitions: readonly TopicPartition[]): Promise<ActiveProducer[]> {
    const c = await this.connected()
    const out: ActiveProducer[] = []
    for (const [topic, ps] of byTopic(partitions)) {
      await c.addTargetTopic(topic)
      for (const [nodeId, leaderOf] of Object.entries(c.findLeaderForPartitions(topic, ps))) {
        const answers = await sender(await c.findBroker({ nodeId }))(
          describeProducers([{ topic, partitions: leaderOf }]),
        )
        out.push(...answers.flatMap((a) => a.producers))
      }
    }
    return out
  }

  /**
   * The inspector's transactions read: the partitions' producers (DescribeProducers), and the
   * coordinators' view (DescribeTransactions) of every listed id the filter keeps or that holds one
   * of those producers. DescribeTransactions has no last-update time: lastUpdateMs is null.
   */
  async transactions(
    partitions: readonly TopicPartition[],
    filter: TransactionsFilter = {},
  ): Promise<TransactionsRead> {
    const producers = partitions.length === 0 ? [] : await this.describeProducers(partitions)
    const holders = new Set(producers.map((p) => p.producerId))
    const prefix = filter.transactionalIdPrefix
    const listed = (await this.listTransactions()).filter(
      (t) => prefix === undefined || t.transactionalId.startsWith(prefix) || holders.has(t.producerId),
    )
    const described = await this.describeTransactions(listed.map((t) => t.transactionalId))
    const coordinators = described
      .filter((d) => d.errorCode === 0)
      .map(coordinatorTransactionOf)
      .sort((a, b) => a.transactionalId.localeCompare(b.transactionalId))
    return { coordinators, producers }
  }

  /**
   * Writes an ABORT marker for the producer's open transaction on its partition: the last stable offset moves past it.
   */
  async abortTransaction(
    p: Pick<ActiveProducer, 'topic' | 'partition' | 'producerId' | 'epoch' | 'coordinatorEpoch'>,
  ): Promise<void> {
    const c = await this.connected()
    await c.addTargetTopic(p.topic)
    const [nodeId] = Object.entries(c.findLeaderForPartitions(p.topic, [p.partition])).map(([n]) => n)
    if (nodeId === undefined) throw new Error(`no leader for ${p.topic}-${p.partition}`)
    await sender(await c.findBroker({ nodeId }))(
      writeAbortMarker({
        producerId: p.producerId,
        epoch: p.epoch,
        coordinatorEpoch: p.coordinatorEpoch,
        topics: [{ topic: p.topic, partitions: [p.partition] }],
      }),
    )
  }

  async close(): Promise<void> {
    await this.cluster?.disconnect().catch(() => {})
    this.cluster = null
  }
}

/**
 * A described transactional id on the log's port: no start time once its
 * transaction completed (Kafka keeps the last one's).
 */
export function coordinatorTransactionOf({ errorCode: _, ...d }: TransactionDescription): CoordinatorTransaction {
  return { ...d, startTimeMs: openSinceMs(d.state, d.startTimeMs), lastUpdateMs: null }
}
