// The position promise of LogConsumer (types.ts), as one set of cases run against every backend:
// server/log/embedded/consumer-contract.test.ts and server/log/kafka/kafka-connection.test.ts.

import { describe, expect, it } from 'vitest'
import type { ConsumedRecord, LogConnection, LogConsumer, RebalanceListener, TopicPartition } from './types.ts'

export interface ContractBackend {
  connection(): LogConnection
  /** A fresh name for a topic or group, unique per run. */
  name(what: string): string
  timeoutMs: number
}

const QUIET: RebalanceListener = {
  onPartitionsAssigned: async () => {},
  onPartitionsRevoked: async () => {},
  onPartitionsLost: async () => {},
}

async function until<T>(what: string, timeoutMs: number, step: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const r = await step()
    if (r !== null) return r
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`)
  }
}

/** Polls until `count` records came, checking each poll against the promise as they arrive. */
async function pollChecked(consumer: LogConsumer, count: number, timeoutMs: number): Promise<ConsumedRecord[]> {
  const got: ConsumedRecord[] = []
  const next = new Map<number, number>()
  for (const tp of consumer.assignment()) {
    const p = consumer.position(tp)
    if (p !== undefined) next.set(tp.partition, p)
  }
  await until(`${count} records`, timeoutMs, async () => {
    for (const r of await consumer.poll(100)) {
      // Dense input (a plain producer): the position promise means exactly the next offset.
      expect(r.offset, `partition ${r.partition}`).toBe(next.get(r.partition) ?? r.offset)
      next.set(r.partition, r.offset + 1)
      got.push(r)
    }
    return got.length >= count ? got : null
  })
  return got
}

/**
 * A topic of `partitions` partitions holding `perPartition` records each, and a consumer subscribed to it, sought to 0.
 */
async function fedAndSubscribed(
  b: ContractBackend,
  what: string,
  partitions: number,
  perPartition: number,
): Promise<{ topic: string; consumer: LogConsumer }> {
  const conn = b.connection()
  const topic = b.name(what)
  await conn.admin().createTopics([{ topic, partitions }])
  await feed(conn, topic, partitions, perPartition)
  const consumer = conn.consumer({
    groupId: b.name('contract-group'),
    clientId: 'contract',
    isolationLevel: 'read_committed',
    sessionTimeoutMs: 6_000,
    heartbeatIntervalMs: 200,
  })
  await consumer.subscribe([topic], QUIET)
  const assigned = await until('the assignment', b.timeoutMs, async () => {
    await consumer.poll(0)
    return consumer.assignment().length === partitions ? consumer.assignment() : null
  })
  for (const tp of assigned) consumer.seek(tp, 0)
  return { topic, consumer }
}

async function feed(conn: LogConnection, topic: string, partitions: number, perPartition: number): Promise<void> {
  const producer = conn.producer({ clientId: 'contract-feeder', idempotent: true })
  const records = []
  for (let p = 0; p < partitions; p++)
    for (let i = 0; i < perPartition; i++) records.push({ topic, partition: p, key: `k${i}`, value: `${p}:${i}` })
  await producer.send(records)
  await producer.close()
}

export function describeConsumerPositionContract(backend: string, b: ContractBackend): void {
  describe(`the consumer position promise (${backend})`, () => {
    const handsOutInOffsetOrder =
      'hands out each partition from its position on, in offset order, without a gap, and moves the position ' +
      'past what it handed out'
    it(handsOutInOffsetOrder, async () => {
      const { topic, consumer } = await fedAndSubscribed(b, 'contract-order', 2, 20)
      const got = await pollChecked(consumer, 40, b.timeoutMs)
      for (const p of [0, 1]) {
        const offsets = got.filter((r) => r.partition === p).map((r) => r.offset)
        expect(offsets).toEqual([...Array(20).keys()])
        expect(consumer.position({ topic, partition: p })).toBe(20)
      }
      await consumer.close()
    })

    const seekDropsFetched =
      'after a seek, hands out nothing fetched before it: the next record of the partition is the one at the ' +
      'seek offset'
    it(seekDropsFetched, async () => {
      const { topic, consumer } = await fedAndSubscribed(b, 'contract-seek', 1, 30)
      const tp: TopicPartition = { topic, partition: 0 }
      await pollChecked(consumer, 5, b.timeoutMs)
      consumer.seek(tp, 2)
      expect(consumer.position(tp)).toBe(2)
      const back = await pollChecked(consumer, 28, b.timeoutMs)
      expect(back[0]!.offset).toBe(2)
      consumer.seek(tp, 25)
      const ahead = await pollChecked(consumer, 5, b.timeoutMs)
      expect(ahead.map((r) => r.offset)).toEqual([25, 26, 27, 28, 29])
      await consumer.close()
    })
  })
}
