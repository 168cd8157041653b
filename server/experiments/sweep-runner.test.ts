// The commit-interval sweep on a virtual clock with the latency model on: the trade-off has the
// shape it must have. Small max.poll.records and short windows keep the saturated windows cheap to
// compute; the shapes do not depend on them.
//
// Every test runs its own sweep. A sweep on a busy machine may take minutes of wall-clock time, so
// a test waits as long as the sweep makes progress (a stage reached, a repetition done) and fails
// only when none came for STALL_MS, or past the generous overall bound of its timeout.

import { describe, expect, it } from 'vitest'
import type { CellResult, ExperimentRecord, SweepRequest, SweepSettings } from '../../lib/experiment-protocol.ts'
import { MockTime } from '../log/time.ts'
import { BackendUnavailableError, runSweep, SweepCancelledError } from './sweep-runner.ts'

const FAST: Partial<SweepSettings> = {
  maxPollRecords: 50,
  minWindowMs: 400,
  warmupMs: 200,
  backlogRecords: 6_000,
  steadyRatePerSec: 2_000,
}
/** Wall-clock time a sweep may go without any progress before its test fails. */
const STALL_MS = 120_000
/** The overall bound of a test that runs sweeps (wall-clock). */
const BOUND = { timeout: 900_000 }

interface Driven {
  record: ExperimentRecord
  /** Every record the sweep reported, in order. */
  progress: ExperimentRecord[]
}

/** Runs a sweep on a fresh virtual clock until it ends, failing if it goes STALL_MS without progress. */
async function sweep(
  request: SweepRequest,
  o: { signal?: AbortSignal; onProgress?: (r: ExperimentRecord) => void } = {},
): Promise<Driven> {
  const time = new MockTime()
  const progress: ExperimentRecord[] = []
  let lastProgressAt = Date.now()
  let settled = false
  const running = runSweep({
    request,
    settings: FAST,
    time,
    signal: o.signal,
    onProgress: (r) => {
      progress.push(r)
      lastProgressAt = Date.now()
      o.onProgress?.(r)
    },
  }).finally(() => {
    settled = true
  })
  const stalled = () => {
    if (Date.now() - lastProgressAt <= STALL_MS) return false
    const last = progress.at(-1)?.progress
    throw new Error(`the sweep made no progress for ${STALL_MS / 1000} s (last: ${JSON.stringify(last)})`)
  }
  await Promise.race([time.runUntil(() => settled || stalled(), 3_600_000, 20), running])
  return { record: await running, progress }
}

const cell = (r: ExperimentRecord, g: string, ms: number): CellResult => {
  const c = r.cells.find((x) => x.guarantee === g && x.commitIntervalMs === ms)
  if (!c)
    throw new Error(
      `no cell ${g} at ${ms} ms among ${r.cells.map((x) => `${x.guarantee}@${x.commitIntervalMs}`).join(', ')}`,
    )
  return c
}

/** What every repetition of an embedded sweep must show, whatever the cell. */
function expectSoundRepetitions(record: ExperimentRecord): void {
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
}

describe('the commit-interval sweep on a virtual clock (latency model on)', () => {
  it('measures every cell, reporting progress and partial results as it goes', BOUND, async () => {
    const request: SweepRequest = {
      intervals: [10, 100],
      guarantees: ['at_least_once', 'exactly_once'],
      repeat: 2,
      backend: 'embedded',
      seed: 3,
    }
    const cells = request.intervals.length * request.guarantees.length
    const { record, progress } = await sweep(request)
    expect(record.status).toBe('done')
    expect(record.machine.clock).toBe('virtual')
    expect(record.cells).toHaveLength(cells)
    expect(record.cells.every((c) => c.repetitions.length === request.repeat)).toBe(true)
    expect(progress[0]!.progress).toEqual({ done: 0, total: cells * request.repeat, current: null })
    // Partial results: the cells appear one by one while the sweep runs.
    const seen = new Set(progress.filter((p) => p.status === 'running').map((p) => p.cells.length))
    for (let n = 0; n < cells; n++) expect(seen.has(n), `a running record with ${n} cells`).toBe(true)
    const done = progress.map((p) => p.progress.done)
    expect(done).toEqual([...done].sort((a, b) => a - b))
    expect(new Set(progress.flatMap((p) => (p.progress.current ? [p.progress.current.stage] : [])))).toEqual(
      new Set(['throughput', 'latency', 'recovery', 'validation']),
    )
    expectSoundRepetitions(record)
  })

  it(
    'shows the trade-off: throughput, catch-up, duplicates per kill and latency against commit.interval.ms',
    BOUND,
    async () => {
      const intervals = [10, 100, 500]
      const { record } = await sweep({
        intervals,
        guarantees: ['at_least_once', 'exactly_once'],
        repeat: 3,
        backend: 'embedded',
        seed: 3,
      })
      expect(record.status).toBe('done')
      expect(record.cells).toHaveLength(6)
      expectSoundRepetitions(record)

      // exactly_once throughput rises with commit.interval.ms and approaches at_least_once.
      const eosThr = intervals.map((ms) => cell(record, 'exactly_once', ms).throughputPerSec.median!)
      const alosThr = intervals.map((ms) => cell(record, 'at_least_once', ms).throughputPerSec.median!)
      expect(eosThr[1]!).toBeGreaterThan(eosThr[0]!)
      expect(eosThr[2]!).toBeGreaterThan(eosThr[1]!)
      const gap = intervals.map((_, i) => 1 - eosThr[i]! / alosThr[i]!)
      expect(gap[0]!).toBeGreaterThan(0.2)
      expect(gap[2]!).toBeLessThan(gap[0]! / 2)
      expect(gap[2]!).toBeLessThan(0.15)

      // Catch-up time and, under at_least_once, duplicates per kill grow with commit.interval.ms.
      for (const g of ['at_least_once', 'exactly_once']) {
        const catchUp = intervals.map((ms) => cell(record, g, ms).phases.catchUp.median!)
        expect(catchUp[1]!, g).toBeGreaterThan(catchUp[0]!)
        expect(catchUp[2]!, g).toBeGreaterThan(catchUp[1]!)
      }
      const dups = intervals.map((ms) => cell(record, 'at_least_once', ms).duplicatesPerKill.median!)
      expect(dups[0]!).toBeGreaterThan(0)
      expect(dups[1]!).toBeGreaterThan(dups[0]!)
      expect(dups[2]!).toBeGreaterThan(dups[1]!)

      // End-to-end latency under exactly_once grows with commit.interval.ms; under
      // at_least_once it does not wait for commits.
      const eosP50 = intervals.map((ms) => cell(record, 'exactly_once', ms).latencyP50Ms.median!)
      expect(eosP50[2]!).toBeGreaterThan(eosP50[1]!)
      expect(eosP50[1]!).toBeGreaterThan(eosP50[0]!)
      expect(cell(record, 'at_least_once', 500).latencyP50Ms.median!).toBeLessThan(eosP50[2]! / 4)
    },
  )
})

describe('a sweep', () => {
  it('is the same on every run with the same seed', BOUND, async () => {
    const once = async () => {
      const { record } = await sweep({
        intervals: [20],
        guarantees: ['at_least_once'],
        repeat: 2,
        backend: 'embedded',
        seed: 9,
      })
      return record.cells.map((c) =>
        c.repetitions.map(
          ({ repetition, seed, throughputPerSec, latencyP50Ms, recoveryMs, duplicates, killDelayMs }) => ({
            repetition,
            seed,
            throughputPerSec,
            latencyP50Ms,
            recoveryMs,
            duplicates,
            killDelayMs,
          }),
        ),
      )
    }
    const a = await once()
    expect(a[0]).toHaveLength(2)
    expect(await once()).toEqual(a)
  })

  it('keeps median, min and max over the repetitions', BOUND, async () => {
    const { record } = await sweep({
      intervals: [100],
      guarantees: ['at_least_once'],
      repeat: 3,
      backend: 'embedded',
      seed: 1,
    })
    const c = record.cells[0]!
    const dups = c.repetitions.map((x) => x.duplicates!).sort((a, b) => a - b)
    expect(c.duplicatesPerKill).toEqual({ median: dups[1], min: dups[0], max: dups[2], low: null, high: null, n: 3 })
    // The kill lands at a seeded moment: not the same moment in every repetition.
    expect(new Set(c.repetitions.map((x) => x.killDelayMs)).size).toBeGreaterThan(1)
  })

  it('stops when cancelled, keeping what it measured', BOUND, async () => {
    const abort = new AbortController()
    const { record } = await sweep(
      { intervals: [10, 20, 30], guarantees: ['at_least_once'], repeat: 1, backend: 'embedded' },
      {
        signal: abort.signal,
        onProgress: (r) => {
          if (r.progress.done === 1) abort.abort()
        },
      },
    )
    expect(record.status).toBe('cancelled')
    expect(record.cells).toHaveLength(1)
    expect(record.finishedAt).not.toBeNull()
    expect(new SweepCancelledError().name).toBe('SweepCancelledError')
  })

  it('refuses a backend it cannot run on', async () => {
    await expect(
      runSweep({ request: { intervals: [10], guarantees: ['exactly_once'], repeat: 1, backend: 'kafka' } }),
    ).rejects.toBeInstanceOf(BackendUnavailableError)
  })
})
