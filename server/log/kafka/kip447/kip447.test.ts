// exactly_once_v2's two protocol pieces against a real broker (npm run test:kafka starts one):
// TxnOffsetCommit v3 fences a member's offsets by its group generation, and OffsetFetch with
// require_stable makes a read_committed owner wait for another member's open transaction.

import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { isLogError } from '../../errors.ts'
import type { ConsumedRecord, LogConsumer, RebalanceListener, TopicPartition } from '../../types.ts'
import { tpKey } from '../../types.ts'
import { KafkaConnection } from '../kafka-connection.ts'

// Provided by broker-global-setup.ts (vitest.kafka.config.ts); the plain unit run excludes this file.
const brokers = inject('kafkaBrokers')
const run = randomUUID().slice(0, 8)
const name = (what: string) => `eoscope-kip447-${what}-${run}`
let conn: KafkaConnection

const quiet: RebalanceListener = {
  onPartitionsAssigned: async () => {},
  onPartitionsRevoked: async () => {},
  onPartitionsLost: async () => {},
}

beforeAll(() => {
  conn = new KafkaConnection({ brokers: brokers.split(','), clientId: `eoscope-kip447-${run}` })
})
afterAll(async () => {
  await conn.close()
})

/** Polls until done() holds, failing once nothing has changed for stallMs (a group join takes a few heartbeats). */
async function pollUntil(consumers: LogConsumer[], done: () => boolean, boundMs = 60_000): Promise<ConsumedRecord[]> {
  const got: ConsumedRecord[] = []
  const deadline = Date.now() + boundMs
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not done within ${boundMs} ms`)
    for (const c of consumers) got.push(...(await c.poll(200)))
  }
  return got
}

describe('KIP-447 on kafkajs', () => {
  const txnOffsetCommitV3Generations =
    "TxnOffsetCommit v3: the member's current generation commits; a generation the group has left behind is " +
    'refused (ILLEGAL_GENERATION) and commits nothing'
  it(txnOffsetCommitV3Generations, async () => {
    const input = name('fence-in')
    const output = name('fence-out')
    const groupId = name('fence-group')
    await conn.admin().createTopics([
      { topic: input, partitions: 2 },
      { topic: output, partitions: 1 },
    ])
    // Records to stand behind the offsets committed below (an offset past the end is reset by the consumer).
    const feeder = conn.producer({ clientId: 'feeder', idempotent: true })
    await feeder.send(['a', 'b', 'c'].map((v) => ({ topic: input, partition: 0, key: v, value: v })))
    await feeder.close()
    const options = {
      groupId,
      isolationLevel: 'read_committed' as const,
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
    }
    const a = conn.consumer({ ...options, clientId: 'member-a' })
    await a.subscribe([input], quiet)
    await pollUntil([a], () => a.assignment().length === 2)
    const current = a.groupMetadata()
    expect(current.generationId).toBeGreaterThan(0)

    const producer = conn.producer({ clientId: 'v2-thread', idempotent: true, transactionalId: name('v2-thread') })
    await producer.initTransactions()
    producer.beginTransaction()
    await producer.send([{ topic: output, partition: 0, key: 'k', value: 'v1' }])
    await producer.sendOffsetsToTransaction([{ topic: input, partition: 0, offset: 1 }], current)
    await producer.commitTransaction()
    const tp: TopicPartition = { topic: input, partition: 0 }
    expect(await a.committed([tp])).toEqual(new Map([[tpKey(input, 0), 1]]))

    // A second member joins: a new generation; the first one's old metadata is now a zombie's.
    const b = conn.consumer({ ...options, clientId: 'member-b' })
    await b.subscribe([input], quiet)
    await pollUntil([a, b], () => b.assignment().length > 0 && a.groupMetadata().generationId > current.generationId)
    producer.beginTransaction()
    await producer.send([{ topic: output, partition: 0, key: 'k', value: 'zombie' }])
    const refused = await producer.sendOffsetsToTransaction([{ topic: input, partition: 0, offset: 2 }], current).then(
      () => null,
      (e: unknown) => e,
    )
    expect(isLogError(refused, 'ILLEGAL_GENERATION') || isLogError(refused, 'UNKNOWN_MEMBER_ID'), String(refused)).toBe(
      true,
    )
    await producer.abortTransaction().catch(() => {})
    expect(await b.committed([tp])).toEqual(new Map([[tpKey(input, 0), 1]]))
    await Promise.all([a.close(), b.close(), producer.close()])
  })

  const offsetFetchRequireStable =
    'OffsetFetch require_stable: a read_committed owner waits for the open transaction holding offsets, then ' +
    'reads what it committed; read_uncommitted does not wait'
  it(offsetFetchRequireStable, async () => {
    const input = name('stable-in')
    const groupId = name('stable-group')
    await conn.admin().createTopics([{ topic: input, partitions: 1 }])
    const producer = conn.producer({ clientId: 'holder', idempotent: true, transactionalId: name('holder') })
    await producer.initTransactions()
    producer.beginTransaction()
    await producer.sendOffsetsToTransaction([{ topic: input, partition: 0, offset: 5 }], {
      groupId,
      memberId: '',
      generationId: -1,
    })
    const tp: TopicPartition = { topic: input, partition: 0 }
    const dirty = conn.consumer({
      groupId,
      clientId: 'dirty',
      isolationLevel: 'read_uncommitted',
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
    })
    expect(await dirty.committed([tp])).toEqual(new Map([[tpKey(input, 0), null]]))

    const owner = conn.consumer({
      groupId,
      clientId: 'owner',
      isolationLevel: 'read_committed',
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 500,
    })
    const stable = owner.committed([tp])
    // Without require_stable the answer (null) would come back at once.
    const early = await Promise.race([
      stable.then((m) => ['answered', m] as const),
      new Promise<readonly ['waiting']>((r) => setTimeout(() => r(['waiting']), 1_500)),
    ])
    expect(early[0]).toBe('waiting')
    await producer.commitTransaction()
    expect(await stable).toEqual(new Map([[tpKey(input, 0), 5]]))
    await Promise.all([dirty.close(), owner.close(), producer.close()])
  })
})
