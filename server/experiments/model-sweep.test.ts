// The model sweep is exact: the same request gives the same JSON, byte for byte, whatever the
// machine's load; and its curve has the mechanism's shape.

import { describe, expect, it } from 'vitest'
import type { CellResult, ExperimentRecord } from '../../lib/experiment-protocol.ts'
import { sweepCommand } from '../cli/sweep-command.ts'
import { expectedRedone, MODEL_SWEEP_SETTINGS, runModelSweep } from './model-sweep.ts'

/** `eoscope sweep --model --json --no-save` with these intervals and guarantees; its standard output. */
async function modelSweepJson(intervals: string, guarantees: string): Promise<string> {
  const lines: string[] = []
  const code = await sweepCommand(
    {
      intervals,
      guarantees,
      repeat: 1,
      'max-runs': undefined,
      backend: 'embedded',
      brokers: undefined,
      'worker-logs': false,
      'network-latency-ms': 0,
      'network-jitter-ms': 0,
      seed: 1,
      json: true,
      csv: false,
      'no-save': true,
      model: true,
    },
    (s) => lines.push(s),
  )
  expect(code).toBe(0)
  return lines.join('\n')
}

const cellOf = (r: ExperimentRecord, ms: number): CellResult => r.cells.find((c) => c.commitIntervalMs === ms)!

describe('the model sweep', () => {
  it('gives the same JSON, byte for byte, on every run; every figure labelled model, with its assumptions', {
    timeout: 300_000,
  }, async () => {
    const a = await modelSweepJson('10,300', 'at_least_once,exactly_once')
    const b = await modelSweepJson('10,300', 'at_least_once,exactly_once')
    expect(b).toBe(a)
    const j = JSON.parse(a) as {
      figures: string
      model: { figures: string; clock: string; costs: { recordMs: number }; assumptions: string[] }
      rows: { figures: string; guarantee: string; duplicatesPerKill: number; redonePerKill: number }[]
    }
    expect(j.figures).toBe('model')
    expect(j.model.figures).toBe('model')
    expect(j.model.clock).toBe('virtual')
    expect(j.model.costs.recordMs).toBeGreaterThan(0)
    expect(j.model.assumptions.length).toBeGreaterThan(3)
    expect(j.rows).toHaveLength(4)
    for (const row of j.rows) {
      expect(row.figures).toBe('model')
      // Under at_least_once every redone record is a duplicate; under exactly_once none is.
      expect(row.duplicatesPerKill).toBe(row.guarantee === 'at_least_once' ? row.redonePerKill : 0)
    }
  })

  const exactlyOnceTrends =
    'exactly_once: throughput and redone records do not fall as the interval grows, and recovery is longer with ' +
    'redone work than without'
  it(exactlyOnceTrends, {
    timeout: 300_000,
  }, async () => {
    const intervals = [100, 1_000, 3_000]
    const record = await runModelSweep({
      request: { intervals, guarantees: ['exactly_once'], repeat: 1, backend: 'embedded', seed: 1 },
    })
    expect(record.status).toBe('done')
    expect(record.machine.clock).toBe('virtual')
    const series = (f: (c: CellResult) => number | null) => intervals.map((ms) => f(cellOf(record, ms))!)
    const nonDecreasing = (xs: number[]) => xs.every((x, i) => i === 0 || x >= xs[i - 1]!)
    const thr = series((c) => c.throughputPerSec.median)
    const recovery = series((c) => c.recoveryMs.median)
    const redone = series((c) => c.redonePerKill.median)
    expect(thr.every((x) => x > 0)).toBe(true)
    expect(nonDecreasing(thr), `throughput ${thr}`).toBe(true)
    // Recovery ends when the new owner's commits pass the position at kill: with one repetition,
    // where that commit falls in the new owner's own cycle moves it by tens of ms either way
    // (1,000 and 3,000 ms read 1,540 and 1,553 ms with each task's transaction committed in turn,
    // 1,546 and 1,509 with them committed at once). Only the step from no redone work to some is
    // larger than that.
    expect(recovery[1]! > recovery[0]! && recovery[2]! > recovery[0]!, `recovery ${recovery}`).toBe(true)
    expect(nonDecreasing(redone), `redone ${redone}`).toBe(true)
    expect(redone[2]!).toBeGreaterThan(redone[0]!)
    // The kill lands at the same fraction of every interval's commit cycle; the redone records are
    // the killed worker's input over that time, to within a record or two.
    for (const ms of intervals) {
      const c = cellOf(record, ms)
      const expected = expectedRedone(MODEL_SWEEP_SETTINGS, ms, c.repetitions[0]!.killDelayMs).atThisKill!
      expect(Math.abs(c.redonePerKill.median! - expected), `${ms} ms`).toBeLessThanOrEqual(Math.max(2, expected * 0.2))
      expect(c.duplicatesPerKill.median).toBe(0)
    }
  })
})
