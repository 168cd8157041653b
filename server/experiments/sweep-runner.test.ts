// The commit-interval sweep on a virtual clock with the latency model on: the trade-off has the
// shape it must have. Small max.poll.records and short windows keep the saturated windows cheap to
// compute; the shapes do not depend on them.

import { describe, expect, it } from 'vitest'
import type { CellResult, ExperimentRecord, SweepSettings } from '../../lib/experiment-protocol.ts'
import { MockTime } from '../log/time.ts'
import { BackendUnavailableError, runSweep, SweepCancelledError } from './sweep-runner.ts'

const FAST: Partial<SweepSettings> = { maxPollRecords: 50, minWindowMs: 400, warmupMs: 200, backlogRecords: 6_000, steadyRatePerSec: 2_000 }

async function drive<T>(time: MockTime, p: Promise<T>, maxMs = 3_600_000): Promise<T> {
  let settled = false
  const tracked = p.finally(() => {
    settled = true
  })
  await time.runUntil(() => settled, maxMs, 20)
  return tracked
}

const cell = (r: ExperimentRecord, g: string, ms: number): CellResult => r.cells.find((c) => c.guarantee === g && c.commitIntervalMs === ms)!

describe('the commit-interval sweep on a virtual clock (latency model on)', () => {
  const intervals = [10, 100, 500]
  let record: ExperimentRecord
  const progress: ExperimentRecord[] = []

  it('measures every cell, reporting progress and partial results as it goes', { timeout: 60_000 }, async () => {
    const time = new MockTime()
    record = await drive(
      time,
      runSweep({ request: { intervals, guarantees: ['at_least_once', 'exactly_once'], repeat: 3, backend: 'embedded', seed: 3 }, settings: FAST, time, onProgress: (r) => progress.push(r) }),
    )
    expect(record.status).toBe('done')
    expect(record.machine.clock).toBe('virtual')
    expect(record.cells).toHaveLength(6)
    expect(record.cells.every((c) => c.repetitions.length === 3)).toBe(true)
    expect(progress[0]!.progress).toEqual({ done: 0, total: 18, current: null })
    // Partial results: the cells appear one by one while the sweep runs.
    expect(progress.some((p) => p.status === 'running' && p.cells.length === 3)).toBe(true)
    expect(new Set(progress.flatMap((p) => (p.progress.current ? [p.progress.current.stage] : [])))).toEqual(new Set(['throughput', 'latency', 'recovery', 'validation']))
    for (const c of record.cells) {
      for (const rep of c.repetitions) {
        expect(rep.saturated).toBe(true)
        expect(rep.lost).toBe(0)
        expect(rep.recoveryMs).not.toBeNull()
        // The phases add up to the recovery time.
        const sum = Object.values(rep.phases).reduce<number>((a, b) => a + b!, 0)
        expect(sum).toBeCloseTo(rep.recoveryMs!, 6)
        if (c.guarantee === 'exactly_once') expect(rep.duplicates).toBe(0)
        else expect(rep.phases.fence).toBe(0)
      }
    }
  })

  it('exactly_once throughput rises with commit.interval.ms and approaches at_least_once', () => {
    const eos = intervals.map((ms) => cell(record, 'exactly_once', ms).throughputPerSec.median!)
    const alos = intervals.map((ms) => cell(record, 'at_least_once', ms).throughputPerSec.median!)
    expect(eos[1]!).toBeGreaterThan(eos[0]!)
    expect(eos[2]!).toBeGreaterThan(eos[1]!)
    const gap = intervals.map((_, i) => 1 - eos[i]! / alos[i]!)
    expect(gap[0]!).toBeGreaterThan(0.2)
    expect(gap[2]!).toBeLessThan(gap[0]! / 2)
    expect(gap[2]!).toBeLessThan(0.15)
  })

  it('catch-up time and, under at_least_once, duplicates per kill grow with commit.interval.ms', () => {
    for (const g of ['at_least_once', 'exactly_once']) {
      const catchUp = intervals.map((ms) => cell(record, g, ms).phases.catchUp.median!)
      expect(catchUp[1]!).toBeGreaterThan(catchUp[0]!)
      expect(catchUp[2]!).toBeGreaterThan(catchUp[1]!)
    }
    const dups = intervals.map((ms) => cell(record, 'at_least_once', ms).duplicatesPerKill.median!)
    expect(dups[0]!).toBeGreaterThan(0)
    expect(dups[1]!).toBeGreaterThan(dups[0]!)
    expect(dups[2]!).toBeGreaterThan(dups[1]!)
  })

  it('end-to-end latency under exactly_once grows with commit.interval.ms; under at_least_once it does not wait for commits', () => {
    const eos = intervals.map((ms) => cell(record, 'exactly_once', ms).latencyP50Ms.median!)
    expect(eos[2]!).toBeGreaterThan(eos[1]!)
    expect(eos[1]!).toBeGreaterThan(eos[0]!)
    expect(cell(record, 'at_least_once', 500).latencyP50Ms.median!).toBeLessThan(eos[2]! / 4)
  })
})

describe('a sweep', () => {
  it('is the same on every run with the same seed', { timeout: 30_000 }, async () => {
    const once = async () => {
      const time = new MockTime()
      const r = await drive(time, runSweep({ request: { intervals: [20], guarantees: ['at_least_once'], repeat: 2, backend: 'embedded', seed: 9 }, settings: FAST, time }))
      return r.cells.map((c) => c.repetitions.map(({ repetition, seed, throughputPerSec, latencyP50Ms, recoveryMs, duplicates, killDelayMs }) => ({ repetition, seed, throughputPerSec, latencyP50Ms, recoveryMs, duplicates, killDelayMs })))
    }
    const a = await once()
    expect(a[0]).toHaveLength(2)
    expect(await once()).toEqual(a)
  })

  it('keeps median, min and max over the repetitions', { timeout: 30_000 }, async () => {
    const time = new MockTime()
    const r = await drive(time, runSweep({ request: { intervals: [100], guarantees: ['at_least_once'], repeat: 3, backend: 'embedded', seed: 1 }, settings: FAST, time }))
    const c = r.cells[0]!
    const dups = c.repetitions.map((x) => x.duplicates!).sort((a, b) => a - b)
    expect(c.duplicatesPerKill).toEqual({ median: dups[1], min: dups[0], max: dups[2], n: 3 })
    // The kill lands at a seeded moment: not the same moment in every repetition.
    expect(new Set(c.repetitions.map((x) => x.killDelayMs)).size).toBeGreaterThan(1)
  })

  it('stops when cancelled, keeping what it measured', { timeout: 30_000 }, async () => {
    const time = new MockTime()
    const abort = new AbortController()
    const p = runSweep({
      request: { intervals: [10, 20, 30], guarantees: ['at_least_once'], repeat: 1, backend: 'embedded' },
      settings: FAST,
      time,
      signal: abort.signal,
      onProgress: (r) => {
        if (r.progress.done === 1) abort.abort()
      },
    })
    const r = await drive(time, p)
    expect(r.status).toBe('cancelled')
    expect(r.cells).toHaveLength(1)
    expect(r.finishedAt).not.toBeNull()
    expect(new SweepCancelledError().name).toBe('SweepCancelledError')
  })

  it('refuses a backend it cannot run on', async () => {
    await expect(runSweep({ request: { intervals: [10], guarantees: ['exactly_once'], repeat: 1, backend: 'kafka' } })).rejects.toBeInstanceOf(BackendUnavailableError)
  })

})
