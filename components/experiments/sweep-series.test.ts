import { describe, expect, it } from 'vitest'
import { cellOf, type RepetitionResult } from '../../lib/experiment-protocol.ts'
import { latencyRows, recoveryRows, runsLabel, statRows, tradeOffPoints } from './sweep-series.ts'

const rep = (throughput: number, recovery: number | null): RepetitionResult => ({
  repetition: 1,
  seed: 1,
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
  phases: { detection: 900, rebalance: 1, fence: 0, restore: 2, catchUp: recovery === null ? null : recovery - 903 },
  redone: 1,
  duplicates: 1,
  lost: 0,
})

const current = [cellOf('exactly_once', 100, [rep(10, 1000), rep(30, 1100)]), cellOf('exactly_once', 10, [rep(5, 950)])]
const earlier = [cellOf('exactly_once', 1000, [rep(50, 1500)])]

describe('sweep chart rows', () => {
  const oneRowPerInterval =
    'have one row per interval of either run, with the median and, from 6 runs, its 95% interval per guarantee'
  it(oneRowPerInterval, () => {
    expect(statRows(current, [earlier], (c) => c.throughputPerSec)).toEqual([
      { x: 10, exactly_once: 5, exactly_once_band: null, exactly_once_err: null },
      { x: 100, exactly_once: 20, exactly_once_band: null, exactly_once_err: null },
      { x: 1000, cmp_exactly_once: 50, cmp_exactly_once_band: null, cmp_exactly_once_err: null },
    ])
    expect(latencyRows(current, [])[0]).toEqual({
      x: 10,
      exactly_once_p50: 5,
      exactly_once_p50_err: null,
      exactly_once_p99: 9,
    })
    // Six runs: the interval is [min, max] around the median 35; the error bar is relative to it.
    const six = [
      cellOf(
        'at_least_once',
        10,
        [10, 20, 30, 40, 50, 60].map((t) => rep(t, 1000)),
      ),
    ]
    expect(statRows(six, [], (c) => c.throughputPerSec)).toEqual([
      { x: 10, at_least_once: 35, at_least_once_band: [10, 60], at_least_once_err: [25, 25] },
    ])
    expect(runsLabel(six)).toBe('6 runs per cell')
    expect(runsLabel([...six, ...current])).toBe('1–6 runs per cell')
    expect(runsLabel(current.slice(1))).toBe('1 run per cell')
    // A second overlay has keys of its own.
    expect(
      statRows(six, [earlier, current], (c) => c.throughputPerSec).map((r) =>
        Object.keys(r)
          .filter((k) => k.startsWith('cmp'))
          .sort(),
      ),
    ).toEqual([
      ['cmp2_exactly_once', 'cmp2_exactly_once_band', 'cmp2_exactly_once_err'],
      ['cmp2_exactly_once', 'cmp2_exactly_once_band', 'cmp2_exactly_once_err'],
      ['cmp_exactly_once', 'cmp_exactly_once_band', 'cmp_exactly_once_err'],
    ])
  })

  it('stack the recovery phases per interval, and pair recovery with throughput for the trade-off', () => {
    expect(recoveryRows(current, 'exactly_once').map((r) => [r.label, r.detection, r.catchUp])).toEqual([
      ['10', 900, 47],
      ['100', 900, 147],
    ])
    expect(tradeOffPoints(current, 'exactly_once')).toEqual([
      { recoveryMs: 950, throughput: 5, interval: 10, label: '10 ms', recoveryErr: null, throughputErr: null },
      { recoveryMs: 1050, throughput: 20, interval: 100, label: '100 ms', recoveryErr: null, throughputErr: null },
    ])
    expect(tradeOffPoints(current, 'at_least_once')).toEqual([])
  })
})
