// What `eoscope observe` reads on Kafka: the connection's inspector (DescribeGroups, OffsetFetch,
// ListOffsets, Fetch, KIP-664) and a Fetch of the group's __consumer_offsets partition.

import { transactionsSource } from '../log/find-hanging.ts'
import { createKafka, type KafkaClientConfig } from '../log/kafka/kafka-client.ts'
import { KafkaConnection } from '../log/kafka/kafka-connection.ts'
import { PartitionFetcher } from '../log/kafka/partition-fetcher.ts'
import { OFFSETS_TOPIC, type ObserveSource } from './application-observer.ts'

export interface KafkaObserveSource extends ObserveSource {
  close(): Promise<void>
}

export function kafkaObserveSource(config: KafkaClientConfig): KafkaObserveSource {
  const conn = new KafkaConnection(config)
  const inspector = conn.inspector()
  const transactions = transactionsSource(inspector)
  const { describeGroup } = inspector
  if (!transactions || !describeGroup)
    throw new Error('this Kafka connection offers no transactions or group description: observe needs both')
  const fetcher = new PartitionFetcher(createKafka(config, `${config.clientId}-offsets-reader`))
  return {
    inspector: {
      topics: () => inspector.topics(),
      offsets: (tp) => inspector.offsets(tp),
      readRaw: (tp, from, to, max) => inspector.readRaw(tp, from, to, max),
      committedOffsets: (groupId) => inspector.committedOffsets(groupId),
      describeGroup: (groupId) => describeGroup.call(inspector, groupId),
    },
    transactions,
    async readOffsetsTopic(partition, from) {
      const fetched = await fetcher.fetch({ topic: OFFSETS_TOPIC, partition }, from, 'read_uncommitted')
      const records = fetched.records
        .filter((r) => !r.isControlRecord)
        .map((r) => ({ offset: Number(r.offset), timestamp: Number(r.timestamp), key: r.key, value: r.value }))
      // Past every record read, control markers included: a read of markers alone still moves on.
      const last = fetched.records.at(-1)
      return {
        records,
        nextOffset: last ? Number(last.offset) + 1 : from,
        highWatermark: fetched.offsets.highWatermark,
      }
    },
    async close() {
      await fetcher.close?.()
      await conn.close()
    },
  }
}
