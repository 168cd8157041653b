import { describe, expect, it } from 'vitest'
import { classifyOpenTransactions, type CoordinatorView, type OpenProducerState } from './hanging-transactions.ts'

const open = (o: Partial<OpenProducerState> = {}): OpenProducerState => ({
  topic: 'out',
  partition: 2,
  producerId: 7,
  epoch: 3,
  coordinatorEpoch: 0,
  lastTimestampMs: 1_000,
  currentTxnStartOffset: 40,
  ...o,
})
const coordinator = (o: Partial<CoordinatorView> = {}): CoordinatorView => ({
  transactionalId: 'app-0_2',
  producerId: 7,
  epoch: 3,
  state: 'Ongoing',
  timeoutMs: 10_000,
  startTimeMs: 1_000,
  partitions: [{ topic: 'out', partition: 2 }],
  ...o,
})

describe('classifyOpenTransactions (find-hanging)', () => {
  it('an ongoing transaction its coordinator lists on the partition is ongoing; past its timeout, overdue', () => {
    expect(classifyOpenTransactions([open()], [coordinator()], 5_000)[0]).toMatchObject({
      verdict: 'ongoing',
      transactionalId: 'app-0_2',
    })
    expect(classifyOpenTransactions([open()], [coordinator()], 12_000)[0]).toMatchObject({ verdict: 'overdue' })
  })

  it('hanging: no coordinator knows the producer id, or its state, partitions or epoch disagree', () => {
    expect(classifyOpenTransactions([open()], [], 5_000)[0]).toMatchObject({
      verdict: 'hanging',
      transactionalId: null,
    })
    expect(classifyOpenTransactions([open()], [coordinator({ state: 'CompleteCommit' })], 5_000)[0]!.reason).toMatch(
      /CompleteCommit/,
    )
    expect(
      classifyOpenTransactions([open()], [coordinator({ partitions: [{ topic: 'out', partition: 1 }] })], 5_000)[0],
    ).toMatchObject({ verdict: 'hanging' })
    expect(classifyOpenTransactions([open()], [coordinator({ epoch: 4 })], 5_000)[0]!.reason).toMatch(/epoch 4/)
  })

  it('producers without an open transaction are not listed', () => {
    expect(classifyOpenTransactions([open({ currentTxnStartOffset: -1 })], [], 5_000)).toEqual([])
  })
})
