// The embedded log's answers to KIP-664's requests, read through its inspector as the lab reads them,
// classified by find-hanging's rule; and the abort of a hanging transaction made by the fault point.

import { describe, expect, it } from 'vitest'
import {
  abortHangingTransaction,
  describeTransactions,
  transactionsSource,
  type TransactionsSource,
} from '../find-hanging.ts'
import { MockTime } from '../time.ts'
import type { TopicPartition } from '../types.ts'
import { ClientFaults, EmbeddedConnection } from './embedded-connection.ts'
import { EmbeddedCluster } from './embedded-cluster.ts'
import { ProcessHandle } from './process-handle.ts'

const TID = 'app-1'
const TIMEOUT_MS = 10_000
const OUT0: TopicPartition = { topic: 'out', partition: 0 }
const OUT1: TopicPartition = { topic: 'out', partition: 1 }
const FILTER = { transactionalIdPrefix: 'app-' }

function setup() {
  const time = new MockTime()
  const cluster = new EmbeddedCluster(time)
  cluster.createTopic({ topic: 'out', partitions: 2 })
  const conn = new EmbeddedConnection(cluster, new ProcessHandle('lab'), new ClientFaults())
  const source = transactionsSource(conn.inspector()) as TransactionsSource
  const p = cluster.initProducerId(TID, TIMEOUT_MS)
  /** An open transaction of TID with `n` records on OUT0. */
  const openTxn = (n: number) => {
    cluster.addPartitionsToTxn(TID, p.producerId, p.epoch, [OUT0])
    cluster.produce({
      producerId: p.producerId,
      epoch: p.epoch,
      transactionalId: TID,
      batches: [
        { ...OUT0, baseSequence: 0, records: Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: 'v' })) },
      ],
    })
  }
  return { time, cluster, conn, source, p, openTxn }
}

describe('the embedded inspector: transactions as the coordinator and the partitions hold them', () => {
  const openTransactionOngoing =
    'an open transaction: Ongoing at its coordinator with its partition, timeout and start; its producer open on ' +
    'the partition from its first offset; ongoing'
  it(openTransactionOngoing, async () => {
    const s = setup()
    await s.time.runFor(5)
    s.openTxn(3)
    const startedAt = s.time.now()
    await s.time.runFor(40)
    const r = await describeTransactions(s.source, [OUT0, OUT1], FILTER, s.time.now())
    expect(r.coordinators).toEqual([
      {
        transactionalId: TID,
        producerId: s.p.producerId,
        epoch: s.p.epoch,
        state: 'Ongoing',
        timeoutMs: TIMEOUT_MS,
        startTimeMs: startedAt,
        lastUpdateMs: startedAt,
        partitions: [OUT0],
      },
    ])
    expect(r.producers).toEqual([
      {
        ...OUT0,
        producerId: s.p.producerId,
        epoch: s.p.epoch,
        lastSequence: 2,
        lastTimestampMs: -1,
        coordinatorEpoch: 0,
        currentTxnStartOffset: 0,
      },
    ])
    expect(r.open.map((t) => [t.transactionalId, t.verdict])).toEqual([[TID, 'ongoing']])
  })

  it('after the commit: CompleteCommit, no partitions and no start; the producer holds nothing open', async () => {
    const s = setup()
    s.openTxn(2)
    await s.time.runFor(10)
    s.cluster.endTxn(TID, s.p.producerId, s.p.epoch, 'COMMIT')
    const r = await describeTransactions(s.source, [OUT0], FILTER, s.time.now())
    expect(r.coordinators[0]).toMatchObject({
      state: 'CompleteCommit',
      startTimeMs: -1,
      partitions: [],
      lastUpdateMs: s.time.now(),
    })
    expect(r.producers.map((p) => p.currentTxnStartOffset)).toEqual([-1])
    expect(r.open).toEqual([])
  })

  const overdueNotHanging =
    'past its transaction.timeout.ms an ongoing transaction is overdue, not hanging (the read does not abort it)'
  it(overdueNotHanging, async () => {
    const s = setup()
    s.openTxn(1)
    await s.time.runFor(TIMEOUT_MS + 1)
    const r = await describeTransactions(s.source, [OUT0], FILTER, s.time.now())
    expect(r.open.map((t) => t.verdict)).toEqual(['overdue'])
    expect(r.coordinators[0]!.state).toBe('Ongoing')
  })

  it('the filter keeps ids with the prefix, and any other id holding a producer of the partitions', async () => {
    const s = setup()
    s.cluster.initProducerId('other-app-0', TIMEOUT_MS)
    const holder = s.cluster.initProducerId('other-app-1', TIMEOUT_MS)
    s.cluster.addPartitionsToTxn('other-app-1', holder.producerId, holder.epoch, [OUT1])
    s.cluster.produce({
      producerId: holder.producerId,
      epoch: holder.epoch,
      transactionalId: 'other-app-1',
      batches: [{ ...OUT1, baseSequence: 0, records: [{ key: 'k', value: 'v' }] }],
    })
    const r = await describeTransactions(s.source, [OUT0, OUT1], FILTER, s.time.now())
    expect(r.coordinators.map((c) => c.transactionalId)).toEqual([TID, 'other-app-1'])
    expect((await describeTransactions(s.source, [OUT0, OUT1], {}, s.time.now())).coordinators).toHaveLength(3)
  })

  const faultPointMakesHanging =
    'the fault point makes a hanging transaction (a producer id no coordinator knows); aborting it writes an ' +
    'ABORT marker and LSO = HW'
  it(faultPointMakesHanging, async () => {
    const s = setup()
    const hung = await s.conn.injectHangingTransaction(OUT1)
    const log = s.cluster.partitionLog(OUT1)
    expect(log.offsets()).toMatchObject({ lastStableOffset: 0, highWatermark: 1 })
    const before = await describeTransactions(s.source, [OUT0, OUT1], FILTER, s.time.now())
    expect(before.open).toEqual([
      expect.objectContaining({
        ...OUT1,
        producerId: hung.producerId,
        transactionalId: null,
        verdict: 'hanging',
        currentTxnStartOffset: 0,
      }),
    ])
    expect(before.open[0]!.reason).toMatch(/no coordinator has a transactional id with that producer id/)

    const r = await abortHangingTransaction(s.source, { ...OUT1, producerId: hung.producerId }, FILTER, () =>
      s.time.now(),
    )
    expect(r).toMatchObject({ ok: true, aborted: { producerId: hung.producerId, currentTxnStartOffset: 0 } })
    expect(log.offsets()).toEqual({ logStartOffset: 0, lastStableOffset: 2, highWatermark: 2 })
    expect(log.readRaw(0, 2, 10).map((x) => [x.control, x.txnOutcome])).toEqual([
      [null, 'aborted'],
      ['ABORT', 'aborted'],
    ])
    expect(log.read(0, 10, 'read_committed').records).toEqual([])
    const after = await describeTransactions(s.source, [OUT1], FILTER, s.time.now())
    expect(after.open).toEqual([])
  })

  it('refuses to abort an ongoing transaction, or one not open, and writes nothing', async () => {
    const s = setup()
    s.openTxn(2)
    const log = s.cluster.partitionLog(OUT0)
    const offsets = log.offsets()
    const ongoing = await abortHangingTransaction(s.source, { ...OUT0, producerId: s.p.producerId }, FILTER, () =>
      s.time.now(),
    )
    expect(ongoing).toMatchObject({
      ok: false,
      conflict: true,
      error: expect.stringMatching(/is ongoing, not hanging/),
    })
    const none = await abortHangingTransaction(s.source, { ...OUT1, producerId: s.p.producerId }, FILTER, () =>
      s.time.now(),
    )
    expect(none).toMatchObject({
      ok: false,
      conflict: true,
      error: expect.stringMatching(/holds no open transaction on out-1/),
    })
    expect(log.offsets()).toEqual(offsets)
    expect(s.cluster.partitionLog(OUT1).highWatermark).toBe(0)
    expect(s.cluster.txnCoordinator.metadata(TID)!.state).toBe('Ongoing')
  })
})
