// describeTransactions over a scripted source: a transaction read between states (open on its
// partition while its coordinator already says CompleteCommit, its markers being written) is read
// again and not called hanging; a hanging one stays so; abort-hanging refuses the first.

import { describe, expect, it } from 'vitest'
import { abortHangingTransaction, describeTransactions, type TransactionsSource } from './find-hanging.ts'
import type { CoordinatorTransaction, PartitionProducer, TransactionsRead } from './types.ts'

const producer = (o: Partial<PartitionProducer> = {}): PartitionProducer => ({
  topic: 'out',
  partition: 4,
  producerId: 53,
  epoch: 5,
  lastSequence: 5,
  lastTimestampMs: 1_000,
  coordinatorEpoch: 0,
  currentTxnStartOffset: 206,
  ...o,
})
const coordinator = (o: Partial<CoordinatorTransaction> = {}): CoordinatorTransaction => ({
  transactionalId: 'app-2',
  producerId: 53,
  epoch: 5,
  state: 'CompleteCommit',
  timeoutMs: 10_000,
  startTimeMs: -1,
  lastUpdateMs: null,
  partitions: [],
  ...o,
})

/** A source answering each read with the next scripted one, and counting aborts. */
function scripted(reads: TransactionsRead[]): TransactionsSource & { aborted: number; asked: number } {
  const s = {
    aborted: 0,
    asked: 0,
    transactions: async () => reads[Math.min(s.asked++, reads.length - 1)]!,
    abortTransaction: async () => {
      s.aborted++
    },
  }
  return s
}

const racing: TransactionsRead[] = [
  // The partition still shows the transaction open; its coordinator has completed it.
  { coordinators: [coordinator()], producers: [producer()] },
  // Read again: its COMMIT marker has landed.
  { coordinators: [coordinator()], producers: [producer({ currentTxnStartOffset: -1 })] },
]
const hanging: TransactionsRead[] = [
  { coordinators: [], producers: [producer({ producerId: 8_000_001 })] },
  { coordinators: [], producers: [producer({ producerId: 8_000_001 })] },
]

describe('describeTransactions (find-hanging) reads a hanging candidate again', () => {
  it('a transaction between states is not hanging: the second read finds it closed', async () => {
    const source = scripted(racing)
    const r = await describeTransactions(source, [{ topic: 'out', partition: 4 }], {}, 5_000)
    expect(source.asked).toBe(2)
    expect(r.open).toEqual([])
    expect(r.producers).toEqual([producer({ currentTxnStartOffset: -1 })])
  })

  const reportedAsSecondReadFinds =
    'a transaction the second read finds ongoing again (the next one, say) is reported as that read has it'
  it(reportedAsSecondReadFinds, async () => {
    const source = scripted([
      racing[0]!,
      {
        coordinators: [
          coordinator({ state: 'Ongoing', startTimeMs: 4_900, partitions: [{ topic: 'out', partition: 4 }] }),
        ],
        producers: [producer({ currentTxnStartOffset: 212 })],
      },
    ])
    const r = await describeTransactions(source, [{ topic: 'out', partition: 4 }], {}, 5_000)
    expect(r.open).toMatchObject([{ verdict: 'ongoing', currentTxnStartOffset: 212, transactionalId: 'app-2' }])
  })

  it('a hanging transaction stays hanging on the second read, from the same offset', async () => {
    const source = scripted(hanging)
    const r = await describeTransactions(source, [{ topic: 'out', partition: 4 }], {}, 5_000)
    expect(r.open).toMatchObject([
      { verdict: 'hanging', producerId: 8_000_001, currentTxnStartOffset: 206, transactionalId: null },
    ])
  })

  it('reads once when nothing looks hanging', async () => {
    const source = scripted([
      {
        coordinators: [
          coordinator({ state: 'Ongoing', startTimeMs: 4_900, partitions: [{ topic: 'out', partition: 4 }] }),
        ],
        producers: [producer()],
      },
    ])
    expect((await describeTransactions(source, [{ topic: 'out', partition: 4 }], {}, 5_000)).open).toMatchObject([
      { verdict: 'ongoing' },
    ])
    expect(source.asked).toBe(1)
  })

  it('abort-hanging refuses a transaction between states and writes nothing; it aborts a hanging one', async () => {
    const racy = scripted(racing)
    expect(
      await abortHangingTransaction(racy, { topic: 'out', partition: 4, producerId: 53 }, {}, () => 5_000),
    ).toMatchObject({ ok: false, conflict: true })
    expect(racy.aborted).toBe(0)
    const stuck = scripted(hanging)
    expect(
      await abortHangingTransaction(stuck, { topic: 'out', partition: 4, producerId: 8_000_001 }, {}, () => 5_000),
    ).toMatchObject({ ok: true })
    expect(stuck.aborted).toBe(1)
  })
})
