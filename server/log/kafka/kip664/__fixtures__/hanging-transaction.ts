// A hanging transaction on a real broker, for the Kafka tests: a transactional batch of a producer
// id no coordinator knows, written while the brokers' partition verification (KIP-890,
// transaction.partition.verification.enable) is switched off for a moment. Nothing will ever write
// its marker: the partition's last stable offset stays behind it until someone aborts it.

import { createCluster, createKafka } from '../../kafka-client.ts'

/** The partition verification of KIP-890 on every broker (a dynamic broker setting). */
async function setVerification(brokers: string[], clientId: string, enabled: boolean): Promise<void> {
  const a = createKafka({ brokers, clientId: `${clientId}-config` }, 'config').admin()
  await a.connect()
  try {
    const { brokers: nodes } = await a.describeCluster()
    const resources = nodes.map((b) => ({
      type: 4 /* BROKER */,
      name: String(b.nodeId),
      configEntries: [{ name: 'transaction.partition.verification.enable', value: String(enabled) }],
    }))
    await a.alterConfigs({ validateOnly: false, resources })
  } finally {
    await a.disconnect()
  }
}

const VERIFICATION_REFUSALS = ['INVALID_PRODUCER_ID_MAPPING', 'INVALID_TXN_STATE']

/**
 * Writes one transactional record of `producerId` (epoch 0, sequence 0) to the
 * partition; returns once the leader took it.
 */
export async function writeHangingTransaction(
  brokers: string[],
  clientId: string,
  tp: { topic: string; partition: number },
  producerId: number,
): Promise<void> {
  const cluster = createCluster(createKafka({ brokers, clientId: `${clientId}-raw` }, 'raw'))
  await cluster.connect()
  await cluster.addTargetTopic(tp.topic)
  const [leader] = Object.keys(cluster.findLeaderForPartitions(tp.topic, [tp.partition]))
  const produce = {
    acks: -1,
    timeout: 10_000,
    transactionalId: 'nobody',
    producerId,
    producerEpoch: 0,
    topicData: [
      {
        topic: tp.topic,
        partitions: [{ partition: tp.partition, firstSequence: 0, messages: [{ key: 'h', value: 'hanging' }] }],
      },
    ],
  }
  await setVerification(brokers, clientId, false)
  try {
    // The setting reaches the broker through the metadata log: the produce is refused until it has.
    const broker = await cluster.findBroker({ nodeId: leader! })
    for (let attempt = 0; ; attempt++) {
      const refused = await broker.produce(produce).then(
        () => null,
        (e: { type?: string }) => e,
      )
      if (refused === null) break
      // Verification still on refuses it with either code (the coordinator does not know the producer id).
      if (!VERIFICATION_REFUSALS.includes(refused.type ?? '') || attempt >= 100) throw refused
      await new Promise((r) => setTimeout(r, 100))
    }
  } finally {
    await setVerification(brokers, clientId, true)
    await cluster.disconnect()
  }
}
