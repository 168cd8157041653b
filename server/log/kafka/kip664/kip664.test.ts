// KIP-664's admin requests against a real broker (npm run test:kafka starts one): an ongoing
// transaction as its coordinator and its partition's leader see it, and a hanging transaction
// (a transactional batch of a producer id no coordinator knows, written while the broker's
// partition verification (KIP-890) is switched off for a moment) found and aborted: LSO = HW after.

import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { classifyOpenTransactions } from '../../hanging-transactions.ts'
import { KafkaConnection } from '../kafka-connection.ts'
import { KafkaTransactionAdmin } from './kafka-transaction-admin.ts'
import { writeHangingTransaction } from './__fixtures__/hanging-transaction.ts'

const brokers = inject('kafkaBrokers').split(',')
const run = randomUUID().slice(0, 8)
const name = (what: string) => `eoscope-kip664-${what}-${run}`
let conn: KafkaConnection
let admin: KafkaTransactionAdmin

beforeAll(() => {
  conn = new KafkaConnection({ brokers, clientId: `eoscope-kip664-${run}` })
  admin = new KafkaTransactionAdmin({ brokers, clientId: `eoscope-kip664-${run}` })
})
afterAll(async () => {
  await admin.close()
  await conn.close()
})

describe('KIP-664 on kafkajs', () => {
  const ongoingTransactionListed =
    'an ongoing transaction: listed Ongoing by its coordinator with its partition, its producer open on the ' +
    'partition from its first offset; ongoing, not hanging'
  it(ongoingTransactionListed, async () => {
    const topic = name('ongoing')
    await conn.admin().createTopics([{ topic, partitions: 1 }])
    const transactionalId = name('txn')
    const producer = conn.producer({
      clientId: 'holder',
      idempotent: true,
      transactionalId,
      transactionTimeoutMs: 60_000,
    })
    const identity = await producer.initTransactions()
    producer.beginTransaction()
    await producer.send([{ topic, partition: 0, key: 'k', value: 'v' }])
    const listed = (await admin.listTransactions()).find((t) => t.transactionalId === transactionalId)
    expect(listed).toEqual({ transactionalId, producerId: identity.producerId, state: 'Ongoing' })
    const [described] = await admin.describeTransactions([transactionalId])
    expect(described).toMatchObject({
      errorCode: 0,
      state: 'Ongoing',
      timeoutMs: 60_000,
      producerId: identity.producerId,
      epoch: identity.epoch,
      partitions: [{ topic, partition: 0 }],
    })
    const producers = await admin.describeProducers([{ topic, partition: 0 }])
    expect(producers).toEqual([
      expect.objectContaining({
        producerId: identity.producerId,
        epoch: identity.epoch,
        lastSequence: 0,
        currentTxnStartOffset: 0,
      }),
    ])
    expect(classifyOpenTransactions(producers, [described!], Date.now()).map((t) => t.verdict)).toEqual(['ongoing'])
    await producer.abortTransaction()
    await producer.close()
  })

  const hangingTransactionFoundAndAborted =
    'a hanging transaction (a producer id no coordinator knows) is found, and aborting it moves the last stable ' +
    'offset to the high watermark'
  it(hangingTransactionFoundAndAborted, async () => {
    const topic = name('hanging')
    await conn.admin().createTopics([{ topic, partitions: 1 }])
    const producerId = 900_000_000 + Math.floor(Math.random() * 1_000_000)
    await writeHangingTransaction(brokers, `eoscope-kip664-${run}`, { topic, partition: 0 }, producerId)
    const tp = { topic, partition: 0 }
    const before = await conn.inspector().offsets(tp)
    expect(before).toMatchObject({ lastStableOffset: 0, highWatermark: 1 })

    const producers = await admin.describeProducers([tp])
    const found = classifyOpenTransactions(producers, [], Date.now())
    expect(found).toEqual([
      expect.objectContaining({ producerId, verdict: 'hanging', transactionalId: null, currentTxnStartOffset: 0 }),
    ])
    expect((await admin.listTransactions()).some((t) => t.producerId === producerId)).toBe(false)

    await admin.abortTransaction(found[0]!)
    const after = await conn.inspector().offsets(tp)
    expect(after.lastStableOffset).toBe(after.highWatermark)
    expect(after.highWatermark).toBe(2) // the record and its ABORT marker
    expect((await admin.describeProducers([tp])).every((p) => p.currentTxnStartOffset === -1)).toBe(true)
  })
})
