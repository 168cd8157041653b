// The processed series under at_least_once at commit.interval.ms 1000 with 2,000 records/s of
// input: the committed offsets move once a second, the lab samples every 500 ms and a reader asks
// every 700 ms. Issue 34 read 0, 4016, 3984, 0, 0, 3992... from GET /api/lab's last point: a rate
// over the samples of a step function. The series must read the input rate.

import { describe, expect, it } from 'vitest'
import { MockTime } from '../log/time.ts'
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
