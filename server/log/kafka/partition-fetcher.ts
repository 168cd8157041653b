// Group-less fetches of one partition at a time, through kafkajs's low-level cluster: the Fetch
// request as a consumer sends it, but without a group. The records come back with their batch's
// producer fields and control records included, so the reader filters them and the inspector
// shows them.

import type { Kafka } from 'kafkajs'
import type { IsolationLevel } from '../../../lib/streams-config.ts'
import { LogError } from '../errors.ts'
import type { PartitionOffsets, TopicPartition } from '../types.ts'
import { createCluster, type KafkajsCluster, type RawFetchedRecord, type RawFetchPartition } from './kafka-client.ts'
import { mapErrors, toLogError } from './kafka-errors.ts'

const ISOLATION: Record<IsolationLevel, number> = { read_uncommitted: 0, read_committed: 1 }
const FETCH_MAX_BYTES = 1024 * 1024

export interface PartitionFetch {
  offsets: PartitionOffsets
  /** Records at or after the fetch offset, control records included, in offset order. */
  records: RawFetchedRecord[]
  /** read_committed only: the transactions aborted in the fetched range. */
  abortedTransactions: { producerId: string; firstOffset: number }[]
}

export class PartitionFetcher {
  private readonly cluster: KafkajsCluster
  private connected: Promise<void> | null = null
  private readonly knownTopics = new Set<string>()

  constructor(kafka: Kafka) {
    this.cluster = createCluster(kafka)
  }

  private async ready(topic: string): Promise<void> {
    this.connected ??= this.cluster.connect().catch((e) => {
      this.connected = null
      throw e
    })
    await this.connected
    if (!this.knownTopics.has(topic)) {
      await this.cluster.addTargetTopic(topic)
      this.knownTopics.add(topic)
    }
  }

  /** One Fetch request for one partition from `offset`; never waits for new data. */
  async fetch(
    tp: TopicPartition,
    offset: number,
    isolation: IsolationLevel,
    maxBytes = FETCH_MAX_BYTES,
  ): Promise<PartitionFetch> {
    const what = `fetch ${tp.topic}-${tp.partition} from ${offset} (${isolation})`
    return mapErrors(what, async () => {
      await this.ready(tp.topic)
      let partition: RawFetchPartition | undefined
      for (let attempt = 0; ; attempt++) {
        try {
          partition = await this.fetchOnce(tp, offset, isolation, maxBytes)
          break
        } catch (e) {
          const mapped = toLogError(e, what)
          // Stale metadata (a new topic, a moved leader): refresh once and try again.
          if (
            attempt === 0 &&
            mapped instanceof LogError &&
            (mapped.code === 'UNKNOWN_TOPIC_OR_PARTITION' || mapped.code === 'BROKER_NOT_AVAILABLE')
          ) {
            await this.cluster.refreshMetadata()
            continue
          }
          throw e
        }
      }
      return {
        offsets: {
          logStartOffset: Number(partition.lastStartOffset),
          lastStableOffset: Number(partition.lastStableOffset),
          highWatermark: Number(partition.highWatermark),
        },
        records: partition.messages.filter((m) => Number(m.offset) >= offset),
        abortedTransactions: (partition.abortedTransactions ?? []).map((a) => ({
          producerId: a.producerId,
          firstOffset: Number(a.firstOffset),
        })),
      }
    })
  }

  private async fetchOnce(
    tp: TopicPartition,
    offset: number,
    isolation: IsolationLevel,
    maxBytes: number,
  ): Promise<RawFetchPartition> {
    const leaders = this.cluster.findLeaderForPartitions(tp.topic, [tp.partition])
    const nodeId = Object.keys(leaders)[0]
    if (nodeId === undefined)
      throw new LogError('UNKNOWN_TOPIC_OR_PARTITION', `no leader known for ${tp.topic}-${tp.partition}`)
    const broker = await this.cluster.findBroker({ nodeId })
    const response = await broker.fetch({
      replicaId: -1,
      isolationLevel: ISOLATION[isolation],
      maxWaitTime: 0,
      minBytes: 0,
      maxBytes,
      topics: [{ topic: tp.topic, partitions: [{ partition: tp.partition, fetchOffset: String(offset), maxBytes }] }],
    })
    const partition = response.responses
      .find((r) => r.topicName === tp.topic)
      ?.partitions.find((p) => p.partition === tp.partition)
    if (!partition)
      throw new LogError('UNKNOWN_TOPIC_OR_PARTITION', `the broker returned no data for ${tp.topic}-${tp.partition}`)
    return partition
  }

  async close(): Promise<void> {
    if (this.connected) await this.cluster.disconnect().catch(() => {})
    this.connected = null
    this.knownTopics.clear()
  }
}
