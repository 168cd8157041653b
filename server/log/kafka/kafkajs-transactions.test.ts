// The kafkajs patch's transactional path (patches/kafkajs+2.2.4.patch, producer/eosManager): the
// transaction and group coordinators are looked up once and kept until a request to them fails
// in a way that may mean they moved, and concurrent AddPartitionsToTxn calls go one after the
// other, each adding only partitions not yet in the transaction. Driven against a scripted
// cluster: which requests go out, in which order, and how many lookups they cost.

import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'
import { topicPartitionsOf } from './topic-partitions.ts'

const require = createRequire(import.meta.url)
const createEosManager = require('kafkajs/src/producer/eosManager/index.js') as (
  o: Record<string, unknown>,
) => EosManager
const { createLogger, LEVELS } = require('kafkajs/src/loggers/index.js') as {
  createLogger(o: { level: number; logCreator: () => () => void }): unknown
  LEVELS: { NOTHING: number }
}
const { KafkaJSProtocolError, KafkaJSConnectionError } = require('kafkajs/src/errors.js') as {
  KafkaJSProtocolError: new (e: { type: string; message: string; retriable: boolean; code: number }) => Error
  KafkaJSConnectionError: new (m: string) => Error
}

interface EosManager {
  initProducerId(): Promise<void>
  beginTransaction(): void
  addPartitionsToTransaction(topicData: { topic: string; partitions: { partition: number }[] }[]): Promise<void>
  sendOffsets(o: {
    consumerGroupId: string
    topics: { topic: string; partitions: { partition: number; offset: string }[] }[]
  }): Promise<void>
  commit(): Promise<void>
}

type Call = { api: string; args?: unknown }

/** A cluster whose coordinator answers from a script; every request and lookup is recorded. */
function scriptedCluster(failNext: Map<string, Error[]> = new Map()) {
  const calls: Call[] = []
  const pending: (() => void)[] = []
  let holdAddPartitions = false
  const answer = async (api: string, args?: unknown) => {
    calls.push({ api, args })
    const failure = failNext.get(api)?.shift()
    if (failure) throw failure
  }
  const broker = {
    nodeId: 1,
    initProducerId: async () => {
      await answer('InitProducerId')
      return { producerId: 7, producerEpoch: 0 }
    },
    addPartitionsToTxn: async (args: { topics: unknown }) => {
      if (holdAddPartitions) await new Promise<void>((r) => pending.push(r))
      await answer('AddPartitionsToTxn', args.topics)
    },
    addOffsetsToTxn: () => answer('AddOffsetsToTxn'),
    txnOffsetCommit: () => answer('TxnOffsetCommit'),
    endTxn: () => answer('EndTxn'),
  }
  const cluster = {
    retry: { retries: 0 },
    refreshMetadataIfNecessary: async () => {},
    findGroupCoordinator: async ({ coordinatorType }: { coordinatorType: number }) => {
      calls.push({ api: coordinatorType === 1 ? 'FindCoordinator(transaction)' : 'FindCoordinator(group)' })
      return broker
    },
    markOffsetAsCommitted: () => {},
  }
  const logger = createLogger({ level: LEVELS.NOTHING, logCreator: () => () => {} })
  const eos = createEosManager({
    logger,
    cluster,
    transactionTimeout: 60_000,
    transactional: true,
    transactionalId: 'app-1',
  })
  return {
    eos,
    calls,
    apis: () => calls.map((c) => c.api),
    hold: () => (holdAddPartitions = true),
    releaseOne: () => pending.shift()?.(),
    waiting: () => pending.length,
  }
}

/** Every pending promise callback has run (the scripted cluster answers without timers). */
const drained = () => new Promise<void>((r) => setImmediate(r))
const tp = (topic: string, ...partitions: number[]) => ({
  topic,
  partitions: partitions.map((partition) => ({ partition })),
})
const protocolError = (type: string) => new KafkaJSProtocolError({ type, message: type, retriable: true, code: 0 })

describe('the kafkajs patch: transactions', () => {
  const coordinatorLookedUpOnce =
    'looks the transaction coordinator up once for a whole transaction, and the group coordinator once per group'
  it(coordinatorLookedUpOnce, async () => {
    const c = scriptedCluster()
    await c.eos.initProducerId()
    for (let i = 0; i < 3; i++) {
      c.eos.beginTransaction()
      await c.eos.addPartitionsToTransaction([tp('out', 0, 1), tp('changelog', 0)])
      await c.eos.sendOffsets({
        consumerGroupId: 'app',
        topics: [{ topic: 'in', partitions: [{ partition: 0, offset: '5' }] }],
      })
      await c.eos.commit()
    }
    const lookups = c.apis().filter((a) => a.startsWith('FindCoordinator'))
    // One lookup at InitProducerId, kept for every request after it; one for the group.
    expect(lookups).toEqual(['FindCoordinator(transaction)', 'FindCoordinator(group)'])
    expect(c.apis().filter((a) => a === 'EndTxn')).toHaveLength(3)
  })

  it('adds the partitions of concurrent calls one request after the other, each partition once', async () => {
    const c = scriptedCluster()
    await c.eos.initProducerId()
    c.eos.beginTransaction()
    c.hold()
    const all = c.eos.addPartitionsToTransaction([tp('out', 0, 1), tp('changelog', 0, 1)])
    const one = c.eos.addPartitionsToTransaction([tp('out', 1)])
    const another = c.eos.addPartitionsToTransaction([tp('out', 2)])
    await drained()
    // The first request is in flight; the others wait behind it instead of overlapping it.
    expect(c.waiting()).toBe(1)
    c.releaseOne()
    await all
    await drained()
    expect(c.waiting()).toBe(1) // out-2 is new; out-1 was in the first request and is not sent again
    c.releaseOne()
    await Promise.all([one, another])
    const added = c.calls.filter((x) => x.api === 'AddPartitionsToTxn').map((x) => x.args)
    expect(added).toEqual([
      [
        { topic: 'out', partitions: [0, 1] },
        { topic: 'changelog', partitions: [0, 1] },
      ],
      [{ topic: 'out', partitions: [2] }],
    ])
  })

  const keepsCoordinatorOnConcurrent =
    'keeps the coordinator after CONCURRENT_TRANSACTIONS, and looks it up again after NOT_COORDINATOR or a lost ' +
    'connection'
  it(keepsCoordinatorOnConcurrent, async () => {
    const failures = new Map<string, Error[]>([
      [
        'AddPartitionsToTxn',
        [
          protocolError('CONCURRENT_TRANSACTIONS'),
          protocolError('NOT_COORDINATOR'),
          new KafkaJSConnectionError('Connection closed'),
        ],
      ],
    ])
    const c = scriptedCluster(failures)
    await c.eos.initProducerId()
    c.eos.beginTransaction()
    const lookupsSoFar = () => c.apis().filter((a) => a === 'FindCoordinator(transaction)').length
    const before = lookupsSoFar()
    await expect(c.eos.addPartitionsToTransaction([tp('out', 0)])).rejects.toThrow('CONCURRENT_TRANSACTIONS')
    expect(lookupsSoFar() - before).toBe(0)
    await expect(c.eos.addPartitionsToTransaction([tp('out', 0)])).rejects.toThrow('NOT_COORDINATOR')
    await expect(c.eos.addPartitionsToTransaction([tp('out', 0)])).rejects.toThrow('Connection closed')
    expect(lookupsSoFar() - before).toBe(1)
    await c.eos.addPartitionsToTransaction([tp('out', 0)])
    expect(lookupsSoFar() - before).toBe(2)
    // A failed add leaves the partition out: it was sent again until it succeeded, then never.
    await c.eos.addPartitionsToTransaction([tp('out', 0)])
    expect(lookupsSoFar() - before).toBe(2)
    expect(c.apis().filter((a) => a === 'AddPartitionsToTxn')).toHaveLength(4)
  })

  it('names each topic and partition of a send once, in order of first appearance', () => {
    const r = (topic: string, partition: number) => ({ topic, partition, key: 'k', value: 'v' })
    expect(
      topicPartitionsOf([r('out', 1), r('out', 1), r('changelog', 1), r('out', 0), r('out', 1), r('changelog', 1)]),
    ).toEqual([tp('out', 1, 0), tp('changelog', 1)])
    expect(topicPartitionsOf([])).toEqual([])
  })
})
