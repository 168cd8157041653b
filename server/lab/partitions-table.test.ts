// The partitions table on the dashboard's lab (embedded log, virtual clock): its offsets are the
// log inspector's, a partition whose LSO is below its HW lists the producers the partition log
// holds open transactions for, an input partition's lag is its end offset minus the group's
// committed offset, and the partition log view shows the same offsets as the table's row.

import { describe, expect, it } from 'vitest'
import { MockTime } from '../log/time.ts'
import type { LogInspector, PartitionOffsets, StoredRecordView, TopicPartition } from '../log/types.ts'
import type { InProcessRuntime } from '../runtime/in-process-runtime.ts'
import { Lab } from './lab.ts'
import type { LabRuntime } from '../runtime/lab-runtime.ts'
import { OPEN_SCAN_RECORDS, PartitionsBook, readPartitions, REASK_INTERNAL_MS } from './partitions-table.ts'
import { internalPartitionFor } from '../log/internal-partition.ts'
import { inProcessRuntimes } from '../runtime/runtime-factory.ts'

async function startLab() {
  const time = new MockTime()
  const factory = inProcessRuntimes({ time, workers: 3, partitions: 4, seed: 5 })
  let rt: LabRuntime | null = null
  const lab = new Lab(
    { ...factory, create: (s) => (rt = factory.create(s)) },
    { ratePerSec: 500, snapshotIntervalMs: 100, validateIntervalMs: 500 },
  )
  await time.runUntilSettled(lab.start())
  return { time, lab, rt: rt! as InProcessRuntime }
}

describe('the partitions table', () => {
  const readsPartitionsAtOneMoment =
    'reads every partition at one moment: HW, LSO and log start as the inspector says, open transactions as the ' +
    'log holds them, lag = end − committed'
  it(readsPartitionsAtOneMoment, async () => {
    const { time, lab, rt } = await startLab()
    try {
      await time.runFor(2_000)
      const inspector = rt.connection.inspector()
      const producers = lab
        .snapshot()
        .producers!.map((p) => ({ transactionalId: p.transactionalId, producerId: p.producerId }))
      const target = {
        topics: rt.topics,
        partitions: rt.partitions,
        groupId: rt.groupId,
        producers,
        internal: [{ topic: '__consumer_offsets', partitions: 1 }],
      }
      // Until some partition has a transaction open at the moment of the read.
      let seen = 0
      for (let tries = 0; tries < 200 && seen === 0; tries++) {
        await time.runFor(7)
        const tps = ['input', 'output', 'changelog'].flatMap((role) =>
          [0, 1, 2, 3].map((partition) => ({ topic: rt.topics[role as 'input'], partition })),
        )
        // Asked in the same tick as the table's read: the same moment on the embedded log.
        const expected = Promise.all(tps.map((tp) => inspector.offsets(tp)))
        const committedAt = inspector.committedOffsets(rt.groupId)
        const holdersAt = new Map(
          tps.map((tp) => [
            `${tp.topic}-${tp.partition}`,
            rt.cluster
              .partitionLog(tp)
              .ongoingProducerIds()
              .map((id) => ({ id, first: rt.cluster.partitionLog(tp).heldBy(id)!.firstOffset })),
          ]),
        )
        const { rows } = await readPartitions(inspector, target)
        const want = await expected
        const committed = await committedAt
        expect(rows.map((r) => `${r.topic}-${r.partition}`)).toEqual([
          ...tps.map((tp) => `${tp.topic}-${tp.partition}`),
          '__consumer_offsets-0',
        ])
        tps.forEach((tp, i) => {
          const row = rows[i]!
          const o: PartitionOffsets = want[i]!
          expect({
            logStartOffset: row.logStartOffset,
            lastStableOffset: row.lastStableOffset,
            highWatermark: row.highWatermark,
          }).toEqual(o)
          const held = holdersAt.get(`${tp.topic}-${tp.partition}`)!
          expect(row.open.count).toBe(held.length)
          expect(row.open.atLeast).toBeUndefined()
          expect(row.open.holders.map((h) => h.producerId).sort()).toEqual(held.map((h) => h.id).sort())
          if (held.length > 0) {
            seen++
            expect(row.lastStableOffset).toBeLessThan(row.highWatermark)
            expect(Math.min(...row.open.holders.map((h) => h.firstOffset))).toBe(row.lastStableOffset)
            for (const h of row.open.holders) {
              expect(h.firstOffset).toBe(held.find((x) => x.id === h.producerId)!.first)
              expect(h.transactionalId).toBe(
                producers.find((p) => p.producerId === h.producerId)?.transactionalId ?? null,
              )
            }
          } else expect(row.lastStableOffset).toBe(row.highWatermark)
          if (row.role !== 'input') {
            expect(row.lag).toBeUndefined()
            return
          }
          const c = committed.find((x) => x.topic === tp.topic && x.partition === tp.partition)?.offset ?? null
          expect(row.committed).toBe(c)
          expect(row.lag).toBe(c === null ? null : o.highWatermark - c)
        })
      }
      expect(seen).toBeGreaterThan(0)
    } finally {
      await time.runUntilSettled(lab.close())
    }
  })

  it('is in the snapshot, its row for the partition log view showing the same offsets as the view', async () => {
    const { time, lab } = await startLab()
    try {
      await time.runFor(3_000)
      for (const topic of ['output', 'input', 'changelog'] as const) {
        expect(
          await time.runUntilSettled(lab.execute('selectPartition', { topic, partition: 2, window: 'latest' })),
        ).toEqual({ ok: true })
        await time.runUntil(() => lab.snapshot().partitionLog?.topic.endsWith(topic) === true, 5_000)
        for (let i = 0; i < 10; i++) {
          await time.runFor(130)
          const s = lab.snapshot()
          expect(
            s.partitions!.filter((r) => r.role === 'input' || r.role === 'output' || r.role === 'changelog'),
          ).toHaveLength(12)
          const view = s.partitionLog!
          const row = s.partitions!.find((r) => r.topic === view.topic && r.partition === view.partition)!
          expect([row.lastStableOffset, row.highWatermark, row.logStartOffset]).toEqual([
            view.lastStableOffset,
            view.highWatermark,
            view.logStartOffset,
          ])
        }
      }
      expect(
        lab
          .snapshot()
          .partitions!.filter((r) => r.role === 'input')
          .every((r) => typeof r.lag === 'number' && r.lag >= 0),
      ).toBe(true)
    } finally {
      await time.runUntilSettled(lab.close())
    }
  })

  const listsInternalPartitions =
    'on a cluster with internal topics, lists the partitions holding the group and the transactional ids; where ' +
    'the scan cannot name the holders it says "at least" from the LSO'
  it(listsInternalPartitions, async () => {
    const offsets = (tp: TopicPartition): PartitionOffsets =>
      tp.topic === 'out' && tp.partition === 0
        ? { logStartOffset: 0, lastStableOffset: 10, highWatermark: 20 }
        : tp.topic === 'out'
          ? { logStartOffset: 0, lastStableOffset: 0, highWatermark: 5_000 }
          : { logStartOffset: 0, lastStableOffset: 7, highWatermark: 7 }
    const stored = (tp: TopicPartition, offset: number): StoredRecordView => ({
      topic: tp.topic,
      partition: tp.partition,
      offset,
      key: 'k',
      value: 'v',
      headers: undefined,
      timestamp: 0,
      producerId: 9,
      producerEpoch: 1,
      sequence: offset,
      transactional: true,
      control: null,
      txnOutcome: 'pending',
    })
    const inspector: LogInspector = {
      topics: async () => [],
      offsets: async (tp) => offsets(tp),
      // out-0: its transaction ended while the table read (no pending record); out-1: more records than a scan reads.
      readRaw: async (tp, from, to, max) =>
        tp.partition === 0 ? [] : Array.from({ length: Math.min(max, to - from) }, (_, i) => stored(tp, from + i)),
      committedOffsets: async () => [{ topic: 'in', partition: 0, offset: 5 }],
    }
    const producers = [
      { transactionalId: 'app-0_0', producerId: 9 },
      { transactionalId: 'app-0_1', producerId: 10 },
    ]
    const internal = [
      { topic: '__consumer_offsets', partitions: 50 },
      { topic: '__transaction_state', partitions: 50 },
    ]
    const { rows } = await readPartitions(inspector, {
      topics: { input: 'in', output: 'out', changelog: 'cl' },
      partitions: 2,
      groupId: 'app',
      producers,
      internal,
    })
    const txnParts = [...new Set(producers.map((p) => internalPartitionFor(p.transactionalId, 50)))].sort(
      (a, b) => a - b,
    )
    expect(rows.map((r) => `${r.topic}-${r.partition}`)).toEqual([
      'in-0',
      'in-1',
      'out-0',
      'out-1',
      'cl-0',
      'cl-1',
      `__consumer_offsets-${internalPartitionFor('app', 50)}`,
      ...txnParts.map((p) => `__transaction_state-${p}`),
    ])
    const [in0, in1, out0, out1] = rows
    expect([in0!.committed, in0!.lag, in1!.committed, in1!.lag]).toEqual([5, 2, null, null])
    expect(out0!.open).toEqual({ count: 1, atLeast: true, holders: [] })
    expect(out1!.open).toEqual({
      count: 1,
      atLeast: true,
      holders: [{ producerId: 9, epoch: 1, transactionalId: 'app-0_0', firstOffset: 0 }],
    })
    expect(OPEN_SCAN_RECORDS).toBeLessThan(5_000)
    expect(rows.find((r) => r.topic === 'cl')!.open).toEqual({ count: 0, holders: [] })
  })

  it('reads the committed offsets before the high watermarks: a commit is never shown above its HW', async () => {
    // A log that grows and is committed while the table reads: each read finds 10 more records,
    // each committed offset read is the HW of that moment.
    let hw = 100
    const inspector: LogInspector = {
      topics: async () => [],
      offsets: async () => {
        hw += 10
        return { logStartOffset: 0, lastStableOffset: hw, highWatermark: hw }
      },
      readRaw: async () => [],
      committedOffsets: async () => {
        hw += 10
        return [{ topic: 'in', partition: 0, offset: hw }]
      },
    }
    const { rows } = await readPartitions(inspector, {
      topics: { input: 'in', output: 'out', changelog: 'cl' },
      partitions: 1,
      groupId: 'app',
      producers: [],
      internal: [],
    })
    const in0 = rows.find((r) => r.topic === 'in')!
    expect(in0.committed).toBeLessThanOrEqual(in0.highWatermark)
    expect(in0.lag).toBe(in0.highWatermark - in0.committed!)
  })

  const showsOffsetsTopicOnceCreated =
    "on a new cluster, shows the group's __consumer_offsets partition once the cluster creates that topic (asked " +
    'again until both internal topics are there)'
  it(showsOffsetsTopicOnceCreated, async () => {
    const time = new MockTime()
    let listed: { topic: string; partitions: number }[] = []
    let asked = 0
    const inspector: LogInspector = {
      topics: async () => {
        asked++
        return listed
      },
      offsets: async () => ({ logStartOffset: 0, lastStableOffset: 3, highWatermark: 3 }),
      readRaw: async () => [],
      committedOffsets: async () => [],
    }
    const rt = {
      time,
      connection: { inspector: () => inspector },
      topics: { input: 'in', output: 'out', changelog: 'cl' },
      partitions: 1,
      groupId: 'app',
    } as unknown as LabRuntime
    const book = new PartitionsBook()
    const refresh = () =>
      book.refresh(
        rt,
        () => rt,
        [],
        async () => {},
      )
    const internalRows = () =>
      book
        .rows!.filter((r) => r.role === 'offsets' || r.role === 'transaction-state')
        .map((r) => `${r.topic}-${r.partition}`)
    await refresh()
    expect(internalRows()).toEqual([])
    // The group's first coordinator lookup creates __consumer_offsets.
    listed = [{ topic: '__consumer_offsets', partitions: 50 }]
    await refresh()
    expect(asked, 'not asked again within REASK_INTERNAL_MS').toBe(1)
    await time.runFor(REASK_INTERNAL_MS)
    await refresh()
    expect(internalRows()).toEqual([`__consumer_offsets-${internalPartitionFor('app', 50)}`])
    listed = [...listed, { topic: '__transaction_state', partitions: 50 }]
    await time.runFor(REASK_INTERNAL_MS)
    await refresh()
    expect(internalRows()).toHaveLength(1)
    // Both there: never asked again for this runtime.
    await time.runFor(10 * REASK_INTERNAL_MS)
    await refresh()
    expect(asked).toBe(3)
  })
})
