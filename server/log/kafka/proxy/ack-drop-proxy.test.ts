// The ack-drop proxy against a real broker (npm run test:kafka starts one): the broker appends
// the batch, the ack never reaches the producer, and the producer's retry shows the seed's first
// failure: written once with enable.idempotence, twice without it.

import { randomUUID } from 'node:crypto'
import { Kafka, logLevel, type Producer } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { AckDropProxy, type DroppedAck } from './ack-drop-proxy.ts'

// Provided by broker-global-setup.ts (vitest.kafka.config.ts); the plain unit run excludes this file.
const brokers = inject('kafkaBrokers').split(',')
const run = randomUUID().slice(0, 8)
const direct = new Kafka({ clientId: 'ack-drop-test', brokers, logLevel: logLevel.NOTHING })
const admin = direct.admin()
let proxy: AckDropProxy
const dropped: DroppedAck[] = []

beforeAll(async () => {
  await admin.connect()
  proxy = await AckDropProxy.start({ brokers, topics: (t) => t.startsWith(`eoscope-ack-${run}`) })
  proxy.onDropped((d) => dropped.push(d))
})

afterAll(async () => {
  await admin.disconnect()
  await proxy.close()
})

async function topic(what: string): Promise<string> {
  const name = `eoscope-ack-${run}-${what}`
  await admin.createTopics({ topics: [{ topic: name, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true })
  return name
}

async function highWatermark(name: string): Promise<number> {
  const [p] = await admin.fetchTopicOffsets(name)
  return Number(p!.high)
}

async function withProducer<T>(options: Parameters<Kafka['producer']>[0], fn: (p: Producer) => Promise<T>): Promise<T> {
  const p = new Kafka({
    clientId: `ack-drop-${run}`,
    brokers: proxy.bootstrap,
    logLevel: logLevel.NOTHING,
    retry: { initialRetryTime: 50, retries: 5 },
  }).producer(options)
  await p.connect()
  try {
    return await fn(p)
  } finally {
    await p.disconnect()
  }
}

const THREE = [
  { key: 'a', value: '1' },
  { key: 'b', value: '2' },
  { key: 'c', value: '3' },
]

describe('AckDropProxy on a real broker', () => {
  it('clients reach the cluster only through the proxy: metadata names the proxy as every broker', async () => {
    const name = await topic('metadata')
    const before = proxy.stats.connections
    await withProducer({}, (p) => p.send({ topic: name, messages: [{ value: 'x' }] }))
    expect(await highWatermark(name)).toBe(1)
    expect(proxy.stats.connections).toBeGreaterThan(before)
    expect(proxy.stats.produceRequests).toBeGreaterThan(0)
  })

  const idempotentRetryNotAppended =
    'with enable.idempotence the retried batch is not appended again: written once, the lost ack recorded with ' +
    'its sequence and offset'
  it(idempotentRetryNotAppended, async () => {
    const name = await topic('idempotent')
    dropped.length = 0
    proxy.dropNextAcks(1)
    await withProducer({ idempotent: true, maxInFlightRequests: 1 }, (p) =>
      p.send({ topic: name, acks: -1, messages: THREE }),
    )
    expect(proxy.pendingDrops).toBe(0)
    expect(dropped).toHaveLength(1)
    expect(dropped[0]!.batches).toEqual([
      expect.objectContaining({ topic: name, partition: 0, baseSequence: 0, count: 3, baseOffset: 0 }),
    ])
    expect(dropped[0]!.batches[0]!.producerId).toBeGreaterThanOrEqual(0)
    expect(await highWatermark(name)).toBe(3)
  })

  const retryWritesDuplicate =
    'without enable.idempotence the retry writes the batch a second time: the duplicate a lost ack causes'
  it(retryWritesDuplicate, async () => {
    const name = await topic('plain')
    dropped.length = 0
    proxy.dropNextAcks(1)
    await withProducer({ idempotent: false, allowAutoTopicCreation: false }, (p) =>
      p.send({ topic: name, acks: -1, messages: THREE }),
    )
    expect(dropped).toHaveLength(1)
    expect(dropped[0]!.batches[0]!.producerId).toBe(-1)
    expect(await highWatermark(name)).toBe(6)
  })

  it('a transactional producer whose ack is lost still commits each record once', async () => {
    const name = await topic('txn')
    dropped.length = 0
    proxy.dropNextAcks(1)
    await withProducer({ transactionalId: `ack-drop-${run}`, idempotent: true, maxInFlightRequests: 1 }, async (p) => {
      const t = await p.transaction()
      await t.send({ topic: name, messages: THREE })
      await t.commit()
    })
    expect(dropped).toHaveLength(1)
    expect(dropped[0]!.transactionalId).toBe(`ack-drop-${run}`)
    // Three records and one COMMIT marker: the retry appended nothing. The coordinator writes the
    // marker after EndTxn answers, so the stable offset reaches it a moment later.
    let stable = await highWatermark(name)
    for (let i = 0; stable < 4 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100))
      stable = await highWatermark(name)
    }
    expect(stable).toBe(4)
  })

  it('refuses a bad count and changes nothing', () => {
    const before = proxy.pendingDrops
    expect(() => proxy.dropNextAcks(-1)).toThrow(RangeError)
    expect(() => proxy.dropNextAcks(1.5)).toThrow(RangeError)
    expect(proxy.pendingDrops).toBe(before)
  })
})
