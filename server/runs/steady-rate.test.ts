import { describe, expect, it } from 'vitest'
import { type CommittedSample, steadyRate } from './steady-rate.ts'

/**
 * Samples every `everyMs` of a run of `workers` workers, each processing its share at `perMs / workers`
 * records a millisecond and committing what it processed every `intervalMs` from its own phase;
 * the run ends at the commit that covers its last record (up to one interval after the work).
 */
function steppedRun(
  records: number,
  perMs: number,
  intervalMs: number,
  everyMs: number,
  phasesMs: readonly number[],
): { samples: CommittedSample[]; wholeRunPerSec: number } {
  const share = records / phasesMs.length
  const rate = perMs / phasesMs.length
  const workMs = share / rate
  const committedAt = (t: number, phase: number) =>
    Math.min(share, Math.max(0, Math.floor((Math.floor((t - phase) / intervalMs) * intervalMs + phase) * rate)))
  const endMs = Math.max(...phasesMs.map((phase) => Math.ceil((workMs - phase) / intervalMs) * intervalMs + phase))
  const samples: CommittedSample[] = []
  for (let t = 0; t <= endMs; t += everyMs)
    samples.push({ at: t, committed: phasesMs.reduce((sum, phase) => sum + committedAt(t, phase), 0) })
  return { samples, wholeRunPerSec: (records / endMs) * 1000 }
}

describe('steadyRate', () => {
  it('is the slope of a straight line exactly', () => {
    const samples = Array.from({ length: 101 }, (_, i) => ({ at: 1_000 + i * 10, committed: i * 10_000 }))
    expect(steadyRate(samples, 1_000_000)).toEqual({ perSec: 1_000_000, windowMs: 800, samples: 81, steps: 81 })
  })

  const readsSteppedCommits =
    'reads a run committing in 100 ms steps within 2% of its processing rate, where the whole-run figure is off ' +
    'by up to a tenth'
  it(readsSteppedCommits, () => {
    // 1,000,000 records at 1,050 records/ms (952 ms of work), three workers
    // committing every 100 ms from their own phases.
    const wholeRunErrors: number[] = []
    for (const phases of [
      [0, 33, 66],
      [10, 20, 90],
      [50, 55, 60],
      [5, 40, 95],
    ]) {
      const { samples, wholeRunPerSec } = steppedRun(1_000_000, 1_050, 100, 5, phases)
      const r = steadyRate(samples, 1_000_000)!
      expect(Math.abs(r.perSec / 1_050_000 - 1)).toBeLessThan(0.02)
      wholeRunErrors.push(1 - wholeRunPerSec / 1_050_000)
    }
    expect(Math.max(...wholeRunErrors)).toBeGreaterThan(0.05)
  })

  it('sees a stall in the middle of the window', () => {
    const samples: CommittedSample[] = []
    for (let t = 0; t <= 2_000; t += 10)
      samples.push({
        at: t,
        committed: Math.min(1_000_000, t < 500 ? t * 1_000 : t < 1_000 ? 500_000 : (t - 500) * 1_000),
      })
    expect(steadyRate(samples, 1_000_000)!.perSec).toBeLessThan(800_000)
  })

  it('gives no rate for a window of too few samples, too few commits, or no time', () => {
    expect(
      steadyRate(
        [
          { at: 0, committed: 0 },
          { at: 10, committed: 500_000 },
          { at: 20, committed: 1_000_000 },
        ],
        1_000_000,
      ),
    ).toBeNull()
    expect(
      steadyRate(
        Array.from({ length: 20 }, () => ({ at: 5, committed: 500_000 })),
        1_000_000,
      ),
    ).toBeNull()
    // At commit.interval.ms 1000 a one-second run commits two or three times: plateaus, no line.
    const plateaus = Array.from({ length: 400 }, (_, i) => ({ at: i * 5, committed: i < 200 ? 333_000 : 666_000 }))
    expect(steadyRate(plateaus, 1_000_000)).toBeNull()
  })
})

describe("a run's steady throughput", () => {
  it('is the slope between 10% and 90% committed, or says why there is none', async () => {
    const { steadyThroughputOf } = await import('./headless-run.ts')
    // 1,000 records a ms for 100 ms after a 50 ms start: the whole run reads less, the steady window 1,000,000/s.
    const samples = [
      { at: 0, committed: 0 },
      { at: 50, committed: 0 },
      ...Array.from({ length: 101 }, (_, i) => ({ at: 50 + i, committed: i * 1_000 })),
    ]
    expect(steadyThroughputOf(samples, 100_000)).toEqual({ perSec: 1_000_000, windowMs: 80 })
    const short = steadyThroughputOf(samples.slice(0, 8), 100_000)
    expect(short.perSec).toBeNull()
    expect('unmeasured' in short && short.unmeasured).toMatch(/^0 samples and 0 distinct commits between 10% and 90%/)
  })
})
