import { describe, expect, it } from 'vitest'
import type { ConsumedRecord, TopicPartition } from '../types.ts'
import { PositionGuard, type FetchedBatch } from './position-guard.ts'

const TP: TopicPartition = { topic: 'in', partition: 0 }
const KEY = 'in-0'

function rec(offset: number): ConsumedRecord {
  return { ...TP, offset, key: 'k', value: String(offset), headers: undefined, timestamp: 0 }
}

/** A fetch from `from` that returned these offsets and ended at `next`. */
function batch(from: number, offsets: number[], next = (offsets.at(-1) ?? from - 1) + 1): FetchedBatch {
  return { fetchedOffset: from, nextFetchOffset: next, records: offsets.map(rec) }
}

/** The partition's visible offsets, as a group-less read_committed fetch would find them. */
function guardOver(visible: number[]) {
  const ranges: [number, number][] = []
  const guard = new PositionGuard(async (_tp, from, to) => {
    ranges.push([from, to])
    return visible.some((o) => o >= from && o < to)
  })
  return { guard, ranges }
}

describe('the Kafka consumer position guard', () => {
  const takesFirstBatch =
    'takes the first batch of a partition it has no position for (kafkajs starts it at the committed offset)'
  it(takesFirstBatch, async () => {
    const { guard } = guardOver([])
    expect(await guard.admit(TP, batch(7, [7, 8]))).toEqual({ kind: 'take', records: [rec(7), rec(8)] })
    expect(guard.expected(KEY)).toBe(9)
  })

  it('takes a batch fetched from the position whole, gaps of markers and aborted records included', async () => {
    const { guard, ranges } = guardOver([])
    guard.startAt(KEY, 10)
    expect(await guard.admit(TP, batch(10, [10, 13, 14], 16))).toEqual({
      kind: 'take',
      records: [rec(10), rec(13), rec(14)],
    })
    expect(guard.expected(KEY)).toBe(16)
    expect(ranges).toEqual([])
  })

  it('drops records below the position: a fetch restarted from the committed offset after a rebalance', async () => {
    const { guard } = guardOver([])
    guard.startAt(KEY, 5)
    expect(await guard.admit(TP, batch(2, [2, 3, 4, 5, 6]))).toEqual({ kind: 'take', records: [rec(5), rec(6)] })
    expect(guard.expected(KEY)).toBe(7)
  })

  it('refetches from the position when a batch lies wholly below it', async () => {
    const { guard } = guardOver([])
    guard.startAt(KEY, 20)
    expect(await guard.admit(TP, batch(2, [2, 3]))).toEqual({ kind: 'refetch', from: 20 })
    expect(guard.expected(KEY)).toBe(20)
  })

  const refusesBatchPastVisibleGap =
    'refuses a batch past a gap of visible records (a fetch from before a seek) and refetches from the first ' +
    'missing offset'
  it(refusesBatchPastVisibleGap, async () => {
    const { guard, ranges } = guardOver([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    guard.startAt(KEY, 3)
    expect(await guard.admit(TP, batch(6, [6, 7]))).toEqual({ kind: 'refetch', from: 3 })
    expect(ranges).toEqual([[3, 6]])
    expect(guard.expected(KEY)).toBe(3)
    expect(await guard.admit(TP, batch(3, [3, 4, 5]))).toEqual({ kind: 'take', records: [rec(3), rec(4), rec(5)] })
  })

  const takesBatchPastEmptyGap =
    'takes a batch past a gap that holds nothing visible (a batch of markers kafkajs moved past, or deleted ' +
    'records)'
  it(takesBatchPastEmptyGap, async () => {
    const { guard, ranges } = guardOver([0, 1, 5])
    guard.startAt(KEY, 2)
    expect(await guard.admit(TP, batch(4, [5]))).toEqual({ kind: 'take', records: [rec(5)] })
    expect(ranges).toEqual([[2, 4]])
    expect(guard.expected(KEY)).toBe(6)
  })

  it('drops a gapped batch when the partition was sought while the gap was read', async () => {
    let seekDuringRead = (): void => {}
    const guard = new PositionGuard(async () => {
      seekDuringRead()
      return false
    })
    guard.startAt(KEY, 2)
    seekDuringRead = () => guard.startAt(KEY, 0)
    expect(await guard.admit(TP, batch(4, [4]))).toEqual({ kind: 'drop' })
    expect(guard.expected(KEY)).toBe(0)
  })

  it('forgets a revoked partition: its next owner starts where the group says', async () => {
    const { guard } = guardOver([])
    guard.startAt(KEY, 9)
    guard.forget(KEY)
    expect(guard.expected(KEY)).toBeUndefined()
    expect(await guard.admit(TP, batch(4, [4]))).toEqual({ kind: 'take', records: [rec(4)] })
  })
})
