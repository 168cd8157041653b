import { describe, expect, it } from 'vitest'
import { cellOf, type RepetitionResult } from '../../lib/experiment-protocol.ts'
import { latencyRows, recoveryRows, statRows, tradeOffPoints } from './sweep-series.ts'

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
  it('have one row per interval of either run, with median and min–max band per guarantee', () => {
    expect(statRows(current, earlier, (c) => c.throughputPerSec)).toEqual([
      { x: 10, exactly_once: 5, exactly_once_band: [5, 5] },
      { x: 100, exactly_once: 20, exactly_once_band: [10, 30] },
      { x: 1000, cmp_exactly_once: 50, cmp_exactly_once_band: [50, 50] },
    ])
    expect(latencyRows(current, null)[0]).toEqual({ x: 10, exactly_once_p50: 5, exactly_once_p99: 9 })
  })

  it('stack the recovery phases per interval, and pair recovery with throughput for the trade-off', () => {
    expect(recoveryRows(current, 'exactly_once').map((r) => [r.label, r.detection, r.catchUp])).toEqual([
      ['10', 900, 47],
      ['100', 900, 147],
    ])
    expect(tradeOffPoints(current, 'exactly_once')).toEqual([
      { recoveryMs: 950, throughput: 5, interval: 10, label: '10 ms' },
      { recoveryMs: 1050, throughput: 20, interval: 100, label: '100 ms' },
    ])
    expect(tradeOffPoints(current, 'at_least_once')).toEqual([])
  })
})
