import { describe, expect, it } from 'vitest'
import type { ChartPoint } from './lab-protocol.ts'
import {
  type CommitStep,
  committedRate,
  headlineProcessed,
  processedWindowMs,
  windowLabel,
  withWindowedProcessed,
} from './processed-rate.ts'

interface Run {
  commitIntervalMs: number
  ratePerSec: number
  sampleEveryMs: number
  durationMs: number
  /** A commit's delay past its interval (a poll finishing its batch first): ms for the n-th commit. */
  commitLag?: (n: number) => number
  /** A sample's delay past its 500 ms tick (a busy event loop). */
  sampleLag?: (n: number) => number
  /** Input stops flowing from this instant on. */
  stopAtMs?: number
}

/**
 * A simulated at_least_once run as the lab samples it: committed input offsets jump at each commit
 * (every record consumed since the last commit), and each sample is the advance since the sample
 * before, per second, rounded (the lab timeline's own arithmetic).
 */
function simulate(run: Run): ChartPoint[] {
  const commits: { t: number; committed: number }[] = []
  for (let n = 1, t = 0; ; n++) {
    t = n * run.commitIntervalMs + (run.commitLag?.(n) ?? 0)
    if (t > run.durationMs) break
    const flowedUntil = Math.min(t, run.stopAtMs ?? Infinity)
    commits.push({ t, committed: Math.floor((flowedUntil * run.ratePerSec) / 1000) })
  }
  const committedAt = (t: number) => commits.filter((c) => c.t <= t).at(-1)?.committed ?? 0
  const series: ChartPoint[] = []
  let last = { t: 0, committed: 0 }
  for (let n = 1; n * run.sampleEveryMs <= run.durationMs; n++) {
    const t = n * run.sampleEveryMs + (run.sampleLag?.(n) ?? 0)
    const committed = committedAt(t)
    const dt = (t - last.t) / 1000
    series.push({
      t,
      processedPerSec: Math.max(0, Math.round((committed - last.committed) / dt)),
      visibleOutputPerSec: 0,
      latencyP50Ms: null,
      latencyP99Ms: null,
      latencyMaxMs: null,
    })
    last = { t, committed }
  }
  return series
}

/** The same run's commits, per partition (one partition here): where it started, then each commit. */
function commitsOf(run: Run): CommitStep[] {
  const steps: CommitStep[] = [{ t: 0, offset: 0 }]
  for (let n = 1; ; n++) {
    const t = n * run.commitIntervalMs + (run.commitLag?.(n) ?? 0)
    if (t > run.durationMs) break
    steps.push({ t, offset: Math.floor((Math.min(t, run.stopAtMs ?? Infinity) * run.ratePerSec) / 1000) })
  }
  return steps
}

describe('the processed rate', () => {
  const atLeastOnce: Run = { commitIntervalMs: 1000, ratePerSec: 2000, sampleEveryMs: 500, durationMs: 60_000 }

  it('takes a window of at least 2 s and at least two commit intervals', () => {
    expect(processedWindowMs(1000)).toBe(2000)
    expect(processedWindowMs(100)).toBe(2000)
    expect(processedWindowMs(30_000)).toBe(60_000)
    expect(processedWindowMs(undefined)).toBe(2000)
    expect(windowLabel(2000)).toBe('2 s')
    expect(windowLabel(60_000)).toBe('1 min')
  })

  it('the per-sample figure is the 0 / 4,000 sawtooth the series must not show', () => {
    const per = simulate(atLeastOnce).map((p) => p.processedPerSec)
    expect(per.filter((v) => v === 0).length).toBeGreaterThan(50)
    expect(Math.max(...per)).toBe(4000)
  })

  it('at_least_once, commit.interval.ms 1000, 2,000 records/s: the input rate at any instant after a commit', () => {
    const commits = [commitsOf(atLeastOnce)]
    const window = processedWindowMs(1000)
    for (let t = 1000; t <= 60_000; t += 70) expect(committedRate(commits, t, window), `at ${t} ms`).toBe(2000)
  })

  it('whole commit intervals: late commits leave it within 5% of the input rate', () => {
    const commits = [commitsOf({ ...atLeastOnce, commitLag: (n) => (n * 37) % 90 })]
    for (let t = 3000; t <= 60_000; t += 70) {
      const rate = committedRate(commits, t, 2000)
      expect(rate, `at ${t} ms`).toBeGreaterThanOrEqual(1900)
      expect(rate, `at ${t} ms`).toBeLessThanOrEqual(2100)
    }
  })

  it("adds up the partitions' rates, whatever the phase of their commits", () => {
    const a = commitsOf(atLeastOnce)
    const b = commitsOf({ ...atLeastOnce, ratePerSec: 500 }).map((c) => ({ ...c, t: c.t + 430 }))
    for (let t = 3000; t <= 50_000; t += 70) expect(committedRate([a, b], t, 2000), `at ${t} ms`).toBe(2500)
  })

  it('reads 0 once no commit has come for a whole window, and before the first commit', () => {
    const commits = [commitsOf({ ...atLeastOnce, durationMs: 30_000 })]
    expect(committedRate(commits, 29_500, 2000)).toBe(2000)
    expect(committedRate(commits, 32_001, 2000)).toBe(0)
    expect(committedRate([[{ t: 0, offset: 0 }]], 500, 2000)).toBe(0)
    expect(committedRate([], 500, 2000)).toBe(0)
  })

  it('the chart and the headline show the points as the lab computed them', () => {
    const series = simulate({ ...atLeastOnce, durationMs: 3000 })
    expect(withWindowedProcessed(series, 2000)).toEqual(series)
    expect(headlineProcessed(series, 2000)).toBe(series.at(-1)!.processedPerSec)
    expect(headlineProcessed([], 2000)).toBeNull()
  })
})
