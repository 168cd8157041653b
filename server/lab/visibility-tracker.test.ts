// The read_committed reader behind the visible output rate and end-to-end latency: it reads at
// most MAX_PER_POLL records a poll, so a long transaction's commit is read over a few polls
// between the engine's work, and no partition that keeps growing holds the others back.

import { describe, expect, it } from 'vitest'
import type { ConsumedRecord, LogReader } from '../log/types.ts'
import { MAX_PER_POLL, VisibilityTracker } from './visibility-tracker.ts'

/** Partitions whose last stable offset the test sets; every offset below it is a visible record appended at t=0. */
function fakeLog(stable: number[]): LogReader {
  return {
    offsets: async ({ partition }) => ({
      logStartOffset: 0,
      lastStableOffset: stable[partition]!,
      highWatermark: stable[partition]!,
    }),
    read: async ({ topic, partition }, from, maxRecords) => {
      const to = Math.min(stable[partition]!, from + maxRecords)
      const records: ConsumedRecord[] = []
      for (let o = from; o < to; o++)
        records.push({ topic, partition, offset: o, key: 'k', value: '1', headers: undefined, timestamp: 0 })
      return { records, nextOffset: Math.max(from, to) }
    },
  }
}

describe('VisibilityTracker', () => {
  it('reads a burst over several polls, at most MAX_PER_POLL records each, and loses none', async () => {
    const stable = [30_000, 30_000, 30_000]
    const t = new VisibilityTracker(fakeLog(stable), 'output', 3)
    const perPoll: number[] = []
    for (let i = 0; i < 6; i++) {
      const before = t.total
      await t.poll(100)
      perPoll.push(t.total - before)
    }
    expect(Math.max(...perPoll)).toBeLessThanOrEqual(MAX_PER_POLL)
    expect(t.total).toBe(90_000)
    expect(t.positions).toEqual(stable)
    expect(t.drain()).toMatchObject({ records: 90_000, p50: 100, max: 100 })
  })

  it('a partition that grows past the budget at every poll does not keep another from being read', async () => {
    const stable = [0, 5]
    const t = new VisibilityTracker(fakeLog(stable), 'output', 2)
    for (let i = 0; i < 2; i++) {
      stable[0]! += MAX_PER_POLL + 5_000
      await t.poll(10)
    }
    expect(t.positions[1]).toBe(5)
  })
})
