import { describe, expect, it } from 'vitest'
import { commitRate, type CommitSample } from './commit-rate.ts'

// Two partitions committing every 100 ms: p0 advances 50 records a commit, p1 20.
const staircase: CommitSample[] = []
for (let i = 0; i <= 10; i++) {
  staircase.push({ partition: 0, offset: 50 * i, atMs: 1_000 + 100 * i })
  staircase.push({ partition: 1, offset: 20 * i, atMs: 1_030 + 100 * i })
}

describe('processed throughput from the group commits', () => {
  it('is the sum of each partition rate between its first and last commit in the window', () => {
    expect(commitRate(staircase, 2, 1_000, 2_000)).toBeCloseTo(500 + 200, 9)
  })

  it('does not depend on where the window edges fall between commits', () => {
    expect(commitRate(staircase, 2, 1_010, 1_990)).toBeCloseTo(700, 9)
    expect(commitRate(staircase, 2, 1_250, 1_760)).toBeCloseTo(700, 9)
  })

  it('is unavailable when a partition committed fewer than twice inside the window', () => {
    expect(commitRate(staircase, 2, 1_000, 1_050)).toBeNull()
    expect(commitRate(staircase, 3, 1_000, 2_000)).toBeNull()
    expect(commitRate([], 1, 0, 1_000)).toBeNull()
  })
})
