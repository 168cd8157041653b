import { describe, expect, it } from 'vitest'
import type { ChartPoint } from './lab-protocol.ts'
import {
  headlineProcessed,
  processedWindowMs,
  windowedProcessed,
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

describe('the processed rate over a window', () => {
  const atLeastOnce: Run = { commitIntervalMs: 1000, ratePerSec: 2000, sampleEveryMs: 500, durationMs: 60_000 }

  it('takes a window of at least 2 s and at least two commit intervals', () => {
    expect(processedWindowMs(1000)).toBe(2000)
    expect(processedWindowMs(100)).toBe(2000)
    expect(processedWindowMs(30_000)).toBe(60_000)
    expect(processedWindowMs(undefined)).toBe(2000)
    expect(windowLabel(2000)).toBe('2 s')
    expect(windowLabel(60_000)).toBe('1 min')
  })

  it('the per-sample figure is the 0 / 4,000 sawtooth the headline must not show', () => {
    const per = simulate(atLeastOnce).map((p) => p.processedPerSec)
    expect(per.filter((v) => v === 0).length).toBeGreaterThan(50)
    expect(Math.max(...per)).toBe(4000)
  })

  it('at_least_once, commit.interval.ms 1000, 2,000 records/s, samples every 500 ms: never 0 while input flows', () => {
    const series = simulate(atLeastOnce)
    const window = processedWindowMs(1000)
    const firstCommit = series.findIndex((p) => p.processedPerSec > 0)
    for (let i = firstCommit; i < series.length; i++) {
      const headline = headlineProcessed(series.slice(0, i + 1), window)
      expect(headline, `at ${series[i]!.t} ms`).toBeGreaterThan(0)
      expect(headline).toBeGreaterThanOrEqual(1000)
      expect(headline).toBeLessThanOrEqual(3000)
    }
    // Once the window is full the rate is the input rate.
    expect(headlineProcessed(series, window)).toBe(2000)
  })

  it('stays above 0 with commits running late and samples jittering', () => {
    const series = simulate({ ...atLeastOnce, commitLag: (n) => (n * 37) % 90, sampleLag: (n) => (n * 53) % 40 })
    const window = processedWindowMs(1000)
    const rates = windowedProcessed(series, window)
    const firstCommit = series.findIndex((p) => p.processedPerSec > 0)
    expect(rates.slice(firstCommit).every((r) => r > 0)).toBe(true)
    // A window holds one to three commits of about 2,000 records: at least half the input rate.
    expect(Math.min(...rates.slice(8))).toBeGreaterThanOrEqual(1000)
  })

  it('reads 0 once no commit has come for a whole window after input stopped', () => {
    const series = simulate({ ...atLeastOnce, stopAtMs: 30_000 })
    const rates = windowedProcessed(series, processedWindowMs(1000))
    const at = (t: number) => rates[series.findIndex((p) => p.t >= t)]
    expect(at(29_000)).toBe(2000)
    expect(at(34_000)).toBe(0)
  })

  it('the chart line carries the windowed rate, not the sawtooth', () => {
    const line = withWindowedProcessed(simulate(atLeastOnce), 2000).map((p) => p.processedPerSec)
    expect(line.slice(4).every((v) => v === 2000)).toBe(true)
    expect(headlineProcessed([], 2000)).toBeNull()
  })
})
