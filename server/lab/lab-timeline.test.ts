// The processed series under at_least_once at commit.interval.ms 1000 with 2,000 records/s of
// input: the committed offsets move once a second, the lab samples every 500 ms and a reader asks
// every 700 ms. Issue 34 read 0, 4016, 3984, 0, 0, 3992... from GET /api/lab's last point: a rate
// over the samples of a step function. The series must read the input rate.

import { describe, expect, it } from 'vitest'
import { MockTime } from '../log/time.ts'
import { headlineProcessed, processedWindowMs } from '../../lib/processed-rate.ts'
import { LabTimeline } from './lab-timeline.ts'

const NO_OUTPUT = { records: 0, p50: null, p99: null, max: null }
const PARTITIONS = 4

interface Run {
  ratePerSec: number
  commitIntervalMs: number
  durationMs: number
  /** A commit's delay past its interval (the poll finishing its batch first), for the n-th commit. */
  commitLag?: (n: number) => number
  /** Input stops at this instant (from the start). */
  stopAtMs?: number
}

/**
 * One worker owning every partition commits them all at once each interval (a Kafka Streams
 * thread's commit), reporting the offsets it consumed up to then; the lab samples every 500 ms;
 * a reader takes the latest point every 700 ms. Answers the reads.
 */
async function run(r: Run): Promise<{ t: number; processed: number }[]> {
  const time = new MockTime(0)
  const timeline = new LabTimeline(time)
  timeline.restart(Array.from({ length: PARTITIONS }, () => null))
  const reads: { t: number; processed: number }[] = []
  const events: { t: number; fn: () => void }[] = []
  for (let n = 1; n * r.commitIntervalMs <= r.durationMs; n++) {
    const t = n * r.commitIntervalMs + (r.commitLag?.(n) ?? 0)
    const flowed = Math.min(t, r.stopAtMs ?? Number.POSITIVE_INFINITY)
    const perPartition = Math.floor((flowed * r.ratePerSec) / 1000 / PARTITIONS)
    const offsets = Array.from({ length: PARTITIONS }, (_, p) => ({ partition: p, offset: perPartition }))
    events.push({ t, fn: () => timeline.committed(offsets, t) })
  }
  for (let t = 500; t <= r.durationMs; t += 500)
    events.push({ t, fn: () => timeline.sample(NO_OUTPUT, r.commitIntervalMs) })
  for (let t = 700; t <= r.durationMs; t += 700)
    events.push({
      t,
      fn: () => {
        const last = timeline.shownSeries().at(-1)
        if (last) reads.push({ t, processed: last.processedPerSec })
      },
    })
  events.sort((a, b) => a.t - b.t)
  for (const e of events) {
    await time.runFor(e.t - time.now())
    e.fn()
  }
  return reads
}

describe('the processed series', () => {
  const atLeastOnce: Run = { ratePerSec: 2000, commitIntervalMs: 1000, durationMs: 30_000 }

  it('reads the input rate at every read once a commit has come, never 0 or twice it', async () => {
    const reads = await run(atLeastOnce)
    const settled = reads.filter((r) => r.t >= 2_000)
    expect(settled.length).toBeGreaterThan(30)
    for (const r of settled) expect(r.processed, `at ${r.t} ms`).toBe(2000)
  })

  it('reads the input rate with commits running late by up to 90 ms', async () => {
    const reads = await run({ ...atLeastOnce, commitLag: (n) => (n * 37) % 90 })
    for (const r of reads.filter((x) => x.t >= 3_000)) {
      expect(r.processed, `at ${r.t} ms`).toBeGreaterThanOrEqual(1900)
      expect(r.processed, `at ${r.t} ms`).toBeLessThanOrEqual(2100)
    }
  })

  it('reads 0 once no commit has come for a whole window after the input stopped', async () => {
    const reads = await run({ ...atLeastOnce, stopAtMs: 15_000 })
    const at = (t: number) => reads.find((r) => r.t >= t)!.processed
    expect(at(14_000)).toBe(2000)
    // The last commit carrying records is at 15 s; later ones commit nothing new; 2 s on, 0.
    expect(at(17_500)).toBe(0)
  })

  it('at commit.interval.ms 5000 the window spans two intervals and reads the input rate', async () => {
    const reads = await run({ ratePerSec: 2000, commitIntervalMs: 5000, durationMs: 40_000 })
    for (const r of reads.filter((x) => x.t >= 5_000)) expect(r.processed, `at ${r.t} ms`).toBe(2000)
  })
})

describe('right after the commit-interval scenario', () => {
  // Its last lab: 12 partitions, three workers committing every 5000 ms at their own phases, 150,000
  // records/s. At 20.2 s the scenario ends: the workers stop cleanly (one last commit each), the
  // lab returns to commit.interval.ms 100 and 600 records/s, and its workers commit again from 21 s.
  // Issue 34 saw PROCESSED 0/s there while COMMITTED INPUT went from 1.78M to 1.82M in 2 s: the
  // dashboard's window followed the new interval (2 s) over samples whose last 2 s held no commit.
  it('the headline is above 0 whenever input was committed in its window, and never above the input rate', async () => {
    const time = new MockTime(0)
    const timeline = new LabTimeline(time)
    const partitions = 12
    timeline.restart(Array.from({ length: partitions }, () => null))
    let interval = 5000
    const offsets = new Array<number>(partitions).fill(0)
    const lastCommit = new Array<number>(partitions).fill(0)
    const progress: number[] = [] // instants of commits that moved an offset
    const events: { t: number; fn: () => void }[] = []
    /** A commit of partitions `ps` at `t`: what each processed at `perSec` since its last commit. */
    const commit = (ps: number[], t: number, perSec: number) =>
      events.push({
        t,
        fn: () => {
          for (const p of ps) {
            offsets[p]! += Math.round((perSec * (t - lastCommit[p]!)) / 1000)
            lastCommit[p] = t
          }
          timeline.committed(
            ps.map((p) => ({ partition: p, offset: offsets[p]! })),
            t,
          )
          progress.push(t)
        },
      })
    const owned = [0, 1, 2].map((w) => [0, 1, 2, 3].map((i) => w * 4 + i))
    // Commits at 2, 7, 12, 17 s; 3, 8, 13, 18 s; 1, 6, 11, 16 s: none in the 2 s before the end.
    for (const [w, ps] of owned.entries())
      for (let t = [2000, 3000, 1000][w]!; t < 20_000; t += 5000) commit(ps, t, 12_500)
    // The clean stop's commit, then the restored lab's commits every 100 ms.
    for (const ps of owned) commit(ps, 20_200, 12_500)
    events.push({ t: 20_200, fn: () => (interval = 100) })
    for (let t = 21_000; t <= 30_000; t += 100) commit([...Array(partitions).keys()], t, 600 / partitions)
    for (let t = 500; t <= 30_000; t += 500) events.push({ t, fn: () => timeline.sample(NO_OUTPUT, interval) })
    const reads: { t: number; headline: number | null; committedInWindow: boolean }[] = []
    for (let t = 15_000; t <= 30_000; t += 100)
      events.push({
        t,
        fn: () => {
          // As the stat row reads it: the series, and the window of the interval configured now.
          const windowMs = processedWindowMs(interval)
          reads.push({
            t,
            headline: headlineProcessed(timeline.shownSeries(), windowMs),
            committedInWindow: progress.some((c) => c <= t && c > t - windowMs),
          })
        },
      })
    events.sort((a, b) => a.t - b.t)
    for (const e of events) {
      await time.runFor(e.t - time.now())
      e.fn()
    }
    for (const r of reads) {
      if (r.committedInWindow) expect(r.headline, `at ${r.t} ms`).toBeGreaterThan(0)
      expect(r.headline, `at ${r.t} ms`).toBeLessThanOrEqual(150_000)
    }
    // Once the restored lab has committed for a window, the headline is its input rate.
    expect(reads.at(-1)!.headline).toBe(600)
  })
})
