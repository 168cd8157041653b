import { describe, expect, it } from 'vitest'
import { foldGeneration, foldLag, type GenerationHistory } from '../lib/group-history.ts'
import { AFTER_KILL, BEFORE_KILL, REPLACED } from '../lib/__fixtures__/group-looks.ts'
import type { GroupView } from '../lib/group-view.ts'
import { fmtEnd, lagRows, latestLag, workerIndex } from './group-rows.ts'

const history = [BEFORE_KILL, AFTER_KILL, REPLACED].reduce<GenerationHistory>(
  (h, o) => foldGeneration(h, o, () => 'killed'),
  { generations: [], earlier: 0 },
)
const group = { generations: history.generations, members: [] } as unknown as GroupView

describe('the group view’s rows', () => {
  it('tells a generation’s end by worker: who was killed or joined and which partition went where', () => {
    const workerOf = workerIndex(group)
    expect(fmtEnd(history.generations[0]!.endedBy!, workerOf)).toBe('w2 killed; p2 w2→w1, p3 w2→w3')
    expect(fmtEnd(history.generations[1]!.endedBy!, workerOf)).toBe('w4 joined; p2 w1→w4, p3 w3→w4')
    expect(fmtEnd({ atMs: 0, joined: [], gone: [], moved: [] }, workerOf)).toBe(
      'rebalance, same members and assignment',
    )
  })

  it('charts one row per sample time with a lag per partition, in seconds since the lab started', () => {
    const lag = foldLag(foldLag([], 11_000, [null, 4], [3, 10]), 12_000, [2, 10], [3, 10])
    expect(lagRows(lag, 10_000)).toEqual([
      { x: 1, p0: null, p1: 6 },
      { x: 2, p0: 1, p1: 0 },
    ])
    expect(latestLag(lag).map((p) => [p.partition, p.committed, p.end, p.lag])).toEqual([
      [0, 2, 3, 1],
      [1, 10, 10, 0],
    ])
  })
})
