// Measures, against a running Kafka broker, the client-observed round trips that the embedded
// log's latency model stands for (server/log/embedded/LATENCY.md records the results):
//   produce      one idempotent Produce (acks=all), one record, one partition
//   send         in a transaction: AddPartitionsToTxn + Produce, one record on each of N partitions
//   sendOffsets  AddOffsetsToTxn + TxnOffsetCommit
//   endTxn       EndTxn (commit); the coordinator answers before it writes the markers
//   markers      from the EndTxn answer until every partition's last stable offset passed the marker
//                (probed with one empty Fetch per partition and round: `fetch` is that probe's cost)
// for N = 1, 2, 4, 8 partitions in the transaction.
//
//   npx tsx scripts/measure-broker-latency.ts [--brokers host:port] [--iterations 100]
// Start a broker first: scripts/kafka-broker.sh start

import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { logLevel } from 'kafkajs'
import { parseArgs } from 'node:util'
import { createKafka } from '../server/log/kafka/kafka-client.ts'
import { KafkaConnection } from '../server/log/kafka/kafka-connection.ts'
import { PartitionFetcher } from '../server/log/kafka/partition-fetcher.ts'
import type { TopicPartition } from '../server/log/types.ts'

const { values } = parseArgs({
  options: {
    brokers: { type: 'string', default: process.env.KAFKA_BROKERS ?? `127.0.0.1:${process.env.KAFKA_PORT ?? '19092'}` },
    iterations: { type: 'string', default: '100' },
  },
})
const brokers = values.brokers!.split(',')
const iterations = Number(values.iterations)
const WARMUP = 10
const PARTITION_COUNTS = [1, 2, 4, 8]
const SETTLE_MS = 30

function quantile(samples: number[], q: number): number {
  const s = [...samples].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const fmt = (ms: number) => ms.toFixed(2)
const now = () => performance.now()

async function waitStable(
  fetcher: PartitionFetcher,
  tps: TopicPartition[],
  highWatermarks: Map<number, number>,
): Promise<void> {
  for (const tp of tps) {
    for (;;) {
      const hw = highWatermarks.get(tp.partition)!
      const { offsets } = await fetcher.fetch(tp, hw, 'read_committed', 1)
      // The marker took one offset past the data: stable once the LSO reached the new high watermark.
      if (offsets.lastStableOffset >= hw + 1 && offsets.lastStableOffset === offsets.highWatermark) break
    }
  }
}

async function main(): Promise<void> {
  const run = randomUUID().slice(0, 8)
  const conn = new KafkaConnection({ brokers, clientId: `eoscope-latency-${run}`, logLevel: logLevel.NOTHING })
  const fetcher = new PartitionFetcher(
    createKafka({ brokers, clientId: 'eoscope-latency-probe' }, 'eoscope-latency-probe'),
  )
  const topic = `eoscope-latency-${run}`
  const input = `eoscope-latency-in-${run}`
  await conn.admin().createTopics([
    { topic, partitions: 8 },
    { topic: input, partitions: 1 },
  ])
  const rows: string[] = []
  try {
    const idem = conn.producer({ clientId: 'latency-idempotent', idempotent: true })
    const produce: number[] = []
    for (let i = 0; i < WARMUP + iterations; i++) {
      const t0 = now()
      await idem.send([{ topic, partition: 0, key: 'k', value: `v${i}` }])
      if (i >= WARMUP) produce.push(now() - t0)
    }
    await idem.close()
    rows.push(`produce (idempotent, acks=all)   | - | ${fmt(quantile(produce, 0.5))} | ${fmt(quantile(produce, 0.9))}`)
    // The marker probe's own cost: one empty read_committed Fetch per partition and round.
    const fetch: number[] = []
    const hw = WARMUP + iterations
    for (let i = 0; i < WARMUP + iterations; i++) {
      const t0 = now()
      await fetcher.fetch({ topic, partition: 0 }, hw, 'read_committed', 1)
      if (i >= WARMUP) fetch.push(now() - t0)
    }
    rows.push(`fetch (empty, marker probe)      | - | ${fmt(quantile(fetch, 0.5))} | ${fmt(quantile(fetch, 0.9))}`)

    const producer = conn.producer({
      clientId: 'latency-txn',
      idempotent: true,
      transactionalId: `eoscope-latency-${run}`,
    })
    await producer.initTransactions()
    const group = { groupId: `eoscope-latency-group-${run}`, memberId: '', generationId: -1 }
    for (const n of PARTITION_COUNTS) {
      const tps = Array.from({ length: n }, (_, partition) => ({ topic, partition }))
      const samples = {
        send: [] as number[],
        sendOffsets: [] as number[],
        endTxn: [] as number[],
        markers: [] as number[],
        cycle: [] as number[],
      }
      for (let i = 0; i < WARMUP + iterations; i++) {
        producer.beginTransaction()
        const t0 = now()
        const sent = await producer.send(tps.map((tp) => ({ ...tp, key: 'k', value: `v${i}` })))
        const t1 = now()
        await producer.sendOffsetsToTransaction([{ topic: input, partition: 0, offset: i + 1 }], group)
        const t2 = now()
        await producer.commitTransaction()
        const t3 = now()
        await waitStable(fetcher, tps, new Map(sent.map((m) => [m.partition, m.baseOffset + m.records])))
        const t4 = now()
        // The coordinator writes CompleteCommit after the markers; a transaction started before
        // that gets CONCURRENT_TRANSACTIONS and a client retry, which is not what `send` measures.
        await sleep(SETTLE_MS)
        if (i < WARMUP) continue
        samples.send.push(t1 - t0)
        samples.sendOffsets.push(t2 - t1)
        samples.endTxn.push(t3 - t2)
        samples.markers.push(t4 - t3)
        samples.cycle.push(t3 - t0)
      }
      for (const [name, s] of Object.entries(samples)) {
        rows.push(`${name.padEnd(32)} | ${n} | ${fmt(quantile(s, 0.5))} | ${fmt(quantile(s, 0.9))}`)
      }
    }
    await producer.close()
  } finally {
    await conn
      .admin()
      .deleteTopics([topic, input])
      .catch(() => {})
    await fetcher.close()
    await conn.close()
  }
  console.log(
    `# ${iterations} iterations after ${WARMUP} warm-up, brokers ${brokers.join(',')}; cycle = send + ` +
      `sendOffsets + endTxn`,
  )
  console.log('what                             | partitions | median ms | p90 ms')
  for (const r of rows) console.log(r)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
