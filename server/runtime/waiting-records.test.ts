// The backlog both runtimes bound their load by: the records written less each partition's
// furthest position, its live task's consumed offset or the group's commit.

import { describe, expect, it } from 'vitest'
import { waitingRecords } from './waiting-records.ts'

describe('waitingRecords', () => {
  const committed = [100, null, 40]

  it("takes each partition's furthest position: its task's consumed offset or the committed offset", () => {
    const tasks = [
      { partition: 0, consumedOffset: 150 },
      { partition: 1, consumedOffset: 20 },
      { partition: 2, consumedOffset: 10 },
    ]
    // Positions 150, 20, 40 (the task on 2 restarted behind the commit).
    expect(waitingRecords([200, 50, 60], committed, tasks)).toBe(50 + 30 + 20)
    expect(waitingRecords(310, committed, tasks)).toBe(310 - 210)
  })

  it('counts a partition without a task from its commit, and without a commit from 0', () => {
    expect(waitingRecords([120, 30, 40], committed, [])).toBe(20 + 30 + 0)
  })

  it('is never negative, and a partition ahead of its end (ends read before the positions) hides no other', () => {
    expect(waitingRecords(100, committed, [{ partition: 0, consumedOffset: 500 }])).toBe(0)
    expect(waitingRecords([100, 30, 40], committed, [{ partition: 0, consumedOffset: 500 }])).toBe(30)
  })

  it('ignores a task on a partition the lab does not have', () => {
    expect(waitingRecords([100, 0, 40], committed, [{ partition: 7, consumedOffset: 1_000 }])).toBe(0)
  })
})
