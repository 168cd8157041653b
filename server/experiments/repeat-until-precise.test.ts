// The sweep's repetition logic, driven by a fake runner with known samples: cells run in turn,
// each stops once precise (not before 6 runs), or at the cap; and overlapping intervals are warned of.

import { describe, expect, it } from 'vitest'
import type { RepetitionResult } from '../../lib/experiment-protocol.ts'
import { cellPrecise, noiseWarnings } from '../../lib/experiment-uncertainty.ts'
import { needsAnotherRun, repeatPlan, repeatUntilPrecise, type CellKey, type RunOrder } from './repeat-until-precise.ts'

const rep = (run: number, throughput: number, recovery: number): RepetitionResult => ({
  repetition: run,
  seed: run,
  throughputPerSec: throughput,
  throughputWindowMs: 1000,
  saturated: true,
  latencyP50Ms: 5,
  latencyP99Ms: 9,
  latencyMaxMs: 10,
  latencyRecords: 10,
  latencyWindowMs: 1000,
  killedWorker: 'worker-1',
  killDelayMs: 0,
  recoveryMs: recovery,
  phases: { detection: recovery, rebalance: 0, fence: 0, restore: 0, catchUp: 0 },
  redone: 0,
  duplicates: 0,
  lost: 0,
  load: null,
})

/** Samples per cell, handed out in order; the fake runner records the order of the runs. */
function fakeRunner(samples: Record<string, [number, number][]>) {
  const order: string[] = []
  const run = async (o: RunOrder) => {
    const key = `${o.guarantee}@${o.commitIntervalMs}`
    order.push(`${key}#${o.run}`)
    const s = samples[key]![o.run - 1]
    if (!s) throw new Error(`${key} run ${o.run}: no sample left`)
    return rep(o.run, s[0], s[1])
  }
  return { run, order }
}

const A: CellKey = { guarantee: 'at_least_once', commitIntervalMs: 10 }
const B: CellKey = { guarantee: 'exactly_once', commitIntervalMs: 10 }
const steady = (x: number, y: number, n = 12): [number, number][] =>
  Array.from({ length: n }, (_, i) => [x + (i % 3), y + (i % 2)])
/** Wide until its 9th run, after which the extremes drop out of the interval. */
const noisyThenSteady: [number, number][] = [
  [50, 1000],
  [150, 1000],
  [100, 1000],
  [100, 1000],
  [100, 1000],
  [100, 1000],
  [100, 1000],
  [100, 1000],
  [100, 1000],
  [100, 1000],
  [100, 1000],
  [100, 1000],
]
const alwaysWide: [number, number][] = Array.from({ length: 12 }, (_, i) => [i % 2 === 0 ? 50 : 150, 1000])

describe('repeating the cells until precise', () => {
  it('runs the cells in turn, and stops a precise cell at 6 runs', async () => {
    const f = fakeRunner({ 'at_least_once@10': steady(100, 1000), 'exactly_once@10': steady(200, 1000) })
    const cells = await repeatUntilPrecise({ ...repeatPlan(6, 10, 0.1), cells: [A, B], run: f.run })
    expect(cells.map((c) => c.repetitions.length)).toEqual([6, 6])
    // Interleaved: A and B alternate, never two runs of one cell in a row.
    expect(f.order.slice(0, 4)).toEqual([
      'at_least_once@10#1',
      'exactly_once@10#1',
      'at_least_once@10#2',
      'exactly_once@10#2',
    ])
    expect(cells.every((c) => cellPrecise(c))).toBe(true)
    expect(cells[0]!.throughputPerSec.low).toBe(100)
    expect(cells[0]!.throughputPerSec.high).toBe(102)
  })

  it('keeps a wide cell running while the precise one stops; stops at the cap when it never narrows', async () => {
    const f = fakeRunner({ 'at_least_once@10': noisyThenSteady, 'exactly_once@10': alwaysWide })
    const planned: number[] = []
    const cells = await repeatUntilPrecise({
      ...repeatPlan(6, 10, 0.1),
      cells: [A, B],
      run: f.run,
      onResult: (_, p) => planned.push(p),
    })
    // A: [min, max] = [50, 150] until 9 runs, then ranks 2..8 are all 100.
    expect(cells[0]!.repetitions).toHaveLength(9)
    expect(cellPrecise(cells[0]!)).toBe(true)
    // B never narrows: the cap.
    expect(cells[1]!.repetitions).toHaveLength(10)
    expect(cellPrecise(cells[1]!)).toBe(false)
    // After A stopped, only B ran.
    expect(f.order.slice(-1)).toEqual(['exactly_once@10#10'])
    expect(f.order.filter((x) => x.startsWith('at_least_once'))).toHaveLength(9)
    // The planned total starts at cells × cap and ends at the runs made.
    expect(planned[0]).toBe(20)
    expect(planned.at(-1)).toBe(19)
  })

  it('a fixed number of repetitions when the cap equals the minimum', async () => {
    const f = fakeRunner({ 'at_least_once@10': alwaysWide, 'exactly_once@10': alwaysWide })
    const cells = await repeatUntilPrecise({ ...repeatPlan(3, undefined, 0.1), cells: [A, B], run: f.run })
    expect(cells.map((c) => c.repetitions.length)).toEqual([3, 3])
    expect(cells[0]!.throughputPerSec.low).toBeNull()
    expect(needsAnotherRun(undefined, repeatPlan(1, undefined, 0.1))).toBe(true)
  })

  it('warns when two points cannot be ordered: overlapping intervals', async () => {
    const C: CellKey = { guarantee: 'at_least_once', commitIntervalMs: 100 }
    // A ~ 100–102 and C ~ 101–103 overlap; B (200) stands clear of both.
    const f = fakeRunner({
      'at_least_once@10': steady(100, 1000),
      'exactly_once@10': steady(200, 3000),
      'at_least_once@100': steady(101, 5000),
    })
    const cells = await repeatUntilPrecise({ ...repeatPlan(6, 6, 0.1), cells: [A, B, C], run: f.run })
    const w = noiseWarnings(cells)
    expect(w.map((x) => [x.figure, x.a.commitIntervalMs, x.b.commitIntervalMs, x.a.guarantee, x.b.guarantee])).toEqual([
      ['throughputPerSec', 10, 100, 'at_least_once', 'at_least_once'],
    ])
    expect(w[0]!.text).toMatch(
      new RegExp(
        'throughput: at_least_once at 10 ms \\(100–102 records\\/s\\) and ' +
          'at_least_once at 100 ms \\(101–103 records\\/s\\): the 95% intervals overlap',
      ),
    )
    // Moved apart, no warning.
    const g = fakeRunner({
      'at_least_once@10': steady(100, 1000),
      'exactly_once@10': steady(200, 3000),
      'at_least_once@100': steady(150, 5000),
    })
    expect(noiseWarnings(await repeatUntilPrecise({ ...repeatPlan(6, 6, 0.1), cells: [A, B, C], run: g.run }))).toEqual(
      [],
    )
  })
})
