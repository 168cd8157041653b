// Processed throughput over whole commit intervals: the window of each partition opens and closes
// on its own commits, so a long commit interval is neither favoured nor penalised by where a fixed
// window would cut it.

import { describe, expect, it } from 'vitest'
import { commitWindowRate, type PartitionCommit } from './commit-window.ts'

/** A partition processing `perSec` from t=0 and committing every `everyMs`, first at `phaseMs`. */
function steady(perSec: number, everyMs: number, phaseMs: number, untilMs: number): PartitionCommit[] {
  const out: PartitionCommit[] = []
  for (let t = phaseMs; t <= untilMs; t += everyMs) out.push({ t, offset: Math.round((perSec * t) / 1000) })
  return out
}

describe('commitWindowRate', () => {
  it("gives the same rate at 100 ms and at 5000 ms for the same work, whatever the commits' phase", () => {
    const at100 = [steady(1000, 100, 30, 20_000), steady(2000, 100, 70, 20_000)]
    const at5000 = [steady(1000, 5000, 1200, 20_000), steady(2000, 5000, 4100, 20_000)]
    expect(commitWindowRate(at100, 2000, 5000)).toEqual({ perSec: 3000, partitions: 2, shortestMs: 5000 })
    expect(commitWindowRate(at5000, 2000, 5000)).toEqual({ perSec: 3000, partitions: 2, shortestMs: 5000 })
  })

  it('waits (null) until every partition that committed after the start has a whole window', () => {
    const commits = [steady(1000, 5000, 1000, 12_000), steady(1000, 5000, 4000, 6_000)]
    expect(commitWindowRate(commits, 2000, 5000)).toBeNull()
    commits[1]!.push({ t: 9000, offset: 9000 })
    expect(commitWindowRate(commits, 2000, 5000)).toEqual({ perSec: 2000, partitions: 2, shortestMs: 5000 })
  })

  it('counts only what was committed inside each window: work before the first commit is left out', () => {
    // 10,000 records committed at t=2000 (done before the window), then 100/s.
    const commits = [
      [
        { t: 2000, offset: 10_000 },
        { t: 7000, offset: 10_500 },
      ],
    ]
    expect(commitWindowRate(commits, 1000, 5000)!.perSec).toBe(100)
  })

  it('leaves out partitions with no commit since the start, and is null when none has one', () => {
    const commits = [steady(1000, 1000, 0, 10_000), [{ t: 500, offset: 7 }]]
    expect(commitWindowRate(commits, 1000, 5000)).toEqual({ perSec: 1000, partitions: 1, shortestMs: 5000 })
    expect(commitWindowRate([[{ t: 500, offset: 7 }], []], 1000, 5000)).toBeNull()
  })
})
